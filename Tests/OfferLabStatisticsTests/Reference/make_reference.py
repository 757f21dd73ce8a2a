#!/usr/bin/env python3
"""Reference vectors for the OfferLabStatistics tests.

An implementation independent of the Swift code: every distribution value is computed with
mpmath in 50 significant digits (and again in 80: the two must agree, or the script stops), from
the exact binary value of each double input; scipy 1.17 is a second opinion that must agree
loosely. The contract quantities (comparisons.json) are the formulas of docs/statistics.md
evaluated in the same high precision. The Swift tests read the files this script writes and
never call Python.

Regenerate (from the repository root):

    python3 Tests/OfferLabStatisticsTests/Reference/make_reference.py

Deterministic: fixed grids and a fixed random seed, so an unchanged script rewrites identical
files.
"""

import csv
import json
import math
import os
import random
import sys
from fractions import Fraction

import mpmath as mp
import numpy as np
import scipy
from scipy import integrate, special, stats

OUT = os.path.dirname(os.path.abspath(__file__))
DPS = 50
CHECK_DPS = 80
TAIL_FLOOR = 1e-300  # smallest tail probability written

mp.mp.dps = DPS


def dump(x):
    """Shortest text that reads back as the same double (Python's repr)."""
    if x is None:
        return ""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def high_precision(function, *args):
    """function(*args) at DPS digits, checked against CHECK_DPS digits (a number or a tuple)."""
    with mp.workdps(DPS):
        value = function(*args)
    with mp.workdps(CHECK_DPS):
        check = function(*args)
    values = value if isinstance(value, tuple) else (value,)
    checks = check if isinstance(check, tuple) else (check,)
    for v, c in zip(values, checks):
        scale = max(abs(c), mp.mpf(10) ** -330)
        if abs(v - c) / scale > mp.mpf(10) ** -(DPS - 15):
            raise SystemExit(f"precision check failed for {function.__name__}{args}: {v} vs {c}")
    return value


def write_csv(name, header, rows):
    with open(os.path.join(OUT, name), "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow([dump(v) if not isinstance(v, str) else v for v in row])
    print(f"{name}: {len(rows)} rows", flush=True)


def close(a, b, rel):
    """Loose agreement between mpmath and scipy (a second opinion, not the reference)."""
    a, b = float(a), float(b)
    if a == b:
        return True
    if min(abs(a), abs(b)) < 1e-290:
        return abs(a - b) <= 1e-290 or abs(a - b) <= rel * max(abs(a), abs(b))
    return abs(a - b) <= rel * max(abs(a), abs(b))


SKIPPED_OPINIONS = []


def second_opinion(label, ours, theirs, rel=1e-8):
    """scipy must agree where it has an answer; where it underflows or fails, note it and go on."""
    theirs = float(theirs)
    if not math.isfinite(theirs) or (theirs == 0.0 and float(ours) != 0.0):
        SKIPPED_OPINIONS.append(label)
        return
    if not close(ours, theirs, rel):
        raise SystemExit(f"scipy disagrees on {label}: mpmath {float(ours)!r}, scipy {theirs!r}")


# ------------------------------------------------------------------------------------------
# Special functions in high precision
# ------------------------------------------------------------------------------------------

def extra_digits(estimate):
    """Digits to add so that 1 − (something close to 1) keeps DPS digits of a result near
    `estimate` (a double from scipy; 400 when scipy underflows). Too few would show up as a
    disagreement between the DPS and CHECK_DPS runs, which stops the script."""
    if not (estimate > 0 and math.isfinite(estimate)):
        return 400
    return min(400, max(30, int(-math.log10(estimate)) + 40))


def hypergeometric_series(a, b, x, cap):
    """Σ tₙ with t₀ = 1, tₙ₊₁ = tₙ·(a + b + n)x/(a + 1 + n), i.e. ₂F₁(a + b, 1; a + 1; x), summed
    until the geometric bound on the rest is below the working precision; None after `cap` terms."""
    total = term = mp.mpf(1)
    eps = mp.mpf(10) ** (-mp.mp.dps - 5)
    n = 0
    while n < cap:
        ratio = (a + b + n) * x / (a + 1 + n)
        term *= ratio
        total += term
        n += 1
        bound = max(ratio, x)
        if bound < 1 and term * bound / (1 - bound) < eps * total:
            return total
    return None


def mp_betainc_series(a, b, x, y, cap):
    """I_x(a, b) = xᵃyᵇ/(a·B(a, b))·₂F₁(a + b, 1; a + 1; x) (DLMF 8.17.8), y = 1 − x: positive terms."""
    series = hypergeometric_series(a, b, x, cap)
    if series is None:
        return None
    # The smaller of x and y is the one known to full relative precision: take both logarithms from it.
    log_x = mp.log1p(-y) if y < x else mp.log(x)
    log_y = mp.log1p(-x) if x < y else mp.log(y)
    log_prefactor = a * log_x + b * log_y - mp.log(a) - (mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(a + b))
    return mp.exp(log_prefactor) * series


def mp_betainc(a, b, x, y=None):
    """(I_x(a, b), 1 − I_x(a, b)). The series is summed on the side of the mean where it is the
    smaller tail; when that series is too slow (x within 1e-5 of 1 and below the mean), the other
    side is summed with enough extra digits that the subtraction 1 − it loses nothing."""
    a, b, x = mp.mpf(a), mp.mpf(b), mp.mpf(x)
    y = 1 - x if y is None else mp.mpf(y)  # exact for a double x at these precisions
    if x == 0:
        return mp.mpf(0), mp.mpf(1)
    if y == 0:
        return mp.mpf(1), mp.mpf(0)
    swapped = x > a / (a + b)
    sa, sb, sx, sy = (b, a, y, x) if swapped else (a, b, x, y)
    # The direct series needs about dps·ln(10)/(1 − x) terms; the other side about (a + b)(1 − x).
    direct_terms = mp.mp.dps * 2.31 / sy
    small = mp_betainc_series(sa, sb, sx, sy, 400_000) if direct_terms < 300_000 else None
    if small is None:
        with mp.workdps(mp.mp.dps + extra_digits(float(special.betainc(float(sa), float(sb), float(sx))))):
            large = mp_betainc_series(sb, sa, sy, sx, 20_000_000)
            small = 1 - large
        small = +small
    return (1 - small, small) if swapped else (small, 1 - small)


def mp_beta_density(a, b, x):
    a, b, x = mp.mpf(a), mp.mpf(b), mp.mpf(x)
    return mp.exp((a - 1) * mp.log(x) + (b - 1) * mp.log(1 - x) - (mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(a + b)))


def mp_t_tails(t, nu):
    """(P(T ≤ t), P(T > t)) for Student t with nu degrees of freedom."""
    t, nu = mp.mpf(t), mp.mpf(nu)
    if t == 0:
        return mp.mpf(0.5), mp.mpf(0.5)
    x = nu / (nu + t * t)
    y = t * t / (nu + t * t)
    small, large = mp_betainc(nu / 2, mp.mpf(0.5), x, y)  # I_x(ν/2, ½) is the two-sided tail
    tail = small / 2
    if t > 0:
        return 1 - tail, tail
    return tail, 1 - tail


def mp_t_density(t, nu):
    t, nu = mp.mpf(t), mp.mpf(nu)
    log_c = mp.loggamma((nu + 1) / 2) - mp.loggamma(nu / 2) - mp.log(nu * mp.pi) / 2
    return mp.exp(log_c - (nu + 1) / 2 * mp.log1p(t * t / nu))


def mp_t_upper_quantile(q, nu):
    """The t > 0 with P(T > t) = q: Newton steps on log P(T > eᵘ) − log q in u = log t (derivative
    from the density), halved whenever a step does not reduce the residual."""
    q, nu = mp.mpf(q), mp.mpf(nu)
    guess = float(stats.t.isf(float(q), float(nu)))
    power_tail = mp.sqrt(nu) * mp.exp(-(mp.log(nu) + mp.log(mp.beta(nu / 2, mp.mpf(0.5))) + mp.log(q)) / nu)
    candidates = [mp.log(power_tail)]
    if math.isfinite(guess) and guess > 0:
        candidates.append(mp.log(guess))

    def residual(u):
        return mp.log(mp_t_tails(mp.exp(u), nu)[1]) - mp.log(q)

    u = min(candidates, key=lambda c: abs(residual(c)))
    g = residual(u)
    for _ in range(200):
        t = mp.exp(u)
        tail = mp_t_tails(t, nu)[1]
        step = g * tail / (t * mp_t_density(t, nu))  # −g / g′
        while True:
            candidate = u + step
            g_candidate = residual(candidate)
            if abs(g_candidate) < abs(g) or abs(step) < mp.mpf(10) ** (-mp.mp.dps):
                break
            step /= 2
        u, g = candidate, g_candidate
        if abs(step) < mp.mpf(10) ** (-mp.mp.dps + 3) * max(1, abs(u)):
            return mp.exp(u)
    raise SystemExit(f"t quantile did not converge for q={q}, nu={nu}")


def mp_lower_gamma_series(a, x):
    """P(a, x) = xᵃe⁻ˣ/Γ(a + 1)·Σ xⁿ/((a + 1)…(a + n)) (DLMF 8.7.1): positive terms for every x."""
    total = term = mp.mpf(1)
    eps = mp.mpf(10) ** (-mp.mp.dps - 5)
    n = 0
    while True:
        n += 1
        ratio = x / (a + n)
        term *= ratio
        total += term
        if ratio < 1 and term * ratio / (1 - ratio) < eps * total:
            break
    return mp.exp(a * mp.log(x) - x - mp.loggamma(a + 1)) * total


def mp_gamma_tails(a, x):
    """(P(a, x), Q(a, x)): the series for P; above the mean, Q = 1 − P with 400 extra digits."""
    a, x = mp.mpf(a), mp.mpf(x)
    if x == 0:
        return mp.mpf(0), mp.mpf(1)
    if x <= a:
        lower = mp_lower_gamma_series(a, x)
        return lower, 1 - lower
    with mp.workdps(mp.mp.dps + extra_digits(float(special.gammaincc(float(a), float(x))))):
        upper = 1 - mp_lower_gamma_series(a, x)
    upper = +upper
    return 1 - upper, upper


def mp_normal_tails(x):
    x = mp.mpf(x)
    return mp.ncdf(x), mp.ncdf(-x)


def condition(x, density, tail):
    """|d log tail / d log x|: how much the exact answer moves when x moves by one ulp."""
    if tail == 0:
        return 0.0
    return float(abs(mp.mpf(x) * density / tail))


# ------------------------------------------------------------------------------------------
# Distribution vectors
# ------------------------------------------------------------------------------------------

def normal_vectors(rng):
    xs = {0.0, 1e-300, 1e-10, 0.1, 0.5, 0.6744897, 0.67448975, 0.6744898, 0.7, 1.0, 1.5, 1.959963984540054,
          2.0, 2.5, 3.0, 4.0, 5.0, 5.65685424949238, 5.656854249492381, 5.66, 6.0, 7.0, 8.0, 8.3, 10.0, 15.0,
          20.0, 25.0, 30.0, 35.0, 36.5, 37.0}
    xs |= {-x for x in list(xs)}
    xs |= {rng.uniform(-37.0, 37.0) for _ in range(150)}
    xs |= {rng.uniform(-3.0, 3.0) for _ in range(50)}
    rows = []
    for x in sorted(xs):
        lower, upper = high_precision(mp_normal_tails, x)
        if min(lower, upper) < TAIL_FLOOR:
            continue
        density = high_precision(lambda v: mp.npdf(mp.mpf(v)), x)
        second_opinion(f"norm.cdf({x})", lower, stats.norm.cdf(x), 1e-10)
        second_opinion(f"norm.sf({x})", upper, stats.norm.sf(x), 1e-10)
        kappa = condition(x, density, min(lower, upper))
        rows.append([x, lower, upper, density, kappa])
    write_csv("normal.csv", ["x", "cdf", "sf", "pdf", "condition"], rows)


def normal_quantile_vectors(rng):
    ps = {1e-300, 1e-250, 1e-200, 1e-150, 1e-100, 1e-50, 1e-30, 1e-20, 1e-15, 1e-10, 1e-7, 1e-5, 1e-4, 0.001,
          0.005, 0.01, 0.02, 0.025, 0.05, 0.07, 0.075, 0.0751, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.45, 0.49, 0.5,
          0.51, 0.6, 0.7, 0.8, 0.9, 0.924, 0.925, 0.926, 0.95, 0.975, 0.99, 0.999, 0.9999, 1 - 1e-10}
    ps |= {10 ** rng.uniform(-300, -1) for _ in range(80)}
    ps |= {rng.uniform(0.0, 1.0) for _ in range(40)}
    rows = []
    for p in sorted(ps):
        def q(p):
            p = mp.mpf(p)
            guess = special.ndtri(float(p))
            if p < 0.5:
                return mp.findroot(lambda z: mp.log(mp.ncdf(z)) - mp.log(p), guess)
            return mp.findroot(lambda z: mp.log(mp.ncdf(-z)) - mp.log(1 - p), guess)
        z = high_precision(q, p)
        second_opinion(f"norm.ppf({p})", z, special.ndtri(p), 1e-10)
        rows.append([p, z])
    write_csv("normal_quantile.csv", ["p", "quantile"], rows)


T_DEGREES = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.7, 4.0, 5.0, 7.5, 10.0, 15.2, 30.0, 50.5, 100.0, 1000.0, 12345.678,
             1e5, 1e6, 3.3e6, 1e7, 1e8, 1e9]
T_VALUES = [0.0, 1e-8, 0.001, 0.1, 0.5, 1.0, 1.5, 1.7, 1.8, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 10.0, 20.0, 37.0, 38.0,
            50.0, 100.0, 1e3, 1e5, 1e10, 1e50, 1e100, 1e150, 1e200]


def student_t_vectors(rng):
    rows = []
    for nu in T_DEGREES:
        values = set(T_VALUES) | {-t for t in T_VALUES[1:12]} | {rng.uniform(-6, 6) for _ in range(4)}
        for t in sorted(values):
            lower, upper = high_precision(mp_t_tails, t, nu)
            if min(lower, upper) < TAIL_FLOOR:
                continue
            density = high_precision(mp_t_density, t, nu)
            if nu <= 1e7:
                second_opinion(f"t.sf({t}, {nu})", upper, stats.t.sf(t, nu), 1e-7)
            kappa = condition(t, density, min(lower, upper))
            rows.append([nu, t, lower, upper, density, kappa])
    write_csv("student_t.csv", ["df", "t", "cdf", "sf", "pdf", "condition"], rows)


def student_t_quantile_vectors():
    ps = [1e-300, 1e-100, 1e-20, 1e-10, 1e-6, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.4, 0.49, 0.5, 0.6,
          0.9, 0.975, 0.995, 0.999999]
    rows = []
    for nu in [1.0, 1.3, 2.0, 2.5, 3.0, 4.0, 5.5, 10.0, 29.7, 100.0, 1234.5, 1e5, 1e6, 1e7, 1e8]:
        for p in ps:
            if p == 0.5:
                rows.append([nu, p, 0.0])
                continue

            def q(p, nu):
                return mp_t_upper_quantile(min(p, 1 - p), nu) * (1 if p > 0.5 else -1)
            t = high_precision(q, p, nu)
            if abs(t) > 1e300:
                continue
            if 1e-20 <= p <= 1 - 1e-6:  # scipy's own quantile is unreliable further out
                second_opinion(f"t.ppf({p}, {nu})", t, stats.t.ppf(p, nu), 1e-7)
            rows.append([nu, p, t])
    write_csv("student_t_quantile.csv", ["df", "p", "quantile"], rows)


def chi_squared_vectors():
    rows = []
    for k in [1.0, 2.0, 3.0, 4.5, 5.0, 10.0, 30.0, 100.0, 1000.0, 1e4, 1e5, 1e6, 1e7]:
        sd = math.sqrt(2 * k)
        xs = {k * f for f in [1e-6, 0.01, 0.1, 0.5, 0.9, 1.0, 1.1, 2.0, 5.0]}
        xs |= {k + s * sd for s in [-5, -3, -1, -0.1, 0.1, 1, 3, 10, 30] if k + s * sd > 0}
        xs |= {float(stats.chi2.isf(p, k)) for p in [1e-300, 1e-200, 1e-100, 1e-20, 1e-3]}
        for x in sorted(xs):
            if not (x > 0 and math.isfinite(x)):
                continue
            lower, upper = high_precision(lambda x, k: mp_gamma_tails(mp.mpf(k) / 2, mp.mpf(x) / 2), x, k)
            if min(lower, upper) < TAIL_FLOOR:
                continue
            density = high_precision(
                lambda x, k: mp.exp((mp.mpf(k) / 2 - 1) * mp.log(mp.mpf(x)) - mp.mpf(x) / 2 - mp.mpf(k) / 2 * mp.log(2)
                                    - mp.loggamma(mp.mpf(k) / 2)), x, k)
            second_opinion(f"chi2.sf({x}, {k})", upper, stats.chi2.sf(x, k), 1e-7)
            kappa = condition(x, density, min(lower, upper))
            rows.append([k, x, lower, upper, kappa])
    write_csv("chi_squared.csv", ["df", "x", "cdf", "sf", "condition"], rows)


def incomplete_beta_vectors():
    parameters = [0.01, 0.5, 1.0, 2.5, 10.0, 100.0, 1e3, 1e5, 1e7]
    rows = []
    for a in parameters:
        for b in parameters:
            mean = a / (a + b)
            sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
            xs = {1e-10, 0.001, 0.1, 0.3, 0.5, 0.7, 0.9, 0.999, 1 - 1e-10}
            xs |= {mean + s * sd for s in [-30, -10, -3, -1, -0.1, 0.1, 1, 3, 10, 30]}
            for x in sorted(xs):
                if not (0 < x < 1):
                    continue
                lower, upper = high_precision(mp_betainc, a, b, x)
                if min(lower, upper) < TAIL_FLOOR:
                    continue
                density = high_precision(mp_beta_density, a, b, x)
                second_opinion(f"betainc({a}, {b}, {x})", lower, special.betainc(a, b, x),
                               1e-6 if max(a, b) < 1e5 else 1e-2)
                # Both x and 1 − x enter; the condition number is taken with respect to the smaller.
                kappa = condition(min(x, 1 - x), density, min(lower, upper))
                rows.append([a, b, x, lower, upper, kappa])
    write_csv("incomplete_beta.csv", ["a", "b", "x", "lower", "upper", "condition"], rows)


def incomplete_gamma_vectors():
    rows = []
    for a in [0.01, 0.5, 1.0, 1.5, 2.5, 10.0, 100.0, 1e3, 1e5, 1e7]:
        sd = math.sqrt(a)
        xs = {1e-10, 0.01, 0.5, 1.0, 2.0, 10.0, 100.0, 700.0}
        xs |= {a + s * sd for s in [-30, -10, -3, -1, -0.1, 0.1, 1, 3, 10, 30]}
        xs |= {a + 1}
        for x in sorted(xs):
            if not x > 0:
                continue
            lower, upper = high_precision(mp_gamma_tails, a, x)
            if min(lower, upper) < TAIL_FLOOR:
                continue
            density = high_precision(
                lambda a, x: mp.exp((mp.mpf(a) - 1) * mp.log(mp.mpf(x)) - mp.mpf(x) - mp.loggamma(mp.mpf(a))), a, x)
            # scipy's gammainc is only good to about 1e-3 for a ≥ 10⁶ (checked against mpmath's quad).
            second_opinion(f"gammainc({a}, {x})", lower, special.gammainc(a, x), 1e-6 if a < 1e5 else 1e-2)
            kappa = condition(x, density, min(lower, upper))
            rows.append([a, x, lower, upper, kappa])
    write_csv("incomplete_gamma.csv", ["a", "x", "lower", "upper", "condition"], rows)


def log_gamma_vectors():
    xs = [1e-300, 1e-100, 1e-10, 1e-3, 0.1, 0.5, 0.9, 1.0, 1.1, 1.5, 1.9, 2.0, 2.1, 2.5, 3.0, 7.3, 10.0, 15.0, 15.5,
          16.0, 100.5, 1e3, 1e5, 1e7, 1e10, 1e100, 1e300]
    rows = []
    for x in xs:
        value = high_precision(lambda x: mp.loggamma(mp.mpf(x)), x)
        second_opinion(f"gammaln({x})", value, special.gammaln(x), 1e-9) if abs(value) > 1e-3 else None
        rows.append([x, value])
    write_csv("log_gamma.csv", ["x", "log_gamma"], rows)


# ------------------------------------------------------------------------------------------
# Contract quantities (docs/statistics.md), in high precision
# ------------------------------------------------------------------------------------------

VARIANCE_NOISE_FLOOR = mp.mpf("1e-12")


def mp_normal_upper_quantile(q):
    """z with P(Z > z) = q."""
    q = mp.mpf(q)
    return mp.sqrt(2) * mp.erfinv(1 - 2 * q) if q > mp.mpf("1e-10") else mp.findroot(
        lambda z: mp.log(mp.ncdf(-z)) - mp.log(q), -special.ndtri(float(q)))


def mp_wilson(x, n, alpha):
    x, n = mp.mpf(x), mp.mpf(n)
    z = mp_normal_upper_quantile(mp.mpf(alpha) / 2)
    p = x / n
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * mp.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # At x = 0 and x = n the formula's ends are exactly 0 and 1 (its terms cancel).
    low = mp.mpf(0) if x == 0 else center - half
    high = mp.mpf(1) if x == n else center + half
    return low, high


def wilson_vectors():
    cases = [(0, 1), (1, 1), (0, 2), (1, 2), (2, 2), (0, 10), (3, 10), (10, 10), (1, 1000), (500, 10000),
             (9999, 10000), (0, 100_000_000), (5_000_000, 100_000_000), (100_000_000, 100_000_000), (1, 100_000_000)]
    rows = []
    for alpha in [0.05, 0.01, 0.1, 1e-6]:
        for x, n in cases:
            low, high = high_precision(mp_wilson, x, n, alpha)
            ci = stats.binomtest(x, n).proportion_ci(confidence_level=1 - alpha, method="wilson")
            second_opinion(f"wilson low {x}/{n}", low, ci.low, 1e-9) if low > 1e-12 else None
            second_opinion(f"wilson high {x}/{n}", high, ci.high, 1e-9)
            rows.append([x, n, alpha, low, high])
    write_csv("wilson.csv", ["successes", "trials", "alpha", "low", "high"], rows)


def mp_chance_to_beat(xt, nt, xc, nc):
    """P(p_t > p_c) for p ~ Beta(1 + x, 1 + n − x): the exact finite sum of Evan Miller's formula,
    Σ_{i < α_t} B(α_c + i, β_c + β_t)/((β_t + i)·B(1 + i, β_t)·B(α_c, β_c)), whose terms are positive
    and unimodal in i: summed outward from the largest term until the rest is negligible."""
    at, bt = mp.mpf(1 + xt), mp.mpf(1 + nt - xt)
    ac, bc = mp.mpf(1 + xc), mp.mpf(1 + nc - xc)

    def log_beta(a, b):
        return mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(a + b)

    def log_term(i):
        return log_beta(ac + i, bc + bt) - mp.log(bt + i) - log_beta(1 + i, bt) - log_beta(ac, bc)

    def ratio(i):  # term(i + 1)/term(i)
        return (ac + i) * (bt + i) / ((ac + bc + bt + i) * (1 + i))

    last = int(at) - 1
    peak = int(mp.floor((ac * bt - (ac + bc + bt)) / (bc + 1)))
    peak = min(max(peak, 0), last)
    eps = mp.mpf(10) ** (-mp.mp.dps - 5)
    first = mp.exp(log_term(peak))
    total = first
    term, i = first, peak  # upward
    while i < last:
        term *= ratio(i)
        i += 1
        total += term
        if term < eps * total:
            break
    term, i = first, peak  # downward
    while i > 0:
        i -= 1
        term /= ratio(i)
        total += term
        if term < eps * total:
            break
    return total


def scipy_chance_to_beat(xt, nt, xc, nc):
    """Second opinion: ∫ f_t(p)·F_c(p) dp with scipy's beta (Boost) and adaptive quadrature."""
    treatment = stats.beta(1 + xt, 1 + nt - xt)
    control = stats.beta(1 + xc, 1 + nc - xc)
    a, b = 1.0 + xt, 1.0 + nt - xt  # moments by formula: scipy's std() overflows for 10⁸ users
    mean, sd = a / (a + b), math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    low, high = max(0.0, mean - 40 * sd), min(1.0, mean + 40 * sd)
    points = [mean + k * sd for k in range(-8, 9) if low < mean + k * sd < high]
    value, _ = integrate.quad(lambda p: treatment.pdf(p) * control.cdf(p), low, high, points=points, limit=500,
                              epsabs=1e-13, epsrel=1e-12)
    return value


CHANCE_CASES = [
    (0, 1, 0, 1), (1, 1, 0, 1), (0, 10, 0, 10), (2, 10, 1, 10), (0, 2, 2, 2), (60, 1000, 50, 1000),
    (560, 10000, 500, 10000), (500, 10000, 560, 10000), (100, 100, 95, 100), (95, 100, 100, 100),
    (1, 1_000_000, 0, 1_000_000), (1000, 10000, 10, 100), (3, 7, 100_000, 200_000), (40, 50, 30, 60),
    (1_001_000, 10_000_000, 1_000_000, 10_000_000), (1_000_000, 20_000_000, 1_000_000, 20_000_000),
    (5_010_000, 100_000_000, 5_000_000, 100_000_000), (1_000_000, 1_000_000, 999_999, 1_000_000),
    (0, 100_000_000, 0, 50_000_000), (12, 100_000_000, 3, 1000), (250_000, 1_000_000, 249_000, 1_000_000),
]


def chance_to_beat_vectors():
    rows = []
    for xt, nt, xc, nc in CHANCE_CASES:
        value = high_precision(mp_chance_to_beat, xt, nt, xc, nc)
        second_opinion(f"chance {xt}/{nt} vs {xc}/{nc}", value, scipy_chance_to_beat(xt, nt, xc, nc), 1e-6) \
            if value > 1e-6 else None
        rows.append([xt, nt, xc, nc, value])
    write_csv("chance_to_beat.csv", ["treatment_converters", "treatment_users", "control_converters",
                                     "control_users", "probability"], rows)


def holm_vectors():
    """Holm–Bonferroni by its definition: sort, scale by m − rank, running maximum, cap at 1."""
    lists = [[0.01], [0.01, 0.04], [0.04, 0.01], [0.01, 0.02, 0.03], [0.03, 0.01, 0.02, 0.5],
             [0.2, 0.2, 0.2], [0.001, 0.001, 0.04, 0.04, 0.9], [1e-200, 0.3, 1e-5], [0.6, 0.7, 0.8], [0.0, 1.0]]
    rows = []
    for index, values in enumerate(lists):
        m = len(values)
        order = sorted(range(m), key=lambda i: (values[i], i))
        adjusted = [0.0] * m
        running = mp.mpf(0)
        for rank, i in enumerate(order):
            running = max(running, min(mp.mpf(1), (m - rank) * mp.mpf(values[i])))
            adjusted[i] = running
        for i in range(m):
            rows.append([index, values[i], adjusted[i]])
    write_csv("holm.csv", ["list", "p", "adjusted"], rows)


def group_from_prices(name, users, prices, weight=1.0, control=False):
    """A group whose converters paid the given {price: count}; everybody else has 0 net revenue.
    Σx and Σx² are exact sums rounded once to double, as a careful pipeline would produce them."""
    converters = sum(count for price, count in prices.items() if price != 0)
    revenue_sum = float(mp.fsum(mp.mpf(price) * count for price, count in prices.items()))
    revenue_squares = float(mp.fsum(mp.mpf(price) ** 2 * count for price, count in prices.items()))
    assert converters <= users
    return {"name": name, "is_control": control, "weight": weight, "users": users, "converters": converters,
            "revenue_sum": revenue_sum, "revenue_sum_squares": revenue_squares}


def mp_variance(g):
    n = g["users"]
    if n < 2:
        return None
    s1, s2 = mp.mpf(g["revenue_sum"]), mp.mpf(g["revenue_sum_squares"])
    centered = s2 - s1 * s1 / n
    if centered <= VARIANCE_NOISE_FLOOR * s2:
        return mp.mpf(0)
    return centered / (n - 1)


def mp_summary(g, alpha):
    n, x = g["users"], g["converters"]
    s1 = mp.mpf(g["revenue_sum"])
    variance = mp_variance(g)
    low, high = mp_wilson(x, n, alpha) if n > 0 else (None, None)
    return {
        "conversion_rate": mp.mpf(x) / n if n > 0 else None,
        "conversion_ci_low": low,
        "conversion_ci_high": high,
        "arpu": s1 / n if n > 0 else None,
        "arpu_sd": mp.sqrt(variance) if variance is not None else None,
        "arppu": s1 / x if x > 0 else None,
    }


# ------------------------------------------------------------------------------------------
# Sequential (always-valid) inference, transcribed from the formulas of
# docs/statistics.md#sequential-always-valid-inference
# ------------------------------------------------------------------------------------------

SEQUENTIAL_KEYS = ["seq_abs_lift_ci_low", "seq_abs_lift_ci_high", "seq_rel_lift_ci_low", "seq_rel_lift_ci_high",
                   "seq_p_value", "seq_p_value_adjusted", "seq_significant"]
DEFAULT_TUNING = 5000


def mp_seq_rho(alpha, tuning):
    """ρ = √((−2 ln α + ln(1 − 2 ln α)) / N*)."""
    alpha, tuning = mp.mpf(alpha), mp.mpf(tuning)
    return mp.sqrt((-2 * mp.log(alpha) + mp.log(1 - 2 * mp.log(alpha))) / tuning)


def mp_seq_half_width(se, n, rho, alpha):
    """h = √s² · √(2(nρ²+1) ln(√(nρ²+1)/α) / (n²ρ²)), s² = se²·n: as
    docs/statistics.md#sequential-always-valid-inference writes it."""
    se, n, alpha = mp.mpf(se), mp.mpf(n), mp.mpf(alpha)
    s2 = se ** 2 * n
    return mp.sqrt(s2) * mp.sqrt(2 * (n * rho ** 2 + 1) * mp.log(mp.sqrt(n * rho ** 2 + 1) / alpha) / (n ** 2 * rho ** 2))


def mp_seq_p_value(estimate, se, n, rho):
    """p = min(1, √(nρ²+1) · exp(−ρ² n z² / (2(nρ²+1)))), z = estimate/se."""
    estimate, se, n = mp.mpf(estimate), mp.mpf(se), mp.mpf(n)
    z2 = (estimate / se) ** 2
    return min(mp.mpf(1), mp.sqrt(n * rho ** 2 + 1) * mp.exp(-rho ** 2 * n * z2 / (2 * (n * rho ** 2 + 1))))


def float_seq(estimate, se, n, alpha, tuning):
    """The same three formulas in plain doubles (numpy), term by term: the second opinion."""
    rho = np.sqrt((-2 * np.log(alpha) + np.log(1 - 2 * np.log(alpha))) / tuning)
    nr = np.float64(n) * rho ** 2
    half = np.sqrt(se ** 2 * n) * np.sqrt(2 * (nr + 1) * np.log(np.sqrt(nr + 1) / alpha) / (np.float64(n) ** 2 * rho ** 2))
    p = min(1.0, np.sqrt(nr + 1) * np.exp(-nr * (estimate / se) ** 2 / (2 * (nr + 1))))
    return rho, half, p


def sequential_vectors():
    """ρ, the half-width and the p-value over α ∈ {0.01, 0.05, 0.10}, N* from 100 to 10⁶, n from 1
    to 2·10⁸ and z from 0 to 40 (p-values from 1 down to 1e-300), plus z at the boundary where
    the p-value is α (0 exactly on the interval's edge)."""
    rows = []
    for alpha in [0.01, 0.05, 0.10]:
        for tuning in [100.0, 5000.0, 123456.0, 1e6]:
            for n in [1, 2, 3, 10, 1000, 5000, 1_000_000, 100_000_000, 200_000_000]:
                for se in [1e-7, 0.0137, 2.5]:
                    rho = high_precision(mp_seq_rho, alpha, tuning)
                    half = high_precision(lambda se, n: mp_seq_half_width(se, n, mp_seq_rho(alpha, tuning), alpha), se, n)
                    for z in [0.0, 0.5, 2.0, 4.0, 8.0, 40.0, "edge"]:
                        estimate = float(half) if z == "edge" else z * se
                        p = high_precision(lambda e, se, n: mp_seq_p_value(e, se, n, mp_seq_rho(alpha, tuning)), estimate, se, n)
                        if p < TAIL_FLOOR:
                            continue
                        f_rho, f_half, f_p = float_seq(estimate, se, n, alpha, tuning)
                        second_opinion(f"rho({alpha}, {tuning})", rho, f_rho, 1e-13)
                        second_opinion(f"half width({alpha}, {tuning}, {n}, {se})", half, f_half, 1e-12)
                        # A double's z² carries its rounding into the exponent: relative error about z²·ε.
                        second_opinion(f"seq p({alpha}, {tuning}, {n}, {se}, {estimate})", p, f_p,
                                       1e-9 * max(1.0, (estimate / se) ** 2))
                        rows.append([alpha, tuning, n, se, estimate, rho, half, p])
    write_csv("sequential.csv", ["alpha", "tuning", "n", "se", "estimate", "rho", "half_width", "p_value"], rows)


def mp_sequential(row, mc, vc, nc, mt, vt, nt, alpha, tuning):
    """The seq_… values of a comparison row whose fixed-horizon values are set
    (docs/statistics.md#sequential-always-valid-inference): each is empty where its fixed
    counterpart is, or where its standard error is 0."""
    rho = mp_seq_rho(alpha, tuning)
    n = nc + nt
    se_abs = mp.sqrt(vt / nt + vc / nc)
    if row["abs_lift_ci_low"] is not None and se_abs > 0:
        half = mp_seq_half_width(se_abs, n, rho, alpha)
        row["seq_abs_lift_ci_low"], row["seq_abs_lift_ci_high"] = mt - mc - half, mt - mc + half
    if row["rel_lift_ci_low"] is not None:
        se_rel = mp.sqrt(vt / (nt * mc ** 2) + mt ** 2 * vc / (nc * mc ** 4))
        if se_rel > 0:
            half = mp_seq_half_width(se_rel, n, rho, alpha)
            row["seq_rel_lift_ci_low"], row["seq_rel_lift_ci_high"] = row["rel_lift"] - half, row["rel_lift"] + half
    if row["p_value"] is not None and se_abs > 0:
        row["seq_p_value"] = mp_seq_p_value(mt - mc, se_abs, n, rho)


def empty_row(group, control, metric):
    row = {key: None for key in ["control_value", "value", "abs_lift", "abs_lift_ci_low", "abs_lift_ci_high",
                                  "rel_lift", "rel_lift_ci_low", "rel_lift_ci_high", "p_value", "p_value_adjusted",
                                  "significant", "chance_to_beat_control", "mde_abs"] + SEQUENTIAL_KEYS}
    row.update({"group": group["name"], "control_group": control["name"], "metric": metric})
    return row


def mp_relative(mc, vc, nc, mt, vt, nt, z):
    if mc == 0:
        return None, None, None
    rel = mt / mc - 1
    se = mp.sqrt(vt / (nt * mc ** 2) + mt ** 2 * vc / (nc * mc ** 4))
    return rel, rel - z * se, rel + z * se


def mp_conversion_row(control, treatment, alpha, tuning):
    row = empty_row(treatment, control, "conversion")
    nc, xc, nt, xt = control["users"], control["converters"], treatment["users"], treatment["converters"]
    row["control_value"] = mp.mpf(xc) / nc if nc > 0 else None
    row["value"] = mp.mpf(xt) / nt if nt > 0 else None
    if nc == 0 or nt == 0:
        return row
    z = mp_normal_upper_quantile(mp.mpf(alpha) / 2)
    pc, pt = mp.mpf(xc) / nc, mp.mpf(xt) / nt
    vc, vt = pc * (1 - pc), pt * (1 - pt)
    row["abs_lift"] = pt - pc
    half = z * mp.sqrt(vt / nt + vc / nc)
    row["abs_lift_ci_low"], row["abs_lift_ci_high"] = pt - pc - half, pt - pc + half
    row["rel_lift"], row["rel_lift_ci_low"], row["rel_lift_ci_high"] = mp_relative(pc, vc, nc, pt, vt, nt, z)
    pooled = mp.mpf(xc + xt) / (nc + nt)
    se = mp.sqrt(pooled * (1 - pooled) * (mp.mpf(1) / nt + mp.mpf(1) / nc))
    row["p_value"] = mp.mpf(1) if se == 0 else 2 * mp.ncdf(-abs((pt - pc) / se))
    row["chance_to_beat_control"] = mp_chance_to_beat(xt, nt, xc, nc)
    z80 = -mp_normal_upper_quantile(mp.mpf("0.8"))
    row["mde_abs"] = (z + z80) * mp.sqrt(vc * (mp.mpf(1) / nt + mp.mpf(1) / nc))
    mp_sequential(row, pc, vc, nc, pt, vt, nt, alpha, tuning)
    return row


def mp_arpu_row(control, treatment, alpha, tuning):
    row = empty_row(treatment, control, "arpu")
    nc, nt = control["users"], treatment["users"]
    row["control_value"] = mp.mpf(control["revenue_sum"]) / nc if nc > 0 else None
    row["value"] = mp.mpf(treatment["revenue_sum"]) / nt if nt > 0 else None
    if nc < 2 or nt < 2:
        return row
    z = mp_normal_upper_quantile(mp.mpf(alpha) / 2)
    mc, mt = row["control_value"], row["value"]
    vc, vt = mp_variance(control), mp_variance(treatment)
    row["abs_lift"] = mt - mc
    row["rel_lift"], row["rel_lift_ci_low"], row["rel_lift_ci_high"] = mp_relative(mc, vc, nc, mt, vt, nt, z)
    se2 = vt / nt + vc / nc
    if se2 == 0:
        mp_sequential(row, mc, vc, nc, mt, vt, nt, alpha, tuning)
        return row
    df = se2 ** 2 / ((vt / nt) ** 2 / (nt - 1) + (vc / nc) ** 2 / (nc - 1))
    t = (mt - mc) / mp.sqrt(se2)
    row["p_value"] = 2 * mp_t_tails(abs(t), df)[1]
    quantile = mp_t_upper_quantile(mp.mpf(alpha) / 2, df)
    half = quantile * mp.sqrt(se2)
    row["abs_lift_ci_low"], row["abs_lift_ci_high"] = mt - mc - half, mt - mc + half
    row["chance_to_beat_control"] = mp.ncdf(t)
    second_opinion(f"welch {treatment['name']}", row["p_value"], stats.ttest_ind_from_stats(
        float(mt), math.sqrt(float(vt)), nt, float(mc), math.sqrt(float(vc)), nc, equal_var=False).pvalue, 1e-6) \
        if row["p_value"] > 1e-250 else None
    mp_sequential(row, mc, vc, nc, mt, vt, nt, alpha, tuning)
    return row


def mp_srm(groups):
    total = sum(g["users"] for g in groups)
    weight_total = mp.fsum(mp.mpf(g["weight"]) for g in groups)
    if total == 0 or weight_total == 0:
        return None
    chi2 = mp.mpf(0)
    positive = 0
    for g in groups:
        w = mp.mpf(g["weight"])
        if w > 0:
            positive += 1
            expected = total * w / weight_total
            chi2 += (g["users"] - expected) ** 2 / expected
        elif g["users"] > 0:
            chi2 = mp.inf
    df = positive - 1
    if chi2 == mp.inf:
        p = mp.mpf(0)
    elif df == 0 or chi2 == 0:
        p = mp.mpf(1)
    else:
        p = mp_gamma_tails(mp.mpf(df) / 2, chi2 / 2)[1]
        if df > 0 and all(g["weight"] > 0 for g in groups):
            expected = [float(total * mp.mpf(g["weight"]) / weight_total) for g in groups]
            second_opinion("chisquare", p, stats.chisquare([g["users"] for g in groups], expected).pvalue, 1e-6)
    return {"chi2": chi2, "df": df, "p_value": p, "flag": p < mp.mpf("0.001")}


def mp_holm(rows, p_key, adjusted_key, significant_key, alpha):
    rows = [r for r in rows if r[p_key] is not None]
    m = len(rows)
    order = sorted(range(m), key=lambda i: (rows[i][p_key], i))
    running = mp.mpf(0)
    for rank, i in enumerate(order):
        running = max(running, min(mp.mpf(1), (m - rank) * rows[i][p_key]))
        rows[i][adjusted_key] = running
        rows[i][significant_key] = bool(running < mp.mpf(alpha))


def mp_analysis(groups, alpha, tuning=DEFAULT_TUNING):
    control = next(g for g in groups if g["is_control"])
    comparisons = []
    for g in groups:
        if g["is_control"]:
            continue
        comparisons.append(mp_conversion_row(control, g, alpha, tuning))
        comparisons.append(mp_arpu_row(control, g, alpha, tuning))
    for metric in ["conversion", "arpu"]:
        family = [r for r in comparisons if r["metric"] == metric]
        mp_holm(family, "p_value", "p_value_adjusted", "significant", alpha)
        mp_holm(family, "seq_p_value", "seq_p_value_adjusted", "seq_significant", alpha)
    return {"summaries": [mp_summary(g, alpha) for g in groups], "comparisons": comparisons, "srm": mp_srm(groups)}


def encode(value):
    """JSON: numbers as their shortest round-trip text, so the Swift side reads the exact double."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [encode(v) for v in value]
    return dump(value)


def offering_cases():
    g = group_from_prices
    prices_c = {4.99: 300, 9.99: 150, 49.99: 50}
    prices_t = {4.99: 280, 9.99: 200, 49.99: 80}
    return [
        ("ordinary two groups", 0.05, [g("control", 10000, prices_c, control=True), g("annual_first", 10000, prices_t)]),
        ("ordinary, alpha 0.01, weights 0.5/0.25/0.25", 0.01, [
            g("control", 20000, {4.99: 600, 9.99: 300, 49.99: 100}, 0.5, True),
            g("b", 10000, {4.99: 250, 9.99: 180, 49.99: 70}, 0.25), g("c", 10000, {4.99: 320, 9.99: 140}, 0.25)]),
        ("Holm over four treatments", 0.05, [
            g("control", 50000, {9.99: 2500}, 2, True), g("t1", 25000, {9.99: 1400}, 1),
            g("t2", 25000, {9.99: 1260}, 1), g("t3", 25000, {9.99: 1250, 19.99: 10}, 1),
            g("t4", 25000, {9.99: 1100, 99.99: 40}, 1)]),
        ("control with 0 users", 0.05, [g("control", 0, {}, control=True), g("t", 100, {9.99: 5})]),
        ("treatment with 0 users", 0.05, [g("control", 100, {9.99: 5}, control=True), g("t", 0, {})]),
        ("one user each", 0.05, [g("control", 1, {9.99: 1}, control=True), g("t", 1, {})]),
        ("n = 2", 0.05, [g("control", 2, {9.99: 1}, control=True), g("t", 2, {9.99: 1, 4.99: 1})]),
        ("zero variance in the control", 0.05, [g("control", 500, {}, control=True), g("t", 500, {9.99: 20})]),
        ("zero variance in both groups", 0.05, [g("control", 500, {}, control=True), g("t", 700, {})]),
        ("every user paid the same", 0.05, [g("control", 300, {9.99: 300}, control=True), g("t", 400, {9.99: 400})]),
        ("control mean 0", 0.05, [g("control", 1000, {}, control=True), g("t", 1000, {4.99: 3})]),
        ("negative control ARPU (refunds)", 0.05, [
            g("control", 1000, {-9.99: 30, 9.99: 10}, control=True), g("t", 1000, {9.99: 25, -9.99: 5})]),
        ("single group", 0.05, [g("control", 1234, {9.99: 50}, control=True)]),
        ("weight 0 without users", 0.05, [
            g("control", 5000, {9.99: 250}, 1, True), g("paused", 0, {}, 0), g("t", 5050, {9.99: 270}, 1)]),
        ("weight 0 with users", 0.05, [
            g("control", 5000, {9.99: 250}, 1, True), g("leak", 3, {9.99: 1}, 0), g("t", 5050, {9.99: 270}, 1)]),
        ("huge n = 10^8", 0.05, [
            g("control", 100_000_000, {9.99: 4_000_000, 49.99: 1_000_000}, control=True),
            g("t", 100_000_000, {9.99: 4_002_000, 49.99: 1_008_000})]),
        ("p near 0 (1e-149, not 0)", 0.05, [g("control", 1_000_000, {9.99: 10_000}, control=True),
                                             g("t", 1_000_000, {9.99: 13_000, 99.99: 1000})]),
        ("p near 1", 0.05, [g("control", 20000, {9.99: 1000}, control=True), g("t", 20000, {9.99: 1000, 4.99: 1})]),
        ("sample ratio mismatch", 0.05, [g("control", 10000, {9.99: 500}, 50, True), g("t", 10600, {9.99: 530}, 50)]),
        ("all users converted", 0.05, [g("control", 50, {9.99: 40, 4.99: 10}, control=True),
                                       g("t", 60, {9.99: 60})]),
        # docs/statistics.md#sequential-always-valid-inference: the sequential values at other
        # alphas and tunings, and where they alone are empty.
        ("alpha 0.10, three treatments, N* 20000", 0.10, [
            g("control", 8000, {9.99: 400, 49.99: 40}, control=True), g("t1", 8000, {9.99: 470, 49.99: 45}),
            g("t2", 8000, {9.99: 390, 49.99: 80}), g("t3", 8000, {9.99: 405})], 20000),
        ("alpha 0.01, N* 100 (tight early, wide late)", 0.01, [
            g("control", 30000, {9.99: 900}, control=True), g("t", 30000, {9.99: 1100})], 100),
        ("no converters in either group: fixed p = 1, sequential empty", 0.05, [
            g("control", 400, {}, control=True), g("t", 400, {})]),
        ("every user converted in both groups", 0.05, [
            g("control", 30, {9.99: 30}, control=True), g("t", 40, {4.99: 40})]),
        ("huge n = 10^8, alpha 0.01, N* 10^6", 0.01, [
            g("control", 100_000_000, {9.99: 4_000_000}, control=True),
            g("t", 100_000_000, {9.99: 4_010_000})], 1_000_000),
    ]


def comparison_vectors():
    cases = []
    for name, alpha, groups, *tuning in offering_cases():
        tuning = tuning[0] if tuning else DEFAULT_TUNING
        expected = high_precision_analysis(groups, alpha, tuning)
        cases.append({"name": name, "alpha": dump(alpha), "sequential_tuning": dump(tuning), "groups": encode(groups),
                      "expected": encode(expected)})
    with open(os.path.join(OUT, "comparisons.json"), "w") as handle:
        json.dump(cases, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    print(f"comparisons.json: {len(cases)} offerings")


def high_precision_analysis(groups, alpha, tuning):
    with mp.workdps(DPS):
        value = mp_analysis(groups, alpha, tuning)
    with mp.workdps(CHECK_DPS):
        check = mp_analysis(groups, alpha, tuning)
    # Relative 1e-30, or absolute 1e-40 for differences of nearly equal means.
    for row, other in zip(value["comparisons"], check["comparisons"]):
        for key, v in row.items():
            if isinstance(v, mp.mpf) and abs(v - other[key]) > max(mp.mpf("1e-30") * abs(v), mp.mpf("1e-40")):
                raise SystemExit(f"precision check failed in comparisons: {row['group']} {key}: {v} vs {other[key]}")
    return value


def exact_sum_of(values):
    """The double nearest to the exact sum (ties to even), two ways that must agree: rational
    arithmetic (`float` of a `Fraction` rounds correctly) and Shewchuk's partials (`math.fsum`)."""
    exact = float(sum((Fraction(v) for v in values), Fraction(0)))
    try:
        partials = math.fsum(values)
    except OverflowError:  # fsum gives up when a partial sum passes the largest double
        return exact
    if partials != exact:
        raise SystemExit(f"fsum and Fraction disagree on {values[:4]}...")
    return exact


def exact_sum_vectors(rng):
    """Lists of doubles and the double nearest to their exact sum: cancellations, ties, both ends
    of the exponent range, and per-user revenues like the pipeline's (prices in micro-units
    times rates, refunds negative) with their squares."""
    maximum = sys.float_info.max
    tiny = 5e-324
    cases = [
        ("cancellation", [1e16, 1.0, -1e16]),
        ("a tie, to even", [2.0**53, 1.0]),
        ("just above a tie", [2.0**53, 1.0, 2.0**-60]),
        ("just below a tie", [2.0**53, 1.0, -(2.0**-60)]),
        ("a tie far below the leading bit", [2.0**100, 2.0**47, 2.0**-900]),
        ("tenths", [0.1, 0.2, -0.3]),
        ("subnormals", [tiny, tiny, tiny]),
        ("subnormals into normals", [2.2250738585072009e-308, tiny, tiny]),
        ("the largest double cancelled", [maximum, 1.0, -maximum]),
        ("past the largest double and back", [maximum, maximum, -maximum]),
        ("both ends", [1e300, 1.0, -1e300, 1e-300]),
        ("negative", [-4.99, -9.99, 1.0]),
        ("zero", [0.0, -0.0, 3.5, -3.5]),
    ]
    spread = [rng.choice([-1, 1]) * rng.random() * 2.0 ** rng.randint(-1074, 1000) for _ in range(1000)]
    cases.append(("random magnitudes and signs", spread))
    pairs = [rng.uniform(-1e6, 1e6) for _ in range(500)]
    cancelling = pairs + [-v for v in pairs] + [1e-20]
    rng.shuffle(cancelling)
    cases.append(("values and their negations, shuffled, and one tiny value", cancelling))
    prices = [0.99, 4.99, 9.99, 49.99, 59.99, 119.99]
    rates = [1.0, 1.08, 1.27, 0.0067, 0.013]
    revenues = []
    for _ in range(2000):
        rate = rng.choice(rates)
        micros = sum(round(rng.choice(prices) * 1_000_000) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.05:
            micros -= round(rng.choice(prices) * 1_000_000)
        revenues.append(micros / 1_000_000 * rate)
    cases.append(("per-user revenues", revenues))
    cases.append(("their squares", [v * v for v in revenues]))
    rows = [{"name": name, "values": encode(values), "sum": dump(exact_sum_of(values))} for name, values in cases]
    with open(os.path.join(OUT, "exact_sum.json"), "w") as handle:
        json.dump(rows, handle, indent=1)
        handle.write("\n")
    print(f"exact_sum.json: {len(rows)} lists")


SECTIONS = {
    "normal": lambda rng: normal_vectors(rng),
    "normal_quantile": lambda rng: normal_quantile_vectors(rng),
    "student_t": lambda rng: student_t_vectors(rng),
    "student_t_quantile": lambda rng: student_t_quantile_vectors(),
    "chi_squared": lambda rng: chi_squared_vectors(),
    "incomplete_beta": lambda rng: incomplete_beta_vectors(),
    "incomplete_gamma": lambda rng: incomplete_gamma_vectors(),
    "log_gamma": lambda rng: log_gamma_vectors(),
    "wilson": lambda rng: wilson_vectors(),
    "chance_to_beat": lambda rng: chance_to_beat_vectors(),
    "holm": lambda rng: holm_vectors(),
    "sequential": lambda rng: sequential_vectors(),
    "comparisons": lambda rng: comparison_vectors(),
    "exact_sum": exact_sum_vectors,
}


def main():
    """Writes every file, or only the sections named on the command line."""
    print(f"scipy {scipy.__version__}, numpy {np.__version__}, mpmath {mp.__version__}")
    wanted = sys.argv[1:] or list(SECTIONS)
    for name in wanted:
        if name not in SECTIONS:
            raise SystemExit(f"unknown section {name}; known: {', '.join(SECTIONS)}")
    for name, section in SECTIONS.items():
        # Each section draws from its own seeded generator, so running one alone writes the same file.
        if name in wanted:
            section(random.Random(f"offerlab-{name}"))
    print(f"scipy had no answer (underflow or failure) for {len(SKIPPED_OPINIONS)} values; mpmath stands alone there")


if __name__ == "__main__":
    main()
