#!/usr/bin/env python3
"""Runs Benchmarks/DuckDB/baseline.sql on a data set made by `offerlab generate`.

usage: baseline.py DATASET_FOLDER [JOB_FILE] [--show]

Reads `as_of`, `report_currency`, `rates` and the `logs` globs from DATASET_FOLDER/JOB_FILE
(default: job.yaml; globs ending in `.csv.gz` or `.csv` are CSV logs, the others JSON Lines),
runs the query from that folder (its paths are relative) with DuckDB's default threads (one per
core), and prints one line: `duckdb <wall seconds> <cpu seconds> <rows> <threads>`. Exits with
status 3 when the duckdb module is not installed (`pip install duckdb`), 2 when the job file is
missing or lists no JSON Lines logs. `--show` also prints the result rows.
"""
import os
import re
import resource
import sys
import time


def job_settings(path):
    text = open(path, encoding="utf-8").read()
    as_of = re.search(r"^as_of:\s*(\S+)", text, re.M).group(1).replace("T", " ").rstrip("Z")
    report = re.search(r"^report_currency:\s*(\S+)", text, re.M).group(1)
    rates = {report: 1.0}
    found = re.search(r"^rates:\s*\{([^}]*)\}", text, re.M)
    for pair in (found.group(1).split(",") if found else []):
        currency, rate = pair.split(":")
        rates[currency.strip()] = float(rate)
    # The generated job files list their globs one per line: `  - "logs/*/*/*/*.jsonl.gz"`.
    listed = re.search(r"^logs:\s*\n((?:\s+-\s*\S+.*\n)+)", text, re.M)
    globs = re.findall(r"-\s*\"?([^\"\s]+)\"?", listed.group(1)) if listed else []
    csv = [glob for glob in globs if re.search(r"\.csv(\.gz)?$", glob)]
    json = [glob for glob in globs if glob not in csv]
    return as_of, rates, json, csv


def main():
    try:
        import duckdb
    except ImportError:
        print("duckdb is not installed (pip install duckdb)", file=sys.stderr)
        sys.exit(3)
    arguments = [argument for argument in sys.argv[1:] if argument != "--show"]
    folder = arguments[0]
    job = arguments[1] if len(arguments) > 1 else "job.yaml"
    if not os.path.isfile(os.path.join(folder, job)):
        print(f"{os.path.join(folder, job)}: no such job file", file=sys.stderr)
        sys.exit(2)
    as_of, rates, json_logs, csv_logs = job_settings(os.path.join(folder, job))
    if not json_logs:
        print(f"{job}: no JSON Lines logs", file=sys.stderr)
        sys.exit(2)
    sql = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "baseline.sql"), encoding="utf-8").read()
    if not csv_logs:
        sql = re.sub(r"\n *-- CSV logs: begin\n.*?-- CSV logs: end\n", "\n", sql, flags=re.S)
    os.chdir(folder)
    connection = duckdb.connect()
    connection.execute("SET enable_progress_bar = false")
    connection.execute(f"SET VARIABLE as_of = TIMESTAMP '{as_of}'")
    connection.execute("SET VARIABLE json_logs = $1::VARCHAR[]", [json_logs])
    if csv_logs:
        connection.execute("SET VARIABLE csv_logs = $1::VARCHAR[]", [csv_logs])
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
