#!/usr/bin/env python3
"""CPU samples of two builds' `offerlab run`, stage by stage (docs/performance-history.md, "Against an earlier build").

    perf record -e cpu-clock -F 2000 -g -o A.data OLD/offerlab run JOB --output TMP --quiet
    perf record -e cpu-clock -F 2000 -g -o B.data NEW/offerlab run JOB --output TMP --quiet
    perf script -i A.data -F ip,sym > A.txt; perf script -i B.data -F ip,sym > B.txt
    Benchmarks/profile/stages.py A.txt B.txt

(several runs of a build: their `perf script` outputs concatenated into one file, a blank line
between runs). Each sample counts for the innermost stage on its stack, a stage being known by
the mangled names of its functions; a sample under none is "other". A stage whose code an
earlier build inlined into another (a5a4182 inlined the daily series into attribution, the
user lookups into the reading) is one stage here, so that both builds count it alike.

On a shared machine the load moves every stage. The inflater (ISA-L's Huffman decoding and
CRC) is the same code doing the same work in both builds, so its samples measure the machine:
the last line gives each build's total in units of its own inflater samples, and their ratio,
which stays within a few per cent where the raw totals move by a fifth.
"""
import collections
import re
import sys

# Innermost first: a frame is tried against every stage in this order.
STAGES = [
    ("projection draws", r"15projectOffering|10GroupDrawsV"),
    ("projection members", r"17ProjectionMembersV9addMember|ProjectionGroupInputV12appendMember"),
    ("clean-up (duplicates, grouping by user)", r"12EventCleanupO"),
    ("user resolution", r"12UserResolverV|lookUpPending|ByteStringInternerV6lookUp"),
    ("assignment table", r"10PopulationV4load|AssignmentRow|CatalogLoader"),
    ("statistics", r"10NightlyRunO10statistics|OfferingStatistics|OfferLabResults"),
    ("writing", r"OfferLabWriters|ResultTables|sqlite3|10NightlyRunO5write"),
    ("reading the logs (parsing, building events)",
     r"LogIngest|JSONLinesLog|CSVLog|LogFileScanner|InputFileReader|LineSplitter|JSONLineParser|EventBatch"),
    ("attribution, daily series, slices", r"11AttributionO|11DailySeriesV8evaluate_|10NightlyRunO7analyse"),
]
# The inflater's own functions: the same work in every build.
INFLATER = re.compile(r"decode_huffman|crc32_gzip")


def stage_samples(path):
    counts = collections.Counter()
    inflater = 0
    with open(path) as file:
        for sample in file.read().split("\n\n"):
            frames = [line.strip().split(None, 1)[-1] for line in sample.strip().split("\n") if line.strip()]
            if not frames:
                continue
            if INFLATER.search(frames[0]):
                inflater += 1
                counts["inflating (ISA-L)"] += 1
                continue
            stage = next((name for frame in frames for name, pattern in STAGES if re.search(pattern, frame)), None)
            counts[stage or "other (start-up, kernel, the rest)"] += 1
    return counts, inflater


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    (before, before_inflater), (after, after_inflater) = stage_samples(sys.argv[1]), stage_samples(sys.argv[2])
    total = sum(before.values())
    print(f"{'stage':44s} {'A':>7s} {'B':>7s} {'B - A':>7s}  of A's total")
    for name in sorted(set(before) | set(after), key=lambda name: before[name] - after[name]):
        change = after[name] - before[name]
        print(f"{name:44s} {before[name]:7d} {after[name]:7d} {change:+7d}  {100 * change / total:+5.1f} %")
    change = sum(after.values()) - total
    print(f"{'total':44s} {total:7d} {sum(after.values()):7d} {change:+7d}  {100 * change / total:+5.1f} %")
    if before_inflater and after_inflater:
        a, b = total / before_inflater, sum(after.values()) / after_inflater
        print(f"total in inflater samples: A {a:.3f}, B {b:.3f}; B / A {b / a:.3f}")


if __name__ == "__main__":
    main()
