"""Writes adjusted_intervals.json: the intervals that agree with each comparison's verdict
(docs/statistics.md, "Intervals that agree with the verdict"), the reference for
`abs_lift_ci_*_adjusted`, `rel_lift_ci_*_adjusted` and their `seq_` twins.

For every offering of comparisons.json (its inputs only; its answers are not read), the two
issue-41 cases (the sample night's spring_2026_price_test, whose variant_b conversion was
"+40.2% (CI −1.4% to +81.8%), significant after correction", and its onboarding_copy_test
country BR slice, whose relative interval was "−478.2% to +684.5%") and random offerings of
two to five treatments, it computes from the formulas of docs/statistics.md with scipy
("Each treatment against control", "Sequential (always-valid) inference"):

- the p-values (pooled z-test, Welch t-test, the always-valid p-value) and Holm's adjustment;
- the level γ = alpha·p_I/p̃, where p_I is the p-value of 0 under the interval's own formula
  (unpooled z for conversion, Welch for revenue, the sequential p-value) and p̃ the adjusted
  p-value of the verdict; no value when γ is not in (0, 1), alpha/m when both are 0;
- the absolute interval at γ: scipy.stats.norm.isf(γ/2), scipy.stats.t.isf(γ/2, ν), or the
  confidence sequence with ln(√(nρ²+1)/γ);
- the relative interval: the ratios R with (m_t − R·m_c)² ≤ q²(v_t/n_t + R²v_c/n_c), found
  by scipy.optimize.brentq on each side of m_t/m_c (not by the quadratic formula the Swift code
  uses), cut at R = 0 when m_t ≥ 0, minus 1; no value when m_c ≤ 0 or m_c² ≤ q²v_c/n_c
  (unbounded).

    python3 Tests/OfferLabStatisticsTests/Reference/make_adjusted_intervals.py
"""
import json
import math
import random
from pathlib import Path

from scipy import optimize, stats

HERE = Path(__file__).parent
NOISE_FLOOR = 1e-12


def moments(group, kind):
    n, x, s1, s2 = int(group["users"]), int(group["converters"]), float(group["revenue_sum"]), float(group["revenue_sum_squares"])
    if kind == "conversion":
        if n == 0:
            return None
        p = x / n
        return n, p, p * ((n - x) / n)
    if n < 2:
        return None
    centered = s2 - s1 * s1 / n
    return n, s1 / n, 0.0 if centered <= NOISE_FLOOR * s2 else max(0.0, centered / (n - 1))


def holm(pvalues):
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: (pvalues[i], i))
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def level(alpha, p_interval, p_adjusted, family):
    if p_adjusted == 0:
        return alpha / max(family, 1) if p_interval == 0 else None
    gamma = alpha * p_interval / p_adjusted
    return gamma if 0 < gamma < 1 and math.isfinite(gamma) else None


def fieller(c, t, q):
    (nc, mc, vc), (nt, mt, vt) = c, t
    a, b = vc / nc, vt / nt
    if mc <= 0 or mc * mc - q * q * a <= 0:
        return None

    def g(r):
        return (mt - r * mc) ** 2 - q * q * (b + r * r * a)

    center = mt / mc
    step = max(abs(center), 1.0)
    high = center + step
    while g(high) <= 0:
        step *= 2
        high = center + step
    upper = center if g(center) == 0 else optimize.brentq(g, center, high, xtol=1e-300, rtol=4 * 2.0**-52, maxiter=500)
    if mt >= 0 and g(0.0) <= 0:
        lower = 0.0
    else:
        step = max(abs(center), 1.0)
        low = center - step
        while g(low) <= 0:
            step *= 2
            low = center - step
        lower = center if g(center) == 0 else optimize.brentq(g, low, center, xtol=1e-300, rtol=4 * 2.0**-52, maxiter=500)
    return lower - 1, upper - 1


def analyse(case):
    alpha, tuning = float(case["alpha"]), float(case["sequential_tuning"])
    groups = case["groups"]
    control = next(g for g in groups if g["is_control"])
    rho = math.sqrt((-2 * math.log(alpha) + math.log(1 - 2 * math.log(alpha))) / tuning)
    rows = []
    for kind in ("conversion", "arpu"):
        family = []
        for group in groups:
            if group["is_control"]:
                continue
            c, t = moments(control, kind), moments(group, kind)
            row = {"group": group["name"], "metric": kind, "c": c, "t": t}
            if c and t:
                (nc, mc, vc), (nt, mt, vt) = c, t
                se = math.sqrt(vt / nt + vc / nc)
                lift = mt - mc
                if kind == "conversion":
                    xc, xt = round(mc * nc), round(mt * nt)
                    pooled = (xc + xt) / (nc + nt)
                    se_pooled = math.sqrt(pooled * (1 - pooled) * (1 / nt + 1 / nc))
                    row["p"] = 1.0 if se_pooled == 0 else min(1.0, 2 * stats.norm.sf(abs(lift) / se_pooled))
                    row["p_interval"] = (1.0 if lift == 0 else 0.0) if se == 0 else min(1.0, 2 * stats.norm.sf(abs(lift) / se))
                    row["quantile"] = lambda g: stats.norm.isf(g / 2)
                elif se > 0:
                    share_c, share_t = (vc / nc) / se**2, (vt / nt) / se**2
                    df = 1 / (share_t**2 / (nt - 1) + share_c**2 / (nc - 1))
                    row["p"] = row["p_interval"] = min(1.0, 2 * stats.t.sf(abs(lift) / se, df))
                    row["quantile"] = lambda g, df=df: stats.t.isf(g / 2, df)
                if se > 0:
                    n = nc + nt
                    nr2 = n * rho * rho
                    row["seq_p"] = min(1.0, math.exp(0.5 * math.log1p(nr2) - nr2 * (lift / se) ** 2 / (2 * (nr2 + 1))))
                    row["seq_quantile"] = lambda g, nr2=nr2: math.sqrt(2 * (nr2 + 1) * (0.5 * math.log1p(nr2) - math.log(g)) / nr2)
                row["se"], row["lift"] = se, lift
            family.append(row)
        for key in ("p", "seq_p"):
            tested = [r for r in family if key in r]
            for r, adjusted in zip(tested, holm([r[key] for r in tested])):
                r[key + "_adjusted"] = adjusted
            for r in tested:
                gamma = level(alpha, r["p_interval" if key == "p" else "seq_p"], r[key + "_adjusted"], len(tested))
                prefix = "" if key == "p" else "seq_"
                if gamma is None:
                    continue
                q = (r["quantile"] if key == "p" else r["seq_quantile"])(gamma)
                # Within what can happen: a difference of proportions in [-1, 1], a relative lift >= -1.
                low, high = r["lift"] - q * r["se"], r["lift"] + q * r["se"]
                if r["metric"] == "conversion":
                    low, high = min(1.0, max(-1.0, low)), min(1.0, max(-1.0, high))
                r[prefix + "abs"] = (low, high)
                if r["c"][1] != 0:
                    ratio = fieller(r["c"], r["t"], q)
                    r[prefix + "rel"] = ratio and (max(-1.0, ratio[0]), max(-1.0, ratio[1]))
        rows += family
    # comparisons.csv's order: per treatment, conversion then arpu.
    treatments = [g["name"] for g in groups if not g["is_control"]]
    rows.sort(key=lambda r: (treatments.index(r["group"]), r["metric"] != "conversion"))

    def text(value):
        return None if value is None else repr(float(value))

    expected = []
    for r in rows:
        entry = {"group": r["group"], "metric": r["metric"]}
        for prefix in ("", "seq_"):
            absolute, relative = r.get(prefix + "abs"), r.get(prefix + "rel")
            entry[prefix + "abs_lift_ci_low_adjusted"] = text(absolute and absolute[0])
            entry[prefix + "abs_lift_ci_high_adjusted"] = text(absolute and absolute[1])
            entry[prefix + "rel_lift_ci_low_adjusted"] = text(relative and relative[0])
            entry[prefix + "rel_lift_ci_high_adjusted"] = text(relative and relative[1])
        expected.append(entry)
    return {"name": case["name"], "alpha": case["alpha"], "sequential_tuning": case["sequential_tuning"], "groups": groups,
            "expected": expected}


def group(name, users, converters, revenue_sum, revenue_sum_squares, control=False):
    return {"name": name, "is_control": control, "weight": "1.0", "users": str(users), "converters": str(converters),
            "revenue_sum": repr(float(revenue_sum)), "revenue_sum_squares": repr(float(revenue_sum_squares))}


def from_summary(name, users, converters, arpu, arpu_sd, control=False):
    """A group from summary.csv's users, converters, arpu and arpu_sd."""
    s1 = arpu * users
    return group(name, users, converters, s1, arpu_sd**2 * (users - 1) + s1 * s1 / users, control)


def issue_cases():
    # The sample night of issue 41 (out/sample/2026-03-15/summary.csv before the fix).
    spring = {"name": "issue 41: the sample night's spring_2026_price_test", "alpha": "0.05", "sequential_tuning": "5000.0", "groups": [
        from_summary("control", 3118, 228, 1.0497600705580499, 4.203759701954162, control=True),
        from_summary("variant_a", 1560, 102, 1.2074241666666667, 4.982023651565573),
        from_summary("variant_b", 1590, 163, 2.068876352201258, 8.634168688314462),
    ]}
    brazil = {"name": "issue 41: onboarding_copy_test, country BR", "alpha": "0.05", "sequential_tuning": "5000.0", "groups": [
        group("control", 96, 6, 0, 0, control=True), group("social_proof", 63, 8, 0, 0), group("urgency", 63, 5, 0, 0),
    ]}
    return [spring, brazil]


def random_cases():
    generator = random.Random(4141)
    cases = []
    for index in range(40):
        treatments = generator.randint(2, 5)
        alpha = generator.choice([0.01, 0.05, 0.1])
        base = generator.choice([0.01, 0.05, 0.2, 0.6])
        groups = []
        for g in range(treatments + 1):
            users = generator.choice([3, 20, 150, 2000, 30000])
            rate = min(0.99, base * generator.uniform(0.5, 1.6))
            converters = sum(generator.random() < rate for _ in range(users)) if users <= 2000 else round(users * rate)
            price = generator.choice([4.99, 9.99, 49.99])
            s1 = converters * price * generator.uniform(0.8, 1.3)
            s2 = s1 * price * generator.uniform(1.0, 3.0) if converters else 0.0
            groups.append(group("control" if g == 0 else f"variant_{g}", users, converters, s1, s2, control=g == 0))
        cases.append({"name": f"random {index}", "alpha": repr(alpha), "sequential_tuning": generator.choice(["5000.0", "20000.0"]),
                      "groups": groups})
    return cases


def main():
    inputs = json.loads((HERE / "comparisons.json").read_text())
    cases = [{k: case[k] for k in ("name", "alpha", "sequential_tuning", "groups")} for case in inputs]
    cases += issue_cases() + random_cases()
    out = [analyse(case) for case in cases]
    (HERE / "adjusted_intervals.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"adjusted_intervals.json: {len(out)} offerings, {sum(len(c['expected']) for c in out)} comparisons")


if __name__ == "__main__":
    main()
