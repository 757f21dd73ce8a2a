#!/usr/bin/env python3
"""CPU samples of two builds' `offerlab run`, stage by stage (docs/performance.md, "Against an earlier build").

    perf record -e cpu-clock -F 2000 -g -o A.data OLD/offerlab run JOB --output TMP --quiet
    perf record -e cpu-clock -F 2000 -g -o B.data NEW/offerlab run JOB --output TMP --quiet
    perf script -i A.data -F ip,sym > A.txt; perf script -i B.data -F ip,sym > B.txt
    Benchmarks/profile/stages.py A.txt B.txt

(several runs of a build: their `perf script` outputs concatenated into one file). Each sample
counts for the innermost stage on its stack, a stage being known by the mangled names of its
functions; a sample under none is "other". The stages' sizes are comparable within a profile;
across two profiles only when the machine was equally loaded, so take both in turn.
"""
import collections
import re
import sys

# Innermost first: a frame is tried against every stage in this order.
STAGES = [
    ("projection draws", r"15projectOffering|10GroupDrawsV"),
    ("projection members", r"17ProjectionMembersV9addMember|ProjectionGroupInputV12appendMember"),
    ("daily series", r"11DailySeriesV8evaluate_"),
    ("clean-up (duplicates, grouping by user)", r"12EventCleanupO"),
    ("user resolution", r"12UserResolverV|lookUpPending"),
    ("assignment table", r"10PopulationV4load|AssignmentRow|CatalogLoader"),
    ("statistics", r"10NightlyRunO10statistics|OfferingStatistics|OfferLabResults"),
    ("writing", r"OfferLabWriters|ResultTables|sqlite3|10NightlyRunO5write"),
    ("reading the logs (inflating, parsing)",
     r"LogIngest|JSONLinesLog|CSVLog|LogFileScanner|InputFileReader|LineSplitter|JSONLineParser|EventBatch"),
    ("attribution, slices", r"11AttributionO|10NightlyRunO7analyse"),
]


def stage_samples(path):
    counts = collections.Counter()
    with open(path) as file:
        for sample in file.read().split("\n\n"):
            frames = [line.strip().split(None, 1)[-1] for line in sample.strip().split("\n") if line.strip()]
            if not frames:
                continue
            stage = next((name for frame in frames for name, pattern in STAGES if re.search(pattern, frame)), None)
            counts[stage or "other (start-up, kernel, the rest)"] += 1
    return counts


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = stage_samples(sys.argv[1]), stage_samples(sys.argv[2])
    total = sum(before.values())
    print(f"{'stage':42s} {'A':>7s} {'B':>7s} {'B - A':>7s}  of A's total")
    for name in sorted(set(before) | set(after), key=lambda name: before[name] - after[name]):
        change = after[name] - before[name]
        print(f"{name:42s} {before[name]:7d} {after[name]:7d} {change:+7d}  {100 * change / total:+5.1f} %")
    change = sum(after.values()) - total
    print(f"{'total':42s} {total:7d} {sum(after.values()):7d} {change:+7d}  {100 * change / total:+5.1f} %")


if __name__ == "__main__":
    main()
