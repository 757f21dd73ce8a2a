#!/usr/bin/env python3
"""A/A study of the always-valid sample-ratio check through `offerlab run` itself: input files,
night after night, the running minimum kept by the job's database (docs/statistics.md,
"Sequential sample ratio" and "A/A study"; the `offerlab stats` settings are in aa_srm.py).

Every replicate is one offering of a real data set in the input formats (docs/input-formats.md):
an A/A test of two groups, `control` and `variant`, weight 1 each. Each night a Poisson number of
newcomers (mean 100) arrives per offering and is split between the groups as a multinomial at
the configured weights (the check's own null), each with an `assigned_at` inside that night's
day. The tables are written once, but the assignment table grows as the server's dump does: each
night's rows are appended to `user_offering_assignments.csv.gz` as one more gzip member. Each
night also gets its own purchase log (gzipped JSON Lines): a few `paywall_view` events of that
night's newcomers, so that the night passes the run's checks for empty and stale logs
(docs/reliability.md, "A broken night") without a waiver.

Then `offerlab run job.yaml --as-of <the next midnight>` runs each night in order, with
`decision: sequential` and a database in the study's folder, and this script reads that night's
`srm.csv`: `seq_srm_p_value` (already the least over the database's nights) and the χ²'s
`srm_flag`. A replicate is ever flagged by the always-valid check when a night's `seq_srm_flag`
is true, by the χ² read every night when a night's `srm_flag` is. As a check on what the study
assumes, every night and every replicate, the run's `seq_srm_p_value` must equal the running
minimum of min(1, exp(−seq_srm_log_bayes_factor)) over the nights so far, computed here.

    python3 tools/srm-study/aa_srm_run.py --offerlab .build/release/offerlab --replicates 400 >> tools/srm-study/results.md

400 replicates: 1,000 s of wall time on two cores shared with other work (a night's run grows
with the users so far: 2 s on the first night, 20–28 s on the last ones).
"""

import argparse
import csv
import datetime as dt
import gzip
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

GROUPS = ["control", "variant"]
WEIGHTS = [1.0, 1.0]
# The first night of the study; in the past, since a run refuses an as_of more than a day ahead.
FIRST_NIGHT = dt.date(2025, 1, 6)
# paywall_view events logged per night (each by one of that night's newcomers): enough that no
# night looks empty or stale to the run.
PAYWALL_VIEWS_PER_NIGHT = 5
# Relative tolerance of the running-minimum check: both sides come from numbers the CSV prints.
TOLERANCE = 1e-9


def offering_id(replicate: int) -> str:
    return f"aa_{replicate:06d}"


def write_offering_tables(tables: Path, replicates: int) -> None:
    """The four offering tables in the shapes of sample-data/tables/ (CSV and mysql --batch TSV)."""
    created_at = f"{FIRST_NIGHT - dt.timedelta(days=1)} 12:00:00"
    with (tables / "subscription_offerings.csv").open("w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["id", "offering_id", "name", "is_active", "created_at"])
        for replicate in range(replicates):
            writer.writerow([replicate + 1, offering_id(replicate), f"A/A replicate {replicate}", 1, created_at])
    # Group ids: offering r (id r + 1) has groups 2r + 1 (control) and 2r + 2 (variant).
    with (tables / "subscription_offering_groups.tsv").open("w") as file:
        file.write("id\tsubscription_offering_id\tgroup_name\tweight\tdescription\n")
        for replicate in range(replicates):
            for index, (group, weight) in enumerate(zip(GROUPS, WEIGHTS)):
                file.write(f"{2 * replicate + index + 1}\t{replicate + 1}\t{group}\t{weight:g}\tNULL\n")
    with (tables / "subscription_offering_group_products.csv").open("w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["offering_group_id", "position", "product_id", "type", "fallback_display_price",
                         "is_default", "badge_text", "subtitle_text", "created_at"])
        for group_id in range(1, 2 * replicates + 1):
            writer.writerow([group_id, 0, "weekly_799", "weekly", "7.99", 1, "", "\\N", created_at])
    with (tables / "subscription_offering_group_copy.tsv").open("w") as file:
        file.write("offering_group_id\theader_title\theader_subtitle\tcta_button_text\tsupporting_text\tlocale\n")
        for group_id in range(1, 2 * replicates + 1):
            file.write(f"{group_id}\tStudy AI\tJoin now. Learn anything.\tNext\tCancel anytime\ten_US\n")


def write_night_inputs(folder: Path, night: int, replicates: int, rng: np.random.Generator,
                       next_user: int, next_row: int) -> tuple[int, int, np.ndarray]:
    """Appends night `night` (0-based)'s newcomers to the assignment table and writes its log.
    Returns the next user number, the next row id and the newcomers per (replicate, group)."""
    day = FIRST_NIGHT + dt.timedelta(days=night)
    day_start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)
    shares = np.array(WEIGHTS) / sum(WEIGHTS)
    newcomers = rng.poisson(100, size=replicates)
    split = np.array([rng.multinomial(n, shares) for n in newcomers])
    total = int(newcomers.sum())
    seconds = rng.integers(0, 86400, size=total)  # assigned_at inside the night's day
    lines = []
    assigned = []  # (user, assigned_at) of tonight's newcomers, for the log
    position = 0
    for replicate in range(replicates):
        for index in range(len(GROUPS)):
            for _ in range(split[replicate, index]):
                user = f"u{next_user}"
                at = day_start + dt.timedelta(seconds=int(seconds[position]))
                lines.append(f"{next_row},{user},{replicate + 1},{2 * replicate + index + 1},"
                             f"{at:%Y-%m-%d %H:%M:%S}\n")
                assigned.append((user, at, replicate))
                next_user += 1
                next_row += 1
                position += 1
    table = folder / "tables" / "user_offering_assignments.csv.gz"
    header = "" if table.exists() else "id,user_id,subscription_offering_id,offering_group_id,assigned_at\n"
    # One gzip member per night, appended: the file is read as one stream (docs/input-formats.md).
    with table.open("ab") as file:
        file.write(gzip.compress((header + "".join(lines)).encode(), compresslevel=1))

    log = folder / "logs" / f"{day:%Y/%m/%d}" / "events.jsonl.gz"
    log.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(log, "wt") as file:
        for pick in rng.choice(len(assigned), size=min(PAYWALL_VIEWS_PER_NIGHT, len(assigned)), replace=False):
            user, at, replicate = assigned[pick]
            viewed = min(at + dt.timedelta(seconds=30), day_start + dt.timedelta(seconds=86399))
            file.write(json.dumps({"event_id": f"pv-{user}", "ts": f"{viewed:%Y-%m-%dT%H:%M:%SZ}", "user_id": user,
                                   "event": "paywall_view", "offering_id": offering_id(replicate)}) + "\n")
    return next_user, next_row, split


def write_job(folder: Path) -> Path:
    job = folder / "job.yaml"
    job.write_text("# A/A study of the always-valid sample-ratio check (tools/srm-study/aa_srm_run.py)\n"
                   "tables: tables/\n"
                   "logs: [\"logs/*/*/*/*.jsonl.gz\"]\n"
                   "report_currency: USD\n"
                   "rates: {}\n"
                   "decision: sequential\n"
                   "control: control\n"
                   "output: out/\n"
                   "database: results.sqlite\n")
    return job


def study(offerlab: str, replicates: int, nights: int, seed: int, folder: Path) -> dict:
    rng = np.random.default_rng(seed)
    (folder / "tables").mkdir(parents=True)
    write_offering_tables(folder / "tables", replicates)
    job = write_job(folder)
    users = np.zeros((replicates, len(GROUPS)), dtype=np.int64)
    running_minimum = np.ones(replicates)  # this script's own running minimum, to check the run's
    sequential_ever = np.zeros(replicates, dtype=bool)
    chi2_ever = np.zeros(replicates, dtype=bool)
    worst_mismatch = 0.0
    next_user, next_row = 1, 1
    for night in range(nights):
        started = time.monotonic()
        next_user, next_row, split = write_night_inputs(folder, night, replicates, rng, next_user, next_row)
        users += split
        as_of = FIRST_NIGHT + dt.timedelta(days=night + 1)
        subprocess.run([offerlab, "run", str(job), "--as-of", f"{as_of}T00:00:00Z", "--quiet"],
                       check=True, capture_output=True)
        night_output = folder / "out" / f"{as_of}"
        with (night_output / "srm.csv").open(newline="") as file:
            rows = {row["offering_id"]: row for row in csv.DictReader(file)}
        for replicate in range(replicates):
            row = rows[offering_id(replicate)]
            log_bayes_factor = float(row["seq_srm_log_bayes_factor"])
            running_minimum[replicate] = min(running_minimum[replicate], min(1.0, math.exp(-log_bayes_factor)))
            run_p_value = float(row["seq_srm_p_value"])
            worst_mismatch = max(worst_mismatch, abs(run_p_value - running_minimum[replicate])
                                 / max(running_minimum[replicate], 1e-300))
            sequential_ever[replicate] |= row["seq_srm_flag"] == "true"
            chi2_ever[replicate] |= row["srm_flag"] == "true"
        if night == 0:  # the users the run counted are the ones written
            with (night_output / "summary.csv").open(newline="") as file:
                counted = {(row["offering_id"], row["group"]): int(row["users"]) for row in csv.DictReader(file)}
            assert all(counted[(offering_id(r), g)] == users[r, i]
                       for r in range(replicates) for i, g in enumerate(GROUPS)), "summary.csv users differ"
        # The database keeps the nights; the night's folder is read and can go (its daily.csv grows
        # with every night and would fill the disk).
        shutil.rmtree(night_output)
        print(f"night {night + 1}/{nights}: {time.monotonic() - started:.1f} s, "
              f"ever flagged so far: always-valid {sequential_ever.sum()}, χ² {chi2_ever.sum()}",
              file=sys.stderr, flush=True)
    # The last night's seq_srm_p_value is the least over all nights: its flag is "ever flagged".
    assert np.array_equal(sequential_ever, running_minimum < 0.001), "seq_srm_flag differs from p < 0.001"
    assert worst_mismatch <= TOLERANCE, f"seq_srm_p_value is not the running minimum (relative difference {worst_mismatch})"
    return {"sequential": float(np.mean(sequential_ever)), "chi2": float(np.mean(chi2_ever)),
            "worst_mismatch": worst_mismatch, "users": int(users.sum())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--offerlab", required=True)
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--nights", type=int, default=60)
    parser.add_argument("--seed", type=int, default=61)
    parser.add_argument("--folder", help="keep the data set, database and outputs here (default: a temporary folder)")
    options = parser.parse_args()
    started = time.monotonic()
    if options.folder:
        result = study(options.offerlab, options.replicates, options.nights, options.seed, Path(options.folder))
    else:
        with tempfile.TemporaryDirectory() as temporary:
            result = study(options.offerlab, options.replicates, options.nights, options.seed, Path(temporary))
    replicates = options.replicates

    def cell(p: float) -> str:
        return f"{p:.5f} ± {2 * math.sqrt(max(p, 1 / replicates) * (1 - p) / replicates):.5f}"

    print(f"\nThrough `offerlab run` (tables, logs, database), {replicates:,} replicates (offerings of one job) "
          f"of {options.nights} nights each (seed {options.seed}); {result['users']:,} users in all. "
          "The always-valid p-value is the run's own `seq_srm_p_value`, the least over the database's nights; "
          f"it matched the running minimum of min(1, 1/BF) on every night of every replicate "
          f"(largest relative difference {result['worst_mismatch']:.1e}). "
          f"Wall time {time.monotonic() - started:.0f} s.\n")
    print("| setting | always-valid, ever flagged | χ² read every night, ever flagged |")
    print("|---|---|---|")
    print(f"| 2 groups 50/50, 100 a night, through offerlab run (tables, logs, database, {replicates:,} replicates) "
          f"| {cell(result['sequential'])} | {cell(result['chi2'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
