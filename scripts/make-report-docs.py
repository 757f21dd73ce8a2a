#!/usr/bin/env python3
"""Rewrites the blocks of docs/report.md that quote the sample night (called by make-report-docs.sh).

`make-report-docs.py NIGHT_FOLDER DATABASE REPORT_MD` replaces what stands between
`<!-- sample:NAME:begin -->` and `<!-- sample:NAME:end -->` with the night's own numbers, formatted as
the report formats them (the helpers of check-report.py): `first-screen`, every treatment's line at a
glance from decisions.csv and comparisons.csv; `sentences`, the report's "What to do tonight" sentences
as report.html has them; `year`, each group's year and its parts from projection.csv. A block the file
does not have is an error, so a renamed marker cannot leave stale numbers behind.
"""
import csv
import html
import importlib.util
import re
import sqlite3
import sys
from pathlib import Path

spec = importlib.util.spec_from_file_location("check_report", Path(__file__).with_name("check-report.py"))
check_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_report)
signed_percent, money, signed_money = check_report.signed_percent, check_report.money, check_report.signed_money


def rows(folder: Path, name: str) -> list[dict]:
    with open(folder / f"{name}.csv", newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def number(text: str) -> float | None:
    return float(text) if text and abs(float(text)) != float("inf") else None


def span(low: str, high: str, format) -> str:
    """`low to high`, an open end in words, as the report's ranges."""
    low, high = number(low), number(high)
    if low is not None and high is not None:
        return f"{format(low)} to {format(high)}"
    if low is not None:
        return f"at least {format(low)}"
    return f"at most {format(high)}" if high is not None else "open"


def first_screen(folder: Path, currencies: dict) -> str:
    far = {(row["offering_id"], row["group"]): row for row in rows(folder, "comparisons") if row["metric"] == "projected_arpu_365"}
    lines = [f"The sample night of {folder.name}, from its decisions.csv and comparisons.csv:", "",
             "| offering | treatment | status | goal | lift (interval) | far ends, a new user | worth a year (interval) | decision date |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows(folder, "decisions"):
        currency = currencies[row["offering_id"]]
        lift = signed_percent(float(row["goal_rel_lift"])) if row["goal_rel_lift"] else "none yet"
        lift += f" ({span(row['goal_rel_lift_ci_low'], row['goal_rel_lift_ci_high'], signed_percent)})"
        ends = far.get((row["offering_id"], row["group"]))
        far_ends = "—"
        if row["goal_metric"] == "projected_arpu_365" and ends:
            far_ends = span(ends["abs_lift_bound_low"], ends["abs_lift_bound_high"], lambda x: signed_money(x, currency))
        worth = "not projected"
        if row["impact_365"]:
            worth = f"{signed_money(float(row['impact_365']), currency)} " \
                    f"({span(row['impact_365_ci_low'], row['impact_365_ci_high'], lambda x: signed_money(x, currency))})"
        date = "—"
        if row["status"] in ("keep_running", "too_early") and row["days_left"]:
            date = check_report.decision_date(folder.name, int(row["days_left"]))
        lines.append(f"| `{row['offering_id']}` | `{row['group']}` | `{row['status']}` | `{row['goal_metric']}` | {lift} | {far_ends} "
                     f"| {worth} | {date} |")
    return "\n".join(lines)


def sentences(folder: Path) -> str:
    page = (folder / "report.html").read_text(encoding="utf-8")
    found = re.findall(r'<div class="verdict decision[^"]*">.*?</div>', page, flags=re.S)
    quoted = [html.unescape(re.sub(r"<[^>]+>", "", sentence))
              for block in found for sentence in re.findall(r'<p class="sentence">(.*?)</p>', block, flags=re.S)]
    return "\n".join(f"- `{sentence}`" for sentence in quoted)


PARTS = (("observed_share", "charged so far"), ("own_rates_share", "to come at the members' own rates"),
         ("follow_on_share", "from follow-on chains"), ("past_share", "from the app's past"),
         ("continued_share", "continued at the rates seen"))


def year(folder: Path, currencies: dict) -> str:
    lines = ["| offering | group | first year | " + " | ".join(words for _, words in PARTS) + " | far ends |",
             "|---|---|---|" + "---|" * len(PARTS) + "---|"]
    for row in rows(folder, "projection"):
        currency = currencies[row["offering_id"]]
        value = number(row["projected_arpu_365"])
        cells = [money(value, currency) if value is not None else "not projected"]
        cells += [money(float(row[column]) * value, currency) if value is not None and row[column] else "—" for column, _ in PARTS]
        cells.append(span(row["projected_arpu_365_bound_low"], row["projected_arpu_365_bound_high"], lambda x: money(x, currency)))
        lines.append(f"| `{row['offering_id']}` | `{row['group']}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    folder, database, target = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        currencies = dict(db.execute("SELECT offering_id, report_currency FROM offerings WHERE as_of = ?", (folder.name,)))
    blocks = {"first-screen": first_screen(folder, currencies), "sentences": sentences(folder), "year": year(folder, currencies)}
    text = target.read_text(encoding="utf-8")
    for name, content in blocks.items():
        pattern = re.compile(rf"(<!-- sample:{name}:begin -->\n).*?(<!-- sample:{name}:end -->)", flags=re.S)
        if not pattern.search(text):
            print(f"make-report-docs: {target} has no block sample:{name}", file=sys.stderr)
            return 1
        text = pattern.sub(lambda match: match.group(1) + content + "\n" + match.group(2), text)
    target.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
