#!/usr/bin/env python3
"""A/A study of period tests through `offerlab run` (docs/statistics.md, "Period tests"): how
often a period test whose groups have the same expected year is ever shipped or rolled back
over 60 nights, read every night under the default `decision: sequential`.

Every replicate is one offering of a real data set in the input formats (docs/input-formats.md):
two groups, `control` and `variant`, weight 1 each, whose members behave identically but whose
catalogs declare different billing periods, so offerlab treats the pair as a period test and
decides it on `projected_arpu_365` (the A/A period test of the issue: "identical groups declared
with different types"). Settings:

- `yearly`: both groups buy `yearly_5999` (type `yearly`, USD 59.99); the variant's paywall also
  lists a 3-day pass (`3_day_pass`) that nobody buys. A yearly plan renews after day 365, so the
  year is identified once the members' late purchases have been seen: the goal is decided by its
  value and interval (the sequential form).
- `monthly`: both buy `monthly_999` (type `monthly`, USD 9.99), renewed every 30.44 days with
  probability 0.6; the variant also lists a weekly plan nobody buys. 60 nights see one or two
  renewals of the 11 the year needs, so the year stays unidentified and only its bounds decide.

Two settings are built against the projection's own assumptions (docs/statistics.md, "The
projection"), with the `yearly` products:

- `yearly-heavy-tail`: the price a buyer pays is heavy-tailed, as an app's revenue per user is
  where storefronts, tiers and bundles differ: Pareto with shape 1.5 (infinite variance), mean
  USD 59.99 before the cut at the App Store's highest price, USD 999.99. Purchases come within
  days, so the year is identified and the goal's value and sequential interval decide, which
  assume a mean that is near normal at the members' number.
- `yearly-flat-late`: a third of the buyers buy at a delay uniform over the first year after
  assignment, so the rate of late purchases stays flat instead of falling with tenure: the
  unseen part never settles and the test is read on its bounds, whatever the number of members.

Each night a Poisson number of newcomers (mean `--per-night`) arrives per offering, split between
the groups as a multinomial at equal weights, with an `assigned_at` inside that night's day. A
newcomer buys with probability 0.15, at an exponential delay (mean 1 day) after assignment; 5%
of purchases are refunded in full a day later. Events go to the log file of the day they happen
(gzipped JSON Lines, one file per day), so a night reads only what has happened by its `as_of`;
the assignment table grows as the server's dump does (one gzip member per night).

Then `offerlab run job.yaml --as-of <the next midnight>` runs each night in order, into one
database, and this script reads that night's `decisions.csv`: per replicate, whether it was ever
`ship` or `roll_back` (and whether by the goal: a roll back with no losing guardrail), and checks
that every row is a period test decided on `projected_arpu_365`.

    python3 tools/period-study/aa_period_run.py --offerlab .build/release/offerlab --setting yearly --replicates 100 >> tools/period-study/results.md
"""

import argparse
import collections
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
FIRST_NIGHT = dt.date(2025, 1, 6)
CONVERSION = 0.15
REFUND = 0.05
SETTINGS = {
    # product sold, its type and price, renewal period (days) and probability, the variant's extra product nobody buys
    "yearly": dict(product="yearly_5999", type="yearly", price=59.99, period=None, renewal=0.0,
                   extra=("pass_3day", "3_day_pass", "2.99")),
    "monthly": dict(product="monthly_999", type="monthly", price=9.99, period=365.25 / 12, renewal=0.6,
                    extra=("weekly_799", "weekly", "7.99")),
}
SETTINGS["yearly-heavy-tail"] = SETTINGS["yearly"] | dict(pareto_shape=1.5)
SETTINGS["yearly-flat-late"] = SETTINGS["yearly"] | dict(flat_late_share=1 / 3)
HIGHEST_PRICE = 999.99  # the App Store's highest price tier in USD


def purchase_price(rng: np.random.Generator, setting: dict) -> float:
    """The catalog price, or a Pareto draw whose untruncated mean is the catalog price."""
    shape = setting.get("pareto_shape")
    if shape is None:
        return setting["price"]
    scale = setting["price"] * (shape - 1) / shape
    return round(min(scale * (1 + float(rng.pareto(shape))), HIGHEST_PRICE), 2)


def purchase_delay_days(rng: np.random.Generator, setting: dict) -> float:
    """Days from assignment to purchase: exponential (mean a day), or for the flat-late share uniform over a year."""
    if rng.random() < setting.get("flat_late_share", 0.0):
        return float(rng.uniform(0, 365))
    return float(rng.exponential(1.0))


def offering_id(replicate: int) -> str:
    return f"aa_{replicate:06d}"


def write_offering_tables(tables: Path, replicates: int, setting: dict) -> None:
    created_at = f"{FIRST_NIGHT - dt.timedelta(days=1)} 12:00:00"
    with (tables / "subscription_offerings.csv").open("w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["id", "offering_id", "name", "is_active", "created_at"])
        for replicate in range(replicates):
            writer.writerow([replicate + 1, offering_id(replicate), f"A/A period test {replicate}", 1, created_at])
    with (tables / "subscription_offering_groups.tsv").open("w") as file:
        file.write("id\tsubscription_offering_id\tgroup_name\tweight\tdescription\n")
        for replicate in range(replicates):
            for index, group in enumerate(GROUPS):
                file.write(f"{2 * replicate + index + 1}\t{replicate + 1}\t{group}\t1\tNULL\n")
    with (tables / "subscription_offering_group_products.csv").open("w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["offering_group_id", "position", "product_id", "type", "fallback_display_price",
                         "is_default", "badge_text", "subtitle_text", "created_at"])
        for group_id in range(1, 2 * replicates + 1):
            writer.writerow([group_id, 0, setting["product"], setting["type"], setting["price"], 1, "", "\\N", created_at])
            if group_id % 2 == 0:  # the variant also lists a product of another period, never bought
                product, kind, price = setting["extra"]
                writer.writerow([group_id, 1, product, kind, price, 0, "", "\\N", created_at])
    with (tables / "subscription_offering_group_copy.tsv").open("w") as file:
        file.write("offering_group_id\theader_title\theader_subtitle\tcta_button_text\tsupporting_text\tlocale\n")
        for group_id in range(1, 2 * replicates + 1):
            file.write(f"{group_id}\tStudy AI\tJoin now.\tNext\tCancel anytime\ten_US\n")


def member_events(user: str, at: dt.datetime, rng: np.random.Generator, setting: dict, horizon: dt.datetime) -> list:
    """The (time, line) events of one newcomer up to `horizon`."""
    if rng.random() >= CONVERSION:
        return []
    events = []
    bought = at + dt.timedelta(days=purchase_delay_days(rng, setting))
    price = purchase_price(rng, setting)
    transaction = f"t-{user}"

    def line(kind: str, when: dt.datetime, tid: str, price: float | None) -> tuple:
        record = {"event_id": f"{kind}-{tid}", "ts": f"{when:%Y-%m-%dT%H:%M:%SZ}", "user_id": user, "event": kind,
                  "product_id": setting["product"], "transaction_id": tid, "original_transaction_id": transaction}
        if price is not None:
            record |= {"price": price, "currency": "USD"}
        return (when, json.dumps(record))

    events.append(line("purchase", bought, transaction, price))
    if rng.random() < REFUND:
        events.append(line("refund", bought + dt.timedelta(days=1), transaction, price))
        return [e for e in events if e[0] < horizon]
    if setting["period"]:
        charge = bought
        renewal = 0
        while charge < horizon and rng.random() < setting["renewal"]:
            renewal += 1
            charge = bought + dt.timedelta(days=renewal * setting["period"])
            events.append(line("renewal", charge, f"{transaction}-r{renewal}", setting["price"]))
    return [e for e in events if e[0] < horizon]


def write_job(folder: Path) -> Path:
    job = folder / "job.yaml"
    job.write_text("# A/A study of period tests (tools/period-study/aa_period_run.py)\n"
                   "tables: tables/\n"
                   "logs: [\"logs/*/*/*/*.jsonl.gz\"]\n"
                   "report_currency: USD\n"
                   "rates: {}\n"
                   "decision: sequential\n"
                   "control: control\n"
                   "output: out/\n"
                   "database: results.sqlite\n")
    return job


def study(offerlab: str, setting_name: str, replicates: int, nights: int, per_night: float, seed: int, folder: Path) -> dict:
    setting = SETTINGS[setting_name]
    rng = np.random.default_rng(seed)
    (folder / "tables").mkdir(parents=True)
    write_offering_tables(folder / "tables", replicates, setting)
    job = write_job(folder)
    horizon = dt.datetime(FIRST_NIGHT.year, FIRST_NIGHT.month, FIRST_NIGHT.day, tzinfo=dt.timezone.utc) + dt.timedelta(days=nights + 1)
    pending = collections.defaultdict(list)  # day -> lines
    shipped = np.zeros(replicates, dtype=bool)
    rolled_back = np.zeros(replicates, dtype=bool)
    by_goal = np.zeros(replicates, dtype=bool)
    statuses = collections.Counter()
    valued = 0
    next_user, next_row = 1, 1
    for night in range(nights):
        started = time.monotonic()
        day = FIRST_NIGHT + dt.timedelta(days=night)
        day_start = dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)
        newcomers = rng.poisson(per_night, size=replicates)
        rows = []
        for replicate in range(replicates):
            for _ in range(int(newcomers[replicate])):
                group = int(rng.integers(0, 2))
                user = f"u{next_user}"
                at = day_start + dt.timedelta(seconds=int(rng.integers(0, 86400)))
                rows.append(f"{next_row},{user},{replicate + 1},{2 * replicate + group + 1},{at:%Y-%m-%d %H:%M:%S}\n")
                pending[day].append((at + dt.timedelta(seconds=30), json.dumps(
                    {"event_id": f"pv-{user}", "ts": f"{at + dt.timedelta(seconds=30):%Y-%m-%dT%H:%M:%SZ}",
                     "user_id": user, "event": "paywall_view", "offering_id": offering_id(replicate)})))
                for when, text in member_events(user, at, rng, setting, horizon):
                    pending[when.date()].append((when, text))
                next_user += 1
                next_row += 1
        table = folder / "tables" / "user_offering_assignments.csv.gz"
        header = "" if table.exists() else "id,user_id,subscription_offering_id,offering_group_id,assigned_at\n"
        with table.open("ab") as file:
            file.write(gzip.compress((header + "".join(rows)).encode(), compresslevel=1))
        # Tonight's log: the events of this day (earlier days' files are complete already).
        log = folder / "logs" / f"{day:%Y/%m/%d}" / "events.jsonl.gz"
        log.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(log, "wt", compresslevel=1) as file:
            for _, text in sorted(pending.pop(day, [])):
                file.write(text + "\n")
        as_of = day + dt.timedelta(days=1)
        run = subprocess.run([offerlab, "run", str(job), "--as-of", f"{as_of}T00:00:00Z", "--quiet"], capture_output=True, text=True)
        if run.returncode not in (0,):
            sys.exit(f"night {night + 1}: offerlab run exited {run.returncode}: {run.stderr}")
        night_output = folder / "out" / f"{as_of}"
        with (night_output / "decisions.csv").open(newline="") as file:
            decisions = {row["offering_id"]: row for row in csv.DictReader(file)}
        for replicate in range(replicates):
            row = decisions[offering_id(replicate)]
            assert row["goal_metric"] == "projected_arpu_365" and row["period_test"], f"not a period test: {row}"
            statuses[row["status"]] += 1
            valued += row["goal_rel_lift"] != ""
            shipped[replicate] |= row["status"] == "ship"
            rolled_back[replicate] |= row["status"] == "roll_back"
            by_goal[replicate] |= row["status"] == "ship" or (row["status"] == "roll_back" and row["losing_guardrails"] == "")
        shutil.rmtree(night_output)
        print(f"night {night + 1}/{nights}: {time.monotonic() - started:.1f} s, ever shipped {shipped.sum()}, "
              f"ever rolled back {rolled_back.sum()}, by the goal {by_goal.sum()}", file=sys.stderr, flush=True)
    return {"ever": float(np.mean(shipped | rolled_back)), "shipped": float(np.mean(shipped)),
            "rolled_back": float(np.mean(rolled_back)), "by_goal": float(np.mean(by_goal)), "statuses": statuses,
            "valued": valued / (replicates * nights), "users": next_user - 1}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--offerlab", required=True)
    parser.add_argument("--setting", choices=sorted(SETTINGS), default="yearly")
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--nights", type=int, default=60)
    parser.add_argument("--per-night", type=float, default=40)
    parser.add_argument("--seed", type=int, default=58)
    parser.add_argument("--folder", help="keep the data set, database and outputs here (default: a temporary folder)")
    options = parser.parse_args()
    started = time.monotonic()
    args = (options.offerlab, options.setting, options.replicates, options.nights, options.per_night, options.seed)
    if options.folder:
        result = study(*args, Path(options.folder))
    else:
        with tempfile.TemporaryDirectory() as temporary:
            result = study(*args, Path(temporary))
    n = options.replicates

    def cell(p: float) -> str:
        # The rate and twice its binomial standard error (at 1/n when none happened).
        return f"{p:.3f} ± {2 * math.sqrt(max(p, 1 / n) * (1 - p) / n):.3f}"

    statuses = ", ".join(f"{k} {v}" for k, v in sorted(result["statuses"].items()))
    print(f"\n`{options.setting}`: {n} replicates (offerings of one job) of {options.nights} nights, "
          f"{options.per_night:g} newcomers a night each (seed {options.seed}); {result['users']:,} users in all; "
          f"group-nights with a projected value: {result['valued']:.1%}; statuses over all nights: {statuses}. "
          f"Wall time {time.monotonic() - started:.0f} s.\n")
    print("| setting | ever shipped or rolled back | by the goal | shipped | rolled back |")
    print("|---|---|---|---|---|")
    print(f"| {options.setting}, {n} replicates × {options.nights} nights | {cell(result['ever'])} | {cell(result['by_goal'])} "
          f"| {cell(result['shipped'])} | {cell(result['rolled_back'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
