#!/usr/bin/env python3
"""Runs a night's part scripts on an engine and saves each result as DIR/<part>.csv, the folder
`offerlab stats --job JOB --parts DIR` reads (docs/warehouse.md, "The nightly route on a
cluster").

    # the scripts, where the job's files are visible (offerlab sql names every file):
    offerlab sql JOB.yaml --dialect spark --list-parts | while read part; do
      offerlab sql JOB.yaml --dialect spark --part "$part" > scripts/"$part".sql; done
    # each script run by the engine, its result saved:
    spark-submit tools/sql/night_parts.py --engine spark --scripts scripts --out parts
    python3 tools/sql/night_parts.py --engine duckdb --scripts scripts --out parts

Statements end with `;` at the end of a line; every statement but the last prepares, the last is
the part. The parts of one job share their first statements, which the session runs once. On Spark the session is the one `spark-submit` gives (its master, its database): the
working tables go to the current database, so give the night a database of its own
(`--database offerlab_night`, created when missing). A result is written whole or not at all
(a temporary file renamed). Exit 0 when every part was saved; 1 naming the part that failed.
"""

import argparse
import csv
import os
import re
import sys


def statements(script):
    """The script's statements: each ends with `;` at the end of a line."""
    parts = re.split(r";[ \t]*\n", script)
    return [p.strip() for p in parts if p.strip() and not all(line.startswith("--") for line in p.strip().splitlines())]


def cell(value):
    """A result's value as its CSV cell: NULL empty, booleans and floats as `offerlab stats` reads them."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", required=True, choices=["duckdb", "spark"])
    parser.add_argument("--scripts", required=True, help="a folder of <part>.sql files (offerlab sql --part)")
    parser.add_argument("--out", required=True, help="the folder to save <part>.csv into")
    parser.add_argument("--database", default="offerlab_night", help="Spark: the database the working tables go to")
    arguments = parser.parse_args()
    names = sorted(f[:-4] for f in os.listdir(arguments.scripts) if f.endswith(".sql"))
    if not names:
        print(f"night_parts.py: no <part>.sql in {arguments.scripts}", file=sys.stderr)
        return 1
    if arguments.engine == "duckdb":
        import duckdb

        connection = duckdb.connect()

        def run(statement, last):
            result = connection.execute(statement)
            return ([d[0] for d in result.description], result.fetchall()) if last else None
    else:
        from pyspark.sql import SparkSession

        session = SparkSession.builder.appName("offerlab-night-parts").getOrCreate()
        session.sql(f"CREATE DATABASE IF NOT EXISTS {arguments.database}")
        session.sql(f"USE {arguments.database}")

        def run(statement, last):
            frame = session.sql(statement)
            return (frame.columns, [tuple(row) for row in frame.collect()]) if last else None

    os.makedirs(arguments.out, exist_ok=True)
    done = set()
    for name in names:
        with open(os.path.join(arguments.scripts, f"{name}.sql"), encoding="utf-8") as file:
            *setup, last = statements(file.read())
        try:
            # The parts share their first statements (each creates or replaces a view or table of its
            # own name): the session runs each statement once.
            for statement in setup:
                if statement not in done:
                    run(statement, False)
                    done.add(statement)
            columns, rows = run(last, True)
        except Exception as error:  # the engine's own error types
            message = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
            print(f"night_parts.py: part {name}: {message}", file=sys.stderr)
            return 1
        path = os.path.join(arguments.out, f"{name}.csv")
        with open(path + ".partial", "w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow(columns)
            writer.writerows([cell(v) for v in row] for row in rows)
        os.replace(path + ".partial", path)
        print(f"{name}: {len(rows)} rows", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
