"""The simulator's past (earlier buyers of the members' product_ids, in history/) and its truth of
a newcomer's expected revenue_365, checked on small generated data sets."""
import csv
import glob
import gzip
import json
import math
import os
import subprocess
import sys
from datetime import datetime

import numpy as np
import pytest

HERE = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, HERE)

import simulate  # noqa: E402
from simulate import DAY, START, Member, group, product  # noqa: E402


def generate(tmp_path_factory, setting):
    out = tmp_path_factory.mktemp(setting)
    subprocess.run([sys.executable, os.path.join(HERE, "simulate.py"), "--setting", setting, "--tests", "2", "--users-per-day", "10",
                    "--past-per-day", "1", "--truth-entrants", "2000", "--out", str(out)], check=True, capture_output=True)
    return out


def events(folder):
    records = []
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl.gz"))):
        with gzip.open(path, "rt") as f:
            records += [json.loads(line) for line in f]
    return records


def seconds(ts):
    return (datetime.fromisoformat(ts.replace("Z", "+00:00")) - START).total_seconds()


def renewal_share(records):
    """Renewals per charge that could renew: how often a chain goes on."""
    kinds = [r["event"] for r in records]
    return kinds.count("renewal") / (kinds.count("purchase") + kinds.count("renewal"))


@pytest.fixture(scope="module")
def loyal(tmp_path_factory):
    return generate(tmp_path_factory, "past-loyal")


def test_the_past_is_earlier_buyers_of_the_members_products_and_none_of_the_members(loyal):
    with open(os.path.join(loyal, "tables", "user_offering_assignments.csv")) as f:
        members = {row["user_id"] for row in csv.DictReader(f)}
    with open(os.path.join(loyal, "tables", "subscription_offering_group_products.csv")) as f:
        products = {row["product_id"] for row in csv.DictReader(f)}
    past = events(os.path.join(loyal, "history"))
    assert len({r["user_id"] for r in past}) == 2 * 2 * 365  # 2 tests × 2 products × 365 earlier buyers
    assert not members & {r["user_id"] for r in past}
    assert {r["product_id"] for r in past} == products
    assert all("offering_id" not in r for r in past)
    with open(os.path.join(loyal, "job-day30.yaml")) as f:
        assert 'history_logs: ["history/*.jsonl.gz"]' in f.read()


def test_past_chains_start_in_the_year_before_the_test_and_renew_a_period_apart(loyal):
    chains = {}
    for r in events(os.path.join(loyal, "history")):
        chains.setdefault(r["original_transaction_id"], []).append(r)
    firsts = []
    for chain in chains.values():
        charges = sorted((r for r in chain if r["event"] != "refund"), key=lambda r: seconds(r["ts"]))
        assert charges[0]["event"] == "purchase" and all(r["event"] == "renewal" for r in charges[1:])
        firsts.append(seconds(charges[0]["ts"]))
        period = simulate.PERIOD_DAYS["weekly" if charges[0]["product_id"].startswith("weekly") else "monthly"] * DAY
        for before, after in zip(charges, charges[1:]):
            gap = seconds(after["ts"]) - seconds(before["ts"])
            assert period + 60 <= gap <= period + 7200 + 1
            assert seconds(before["expires_at"]) == pytest.approx(seconds(before["ts"]) + period, abs=0.002)
        assert seconds(charges[-1]["ts"]) < 60 * DAY  # simulated to the last reading day, not beyond
    assert min(firsts) >= -365 * DAY and max(firsts) < 0
    # Spread over the whole year: each quarter holds about a quarter of the first charges.
    quarters = np.histogram(firsts, bins=4, range=(-365 * DAY, 0))[0]
    assert all(abs(q / len(firsts) - 0.25) < 0.05 for q in quarters)


def test_the_loyal_settings_past_renews_far_more_than_its_members(loyal):
    past = renewal_share(events(os.path.join(loyal, "history")))
    members = renewal_share(events(os.path.join(loyal, "logs")))
    # The past renews at 0.9 then 0.97, the members at 0.35 then 0.6 (last charges not yet due and
    # refunds lower both shares).
    assert past > 0.85 and members < 0.6


def test_a_product_never_sold_before_has_no_past(tmp_path_factory):
    out = generate(tmp_path_factory, "past-new-price")
    past = {r["product_id"] for r in events(os.path.join(out, "history"))}
    assert past == {"weekly_699_t0000", "weekly_699_t0001"}
    with open(os.path.join(out, "expected.csv")) as f:
        rows = list(csv.DictReader(f))
    assert [(r["group"], r["past"], r["period_test"]) for r in rows[:2]] == [("current", "like", "0"), ("new-price", "none", "0")]


def test_an_old_setting_has_no_past_and_an_aa_test_no_winner(tmp_path_factory):
    out = generate(tmp_path_factory, "aa")
    assert not os.path.exists(os.path.join(out, "history"))
    with open(os.path.join(out, "job-day60.yaml")) as f:
        assert "history_logs" not in f.read()
    with open(os.path.join(out, "expected.csv")) as f:
        rows = list(csv.DictReader(f))
    assert {r["wins_year"] for r in rows} == {"0"}
    assert rows[0]["expected_revenue_365"] == rows[1]["expected_revenue_365"]


def test_the_expected_newcomer_revenue_matches_a_brute_force_monte_carlo():
    # Entries on the paywall and late (falling over months), a trial for late entrants, monthly
    # renewals by member type, refunds, and entries late enough that the 365-day horizon cuts chains.
    spec = group("g", 0.3, simulate.falling_late(0.05, 40),
                 [product("m", "monthly", 10.0, 0.7, [(0.5, simulate.flat(0.4, 0.6)), (0.5, simulate.flat(0.9, 0.95))], refund=0.05),
                  product("p", "3_day_pass", 3.0, 0.3, trial_days=3, trial_share=0.5, trial_conversion=0.5)],
                 late_trial_share=1.0)
    expected, se, early = simulate.expected_newcomer(spec, np.random.default_rng(1), 20_000)
    rng = np.random.default_rng(2)
    brute = [Member(0.0, spec, rng) for _ in range(20_000)]
    revenues = [m.revenue365 for m in brute]
    brute_mean, brute_se = np.mean(revenues), np.std(revenues, ddof=1) / math.sqrt(len(revenues))
    assert abs(expected - brute_mean) < 4 * math.hypot(se, brute_se)
    assert math.hypot(se, brute_se) < 0.03 * expected  # a test that would see a 12 % error
    entrants = [m for m in brute if m.events]
    assert early == pytest.approx(np.mean([m.events[0][1] < 30 * DAY for m in entrants]), abs=0.02)
