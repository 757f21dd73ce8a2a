#!/usr/bin/env python3
"""A/A simulation: how often a test with no true difference is ever called significant when
its report is read every night, with the fixed-horizon p-value and with the sequential
(always-valid) one of docs/statistics.md#sequential-always-valid-inference. The table it
prints is in docs/statistics.md.

Each simulated experiment has a control and one variant drawn from the same population: every
night `--users` new users join each group (Poisson), a user converts with probability 5%, and a
converter pays one price, mostly small, sometimes large (revenue per user: skewed, mostly
zeros). Every night, from the cumulative per-group sufficient statistics (users, converters,
Σx, Σx²) as `offerlab run` would compute them, both metrics are tested as docs/statistics.md says
("Each treatment against control", "Sequential (always-valid) inference"):
conversion with the pooled z-test, revenue per user with Welch's t-test, and the sequential
p-value on the unpooled standard error. An experiment is "ever significant" when any of its
30 nights has p < alpha. Its price: the sequential interval's width over the fixed one on the
last night.

Independent of the Swift code (numpy/scipy from the formulas of docs/statistics.md); the Swift test
`SequentialFalsePositiveTests` runs a smaller seeded version through `analyzeOffering`.

    python3 scripts/aa-simulation.py                  # the documented table (about 30 s on one core)
    python3 scripts/aa-simulation.py --experiments 2000 --seed 7
"""

import argparse
import math

import numpy as np
from scipy import stats

PRICES = np.array([4.99, 9.99, 49.99, 199.99])
PRICE_SHARES = np.array([0.60, 0.30, 0.09, 0.01])
CONVERSION = 0.05


def simulate_group(rng, experiments, nights, users_per_night):
    """Cumulative (users, converters, Σx, Σx²) per experiment and night, shape (experiments, nights)."""
    users = rng.poisson(users_per_night, size=(experiments, nights))
    converters = rng.binomial(users, CONVERSION)
    # Each converter pays one price: the counts per price are multinomial.
    paid = np.stack([rng.multinomial(c, PRICE_SHARES) for c in converters.ravel()]).reshape(experiments, nights, len(PRICES))
    revenue = paid @ PRICES
    squares = paid @ (PRICES ** 2)
    return tuple(np.cumsum(a, axis=1) for a in (users, converters, revenue, squares))


def sequential_factor(n, alpha, tuning):
    """h / se of docs/statistics.md#sequential-always-valid-inference:
    √(2(nρ²+1) ln(√(nρ²+1)/α) / (nρ²))."""
    rho2 = (-2 * math.log(alpha) + math.log(1 - 2 * math.log(alpha))) / tuning
    nr = n * rho2
    return np.sqrt(2 * (nr + 1) * np.log(np.sqrt(nr + 1) / alpha) / nr), rho2


def sequential_p(diff, se, n, alpha, tuning):
    """docs/statistics.md#sequential-always-valid-inference:
    min(1, √(nρ²+1) exp(−ρ² n z² / (2(nρ²+1))))."""
    _, rho2 = sequential_factor(n, alpha, tuning)
    nr = n * rho2
    with np.errstate(divide="ignore", invalid="ignore"):
        z2 = np.where(se > 0, (diff / se) ** 2, 0.0)
    p = np.minimum(1.0, np.sqrt(nr + 1) * np.exp(-nr * z2 / (2 * (nr + 1))))
    return np.where(se > 0, p, np.nan)


def conversion_tests(c, t, alpha, tuning):
    (nc, xc, _, _), (nt, xt, _, _) = c, t
    pc, pt = xc / nc, xt / nt
    pooled = (xc + xt) / (nc + nt)
    se_pooled = np.sqrt(pooled * (1 - pooled) * (1 / nt + 1 / nc))
    with np.errstate(divide="ignore", invalid="ignore"):
        fixed = np.where(se_pooled > 0, 2 * stats.norm.sf(np.abs(pt - pc) / se_pooled), 1.0)
    se = np.sqrt(pt * (1 - pt) / nt + pc * (1 - pc) / nc)
    sequential = sequential_p(pt - pc, se, nc + nt, alpha, tuning)
    fixed_half = stats.norm.isf(alpha / 2) * se
    sequential_half = sequential_factor(nc + nt, alpha, tuning)[0] * se
    return fixed, sequential, fixed_half, sequential_half


def revenue_tests(c, t, alpha, tuning):
    (nc, _, sc, qc), (nt, _, st, qt) = c, t
    mc, mt = sc / nc, st / nt
    vc = np.maximum(0, (qc - sc * sc / nc) / (nc - 1))
    vt = np.maximum(0, (qt - st * st / nt) / (nt - 1))
    a, b = vt / nt, vc / nc
    se = np.sqrt(a + b)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (a + b) ** 2 / (a ** 2 / (nt - 1) + b ** 2 / (nc - 1))
        fixed = np.where(se > 0, 2 * stats.t.sf(np.abs(mt - mc) / se, df), np.nan)
        fixed_half = np.where(se > 0, stats.t.isf(alpha / 2, df) * se, np.nan)
    sequential = sequential_p(mt - mc, se, nc + nt, alpha, tuning)
    sequential_half = sequential_factor(nc + nt, alpha, tuning)[0] * se
    return fixed, sequential, fixed_half, sequential_half


def share(flags):
    """The share and its Monte-Carlo standard error."""
    p = float(np.mean(flags))
    return p, math.sqrt(p * (1 - p) / len(flags))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--experiments", type=int, default=20000)
    parser.add_argument("--nights", type=int, default=30)
    parser.add_argument("--users", type=float, default=300, help="new users per group per night (Poisson mean)")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--tuning", type=float, nargs="+", default=[5000, 18000])
    parser.add_argument("--seed", type=int, default=20260315)
    options = parser.parse_args()

    rng = np.random.default_rng(options.seed)
    control = simulate_group(rng, options.experiments, options.nights, options.users)
    treatment = simulate_group(rng, options.experiments, options.nights, options.users)
    alpha = options.alpha
    print(f"{options.experiments} A/A experiments, {options.nights} nights, {options.users:g} new users per group per night "
          f"(about {2 * options.users * options.nights:,.0f} users in both groups by the last night), alpha {alpha}, "
          f"seed {options.seed}")
    print()
    print("| metric | N* | fixed-horizon, ever significant | sequential, ever significant | fixed, last night only | "
          "sequential width / fixed width, last night |")
    print("|---|---|---|---|---|---|")
    for name, test in (("conversion", conversion_tests), ("revenue per user", revenue_tests)):
        for tuning in options.tuning:
            fixed, sequential, fixed_half, sequential_half = test(control, treatment, alpha, tuning)
            ever_fixed = share(np.any(fixed < alpha, axis=1))
            ever_sequential = share(np.any(sequential < alpha, axis=1))
            last_fixed = share(fixed[:, -1] < alpha)
            ratio = np.nanmean(sequential_half[:, -1] / fixed_half[:, -1])
            print(f"| {name} | {tuning:,.0f} | {100 * ever_fixed[0]:.1f}% ± {100 * ever_fixed[1]:.1f} | "
                  f"{100 * ever_sequential[0]:.1f}% ± {100 * ever_sequential[1]:.1f} | "
                  f"{100 * last_fixed[0]:.1f}% ± {100 * last_fixed[1]:.1f} | {ratio:.2f} |")
    print()
    print("± one Monte-Carlo standard error, √(p(1 − p)/experiments).")


if __name__ == "__main__":
    main()
