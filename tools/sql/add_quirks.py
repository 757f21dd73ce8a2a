#!/usr/bin/env python3
"""Adds to a data set made by `offerlab generate` the file quirks it does not make itself, so
that the SQL engines meet them (tools/sql/compare_engines.py):

- the assignment table as `mysql --batch` TSV, gzipped, with CRLF line ends, a byte order mark,
  backslash escapes in user ids (`\\1` is `1`) and a `NULL` group;
- a JSON log and a CSV log uncompressed (`.jsonl`, `.csv`), with a byte order mark and CRLF;
- a copy of a log file under another name (every event a duplicate across files);
- a log of events at the edges of a member's window: at its assignment and a millisecond
  before, and at the end of its 2.5-day window and a millisecond before;
- slice fields of every kind on that user's events: an integer platform (its digits), a
  boolean country (no level), an empty one (absent), a country before the assignment and one on
  a refund (neither decides), an escaped one;
- the job's globs extended to these files, and `offerings` (with `allow_empty_offerings`, for
  the one without users), `control` and `conversion_window_days` set explicitly; a fixed `revenue_cap`, `maturity_days` shorter and
  longer than the window, and `slices` with few enough levels kept that some merge into
  `(other)`;
- proceeds and subscription state on another member (its own log): stores, VAT (`tax_rates` in
  the job), RevenueCat's shares, a chain past its first year, a prorated refund, trials and
  periods that end before and after `as_of`, a bad `expires_at` and a bad share.

    python3 tools/sql/add_quirks.py DIR      # DIR: the folder `offerlab generate --out` wrote
"""

import datetime
import glob
import gzip
import json
import os
import re
import shutil
import sys


def main(folder):
    tables = os.path.join(folder, "tables")
    source = os.path.join(tables, "user_offering_assignments.csv.gz")
    with gzip.open(source, "rt", encoding="utf-8", newline="") as file:
        lines = file.read().replace("\r\n", "\n").rstrip("\n").split("\n")
    out = ["\ufeff" + lines[0].replace(",", "\t")]
    for number, line in enumerate(lines[1:]):
        fields = line.split(",")
        if number % 50 == 7:
            fields[1] = "\\" + fields[1]  # `\1…` reads as `1…`: the same user
        if number == 5:
            fields[3] = "NULL"  # an unreadable group: an invalid row
        out.append("\t".join(fields))
    with gzip.open(os.path.join(tables, "user_offering_assignments.tsv.gz"), "wt", encoding="utf-8", newline="") as file:
        file.write("\r\n".join(out) + "\r\n")
    os.remove(source)

    logs = sorted(glob.glob(os.path.join(folder, "logs", "*", "*", "*", "*.gz")))
    json_log = next(p for p in logs if p.endswith(".jsonl.gz"))
    csv_log = next(p for p in logs if p.endswith(".csv.gz"))
    for path in (json_log, csv_log):
        with gzip.open(path, "rt", encoding="utf-8", newline="") as file:
            text = file.read()
        with open(path[: -len(".gz")], "w", encoding="utf-8", newline="") as file:
            file.write("\ufeff" + re.sub(r"\r?\n", "\r\n", text))
        os.remove(path)
    copies = os.path.join(folder, "logs", "copies")
    os.makedirs(copies, exist_ok=True)
    shutil.copy(next(p for p in logs if p.endswith(".jsonl.gz") and p != json_log), os.path.join(copies, "again.jsonl.gz"))

    # The first valid, single assignment row before as_of: its user's events at the edges.
    counts = {}
    for line in lines[1:]:
        user = line.split(",")[1]
        counts[user] = counts.get(user, 0) + 1
    row = next(line.split(",") for line in lines[1:] if counts[line.split(",")[1]] == 1 and line.split(",")[4] < "2026-03-02")
    assigned = datetime.datetime.strptime(row[4], "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    millisecond = datetime.timedelta(milliseconds=1)
    window_end = assigned + datetime.timedelta(days=2.5)
    edges = [
        ("paywall_view", assigned - millisecond, {"country": "XX"}),
        ("paywall_view", assigned, {"country": True, "platform": 7}),
        ("paywall_view", assigned, {"country": ""}),
        ("refund", assigned + millisecond, {"country": "YY", "transaction_id": "edge-4"}),
        ("purchase", window_end - millisecond, {"country": "C\u00f4te d\u2019Ivoire"}),
        ("purchase", window_end, {}),
    ]
    with open(os.path.join(folder, "logs", "copies", "edges.jsonl"), "w", encoding="utf-8") as file:
        for number, (event, time, fields) in enumerate(edges):
            record = {"ts": int(time.timestamp() * 1000), "user_id": row[1], "event": event}
            if event == "purchase":
                record.update(product_id="weekly_799", transaction_id=f"edge-{number}", price="7.99", currency="USD")
            if event == "refund":
                record.update(product_id="weekly_799")
            record.update(fields)
            file.write(json.dumps(record, ensure_ascii=False).replace("\u00f4", "\\u00f4") + "\n")

    # Proceeds and subscription state (docs/analysis.md §8–§9) on another member: stores, VAT, RevenueCat's
    # shares, a chain past its first year (its first charge 400 days before, outside the test), a
    # prorated refund, trials and periods that end before and after as_of, bad values.
    single = [line.split(",") for line in lines[1:] if counts[line.split(",")[1]] == 1 and line.split(",")[4] < "2026-03-02"]
    other = next(r for r in single if r[1] != row[1])
    start = datetime.datetime.strptime(other[4], "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    hour = datetime.timedelta(hours=1)
    iso = lambda time: time.strftime("%Y-%m-%dT%H:%M:%SZ")
    charge = {"product_id": "monthly_1999", "price": "19.99", "currency": "USD"}
    proceeds = [
        ("trial_start", start + hour, {"product_id": "annual_4999", "transaction_id": "q-trial", "expires_at": iso(start + 3 * hour)}),
        ("purchase", start + 2 * hour, {**charge, "transaction_id": "q-play", "store": "play_store", "country": "DE", "expires_at": "2030-01-01T00:00:00Z"}),
        ("refund", start + 3 * hour, {"product_id": "monthly_1999", "transaction_id": "q-play", "price": "3", "currency": "USD"}),
        ("purchase", start + 4 * hour, {**charge, "transaction_id": "q-rc", "tax_percentage": 0.2, "commission_percentage": "0.15", "expiresAt": int((start + 40 * hour).timestamp() * 1000)}),
        ("purchase", start - datetime.timedelta(days=400), {**charge, "transaction_id": "q-old", "original_transaction_id": "q-chain"}),
        ("renewal", start + 5 * hour, {**charge, "transaction_id": "q-renewal", "original_transaction_id": "q-chain", "country": "DE", "expires_at": "not a time"}),
        ("purchase", start + 6 * hour, {**charge, "transaction_id": "q-amazon", "store": "amazon", "expires_at": "2030-06-01T00:00:00+02:00"}),
        ("purchase", start + 7 * hour, {**charge, "transaction_id": "q-bad", "tax_percentage": 1.5, "commission_percentage": 0}),
    ]
    with open(os.path.join(folder, "logs", "copies", "proceeds.jsonl"), "w", encoding="utf-8") as file:
        for event, time, fields in proceeds:
            file.write(json.dumps({"ts": int(time.timestamp() * 1000), "user_id": other[1], "event": event, **fields}) + "\n")

    job = os.path.join(folder, "job.yaml")
    with open(job, encoding="utf-8") as file:
        text = file.read()
    text = re.sub(
        r"logs:\n(  - .*\n)+",
        'logs:\n  - "logs/*/*/*/*.jsonl.gz"\n  - "logs/*/*/*/*.csv.gz"\n  - "logs/*/*/*/*.jsonl"\n  - "logs/*/*/*/*.csv"\n  - "logs/copies/*"\n',
        text,
    )
    text = re.sub(r"conversion_window_days: .*\n", "conversion_window_days: 2.5\n", text)
    text = re.sub(r"control: .*\n", "control: variant_a\n", text)
    text += "offerings: [spring_2026_price_test, onboarding_copy_test, winter_2025_trial_test]\n"
    # winter_2025_trial_test has no assignment before as_of: its rows of 0 users are the quirk, so
    # the job allows what a nightly run would otherwise refuse as a broken night.
    text += "allow_empty_offerings: true\n"
    text += "revenue_cap: {value: 20}\nmaturity_days: [1, 3]\nslices: [platform, country]\nmax_slice_levels: 5\n"
    text += "tax_rates: {DE: 0.19, FR: 0.2}\ncommission: {amazon: 0.2}\n"
    with open(job, "w", encoding="utf-8") as file:
        file.write(text)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
