"""aa_period_run.py's data: each setting makes the purchases its docstring says."""
import datetime as dt
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import aa_period_run as study  # noqa: E402

DRAWS = 100_000


def test_one_price_settings_charge_the_catalog_price():
    rng = np.random.default_rng(1)
    for name in ("yearly", "monthly", "yearly-flat-late"):
        setting = study.SETTINGS[name]
        assert {study.purchase_price(rng, setting) for _ in range(1000)} == {setting["price"]}


def test_heavy_tail_prices_are_pareto_of_shape_one_and_a_half_cut_at_the_highest_price():
    rng = np.random.default_rng(2)
    prices = np.array([study.purchase_price(rng, study.SETTINGS["yearly-heavy-tail"]) for _ in range(DRAWS)])
    scale = 59.99 / 3  # the Pareto's minimum: mean × (shape − 1) / shape
    assert prices.min() >= round(scale, 2) and prices.max() == study.HIGHEST_PRICE
    # Median scale·2^(1/1.5) = 31.75; the share cut at 999.99 is (scale / 999.99)^1.5 = 0.283 %.
    assert abs(np.median(prices) - scale * 2 ** (1 / 1.5)) < 0.5
    cut = np.mean(prices == study.HIGHEST_PRICE)
    assert abs(cut - (scale / study.HIGHEST_PRICE) ** 1.5) < 4 * math.sqrt(0.00283 / DRAWS)


def test_flat_late_purchases_are_a_third_spread_over_the_year():
    rng = np.random.default_rng(3)
    flat = np.array([study.purchase_delay_days(rng, study.SETTINGS["yearly-flat-late"]) for _ in range(DRAWS)])
    fast = np.array([study.purchase_delay_days(rng, study.SETTINGS["yearly"]) for _ in range(DRAWS)])
    # After day 30 only the flat share is left: (1/3)·(335/365) = 0.306; none of the exponential's.
    assert abs(np.mean(flat > 30) - (335 / 365) / 3) < 0.01
    assert np.mean(fast > 30) == 0
    assert flat.max() < 365


def test_a_refund_takes_back_the_price_its_purchase_was_charged():
    rng = np.random.default_rng(4)
    at = dt.datetime(2025, 1, 6, tzinfo=dt.timezone.utc)
    horizon = at + dt.timedelta(days=400)
    refunded = 0
    for user in range(20_000):
        lines = [json.loads(text) for _, text in study.member_events(f"u{user}", at, rng, study.SETTINGS["yearly-heavy-tail"], horizon)]
        purchases = {line["transaction_id"]: line["price"] for line in lines if line["event"] == "purchase"}
        for line in lines:
            if line["event"] == "refund":
                refunded += 1
                assert line["price"] == purchases[line["transaction_id"]]
    assert refunded > 50  # 20,000 × 0.15 × 0.05 = 150 expected
