#!/usr/bin/env python3
"""Reads each setting's truth.csv (the members' realised mean), expected.csv (a newcomer's
expected revenue_365 and the year's winner) and the nights `offerlab run` wrote for it, and prints
the calibration tables of docs/projection-calibration.md with a pass/fail line per target of issue
58 item 6 (markdown on stdout, one CSV row per cell to --csv).

    python3 analyse.py --data DIR [--csv FILE]     (DIR holds one folder per setting)
"""
import argparse
import csv
import glob
import math
import os
import statistics
import sys


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(text):
    return float(text) if text not in ("", None) else None


PROJECTION_COLUMNS = {"offering_id", "group", "users", "observed_days_mean", "realized_arpu", "projected_arpu_365",
                      "projected_arpu_365_ci_low", "projected_arpu_365_ci_high"}
NOMINAL = 0.95


def under_covers(covered, count):
    """A cell under-covers when its coverage lies below 95 % by more than its Monte-Carlo error
    (1.96 standard errors of a binomial share at 95 %)."""
    return count > 0 and covered / count + 1.96 * math.sqrt(NOMINAL * (1 - NOMINAL) / count) < NOMINAL


def verdict(passed):
    return "PASS" if passed else "FAIL"


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


def mean_of(rows, column):
    values = []
    for row in rows:
        try:
            values.append(float(row[column]))
        except (TypeError, ValueError):
            pass
    return statistics.mean(values) if values else None


def print_targets(cells, pooled, comparisons, periods, alpha):
    """One pass/fail line per target of issue 58 item 6 (a target without data says so)."""
    if pooled[1]:
        share = pooled[0] / pooled[1]
        print(f"{verdict(0.93 <= share <= 0.97)}: value intervals cover 93–97 % pooled ({100 * share:.1f} % of {pooled[1]}).")
    else:
        print("NO DATA: value intervals cover 93–97 % pooled (no interval with a value).")
    under = [f"{c['setting']} day {c['day']} {c['group']}" for c in cells if c["under_covers"] or c["bounded_under_covers"]]
    if cells:
        print(f"{verdict(not under)}: no cell under-covers (coverage more than its Monte-Carlo error below 95 %)"
              + (f": {', '.join(under)}." if under else "."))
    else:
        print("NO DATA: no cell under-covers (no projection read).")
    # A group whose members have mostly stopped converting: at least 90 % of a newcomer's year of
    # entries fall in its first 30 days (the day-60 members' mean tenure).
    settled = [c for c in cells if c["day"] == "60" and c["past"] == "like" and (c["entered_by_day_30_share"] or 0) >= 0.9]
    short = [f"{c['setting']} {c['group']} ({100 * c['with_value']:.0f} %)" for c in settled if c["with_value"] < 0.8]
    if settled:
        print(f"{verdict(not short)}: with a past like its members, a settled group has a value at day 60 in ≥ 80 % of tests "
              f"({len(settled) - len(short)} of {len(settled)} groups)" + (f"; below: {', '.join(short)}." if short else "."))
    else:
        print("NO DATA: a value at day 60 with a past like its members (no such setting read).")
    count = sum(c["with_difference"] for c in comparisons if c["has_expected"])
    if count:
        share = sum(c["covers_expected"] for c in comparisons if c["has_expected"]) / count
        low = NOMINAL - 1.96 * math.sqrt(NOMINAL * (1 - NOMINAL) / count)
        print(f"{verdict(share >= low)}: comparisons with a difference cover the expected difference per newcomer at 95 % "
              f"({100 * share:.1f} % of {count}; at least {100 * low:.1f} % needed).")
    else:
        print("NO DATA: comparisons cover the expected difference (no comparison with a difference).")
    bounded = sum(c["bounded_difference"] for c in comparisons if c["has_expected"])
    if bounded:
        share = sum(c["bounded_covers_expected"] for c in comparisons if c["has_expected"]) / bounded
        print(f"{verdict(not under_covers(share * bounded, bounded))}: bounded comparisons cover the expected difference "
              f"({100 * share:.1f} % of {bounded}).")
    against = [c for c in periods if c["period_tests"] and c["against_year"] / c["period_tests"]
               > alpha + 1.96 * math.sqrt(alpha * (1 - alpha) / c["period_tests"])]
    if any(c["period_tests"] for c in periods):
        worst = max((c for c in periods if c["period_tests"]), key=lambda c: c["against_year"] / c["period_tests"])
        above = ", ".join(f"{c['setting']} day {c['day']}" for c in against)
        print(f"{verdict(not against)}: period tests are decided against their year at most alpha = {alpha} (+ its Monte-Carlo "
              f"error) in every setting and day (worst: {worst['setting']} day {worst['day']}, {worst['against_year']} of "
              f"{worst['period_tests']})" + (f"; above: {above}." if against else "."))
    else:
        print("NO DATA: period tests decided by their year (no decisions.csv with a period test).")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--csv")
    parser.add_argument("--alpha", type=float, default=0.05)
    args = parser.parse_args()
    cells = []
    pooled = [0, 0]
    bounded_pooled = [0, 0]
    comparisons = []
    periods = []
    for setting in sorted(os.listdir(args.data)):
        folder = os.path.join(args.data, setting)
        if not os.path.exists(os.path.join(folder, "truth.csv")):
            continue
        truth = {(r["day"], r["offering_id"], r["group"]): float(r["true_arpu_365"]) for r in read(os.path.join(folder, "truth.csv"))}
        expected_path = os.path.join(folder, "expected.csv")
        expected = {(r["offering_id"], r["group"]): r for r in read(expected_path)} if os.path.exists(expected_path) else {}
        for day in ("30", "60"):
            nights = glob.glob(os.path.join(folder, f"out-day{day}", "*", "projection.csv"))
            if not nights:
                continue
            night = os.path.dirname(nights[0])
            rows = read(os.path.join(night, "projection.csv"))
            by_group = {}
            for row in rows:
                by_group.setdefault(row["group"], []).append(row)
            extra_columns = [c for c in rows[0] if c not in PROJECTION_COLUMNS] if rows else []
            for name, group_rows in by_group.items():
                trues, realised, covered, widths, biases = [], [], [], [], []
                bounded_covered, bounded_widths = [], []
                about = expected.get((group_rows[0]["offering_id"], name), {})
                for row in group_rows:
                    true = truth[(day, row["offering_id"], name)]
                    trues.append(true)
                    realised.append(float(row["realized_arpu"]))
                    low, high, value = number(row["projected_arpu_365_ci_low"]), number(row["projected_arpu_365_ci_high"]), number(
                        row["projected_arpu_365"])
                    if low is None:
                        continue
                    inside = low <= true <= high
                    if value is not None:
                        covered.append(inside)
                        widths.append((high - low) / true if true > 0 else math.nan)
                        biases.append((value - true) / true if true > 0 else math.nan)
                    else:
                        bounded_covered.append(inside)
                        bounded_widths.append((high - low) / true if true > 0 else math.nan)
                tests = len(group_rows)
                pooled[0] += sum(covered)
                pooled[1] += len(covered)
                bounded_pooled[0] += sum(bounded_covered)
                bounded_pooled[1] += len(bounded_covered)
                cells.append(dict(
                    setting=setting, day=day, group=name, tests=tests, true_arpu_365=statistics.mean(trues),
                    realised=statistics.mean(realised), with_value=len(covered) / tests,
                    coverage=sum(covered) / len(covered) if covered else None,
                    median_width=statistics.median(widths) if widths else None,
                    median_bias=statistics.median(biases) if biases else None,
                    bounded=len(bounded_covered) / tests,
                    bounded_coverage=sum(bounded_covered) / len(bounded_covered) if bounded_covered else None,
                    bounded_width=statistics.median(bounded_widths) if bounded_widths else None,
                    under_covers=under_covers(sum(covered), len(covered)),
                    bounded_under_covers=under_covers(sum(bounded_covered), len(bounded_covered)),
                    past=about.get("past", ""), entered_by_day_30_share=number(about.get("entered_by_day_30_share")),
                    # Columns projection.csv gained after this script (the past's share of the year, …):
                    # their mean, for the CSV, whatever they are called.
                    **{f"mean_{c}": mean_of(group_rows, c) for c in extra_columns}))
            # The comparison on projected_arpu_365: how often it is significant (a false positive in an A/A test).
            rows = [r for r in read(os.path.join(night, "comparisons.csv")) if r["metric"] == "projected_arpu_365"]
            with_p = [r for r in rows if r["p_value"] != ""]
            significant = sum(1 for r in with_p if float(r["p_value"]) < args.alpha)
            excluding_zero = wrong_side = covered_difference = 0
            # The expected difference per newcomer (§2.14 "The comparison is about the next
            # newcomers"): the target of the comparison's interval, with a value or bounded.
            with_value_covered = with_value_count = bounded_covered_expected = bounded_count = 0
            for r in rows:
                if r["abs_lift_ci_low"] == "":
                    continue
                low, high = float(r["abs_lift_ci_low"]), float(r["abs_lift_ci_high"])
                true_difference = truth[(day, r["offering_id"], r["group"])] - truth[(day, r["offering_id"], r["control_group"])]
                covered_difference += low <= true_difference <= high
                if low > 0 or high < 0:
                    excluding_zero += 1
                    wrong_side += (low > 0 and true_difference < 0) or (high < 0 and true_difference > 0)
                if expected:
                    expected_difference = (float(expected[(r["offering_id"], r["group"])]["expected_revenue_365"])
                                           - float(expected[(r["offering_id"], r["control_group"])]["expected_revenue_365"]))
                    inside = low <= expected_difference <= high
                    if r.get("abs_lift", "") != "":
                        with_value_count += 1
                        with_value_covered += inside
                    else:
                        bounded_count += 1
                        bounded_covered_expected += inside
            comparisons.append(dict(setting=setting, day=day, tests=len(rows), with_value=len(with_p), significant=significant,
                                    interval_excludes_zero=excluding_zero, wrong_side=wrong_side, covers_true_difference=covered_difference,
                                    has_expected=bool(expected), with_difference=with_value_count, covers_expected=with_value_covered,
                                    bounded_difference=bounded_count, bounded_covers_expected=bounded_covered_expected))
            decisions_path = os.path.join(night, "decisions.csv")
            if expected and os.path.exists(decisions_path):
                periods.append(period_decisions(setting, day, read(decisions_path), expected))

    def percent(x):
        return "–" if x is None else f"{100 * x:.1f} %"

    def fixed(x, digits=2):
        return "–" if x is None else f"{x:+.{digits}f}" if digits == 1 else f"{x:.{digits}f}"

    print("| setting | day | group | tests | true ARPU₃₆₅ | realised | with value | coverage | median width / truth | median bias "
          "| bounded | bounded coverage | bounded width / truth |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cells:
        bias = "–" if c["median_bias"] is None else f"{100 * c['median_bias']:+.1f} %"
        print(f"| {c['setting']} | {c['day']} | {c['group']} | {c['tests']} | {c['true_arpu_365']:.3f} | {c['realised']:.3f} | "
              f"{percent(c['with_value'])} | {percent(c['coverage'])} | {fixed(c['median_width'])} | {bias} | "
              f"{percent(c['bounded'])} | {percent(c['bounded_coverage'])} | {fixed(c['bounded_width'])} |")
    print()
    if pooled[1]:
        p = pooled[0] / pooled[1]
        print(f"Pooled coverage of the intervals with a value: {100 * p:.1f} % of {pooled[1]} "
              f"(Monte-Carlo s.e. {100 * math.sqrt(p * (1 - p) / pooled[1]):.1f} points).")
    if bounded_pooled[1]:
        print(f"Bounded intervals (no value): {100 * bounded_pooled[0] / bounded_pooled[1]:.1f} % of {bounded_pooled[1]} cover.")
    print()
    print("| setting | day | comparisons | with a p-value | p < alpha | interval excludes 0 | of which on the wrong side "
          "| interval covers the true difference |")
    print("|---|---|---|---|---|---|---|---|")
    for c in comparisons:
        print(f"| {c['setting']} | {c['day']} | {c['tests']} | {c['with_value']} | {c['significant']} | {c['interval_excludes_zero']} "
              f"| {c['wrong_side']} | {c['covers_true_difference']} |")
    if any(c["has_expected"] for c in comparisons):
        print()
        print("| setting | day | comparisons with a difference | cover the expected difference per newcomer "
              "| bounded | bounded cover it |")
        print("|---|---|---|---|---|---|")
        for c in comparisons:
            if c["has_expected"]:
                print(f"| {c['setting']} | {c['day']} | {c['with_difference']} | {c['covers_expected']} | {c['bounded_difference']} "
                      f"| {c['bounded_covers_expected']} |")
    if periods:
        print()
        print("| setting | day | period tests with a year's winner | ship | roll_back | keep_running | other | against the year |")
        print("|---|---|---|---|---|---|---|---|")
        for c in periods:
            print(f"| {c['setting']} | {c['day']} | {c['period_tests']} | {c['ship']} | {c['roll_back']} | {c['keep_running']} "
                  f"| {c['other']} | {c['against_year']} |")
    print()
    print_targets(cells, pooled, comparisons, periods, args.alpha)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            fields = list(dict.fromkeys(key for c in cells for key in c))
            w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
            w.writeheader()
            w.writerows(cells)


if __name__ == "__main__":
    sys.exit(main())
