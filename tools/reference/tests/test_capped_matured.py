"""docs/analysis.md §4b (capped revenue) and §4c (matured metrics), one rule per test, worked by hand.

One offering `test` with groups control (10) and treatment (11); as_of 2026-03-16T00:00:00Z;
USD report currency, EUR rate 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import event, make_dataset, purchase, run, run_failing

HEADER = "user_id,subscription_offering_id,offering_group_id,assigned_at\n"
A = "2026-03-01T00:00:00Z"


def assign(*rows: str) -> str:
    return HEADER + "".join(row + "\n" for row in rows)


# Control: c1 pays 10, c2 nothing, c3 pays 5 and gets 8 back (net -3).
# Treatment: t1 pays 60 + 40 = 100, t2 pays 20. Positive revenues pooled: [10, 20, 100].
PAYERS = assign(f"c1,1,10,{A}", f"c2,1,10,{A}", f"c3,1,10,{A}", f"t1,1,11,{A}", f"t2,1,11,{A}")
PAYMENTS = [
    purchase("c1", "2026-03-02T00:00:00Z", "C1", price=10),
    purchase("c3", "2026-03-02T00:00:00Z", "C3", price=5),
    event("c3", "refund", "2026-03-03T00:00:00Z", product_id="p1", transaction_id="C3", price=8, currency="USD"),
    purchase("t1", "2026-03-02T00:00:00Z", "T1", price=60),
    event("t1", "renewal", "2026-03-09T00:00:00Z", product_id="p1", transaction_id="T1r", price=40, currency="USD"),
    purchase("t2", "2026-03-02T00:00:00Z", "T2", price=20),
]


def capped(tmp_path: Path, tmp_out: Path, rule: str, events=PAYMENTS):
    job = make_dataset(tmp_path, assignments=PAYERS, events=events, job=f"revenue_cap: {rule}")
    out = run(job, tmp_out)
    return out, out.group("test", "control"), out.group("test", "treatment")


def test_percentile_cap_pools_the_groups_positive_revenues(tmp_path: Path, tmp_out: Path):
    # m = 3, p = 0.5: h = 1 -> x1 = 20. t1's 100 becomes 20; c3's -3 is not raised.
    out, control, treatment = capped(tmp_path, tmp_out, "{percentile: 0.5}")
    assert control["revenue_cap"] == treatment["revenue_cap"] == "20"
    assert (control["arpu_capped"], control["capped_users"]) == (repr(7 / 3), "0")  # (10 + 0 - 3) / 3
    assert (treatment["arpu_capped"], treatment["capped_users"]) == ("20", "1")  # (20 + 20) / 2
    assert treatment["arpu_capped_sd"] == "0"
    assert treatment["arpu"] == "60"  # uncapped unchanged
    assert out.comparison("test", "treatment", "arpu_capped")["value"] == "20"


def test_percentile_cap_of_one_and_two_values(tmp_path: Path, tmp_out: Path):
    # m = 1 (t1 alone): h = 0 -> the cap is 100 itself, nobody lowered.
    _, _, treatment = capped(tmp_path / "one", tmp_out / "one", "{percentile: 0.99}", PAYMENTS[3:5])
    assert (treatment["revenue_cap"], treatment["capped_users"]) == ("100", "0")
    # m = 2 (c1 10, t1 100): h = 0.99 -> 10 + 0.99 * 90 = 99.1 (as a double: 99.10000000000001).
    _, _, treatment = capped(tmp_path / "two", tmp_out / "two", "{percentile: 0.99}", [PAYMENTS[0]] + PAYMENTS[3:5])
    assert treatment["revenue_cap"] == repr(10 + 0.99 * 90)
    assert treatment["capped_users"] == "1"


def test_a_tie_at_the_cap_is_not_lowered(tmp_path: Path, tmp_out: Path):
    # [20, 20, 20, 100], p = 0.5: h = 1.5 between 20 and 20 -> 20; only t1 is over it.
    events = PAYMENTS[3:6] + [purchase("c1", "2026-03-02T00:00:00Z", "C1", price=20),
                              purchase("c2", "2026-03-02T00:00:00Z", "C2", price=20)]
    _, control, treatment = capped(tmp_path, tmp_out, "{percentile: 0.5}", events)
    assert (control["revenue_cap"], control["capped_users"], treatment["capped_users"]) == ("20", "0", "1")


def test_value_cap_and_no_positive_revenue(tmp_path: Path, tmp_out: Path):
    _, control, treatment = capped(tmp_path / "v", tmp_out / "v", "{value: 15}")
    assert (treatment["revenue_cap"], treatment["arpu_capped"], treatment["capped_users"]) == ("15", "15", "2")
    assert control["capped_users"] == "0"
    # Nobody pays: no cap (empty), the capped values equal the uncapped ones.
    _, control, _ = capped(tmp_path / "n", tmp_out / "n", "{percentile: 0.99}", [])
    assert (control["revenue_cap"], control["arpu_capped"], control["capped_users"]) == ("", "0", "0")


def test_without_a_cap_the_columns_are_empty(tmp_path: Path, tmp_out: Path):
    out = run(make_dataset(tmp_path, assignments=PAYERS, events=PAYMENTS), tmp_out)
    assert {out.group("test", "control")[c] for c in ("revenue_cap", "arpu_capped", "arpu_capped_sd", "capped_users")} == {""}
    assert {r["metric"] for r in out.comparisons} == {"conversion", "arpu", "proceeds_per_user", "trial_completed_conversion",
                                                      "refund_user_rate"}
    assert out.maturity == []


@pytest.mark.parametrize("rule, message", [
    ("{percentile: 1.5}", "percentile must be between 0 and 1"),
    ("{value: -5}", "value must be > 0"),
    ("{percentile: 0.9, value: 5}", "not both"),
])
def test_bad_cap_is_one_line(tmp_path: Path, tmp_out: Path, capsys, rule: str, message: str):
    job = make_dataset(tmp_path, assignments=PAYERS, job=f"revenue_cap: {rule}")
    assert message in run_failing(job, tmp_out, capsys)


@pytest.mark.parametrize("days, message", [("[0]", "not a positive whole number"), ("[7, 7]", "given twice")])
def test_bad_maturity_days_is_one_line(tmp_path: Path, tmp_out: Path, capsys, days: str, message: str):
    job = make_dataset(tmp_path, assignments=PAYERS, job=f"maturity_days: {days}")
    assert message in run_failing(job, tmp_out, capsys)


def test_assigned_exactly_d_days_before_as_of_is_matured(tmp_path: Path, tmp_out: Path):
    # as_of 03-16: 03-09T00:00 + 7 days = as_of -> matured; one microsecond later -> not.
    job = make_dataset(tmp_path, job="maturity_days: [7]", assignments=assign(
        "exact,1,10,2026-03-09T00:00:00Z", "late,1,10,2026-03-09T00:00:00.000001Z"))
    out = run(job, tmp_out)
    assert out.matured("test", "control", 7)["users"] == "1"
    assert out.matured("test", "treatment", 7)["users"] == "0"


def test_refunds_count_by_their_own_time(tmp_path: Path, tmp_out: Path):
    # Day 7 ends 03-08. 10 bought 03-02, 3 of it refunded 03-05 (before D); 20 bought 03-03,
    # refunded whole 03-09 (after D); a renewal of 5 on 03-10. revenue_7 = 10 + 20 - 3 = 27.
    job = make_dataset(tmp_path, job="maturity_days: [7]", assignments=assign(f"m1,1,10,{A}"), events=[
        purchase("m1", "2026-03-02T00:00:00Z", "A", price=10), purchase("m1", "2026-03-03T00:00:00Z", "B", price=20),
        event("m1", "refund", "2026-03-05T00:00:00Z", product_id="p1", transaction_id="A", price=3, currency="USD"),
        event("m1", "refund", "2026-03-09T00:00:00Z", product_id="p1", transaction_id="B"),
        event("m1", "renewal", "2026-03-10T00:00:00Z", product_id="p1", transaction_id="C", price=5, currency="USD"),
    ])
    out = run(job, tmp_out)
    assert out.group("test", "control")["net_revenue"] == "12"
    row = out.matured("test", "control", 7)
    assert (row["users"], row["converters"], row["net_revenue"], row["arpu"], row["arpu_sd"]) == ("1", "1", "27", "27", "")


def test_a_conversion_window_shorter_than_d_still_applies(tmp_path: Path, tmp_out: Path):
    # Window 3 days: w1's purchase on 03-05 counts nowhere; w2's on 03-02 counts, and its
    # refund of 4 on 03-06 (after the window, before D) too: revenues 0 and 5.
    job = make_dataset(tmp_path, job="maturity_days: [7]\nconversion_window_days: 3",
                       assignments=assign(f"w1,1,10,{A}", f"w2,1,10,{A}"), events=[
        purchase("w1", "2026-03-05T00:00:00Z", "W1", price=9), purchase("w2", "2026-03-02T00:00:00Z", "W2", price=9),
        event("w2", "refund", "2026-03-06T00:00:00Z", product_id="p1", transaction_id="W2", price=4, currency="USD"),
    ])
    row = run(job, tmp_out).matured("test", "control", 7)
    assert (row["users"], row["converters"], row["net_revenue"], row["arpu"]) == ("2", "1", "5", "2.5")


def test_a_purchase_at_assignment_plus_d_is_not_a_matured_conversion(tmp_path: Path, tmp_out: Path):
    job = make_dataset(tmp_path, job="maturity_days: [7, 14]", assignments=assign(f"p1,1,11,{A}"),
                       events=[purchase("p1", "2026-03-08T00:00:00Z", "P", price=9)])
    out = run(job, tmp_out)
    assert (out.matured("test", "treatment", 7)["converters"], out.matured("test", "treatment", 14)["converters"]) == ("0", "1")
    # Rows: D ascending, groups in offering order; comparisons per D after the offering's own.
    assert [(r["days"], r["group"]) for r in out.maturity] == [("7", "control"), ("7", "treatment"), ("14", "control"), ("14", "treatment")]
    assert [r["metric"] for r in out.comparisons] == ["conversion", "arpu", "conversion_d7", "arpu_d7", "conversion_d14", "arpu_d14",
                                                      "proceeds_per_user", "trial_completed_conversion", "refund_user_rate"]
