#!/usr/bin/env python3
"""Runs `offerlab sql` scripts on real engines and compares what `offerlab stats` makes of
their results with what `offerlab run` writes for the same job (contract §3.2).

For each job and engine: the parts (aggregates, quality, products, and slices when the job
slices) are generated with the built binary, run on the engine (DuckDB in-process, Spark in
local mode), written to CSV, and turned by `offerlab stats` into summary.csv, comparisons.csv,
srm.csv, maturity.csv, quality.csv, products.csv and the slice files. Those are compared with
`offerlab run`'s files by column name (columns only one side has are ignored, so new columns do
not break the comparison): rows by key, counts and texts exactly, other numbers to 1e-9
relative. Then the whole night (contract §3.3): every part the job lists (`offerlab sql
--list-parts`) run on the engine and turned by `offerlab stats --job --parts` into a night whose
every file (projection, decisions, daily, backtest, … but the rejects) is compared with run's the
same way, and whose `status` prints run's lines.

A job may be compared with another job's `run` (`--reference JOB=RUN_JOB`): the job that reads
what `offerlab events` wrote for a store source, with the job of the same data set in the log
format; `quality.csv`, whose line counters differ between the two forms by design, is then left
out, and so is `exact_proceeds_share` (`REFERENCE_DIFFERS`): a store's records state their fees, the
log format's lines of the same charges do not. Its whole night is compared with its own `run`:
the events read otherwise (a store's form against the log format) may move the projection's far
ends, so only the same inputs make the same night.

A job that `run` refuses (too many malformed lines, too much money without a rate) must make
every engine fail over the same limit. A case may also expect one engine to refuse the job at generation time
(`--expect-refusal JOB:spark=PATTERN`: files Spark would inflate differently from `run`), or
every engine to fail on an input they cannot read as `run` does (`--expect-failure JOB:PATTERN`).

    python3 tools/sql/compare_engines.py --offerlab .build/debug/offerlab --work /tmp/sql-work \\
        --engines duckdb,spark JOB.yaml [JOB.yaml …]

Exit status 0 when every comparison holds; 1 with one line per difference otherwise.
"""

import argparse
import csv
import math
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from night_parts import cell, statements  # noqa: E402  (the runbook's own reading of a script)

PARTS = ["aggregates", "quality", "products"]
KEYS = {
    "summary": ["offering_id", "group"],
    "comparisons": ["offering_id", "group", "metric"],
    "srm": ["offering_id"],
    "maturity": ["offering_id", "group", "days"],
    "products": ["offering_id", "group", "product_id"],
    "quality": ["offering_id", "counter"],
    "slice_summary": ["offering_id", "dimension", "level", "group"],
    "slice_comparisons": ["offering_id", "dimension", "level", "group", "metric"],
    "slice_srm": ["offering_id", "dimension", "level"],
}
# Columns compared as exact integers; every other numeric column to RELATIVE.
COUNTS = {
    "users", "converters", "trial_starters", "trial_converters", "paywall_viewers", "purchases", "renewals", "refunds", "count",
    "days", "capped_users",
}
RELATIVE = 1e-9
# The files only the whole night from its parts writes (contract §3.3), and their keys.
NIGHT_KEYS = {
    "projection": ["offering_id", "group"],
    "decisions": ["offering_id", "group"],
    "daily": ["offering_id", "date", "group"],
    "alerts": ["offering_id", "group", "kind"],
    "backtest": ["product_id", "read_day", "cohort_month"],
    "sources": ["source", "counter"],
}
# Columns a job compared with another job's run (`--reference`) differs in by design.
REFERENCE_DIFFERS = {"exact_proceeds_share"}


class Engine:
    """Runs scripts in one session per job: the parts of one job share their first statements
    (the logs read, the members' values), so a statement the session has run is not run again
    (each creates or replaces a view or table of its own name); a script of another job (another
    first statement) starts a new session."""

    def __init__(self):
        self.done = None

    def run(self, script):
        *setup, last = statements(script)
        if not self.done or not setup or setup[0] not in self.done:
            self.done = None
            self.start()
            self.done = set()
        for statement in setup:
            if statement not in self.done:
                self.execute(statement)
                self.done.add(statement)
        return self.query(last)


class DuckDB(Engine):
    name = "duckdb"

    def __init__(self, work, memory):
        super().__init__()
        import duckdb

        self.duckdb = duckdb

    def start(self):
        self.connection = self.duckdb.connect()

    def execute(self, statement):
        self.connection.execute(statement)

    def query(self, statement):
        result = self.connection.execute(statement)
        columns = [d[0] for d in result.description]
        return columns, result.fetchall()


class Spark(Engine):
    name = "spark"

    def __init__(self, work, memory):
        super().__init__()
        from pyspark.sql import SparkSession

        self.session = (
            SparkSession.builder.master("local[2]")
            .appName("offerlab-sql-test")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.memory", memory)
            .config("spark.sql.warehouse.dir", os.path.abspath(os.path.join(work, "spark-warehouse")))
            .getOrCreate()
        )
        # The failures a test expects (too many malformed lines) come back as exceptions; the
        # executors' log lines would only repeat them with a Java stack.
        self.session.sparkContext.setLogLevel("OFF")

    def start(self):
        pass

    def execute(self, statement):
        self.session.sql(statement)

    def query(self, statement):
        frame = self.session.sql(statement)
        return frame.columns, [tuple(row) for row in frame.collect()]


def write_csv(path, columns, rows):
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([cell(v) for v in row])


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def same_value(column, a, b):
    if a == b:
        return True
    if a == "" or b == "" or column in COUNTS:
        return False
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) or math.isnan(y):
        return False
    return abs(x - y) <= RELATIVE * max(abs(x), abs(y))


def one_micro_unit_apart(a, b):
    """Two amounts written to the micro-unit whose values agree to 1e-9 but straddle a rounding
    boundary: a cohort's paid amount is a sum over its buyers within each day, whose order an
    engine does not keep (docs/warehouse.md)."""
    try:
        return a != b and abs(float(a) - float(b)) <= 1.000001e-6
    except ValueError:
        return False


def at_a_bound(row):
    """Whether a backtest row's paid amount is an end of its interval as written (to the
    micro-unit): `covered` then turns on the amount's last digit, which the order of a sum within
    a day moves (the amounts themselves agree to 1e-9; docs/warehouse.md)."""
    try:
        paid = float(row["realized_revenue_per_buyer"])
        return any(row[end] != "" and abs(float(row[end]) - paid) <= 1.5e-6 for end in ("ci_low", "ci_high"))
    except (KeyError, ValueError):
        return False


def compare(name, expected_path, actual_path, left_out=frozenset(), whole_night=False):
    """Differences between two CSV files, by key and column name (but the `left_out` columns)."""
    expected, actual = read_csv(expected_path), read_csv(actual_path)
    # The 365-day projection needs the night's own parts: `offerlab stats --input` on §3.2's
    # sums cannot make its rows (docs/statistics.md, "The projection in a run").
    if not whole_night:
        expected = [r for r in expected if r.get("metric") != "projected_arpu_365"]
    key = {**KEYS, **NIGHT_KEYS}[name]
    problems = []
    index = {tuple(r[k] for k in key): r for r in actual}
    if len(index) != len(actual):
        problems.append(f"{name}.csv: repeated keys in {actual_path}")
    expected_keys = [tuple(r[k] for k in key) for r in expected]
    if sorted(expected_keys) != sorted(index):
        missing = sorted(set(expected_keys) - set(index))[:3]
        extra = sorted(set(index) - set(expected_keys))[:3]
        problems.append(f"{name}.csv: rows differ: missing {missing}, extra {extra}")
    if [tuple(r[k] for k in key) for r in actual] != expected_keys and not problems:
        problems.append(f"{name}.csv: rows in a different order")
    shared = [c for c in (expected[0].keys() if expected else []) if actual and c in actual[0] and c not in left_out]
    for row in expected:
        other = index.get(tuple(row[k] for k in key))
        if other is None:
            continue
        for column in shared:
            if name == "backtest" and column == "covered" and at_a_bound(row):
                continue
            if name == "backtest" and one_micro_unit_apart(row[column], other[column]):
                continue
            if not same_value(column, row[column], other[column]):
                problems.append(f"{name}.csv {tuple(row[k] for k in key)} {column}: run {row[column]!r}, sql {other[column]!r}")
    return problems


def offerlab(binary, *arguments):
    return subprocess.run([binary, *arguments], capture_output=True, text=True)


def check_job(binary, engines, job, work, refusals, failure, reference=None):
    problems = []
    os.makedirs(work, exist_ok=True)
    started = time.monotonic()
    run = offerlab(binary, "run", reference or job, "--output", os.path.join(work, "run"), "--database", os.path.join(work, "run.sqlite"), "--quiet")
    run_seconds = time.monotonic() - started
    run_error = run.stderr.strip().splitlines()[-1] if run.returncode != 0 and run.stderr.strip() else ""
    if run.returncode not in (0, 65):
        return [f"{job}: offerlab run failed: {run.stderr.strip()}"]
    night = None
    if run.returncode == 0:
        night = next(os.path.join(work, "run", d) for d in sorted(os.listdir(os.path.join(work, "run"))) if re.match(r"\d{4}-\d{2}-\d{2}$", d))
    print(f"{job}: offerlab run {'of ' + reference + ' ' if reference else ''}{run_seconds:.1f} s" + (f" (refused: {run_error})" if run_error else ""))
    # The whole night is the job's own run's, on the same inputs (contract §3.3); a job compared
    # with another job's run is run itself for it.
    own_night, own_database = night, os.path.join(work, "run.sqlite")
    if reference and night:
        own = os.path.join(work, "own-run")
        own_database = os.path.join(work, "own-run.sqlite")
        ran = offerlab(binary, "run", job, "--output", own, "--database", own_database, "--quiet")
        if ran.returncode != 0:
            return [f"{job}: offerlab run failed: {ran.stderr.strip()}"]
        own_night = os.path.join(own, os.path.basename(night))
    # A job that slices (run wrote the slice files) has a fourth part.
    parts = PARTS + (["slices"] if night and os.path.exists(os.path.join(night, "slice_summary.csv")) else [])
    for engine in engines:
        folder = os.path.join(work, engine.name)
        os.makedirs(folder, exist_ok=True)
        started = time.monotonic()
        results = {}
        for part in parts:
            generated = offerlab(binary, "sql", job, "--dialect", engine.name, "--part", part)
            if engine.name in refusals:
                if generated.returncode == 0 or not re.search(refusals[engine.name], generated.stderr):
                    problems.append(f"{job}: {engine.name}: expected offerlab sql to refuse the job ({refusals[engine.name]}), got {generated.returncode}: {generated.stderr.strip()}")
                else:
                    print(f"{job}: {engine.name}: refused as expected: {generated.stderr.strip()}")
                break
            if generated.returncode != 0:
                problems.append(f"{job}: offerlab sql --dialect {engine.name} --part {part} failed: {generated.stderr.strip()}")
                break
            with open(os.path.join(folder, f"{part}.sql"), "w", encoding="utf-8") as file:
                file.write(generated.stdout)
            try:
                results[part] = engine.run(generated.stdout)
            except Exception as error:  # the engine's own error types
                message = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
                if failure and re.search(failure, message):
                    print(f"{job}: {engine.name} --part {part}: failed as expected: {message[:200]}")
                    continue
                # run's refusal names the limit it broke; the engine must fail on the same one.
                limit = re.search(r"over (max_\w+)", run_error)
                if limit and limit.group(1) in message:
                    print(f"{job}: {engine.name} --part {part}: refused like run: {message[:200]}")
                    continue
                problems.append(f"{job}: {engine.name} --part {part}: {message[:500]}")
                break
        else:
            if failure:
                if results:
                    problems.append(f"{job}: {engine.name} returned {sorted(results)} where every part should fail ({failure})")
                continue
            if run_error:
                if results:
                    problems.append(f"{job}: run refused the job ({run_error}) but {engine.name} returned {sorted(results)}")
                continue
            for part, (columns, rows) in results.items():
                write_csv(os.path.join(folder, f"{part}.csv"), columns, rows)
            engine_seconds = time.monotonic() - started
            stats = offerlab(
                binary, "stats", "--input", os.path.join(folder, "aggregates.csv"), "--quality", os.path.join(folder, "quality.csv"),
                "--products", os.path.join(folder, "products.csv"), "--output", os.path.join(folder, "stats"),
                *(["--slices", os.path.join(folder, "slices.csv")] if "slices" in results else []))
            if stats.returncode != 0:
                problems.append(f"{job}: {engine.name}: offerlab stats failed: {stats.stderr.strip()}")
                continue
            found = []
            for name in KEYS:
                if reference and name == "quality":
                    continue
                expected, actual = os.path.join(night, f"{name}.csv"), os.path.join(folder, "stats", f"{name}.csv")
                if not os.path.exists(expected):
                    continue
                if not os.path.exists(actual):
                    found.append(f"{name}.csv: run wrote it, stats did not")
                    continue
                found += compare(name, expected, actual, REFERENCE_DIFFERS if reference else frozenset())
            problems += [f"{job}: {engine.name}: {p}" for p in found]
            print(f"{job}: {engine.name} {engine_seconds:.1f} s for the {len(results)} parts: " + ("same numbers as run" if not found else f"{len(found)} differences"))
            found = whole_night(binary, engine, job, own_database, folder, own_night)
            problems += [f"{job}: {engine.name}: whole night: {p}" for p in found]
            print(f"{job}: {engine.name}: the whole night from its parts: " + ("run's night" if not found else f"{len(found)} differences"))
    return problems


def whole_night(binary, engine, job, run_database, folder, night):
    """The night `offerlab stats --job --parts` writes from the engine's parts (§3.2's, already in
    `folder`, and the night's own), compared with run's `night` file by file, and `status` line by
    line with `run_database`'s."""
    parts = os.path.join(folder, "parts")
    problem = engine_parts(binary, engine, job, None, parts, done=folder)
    if problem:
        return [problem]
    out, database = os.path.join(folder, "night"), os.path.join(folder, "night.sqlite")
    stats = offerlab(binary, "stats", "--job", job, "--parts", parts, "--output", out, "--db", database)
    if stats.returncode != 0:
        return [f"offerlab stats --parts failed ({stats.returncode}): {stats.stderr.strip()}"]
    stats_night = os.path.join(out, os.path.basename(night))
    found = []
    for name in sorted(set(KEYS) | set(NIGHT_KEYS)):
        expected, actual = os.path.join(night, f"{name}.csv"), os.path.join(stats_night, f"{name}.csv")
        if not os.path.exists(expected):
            continue
        if not os.path.exists(actual):
            found.append(f"{name}.csv: run wrote it, stats --parts did not")
            continue
        found += compare(name, expected, actual, whole_night=True)
    by_run = offerlab(binary, "status", "--db", run_database)
    by_parts = offerlab(binary, "status", "--db", database)
    if by_run.stdout != by_parts.stdout or by_run.returncode != by_parts.returncode:
        found.append(f"status differs: run {by_run.stdout!r}, parts {by_parts.stdout!r}")
    return found


def engine_parts(binary, engine, job, as_of, parts, done=None):
    """Every part `job` lists, run by `engine` and saved in `parts` (those already saved in `done`,
    §3.2's, copied); a line saying what failed, or None."""
    os.makedirs(parts, exist_ok=True)
    night = ["--as-of", as_of] if as_of else []
    for name in offerlab(binary, "sql", job, *night, "--dialect", engine.name, "--list-parts").stdout.split():
        saved = os.path.join(done, f"{name}.csv") if done else None
        if saved and os.path.exists(saved):
            with open(saved, encoding="utf-8") as file, open(os.path.join(parts, f"{name}.csv"), "w", encoding="utf-8") as copy:
                copy.write(file.read())
            continue
        generated = offerlab(binary, "sql", job, *night, "--dialect", engine.name, "--part", name)
        if generated.returncode != 0:
            return f"offerlab sql --part {name} failed: {generated.stderr.strip()}"
        write_csv(os.path.join(parts, f"{name}.csv"), *engine.run(generated.stdout))
    return None


def check_nights(binary, engines, job, nights, work):
    """`job` on each of `nights` (as_of dates, in order) by run into one database, and from the
    engine's parts by `stats --job --parts` into another: each night's files, its alert lines and
    `status` must be run's (contract §3.3, watching across nights, docs/reliability.md "Alerts")."""
    problems = []
    run_out, run_database = os.path.join(work, "run"), os.path.join(work, "run.sqlite")
    alerts_seen = 0
    for as_of in nights:
        run = offerlab(binary, "run", job, "--as-of", as_of, "--output", run_out, "--db", run_database, "--quiet")
        if run.returncode != 0:
            return [f"{job} {as_of}: offerlab run failed: {run.stderr.strip()}"]
        run_alerts = [line for line in run.stdout.splitlines() if line.startswith("alert: ")]
        alerts_seen += len(run_alerts)
        for engine in engines:
            folder = os.path.join(work, engine.name)
            parts = os.path.join(folder, f"parts-{as_of}")
            problem = engine_parts(binary, engine, job, as_of, parts)
            if problem:
                return [f"{job} {as_of}: {engine.name}: {problem}"]
            out, database = os.path.join(folder, "out"), os.path.join(folder, "night.sqlite")
            stats = offerlab(binary, "stats", "--job", job, "--as-of", as_of, "--parts", parts, "--output", out, "--db", database)
            if stats.returncode != 0:
                problems.append(f"{job} {as_of}: {engine.name}: offerlab stats --parts failed: {stats.stderr.strip()}")
                continue
            found = []
            stats_alerts = [line for line in stats.stdout.splitlines() if line.startswith("alert: ")]
            if stats_alerts != run_alerts:
                found.append(f"alerts: run {run_alerts}, parts {stats_alerts}")
            for name in sorted(set(KEYS) | set(NIGHT_KEYS)):
                expected, actual = os.path.join(run_out, as_of, f"{name}.csv"), os.path.join(out, as_of, f"{name}.csv")
                if os.path.exists(expected):
                    found += compare(name, expected, actual, whole_night=True) if os.path.exists(actual) else [f"{name}.csv missing"]
            by_run, by_parts = offerlab(binary, "status", "--db", run_database), offerlab(binary, "status", "--db", database)
            if by_run.stdout != by_parts.stdout:
                found.append(f"status differs: run {by_run.stdout!r}, parts {by_parts.stdout!r}")
            problems += [f"{job} {as_of}: {engine.name}: {p}" for p in found]
            print(f"{job} {as_of}: {engine.name}: {len(run_alerts)} alert(s); " + ("run's night" if not found else f"{len(found)} differences"))
    if alerts_seen == 0:
        problems.append(f"{job}: no alert on any of {nights}: the nights do not exercise watching")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--offerlab", required=True, help="the built offerlab binary")
    parser.add_argument("--work", required=True, help="a folder for the outputs (one subfolder per job)")
    parser.add_argument("--engines", default="duckdb,spark")
    parser.add_argument("--spark-memory", default="2g", help="Spark's driver memory in local mode (the 1M-user set needs about 8g)")
    parser.add_argument("--expect-refusal", action="append", default=[], metavar="ENGINE=PATTERN",
                        help="offerlab sql --dialect ENGINE must refuse JOB with a message matching PATTERN (given as JOB:ENGINE=PATTERN)")
    parser.add_argument("--expect-failure", action="append", default=[], metavar="JOB:PATTERN",
                        help="every engine must fail every part of JOB with a message matching PATTERN (an input the engines cannot read as run does)")
    parser.add_argument("--reference", action="append", default=[], metavar="JOB=RUN_JOB",
                        help="compare JOB's SQL results with offerlab run of RUN_JOB (quality.csv and exact_proceeds_share left out)")
    parser.add_argument("--nights", action="append", default=[], metavar="JOB=DATE,DATE,…",
                        help="also run JOB on these nights into one database, by run and from the engines' parts (check_nights)")
    parser.add_argument("jobs", nargs="+")
    arguments = parser.parse_args()
    refusals = {}
    for item in arguments.expect_refusal:
        job, _, rest = item.partition(":")
        engine, _, pattern = rest.partition("=")
        refusals.setdefault(job, {})[engine] = pattern
    failures = dict(item.split(":", 1) for item in arguments.expect_failure)
    references = dict(item.split("=", 1) for item in arguments.reference)
    engines = []
    for name in arguments.engines.split(","):
        engines.append({"duckdb": DuckDB, "spark": Spark}[name](arguments.work, arguments.spark_memory))
    problems = []
    for number, job in enumerate(arguments.jobs):
        problems += check_job(arguments.offerlab, engines, job, os.path.join(arguments.work, str(number)), refusals.get(job, {}), failures.get(job),
                              references.get(job))
    for number, item in enumerate(arguments.nights):
        job, _, dates = item.partition("=")
        problems += check_nights(arguments.offerlab, engines, job, dates.split(","), os.path.join(arguments.work, f"nights-{number}"))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
