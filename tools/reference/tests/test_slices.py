"""docs/analysis.md §7 slices, hand-worked: each member's level, the ranking and (other), and each level
analysed as its own offering. One offering `test`: control (10) and treatment (11), weights 1/1."""

from __future__ import annotations

from pathlib import Path

from conftest import event, make_dataset, purchase, read_csv, run

HEADER = "user_id,subscription_offering_id,offering_group_id,assigned_at\n"
A = "2026-03-01T00:00:00Z"


def assign(*rows: str) -> str:
    return HEADER + "".join(row + "\n" for row in rows)


def levels(out: Path, dimension: str) -> list[tuple[str, str, str]]:
    """(level, group, users) of slice_summary.csv for `dimension`, in file order."""
    return [(r["level"], r["group"], r["users"]) for r in read_csv(out / "slice_summary.csv") if r["dimension"] == dimension]


def test_member_levels(tmp_path: Path, tmp_out: Path):
    job = make_dataset(
        tmp_path,
        assignments=assign(f"c1,1,10,{A}", f"c2,1,10,{A}", f"t1,1,11,{A}", f"t2,1,11,{A}", f"t3,1,11,{A}"),
        events=[
            # c1: the first counted event has no country, the second has JP.
            event("c1", "paywall_view", "2026-03-02T00:00:00Z", platform="ios"),
            event("c1", "paywall_view", "2026-03-02T01:00:00Z", country="JP"),
            # c2: a pre-assignment event and a refund carry countries: neither counts; (none).
            event("c2", "paywall_view", "2026-02-28T00:00:00Z", country="US"),
            event("c2", "refund", "2026-03-02T00:00:00Z", product_id="p1", transaction_id="x", country="FR"),
            # t1: a tie in time: the first in file order wins (DE, not AT).
            event("t1", "paywall_view", "2026-03-02T00:00:00Z", country="DE"),
            event("t1", "paywall_view", "2026-03-02T00:00:00Z", country="AT"),
            # t2: an escaped spelling of the same text as t3's raw UTF-8: one level.
            '{"ts":"2026-03-02T00:00:00Z","user_id":"t2","event":"paywall_view","country":"C\\u00f4te d\\u2019Ivoire"}',
            event("t3", "paywall_view", "2026-03-02T00:00:00Z", country="Côte d’Ivoire", platform=""),
        ],
        job="slices: [country, platform]")
    run(job, tmp_out)
    # Users per level: (none) 1, JP 1, DE 1, Côte d’Ivoire 2: ranked 2 first, then by bytes
    # ("(" < "D" < "J"); every group gets its row.
    assert levels(tmp_out, "country") == [
        ("Côte d’Ivoire", "control", "0"), ("Côte d’Ivoire", "treatment", "2"),
        ("(none)", "control", "1"), ("(none)", "treatment", "0"),
        ("DE", "control", "0"), ("DE", "treatment", "1"),
        ("JP", "control", "1"), ("JP", "treatment", "0"),
    ]
    assert levels(tmp_out, "platform") == [
        ("(none)", "control", "1"), ("(none)", "treatment", "3"), ("ios", "control", "1"), ("ios", "treatment", "0"),
    ]
    # A level whose control has no users: rows, values of the treatment, nothing compared.
    # Its other rows: arpu, and those of docs/analysis.md §8–§9 and docs/statistics.md, "The decision".
    (row, _, _, _, _) = [r for r in read_csv(tmp_out / "slice_comparisons.csv") if r["level"] == "DE"]
    assert (row["control_value"], row["value"], row["abs_lift"], row["p_value"]) == ("", "0", "", "")


def test_levels_past_the_limit_are_merged_into_other(tmp_path: Path, tmp_out: Path):
    # Treatment users in A, A, B, C, D; control in D. max_slice_levels 2: A (2) and D (2) kept,
    # B and C merged into (other).
    countries = {"t1": "A", "t2": "A", "t3": "B", "t4": "C", "t5": "D", "c1": "D"}
    rows = [f"{user},1,{10 if user.startswith('c') else 11},{A}" for user in countries]
    job = make_dataset(
        tmp_path, assignments=assign(*rows),
        events=[purchase(user, "2026-03-02T00:00:00Z", f"T{user}", price=index + 1, country=country)
                for index, (user, country) in enumerate(countries.items())],
        job="slices: country\nmax_slice_levels: 2")
    run(job, tmp_out)
    assert [(level, users) for level, group, users in levels(tmp_out, "country") if group == "treatment"] == [
        ("A", "2"), ("D", "1"), ("(other)", "2")]
    (other,) = [r for r in read_csv(tmp_out / "slice_summary.csv") if r["level"] == "(other)" and r["group"] == "treatment"]
    assert other["net_revenue"] == "7"  # t3 paid 3, t4 paid 4
    # Each level's SRM against the offering's weights: D has 1 and 1 users: χ² = 0.
    (srm,) = [r for r in read_csv(tmp_out / "slice_srm.csv") if r["level"] == "D"]
    assert (srm["chi2"], srm["srm_flag"]) == ("0", "false")


def test_csv_logs_carry_the_fields_as_columns(tmp_path: Path, tmp_out: Path):
    job = make_dataset(
        tmp_path, assignments=assign(f"c1,1,10,{A}", f"t1,1,11,{A}"),
        csv_log="ts,user_id,event,country,platform\n2026-03-02T00:00:00Z,c1,paywall_view,BR,android\n"
                "2026-03-02T00:00:00Z,t1,paywall_view,,ios\n",
        job="slices: [platform, country]")
    run(job, tmp_out)
    assert levels(tmp_out, "platform") == [
        ("android", "control", "1"), ("android", "treatment", "0"), ("ios", "control", "0"), ("ios", "treatment", "1")]
    assert levels(tmp_out, "country") == [
        ("(none)", "control", "0"), ("(none)", "treatment", "1"), ("BR", "control", "1"), ("BR", "treatment", "0")]


def test_no_slice_files_without_slices(tmp_path: Path, tmp_out: Path):
    job = make_dataset(tmp_path, assignments=assign(f"c1,1,10,{A}"))
    run(job, tmp_out)
    assert not (tmp_out / "slice_summary.csv").exists()
