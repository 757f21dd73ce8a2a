#!/usr/bin/env python3
"""Reference values of the decision's mid-experiment power (docs/statistics.md, "The decision"),
computed with scipy independently of the Swift code: power(0) and the range of s* (the smallest
s >= 0 with power(s) >= target, and the s where power reaches target + 1e-5; any s between them
is right). Writes power_planning.csv next to this script. Run: python3 make_power_planning.py
"""
import csv
import math
import os

from scipy.optimize import brentq
from scipy.stats import norm


def rho(alpha, tuning):
    return math.sqrt((-2 * math.log(alpha) + math.log(1 - 2 * math.log(alpha))) / tuning)


def power(s, var, n, alpha, mde, tuning):
    sigma = math.sqrt(var / (1 + s))
    if tuning is None:
        h = norm.isf(alpha / 2) * sigma
    else:
        r = rho(alpha, tuning)
        users = n * (1 + s)
        per_user = sigma * sigma * users
        h = math.sqrt(per_user) * math.sqrt(2 * (users * r * r + 1) * math.log(math.sqrt(users * r * r + 1) / alpha) / (users * users * r * r))
    return norm.sf((h - mde) / sigma) + norm.cdf(-(h + mde) / sigma)


def root(f, target):
    hi = 1e-3
    while f(hi) < target:
        hi *= 2
        if hi > 2**27:
            return None
    return brentq(lambda s: f(s) - target, 0, hi, xtol=1e-14, rtol=1e-14)


rows = []
cases = [
    # n_c, m_c, v_c, n_t, m_t, v_t
    (1000, 0.10, 0.09, 1000, 0.11, 0.0979),
    (5000, 2.5, 30.0, 5000, 2.7, 35.0),
    (200, 1.0, 4.0, 220, 1.3, 5.0),
    (50000, 0.05, 0.0475, 50000, 0.052, 0.049296),
    (300, 10.0, 400.0, 310, 10.5, 380.0),
    (20000, 3.0, 90.0, 19000, 3.6, 110.0),
]
for n_c, m_c, v_c, n_t, m_t, v_t in cases:
    var = v_t / (n_t * m_c**2) + m_t**2 * v_c / (n_c * m_c**4)
    n = n_c + n_t
    for treatments in (1, 3):
        for alpha in (0.05, 0.10):
            for mde in (0.05, 0.10, 0.30):
                for target in (0.8, 0.9):
                    for tuning in (None, 5000.0):
                        a = alpha / treatments
                        f = lambda s: power(s, var, n, a, mde, tuning)
                        p0 = f(0)
                        if p0 >= target:
                            low = high = 0.0
                        else:
                            low = root(f, target)
                            high = root(f, min(target + 1e-5, 1 - 1e-12))
                        rows.append(dict(
                            n_c=n_c, m_c=m_c, v_c=v_c, n_t=n_t, m_t=m_t, v_t=v_t, treatments=treatments, alpha=alpha,
                            mde=mde, target=target, tuning="" if tuning is None else tuning, power=repr(float(p0)),
                            s_low="" if low is None else repr(low), s_high="" if high is None else repr(high)))

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "power_planning.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
print(len(rows), "rows")
