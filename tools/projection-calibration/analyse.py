#!/usr/bin/env python3
"""Reads each setting's truth.csv (the members' realised mean), expected.csv (a newcomer's
expected revenue_365 and the year's winner) and the nights `offerlab run` wrote for it, and prints
the calibration tables of docs/projection-calibration.md with a pass/fail line per criterion of
contract §2.14 (turn 6, "The year at the rates seen, and its far ends") and issue 77 item 2
(markdown on stdout, one CSV row per cell to --csv).

    python3 analyse.py --data DIR [--csv FILE]     (DIR holds one folder per setting)

Two intervals per group-night since main's aaa30c3: the value's (`projected_arpu_365_ci_low/high`,
at the rates seen, only with a value) and the far ends (`projected_arpu_365_bound_low/high`,
every group-night); the comparison rows likewise (`abs_lift_ci_low/high`, `abs_lift_bound_low/high`).
A night written before those columns existed is read with its ci columns as the far ends too
(they were the bounds then).
"""
import argparse
import csv
import glob
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simulate import LIKE_ASSUMPTION  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(text):
    return float(text) if text not in ("", None) else None


PROJECTION_COLUMNS = {"offering_id", "group", "users", "observed_days_mean", "realized_arpu", "projected_arpu_365",
                      "projected_arpu_365_ci_low", "projected_arpu_365_ci_high", "projected_arpu_365_bound_low",
                      "projected_arpu_365_bound_high"}
NOMINAL = 0.95
# A cell fails when it covers fewer than this quantile of Binomial(n, 0.95) of its n intervals
# (contract §2.14 turn 6): a cell at 95 % falls below it once in a hundred.
CELL_QUANTILE = 0.01
# The pooled band for the value intervals where the unseen behaves as the seen.
POOLED_BAND = (0.93, 0.97)
# Treatment-to-control ratios of a newcomer's expected year that issue 77 item 2 names for the
# decisions' arrival by day 60: "half control's" and "a third above", with the share decided.
DECISION_BANDS = (("half control's", 0.4, 0.6, 1 / 2), ("a third above", 1.2, 1.5, 1 / 3))


def binomial_quantile(probability, n, p=NOMINAL):
    """The smallest k with P(X ≤ k) ≥ probability, X ~ Binomial(n, p) (scipy's binom.ppf)."""
    try:
        from scipy.stats import binom
        return int(binom.ppf(probability, n, p))
    except ImportError:
        total = 0.0
        for k in range(n + 1):
            total += math.comb(n, k) * p ** k * (1 - p) ** (n - k)
            if total >= probability - 1e-12:
                return k
        return n


def cell_fails(covered, count):
    """Covers fewer than the 1 % lower quantile of Binomial(count, 0.95) (no interval: no verdict)."""
    return count > 0 and covered < binomial_quantile(CELL_QUANTILE, count)


def like_assumption(setting, day):
    return int(day) in LIKE_ASSUMPTION.get(setting, ())


def verdict(passed):
    return "PASS" if passed else "FAIL"


def expected_of(expected, offering, group):
    return float(expected[(offering, group)]["expected_revenue_365"])


def period_decisions(setting, day, rows, expected):
    """The night's decisions in the period tests whose year has a winner: a `ship` of a treatment
    that does not win the year over its control, or a `roll_back` of one that does, is decided
    against the year."""
    counts = dict(setting=setting, day=day, period_tests=0, ship=0, roll_back=0, keep_running=0, other=0, against_year=0)
    for r in rows:
        treatment, control = expected[(r["offering_id"], r["group"])], expected[(r["offering_id"], r["control_group"])]
        if treatment["period_test"] != "1":
            continue
        treatment_wins = float(treatment["expected_revenue_365"]) > float(control["expected_revenue_365"])
        if treatment["wins_year"] != "1" and control["wins_year"] != "1":
            continue  # no group wins this year beyond the truth's own error
        counts["period_tests"] += 1
        status = r["status"]
        counts[status if status in ("ship", "roll_back", "keep_running") else "other"] += 1
        counts["against_year"] += (status == "ship" and not treatment_wins) or (status == "roll_back" and treatment_wins)
    return counts


def is_aa(expected):
    """An A/A setting: in every test all groups share one expected newcomer (the simulator gives
    groups that behave alike one estimate)."""
    by_test = {}
    for (offering, _), row in expected.items():
        by_test.setdefault(offering, set()).add(row["expected_revenue_365"])
    return bool(by_test) and all(len(values) == 1 for values in by_test.values()) and len(expected) > len(by_test)


def mean_of(rows, column):
    values = []
    for row in rows:
        try:
            values.append(float(row[column]))
        except (TypeError, ValueError):
            pass
    return statistics.mean(values) if values else None


def read_cell(setting, day, name, group_rows, truth, about):
    """One (setting, read day, group) cell: the value intervals over the group-nights with a value,
    the far ends over every group-night."""
    trues, realised, covered, widths, biases, far_covered, far_widths = [], [], [], [], [], [], []
    for row in group_rows:
        true = truth[(day, row["offering_id"], name)]
        trues.append(true)
        realised.append(float(row["realized_arpu"]))
        value = number(row["projected_arpu_365"])
        low, high = number(row["projected_arpu_365_ci_low"]), number(row["projected_arpu_365_ci_high"])
        if value is not None and low is not None:
            covered.append(low <= true <= high)
            widths.append((high - low) / true if true > 0 else math.nan)
            biases.append((value - true) / true if true > 0 else math.nan)
        if "projected_arpu_365_bound_low" in row:
            far_low, far_high = number(row["projected_arpu_365_bound_low"]), number(row["projected_arpu_365_bound_high"])
        else:
            far_low, far_high = low, high
        if far_low is not None:
            far_covered.append(far_low <= true <= far_high)
            far_widths.append((far_high - far_low) / true if true > 0 else math.nan)
    tests = len(group_rows)
    extra_columns = [c for c in group_rows[0] if c not in PROJECTION_COLUMNS]
    return dict(
        setting=setting, day=day, group=name, like_assumption=int(like_assumption(setting, day)), tests=tests,
        true_arpu_365=statistics.mean(trues), realised=statistics.mean(realised),
        with_value=len(covered) / tests, value_intervals=len(covered), value_covered=sum(covered),
        coverage=sum(covered) / len(covered) if covered else None,
        value_quantile=binomial_quantile(CELL_QUANTILE, len(covered)) if covered else None,
        median_width=statistics.median(widths) if widths else None,
        median_bias=statistics.median(biases) if biases else None,
        far_intervals=len(far_covered), far_covered=sum(far_covered),
        far_coverage=sum(far_covered) / len(far_covered) if far_covered else None,
        far_quantile=binomial_quantile(CELL_QUANTILE, len(far_covered)) if far_covered else None,
        far_width=statistics.median(far_widths) if far_widths else None,
        value_fails=cell_fails(sum(covered), len(covered)),
        far_fails=cell_fails(sum(far_covered), len(far_covered)),
        past=about.get("past", ""), entered_by_day_30_share=number(about.get("entered_by_day_30_share")),
        # Columns projection.csv gained after this script (the past's share of the year, …):
        # their mean, for the CSV, whatever they are called.
        **{f"mean_{c}": mean_of(group_rows, c) for c in extra_columns})


def read_comparisons(setting, day, rows, truth, expected, alpha):
    """The night's comparisons on projected_arpu_365: significance (a false positive in an A/A
    test), and whether the value interval (rows with a difference) and the far ends (every row)
    cover the expected difference per newcomer (§2.14 "The comparison is about the next newcomers")."""
    c = dict(setting=setting, day=day, like_assumption=int(like_assumption(setting, day)), tests=len(rows), with_p=0,
             significant=0, interval_excludes_zero=0, wrong_side=0, covers_true_difference=0, has_expected=bool(expected),
             with_difference=0, covers_expected=0, far_rows=0, far_covers_expected=0, far_excludes_zero=0)
    for r in rows:
        if r["p_value"] != "":
            c["with_p"] += 1
            c["significant"] += float(r["p_value"]) < alpha
        true_difference = truth[(day, r["offering_id"], r["group"])] - truth[(day, r["offering_id"], r["control_group"])]
        expected_difference = (expected_of(expected, r["offering_id"], r["group"])
                               - expected_of(expected, r["offering_id"], r["control_group"])) if expected else None
        low, high = number(r["abs_lift_ci_low"]), number(r["abs_lift_ci_high"])
        with_difference = r.get("abs_lift", "") != "" and low is not None
        if with_difference:
            c["covers_true_difference"] += low <= true_difference <= high
            if low > 0 or high < 0:
                c["interval_excludes_zero"] += 1
                c["wrong_side"] += (low > 0 and true_difference < 0) or (high < 0 and true_difference > 0)
            if expected:
                c["with_difference"] += 1
                c["covers_expected"] += low <= expected_difference <= high
        if "abs_lift_bound_low" in r:
            far_low, far_high = number(r["abs_lift_bound_low"]), number(r["abs_lift_bound_high"])
        else:
            far_low, far_high = low, high
        if far_low is not None:
            c["far_excludes_zero"] += far_low > 0 or far_high < 0
            if expected:
                c["far_rows"] += 1
                c["far_covers_expected"] += far_low <= expected_difference <= far_high
    c["value_fails"] = like_assumption(setting, day) and cell_fails(c["covers_expected"], c["with_difference"])
    c["far_fails"] = cell_fails(c["far_covers_expected"], c["far_rows"])
    return c


def read_setting(folder, setting, alpha):
    """The cells, comparisons, period decisions and per-test decisions of one setting's nights."""
    truth = {(r["day"], r["offering_id"], r["group"]): float(r["true_arpu_365"]) for r in read(os.path.join(folder, "truth.csv"))}
    expected_path = os.path.join(folder, "expected.csv")
    expected = {(r["offering_id"], r["group"]): r for r in read(expected_path)} if os.path.exists(expected_path) else {}
    cells, comparisons, periods, statuses = [], [], [], {}
    for day in ("30", "60"):
        nights = glob.glob(os.path.join(folder, f"out-day{day}", "*", "projection.csv"))
        if not nights:
            continue
        night = os.path.dirname(nights[0])
        by_group = {}
        for row in read(os.path.join(night, "projection.csv")):
            by_group.setdefault(row["group"], []).append(row)
        for name, group_rows in by_group.items():
            cells.append(read_cell(setting, day, name, group_rows, truth, expected.get((group_rows[0]["offering_id"], name), {})))
        rows = [r for r in read(os.path.join(night, "comparisons.csv")) if r["metric"] == "projected_arpu_365"]
        comparison = read_comparisons(setting, day, rows, truth, expected, alpha)
        comparison["aa"] = is_aa(expected)
        comparisons.append(comparison)
        decisions_path = os.path.join(night, "decisions.csv")
        if expected and os.path.exists(decisions_path):
            decisions = read(decisions_path)
            periods.append(period_decisions(setting, day, decisions, expected))
            for r in decisions:
                key = (r["offering_id"], r["group"], r["control_group"])
                statuses.setdefault(key, set()).add(r["status"])
    arrivals = []
    if expected:
        # Decisions by day 60 (issue 77 item 2): a period test is decided when a read night up to
        # day 60 ships or rolls back its treatment. A `futile` night ("Stop t and keep control")
        # is counted apart: it ends the test, keeping control, but is not a decision by the year.
        for (offering, name, control), seen in statuses.items():
            treatment = expected[(offering, name)]
            if treatment["period_test"] != "1":
                continue
            decided = bool(seen & {"ship", "roll_back"})
            arrivals.append(dict(setting=setting, ratio=expected_of(expected, offering, name) / expected_of(expected, offering, control),
                                 decided=decided, stopped="futile" in seen and not decided))
    return cells, comparisons, periods, arrivals


def percent(x):
    return "–" if x is None else f"{100 * x:.1f} %"


def fixed(x):
    return "–" if x is None else f"{x:.2f}"


def print_tables(cells, comparisons, periods, arrivals):
    print("| setting | day | group | like the assumption | tests | true ARPU₃₆₅ | realised | with value | value coverage "
          "| 1 % quantile | median width / truth | median bias | far ends cover | 1 % quantile | far-end width / truth |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cells:
        bias = "–" if c["median_bias"] is None else f"{100 * c['median_bias']:+.1f} %"
        value = "–" if c["coverage"] is None else f"{c['value_covered']} of {c['value_intervals']} ({percent(c['coverage'])})"
        far = "–" if c["far_coverage"] is None else f"{c['far_covered']} of {c['far_intervals']} ({percent(c['far_coverage'])})"
        print(f"| {c['setting']} | {c['day']} | {c['group']} | {'yes' if c['like_assumption'] else 'no'} | {c['tests']} "
              f"| {c['true_arpu_365']:.3f} | {c['realised']:.3f} | {percent(c['with_value'])} | {value}"
              f"{' **under**' if c['value_fails'] else ''} | {'–' if c['value_quantile'] is None else c['value_quantile']} "
              f"| {fixed(c['median_width'])} | {bias} | {far}{' **under**' if c['far_fails'] else ''} "
              f"| {'–' if c['far_quantile'] is None else c['far_quantile']} | {fixed(c['far_width'])} |")
    print()
    print("| setting | day | like the assumption | comparisons | with a p-value | p < alpha | value interval excludes 0 "
          "| of which on the wrong side | value covers the members' difference | with a difference | value covers the expected "
          "difference | far ends | far ends cover it | far ends exclude 0 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in comparisons:
        print(f"| {c['setting']} | {c['day']} | {'yes' if c['like_assumption'] else 'no'} | {c['tests']} | {c['with_p']} "
              f"| {c['significant']} | {c['interval_excludes_zero']} | {c['wrong_side']} | {c['covers_true_difference']} "
              f"| {c['with_difference']} | {c['covers_expected']}{' **under**' if c['value_fails'] else ''} | {c['far_rows']} "
              f"| {c['far_covers_expected']}{' **under**' if c['far_fails'] else ''} | {c['far_excludes_zero']} |")
    if periods:
        print()
        print("| setting | day | period tests with a year's winner | ship | roll_back | keep_running | other | against the year |")
        print("|---|---|---|---|---|---|---|---|")
        for c in periods:
            print(f"| {c['setting']} | {c['day']} | {c['period_tests']} | {c['ship']} | {c['roll_back']} | {c['keep_running']} "
                  f"| {c['other']} | {c['against_year']} |")
    if arrivals:
        print()
        print("| setting | treatment's year / control's | period tests | decided (ship or roll_back) by day 60 "
              "| else stopped as `futile` (keeping control) by day 60 |")
        print("|---|---|---|---|---|")
        for setting in sorted({a["setting"] for a in arrivals}):
            mine = [a for a in arrivals if a["setting"] == setting]
            for ratio in sorted({round(a["ratio"], 3) for a in mine}):
                these = [a for a in mine if round(a["ratio"], 3) == ratio]
                decided = sum(a["decided"] for a in these)
                stops = sum(a["stopped"] for a in these)
                print(f"| {setting} | {ratio:.3f} | {len(these)} | {decided} ({percent(decided / len(these))}) "
                      f"| {stops} ({percent(stops / len(these))}) |")


def print_targets(cells, comparisons, periods, arrivals, alpha):
    """One pass/fail line per criterion (a criterion without data says so)."""
    like_cells = [c for c in cells if c["like_assumption"]]
    covered = sum(c["value_covered"] for c in like_cells)
    count = sum(c["value_intervals"] for c in like_cells)
    if count:
        share = covered / count
        print(f"{verdict(POOLED_BAND[0] <= share <= POOLED_BAND[1])}: (a) where the unseen behaves as the seen, value intervals "
              f"cover 93–97 % pooled ({100 * share:.1f} % of {count}; Monte-Carlo s.e. "
              f"{100 * math.sqrt(share * (1 - share) / count):.1f} points).")
        under = [f"{c['setting']} day {c['day']} {c['group']} ({c['value_covered']} of {c['value_intervals']}, "
                 f"quantile {c['value_quantile']})" for c in like_cells if c["value_fails"]]
        print(f"{verdict(not under)}: (a) where the unseen behaves as the seen, no cell's value intervals cover fewer than the 1 % "
              f"quantile of Binomial(n, 0.95) ({sum(1 for c in like_cells if c['value_intervals'])} cells with a value)"
              + (f"; under: {', '.join(under)}." if under else "."))
    else:
        print("NO DATA: (a) value intervals where the unseen behaves as the seen (no such interval read).")
    other = [c for c in cells if not c["like_assumption"]]
    other_count = sum(c["value_intervals"] for c in other)
    if other_count:
        print(f"MEASURED: value intervals in the settings built against the continuation cover "
              f"{100 * sum(c['value_covered'] for c in other) / other_count:.1f} % of {other_count} (not held to the band).")
    far_under = [f"{c['setting']} day {c['day']} {c['group']} ({c['far_covered']} of {c['far_intervals']}, "
                 f"quantile {c['far_quantile']})" for c in cells if c["far_fails"]]
    far_count = sum(c["far_intervals"] for c in cells)
    if far_count:
        print(f"{verdict(not far_under)}: (b) the far ends cover in every setting: no cell under the 1 % quantile "
              f"({100 * sum(c['far_covered'] for c in cells) / far_count:.1f} % of {far_count} pooled)"
              + (f"; under: {', '.join(far_under)}." if far_under else "."))
    else:
        print("NO DATA: (b) the far ends (no projection read).")
    with_expected = [c for c in comparisons if c["has_expected"]]
    like_comparisons = [c for c in with_expected if c["like_assumption"]]
    count = sum(c["with_difference"] for c in like_comparisons)
    if count:
        covered = sum(c["covers_expected"] for c in like_comparisons)
        needed = binomial_quantile(CELL_QUANTILE, count)
        under = [f"{c['setting']} day {c['day']} ({c['covers_expected']} of {c['with_difference']})" for c in like_comparisons
                 if c["value_fails"]]
        print(f"{verdict(covered >= needed and not under)}: (c) where the unseen behaves as the seen, the comparisons' value "
              f"intervals cover the expected difference per newcomer ({covered} of {count}, {100 * covered / count:.1f} %; "
              f"at least {needed} needed; no setting-day under its quantile)" + (f"; under: {', '.join(under)}." if under else "."))
    else:
        print("NO DATA: (c) comparisons with a difference where the unseen behaves as the seen.")
    other_count = sum(c["with_difference"] for c in with_expected if not c["like_assumption"])
    if other_count:
        print(f"MEASURED: comparisons' value intervals in the settings built against the continuation cover the expected "
              f"difference in {100 * sum(c['covers_expected'] for c in with_expected if not c['like_assumption']) / other_count:.1f} % "
              f"of {other_count}.")
    far_count = sum(c["far_rows"] for c in with_expected)
    if far_count:
        under = [f"{c['setting']} day {c['day']} ({c['far_covers_expected']} of {c['far_rows']})" for c in with_expected if c["far_fails"]]
        print(f"{verdict(not under)}: (c) the comparisons' far ends cover the expected difference in every setting and day "
              f"({100 * sum(c['far_covers_expected'] for c in with_expected) / far_count:.1f} % of {far_count})"
              + (f"; under: {', '.join(under)}." if under else "."))
    aa = [c for c in comparisons if c.get("aa")]
    with_p = sum(c["with_p"] for c in aa)
    if with_p:
        significant = sum(c["significant"] for c in aa)
        limit = alpha + 1.96 * math.sqrt(alpha * (1 - alpha) / with_p)
        print(f"{verdict(significant / with_p <= limit)}: (d) A/A false positives at most alpha = {alpha} + its Monte-Carlo error "
              f"({significant} of {with_p} comparisons with a p-value, {100 * significant / with_p:.1f} %; at most "
              f"{100 * limit:.1f} %; {sum(c['tests'] for c in aa)} A/A comparisons in all).")
    elif aa:
        print(f"NO DATA: (d) A/A false positives: none of {sum(c['tests'] for c in aa)} A/A comparisons has a p-value.")
    else:
        print("NO DATA: (d) A/A false positives (no A/A setting read).")
    against = [c for c in periods if c["period_tests"] and c["against_year"] / c["period_tests"]
               > alpha + 1.96 * math.sqrt(alpha * (1 - alpha) / c["period_tests"])]
    if any(c["period_tests"] for c in periods):
        worst = max((c for c in periods if c["period_tests"]), key=lambda c: c["against_year"] / c["period_tests"])
        above = ", ".join(f"{c['setting']} day {c['day']}" for c in against)
        print(f"{verdict(not against)}: (e) period tests are decided against their year at most alpha = {alpha} (+ its Monte-Carlo "
              f"error) in every setting and day (worst: {worst['setting']} day {worst['day']}, {worst['against_year']} of "
              f"{worst['period_tests']})" + (f"; above: {above}." if against else "."))
    else:
        print("NO DATA: (e) period tests decided by their year (no decisions.csv with a period test).")
    for label, low, high, target in DECISION_BANDS:
        these = [a for a in arrivals if low <= a["ratio"] <= high]
        if these:
            decided = sum(a["decided"] for a in these)
            settings = ", ".join(sorted({a["setting"] for a in these}))
            print(f"{verdict(decided / len(these) >= target)}: (f) period tests whose treatment's year is {label} "
                  f"({low}–{high} times control's) are decided by day 60 in at least {100 * target:.0f} % "
                  f"({decided} of {len(these)}, {100 * decided / len(these):.1f} %; {settings}).")
            stops = sum(a["stopped"] for a in these)
            if stops and high < 1:
                print(f"MEASURED: (f) of the rest, {stops} were stopped as `futile` by day 60, keeping control, the year's "
                      f"winner: with them {decided + stops} of {len(these)} ({100 * (decided + stops) / len(these):.1f} %) ended "
                      f"by day 60 as the year says.")
        else:
            print(f"NO DATA: (f) period tests whose treatment's year is {label} ({low}–{high} times control's).")
    # Issue 58 item 6, kept for the record: a group whose members have mostly stopped converting
    # (at least 90 % of a newcomer's year of entries in its first 30 days) with a past like them.
    settled = [c for c in cells if c["day"] == "60" and c["past"] == "like" and (c["entered_by_day_30_share"] or 0) >= 0.9]
    short = [f"{c['setting']} {c['group']} ({100 * c['with_value']:.0f} %)" for c in settled if c["with_value"] < 0.8]
    if settled:
        print(f"{verdict(not short)}: (issue 58) with a past like its members, a settled group has a value at day 60 in ≥ 80 % "
              f"of tests ({len(settled) - len(short)} of {len(settled)} groups)" + (f"; below: {', '.join(short)}." if short else "."))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--csv")
    parser.add_argument("--alpha", type=float, default=0.05)
    args = parser.parse_args()
    cells, comparisons, periods, arrivals = [], [], [], []
    for setting in sorted(os.listdir(args.data)):
        folder = os.path.join(args.data, setting)
        if not os.path.exists(os.path.join(folder, "truth.csv")):
            continue
        more = read_setting(folder, setting, args.alpha)
        cells += more[0]
        comparisons += more[1]
        periods += more[2]
        arrivals += more[3]
    print_tables(cells, comparisons, periods, arrivals)
    print()
    print_targets(cells, comparisons, periods, arrivals, args.alpha)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            fields = list(dict.fromkeys(key for c in cells for key in c))
            w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
            w.writeheader()
            w.writerows(cells)


if __name__ == "__main__":
    sys.exit(main())
