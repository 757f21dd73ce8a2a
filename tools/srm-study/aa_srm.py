#!/usr/bin/env python3
"""A/A study of the always-valid sample-ratio check (docs/statistics.md, "Sequential sample
ratio"): how often a test whose split is exactly as configured is ever flagged over 60 nights,
by the always-valid check (its p-value the running minimum over the nights) and by the night's
χ² at 0.001 read every night.

The users are generated here, as input files: each night a Poisson number of newcomers is
split among the groups by their weights (the check's own null: a multinomial at the configured
shares), and every replicate is one offering of an aggregates file that `offerlab stats` reads,
night after night (cumulative users). offerlab computes both checks; this script only keeps,
per replicate, the least always-valid p-value so far (as `run` keeps it in its database) and
whether any night's χ² flagged. Settings: two groups 50/50 at 100 newcomers a night; three
groups 50/25/25 at 30 a night (small counts); two groups 90/10 at 2,000 a night.

    python3 tools/srm-study/aa_srm.py --offerlab .build/release/offerlab > tools/srm-study/results.md

The setting through `offerlab run` itself (tables, logs and the job's database keeping the
running minimum) is aa_srm_run.py beside this script; its row is appended to the same file.
"""

import argparse
import csv
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

SETTINGS = [
    ("2 groups 50/50, 100 a night", [1.0, 1.0], 100),
    ("3 groups 50/25/25, 30 a night", [2.0, 1.0, 1.0], 30),
    ("2 groups 90/10, 2,000 a night", [9.0, 1.0], 2000),
]


def night_file(path: Path, users: np.ndarray, weights: list[float]) -> None:
    with path.open("w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["offering_id", "group", "is_control", "weight", "users", "converters", "revenue_sum", "revenue_sum_squares"])
        for replicate, counts in enumerate(users):
            for group, (count, weight) in enumerate(zip(counts, weights)):
                writer.writerow([f"r{replicate:06d}", f"g{group}", "true" if group == 0 else "false", weight, int(count), 0, 0, 0])


def study(offerlab: str, weights: list[float], per_night: int, nights: int, replicates: int, seed: int, folder: Path):
    rng = np.random.default_rng(seed)
    shares = np.array(weights) / sum(weights)
    users = np.zeros((replicates, len(weights)), dtype=np.int64)
    least = np.ones(replicates)
    chi2_ever = np.zeros(replicates, dtype=bool)
    for night in range(nights):
        newcomers = rng.poisson(per_night, size=replicates)
        users += np.array([rng.multinomial(n, shares) for n in newcomers])
        night_file(folder / "agg.csv", users, weights)
        subprocess.run([offerlab, "stats", "--input", str(folder / "agg.csv"), "--output", str(folder / "out")],
                       check=True, capture_output=True)
        with (folder / "out" / "srm.csv").open(newline="") as file:
            rows = {row["offering_id"]: row for row in csv.DictReader(file)}
        for index in range(replicates):
            row = rows[f"r{index:06d}"]
            least[index] = min(least[index], min(1.0, math.exp(-float(row["seq_srm_log_bayes_factor"]))))
            chi2_ever[index] |= row["srm_flag"] == "true"
    return float(np.mean(least < 0.001)), float(np.mean(chi2_ever))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--offerlab", required=True)
    parser.add_argument("--replicates", type=int, default=10000)
    parser.add_argument("--nights", type=int, default=60)
    parser.add_argument("--seed", type=int, default=51)
    options = parser.parse_args()
    print(f"A/A, {options.replicates:,} replicates of {options.nights} nights each (seed {options.seed}); "
          "flagged: ever, over the nights, at 0.001. Monte-Carlo error: ± 2·√(p(1−p)/R).\n")
    print("| setting | always-valid, ever flagged | χ² read every night, ever flagged |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as temporary:
        for index, (name, weights, per_night) in enumerate(SETTINGS):
            sequential, chi2 = study(options.offerlab, weights, per_night, options.nights, options.replicates,
                                     options.seed + index, Path(temporary))
            def cell(p: float) -> str:
                return f"{p:.5f} ± {2 * math.sqrt(max(p, 1 / options.replicates) * (1 - p) / options.replicates):.5f}"
            print(f"| {name} | {cell(sequential)} | {cell(chi2)} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
