"""analyse.py's criteria on hand-made nights whose every count is known."""
import csv
import os
import subprocess
import sys

HERE = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, HERE)

import analyse  # noqa: E402

TESTS = 20
# A setting whose day 60 is marked as behaving like the assumption (simulate.LIKE_ASSUMPTION).
LIKE = "past-weekly-vs-annual"


def write(path, header, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def night(folder, roll_backs_of_the_winner=1, annual_misses=2, weekly_bounded=1, far_misses=0, statuses=None, old_format=False,
          annual_year=3.0):
    """A weekly control (expected 2.0) against an annual treatment that wins the year (3.0, or
    `annual_year`), read on day 60: value intervals of ±1 around the truth and far ends of ±2,
    except where stated."""
    offerings = [f"test_{t:04d}" for t in range(TESTS)]
    truth = {("weekly", o): 2.0 for o in offerings} | {("annual", o): annual_year for o in offerings}
    write(os.path.join(folder, "truth.csv"), ["day", "offering_id", "group", "users", "true_arpu_365"],
          [[60, o, g, 1800, v] for (g, o), v in truth.items()])
    write(os.path.join(folder, "expected.csv"),
          ["offering_id", "group", "expected_revenue_365", "expected_revenue_365_se", "entered_by_day_30_share", "past", "period_test",
           "wins_year"],
          [[o, g, v, 0.01, 0.99, "like", 1, int((g == "annual") == (annual_year > 2.0))] for (g, o), v in truth.items()])
    projection = []
    for (g, o), v in truth.items():
        test = int(o[-4:])
        far = [v + 3, v + 4] if g == "weekly" and test < far_misses else [v - 2, v + 2]  # far ends that miss, or cover
        if g == "weekly" and test < weekly_bounded:
            row = [o, g, 1800, 30, 1.0, "", "", "", 0.4]  # far ends only
        elif g == "annual" and 1 <= test <= annual_misses:
            row = [o, g, 1800, 30, 1.0, v + 2, v + 1.5, v + 2.5, 0.4]  # a value that misses
        else:
            row = [o, g, 1800, 30, 1.0, v, v - 1, v + 1, 0.4]
        projection.append(row if old_format else row + far)
    out = os.path.join(folder, "out-day60", "2026-03-06")
    header = ["offering_id", "group", "users", "observed_days_mean", "realized_arpu", "projected_arpu_365", "projected_arpu_365_ci_low",
              "projected_arpu_365_ci_high", "share_of_year_from_past"]
    write(os.path.join(out, "projection.csv"),
          header if old_format else header + ["projected_arpu_365_bound_low", "projected_arpu_365_bound_high"], projection)
    write(os.path.join(out, "comparisons.csv"),
          ["offering_id", "group", "control_group", "metric", "abs_lift", "abs_lift_ci_low", "abs_lift_ci_high", "p_value",
           "abs_lift_bound_low", "abs_lift_bound_high"],
          [[o, "annual", "weekly", "projected_arpu_365", 1.0, *((1.2, 1.8) if o == "test_0005" else (0.5, 1.5)), 0.01, -1.0, 3.0]
           for o in offerings])
    statuses = statuses or ["roll_back" if t < roll_backs_of_the_winner else "ship" for t in range(TESTS)]
    write(os.path.join(out, "decisions.csv"), ["offering_id", "group", "control_group", "status"],
          [[o, "annual", "weekly", statuses[t]] for t, o in enumerate(offerings)])


def aa_night(folder, significant):
    """An A/A setting read on day 60: both groups expected 2.0, `significant` of 20 p-values below 0.05."""
    offerings = [f"test_{t:04d}" for t in range(TESTS)]
    write(os.path.join(folder, "truth.csv"), ["day", "offering_id", "group", "users", "true_arpu_365"],
          [[60, o, g, 1800, 2.0] for o in offerings for g in ("a", "b")])
    write(os.path.join(folder, "expected.csv"),
          ["offering_id", "group", "expected_revenue_365", "expected_revenue_365_se", "entered_by_day_30_share", "past", "period_test",
           "wins_year"], [[o, g, 2.0, 0.01, 0.9, "none", 0, 0] for o in offerings for g in ("a", "b")])
    out = os.path.join(folder, "out-day60", "2026-03-06")
    write(os.path.join(out, "projection.csv"),
          ["offering_id", "group", "users", "observed_days_mean", "realized_arpu", "projected_arpu_365", "projected_arpu_365_ci_low",
           "projected_arpu_365_ci_high", "projected_arpu_365_bound_low", "projected_arpu_365_bound_high"],
          [[o, g, 1800, 30, 1.0, 2.0, 1.0, 3.0, 0.5, 4.0] for o in offerings for g in ("a", "b")])
    write(os.path.join(out, "comparisons.csv"),
          ["offering_id", "group", "control_group", "metric", "abs_lift", "abs_lift_ci_low", "abs_lift_ci_high", "p_value",
           "abs_lift_bound_low", "abs_lift_bound_high"],
          [[o, "b", "a", "projected_arpu_365", 0.0, -0.5, 0.5, 0.01 if t < significant else 0.5, -1.0, 1.0]
           for t, o in enumerate(offerings)])


def run(tmp_path):
    result = subprocess.run([sys.executable, os.path.join(HERE, "analyse.py"), "--data", str(tmp_path / "data"), "--csv",
                             str(tmp_path / "cells.csv")], check=True, capture_output=True, text=True)
    return result.stdout.splitlines(), list(csv.DictReader(open(tmp_path / "cells.csv")))


def analyse_night(tmp_path, setting=LIKE, **kwargs):
    night(str(tmp_path / "data" / setting), **kwargs)
    return run(tmp_path)


def starts(lines, prefix, *parts):
    return any(line.startswith(prefix) and all(part in line for part in parts) for line in lines)


def test_every_criterion_passes_on_a_night_that_meets_them(tmp_path):
    lines, cells = analyse_night(tmp_path)
    # 37 of 39 value intervals cover (the annual group misses 2 of 20, the weekly group has 19 values).
    assert starts(lines, "PASS: (a) where the unseen behaves as the seen, value intervals cover 93–97 % pooled (94.9 % of 39;")
    assert starts(lines, "PASS: (a) where the unseen behaves as the seen, no cell's value intervals", "(2 cells with a value).")
    assert starts(lines, "PASS: (b) the far ends cover in every setting", "(100.0 % of 40 pooled).")
    assert starts(lines, "PASS: (c) where the unseen behaves as the seen, the comparisons' value intervals", "(19 of 20, 95.0 %;")
    assert starts(lines, "PASS: (c) the comparisons' far ends cover", "(100.0 % of 20).")
    assert starts(lines, "NO DATA: (d) A/A false positives (no A/A setting read).")
    assert starts(lines, "PASS: (e) period tests are decided against their year", "1 of 20")
    # The annual plan's year is 1.5 times the weekly plan's: every test shipped or rolled back.
    assert starts(lines, "PASS: (f) period tests whose treatment's year is a third above", "(20 of 20, 100.0 %;")
    assert starts(lines, "NO DATA: (f) period tests whose treatment's year is half control's")
    assert "| past-weekly-vs-annual | 60 | annual | yes | 20 | 3.000 | 1.000 | 100.0 % | 18 of 20 (90.0 %) | 16 | 0.67 | +0.0 % " \
           "| 20 of 20 (100.0 %) | 16 | 1.33 |" in lines
    # A column projection.csv gained is averaged into the CSV whatever its name.
    assert {c["mean_share_of_year_from_past"] for c in cells} == {"0.4"}


def test_rolling_back_the_years_winner_too_often_fails(tmp_path):
    lines, _ = analyse_night(tmp_path, roll_backs_of_the_winner=4)  # 4 of 20 = 20 % > 5 % + 9.6 points
    assert starts(lines, "FAIL: (e) period tests are decided against their year", "4 of 20")


def test_a_cell_under_its_binomial_quantile_fails(tmp_path):
    lines, _ = analyse_night(tmp_path, annual_misses=5)  # 15 of 20 < 16, the 1 % quantile of Binomial(20, 0.95)
    assert starts(lines, "FAIL: (a) where the unseen behaves as the seen, no cell's value intervals",
                  "under: past-weekly-vs-annual day 60 annual (15 of 20, quantile 16).")
    assert starts(lines, "FAIL: (a) where the unseen behaves as the seen, value intervals cover 93–97 % pooled (87.2 % of 39;")


def test_a_cell_at_its_binomial_quantile_passes(tmp_path):
    lines, _ = analyse_night(tmp_path, annual_misses=4)  # 16 of 20: at the quantile
    assert starts(lines, "PASS: (a) where the unseen behaves as the seen, no cell's value intervals")


def test_a_setting_built_against_the_continuation_is_measured_not_held(tmp_path):
    lines, _ = analyse_night(tmp_path, setting="renewal-cliff", annual_misses=6)
    assert starts(lines, "NO DATA: (a) value intervals where the unseen behaves as the seen")
    assert starts(lines, "MEASURED: value intervals in the settings built against the continuation cover 84.6 % of 39")


def test_far_ends_that_miss_fail_in_any_setting(tmp_path):
    lines, _ = analyse_night(tmp_path, setting="renewal-cliff", far_misses=5)  # weekly: 15 of 20 far ends cover
    assert starts(lines, "FAIL: (b) the far ends cover in every setting", "under: renewal-cliff day 60 weekly (15 of 20, quantile 16).")


def test_a_night_without_the_bound_columns_reads_its_ci_columns_as_the_far_ends(tmp_path):
    lines, _ = analyse_night(tmp_path, old_format=True)  # the bounded weekly test has no interval at all then
    assert starts(lines, "PASS: (b) the far ends cover in every setting", "(94.9 % of 39 pooled).")


def test_decisions_that_do_not_arrive_by_day_60_fail(tmp_path):
    lines, _ = analyse_night(tmp_path, statuses=["ship"] * 6 + ["keep_running"] * 14)  # 6 of 20 < a third
    assert starts(lines, "FAIL: (f) period tests whose treatment's year is a third above", "(6 of 20, 30.0 %;")


def test_aa_false_positives(tmp_path):
    aa_night(str(tmp_path / "data" / "aa"), significant=2)  # 10 % ≤ 5 % + 9.6 points
    lines, _ = run(tmp_path)
    assert starts(lines, "PASS: (d) A/A false positives", "(2 of 20 comparisons with a p-value, 10.0 %; at most 14.6 %;")
    aa_night(str(tmp_path / "data" / "aa"), significant=3)  # 15 % > 14.6 %
    lines, _ = run(tmp_path)
    assert starts(lines, "FAIL: (d) A/A false positives", "(3 of 20")


def test_the_binomial_quantile_without_scipy_matches_it(monkeypatch):
    expected = {n: analyse.binomial_quantile(0.01, n) for n in (1, 20, 39, 200)}
    monkeypatch.setitem(sys.modules, "scipy.stats", None)  # `from scipy.stats import binom` raises ImportError
    assert {n: analyse.binomial_quantile(0.01, n) for n in expected} == expected
    assert expected[20] == 16 and expected[200] == 182


def test_a_futile_stop_of_a_treatment_that_loses_the_year_is_counted_apart(tmp_path):
    # The annual plan's year is half the weekly plan's: 3 rolled back, 12 stopped as futile.
    statuses = ["roll_back"] * 3 + ["futile"] * 12 + ["keep_running"] * 5
    lines, _ = analyse_night(tmp_path, statuses=statuses, annual_year=1.0)
    assert starts(lines, "FAIL: (f) period tests whose treatment's year is half control's", "(3 of 20, 15.0 %;")
    assert starts(lines, "MEASURED: (f) of the rest, 12 were stopped as `futile` by day 60", "with them 15 of 20 (75.0 %)")
    assert "| past-weekly-vs-annual | 0.500 | 20 | 3 (15.0 %) | 12 (60.0 %) |" in lines
    # None of it is against the year: the loser is rolled back or stopped.
    assert starts(lines, "PASS: (e) period tests are decided against their year", "0 of 20")
