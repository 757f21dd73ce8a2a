"""subset.py: a setting's first N tests as a data set of its own."""
import csv
import os
import subprocess
import sys

HERE = os.path.join(os.path.dirname(__file__), "..")


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_the_first_test_alone_with_its_past(tmp_path):
    data, out = tmp_path / "full", tmp_path / "first"
    subprocess.run([sys.executable, os.path.join(HERE, "simulate.py"), "--setting", "price-rise", "--tests", "2", "--users-per-day", "5",
                    "--past-per-day", "1", "--truth-entrants", "500", "--out", str(data)], check=True, capture_output=True)
    subprocess.run([sys.executable, os.path.join(HERE, "subset.py"), "--data", str(data), "--tests", "1", "--out", str(out)], check=True)
    assert [r["offering_id"] for r in rows(out / "tables" / "subscription_offerings.csv")] == ["test_0000"]
    assert {r["subscription_offering_id"] for r in rows(out / "tables" / "subscription_offering_groups.csv")} == {"1"}
    assert {r["offering_group_id"] for r in rows(out / "tables" / "subscription_offering_group_products.csv")} == {"1", "2"}
    assert len(rows(out / "tables" / "user_offering_assignments.csv")) == 2 * 5 * 60
    assert {r["offering_id"] for r in rows(out / "truth.csv")} == {"test_0000"}
    assert {r["offering_id"] for r in rows(out / "expected.csv")} == {"test_0000"}
    assert os.listdir(out / "history") == ["past-test_0000.jsonl.gz"]
    assert os.path.realpath(out / "logs") == os.path.realpath(data / "logs")
    assert "history_logs" in (out / "job-day60.yaml").read_text()
