"""One rule of docs/analysis.md §1–§3 per test, on tiny data sets built in a temporary folder.

Unless said otherwise: one offering `test` (id 1) with groups control (10) and treatment (11),
weights 1/1; as_of 2026-03-16T00:00:00Z; USD report currency, EUR rate 2; no window.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import event, make_dataset, purchase, run, run_failing

HEADER = "user_id,subscription_offering_id,offering_group_id,assigned_at\n"
A = "2026-03-01T00:00:00Z"  # the usual assignment time


def assign(*rows: str) -> str:
    return HEADER + "".join(row + "\n" for row in rows)


# --------------------------------------------------------------------------- deduplication

def test_event_id_earliest_ts_wins_then_file_order_across_sorted_files(tmp_path: Path, tmp_out: Path):
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}", f"u2,1,10,{A}"))
    logs = tmp_path / "logs"
    (logs / "events.jsonl").unlink()
    # Files are read in sorted path order: a.jsonl before b.jsonl whatever the glob says.
    # E1: same ts in both files -> a.jsonl's (price 10) wins over b.jsonl's (price 99).
    # E2: b.jsonl's copy is earlier -> it wins although it is later in file order.
    (logs / "b.jsonl").write_text("\n".join(json.dumps(e) for e in [
        purchase("u1", "2026-03-02T00:00:00Z", "T1b", price=99, event_id="E1"),
        purchase("u2", "2026-03-02T00:00:00Z", "T2b", price=7, event_id="E2"),
    ]) + "\n")
    (logs / "a.jsonl").write_text("\n".join(json.dumps(e) for e in [
        purchase("u1", "2026-03-02T00:00:00Z", "T1a", price=10, event_id="E1"),
        purchase("u2", "2026-03-03T00:00:00Z", "T2a", price=5, event_id="E2"),
    ]) + "\n")
    job.write_text(job.read_text().replace('logs: ["logs/*"]', 'logs: ["logs/b.jsonl", "logs/a.jsonl"]'))
    out = run(job, tmp_out)
    assert out.counter("duplicate_events") == 2
    assert out.group("test", "control")["net_revenue"] == "17"  # 10 (u1) + 7 (u2)


def test_event_id_deduplication_comes_before_transaction_deduplication(tmp_path: Path, tmp_out: Path):
    # A (E1, purchase T1, 03-03) loses to B (E1, paywall_view, 03-02) on event_id. Then C
    # (purchase T1, 03-04) has no rival left on (purchase, T1) and survives. In the other order
    # A would have beaten C and then lost to B: no purchase at all.
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}"), events=[
        purchase("u1", "2026-03-03T00:00:00Z", "T1", price=10, event_id="E1"),
        event("u1", "paywall_view", "2026-03-02T00:00:00Z", event_id="E1"),
        purchase("u1", "2026-03-04T00:00:00Z", "T1", price=30),
    ])
    out = run(job, tmp_out)
    row = out.group("test", "control")
    assert (row["converters"], row["net_revenue"], row["paywall_viewers"]) == ("1", "30", "1")
    assert out.counter("duplicate_events") == 1


def test_transaction_duplicates_per_event_type_only(tmp_path: Path, tmp_out: Path):
    # (purchase, T1) twice -> one copy removed; a renewal and a refund with T1 are other keys;
    # paywall views are never deduplicated by transaction.
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}"), events=[
        purchase("u1", "2026-03-02T00:00:00Z", "T1", price=10),
        purchase("u1", "2026-03-02T00:00:00Z", "T1", price=10),
        event("u1", "renewal", "2026-03-03T00:00:00Z", product_id="p1", transaction_id="T1", price=4, currency="USD"),
        event("u1", "paywall_view", "2026-03-02T00:00:00Z", transaction_id="T1"),
        event("u1", "paywall_view", "2026-03-02T00:00:00Z", transaction_id="T1"),
    ])
    out = run(job, tmp_out)
    row = out.group("test", "control")
    assert out.counter("duplicate_events") == 1
    assert (row["purchases"], row["renewals"], row["net_revenue"]) == ("1", "1", "14")


def test_as_of_filter_applies_before_deduplication(tmp_path: Path, tmp_out: Path):
    # The copy at as_of is dropped first, so it is not a removed duplicate.
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}"), events=[
        purchase("u1", "2026-03-02T00:00:00Z", "T1", event_id="E1"),
        purchase("u1", "2026-03-16T00:00:00Z", "T1", event_id="E1"),
        event("u1", "paywall_view", "2026-03-17T00:00:00+05:00"),  # 03-16T19:00Z: dropped
    ])
    out = run(job, tmp_out)
    assert out.counter("duplicate_events") == 0
    assert out.group("test", "control")["paywall_viewers"] == "0"


def test_unknown_sandbox_unassigned_are_counted_after_deduplication(tmp_path: Path, tmp_out: Path):
    # Sandbox purchase T1 (earlier) beats the production copy: then it is dropped as sandbox,
    # so u1 has no purchase. Two copies of an unknown event: one duplicate, one unknown type.
    # Two copies of an unassigned user's event: one duplicate, one unassigned.
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}"), events=[
        purchase("u1", "2026-03-02T00:00:00Z", "T1", environment="Sandbox"),
        purchase("u1", "2026-03-03T00:00:00Z", "T1"),
        event("u1", "upgrade", "2026-03-02T00:00:00Z", event_id="U"),
        event("u1", "upgrade", "2026-03-02T00:00:00Z", event_id="U"),
        event("nobody", "paywall_view", "2026-03-02T00:00:00Z", event_id="N"),
        event("nobody", "paywall_view", "2026-03-02T00:00:00Z", event_id="N"),
        event("u1", "Purchase", "2026-03-02T00:00:00Z"),  # event names are case-sensitive
        event("u1", "paywall_view", "2026-03-02T00:00:00Z", environment="production"),
    ])
    out = run(job, tmp_out)
    assert (out.counter("duplicate_events"), out.counter("sandbox_events"), out.counter("unknown_event_types"),
            out.counter("unassigned_events")) == (3, 1, 2, 1)
    row = out.group("test", "control")
    assert (row["converters"], row["paywall_viewers"]) == ("0", "1")


# --------------------------------------------------------------------------- population

def test_invalid_assignments_global_and_per_offering(tmp_path: Path, tmp_out: Path):
    offerings = "id,offering_id,name,is_active\n1,test,T,1\n2,other,O,1\n3,quiet,Q,0\n"
    groups = ("id,subscription_offering_id,group_name,weight\n10,1,control,1\n11,1,treatment,1\n"
              "20,2,control,1\n30,3,control,1\n")
    job = make_dataset(tmp_path, offerings=offerings, groups=groups, assignments=assign(
        f"u1,1,10,{A}",
        f"u2,1,20,{A}",            # group of `other`: invalid for test
        f"u3,1,77,{A}",            # unknown group: invalid for test
        f"u4,1,x,{A}",             # unreadable group id: invalid for test
        f",1,10,{A}",              # NULL user: invalid for test
        "u5,1,10,yesterday",      # unreadable time: invalid for test
        "u6,1,10,2026-03-01T25:00:00Z",  # impossible time: invalid for test
        f"u7,8,10,{A}",            # unknown offering: global
        f"u8,,10,{A}",             # NULL offering: global
        f"u9,3,10,{A}",            # `quiet`: group of another offering -> invalid for quiet
        "u10,1,99,2026-03-16T00:00:00Z",  # at as_of: ignored, no counter
    ), events=[event("u2", "paywall_view", "2026-03-02T00:00:00Z")])  # u2 has no valid row
    out = run(job, tmp_out)
    assert out.counter("invalid_assignments") == 2
    assert out.counter("invalid_assignments", "test") == 6
    assert out.counter("unassigned_events") == 1
    # Analysed by default: offerings with a row before as_of, valid or not: quiet and test
    # (other has no row). quiet's only row is invalid: it has its groups with 0 users.
    assert sorted({r["offering_id"] for r in out.summary}) == ["quiet", "test"]
    assert out.counter("invalid_assignments", "quiet") == 1
    quiet = out.group("quiet", "control")
    assert (quiet["users"], quiet["conversion_rate"], quiet["arpu"], quiet["arpu_sd"]) == ("0", "", "", "")
    assert [r for r in out.srm if r["offering_id"] == "quiet"][0]["chi2"] == ""


def test_multi_group_users_are_excluded_and_not_unassigned(tmp_path: Path, tmp_out: Path):
    job = make_dataset(tmp_path, assignments=assign(
        f"u1,1,10,{A}", "u1,1,11,2026-03-02T00:00:00Z", "u1,1,10,2026-03-03T00:00:00Z",  # 3 rows, 2 groups
        f"u2,1,11,{A}", "u2,1,11,2026-02-01T00:00:00Z",  # same group twice: earliest (02-01) counts
    ), events=[
        purchase("u1", "2026-03-05T00:00:00Z", "T1"),
        purchase("u2", "2026-02-15T00:00:00Z", "T2"),  # after 02-01: counts
    ])
    out = run(job, tmp_out)
    assert out.counter("multi_group_users", "test") == 1
    assert out.counter("unassigned_events") == 0
    assert out.group("test", "control")["users"] == "0"
    assert (out.group("test", "treatment")["users"], out.group("test", "treatment")["converters"]) == ("1", "1")
    assert out.counter("pre_assignment_events", "test") == 0


def test_job_offerings_and_unknown_offering_is_an_error(tmp_path: Path, tmp_out: Path, capsys):
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}"), job="offerings: [nope]")
    error = run_failing(job, tmp_out, capsys)
    assert "unknown offering" in error and "nope" in error


def test_named_offering_without_assignments_gets_rows(tmp_path: Path, tmp_out: Path):
    job = make_dataset(tmp_path, assignments=HEADER, job="offerings: test")
    out = run(job, tmp_out)
    assert [r["users"] for r in out.summary] == ["0", "0"]
    conv = out.comparison("test", "treatment", "conversion")
    assert all(conv[k] == "" for k in ("control_value", "value", "abs_lift", "p_value", "significant", "mde_abs"))


@pytest.mark.parametrize("control_key, groups, expected", [
    # the job's control when the offering has it
    ("control: b", "10,1,a,1\n11,1,b,1\n12,1,control,1\n", "b"),
    # else the group named control
    ("control: zzz", "10,1,a,1\n11,1,b,1\n12,1,control,1\n", "control"),
    ("", "10,1,a,1\n12,1,control,1\n", "control"),
    # else the lowest id (not the first row)
    ("", "12,1,b,1\n11,1,a,1\n", "a"),
])
def test_control_group_choice(tmp_path: Path, tmp_out: Path, control_key, groups, expected):
    job = make_dataset(tmp_path, assignments=HEADER, job=control_key + "\nofferings: [test]",
                       groups="id,subscription_offering_id,group_name,weight\n" + groups)
    out = run(job, tmp_out)
    assert [r["group"] for r in out.summary if r["is_control"] == "true"] == [expected]
    assert {r["control_group"] for r in out.comparisons} == {expected}


# --------------------------------------------------------------------------- attribution

def test_window_boundaries_and_pre_assignment(tmp_path: Path, tmp_out: Path):
    # assigned 03-01T00:00; window 1.5 days -> counts while ts < 03-02T12:00.
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}"), job="conversion_window_days: 1.5", events=[
        event("u1", "paywall_view", "2026-02-28T23:59:59.999999Z"),   # pre-assignment
        event("u1", "paywall_view", "2026-03-01T00:00:00Z"),          # = assigned_at: counts
        event("u1", "trial_start", "2026-03-02T11:59:59.999999Z", product_id="p", transaction_id="TT"),  # counts
        purchase("u1", "2026-03-02T12:00:00Z", "T1"),                  # = end of window: nowhere
        event("u1", "cancel", "2026-02-01T00:00:00Z"),                 # pre-assignment too
    ])
    out = run(job, tmp_out)
    row = out.group("test", "control")
    assert (row["paywall_viewers"], row["trial_starters"], row["converters"], row["purchases"]) == ("1", "1", "0", "0")
    assert out.counter("pre_assignment_events", "test") == 2


def test_without_window_late_events_count(tmp_path: Path, tmp_out: Path):
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}"), events=[purchase("u1", "2026-03-15T23:59:59Z", "T1")])
    assert run(job, tmp_out).group("test", "control")["converters"] == "1"


def test_refunds(tmp_path: Path, tmp_out: Path):
    # window 2 days: purchases counted until 03-03.
    job = make_dataset(tmp_path, job="conversion_window_days: 2", assignments=assign(
        f"u1,1,10,{A}", f"u2,1,10,{A}", f"u3,1,11,{A}"), events=[
        # u1: T1 4.5 EUR (= 9 USD) refunded without a price after the window: inherits 4.5 EUR.
        purchase("u1", "2026-03-02T00:00:00Z", "T1", price="4.5", currency="EUR"),
        event("u1", "refund", "2026-03-10T00:00:00Z", product_id="p1", transaction_id="T1"),
        # u1: T2 renewal 10 USD refunded with its own price in another currency: 1 EUR = 2 USD.
        event("u1", "renewal", "2026-03-02T01:00:00Z", product_id="p1", transaction_id="T2", price=10, currency="USD"),
        event("u1", "refund", "2026-03-11T00:00:00Z", product_id="p_other", transaction_id="T2", price=1, currency="EUR"),
        # u1: refund of a trial -> orphan; refund of u2's purchase -> orphan for u1.
        event("u1", "trial_start", "2026-03-01T01:00:00Z", product_id="p1", transaction_id="TT"),
        event("u1", "refund", "2026-03-02T00:00:00Z", product_id="p1", transaction_id="TT"),
        event("u1", "refund", "2026-03-02T00:00:00Z", product_id="p1", transaction_id="T5", price=1, currency="USD"),
        # u2: T5 bought; T6 after the window and its refund -> orphan; a refund naming nothing -> orphan.
        purchase("u2", "2026-03-01T12:00:00Z", "T5", price=6),
        purchase("u2", "2026-03-05T00:00:00Z", "T6", price=100),
        event("u2", "refund", "2026-03-06T00:00:00Z", product_id="p1", transaction_id="T6"),
        event("u2", "refund", "2026-03-06T00:00:00Z", product_id="p1", transaction_id="T404", price=1, currency="USD"),
        # u3: a purchase and a renewal share T7: the refund names the purchase (counted, 3 USD),
        # so it counts although the renewal with T7 is after the window.
        purchase("u3", "2026-03-02T00:00:00Z", "T7", price=3),
        event("u3", "renewal", "2026-03-09T00:00:00Z", product_id="p1", transaction_id="T7", price=3, currency="USD"),
        event("u3", "refund", "2026-03-12T00:00:00Z", product_id="p1", transaction_id="T7"),
    ])
    out = run(job, tmp_out)
    assert out.counter("orphan_refunds", "test") == 4
    control = out.group("test", "control")
    # u1 gross 9 + 10 = 19, refunded 9 + 2 = 11, net 8; u2 gross 6, net 6.
    assert (control["gross_revenue"], control["refunded_revenue"], control["net_revenue"]) == ("25", "11", "14")
    assert (control["purchases"], control["renewals"], control["refunds"]) == ("2", "1", "2")
    treatment = out.group("test", "treatment")
    assert (treatment["refunds"], treatment["net_revenue"], treatment["renewals"]) == ("1", "0", "0")
    products = {(r["group"], r["product_id"]): r for r in out.products}
    # A refund is listed under its own product id: p_other gets the -2 USD.
    assert products[("control", "p_other")]["refunds"] == "1"
    assert products[("control", "p_other")]["net_revenue"] == "-2"
    assert products[("control", "p1")]["net_revenue"] == "16"  # 9 + 10 - 9 + 6


def test_refund_of_a_pre_assignment_purchase_is_an_orphan(tmp_path: Path, tmp_out: Path):
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}"), events=[
        purchase("u1", "2026-02-20T00:00:00Z", "T1"),
        event("u1", "refund", "2026-03-05T00:00:00Z", product_id="p1", transaction_id="T1"),
    ])
    out = run(job, tmp_out)
    assert (out.counter("pre_assignment_events", "test"), out.counter("orphan_refunds", "test")) == (1, 1)
    assert out.products == []


def test_cancels_without_a_start_of_their_chain_before_them(tmp_path: Path, tmp_out: Path):
    charges = [
        # u1: a trial, then the charge that converts it; u2: a purchase without original_transaction_id,
        # and a trial of p4 naming no chain (its chain is its product's, as for its converting purchase).
        event("u1", "trial_start", "2026-03-02T00:00:00Z", product_id="p1", transaction_id="TT1", original_transaction_id="O1"),
        event("u2", "trial_start", "2026-03-02T00:00:00Z", product_id="p4", transaction_id="TT4"),
        purchase("u1", "2026-03-05T00:00:00Z", "T1", original_transaction_id="O1"),
        purchase("u2", "2026-03-02T00:00:00Z", "T2", product="p2"),
    ]
    cancels = [
        # Chainless: a chain never started; O1 before its trial; no chain named at all; p2's chain
        # named by an original_transaction_id its charge does not carry; p3, which u2 never bought.
        event("u1", "cancel", "2026-03-02T00:00:00Z", product_id="p9", original_transaction_id="O9"),
        event("u1", "cancel", "2026-03-01T12:00:00Z", product_id="p1", original_transaction_id="O1"),
        event("u1", "cancel", "2026-03-03T00:00:00Z"),
        event("u2", "cancel", "2026-03-03T00:00:00Z", product_id="p2", original_transaction_id="T2"),
        event("u2", "cancel", "2026-03-03T00:00:00Z", product_id="p3"),
        # With a chain: O1 during its trial (the trial's renewal turned off), at its first charge's
        # very time, and after; p2 by its product; u2's trial of p4 by its product.
        event("u1", "cancel", "2026-03-03T00:00:00Z", product_id="p1", original_transaction_id="O1"),
        event("u1", "cancel", "2026-03-05T00:00:00Z", product_id="p1", original_transaction_id="O1"),
        event("u1", "cancel", "2026-03-06T00:00:00Z", original_transaction_id="O1"),
        event("u2", "cancel", "2026-03-04T00:00:00Z", product_id="p2"),
        event("u2", "cancel", "2026-03-03T00:00:00Z", product_id="p4", original_transaction_id="O4"),
        # Before the assignment: pre_assignment_events, not a chainless cancel.
        event("u2", "cancel", "2026-02-20T00:00:00Z", product_id="p3"),
    ]
    assignments = assign(f"u1,1,10,{A}", f"u2,1,11,{A}")
    out = run(make_dataset(tmp_path / "with", assignments=assignments, events=charges + cancels), tmp_out / "with")
    assert (out.counter("chainless_cancels", "test"), out.counter("pre_assignment_events", "test")) == (5, 1)
    # Nothing else changes: the same night without the cancels.
    without = run(make_dataset(tmp_path / "without", assignments=assignments, events=charges), tmp_out / "without")
    assert (out.summary, out.products, out.comparisons) == (without.summary, without.products, without.comparisons)


def test_unknown_currency(tmp_path: Path, tmp_out: Path):
    # JPY has no rate: the purchase still converts, its money is left out, counted once per event;
    # currency codes are matched in any case (issue 41): "usd" is USD.
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}", f"u2,1,10,{A}"), events=[
        purchase("u1", "2026-03-02T00:00:00Z", "T1", price=1200, currency="JPY"),
        event("u1", "refund", "2026-03-03T00:00:00Z", product_id="p1", transaction_id="T1", price=100),  # inherits nothing: has a price but no currency
        purchase("u2", "2026-03-02T00:00:00Z", "T2", price=5, currency="usd"),
        purchase("u2", "2026-03-02T00:00:00Z", "T3", price=5, currency="USD"),
        event("u2", "refund", "2026-03-03T00:00:00Z", product_id="p1", transaction_id="T3", price=1, currency="JPY"),
    ])
    out = run(job, tmp_out)
    assert out.counter("malformed_missing_field") == 1  # price without currency
    assert out.counter("unknown_currency_events", "test") == 2  # T1 and the JPY refund
    row = out.group("test", "control")
    assert (row["converters"], row["purchases"], row["refunds"], row["net_revenue"]) == ("2", "3", "1", "10")


def test_attribution_mismatches(tmp_path: Path, tmp_out: Path):
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}"), events=[
        event("u1", "paywall_view", "2026-03-02T00:00:00Z", offering_id="test", test_group_id="control"),   # agrees
        event("u1", "paywall_view", "2026-03-02T00:00:00Z", offering_id="other"),                          # 1
        event("u1", "paywall_view", "2026-03-02T00:00:00Z", testGroupId="treatment"),                      # 1
        event("u1", "paywall_view", "2026-03-02T00:00:00Z", offering_id="other", test_group_id="x"),       # 1, once
        event("u1", "paywall_view", "2026-03-02T00:00:00Z", offering_id="Test"),                           # 1 (case)
        event("u1", "paywall_view", "2026-02-02T00:00:00Z", offering_id="other"),                          # not counted: pre
        event("u1", "paywall_view", "2026-03-02T00:00:00Z", offering_id=None, test_group_id=""),           # absent
    ])
    out = run(job, tmp_out)
    assert out.counter("attribution_mismatches", "test") == 4


def test_event_counts_for_every_offering_of_its_user(tmp_path: Path, tmp_out: Path):
    offerings = "id,offering_id,name,is_active\n1,test,T,1\n2,other,O,1\n"
    groups = ("id,subscription_offering_id,group_name,weight\n10,1,control,1\n11,1,treatment,1\n"
              "20,2,control,1\n21,2,treatment,1\n")
    job = make_dataset(tmp_path, offerings=offerings, groups=groups, assignments=assign(
        f"u1,1,10,{A}", "u1,2,21,2026-03-03T00:00:00Z"), events=[
        purchase("u1", "2026-03-05T00:00:00Z", "T1", offering_id="test", test_group_id="control"),
        purchase("u1", "2026-03-02T00:00:00Z", "T0"),  # before u1's assignment to other
        purchase("u1", "2026-03-06T00:00:00Z", "T2", offering_id="autumn"),  # an offering u1 is not in
    ])
    out = run(job, tmp_out)
    assert out.group("test", "control")["net_revenue"] == "30"
    assert out.group("other", "treatment")["net_revenue"] == "20"
    # T1 names test, which u1 is in: for other it is test's event (tests overlap), no mismatch;
    # T2 names autumn, which u1 is not in: a mismatch in both.
    assert (out.counter("attribution_mismatches", "other"), out.counter("pre_assignment_events", "other")) == (1, 1)
    assert out.counter("attribution_mismatches", "test") == 1
    assert (out.counter("attribution_mismatch_users", "test"), out.counter("attribution_mismatch_users", "other")) == (1, 1)


def test_trial_conversion_matching(tmp_path: Path, tmp_out: Path):
    def trial(user, ts, product="p1", **fields):
        return event(user, "trial_start", ts, product_id=product, transaction_id="TT" + user, **fields)

    d1, d2, d3 = "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z", "2026-03-04T00:00:00Z"
    users = [f"u{i}" for i in range(1, 8)]
    job = make_dataset(tmp_path, assignments=assign(*(f"{u},1,10,{A}" for u in users)), events=[
        # u1: same original_transaction_id (other product) -> converted
        trial("u1", d1, original_transaction_id="O1"), purchase("u1", d2, "P1", product="p2", original_transaction_id="O1"),
        # u2: the trial has an otid, the purchase none (same product) -> not converted
        trial("u2", d1, original_transaction_id="O2"), purchase("u2", d2, "P2"),
        # u3: trial without otid -> same product id -> converted (the purchase's otid is irrelevant)
        trial("u3", d1), purchase("u3", d2, "P3", original_transaction_id="Z"),
        # u4: trial without otid, other product -> not converted
        trial("u4", d1), purchase("u4", d2, "P4", product="p2"),
        # u5: purchase before the trial -> not converted
        trial("u5", d2, original_transaction_id="O5"), purchase("u5", d1, "P5", original_transaction_id="O5"),
        # u6: purchase at the same instant as the trial -> converted
        trial("u6", d3), purchase("u6", d3, "P6"),
        # u7: different otid -> not converted; a renewal of the chain does not convert
        trial("u7", d1, original_transaction_id="O7"), purchase("u7", d2, "P7", original_transaction_id="O8"),
        event("u7", "renewal", d3, product_id="p1", transaction_id="R7", original_transaction_id="O7", price=1, currency="USD"),
    ])
    row = run(job, tmp_out).group("test", "control")
    assert (row["trial_starters"], row["trial_converters"], row["converters"]) == ("7", "3", "7")
    assert row["trial_conversion_rate"] == repr(3 / 7)


def test_ids_are_text_and_integers_are_their_decimal_text(tmp_path: Path, tmp_out: Path):
    job = make_dataset(tmp_path, assignments=assign(f"00123,1,10,{A}", f"123,1,11,{A}",
                                                    f"123456789012345678901234567890,1,11,{A}"), events=[
        event(123, "paywall_view", "2026-03-02T00:00:00Z"),
        event("00123", "trial_start", "2026-03-02T00:00:00Z", product_id=5, transaction_id=6),
        event(123456789012345678901234567890, "paywall_view", "2026-03-02T00:00:00Z"),
        purchase("123", "2026-03-03T00:00:00Z", 77, product=5),
        purchase("123", "2026-03-03T00:00:00Z", "77", product=5),  # the same (event, transaction_id)
    ])
    out = run(job, tmp_out)
    control, treatment = out.group("test", "control"), out.group("test", "treatment")
    assert (control["users"], control["paywall_viewers"], control["trial_starters"]) == ("1", "0", "1")
    assert (treatment["users"], treatment["paywall_viewers"], treatment["purchases"]) == ("2", "2", "1")
    assert out.counter("duplicate_events") == 1
    assert [r["product_id"] for r in out.products] == ["5"]


def test_money_is_exact_in_micro_units(tmp_path: Path, tmp_out: Path):
    # 0.1 + 0.2 is summed exactly (300 000 micro-units), converted once: 0.3 * 1.
    # 7.9999995 rounds half to even to 8.000000 ; 0.0000025 -> 2 micro-units (half to even).
    job = make_dataset(tmp_path, assignments=assign(f"u1,1,10,{A}", f"u2,1,11,{A}"), events=[
        purchase("u1", "2026-03-02T00:00:00Z", "T1", price="0.1"),
        event("u1", "renewal", "2026-03-03T00:00:00Z", product_id="p1", transaction_id="T2", price=0.2, currency="USD"),
        purchase("u2", "2026-03-02T00:00:00Z", "T3", price="7.9999995"),
        event("u2", "renewal", "2026-03-03T00:00:00Z", product_id="p1", transaction_id="T4", price="0.0000025", currency="USD"),
    ])
    out = run(job, tmp_out)
    assert out.group("test", "control")["net_revenue"] == "0.3"  # not 0.30000000000000004
    assert out.group("test", "treatment")["net_revenue"] == "8.000002"
