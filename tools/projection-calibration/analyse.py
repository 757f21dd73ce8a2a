#!/usr/bin/env python3
"""Reads each setting's truth.csv and the nights `offerlab run` wrote for it, and prints the
calibration table of docs/projection-calibration.md (markdown on stdout, one CSV row per cell to
--csv).

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
    for setting in sorted(os.listdir(args.data)):
        folder = os.path.join(args.data, setting)
        if not os.path.exists(os.path.join(folder, "truth.csv")):
            continue
        truth_rows = read(os.path.join(folder, "truth.csv"))
        truth = {(r["day"], r["offering_id"], r["group"]): float(r["true_arpu_365"]) for r in truth_rows}
        # A newcomer's expected revenue_365 per group: the comparison's target (simulate.expected_revenue_365).
        expected = {r["group"]: float(r["expected_revenue_365"]) for r in truth_rows}
        for day in ("30", "60"):
            nights = glob.glob(os.path.join(folder, f"out-day{day}", "*", "projection.csv"))
            if not nights:
                continue
            night = os.path.dirname(nights[0])
            rows = read(os.path.join(night, "projection.csv"))
            by_group = {}
            for row in rows:
                by_group.setdefault(row["group"], []).append(row)
            for name, group_rows in by_group.items():
                trues, realised, covered, widths, biases = [], [], [], [], []
                bounded_covered, bounded_widths = [], []
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
                    bounded_width=statistics.median(bounded_widths) if bounded_widths else None))
            # The comparison on projected_arpu_365: how often it is significant (a false positive in an A/A test).
            rows = [r for r in read(os.path.join(night, "comparisons.csv")) if r["metric"] == "projected_arpu_365"]
            with_p = [r for r in rows if r["p_value"] != ""]
            significant = sum(1 for r in with_p if float(r["p_value"]) < args.alpha)
            excluding_zero = wrong_side = covered_difference = covered_expected = covered_expected_with_value = 0
            expected_difference = None
            for r in rows:
                if r["abs_lift_ci_low"] == "":
                    continue
                low, high = float(r["abs_lift_ci_low"]), float(r["abs_lift_ci_high"])
                true_difference = truth[(day, r["offering_id"], r["group"])] - truth[(day, r["offering_id"], r["control_group"])]
                expected_difference = expected[r["group"]] - expected[r["control_group"]]
                covered_difference += low <= true_difference <= high
                covered_expected += low <= expected_difference <= high
                if r["p_value"] != "":
                    covered_expected_with_value += low <= expected_difference <= high
                if low > 0 or high < 0:
                    excluding_zero += 1
                    wrong_side += (low > 0 and expected_difference < 0) or (high < 0 and expected_difference > 0)
            comparisons.append(dict(setting=setting, day=day, tests=len(rows), expected_difference=expected_difference,
                                    with_value=len(with_p), significant=significant, interval_excludes_zero=excluding_zero,
                                    wrong_side=wrong_side, covers_expected=covered_expected,
                                    covers_expected_with_value=covered_expected_with_value, covers_true_difference=covered_difference))

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
    # The comparison's target is a newcomer's expected difference (contract §2.14); the members'
    # realised difference is shown beside it.
    print("| setting | day | comparisons | expected difference | with a p-value | p < alpha | interval excludes 0 "
          "| of which on the wrong side | interval covers the expected difference | of those with a p-value "
          "| interval covers the members' difference |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    pooled_expected = [0, 0]
    for c in comparisons:
        difference = "–" if c["expected_difference"] is None else f"{c['expected_difference']:+.3f}"
        with_value = f"{c['covers_expected_with_value']} of {c['with_value']}" if c["with_value"] else "–"
        print(f"| {c['setting']} | {c['day']} | {c['tests']} | {difference} | {c['with_value']} | {c['significant']} "
              f"| {c['interval_excludes_zero']} | {c['wrong_side']} | {c['covers_expected']} | {with_value} "
              f"| {c['covers_true_difference']} |")
        pooled_expected[0] += c["covers_expected_with_value"]
        pooled_expected[1] += c["with_value"]
    if pooled_expected[1]:
        p = pooled_expected[0] / pooled_expected[1]
        print()
        print(f"Comparisons with a value: their interval covers the expected difference in {100 * p:.1f} % of "
              f"{pooled_expected[1]} (Monte-Carlo s.e. {100 * math.sqrt(p * (1 - p) / pooled_expected[1]):.1f} points).")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(cells[0].keys()), lineterminator="\n")
            w.writeheader()
            w.writerows(cells)


if __name__ == "__main__":
    sys.exit(main())
