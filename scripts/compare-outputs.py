#!/usr/bin/env python3
"""Compares a night's CSV outputs of two runs of the same generated data in different shapes.

Usage: compare-outputs.py EXPECTED_DIR ACTUAL_DIR [--assignments-only | --except-counter NAME]

Every CSV file but rejects.csv and quality.csv must be byte-identical; quality.csv too but for
its files_read counter (the layout's file count); rejects.csv must keep the same number of rows
per reason (its file names, line numbers and texts follow the shape). With
--assignments-only (the `--event-ids none` shape, whose duplicates cannot be told apart), only
what the assignment table decides: summary.csv's users per group, and srm.csv. With
--except-counter NAME, quality.csv's NAME counter is left out too (the one-file layout: two
copies of an event with the same ts are told apart by file order, which one JSON file and one
CSV file cannot keep, so the copy kept, and its logged group, may be the other one).
Prints one line per difference and exits 1 when there is any.
"""
import collections
import csv
import pathlib
import sys


def rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def main():
    expected, actual = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    assignments_only = "--assignments-only" in sys.argv[3:]
    ignored = {"files_read"}
    if "--except-counter" in sys.argv[3:]:
        ignored.add(sys.argv[sys.argv.index("--except-counter") + 1])
    differences = []
    for folder in (expected, actual):
        if not (folder / "summary.csv").is_file():
            sys.exit(f"{folder}: no summary.csv: not a night's output folder")
    if assignments_only:
        def users(folder):
            return [(row["offering_id"], row["group"], row["users"]) for row in rows(folder / "summary.csv")]
        if users(expected) != users(actual):
            differences.append("summary.csv: users per group differ")
        if (expected / "srm.csv").read_bytes() != (actual / "srm.csv").read_bytes():
            differences.append("srm.csv differs")
    else:
        names = sorted(path.name for path in expected.glob("*.csv"))
        if names != sorted(path.name for path in actual.glob("*.csv")):
            differences.append(f"other CSV files: {names}")
        for name in names:
            if name == "rejects.csv":
                def reasons(folder):
                    return collections.Counter(row["reason"] for row in rows(folder / name))
                if reasons(expected) != reasons(actual):
                    differences.append(f"rejects.csv: rows per reason {dict(reasons(expected))} != {dict(reasons(actual))}")
            elif name == "quality.csv":
                def counters(folder):
                    return [row for row in rows(folder / name) if row["counter"] not in ignored]
                if counters(expected) != counters(actual):
                    differences.append(f"quality.csv differs ({', '.join(sorted(ignored))} aside)")
            elif (expected / name).read_bytes() != (actual / name).read_bytes():
                differences.append(f"{name} differs")
    for line in differences:
        print(f"{actual}: {line}")
    sys.exit(1 if differences else 0)


main()
