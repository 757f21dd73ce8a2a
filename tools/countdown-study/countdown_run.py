#!/usr/bin/env python3
"""How `days_left` counts down on a steady A/A test of revenue to date, over many seeds, through
`offerlab run` (docs/statistics.md, "Days left"; issue 77 item 5: "six weekly nights: down by 42
days ± 10% of the first value, never rising a week").

`DecisionCountdownTests` reads one such test (one seed). This study reads `--tests` of them at
once, each an offering of its own with its own product_ids (so no test is another's past), in
the shape of that fixture: 390 users a day to each test (every other one in each group, weight 1
each) from 2026-01-05 for the plan's enrolment days; a tenth buy the plan an hour after joining,
and each charge is renewed one period later with probability 0.6 (no refunds, no trials). Both
groups sell the same plan, so it is decided on `arpu` (revenue to date, no conversion window),
`decision: fixed`, `max_runtime_days: 1000`.

Plans: `weekly` (USD 7.99 every 7 days, 70 days of enrolment) and `monthly` (USD 19.99 every 30
days, 100 days of enrolment: a monthly plan's first nights see no renewal, and the countdown is
read from its first night with one, week 5).

Nights: `as_of` at midnight on days 21, 28, … (weeks 3 to the first rated week + 6), run in order
into one database. Per test it reports the seven rated nights' `days_left`, the drop over the
six weeks, whether it ever rose, whether it meets the issue's criterion, and the first rated
night's decision date (its day + `days_left`) against the true one: the first day at which the
fixed test's power on a 10% lift reaches 0.8 with the enrolment going on (`true_decision_day`,
from the plan's exact moments).

    python3 tools/countdown-study/countdown_run.py --offerlab .build/release/offerlab --plan weekly --tests 20
"""

import argparse
import csv
import gzip
import json
import math
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "projection-calibration"))
import simulate  # noqa: E402  (the calibration's writer of the server tables)

START = datetime(2026, 1, 5, tzinfo=timezone.utc)
USERS_PER_DAY = 390
BUYER_SHARE = 0.1
RENEWAL = 0.6
PLANS = {
    "weekly": dict(price=7.99, period_days=7, enrolment_days=70, first_rated_week=3),
    "monthly": dict(price=19.99, period_days=30, enrolment_days=100, first_rated_week=5),
}


def true_decision_day(plan: dict, target_mde=0.1, power=0.8, alpha=0.05, per_group_per_day=USERS_PER_DAY / 2) -> int:
    """The first whole day D at which a fixed two-sided test of the relative lift of revenue to date
    reaches `power` on `target_mde`, each group holding `per_group_per_day`·D members of tenures
    0 … D − 1 (enrolment going on): a member of tenure t has had ⌊t / period⌋ renewals due, so a
    buyer's charges N have E N = Σ_{j ≤ k} q^j and E N² = Σ_{j ≤ k} (2j + 1) q^j; the relative lift's
    variance is 2·CV²/n (the delta method with equal groups)."""
    normal = statistics.NormalDist()
    z = normal.inv_cdf(1 - alpha / 2)
    price, period = plan["price"], plan["period_days"]
    first = second = 0.0
    for day in range(1, 36_500):
        renewals = (day - 1) // period
        first += BUYER_SHARE * price * sum(RENEWAL**j for j in range(renewals + 1))
        second += BUYER_SHARE * price**2 * sum((2 * j + 1) * RENEWAL**j for j in range(renewals + 1))
        mean, square = first / day, second / day
        se = math.sqrt(2 * (square / mean**2 - 1) / (per_group_per_day * day))
        if 1 - normal.cdf((z * se - target_mde) / se) + normal.cdf((-z * se - target_mde) / se) >= power:
            return day
    raise ValueError("no day reaches the power")


def unit(index: int, salt: int) -> float:
    """A fixed pseudo-random number in [0, 1) for (index, salt): SplitMix64's finaliser, as the
    Swift fixture draws them (`DecisionCountdownTests.unit`)."""
    mask = (1 << 64) - 1
    z = (index * 0x9E3779B97F4A7C15 + salt * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31
    return (z >> 11) / float(1 << 53)


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def write_test_data(folder: Path, plan_name: str, tests: int, seed: int) -> None:
    """The tables and one gzipped JSON Lines log per day for `tests` steady A/A tests. Test i draws
    with salts offset by `seed` + 1000·i; test 0 with seed 0 is the Swift fixture's data."""
    plan = PLANS[plan_name]
    (folder / "tables").mkdir(parents=True, exist_ok=True)
    offerings, groups, products, copy, assignments = [], [], [], [], []
    by_day: dict[int, list[tuple[str, str]]] = {}
    row = 0
    for test in range(tests):
        salt = seed + 1000 * test
        product = f"{plan_name}_t{test:03d}"
        offerings.append([test + 1, f"test_{test:03d}", f"steady {plan_name} test {test}", 1, "2026-01-01 00:00:00"])
        for position, name in enumerate(("control", "variant")):
            group_id = 2 * test + position + 1
            groups.append([group_id, test + 1, name, 1])
            products.append([group_id, 0, product, plan_name, plan["price"], 1, "", ""])
            copy.append([group_id, "Title", "Subtitle", "Continue", "Cancel anytime"])
        for index in range(plan["enrolment_days"] * USERS_PER_DAY):
            row += 1
            user = f"t{test}u{index}"
            joined = START + timedelta(days=index / USERS_PER_DAY)
            assignments.append([row, user, test + 1, 2 * test + 1 + index % 2, joined.strftime("%Y-%m-%d %H:%M:%S")])
            if unit(index, salt + 1) >= BUYER_SHARE:
                continue
            charge = 0
            while True:
                moment = joined + timedelta(seconds=3600 + charge * plan["period_days"] * 86_400)
                record = {
                    "event_id": f"t{test}e{index}-{charge}", "ts": stamp(moment), "user_id": user,
                    "event": "purchase" if charge == 0 else "renewal", "product_id": product,
                    "transaction_id": f"t{test}-{index}-{charge}", "original_transaction_id": f"t{test}-{index}-0",
                    "price": plan["price"], "currency": "USD",
                }
                day = (moment - START).days
                by_day.setdefault(day, []).append((record["ts"], json.dumps(record, separators=(",", ":"))))
                charge += 1
                if unit(index, salt + 1 + charge) >= RENEWAL:
                    break

    simulate.write_tables(folder / "tables", offerings, groups, products, copy, assignments)
    (folder / "logs").mkdir(exist_ok=True)
    for day, lines in by_day.items():
        with gzip.open(folder / "logs" / f"events-{day:03d}.jsonl.gz", "wt") as handle:
            handle.write("\n".join(line for _, line in sorted(lines)) + "\n")
    (folder / "job.yaml").write_text(
        f"# Steady A/A tests of the {plan_name} plan (tools/countdown-study).\n"
        "tables: tables/\nlogs: [\"logs/*.jsonl.gz\"]\nreport_currency: USD\nalpha: 0.05\ncontrol: control\n"
        "decision: fixed\nmax_runtime_days: 1000\noutput: out/\ndatabase: results.sqlite\n")


def countdown(days: list[int]) -> dict:
    """One test's rated nights: the drop over them, whether it ever rose, and the issue's criterion
    (down by 42 ± 10% of the first value over six weeks, never rising)."""
    drop = days[0] - days[-1]
    rose = any(later > earlier for earlier, later in zip(days, days[1:]))
    return dict(drop=drop, rose=rose, meets=not rose and abs(drop - 42) <= 0.1 * days[0])


def study(offerlab: str, plan_name: str, tests: int, seed: int, folder: Path) -> tuple[list[dict], dict[str, str]]:
    """Each test's countdown over its rated nights, and the tests left out (decided by chance)."""
    plan = PLANS[plan_name]
    write_test_data(folder, plan_name, tests, seed)
    weeks = list(range(3, plan["first_rated_week"] + 7))
    days_left: dict[str, list[int]] = {}
    ended: dict[str, str] = {}
    for week in weeks:
        as_of = START + timedelta(days=7 * week)
        night = f"{as_of:%Y-%m-%d}"
        run = subprocess.run([offerlab, "run", str(folder / "job.yaml"), "--as-of", f"{night}T00:00:00Z", "--quiet"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"week {week}: offerlab run exited {run.returncode}: {run.stderr}")
        with open(folder / "out" / night / "decisions.csv", newline="") as handle:
            for row in csv.DictReader(handle):
                # An A/A test decided by chance (alpha of them a night) has no countdown from then on.
                if row["status"] != "keep_running" or not row["days_left"]:
                    ended.setdefault(row["offering_id"], f"week {week}: {row['status']}")
                else:
                    days_left.setdefault(row["offering_id"], []).append(int(row["days_left"]))
    rated_from = plan["first_rated_week"] - 3
    results = []
    for offering, days in sorted(days_left.items()):
        if offering in ended:
            continue
        rated = days[rated_from:]
        results.append(dict(offering=offering, days=days, first_date=7 * plan["first_rated_week"] + rated[0], **countdown(rated)))
    return results, ended


def report(plan_name: str, results: list[dict], ended: dict[str, str], seed: int) -> str:
    truth = true_decision_day(PLANS[plan_name])
    drops = [r["drop"] for r in results]
    firsts = [r["first_date"] for r in results]
    lines = [
        f"### {plan_name}, {len(results)} tests (seed {seed})",
        "",
        "| test | days_left, week 3 on | drop over the six rated weeks | rose | meets 42 ± 10 % |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {r['offering']} | {', '.join(map(str, r['days']))} | {r['drop']} | {'yes' if r['rose'] else 'no'} | "
              f"{'yes' if r['meets'] else 'no'} |" for r in results]
    lines += [
        "",
        f"Drop over six weeks: median {statistics.median(drops)}, range {min(drops)}–{max(drops)}, mean {statistics.mean(drops):.1f}; "
        f"rose in {sum(r['rose'] for r in results)}; meets the criterion in {sum(r['meets'] for r in results)} of {len(results)}.",
        f"First rated night's decision day: mean {statistics.mean(firsts):.1f}, sd {statistics.stdev(firsts) if len(firsts) > 1 else 0:.1f} "
        f"(range {min(firsts)}–{max(firsts)}); the true decision day {truth}.",
    ]
    if ended:
        lines.append(f"Left out, decided by chance before the last night: {len(ended)} ("
                     + ", ".join(f"{offering} {when}" for offering, when in sorted(ended.items())) + ").")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offerlab", required=True)
    parser.add_argument("--plan", choices=sorted(PLANS), required=True)
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="salt offset; test i draws with seed + 1000·i")
    parser.add_argument("--keep", help="a folder to keep the data and nights in (default: a temporary one)")
    options = parser.parse_args()
    if options.keep:
        folder = Path(options.keep)
        folder.mkdir(parents=True, exist_ok=True)
        results = study(options.offerlab, options.plan, options.tests, options.seed, folder)
    else:
        with tempfile.TemporaryDirectory() as temporary:
            results = study(options.offerlab, options.plan, options.tests, options.seed, Path(temporary))
    print(report(options.plan, *results, options.seed))


if __name__ == "__main__":
    main()
