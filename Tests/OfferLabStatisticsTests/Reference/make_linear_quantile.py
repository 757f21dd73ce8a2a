"""Writes linear_quantile.csv: numpy's default quantile (linear interpolation between order
statistics, Hyndman-Fan type 7) of small samples, the reference for `linearQuantile` and the
percentile cap of docs/analysis.md §4b. Each row: p, the quantile, then the sample x0..x7
(empty past its end).

    python3 Tests/OfferLabStatisticsTests/Reference/make_linear_quantile.py
"""
import csv
import random
from pathlib import Path

import numpy as np

WIDTH = 8
random.seed(27)
cases = [([5.0], 0.99), ([2.0, 10.0], 0.99), ([2.0, 10.0], 0.5), ([1.0, 3.0, 3.0, 3.0, 9.0], 0.6),
         ([0.99, 1.99, 4.99, 9.99, 49.99, 99.99, 199.99], 0.99)]
for _ in range(40):
    size = random.randint(1, WIDTH)
    sample = sorted(round(random.lognormvariate(2, 1.5), 2) for _ in range(size))
    cases.append((sample, random.choice([0.5, 0.9, 0.95, 0.99, 0.999, random.random()])))

with open(Path(__file__).with_name("linear_quantile.csv"), "w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["p", "quantile"] + [f"x{i}" for i in range(WIDTH)])
    for sample, p in cases:
        quantile = float(np.quantile(np.array(sample), p))
        writer.writerow([repr(p), repr(quantile)] + [repr(x) for x in sample] + [""] * (WIDTH - len(sample)))
