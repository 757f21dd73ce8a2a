#!/usr/bin/env python3
"""Reference values of the interval a projected goal (projected_arpu_365) is decided by
(docs/statistics.md, "Period tests"), computed with scipy independently of the Swift code.

Per offering (a family of treatments), per treatment: the difference d with its (1 - alpha)
interval [low, high] and the relative difference r with its interval. se = (high - low) / (2 z),
z = norm.isf(alpha / 2); the own p-value is 2 norm.sf(|d| / se) (fixed) or the always-valid
p = min(1, sqrt(n rho^2 + 1) exp(-rho^2 n z^2 / (2 (n rho^2 + 1)))) (sequential, z = d / se);
Holm over the family; the level g = alpha p / p_adj; the interval d +- q se with q = norm.isf(g / 2)
or the confidence sequence's multiplier at g; the relative one is that interval over control's
value c = d / r (so it excludes 0 exactly when the absolute one does), at least -1.
Writes projected_goal.csv next to this script. Run: python3 make_projected_goal.py
"""
import csv
import math
import os

from scipy.stats import norm


def rho(alpha, tuning):
    return math.sqrt((-2 * math.log(alpha) + math.log(1 - 2 * math.log(alpha))) / tuning)


def seq_multiplier(n, r, level):
    a = n * r * r
    return math.sqrt(2 * (a + 1) * math.log(math.sqrt(a + 1) / level) / a)


def seq_p(d, se, n, r):
    a = n * r * r
    z = d / se
    return min(1.0, math.sqrt(a + 1) * math.exp(-a * z * z / (2 * (a + 1))))


def holm(ps):
    m = len(ps)
    order = sorted(range(m), key=lambda i: (ps[i], i))
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


families = [
    # one family: a list of (d, low, high, r, r_low, r_high, users)
    [(1.20, 0.40, 2.00, 0.12, 0.04, 0.20, 6000)],
    [(-0.90, -1.70, -0.10, -0.09, -0.17, -0.01, 6000)],
    [(0.30, -0.50, 1.10, 0.03, -0.05, 0.11, 4000)],
    [(2.5, 1.1, 3.9, 0.25, 0.11, 0.39, 3000), (0.8, -0.2, 1.8, 0.08, -0.02, 0.18, 3100), (-1.5, -2.2, -0.8, -0.15, -0.22, -0.08, 2900)],
    [(0.05, 0.01, 0.09, 0.5, 0.1, 0.9, 900), (0.02, -0.01, 0.05, 0.2, -0.1, 0.5, 950)],
    [(10.0, 2.0, 18.0, 0.6, 0.1, 1.1, 20000), (-4.0, -9.0, 1.0, -0.3, -0.7, 0.1, 20000)],
]
rows = []
for number, family in enumerate(families):
    for alpha in (0.05, 0.10):
        for tuning in (None, 5000.0):
            z = norm.isf(alpha / 2)
            ses = [(h - l) / (2 * z) for _, l, h, _, _, _, _ in family]
            if tuning is None:
                ps = [min(1.0, 2 * norm.sf(abs(d) / se)) for (d, *_), se in zip(family, ses)]
            else:
                r = rho(alpha, tuning)
                ps = [seq_p(d, se, n, r) for (d, *_, n), se in zip(family, ses)]
            adjusted = holm(ps)
            for index, ((d, l, h, rel, rl, rh, n), se, p, pa) in enumerate(zip(family, ses, ps, adjusted)):
                level = alpha * p / pa
                q = norm.isf(level / 2) if tuning is None else seq_multiplier(n, rho(alpha, tuning), level)
                c = d / rel
                rows.append(dict(
                    family=number, index=index, d=d, low=l, high=h, r=rel, r_low=rl, r_high=rh, c=c, users=n, alpha=alpha,
                    tuning="" if tuning is None else tuning, p_adjusted=pa,
                    abs_low=d - q * se, abs_high=d + q * se, rel_low=max(-1.0, (d - q * se) / c), rel_high=(d + q * se) / c))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "projected_goal.csv")
with open(path, "w", newline="") as handle:
    writer = csv.DictWriter(handle, fieldnames=list(rows[0].keys()), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: repr(float(v)) if isinstance(v, float) else v for k, v in row.items()})
