#!/usr/bin/env python3
"""Reference values of the sequential sample-ratio Bayes factor (docs/statistics.md, "Sequential
sample ratio"; Lindon & Malek 2022) with scipy's log-gamma, independently of the Swift code.
Writes sequential_srm.csv next to this script (users and weights of up to four groups, `;`-
separated). Run: python3 make_sequential_srm.py
"""
import csv
import math
import os

from scipy.special import gammaln

cases = [
    ([50, 50], [1, 1]),
    ([55, 45], [1, 1]),
    ([5000, 5200], [1, 1]),
    ([50000, 51000], [1, 1]),
    ([500000, 503000], [1, 1]),
    ([1979, 1004, 1000], [2, 1, 1]),
    ([3118, 1560, 1590], [0.5, 0.25, 0.25]),
    ([3300, 1500, 1480], [50, 25, 25]),
    ([1, 0], [1, 1]),
    ([0, 7, 3, 0], [1, 1, 1, 1]),
    ([120, 80, 100, 100], [1, 1, 1, 1]),
    ([10, 0], [1, 0]),
    ([1000000, 1000000, 998000], [1, 1, 1]),
]
rows = []
for users, weights in cases:
    for c in (1.0, 10.0, 100.0, 1000.0):
        total_w = sum(weights)
        n = sum(users)
        value = gammaln(c) - gammaln(c + n)
        for x, w in zip(users, weights):
            if w == 0:
                continue
            theta = w / total_w
            value += gammaln(c * theta + x) - gammaln(c * theta) - x * math.log(theta)
        rows.append(dict(users=";".join(map(str, users)), weights=";".join(map(repr, map(float, weights))),
                         concentration=c, log_bayes_factor=repr(float(value)), p_value=repr(min(1.0, math.exp(-value)))))

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sequential_srm.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
print(len(rows), "rows")
