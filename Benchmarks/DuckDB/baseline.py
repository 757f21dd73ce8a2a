#!/usr/bin/env python3
"""Runs Benchmarks/DuckDB/baseline.sql on a data set made by `offerlab generate`.

usage: duckdb_baseline.py DATASET_FOLDER [--show]

Reads `as_of`, `report_currency` and `rates` from DATASET_FOLDER/job.yaml, runs the query from
that folder (its paths are relative) with DuckDB's default threads (one per core), and prints
one line: `duckdb <wall seconds> <cpu seconds> <rows> <threads>`. Exits with status 3 when the
duckdb module is not installed (`pip install duckdb`). `--show` also prints the result rows.
"""
import os
import re
import resource
import sys
import time


def job_settings(folder):
    text = open(os.path.join(folder, "job.yaml"), encoding="utf-8").read()
    as_of = re.search(r"^as_of:\s*(\S+)", text, re.M).group(1).replace("T", " ").rstrip("Z")
    report = re.search(r"^report_currency:\s*(\S+)", text, re.M).group(1)
    rates = {report: 1.0}
    found = re.search(r"^rates:\s*\{([^}]*)\}", text, re.M)
    for pair in (found.group(1).split(",") if found else []):
        currency, rate = pair.split(":")
        rates[currency.strip()] = float(rate)
    return as_of, rates


def main():
    try:
        import duckdb
    except ImportError:
        print("duckdb is not installed (pip install duckdb)", file=sys.stderr)
        sys.exit(3)
    folder = sys.argv[1]
    as_of, rates = job_settings(folder)
    sql = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "baseline.sql"), encoding="utf-8").read()
    os.chdir(folder)
    connection = duckdb.connect()
    connection.execute("SET enable_progress_bar = false")
    connection.execute(f"SET VARIABLE as_of = TIMESTAMP '{as_of}'")
    connection.execute("CREATE TEMP TABLE rates (currency VARCHAR, rate DOUBLE)")
    connection.executemany("INSERT INTO rates VALUES (?, ?)", list(rates.items()))
    threads = connection.execute("SELECT current_setting('threads')").fetchone()[0]
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    rows = connection.execute(sql).fetchall()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"duckdb {wall:.3f} {cpu:.3f} {len(rows)} {threads}")
    if "--show" in sys.argv:
        for row in rows:
            print(*row, sep="\t")


if __name__ == "__main__":
    main()
