"""countdown_run.py: the data are the Swift fixture's, the true decision day is the plan's, and the
criterion is the issue's."""
import csv
import gzip
import json
import math
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import countdown_run as study  # noqa: E402


def test_unit_is_the_swift_fixtures_splitmix_finaliser():
    # DecisionCountdownTests.unit(0, 1) and unit(1, 2), printed by the Swift fixture's function.
    assert study.unit(0, 0) == 0.0
    values = [study.unit(index, 1) for index in range(20_000)]
    assert all(0 <= value < 1 for value in values)
    assert abs(statistics.mean(values) - 0.5) < 0.01
    assert study.unit(7, 3) != study.unit(7, 4)


def test_the_data_renew_each_period_with_the_plans_probability(tmp_path):
    study.write_test_data(tmp_path, "monthly", tests=2, seed=0)
    with open(tmp_path / "tables" / "user_offering_assignments.csv", newline="") as handle:
        assignments = list(csv.DictReader(handle))
    assert len(assignments) == 2 * 100 * study.USERS_PER_DAY
    chains = {}
    for name in sorted(os.listdir(tmp_path / "logs")):
        with gzip.open(tmp_path / "logs" / name, "rt") as handle:
            for line in handle:
                record = json.loads(line)
                chains.setdefault(record["original_transaction_id"], []).append(record)
    buyers = len(chains)
    assert abs(buyers / len(assignments) - study.BUYER_SHARE) < 4 * math.sqrt(0.09 / len(assignments))
    # Every chain's charges one period apart, the first a purchase of its test's own product.
    for charges in chains.values():
        assert charges[0]["event"] == "purchase" and all(c["event"] == "renewal" for c in charges[1:])
        assert len({c["product_id"] for c in charges}) == 1
    # P(N > j) = 0.6^j: the chains with at least two charges among the buyers.
    renewed = sum(len(charges) >= 2 for charges in chains.values())
    assert abs(renewed / buyers - study.RENEWAL) < 4 * math.sqrt(0.24 / buyers)
    offerings = {row["subscription_offering_id"] for row in assignments}
    assert offerings == {"1", "2"}


def test_the_true_decision_day_is_where_simulated_members_reach_the_power():
    """An independent check of the moments: simulate members of tenures 0 … D − 1 and compute the
    power at the day the function gives and the day before."""
    rng = np.random.default_rng(5)
    plan = study.PLANS["monthly"]
    day = study.true_decision_day(plan)
    normal = statistics.NormalDist()

    def power(days, draws=400_000):
        tenure = rng.integers(0, days, draws)
        buys = rng.random(draws) < study.BUYER_SHARE
        due = tenure // plan["period_days"]
        # Charges: 1 + renewals kept, each kept with 0.6 given the one before, at most `due`.
        kept = np.minimum(rng.geometric(1 - study.RENEWAL, draws) - 1, due)
        revenue = np.where(buys, plan["price"] * (1 + kept), 0.0)
        cv2 = revenue.var() / revenue.mean() ** 2
        se = math.sqrt(2 * cv2 / (study.USERS_PER_DAY / 2 * days))
        z = normal.inv_cdf(0.975)
        return 1 - normal.cdf((z * se - 0.1) / se) + normal.cdf((-z * se - 0.1) / se)

    assert power(day + 5) > 0.8 > power(day - 5)


def test_the_criterion_is_six_weeks_within_a_tenth_of_the_first_value_never_rising():
    assert study.countdown([102, 97, 92, 87, 82, 76, 70]) == dict(drop=32, rose=False, meets=True)
    assert study.countdown([68, 66, 64, 62, 59, 55, 50])["meets"] is False
    assert study.countdown([76, 78, 70, 61, 54, 46, 38]) == dict(drop=38, rose=True, meets=False)
