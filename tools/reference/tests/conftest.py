"""Shared helpers: build small data sets in a temporary folder, run the reference, read the
CSV outputs back."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import offerlab_reference as ref  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"

OFFERINGS_CSV = "id,offering_id,name,is_active\n1,test,Test,1\n"
GROUPS_CSV = "id,subscription_offering_id,group_name,weight\n10,1,control,1\n11,1,treatment,1\n"


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


class Outputs:
    """The six output files of a run, as lists of dicts of text."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.summary = read_csv(folder / "summary.csv")
        self.products = read_csv(folder / "products.csv")
        self.quality = read_csv(folder / "quality.csv")
        self.comparisons = read_csv(folder / "comparisons.csv")
        self.srm = read_csv(folder / "srm.csv")
        self.maturity = read_csv(folder / "maturity.csv")

    def group(self, offering: str, group: str) -> dict[str, str]:
        (row,) = [r for r in self.summary if r["offering_id"] == offering and r["group"] == group]
        return row

    def counter(self, name: str, offering: str = "") -> int:
        (row,) = [r for r in self.quality if r["offering_id"] == offering and r["counter"] == name]
        return int(row["count"])

    def matured(self, offering: str, group: str, days: int) -> dict[str, str]:
        (row,) = [r for r in self.maturity if r["offering_id"] == offering and r["group"] == group and r["days"] == str(days)]
        return row

    def comparison(self, offering: str, group: str, metric: str) -> dict[str, str]:
        (row,) = [r for r in self.comparisons
                  if r["offering_id"] == offering and r["group"] == group and r["metric"] == metric]
        return row


def make_dataset(root: Path, *, assignments: str, events: list[dict | str] | None = None,
                 offerings: str = OFFERINGS_CSV, groups: str = GROUPS_CSV,
                 job: str = "", as_of: str = "2026-03-16T00:00:00Z", csv_log: str | None = None) -> Path:
    """Writes tables/, logs/events.jsonl (one line per dict; strings written as is) and
    job.yaml; returns the job path. `job` adds or overrides YAML lines."""
    tables = root / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    (tables / "subscription_offerings.csv").write_text(offerings)
    (tables / "subscription_offering_groups.csv").write_text(groups)
    (tables / "user_offering_assignments.csv").write_text(assignments)
    logs = root / "logs"
    logs.mkdir(exist_ok=True)
    lines = [e if isinstance(e, str) else json.dumps(e) for e in (events or [])]
    (logs / "events.jsonl").write_text("".join(line + "\n" for line in lines))
    if csv_log is not None:
        (logs / "events.csv").write_text(csv_log)
    base = {
        "tables": "tables/", "logs": '["logs/*"]', "as_of": as_of, "report_currency": "USD",
        "rates": "{EUR: 2}", "max_bad_line_ratio": "1",
    }
    for line in job.strip().splitlines():
        key, _, value = line.partition(":")
        base[key.strip()] = value.strip()
    job_path = root / "job.yaml"
    job_path.write_text("".join(f"{k}: {v}\n" for k, v in base.items() if v != "DELETE"))
    return job_path


def run(job: Path, out: Path, *extra: str) -> Outputs:
    code = ref.main([str(job), "--out", str(out), *extra])
    assert code == 0, "the reference failed"
    return Outputs(out)


def run_failing(job: Path, out: Path, capsys, *extra: str) -> str:
    code = ref.main([str(job), "--out", str(out), *extra])
    assert code == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1, "one clear line on stderr"
    return error


@pytest.fixture
def tmp_out(tmp_path: Path) -> Path:
    return tmp_path / "out"


def event(user: str, name: str, ts: str, **fields) -> dict:
    return {"ts": ts, "user_id": user, "event": name, **fields}


def purchase(user: str, ts: str, txn: str, price=10, currency="USD", product="p1", **fields) -> dict:
    return event(user, "purchase", ts, product_id=product, transaction_id=txn, price=price, currency=currency, **fields)
