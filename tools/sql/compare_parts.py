#!/usr/bin/env python3
"""Runs `offerlab sql JOB --part P` on DuckDB (or Spark) for each of the night's own parts and
compares the rows with those `offerlab run JOB --parts DIR` wrote (contract §3.3,
docs/warehouse.md "The night's parts"): row for row by (offering_id, group, statistic,
product_id, next_product_id, key_1, key_2, key_3), counts exactly, other values to 1e-9
relative. A row only one side has is a difference, but a row whose value is 0 (run writes none).

    python3 tools/sql/compare_parts.py --offerlab .build/debug/offerlab --run-parts DIR \\
        [--engine duckdb|spark] [--out DIR] [--parts observations,past,…] JOB.yaml

Exit status 0 when every part agrees; 1 with one line per difference (at most 20 a part).
"""

import argparse
import csv
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_engines import DuckDB, Spark, write_csv  # noqa: E402

KEY = ["offering_id", "group", "statistic", "product_id", "next_product_id", "key_1", "key_2", "key_3"]
RELATIVE = 1e-9


def rows_of(columns, rows):
    """The part's rows by key, their values as floats (None: empty, an engine's NULL)."""
    index = {name: position for position, name in enumerate(columns)}
    found = {}
    for row in rows:
        key = tuple("" if row[index[name]] is None else str(row[index[name]]) for name in KEY)
        value = row[index["value"]]
        found[key] = None if value in (None, "") else float(value)
    return found


def read_part(path):
    with open(path, newline="") as file:
        reader = csv.reader(file)
        columns = next(reader)
        return columns, list(reader)


def differences(part, expected, actual):
    found = []
    for key in sorted(set(expected) | set(actual)):
        want, got = expected.get(key, 0.0), actual.get(key, 0.0)
        if got is None:
            found.append(f"{part} {key}: NULL where run has {want}")
        elif want != got and not (math.isfinite(want) and abs(want - got) <= RELATIVE * max(abs(want), abs(got))):
            found.append(f"{part} {key}: run {want!r}, engine {got!r}")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--offerlab", required=True)
    parser.add_argument("--run-parts", required=True, help="the folder `offerlab run JOB --parts` wrote")
    parser.add_argument("--engine", default="duckdb", choices=["duckdb", "spark"])
    parser.add_argument("--out", help="where to keep the engine's parts (default: not kept)")
    parser.add_argument("--parts", help="the night parts to compare (default: every one the job lists)")
    parser.add_argument("job")
    arguments = parser.parse_args()
    listed = subprocess.run(
        [arguments.offerlab, "sql", arguments.job, "--dialect", arguments.engine, "--list-parts"], check=True, capture_output=True, text=True
    ).stdout.split()
    night_parts = ["observations", "past", "assignments", "tenure", "daily_totals", "events"]
    wanted = arguments.parts.split(",") if arguments.parts else [p for p in listed if p in night_parts]
    work = arguments.out or os.path.join(os.path.dirname(os.path.abspath(arguments.job)), ".compare-parts")
    os.makedirs(work, exist_ok=True)
    # Spark's working tables of an earlier comparison would refuse to be made again (LOCATION_ALREADY_EXISTS).
    shutil.rmtree(os.path.join(work, "spark-warehouse"), ignore_errors=True)
    engine = (DuckDB if arguments.engine == "duckdb" else Spark)(work, "2g")
    problems = []
    for part in wanted:
        script = subprocess.run(
            [arguments.offerlab, "sql", arguments.job, "--dialect", arguments.engine, "--part", part], capture_output=True, text=True
        )
        if script.returncode != 0:
            problems.append(f"{part}: offerlab sql failed: {script.stderr.strip()}")
            continue
        columns, rows = engine.run(script.stdout)
        if arguments.out:
            os.makedirs(arguments.out, exist_ok=True)
            write_csv(os.path.join(arguments.out, f"{part}.csv"), columns, rows)
        expected = rows_of(*read_part(os.path.join(arguments.run_parts, f"{part}.csv")))
        found = differences(part, expected, rows_of(columns, rows))
        problems += found[:20] + ([f"{part}: {len(found) - 20} more differences"] if len(found) > 20 else [])
        print(f"{part}: {len(expected)} rows from run, {len(rows)} from {arguments.engine}, {len(found)} differences", file=sys.stderr)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
