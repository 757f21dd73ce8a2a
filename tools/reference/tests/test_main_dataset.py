"""The hand-made `data/main` data set, every number worked out by hand.

Inputs (see data/main/ and data/make_main_fixtures.py):
- tables: offerings as CSV (quoted comma and quotes in `name`), groups as TSV (escapes and NULL in
  an extra column), assignments as gzip under a plain `.csv` name with CRLF lines;
- logs: a.jsonl (CRLF and LF lines, a blank line), b.jsonl.gz (two gzip members, the boundary
  inside a line, no final newline), c.csv (a CSV log); the globs match a.jsonl twice.
- as_of 2026-03-16T00:00:00Z, window 7 days, rates USD 1 (report), EUR 2, GBP 0.5, JPY none;
  job control `baseline` (a group of -winter only).

Offerings: spring (id 1: control 10 w50, group_b 11 w25, group_c 12 w25), -winter (id 2: beta 20
w1, baseline 21 w1), dormant (id 3: only a row after as_of, so not analysed).

Population (spring): u1 control 03-01 (a second row 03-02 ignored), u2 control 03-01,
u3 group_b 03-01, u4 group_b 03-01T12:00, u5 group_c 03-01, "00123" group_b 03-01;
u6 control+group_b -> multi_group_users 1; u7 at as_of -> ignored (so unassigned).
Invalid rows: spring 5 (group of -winter, unknown group 99, NULL user, "" user, 2026-02-30),
-winter 1 (group 10 of spring), global 2 (offering 9, offering "abc"). ur/ud after as_of: ignored.
Population (-winter): u1 baseline 03-05, u9 beta 03-05.

Lines: a 24 non-blank (9 malformed), b 15, c 4 records (1 malformed) -> lines_read 43,
malformed 10: invalid_json 3 (truncated, array, NaN), missing_field 2 (no user_id; purchase
without price), invalid_field 1 (user_id 1.0), bad_timestamp 2 (02-30; digit string),
negative_price 1, invalid_csv 1 (4 fields for a 9-column header). 33 events.

Clean-up: b15 at as_of dropped (no counter). Duplicates: E2 a2/b1 same ts -> a2 wins (file
order); E5 a15 (purchase 03-07) / c1 (paywall_view 03-06) -> c1 wins (earlier ts); E9 a16/b7
-> a16; (purchase, T3) a7/b2 -> a7 (earlier): duplicate_events 4. Unknown: a16 `upgrade`
(environment sandbox, but unknown wins) -> 1. Sandbox: a9 (SANDBOX) -> 1. Unassigned: user 123
(JSON integer, not "00123"), u7, u8 (CSV log, ts in epoch ms) -> 3.

Attribution, spring (window until 03-08):
- u1 (control): paywall 03-02, purchase T1 10 USD 03-03, renewal T2 "10.00" USD 03-06 (camelCase
  keys), refund T1 without price 03-10 (after the window, T1 counts -> counts, inherits 10 USD).
  gross 20, refunded 10, net 10; converted; viewed.
- u2 (control): trial TT2 (OT2) 03-02 (both user_id "u2" and userId "u3": snake wins), purchase
  T3 4.5 EUR (OT2) 03-04 -> 9 USD, trial converted by original_transaction_id; refund of TT2 (a
  trial) -> orphan. net 9.
- u3 (group_b): trial TT3 p_week (no otid) 03-02, purchase T5 p_week 5 GBP 03-03 -> 2.5, trial
  converted by product_id; purchase T6 03-09 after the window counts nowhere; its refund ->
  orphan; paywall 02-28 -> pre_assignment. net 2.5; not a viewer.
- u4 (group_b, 03-01T12:00): trial TT4 (OT4, ts epoch ms), purchase T7 8 USD without otid (no
  trial conversion), refund T7 3 JPY -> counted refund, unknown currency, no money; purchase T8
  at 11:00 -> pre_assignment. net 8.
- u5 (group_c): purchase T9 1200 JPY (offeringId autumn -> attribution mismatch) -> unknown
  currency; refund T9 without price inherits JPY -> unknown currency. net 0, converted.
- "00123" (group_b): paywall_view -> viewer.
spring counters: pre 2, orphan 2, mismatch 1 (u5: 1 user), unknown currency 3.

Attribution, -winter (window until 03-12):
- u1 (baseline): paywall 03-02 and purchase T1 03-03 -> pre_assignment 2; renewal T2 03-06 counts,
  its testGroupId "control" (no offeringId) is not "baseline" but is u1's group in spring: tests
  overlap, so it is no mismatch (docs/analysis.md §2); refund T1 -> T1 does not count here -> orphan 1. net 10,
  not converted.
- u9 (beta): purchase T10 20 USD (offering/test group agree), paywall c1 03-06, cancel 03-05
  (= assigned_at: counts; before any charge, and naming no chain -> chainless_cancels 1). net 20.
"""

from __future__ import annotations

import math
import shutil
import sqlite3
from pathlib import Path

import pytest
from scipy import stats

from conftest import DATA, Outputs, read_csv, ref, run, run_failing

Z = stats.norm.ppf(0.975)
MAIN = DATA / "main" / "job.yaml"


@pytest.fixture(scope="module")
def main_outputs(tmp_path_factory) -> Outputs:
    return run(MAIN, tmp_path_factory.mktemp("main"))


def wilson(x: int, n: int) -> tuple[float, float]:
    p = x / n
    center = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return max(0.0, center - half), min(1.0, center + half)


def test_quality_counters(main_outputs: Outputs):
    q = main_outputs.quality
    assert [(r["offering_id"], r["counter"]) for r in q] == [
        ("", name) for name in ref.GLOBAL_COUNTERS
    ] + [("'-winter", name) for name in ref.OFFERING_COUNTERS] + [("spring", name) for name in ref.OFFERING_COUNTERS]
    expected_global = {
        "files_read": 3, "files_skipped_corrupt": 0, "lines_read": 43, "malformed_lines": 10,
        "malformed_invalid_json": 3, "malformed_missing_field": 2, "malformed_invalid_field": 1,
        "malformed_bad_timestamp": 2, "malformed_negative_price": 1, "malformed_invalid_csv": 1,
        "malformed_line_too_long": 0, "duplicate_events": 4, "unknown_event_types": 1,
        "sandbox_events": 1, "unassigned_events": 3, "invalid_assignments": 2,
    }
    assert {name: main_outputs.counter(name) for name in expected_global} == expected_global
    spring = {"invalid_assignments": 5, "multi_group_users": 1, "pre_assignment_events": 2, "orphan_refunds": 2,
              "chainless_cancels": 0, "attribution_mismatches": 1, "attribution_mismatch_users": 1, "unknown_currency_events": 3}
    winter = {"invalid_assignments": 1, "multi_group_users": 0, "pre_assignment_events": 2, "orphan_refunds": 1,
              "chainless_cancels": 1, "attribution_mismatches": 0, "attribution_mismatch_users": 0, "unknown_currency_events": 0}
    assert {n: main_outputs.counter(n, "spring") for n in spring} == spring
    # '-winter' is written with a leading quote: a CSV formula trigger is neutralised.
    assert {n: main_outputs.counter(n, "'-winter") for n in winter} == winter


def test_output_order_and_columns(main_outputs: Outputs):
    assert list(main_outputs.summary[0]) == list(ref.SUMMARY_COLUMNS + ref.CAPPED_COLUMNS)
    # Offerings byte-wise ('-' < 's'); groups by table id (beta 20 before baseline 21).
    assert [(r["offering_id"], r["group"]) for r in main_outputs.summary] == [
        ("'-winter", "beta"), ("'-winter", "baseline"),
        ("spring", "control"), ("spring", "group_b"), ("spring", "group_c")]
    assert [(r["group"], r["product_id"]) for r in main_outputs.products] == [
        ("beta", "p_month"), ("baseline", "p_month"),
        ("control", "p_month"), ("group_b", "p_month"), ("group_b", "p_week"), ("group_c", "p_week")]
    # Each offering: conversion and arpu per group, then proceeds per user, completed trials (docs/analysis.md §8–§9)
    # and the refund user rate (docs/statistics.md, "The decision").
    assert [(r["group"], r["metric"]) for r in main_outputs.comparisons] == [
        ("beta", "conversion"), ("beta", "arpu"), ("beta", "proceeds_per_user"), ("beta", "trial_completed_conversion"),
        ("beta", "refund_user_rate"),
        ("group_b", "conversion"), ("group_b", "arpu"), ("group_c", "conversion"), ("group_c", "arpu"),
        ("group_b", "proceeds_per_user"), ("group_c", "proceeds_per_user"),
        ("group_b", "trial_completed_conversion"), ("group_c", "trial_completed_conversion"),
        ("group_b", "refund_user_rate"), ("group_c", "refund_user_rate")]
    raw = (main_outputs.folder / "summary.csv").read_bytes()
    assert raw.endswith(b"\r\n") and b"\r\n'-winter,beta,false,1,1,1,1," in raw


def test_spring_control(main_outputs: Outputs):
    row = main_outputs.group("spring", "control")
    # users u1, u2; both converted; u2 started and converted a trial; u1 viewed the paywall.
    assert (row["is_control"], row["weight"], row["users"], row["converters"]) == ("true", "50", "2", "2")
    assert (row["trial_starters"], row["trial_converters"], row["trial_conversion_rate"]) == ("1", "1", "1")
    assert (row["paywall_viewers"], row["purchases"], row["renewals"], row["refunds"]) == ("1", "2", "1", "1")
    # gross: u1 10+10, u2 4.5 EUR x 2 = 9 -> 29; refunded 10 (T1's price, inherited); net 19.
    assert (row["gross_revenue"], row["refunded_revenue"], row["net_revenue"]) == ("29", "10", "19")
    assert (row["arpu"], row["arppu"]) == ("9.5", "9.5")
    # per-user net 10 and 9: sample variance ((0.5)^2 + (0.5)^2)/1 = 0.5
    assert float(row["arpu_sd"]) == math.sqrt(0.5)
    # Wilson 2/2: low = 1/(1 + z^2/2), high = 1
    low, high = wilson(2, 2)
    assert float(row["conversion_ci_low"]) == pytest.approx(1 / (1 + Z * Z / 2), rel=1e-12)
    assert (float(row["conversion_ci_low"]), float(row["conversion_ci_high"])) == pytest.approx((low, high), rel=1e-12)
    assert row["conversion_rate"] == "1"


def test_spring_group_b(main_outputs: Outputs):
    row = main_outputs.group("spring", "group_b")
    # users "00123", u3, u4: converters u3, u4; trials u3 (converted), u4 (not: otid vs none).
    assert (row["is_control"], row["users"], row["converters"]) == ("false", "3", "2")
    assert float(row["conversion_rate"]) == 2 / 3
    assert (row["trial_starters"], row["trial_converters"], row["trial_conversion_rate"]) == ("2", "1", "0.5")
    assert (row["paywall_viewers"], row["purchases"], row["renewals"], row["refunds"]) == ("1", "2", "0", "1")
    # net per user (id order "00123", u3, u4): 0, 2.5 (5 GBP x 0.5), 8; the JPY refund adds nothing.
    assert (row["gross_revenue"], row["refunded_revenue"], row["net_revenue"]) == ("10.5", "0", "10.5")
    assert (row["arpu"], row["arppu"]) == ("3.5", "5.25")
    # Σx² = 70.25, (Σx)²/n = 36.75 -> variance (70.25 - 36.75)/2 = 16.75
    assert float(row["arpu_sd"]) == math.sqrt(16.75)
    assert (float(row["conversion_ci_low"]), float(row["conversion_ci_high"])) == pytest.approx(wilson(2, 3), rel=1e-12)


def test_spring_group_c(main_outputs: Outputs):
    row = main_outputs.group("spring", "group_c")
    # u5 alone: converted with JPY money only -> revenue 0; arpu_sd empty (one user).
    assert (row["users"], row["converters"], row["trial_starters"], row["trial_conversion_rate"]) == ("1", "1", "0", "")
    assert (row["purchases"], row["refunds"], row["net_revenue"], row["arpu"], row["arpu_sd"], row["arppu"]) == (
        "1", "1", "0", "0", "", "0")


def test_winter_groups(main_outputs: Outputs):
    beta = main_outputs.group("'-winter", "beta")
    baseline = main_outputs.group("'-winter", "baseline")
    # The job's control `baseline` exists here, so it is control although beta has the lower id.
    assert (beta["is_control"], baseline["is_control"]) == ("false", "true")
    assert (beta["users"], beta["converters"], beta["paywall_viewers"], beta["net_revenue"], beta["arppu"]) == (
        "1", "1", "1", "20", "20")
    assert (baseline["users"], baseline["converters"], baseline["renewals"], baseline["net_revenue"]) == ("1", "0", "1", "10")
    assert (baseline["conversion_rate"], baseline["conversion_ci_low"], baseline["arppu"], baseline["weight"]) == (
        "0", "0", "", "1")
    assert float(baseline["conversion_ci_high"]) == pytest.approx(wilson(0, 1)[1], rel=1e-12)


def test_products(main_outputs: Outputs):
    rows = {(r["offering_id"], r["group"], r["product_id"]): r for r in main_outputs.products}
    # control p_month: T1, T3 purchases, T2 renewal, T1 refund; EUR 4.5 x 2 + USD (10+10-10)
    r = rows[("spring", "control", "p_month")]
    assert (r["purchases"], r["renewals"], r["refunds"], r["net_revenue"]) == ("2", "1", "1", "19")
    r = rows[("spring", "group_b", "p_month")]
    assert (r["purchases"], r["refunds"], r["net_revenue"]) == ("1", "1", "8")  # the JPY refund counts, no money
    assert rows[("spring", "group_b", "p_week")]["net_revenue"] == "2.5"
    r = rows[("spring", "group_c", "p_week")]
    assert (r["purchases"], r["refunds"], r["net_revenue"]) == ("1", "1", "0")
    assert ("spring", "group_b", "p_year") not in rows  # T6 after the window, its refund orphan
    assert rows[("'-winter", "baseline", "p_month")]["renewals"] == "1"


def test_srm(main_outputs: Outputs):
    srm = {r["offering_id"]: r for r in main_outputs.srm}
    # spring: users 2/3/1, expected 3/1.5/1.5 -> chi2 = 1/3 + 1.5 + 1/6 = 2, df 2 -> p = e^-1
    assert float(srm["spring"]["chi2"]) == pytest.approx(2, rel=1e-12)
    assert float(srm["spring"]["srm_p_value"]) == pytest.approx(math.exp(-1), rel=1e-12)
    assert srm["spring"]["srm_flag"] == "false"
    assert (srm["'-winter"]["chi2"], srm["'-winter"]["srm_p_value"], srm["'-winter"]["srm_flag"]) == ("0", "1", "false")
    assert "dormant" not in srm


def test_comparisons_conversion(main_outputs: Outputs):
    b = main_outputs.comparison("spring", "group_b", "conversion")
    # control 2/2, treatment 2/3: lift -1/3; CI half-width z*sqrt((2/9)/3 + 0)
    assert float(b["abs_lift"]) == pytest.approx(-1 / 3, rel=1e-12)
    assert float(b["abs_lift_ci_high"]) == pytest.approx(-1 / 3 + Z * math.sqrt(2 / 27), rel=1e-12)
    assert float(b["rel_lift_ci_low"]) == pytest.approx(-1 / 3 - Z * math.sqrt(2 / 27), rel=1e-12)
    # pooled 4/5: se = sqrt(0.16 (1/3 + 1/2)); z = (-1/3)/se
    se = math.sqrt(0.16 * (1 / 3 + 1 / 2))
    assert float(b["p_value"]) == pytest.approx(2 * stats.norm.sf(1 / 3 / se), rel=1e-12)
    # Holm over {b, c}: c has p = 1 (se = 0); b smallest -> 2 p_b; c -> max(2 p_b, 1) = 1
    assert float(b["p_value_adjusted"]) == pytest.approx(2 * float(b["p_value"]), rel=1e-12)
    assert b["significant"] == "false"
    # P(Beta(3,2) > Beta(3,1)) = ∫ 12x²(1-x) x³ dx = 12 (1/6 - 1/7) = 2/7
    assert float(b["chance_to_beat_control"]) == pytest.approx(2 / 7, abs=1e-12)
    assert b["mde_abs"] == "0"  # p_c = 1
    c = main_outputs.comparison("spring", "group_c", "conversion")
    assert (c["abs_lift"], c["abs_lift_ci_low"], c["rel_lift"], c["p_value"], c["p_value_adjusted"]) == ("0", "0", "0", "1", "1")
    # P(Beta(2,1) > Beta(3,1)) = ∫ 2x · x³ dx = 2/5
    assert float(c["chance_to_beat_control"]) == pytest.approx(0.4, abs=1e-12)
    w = main_outputs.comparison("'-winter", "beta", "conversion")
    # control 0/1, treatment 1/1: rel_lift undefined (m_c = 0); pooled 1/2 -> z = 1/sqrt(0.5)
    assert (w["control_value"], w["value"], w["abs_lift"], w["rel_lift"], w["rel_lift_ci_low"]) == ("0", "1", "1", "", "")
    assert float(w["p_value"]) == pytest.approx(2 * stats.norm.sf(math.sqrt(2)), rel=1e-12)
    # P(Beta(2,1) > Beta(1,2)) = ∫ 2x (2x - x²) dx = 4/3 - 1/2 = 5/6
    assert float(w["chance_to_beat_control"]) == pytest.approx(5 / 6, abs=1e-12)


def test_comparisons_arpu(main_outputs: Outputs):
    b = main_outputs.comparison("spring", "group_b", "arpu")
    welch = stats.ttest_ind([0.0, 2.5, 8.0], [10.0, 9.0], equal_var=False)
    assert (b["control_value"], b["value"], b["abs_lift"]) == ("9.5", "3.5", "-6")
    assert float(b["p_value"]) == pytest.approx(welch.pvalue, rel=1e-9)
    assert b["p_value_adjusted"] == b["p_value"]  # the only arpu p-value of spring
    se = math.sqrt(16.75 / 3 + 0.5 / 2)
    df = se ** 4 / ((16.75 / 3) ** 2 / 2 + (0.5 / 2) ** 2 / 1)
    assert float(b["abs_lift_ci_low"]) == pytest.approx(-6 - stats.t.ppf(0.975, df) * se, rel=1e-12)
    assert float(b["chance_to_beat_control"]) == pytest.approx(stats.norm.cdf(-6 / se), rel=1e-12)
    rel_half = Z * math.sqrt(16.75 / (3 * 9.5 ** 2) + 3.5 ** 2 * 0.5 / (2 * 9.5 ** 4))
    assert float(b["rel_lift_ci_high"]) == pytest.approx(3.5 / 9.5 - 1 + rel_half, rel=1e-12)
    assert b["mde_abs"] == ""
    # group_c and -winter groups have one user: only the means are shown.
    c = main_outputs.comparison("spring", "group_c", "arpu")
    assert (c["control_value"], c["value"], c["abs_lift"], c["p_value"], c["significant"]) == ("9.5", "0", "", "", "")
    w = main_outputs.comparison("'-winter", "beta", "arpu")
    assert (w["control_value"], w["value"], w["abs_lift"]) == ("10", "20", "")


def test_same_results_from_sqlite_tables(main_outputs: Outputs, tmp_path: Path):
    """The same tables in a SQLite file (typed columns, an extra table) give the same outputs."""
    work = tmp_path / "main"
    shutil.copytree(DATA / "main", work)
    database = work / "tables.sqlite"
    connection = sqlite3.connect(database)
    connection.execute("CREATE TABLE subscription_offerings (id INTEGER, offering_id TEXT, name TEXT, is_active INTEGER)")
    connection.execute("CREATE TABLE subscription_offering_groups (weight REAL, id INTEGER, subscription_offering_id INTEGER, group_name TEXT)")
    connection.execute("CREATE TABLE user_offering_assignments (user_id TEXT, subscription_offering_id, offering_group_id INTEGER, assigned_at TEXT)")
    connection.execute("CREATE TABLE unrelated (x)")
    connection.executemany("INSERT INTO subscription_offerings VALUES (?,?,?,?)",
                           [(1, "spring", "Spring", 1), (2, "-winter", "Winter", 1), (3, "dormant", "D", 0)])
    connection.executemany("INSERT INTO subscription_offering_groups VALUES (?,?,?,?)",
                           [(50, 10, 1, "control"), (25, 11, 1, "group_b"), (25, 12, 1, "group_c"),
                            (1, 20, 2, "beta"), (1.0, 21, 2, "baseline"), (1, 30, 3, "control")])
    rows = []
    for row in read_csv_gz(work / "tables" / "user_offering_assignments.csv"):
        rows.append(row)
    connection.executemany("INSERT INTO user_offering_assignments VALUES (?,?,?,?)", rows)
    connection.commit()
    connection.close()
    job = work / "job.yaml"
    job.write_text(job.read_text().replace("tables: tables/", "tables: tables.sqlite"))
    outputs = run(job, tmp_path / "out")
    for name in ("summary", "products", "quality", "comparisons", "srm"):
        assert getattr(outputs, name) == getattr(main_outputs, name), name


def read_csv_gz(path: Path) -> list[tuple]:
    """The assignment rows as SQLite values: NULL for \\N, '' for a quoted empty field, and
    the offering id as an INTEGER when it is one."""
    data = ref.read_input_bytes(path)
    records = list(ref.iter_csv_records(data))[1:]
    rows = []
    for record in records:
        values = []
        for raw, quoted in record.fields[:4]:
            if not quoted and raw in (b"", b"\\N"):
                values.append(None)
            else:
                values.append(raw.decode())
        if values[1] is not None and values[1].isdigit():
            values[1] = int(values[1])
        rows.append(tuple(values))
    return rows


def test_bad_line_ratio_over_the_limit_fails(tmp_path: Path, capsys):
    work = tmp_path / "main"
    shutil.copytree(DATA / "main", work)
    job = work / "job.yaml"
    job.write_text(job.read_text().replace("max_bad_line_ratio: 0.25", "max_bad_line_ratio: 0.2"))
    error = run_failing(job, tmp_path / "out", capsys)
    assert "10 malformed lines of 43" in error
    assert not (tmp_path / "out").exists()


def test_as_of_override(tmp_path: Path):
    """--as-of 2026-03-03: events from 03-03 on are dropped; u1 then has only the paywall view."""
    outputs = run(MAIN, tmp_path / "out", "--as-of", "2026-03-03T00:00:00Z")
    control = outputs.group("spring", "control")
    assert (control["users"], control["converters"], control["paywall_viewers"]) == ("2", "0", "1")
    # -winter has no assignment before 03-03 -> not analysed by default.
    assert {r["offering_id"] for r in outputs.summary} == {"spring"}
    # The duplicate E2 pair (03-03) is dropped by as_of before deduplication: only E9 remains.
    assert outputs.counter("duplicate_events") == 1


def test_committed_expected_files_are_current(tmp_path: Path):
    """data/main/expected/ holds this script's output for data/main (for the Swift end-to-end
    tests); regenerate with `offerlab_reference.py tests/data/main/job.yaml --out tests/data/main/expected`."""
    assert ref.main([str(MAIN), "--out", str(tmp_path)]) == 0
    for name in ("summary", "products", "quality", "comparisons", "srm"):
        expected = (DATA / "main" / "expected" / f"{name}.csv").read_bytes()
        assert (tmp_path / f"{name}.csv").read_bytes() == expected, name
