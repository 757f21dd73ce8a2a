#!/usr/bin/env python3
"""An independent simulator of subscription tests for the projection's calibration study
(docs/projection-calibration.md). It shares nothing with OfferLab's code or its model: members
are simulated one by one for a whole year, with behaviour chosen to break the projection's
assumptions (late entries that fall with tenure, late buyers who start trials, a first renewal
far below the later ones, later renewals levelling off below 1, a renewal cliff, annual plans,
passes), and written as the files `offerlab run` reads: offering tables, gzipped JSON Lines
logs and a job file per reading day. The truth (each group's members' mean revenue_365, and a
newcomer's expected revenue_365 in the group, `expected_revenue_365`) goes to truth.csv.

    python3 simulate.py --setting NAME --tests 200 --out DIR [--seed S]
"""
import argparse
import csv
import gzip
import json
import math
import os
import sys
from datetime import datetime, timedelta, timezone

import numpy as np

DAY = 86400.0
START = datetime(2026, 1, 5, tzinfo=timezone.utc)
READING_DAYS = (30, 60)
PERIOD_DAYS = {"weekly": 7.0, "monthly": 365.25 / 12, "yearly": 365.25, "3_day_pass": None}


def flat(first, later, count=60):
    """Renewal probabilities by index 1, 2, …: `first`, then `later` for every later renewal."""
    return [first] + [later] * (count - 1)


def levelling(values, count=60):
    """The listed probabilities, then the last one held."""
    return list(values) + [values[-1]] * (count - len(values))


def falling_late(start_rate, scale_days):
    """A late-entry hazard that falls with tenure: start_rate · e^(−d/scale) a day, day d ≥ 1."""
    return lambda d: start_rate * math.exp(-d / scale_days)


def power_late(start_rate, exponent):
    return lambda d: start_rate * d ** (-exponent)


def constant_late(rate):
    return lambda d: rate


# A product: type, price, share of the group's entries, trial days (0: none), the share of
# its entries that start the trial, trial conversion, renewal probabilities by index (a list, or
# a list of (weight, list) member types), refund probability per charge and refunded share.
def product(name, type_, price, share, renewals=None, trial_days=0, trial_share=0.0, trial_conversion=0.0, refund=0.03,
            refund_share=1.0):
    return dict(name=name, type=type_, price=price, share=share, renewals=renewals or [], trial_days=trial_days,
                trial_share=trial_share, trial_conversion=trial_conversion, refund=refund, refund_share=refund_share)


def group(name, paywall, late, products, late_trial_share=None):
    """`paywall`: entry probability on the first visit; `late(d)`: the entry hazard on day d ≥ 1;
    `late_trial_share`: for late entrants, the share that start a trial (None: the products' own)."""
    return dict(name=name, paywall=paywall, late=late, products=products, late_trial_share=late_trial_share)


SETTINGS = {
    # Late entries falling fast with tenure: the latest rate carried flat to day 365 invents buyers.
    "late-entries-falling": [
        group("annual", 0.05, falling_late(0.004, 12), [product("yearly_4999", "yearly", 49.99, 1.0, flat(0.6, 0.6), refund=0.04)]),
        group("weekly", 0.08, falling_late(0.006, 12),
              [product("weekly_699", "weekly", 6.99, 1.0, [(0.5, flat(0.3, 0.5)), (0.5, flat(0.8, 0.9))], refund=0.03)]),
    ],
    # Late buyers who start trials: every late entrant starts a 7-day trial, half convert.
    "late-buyers-trial": [
        group("yearly-trial", 0.04, power_late(0.003, 0.8),
              [product("yearly_3999", "yearly", 39.99, 1.0, flat(0.5, 0.5), trial_days=7, trial_share=0.4, trial_conversion=0.5)],
              late_trial_share=1.0),
        group("pass", 0.06, power_late(0.003, 0.8),
              [product("pass_3day", "3_day_pass", 3.99, 0.6, refund=0.05, refund_share=0.5),
               product("yearly_3999", "yearly", 39.99, 0.4, flat(0.5, 0.5), trial_days=7, trial_share=0.5, trial_conversion=0.5)],
              late_trial_share=1.0),
    ],
    # A first renewal far below the later ones: 0.35, then 0.85 held.
    "first-renewal-low": [
        group("annual", 0.05, constant_late(0.0003), [product("yearly_4999", "yearly", 49.99, 1.0, flat(0.6, 0.6))]),
        group("weekly", 0.09, constant_late(0.0003), [product("weekly_799", "weekly", 7.99, 1.0, flat(0.35, 0.85))]),
    ],
    # Later renewal rates levelling off below 1 (no member types: the rates themselves level off).
    "renewals-level-off": [
        group("monthly", 0.06, constant_late(0.0002),
              [product("monthly_1499", "monthly", 14.99, 1.0, levelling([0.5, 0.7, 0.75, 0.78, 0.8]))]),
        group("weekly", 0.09, constant_late(0.0002),
              [product("weekly_599", "weekly", 5.99, 1.0, levelling([0.6, 0.7, 0.75, 0.78, 0.8]))]),
    ],
    # A renewal cliff: an introductory weekly price for 8 weeks, after which half leave.
    "renewal-cliff": [
        group("intro", 0.09, constant_late(0.0002),
              [product("weekly_intro", "weekly", 4.99, 1.0, [0.85] * 7 + [0.4] + [0.88] * 52)]),
        group("regular", 0.07, constant_late(0.0002), [product("weekly_699", "weekly", 6.99, 1.0, flat(0.8, 0.88))]),
    ],
    # An annual plan (a 7-day trial for half its entrants) against a monthly one, read on days 30 and 60.
    "annual-vs-monthly": [
        group("annual", 0.07, falling_late(0.002, 20),
              [product("yearly_3999", "yearly", 39.99, 1.0, flat(0.55, 0.6), trial_days=7, trial_share=0.5, trial_conversion=0.5,
                       refund=0.05)]),
        group("monthly", 0.06, falling_late(0.002, 20),
              [product("monthly_999", "monthly", 9.99, 1.0, [(0.6, levelling([0.45, 0.6, 0.7])), (0.4, flat(0.85, 0.93))])]),
    ],
    # A 3-day pass against a monthly plan with a 3-day trial.
    "pass-vs-monthly": [
        group("monthly", 0.07, falling_late(0.003, 15),
              [product("monthly_1499", "monthly", 14.99, 1.0, [(0.5, flat(0.4, 0.7)), (0.5, flat(0.8, 0.92))], trial_days=3,
                       trial_share=0.6, trial_conversion=0.45)]),
        group("pass", 0.11, falling_late(0.003, 15), [product("pass_3day", "3_day_pass", 4.99, 1.0, refund=0.05, refund_share=0.5)]),
    ],
    # An A/A test: weekly and yearly with trials and refunds, late entries falling.
    "aa": [
        group(name, 0.08, falling_late(0.003, 15),
              [product("weekly_799", "weekly", 7.99, 0.6, [(0.5, flat(0.4, 0.6)), (0.5, flat(0.8, 0.9))], refund=0.04),
               product("yearly_4999", "yearly", 49.99, 0.4, flat(0.6, 0.6), trial_days=3, trial_share=0.5, trial_conversion=0.5,
                       refund=0.06)])
        for name in ("a", "b")
    ],
}


def iso(seconds):
    return (START + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Member:
    """One member's year: its events (seconds since START) and its revenue_365."""

    def __init__(self, assigned, group_spec, rng):
        self.assigned = assigned
        self.events = []
        self.revenue365 = 0.0
        entry = self.entry_time(group_spec, rng)
        if entry is None:
            return
        late = entry - assigned >= DAY
        products = group_spec["products"]
        chosen = products[rng.choice(len(products), p=[p["share"] for p in products])]
        trial_share = group_spec["late_trial_share"] if late and group_spec["late_trial_share"] is not None else chosen["trial_share"]
        if chosen["trial_days"] > 0 and rng.random() < trial_share:
            end = entry + chosen["trial_days"] * DAY
            self.events.append(("trial_start", entry, chosen, None, end))
            if rng.random() >= chosen["trial_conversion"]:
                return
            self.chain(end + rng.uniform(60, 3600), chosen, rng)
        else:
            self.chain(entry, chosen, rng)

    def entry_time(self, spec, rng):
        if rng.random() < spec["paywall"]:
            return self.assigned + rng.uniform(30, 1800)
        for day in range(1, 366):
            if rng.random() < spec["late"](day):
                return self.assigned + (day + rng.random()) * DAY
        return None

    def chain(self, time, spec, rng):
        renewals = spec["renewals"]
        if renewals and isinstance(renewals[0], tuple):
            weights = [w for w, _ in renewals]
            renewals = renewals[rng.choice(len(renewals), p=weights)][1]
        period = PERIOD_DAYS[spec["type"]]
        horizon = self.assigned + 365 * DAY
        index = 0
        while True:
            expires = time + (period if period else 3) * DAY
            self.events.append(("purchase" if index == 0 else "renewal", time, spec, spec["price"], expires))
            if time < horizon:
                self.revenue365 += spec["price"]
            if rng.random() < spec["refund"]:
                refund_time = time + rng.uniform(0.2, 10) * DAY
                amount = round(spec["price"] * spec["refund_share"], 2)
                self.events.append(("refund", refund_time, spec, amount, None))
                if refund_time < horizon:
                    self.revenue365 -= amount
                return
            if period is None or index >= len(renewals) or rng.random() >= renewals[index]:
                return
            time = expires + rng.uniform(60, 7200)
            index += 1
            if time > self.assigned + 400 * DAY:
                return


def expected_revenue_365(spec, steps_per_day=24):
    """A newcomer's expected revenue_365 in a group: what `Member` pays on average, summed over
    its entry day (the paywall, or late day d by the hazard), the product, the trial and each
    charge k of the chain, weighted by the chance the chain reaches it (no refund before it, the
    renewals' probabilities, per member type). The time within an entry day is integrated by
    the midpoint rule; the renewals' jitter (60–7 200 s each) and the trial's charge delay
    (60–3 600 s) enter at their means (they move a charge across day 365 by hours at most)."""
    jitter = (60 + 7200) / 2 / DAY
    trial_delay = (60 + 3600) / 2 / DAY

    def chain_value(start, product_spec):
        """The expected revenue_365 of a chain whose first charge is at `start` days."""
        renewals = product_spec["renewals"]
        types = renewals if renewals and isinstance(renewals[0], tuple) else [(1.0, renewals)]
        period = PERIOD_DAYS[product_spec["type"]]
        price, refund = product_spec["price"], product_spec["refund"]
        amount = round(price * product_spec["refund_share"], 2)
        total = 0.0
        for weight, rates in types:
            reach, time, index = 1.0, start, 0
            while reach > 0 and time < 365 and time <= 400:
                total += weight * reach * price
                # A refund 0.2–10 days after the charge, before day 365.
                total -= weight * reach * refund * amount * min(1.0, max(0.0, (365 - time - 0.2) / 9.8))
                if period is None or index >= len(rates):
                    break
                reach *= (1 - refund) * rates[index]
                time += period + jitter
                index += 1
        return total

    def entry_value(entry, late):
        value = 0.0
        for product_spec in spec["products"]:
            trial_share = spec["late_trial_share"] if late and spec["late_trial_share"] is not None else product_spec["trial_share"]
            if product_spec["trial_days"] == 0:
                trial_share = 0.0
            trial_start = entry + product_spec["trial_days"] + trial_delay
            value += product_spec["share"] * (
                (1 - trial_share) * chain_value(entry, product_spec)
                + trial_share * product_spec["trial_conversion"] * chain_value(trial_start, product_spec))
        return value

    expected = spec["paywall"] * entry_value((30 + 1800) / 2 / DAY, False)
    waiting = 1 - spec["paywall"]
    for day in range(1, 366):
        enters = waiting * spec["late"](day)
        if day < 365:
            within = [(step + 0.5) / steps_per_day for step in range(steps_per_day)]
            expected += enters * sum(entry_value(day + u, True) for u in within) / steps_per_day
        waiting -= enters
    return expected


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setting", required=True, choices=sorted(SETTINGS))
    parser.add_argument("--tests", type=int, default=200)
    parser.add_argument("--users-per-day", type=int, default=30, help="members arriving per group and day")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    groups = SETTINGS[args.setting]
    rng = np.random.default_rng([args.seed, sorted(SETTINGS).index(args.setting)])
    os.makedirs(os.path.join(args.out, "tables"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    horizon_days = max(READING_DAYS)
    offerings, group_rows, product_rows, copy_rows, assignments = [], [], [], [], []
    truth = {}  # (reading day, offering, group) -> [users, Σ revenue_365]
    user_number = 0
    transaction = 10**15
    lines = []
    for test in range(args.tests):
        offering = f"test_{test:04d}"
        offerings.append([test + 1, offering, f"{args.setting} test {test}", 1, "2026-01-01 00:00:00"])
        for index, spec in enumerate(groups):
            group_id = test * len(groups) + index + 1
            group_rows.append([group_id, test + 1, spec["name"], 1])
            copy_rows.append([group_id, "Title", "Subtitle", "Continue", "Cancel anytime"])
            for position, p in enumerate(spec["products"]):
                product_rows.append([group_id, position, p["name"], p["type"], p["price"], 1 if position == 0 else 0, "", ""])
            members = args.users_per_day * horizon_days
            for arrival in np.sort(rng.uniform(0, horizon_days * DAY, members)):
                user_number += 1
                user = f"u{user_number}"
                assigned = float(arrival)
                assignments.append([user_number, user, test + 1, group_id, iso(assigned)[:19].replace("T", " ")])
                member = Member(assigned, spec, rng)
                for day in READING_DAYS:
                    if assigned < day * DAY:
                        cell = truth.setdefault((day, offering, spec["name"]), [0, 0.0])
                        cell[0] += 1
                        cell[1] += member.revenue365
                chains = {}
                for kind, time, p, amount, expires in member.events:
                    if time >= horizon_days * DAY:
                        continue
                    transaction += 1
                    record = {"event_id": f"e{transaction}", "ts": iso(time), "user_id": user, "event": kind,
                              "product_id": p["name"], "offering_id": offering, "test_group_id": spec["name"]}
                    if kind == "refund":
                        record["transaction_id"] = chains[p["name"]][-1]
                        record["original_transaction_id"] = chains[p["name"]][0]
                    else:
                        record["transaction_id"] = str(transaction)
                        if kind != "trial_start":
                            chains.setdefault(p["name"], []).append(str(transaction))
                            record["original_transaction_id"] = chains[p["name"]][0]
                        if expires is not None:
                            record["expires_at"] = iso(expires)
                    if amount is not None:
                        record["price"] = amount
                        record["currency"] = "USD"
                    lines.append((time, json.dumps(record, separators=(",", ":"))))

    def write(name, header, rows):
        with open(os.path.join(args.out, "tables", name), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            w.writerows(rows)

    write("subscription_offerings.csv", ["id", "offering_id", "name", "is_active", "created_at"], offerings)
    write("subscription_offering_groups.csv", ["id", "subscription_offering_id", "group_name", "weight"], group_rows)
    write("subscription_offering_group_products.csv",
          ["offering_group_id", "position", "product_id", "type", "fallback_display_price", "is_default", "badge_text", "subtitle_text"],
          product_rows)
    write("subscription_offering_group_copy.csv",
          ["offering_group_id", "header_title", "header_subtitle", "cta_button_text", "supporting_text"], copy_rows)
    write("user_offering_assignments.csv", ["id", "user_id", "subscription_offering_id", "offering_group_id", "assigned_at"], assignments)
    lines.sort()
    # One file per day, as a nightly export would be.
    by_day = {}
    for time, line in lines:
        by_day.setdefault(int(time // DAY), []).append(line)
    for day, day_lines in by_day.items():
        with gzip.open(os.path.join(args.out, "logs", f"events-{day:03d}.jsonl.gz"), "wt") as f:
            f.write("\n".join(day_lines) + "\n")
    # A newcomer's expected revenue_365 per group, the target of the comparisons (the same in every test).
    expected = {spec["name"]: expected_revenue_365(spec) for spec in groups}
    with open(os.path.join(args.out, "truth.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["day", "offering_id", "group", "users", "true_arpu_365", "expected_revenue_365"])
        for (day, offering, name), (users, total) in sorted(truth.items()):
            w.writerow([day, offering, name, users, repr(total / users), repr(expected[name])])
    for day in READING_DAYS:
        as_of = (START + timedelta(days=day)).strftime("%Y-%m-%dT%H:%M:%SZ")
        with open(os.path.join(args.out, f"job-day{day}.yaml"), "w") as f:
            f.write(f"# The {args.setting} setting read on day {day} (tools/projection-calibration).\n"
                    f"tables: tables/\nlogs: [\"logs/*.jsonl.gz\"]\nas_of: {as_of}\nreport_currency: USD\nalpha: 0.05\n"
                    f"control: {groups[0]['name']}\noutput: out-day{day}/\ndatabase: out-day{day}/results.sqlite\n")
    print(f"{args.setting}: {args.tests} tests, {user_number} members, {len(lines)} events", file=sys.stderr)


if __name__ == "__main__":
    main()
