"""docs/analysis.md §8 (proceeds) and §9 (trials and subscriptions), worked by hand.

One offering `test` with groups control (10) and treatment (11); as_of 2026-03-16T00:00:00Z;
USD report currency.
"""

from __future__ import annotations

import math
from pathlib import Path

from conftest import event, make_dataset, purchase, run

HEADER = "user_id,subscription_offering_id,offering_group_id,assigned_at\n"
A = "2026-03-01T00:00:00Z"
AS_OF = "2026-03-16T00:00:00Z"


def assign(*users: str, at: str = A) -> str:
    return HEADER + "".join(f"{user},1,10,{at}\n" for user in users)


def close(text: str, value: float) -> bool:
    return math.isclose(float(text), value, rel_tol=1e-12, abs_tol=1e-12)


def test_a_chain_crossing_its_first_year(tmp_path: Path, tmp_out: Path):
    # The chain's first charge is before the assignment (not counted, but the store's year
    # starts there): 364 days later 30 %, 365 days later 15 %; without original id 30 %.
    events = [
        purchase("u1", "2025-03-01T00:00:00Z", "p1", price=100, original_transaction_id="o1"),
        event("u1", "renewal", "2026-02-28T00:00:00Z", product_id="p1", transaction_id="r1", original_transaction_id="o1", price=100, currency="USD"),
        event("u1", "renewal", "2026-03-01T00:00:00Z", product_id="p1", transaction_id="r2", original_transaction_id="o1", price=100, currency="USD"),
        event("u1", "renewal", "2026-03-02T00:00:00Z", product_id="p1", transaction_id="r3", price=100, currency="USD"),
    ]
    out = run(make_dataset(tmp_path, assignments=assign("u1", at="2025-06-01T00:00:00Z"), events=events), tmp_out)
    row = out.group("test", "control")
    assert row["net_revenue"] == "300"
    assert close(row["net_proceeds"], 70 + 85 + 70)


def test_a_prorated_refund_and_vat(tmp_path: Path, tmp_out: Path):
    # c1 on Play: 10 -> 8.5, a refund of 4 takes back 8.5 x 4/10 = 3.4: 5.1. d1 in DE (19 %):
    # 11.9 / 1.19 x 0.7 = 7. f1 in FR (no rate): 7. r1 with RevenueCat's shares: 10 x 0.75.
    events = [
        purchase("c1", "2026-03-02T00:00:00Z", "a", store="play_store"),
        event("c1", "refund", "2026-03-03T00:00:00Z", product_id="p1", transaction_id="a", price=4, currency="USD"),
        purchase("d1", "2026-03-02T00:00:00Z", "b", price="11.9", country="DE"),
        purchase("f1", "2026-03-02T00:00:00Z", "c", country="FR"),
        purchase("r1", "2026-03-02T00:00:00Z", "d", country="DE", tax_percentage=0.1, commission_percentage="0.15"),
    ]
    job = make_dataset(tmp_path, assignments=assign("c1", "d1", "f1", "r1"), events=events, job="tax_rates: {DE: 0.19}")
    row = run(job, tmp_out).group("test", "control")
    assert close(row["net_proceeds"], 5.1 + 7 + 7 + 7.5)
    assert close(row["proceeds_per_user"], (5.1 + 7 + 7 + 7.5) / 4)


def test_trials_and_subscribers_as_of_the_night(tmp_path: Path, tmp_out: Path):
    trial = lambda user, ts, txn, **fields: event(user, "trial_start", ts, product_id="p1", transaction_id=txn, **fields)
    events = [
        trial("t1", "2026-03-09T00:00:00Z", "t1t", expires_at=AS_OF),  # ends exactly at as_of: lapsed
        trial("t2", "2026-03-14T00:00:00Z", "t2t", expires_at="2026-03-21T00:00:00Z"),  # pending
        trial("t3", "2026-03-10T00:00:00Z", "t3t"),  # no end: unknown
        trial("t4", "2026-03-02T00:00:00Z", "t4t"),  # converted without expires_at: churned
        purchase("t4", "2026-03-09T00:00:00Z", "t4p"),
        purchase("s1", "2026-03-10T00:00:00Z", "s1p", expires_at="2026-04-10T00:00:00Z"),  # refunded: churned
        event("s1", "refund", "2026-03-11T00:00:00Z", product_id="p1", transaction_id="s1p", price=1, currency="USD"),
        purchase("s2", "2026-03-10T00:00:00Z", "s2p", expiresAt="2026-04-10T00:00:00Z"),  # active
    ]
    row = run(make_dataset(tmp_path, assignments=assign("t1", "t2", "t3", "t4", "s1", "s2"), events=events), tmp_out).group("test", "control")
    assert [row[c] for c in ("trials_converted", "trials_pending", "trials_lapsed", "trials_unknown")] == ["1", "1", "1", "1"]
    assert row["trial_completed_conversion_rate"] == "0.5"
    assert (row["active_subscribers"], row["churned_subscribers"]) == ("1", "2")


def test_a_bad_fee_share_is_an_invalid_field(tmp_path: Path, tmp_out: Path):
    events = [
        purchase("u1", "2026-03-02T00:00:00Z", "a", tax_percentage=0.6, commission_percentage=0.4),
        purchase("u1", "2026-03-02T00:00:00Z", "b", tax_percentage=-0.1, commission_percentage=0.3),
        purchase("u1", "2026-03-02T00:00:00Z", "c", expires_at="2026-02-30T00:00:00Z"),  # valid, no expires_at
    ]
    out = run(make_dataset(tmp_path, assignments=assign("u1"), events=events), tmp_out)
    assert out.counter("malformed_invalid_field") == 2
    assert out.group("test", "control")["purchases"] == "1"


def test_refund_users_count_members_not_refunds(tmp_path: Path, tmp_out: Path):
    # docs/statistics.md, "The decision" (refund_user_rate): a1 has two counted refunds (one member), b1 one, o1
    # only an orphan refund (its transaction was never charged: not counted), n1 nothing. 2 of 4 members: 0.5.
    refund = lambda user, ts, txn: event(user, "refund", ts, product_id="p1", transaction_id=txn, price=1, currency="USD")
    events = [
        purchase("a1", "2026-03-02T00:00:00Z", "a"), purchase("a1", "2026-03-03T00:00:00Z", "a2"),
        refund("a1", "2026-03-04T00:00:00Z", "a"), refund("a1", "2026-03-05T00:00:00Z", "a2"),
        purchase("b1", "2026-03-02T00:00:00Z", "b"), refund("b1", "2026-03-04T00:00:00Z", "b"),
        refund("o1", "2026-03-04T00:00:00Z", "never-charged"),
    ]
    out = run(make_dataset(tmp_path, assignments=assign("a1", "b1", "o1", "n1"), events=events), tmp_out)
    row = out.group("test", "control")
    assert (row["refunds"], row["refund_users"], row["refund_user_rate"]) == ("3", "2", "0.5")


def test_exact_proceeds_share_is_of_the_charges_before_refunds(tmp_path: Path, tmp_out: Path):
    # docs/analysis.md §8, exact_proceeds_share. Control: u1's purchase states both shares (10 x 0.75
    # = 7.5, exact), its renewal neither (the App Store's 30 %: 7), half the purchase refunded (the
    # net proceeds lose 3.75, the share does not); u2's 5 EUR (10 USD) states its tax alone (the
    # rules: 7), its 100 JPY has no rate (no proceeds). 7.5 of 21.5 = 15/43. Treatment: u3's charge
    # states 0 % tax and 30 % commission: 7 of 7. A group without charges: empty.
    assignments = HEADER + f"u1,1,10,{A}\nu2,1,10,{A}\nu3,1,11,{A}\n"
    events = [
        purchase("u1", "2026-03-02T00:00:00Z", "p1", tax_percentage=0.1, commission_percentage=0.15),
        event("u1", "renewal", "2026-03-09T00:00:00Z", product_id="p1", transaction_id="r1", price=10, currency="USD"),
        event("u1", "refund", "2026-03-10T00:00:00Z", product_id="p1", transaction_id="p1", price=5, currency="USD"),
        purchase("u2", "2026-03-05T00:00:00Z", "p2", price=5, currency="EUR", tax_percentage=0.2),
        purchase("u2", "2026-03-06T00:00:00Z", "p3", price=100, currency="JPY", tax_percentage=0.1, commission_percentage=0.15),
        purchase("u3", "2026-03-03T00:00:00Z", "p4", tax_percentage=0, commission_percentage=0.3),
    ]
    out = run(make_dataset(tmp_path, assignments=assignments, events=events), tmp_out)
    control, treatment = out.group("test", "control"), out.group("test", "treatment")
    assert close(control["exact_proceeds_share"], 15 / 43)
    assert close(control["net_proceeds"], 17.75)
    assert treatment["exact_proceeds_share"] == "1"
    alone = run(make_dataset(tmp_path / "alone", assignments=assign("n1"), events=[]), tmp_path / "alone-out")
    assert alone.group("test", "control")["exact_proceeds_share"] == ""
