#!/usr/bin/env python3
"""Independent reference implementation of the OfferLab analysis (docs/analysis.md, docs/statistics.md).

Reads a job file (tables, purchase logs, rates, as_of, ...) and writes the expected
`summary.csv`, `products.csv`, `quality.csv`, `comparisons.csv` and `srm.csv`, so that the
Swift pipeline's end-to-end tests can compare against files produced by an implementation
written separately from it.

    offerlab_reference.py JOB.yaml --out DIR [--as-of T]
    offerlab_reference.py stats AGG.csv --out DIR [--alpha A] [--sequential-tuning N]

Speed does not matter here; every step is written to be read next to the project's docs
(`docs/input-formats.md`, `docs/analysis.md`, `docs/statistics.md`). Decisions taken where they are silent are
listed in `tools/reference/README.md`; the code refers to them as "Decision D<n>".

Standard library only, plus PyYAML (job file) and SciPy (normal, Student-t and chi-squared
distributions, log-beta).
"""

from __future__ import annotations

import argparse
import base64
import binascii
import datetime as _dt
import decimal
import glob
import json
import math
import os
import re
import sqlite3
import sys
import zlib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Iterable, Iterator

import yaml
from scipy import special as _special
from scipy import stats as _stats

# Integer ids may be long; Python would otherwise refuse ints over 4300 digits.
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)

PROGRAM = "offerlab_reference"


class ReferenceError_(Exception):
    """A problem with the job or the inputs that stops the run (one clear line on stderr)."""


# =============================================================================================
# Constants of the formats and the analysis (docs/input-formats.md, docs/analysis.md)
# =============================================================================================

EVENT_TYPES = ("paywall_view", "trial_start", "purchase", "renewal", "refund", "cancel", "expire")
#: Events that carry a product and a transaction and are deduplicated by (event, transaction_id).
TRANSACTION_EVENTS = ("trial_start", "purchase", "renewal", "refund")
#: Events that must carry a price.
PRICED_EVENTS = ("purchase", "renewal")

#: Malformed-line reasons, in the order of their counters in quality.csv (docs/analysis.md §5;
#: `line_too_long` added last, Decision D12).
MALFORMED_REASONS = (
    "malformed_invalid_json",
    "malformed_missing_field",
    "malformed_invalid_field",
    "malformed_bad_timestamp",
    "malformed_negative_price",
    "malformed_invalid_csv",
    "malformed_line_too_long",
)

GLOBAL_COUNTERS = (
    "files_read",
    "files_skipped_corrupt",
    "lines_read",
    "malformed_lines",
    *MALFORMED_REASONS,
    "duplicate_events",
    "unknown_event_types",
    "sandbox_events",
    "unassigned_events",
    "invalid_assignments",
)
OFFERING_COUNTERS = (
    "invalid_assignments",
    "multi_group_users",
    "pre_assignment_events",
    "orphan_refunds",
    "chainless_cancels",
    "attribution_mismatches",
    "attribution_mismatch_users",
    "unknown_currency_events",
)

#: A log line (or CSV log record) longer than this many bytes is `malformed_line_too_long`.
MAX_LINE_BYTES = 1 << 20

#: Log fields that hold ids and text, with their camelCase spelling.
#: A JSON integer in any of them is its decimal text; any other non-string type is invalid.
TEXT_FIELDS = {
    "event_id": "eventId",
    "user_id": "userId",
    "product_id": "productId",
    "transaction_id": "transactionId",
    "original_transaction_id": "originalTransactionId",
    "offering_id": "offeringId",
    "test_group_id": "testGroupId",
    "currency": None,
    "environment": None,
}
#: Log fields that only describe an event (dimensions for slicing, the store that charged): a
#: string or an integer as its decimal text; any other type is absent and the line stays valid
#: (Decision D16), as offerlab reads them.
DIMENSION_FIELDS = ("platform", "country", "store")

SUMMARY_COLUMNS = (
    "offering_id", "group", "is_control", "weight",
    "users", "converters", "conversion_rate", "conversion_ci_low", "conversion_ci_high",
    "trial_starters", "trial_converters", "trial_conversion_rate", "paywall_viewers",
    "purchases", "renewals", "refunds",
    "gross_revenue", "refunded_revenue", "net_revenue", "arpu", "arpu_sd", "arppu",
    # docs/analysis.md §8–§9.
    "net_proceeds", "proceeds_per_user", "proceeds_per_user_sd", "exact_proceeds_share",
    "trials_converted", "trials_pending", "trials_lapsed", "trials_unknown", "trial_completed_conversion_rate",
    "active_subscribers", "churned_subscribers",
    # The guardrail of docs/statistics.md, "The decision": members with a counted refund.
    "refund_users", "refund_user_rate",
)
#: The columns of docs/analysis.md §4b, after the others in summary.csv only: a slice has no cap of its own.
CAPPED_COLUMNS = ("revenue_cap", "arpu_capped", "arpu_capped_sd", "capped_users")
MATURITY_COLUMNS = ("offering_id", "group", "days", "users", "converters", "conversion_rate", "net_revenue", "arpu", "arpu_sd")
PRODUCTS_COLUMNS = ("offering_id", "group", "product_id", "purchases", "renewals", "refunds", "net_revenue", "net_proceeds")
QUALITY_COLUMNS = ("offering_id", "counter", "count")
COMPARISONS_COLUMNS = (
    "offering_id", "group", "control_group", "metric", "control_value", "value",
    "abs_lift", "abs_lift_ci_low", "abs_lift_ci_high",
    "rel_lift", "rel_lift_ci_low", "rel_lift_ci_high",
    "p_value", "p_value_adjusted", "significant", "chance_to_beat_control", "mde_abs",
    "seq_abs_lift_ci_low", "seq_abs_lift_ci_high", "seq_rel_lift_ci_low", "seq_rel_lift_ci_high",
    "seq_p_value", "seq_p_value_adjusted", "seq_significant",
    # The intervals that agree with the verdicts (the project's docs/statistics.md).
    "abs_lift_ci_low_adjusted", "abs_lift_ci_high_adjusted", "rel_lift_ci_low_adjusted", "rel_lift_ci_high_adjusted",
    "seq_abs_lift_ci_low_adjusted", "seq_abs_lift_ci_high_adjusted", "seq_rel_lift_ci_low_adjusted",
    "seq_rel_lift_ci_high_adjusted",
)
#: comparisons.csv (not the slices') ends with the far ends of the projected_arpu_365 rows, which the
#: reference does not make (a model's draws): empty on every row it writes.
PROJECTED_BOUND_COLUMNS = ("abs_lift_bound_low", "abs_lift_bound_high")
RUN_COMPARISONS_COLUMNS = COMPARISONS_COLUMNS + PROJECTED_BOUND_COLUMNS
DEFAULT_SEQUENTIAL_TUNING = 5000.0
SRM_COLUMNS = ("offering_id", "chi2", "srm_p_value", "srm_flag",
               # The always-valid check (docs/statistics.md#sequential-sample-ratio; a first night: its p-value is
               # the night's own).
               "seq_srm_log_bayes_factor", "seq_srm_p_value", "seq_srm_flag")
#: docs/analysis.md §7: the slice tables have the columns of summary (docs/analysis.md §4's, not the capped ones),
#: comparisons and srm with these two after offering_id.
SLICE_KEY = ("dimension", "level")
SLICE_SUMMARY_COLUMNS = SUMMARY_COLUMNS[:1] + SLICE_KEY + SUMMARY_COLUMNS[1:]
SLICE_COMPARISONS_COLUMNS = COMPARISONS_COLUMNS[:1] + SLICE_KEY + COMPARISONS_COLUMNS[1:]
SLICE_SRM_COLUMNS = SRM_COLUMNS[:1] + SLICE_KEY + SRM_COLUMNS[1:4]
SLICE_FIELDS = ("country", "platform")
NONE_LEVEL = "(none)"
OTHER_LEVEL = "(other)"


def byte_key(text: str) -> bytes:
    """Sort key for byte-wise (UTF-8) order. (Python's code-point order is the same; this
    makes the intent explicit.)"""
    return text.encode("utf-8", "surrogatepass")


# =============================================================================================
# Timestamps (docs/input-formats.md#timestamps): microseconds since 1970-01-01T00:00:00Z, as Python ints
# =============================================================================================

_TIMESTAMP_RE = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]{1,9}))?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})?"
)
_DATE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_INT64_MAX = (1 << 63) - 1
MICROS_PER_DAY = 86_400_000_000


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if _is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _valid_date(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)


def parse_timestamp_text(text: str) -> int | None:
    """A timestamp string (docs/input-formats.md#timestamps) as microseconds since the epoch (UTC), or None when
    it breaks the grammar or names an impossible date or time. The fraction is truncated to the
    microsecond."""
    match = _TIMESTAMP_RE.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    if not _valid_date(year, month, day) or hour > 23 or minute > 59 or second > 59:
        return None
    fraction = match.group(7) or ""
    micros = int((fraction + "000000")[:6])  # kept to the microsecond, the rest truncated
    offset_seconds = 0
    zone = match.group(8)
    if zone and zone != "Z":
        offset_hours, offset_minutes = int(zone[1:3]), int(zone[4:6])
        if offset_hours > 23 or offset_minutes > 59:
            return None
        offset_seconds = (offset_hours * 3600 + offset_minutes * 60) * (1 if zone[0] == "+" else -1)
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return (seconds - offset_seconds) * 1_000_000 + micros


# 2000-01-01T00:00:00Z in epoch milliseconds: an integer timestamp before it is epoch seconds
# read as milliseconds (1970), not an event, and breaks the grammar (docs/reliability.md#a-broken-night).
EARLIEST_EPOCH_MILLIS = 946_684_800_000


def epoch_millis_to_micros(millis: int) -> int | None:
    """A JSON-integer timestamp (epoch milliseconds) as microseconds; None outside Int64 or
    before 2000-01-01."""
    if millis < EARLIEST_EPOCH_MILLIS:
        return None
    micros = millis * 1000
    return micros if -_INT64_MAX <= micros <= _INT64_MAX else None


def parse_job_instant(text: str) -> int | None:
    """as_of in the job file or on the command line: the grammar of docs/input-formats.md#timestamps, or a bare date
    `YYYY-MM-DD` meaning 00:00 UTC that day (Decision D3)."""
    micros = parse_timestamp_text(text)
    if micros is not None:
        return micros
    match = _DATE_RE.fullmatch(text)
    if match:
        year, month, day = (int(g) for g in match.groups())
        if _valid_date(year, month, day):
            return _days_from_civil(year, month, day) * MICROS_PER_DAY
    return None


def format_utc_date(micros: int) -> str:
    """The UTC calendar date (YYYY-MM-DD) of an instant."""
    day = _dt.date(1970, 1, 1) + _dt.timedelta(days=micros // MICROS_PER_DAY)
    return day.isoformat()


# =============================================================================================
# Money: exact decimal text -> integer micro-units (docs/analysis.md "Units")
# =============================================================================================

_NUMERIC_STRING_RE = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_MICRO = Decimal(1_000_000)
# Fee shares (tax_percentage, commission_percentage) in billionths, as LogRecord.wholeShare.
_WHOLE_SHARE = Decimal(1_000_000_000)


def decimal_to_micros(value: Decimal, unit: Decimal = _MICRO) -> int | None:
    """Exact decimal major units -> integer micro-units (or other `unit`s of one: fee shares
    are billionths), rounding half to even beyond the unit; None when the result does not fit a
    signed 64-bit integer (Decision D15)."""
    if not value.is_finite():
        return None
    if value != 0 and value.adjusted() > 30:  # far beyond Int64 micro-units; avoid huge ints
        return None
    context = decimal.Context(prec=200, rounding=decimal.ROUND_HALF_EVEN)
    micros = int((value * unit).quantize(Decimal(1), context=context))
    return micros if -_INT64_MAX <= micros <= _INT64_MAX else None


def micros_to_report(micros_by_currency: dict[str, int], rates: dict[str, float]) -> float:
    """Σ over currencies in byte-wise code order of (micro-units / 1 000 000) × rate.

    Only currencies with a rate may be passed (unknown-currency money is left out earlier).
    `micros / 1_000_000` is Python's correctly rounded int/int division, the same double as
    `Double(micros) / 1_000_000` for |micros| < 2^53."""
    total = 0.0
    for currency in sorted(micros_by_currency, key=byte_key):
        total += (micros_by_currency[currency] / 1_000_000) * rates[currency.upper()]
    return total


# =============================================================================================
# Reading bytes: gzip by magic bytes, several members back to back
# =============================================================================================

class CorruptGzip(Exception):
    """A gzip file that is corrupt or truncated."""


GZIP_MAGIC = b"\x1f\x8b"


def read_input_bytes(path: Path) -> bytes:
    """The content of a file, decompressed when it starts with the gzip magic bytes.

    Several members back to back are one stream. Anything after a member that is not another
    member (trailing zeros included), a bad CRC or length, or a member cut short raises
    CorruptGzip (the same rules as the Swift `InputFileReader`, Decision D31)."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ReferenceError_(f"{path}: cannot read: {error.strerror or error}") from error
    if raw[:2] != GZIP_MAGIC:
        return raw
    parts: list[bytes] = []
    position = 0
    while position < len(raw):
        if raw[position:position + 2] != GZIP_MAGIC:
            raise CorruptGzip(f"data after the last member is not gzip (at compressed byte {position})")
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            parts.append(inflater.decompress(raw[position:]))
            parts.append(inflater.flush())
        except zlib.error as error:
            raise CorruptGzip(f"corrupt gzip member at compressed byte {position}: {error}") from error
        if not inflater.eof:
            raise CorruptGzip("truncated gzip file: it ends inside a member")
        position = len(raw) - len(inflater.unused_data)
    return b"".join(parts)


def strip_bom(data: bytes) -> bytes:
    """A UTF-8 byte order mark at the start of a file is ignored (Decision D10)."""
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


# =============================================================================================
# CSV (RFC 4180) and TSV (mysql --batch) records
# =============================================================================================

@dataclass
class CsvRecord:
    """One CSV record: its fields as (bytes, was_quoted), where it starts, whether it obeys
    RFC 4180, and how many bytes it spans (line ending excluded)."""

    line: int
    fields: list[tuple[bytes, bool]]
    well_formed: bool
    length: int


def _is_blank(line: bytes) -> bool:
    """A blank line holds nothing but spaces, tabs and carriage returns (Decision D9)."""
    return line.strip(b" \t\r") == b""


def iter_csv_records(data: bytes) -> Iterator[CsvRecord]:
    """RFC 4180 records of `data`: `"` quoting with `""` inside quotes; quoted fields may hold
    commas, quotes and line breaks; records end in LF or CRLF; the last one may lack its line
    ending. Blank physical lines are skipped.

    A record that breaks RFC 4180 (a quote inside an unquoted field, text after a closing
    quote, a quote never closed) is still yielded, with `well_formed=False`, so that the
    caller can count or report it; an unclosed quote swallows the rest of the file."""
    index, size, line = 0, len(data), 1
    while index < size:
        line_end = data.find(b"\n", index)
        if line_end < 0:
            line_end = size
        if _is_blank(data[index:line_end]):
            index, line = line_end + 1, line + 1
            continue
        start, start_line = index, line
        fields: list[tuple[bytes, bool]] = []
        well_formed = True
        while True:  # one field per turn
            value = bytearray()
            quoted = index < size and data[index] == 0x22
            if quoted:
                index += 1
                while True:
                    if index >= size:
                        well_formed = False  # quote never closed
                        break
                    byte = data[index]
                    if byte == 0x22:
                        if index + 1 < size and data[index + 1] == 0x22:
                            value.append(0x22)
                            index += 2
                            continue
                        index += 1
                        break
                    if byte == 0x0A:
                        line += 1
                    value.append(byte)
                    index += 1
            # Unquoted text (or, after a closing quote, stray text: not RFC 4180).
            while index < size and data[index] not in (0x2C, 0x0A):
                byte = data[index]
                if byte == 0x0D and (index + 1 == size or data[index + 1] == 0x0A):
                    index += 1  # the CR of a CRLF line ending
                    continue
                if quoted or byte == 0x22:
                    well_formed = False
                value.append(byte)
                index += 1
            fields.append((bytes(value), quoted))
            if index < size and data[index] == 0x2C:
                index += 1
                continue
            end = index
            if index < size:  # LF
                index += 1
                line += 1
            length = end - start - (1 if end > start and data[end - 1] == 0x0D else 0)
            yield CsvRecord(start_line, fields, well_formed, length)
            break


def _tsv_unescape(field_bytes: bytes) -> str | None:
    """One mysql --batch field: the bare word NULL is NULL; `\\t \\n \\r \\\\ \\0` are escapes and
    any other `\\x` is `x` (a backslash ending the field stays a backslash)."""
    if field_bytes == b"NULL":
        return None
    text = field_bytes.decode("utf-8")
    out: list[str] = []
    index = 0
    escapes = {"t": "\t", "n": "\n", "r": "\r", "\\": "\\", "0": "\0"}
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            following = text[index + 1]
            out.append(escapes.get(following, following))
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


# =============================================================================================
# Offering tables (docs/input-formats.md#offering-tables)
# =============================================================================================

REQUIRED_COLUMNS = {
    "subscription_offerings": ("id", "offering_id", "name", "is_active"),
    "subscription_offering_groups": ("id", "subscription_offering_id", "group_name", "weight"),
    "user_offering_assignments": ("user_id", "subscription_offering_id", "offering_group_id", "assigned_at"),
}
TABLE_EXTENSIONS = (".csv", ".csv.gz", ".tsv", ".tsv.gz")
#: docs/input-formats.md#the-user_transactions-table: optional, read only by a job with a store source.
USER_TRANSACTIONS_COLUMNS = ("user_id", "original_transaction_id")

#: A table cell: text, None for NULL, or UNREADABLE (e.g. a BLOB that is not UTF-8).
UNREADABLE = object()


@dataclass
class TableRow:
    where: str  # "file:line" for messages
    values: dict[str, object]


def _read_text_table(path: Path, table: str) -> list[TableRow]:
    try:
        data = strip_bom(read_input_bytes(path))
    except CorruptGzip as error:
        raise ReferenceError_(f"{path}: {error}") from error
    is_tsv = path.name.endswith((".tsv", ".tsv.gz"))
    records: list[tuple[int, list[object]]] = []
    if is_tsv:
        for number, raw_line in enumerate(data.split(b"\n"), start=1):
            if raw_line.endswith(b"\r"):
                raw_line = raw_line[:-1]
            if raw_line == b"":
                continue
            try:
                records.append((number, [_tsv_unescape(part) for part in raw_line.split(b"\t")]))
            except UnicodeDecodeError as error:
                raise ReferenceError_(f"{path}:{number}: not valid UTF-8") from error
    else:
        for record in iter_csv_records(data):
            if not record.well_formed:
                raise ReferenceError_(f"{path}:{record.line}: not a valid CSV record (RFC 4180 quoting)")
            values: list[object] = []
            for raw, quoted in record.fields:
                if not quoted and raw in (b"", b"\\N"):
                    values.append(None)
                    continue
                try:
                    values.append(raw.decode("utf-8"))
                except UnicodeDecodeError as error:
                    raise ReferenceError_(f"{path}:{record.line}: not valid UTF-8") from error
            records.append((record.line, values))
    if not records:
        raise ReferenceError_(f"{path}: empty file, a header row is required")
    header_line, header = records[0]
    names = [str(name) if name is not None else "" for name in header]
    for column in REQUIRED_COLUMNS.get(table, USER_TRANSACTIONS_COLUMNS):
        if column not in names:
            raise ReferenceError_(f"{path}: missing required column '{column}' (table {table})")
    rows = []
    for number, values in records[1:]:
        if len(values) != len(names):
            raise ReferenceError_(
                f"{path}:{number}: {len(values)} fields where the header (line {header_line}) has {len(names)}")
        row = {name: value for name, value in zip(names, values)}
        rows.append(TableRow(f"{path}:{number}", row))
    return rows


def _sqlite_value(value: object) -> object:
    """SQLite values as table text (Decision D7): INTEGER -> decimal text, REAL -> shortest
    round-trip text, TEXT as is, BLOB -> its UTF-8 text, NULL -> None."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return UNREADABLE
    return UNREADABLE


def _read_sqlite_tables(path: Path) -> dict[str, list[TableRow]]:
    if not path.is_file():
        raise ReferenceError_(f"{path}: tables database not found")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise ReferenceError_(f"{path}: cannot open SQLite database: {error}") from error
    try:
        present = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")}
        result = {}
        for table, required in REQUIRED_COLUMNS.items():
            if table not in present:
                raise ReferenceError_(f"{path}: missing table '{table}'")
            columns = [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')]
            for column in required:
                if column not in columns:
                    raise ReferenceError_(f"{path}: table {table}: missing required column '{column}'")
            quoted = ", ".join('"' + column.replace('"', '""') + '"' for column in required)
            rows = []
            for number, values in enumerate(connection.execute(f'SELECT {quoted} FROM "{table}" ORDER BY rowid'), 1):
                rows.append(TableRow(f"{path}:{table}#{number}",
                                     {c: _sqlite_value(v) for c, v in zip(required, values)}))
            result[table] = rows
        return result
    except sqlite3.Error as error:
        raise ReferenceError_(f"{path}: cannot read SQLite database: {error}") from error
    finally:
        connection.close()


def read_tables(location: Path) -> dict[str, list[TableRow]]:
    """The three tables the analysis needs, from a folder of table files or a SQLite file.
    (The product and copy tables only feed reports; the reference does not read them.)"""
    if location.suffix.lower() in (".sqlite", ".db"):
        return _read_sqlite_tables(location)
    if not location.exists():
        raise ReferenceError_(f"{location}: tables location not found")
    if not location.is_dir():
        raise ReferenceError_(f"{location}: tables location is neither a folder nor a .sqlite/.db file")
    result = {}
    for table in REQUIRED_COLUMNS:
        candidates = [location / f"{table}{ext}" for ext in TABLE_EXTENSIONS if (location / f"{table}{ext}").is_file()]
        if not candidates:
            raise ReferenceError_(f"{location}: no file for table '{table}' ({', '.join(table + e for e in TABLE_EXTENSIONS)})")
        if len(candidates) > 1:
            raise ReferenceError_(f"{location}: several files for table '{table}': {', '.join(c.name for c in candidates)}")
        result[table] = _read_text_table(candidates[0], table)
    return result


def read_user_transactions(location: Path) -> dict[str, str]:
    """The server's `user_transactions` table (a chain's first transaction -> its user), {} without one.
    A row with an empty value, or a chain given to two users, is a bad table."""
    if location.suffix.lower() in (".sqlite", ".db"):
        raise ReferenceError_(f"{location}: user_transactions from a SQLite file is not read by the reference")
    candidates = [location / f"user_transactions{ext}" for ext in TABLE_EXTENSIONS if (location / f"user_transactions{ext}").is_file()]
    if len(candidates) > 1:
        raise ReferenceError_(f"{location}: several files for table 'user_transactions': {', '.join(c.name for c in candidates)}")
    users: dict[str, str] = {}
    for row in (_read_text_table(candidates[0], "user_transactions") if candidates else []):
        user, chain = row.values["user_id"], row.values["original_transaction_id"]
        if not isinstance(user, str) or not isinstance(chain, str) or not user or not chain:
            raise ReferenceError_(f"{row.where}: user_transactions needs a user_id and an original_transaction_id")
        if users.setdefault(chain, user) != user:
            raise ReferenceError_(f"{row.where}: chain {chain} is given to two users")
    return users


_INT_RE = re.compile(r"-?[0-9]+")
_REAL_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_table_int(value: object) -> int | None:
    if isinstance(value, str) and _INT_RE.fullmatch(value):
        return int(value)
    return None


def parse_table_real(value: object) -> float | None:
    if isinstance(value, str) and _REAL_RE.fullmatch(value):
        number = float(value)
        return number if math.isfinite(number) else None
    return None


def parse_table_timestamp(value: object) -> int | None:
    return parse_timestamp_text(value) if isinstance(value, str) else None


@dataclass
class Group:
    id: int
    offering_db_id: int
    name: str
    weight: float


@dataclass
class Offering:
    db_id: int
    offering_id: str
    groups: list[Group] = field(default_factory=list)  # by table id


def build_offerings(tables: dict[str, list[TableRow]]) -> tuple[dict[int, Offering], dict[int, Group]]:
    """Offerings and groups, strictly checked: they are configuration, so a bad value is an
    error naming the row (Decision D8)."""
    offerings: dict[int, Offering] = {}
    seen_names: set[str] = set()
    for row in tables["subscription_offerings"]:
        db_id = parse_table_int(row.values["id"])
        name = row.values["offering_id"]
        if db_id is None:
            raise ReferenceError_(f"{row.where}: subscription_offerings.id is not an integer")
        if not isinstance(name, str) or name == "":
            raise ReferenceError_(f"{row.where}: subscription_offerings.offering_id is empty or NULL")
        if db_id in offerings or name in seen_names:
            raise ReferenceError_(f"{row.where}: duplicate offering (id {db_id}, offering_id '{name}')")
        offerings[db_id] = Offering(db_id, name)
        seen_names.add(name)
    groups: dict[int, Group] = {}
    for row in tables["subscription_offering_groups"]:
        group_id = parse_table_int(row.values["id"])
        offering_db_id = parse_table_int(row.values["subscription_offering_id"])
        name = row.values["group_name"]
        weight = parse_table_real(row.values["weight"])
        if group_id is None or offering_db_id is None:
            raise ReferenceError_(f"{row.where}: subscription_offering_groups id or subscription_offering_id is not an integer")
        if not isinstance(name, str):
            raise ReferenceError_(f"{row.where}: subscription_offering_groups.group_name is NULL")
        if weight is None or weight < 0:
            raise ReferenceError_(f"{row.where}: subscription_offering_groups.weight is not a number >= 0")
        if group_id in groups:
            raise ReferenceError_(f"{row.where}: duplicate group id {group_id}")
        group = Group(group_id, offering_db_id, name, weight)
        groups[group_id] = group
        offering = offerings.get(offering_db_id)
        if offering is None:
            continue  # a group of an unknown offering: no assignment can be valid with it
        if any(other.name == name for other in offering.groups):
            raise ReferenceError_(f"{row.where}: offering '{offering.offering_id}' has two groups named '{name}'")
        offering.groups.append(group)
    for offering in offerings.values():
        offering.groups.sort(key=lambda g: g.id)
    return offerings, groups


# =============================================================================================
# Population (docs/analysis.md §1)
# =============================================================================================

@dataclass
class Population:
    #: offering db id -> user -> (group, assigned_at), multi-group users excluded
    members: dict[int, dict[str, tuple[Group, int]]]
    #: offering db id -> number of multi-group users
    multi_group_users: dict[int, int]
    #: offering db id -> invalid rows naming it
    invalid_by_offering: dict[int, int]
    #: invalid rows naming no known offering (or an unreadable one)
    invalid_global: int
    #: users with a valid row in any offering (analysed or not)
    assigned_users: set[str]
    #: offerings named by a row that is not ignored for being at or after as_of
    offerings_with_rows: set[int]


def build_population(rows: list[TableRow], offerings: dict[int, Offering], groups: dict[int, Group],
                     as_of: int) -> Population:
    invalid_by_offering: dict[int, int] = {}
    invalid_global = 0
    offerings_with_rows: set[int] = set()
    # offering -> user -> group id -> earliest assigned_at
    valid: dict[int, dict[str, dict[int, int]]] = {}
    for row in rows:
        assigned_at = parse_table_timestamp(row.values["assigned_at"])
        if assigned_at is not None and assigned_at >= as_of:
            continue  # ignored before anything else, no counter (Decision D21 for the rest)
        offering_db_id = parse_table_int(row.values["subscription_offering_id"])
        if offering_db_id not in offerings:
            invalid_global += 1
            continue
        offerings_with_rows.add(offering_db_id)
        user = row.values["user_id"]
        group = groups.get(parse_table_int(row.values["offering_group_id"]))  # type: ignore[arg-type]
        if (not isinstance(user, str) or user == "" or assigned_at is None
                or group is None or group.offering_db_id != offering_db_id):
            invalid_by_offering[offering_db_id] = invalid_by_offering.get(offering_db_id, 0) + 1
            continue
        by_group = valid.setdefault(offering_db_id, {}).setdefault(user, {})
        by_group[group.id] = min(assigned_at, by_group.get(group.id, assigned_at))
    members: dict[int, dict[str, tuple[Group, int]]] = {}
    multi: dict[int, int] = {}
    assigned_users: set[str] = set()
    for offering_db_id, users in valid.items():
        for user, by_group in users.items():
            assigned_users.add(user)
            if len(by_group) > 1:
                multi[offering_db_id] = multi.get(offering_db_id, 0) + 1
                continue
            ((group_id, assigned_at),) = by_group.items()
            members.setdefault(offering_db_id, {})[user] = (groups[group_id], assigned_at)
    return Population(members, multi, invalid_by_offering, invalid_global, assigned_users, offerings_with_rows)


def control_group(offering: Offering, configured: str | None) -> Group | None:
    """The job's control if the offering has a group of that name; else the group named
    `control`; else the group with the lowest id."""
    for name in (configured, "control"):
        if name is not None:
            for group in offering.groups:
                if group.name == name:
                    return group
    return offering.groups[0] if offering.groups else None


# =============================================================================================
# Purchase log lines (docs/input-formats.md#purchase-logs, docs/input-formats.md#malformed-lines)
# =============================================================================================

@dataclass
class Event:
    order: int  # position in file order (files in sorted path order, then line order)
    source: str  # "file:line"
    ts: int
    user_id: str
    event: str
    event_id: str | None = None
    product_id: str | None = None
    transaction_id: str | None = None
    original_transaction_id: str | None = None
    price_micros: int | None = None
    currency: str | None = None
    offering_id: str | None = None
    test_group_id: str | None = None
    sandbox: bool = False
    #: the dimensions for slicing (docs/analysis.md §7); "" is absent (D14)
    platform: str | None = None
    country: str | None = None
    #: docs/analysis.md §9: the end of the period the transaction gives; None when absent or not a timestamp
    expires_at: int | None = None
    #: docs/analysis.md §8: the store that charged, and RevenueCat's fee shares in millionths
    store: str | None = None
    tax_share: int | None = None
    commission_share: int | None = None
    #: Google Play's Order: the developer's revenue in the charge's currency (micro-units), its exact proceeds
    exact_proceeds_micros: int | None = None

    @property
    def states_its_fees(self) -> bool:
        """docs/analysis.md §8: the record says its fees (RevenueCat's shares, Play's Order), not the job's rules."""
        return (self.tax_share is not None and self.commission_share is not None) or self.exact_proceeds_micros is not None


class Malformed(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _holds_lone_surrogate(value: object) -> bool:
    """Whether a decoded JSON value holds an unpaired surrogate escape (`"\\ud800"`) in any string,
    key or value: text no UTF-8 can carry, so the line is not valid JSON (Decision D16)."""
    if isinstance(value, str):
        return any(0xD800 <= ord(char) <= 0xDFFF for char in value)
    if isinstance(value, dict):
        return any(_holds_lone_surrogate(key) or _holds_lone_surrogate(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds_lone_surrogate(item) for item in value)
    return False


def _pick(obj: dict, snake: str, camel: str | None) -> object:
    """A field by its snake_case key, else its camelCase key; JSON null is absent (D13), and so
    is the empty string of an optional field (D14): only `user_id` is required."""
    value = obj.get(snake)
    if camel is not None and (value is None or (value == "" and snake != "user_id")):
        value = obj.get(camel)
    return value


def _text_value(value: object) -> str:
    """A text field's value: a string, or a JSON integer as its decimal text; anything else
    (boolean, float, object, array) is an invalid field (Decision D16)."""
    if isinstance(value, bool):
        raise Malformed("malformed_invalid_field")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    raise Malformed("malformed_invalid_field")


def _dimension_value(value: object) -> str | None:
    """A dimension's value (DIMENSION_FIELDS): a non-empty string, or a JSON integer as its
    decimal text; any other value is absent, the line stays valid (Decision D16)."""
    if isinstance(value, str) and value != "":
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _json_number(value) -> Decimal:
    """A JSON number, or a string holding one (section 1.2's price and fee shares); else malformed."""
    if isinstance(value, bool):
        raise Malformed("malformed_invalid_field")
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, Decimal):
        return value
    if isinstance(value, str) and _NUMERIC_STRING_RE.fullmatch(value):
        return Decimal(value)
    raise Malformed("malformed_invalid_field")


def validate_event(obj: dict, order: int, source: str) -> Event:
    """A decoded log object as an Event, or Malformed with the first reason of docs/input-formats.md#malformed-lines.

    `obj` holds JSON values (strings, ints, Decimal for JSON numbers with a fraction or
    exponent, bools, lists, dicts); CSV log rows arrive as strings (their `ts` of digits
    already turned into an int)."""
    # 2. required fields present
    ts_value = obj.get("ts")
    user_value = _pick(obj, "user_id", "userId")
    event_value = obj.get("event")
    if ts_value is None or user_value is None or event_value is None:
        raise Malformed("malformed_missing_field")
    # 3. field types
    texts: dict[str, str | None] = {}
    for snake, camel in TEXT_FIELDS.items():
        value = _pick(obj, snake, camel)
        texts[snake] = None if value is None else _text_value(value)
    if texts["user_id"] == "":
        raise Malformed("malformed_invalid_field")
    if not isinstance(event_value, str):
        raise Malformed("malformed_invalid_field")
    price_value = obj.get("price")
    price = None if price_value is None else _json_number(price_value)
    price_micros = None if price is None else decimal_to_micros(price)
    if price is not None and price_micros is None:
        raise Malformed("malformed_invalid_field")
    # docs/analysis.md §8: RevenueCat's fee shares, each in [0, 1) and together below 1, else an invalid field.
    shares = {}
    for name in ("tax_percentage", "commission_percentage"):
        value = obj.get(name)
        if value is None or value == "":
            shares[name] = None
            continue
        billionths = decimal_to_micros(_json_number(value), unit=_WHOLE_SHARE)
        if billionths is None or not 0 <= billionths < _WHOLE_SHARE:
            raise Malformed("malformed_invalid_field")
        shares[name] = billionths
    if (shares["tax_percentage"] is not None and shares["commission_percentage"] is not None
            and shares["tax_percentage"] + shares["commission_percentage"] >= _WHOLE_SHARE):
        raise Malformed("malformed_invalid_field")
    # 4. timestamp
    ts: int | None
    if isinstance(ts_value, bool):
        ts = None
    elif isinstance(ts_value, int):
        ts = epoch_millis_to_micros(ts_value)
    elif isinstance(ts_value, str):
        ts = parse_timestamp_text(ts_value)
    else:
        ts = None
    if ts is None:
        raise Malformed("malformed_bad_timestamp")
    # docs/analysis.md §9: expires_at in the timestamp grammar; any other value is absent, the line stays valid.
    expires_value = _pick(obj, "expires_at", "expiresAt")
    expires_at = None
    if isinstance(expires_value, bool):
        expires_at = None
    elif isinstance(expires_value, int):
        expires_at = epoch_millis_to_micros(expires_value)
    elif isinstance(expires_value, str):
        expires_at = parse_timestamp_text(expires_value)
    dimensions = {name: _dimension_value(obj.get(name)) for name in DIMENSION_FIELDS}
    # Empty optional ids are absent (Decision D14); an empty user_id was rejected above.
    for name in texts:
        if name != "user_id" and texts[name] == "":
            texts[name] = None
    # 5. fields required by the event type
    if event_value in TRANSACTION_EVENTS and (texts["product_id"] is None or texts["transaction_id"] is None):
        raise Malformed("malformed_missing_field")
    if event_value in PRICED_EVENTS and price is None:
        raise Malformed("malformed_missing_field")
    if price is not None and texts["currency"] is None:
        raise Malformed("malformed_missing_field")
    # 6. negative price (the exact decimal value, Decision D15)
    if price is not None and price < 0:
        raise Malformed("malformed_negative_price")
    environment = texts["environment"]
    return Event(
        order=order,
        source=source,
        ts=ts,
        user_id=texts["user_id"],  # type: ignore[arg-type]
        event=event_value,
        event_id=texts["event_id"],
        product_id=texts["product_id"],
        transaction_id=texts["transaction_id"],
        original_transaction_id=texts["original_transaction_id"],
        price_micros=price_micros,
        currency=texts["currency"],
        offering_id=texts["offering_id"],
        test_group_id=texts["test_group_id"],
        sandbox=environment is not None and environment.isascii() and environment.lower() == "sandbox",
        platform=dimensions["platform"],
        country=dimensions["country"],
        expires_at=expires_at,
        store=dimensions["store"],
        tax_share=shares["tax_percentage"],
        commission_share=shares["commission_percentage"],
    )


def parse_json_line(line: bytes, order: int, source: str) -> Event:
    try:
        text = line.decode("utf-8")
        obj = json.loads(text, parse_float=Decimal, parse_int=int, parse_constant=_reject_constant)
        # Only an escape (`\\u`) can make an unpaired surrogate: UTF-8 cannot carry one.
        lone_surrogate = "\\u" in text and _holds_lone_surrogate(obj)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise Malformed("malformed_invalid_json") from error
    if not isinstance(obj, dict) or lone_surrogate:
        raise Malformed("malformed_invalid_json")
    return validate_event(obj, order, source)


_DIGITS_RE = re.compile(r"[0-9]+")


def parse_csv_log_record(header: list[str], record: CsvRecord, order: int, source: str) -> Event:
    if not record.well_formed or len(record.fields) != len(header):
        raise Malformed("malformed_invalid_csv")
    obj: dict[str, object] = {}
    for name, (raw, _quoted) in zip(header, record.fields):
        if raw == b"":
            continue  # an empty cell is absent (quoted or not, Decision D11)
        try:
            obj[name] = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise Malformed("malformed_invalid_csv") from error
    for name in ("ts", "expires_at", "expiresAt"):
        value = obj.get(name)
        if isinstance(value, str) and _DIGITS_RE.fullmatch(value):
            obj[name] = int(value)  # a ts (or expires_at) of digits is epoch milliseconds
    return validate_event(obj, order, source)


@dataclass
class LogReadResult:
    events: list[Event]
    counters: dict[str, int]
    skipped_files: list[str]


def is_csv_log(path: Path) -> bool:
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    return name.endswith(".csv")


def expand_log_globs(patterns: list[str], base_dir: Path) -> list[Path]:
    """Every regular file matched by the globs (relative to the job file), byte-wise sorted
    by absolute path, each once. `**` matches across folders (Decision D5)."""
    found: dict[str, Path] = {}
    for pattern in patterns:
        full = pattern if os.path.isabs(pattern) else os.path.join(glob.escape(str(base_dir)), pattern)
        for match in glob.glob(full, recursive=True):
            path = Path(os.path.abspath(match))
            if path.is_file():
                found[str(path)] = path
    return [found[key] for key in sorted(found, key=lambda p: os.fsencode(p))]


def read_counted_file(path: Path, on_corrupt_file: str, counters: dict[str, int], skipped: list[str]) -> bytes | None:
    """A file's bytes without a BOM, counted in files_read; None for a corrupt gzip skipped (counted
    in files_skipped_corrupt) under on_corrupt_file: skip, else the run fails naming it."""
    try:
        data = strip_bom(read_input_bytes(path))
    except CorruptGzip as error:
        if on_corrupt_file == "skip":
            counters["files_skipped_corrupt"] += 1
            skipped.append(f"{path}: {error}")
            return None
        raise ReferenceError_(f"{path}: {error}") from error
    counters["files_read"] += 1
    return data


def read_logs(paths: list[Path], on_corrupt_file: str) -> LogReadResult:
    counters = {name: 0 for name in ("files_read", "files_skipped_corrupt", "lines_read", "malformed_lines", *MALFORMED_REASONS)}
    events: list[Event] = []
    skipped: list[str] = []
    order = 0
    for path in paths:
        data = read_counted_file(path, on_corrupt_file, counters, skipped)
        if data is None:
            continue

        def outcome(parse, source: str, too_long: bool) -> None:
            nonlocal order
            counters["lines_read"] += 1
            try:
                if too_long:
                    raise Malformed("malformed_line_too_long")
                events.append(parse(order, source))
                order += 1
            except Malformed as malformed:
                counters["malformed_lines"] += 1
                counters[malformed.reason] += 1

        if is_csv_log(path):
            header: list[str] | None = None
            for record in iter_csv_records(data):
                if header is None:
                    if not record.well_formed:
                        raise ReferenceError_(f"{path}:{record.line}: the CSV header row is not valid RFC 4180")
                    try:
                        header = [raw.decode("utf-8") for raw, _ in record.fields]
                    except UnicodeDecodeError as error:
                        raise ReferenceError_(f"{path}:{record.line}: the CSV header row is not valid UTF-8") from error
                    continue
                outcome(lambda o, s, r=record, h=header: parse_csv_log_record(h, r, o, s),
                        f"{path}:{record.line}", record.length > MAX_LINE_BYTES)
        else:
            for number, line in enumerate(data.split(b"\n"), start=1):
                if line.endswith(b"\r"):
                    line = line[:-1]
                if _is_blank(line):
                    continue
                outcome(lambda o, s, l=line: parse_json_line(l, o, s), f"{path}:{number}", len(line) > MAX_LINE_BYTES)
    return LogReadResult(events, counters, skipped)


# =============================================================================================
# Google Play (contract §1.6's Google Play part; docs/input-formats.md#google-play-google_play-and-google_play_orders)
# =============================================================================================
# The two feeds become events of the log format, read with every other rule unchanged. Only what
# a generated data set's Play share holds is read (subscriptions bought and renewed through
# grace periods and holds, cancels, expires, voided purchases, Orders and their refunds, testers'
# purchases, another app's line, test notifications); anything else the contract names (one-time
# products, revocations, plan changes, …) is refused with an error rather than skipped.

PLAY_FORMATS = ("google_play", "google_play_orders")
#: Reasons of the store formats, after MALFORMED_REASONS in quality.csv (docs/analysis.md §5).
STORE_MALFORMED_REASONS = ("malformed_bad_signature", "malformed_other_app")
#: The store counters, after the global invalid_assignments (docs/analysis.md §5).
STORE_COUNTERS = ("ignored_store_records", "unpriced_charges", "unattributed_store_records", "family_shared_records",
                  "unknown_notification_types", "unpriced_refunds")
#: Subscription notification types that deliver the state's orders: RECOVERED, RENEWED, PURCHASED, RESTARTED.
PLAY_DELIVERING_TYPES = (1, 2, 4, 7)
PLAY_CANCELED, PLAY_EXPIRED = 3, 13
#: Types that carry no purchase fact (ignored_store_records): ON_HOLD, IN_GRACE_PERIOD, PRICE_CHANGE_CONFIRMED,
#: DEFERRED, PAUSED, PAUSE_SCHEDULE_CHANGED, ITEMS_CHANGED, CANCELLATION_SCHEDULED, PRICE_CHANGE_UPDATED,
#: PENDING_PURCHASE_CANCELED, PRICE_STEP_UP_CONSENT_UPDATED.
PLAY_FACTLESS_TYPES = (5, 6, 8, 9, 10, 11, 17, 18, 19, 20, 22)
#: Google's later orders of a token are its first order's id and `..N`.
_PLAY_LATER_ORDER_RE = re.compile(r".*\.\.[0-9]+")


class PlayNotSupported(ReferenceError_):
    """What the contract names but the reference does not read: an error, never a silent skip."""

    def __init__(self, where: str, what: str):
        super().__init__(f"{where}: {what} is not read by the reference (only what the generated Play share holds)")


def _play_int(value: object, reason: str = "malformed_invalid_field") -> int:
    """A Google int64: a JSON integer or a string of one."""
    if isinstance(value, bool):
        raise Malformed(reason)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value):
        return int(value)
    raise Malformed(reason)


def _play_object(value: object) -> dict:
    if not isinstance(value, dict):
        raise Malformed("malformed_invalid_field")
    return value


def _play_text(container: dict, key: str) -> str:
    """A required text field: absent is missing, another JSON type invalid."""
    value = container.get(key)
    if value is None:
        raise Malformed("malformed_missing_field")
    if not isinstance(value, str):
        raise Malformed("malformed_invalid_field")
    return value


def _play_time(value: object) -> int:
    """An RFC 3339 time (the timestamp grammar with its `T`) as microseconds."""
    micros = parse_timestamp_text(value) if isinstance(value, str) else None
    if micros is None:
        raise Malformed("malformed_bad_timestamp")
    return micros


def _play_millis(value: object) -> int:
    if value is None:
        raise Malformed("malformed_missing_field")
    micros = epoch_millis_to_micros(_play_int(value, "malformed_bad_timestamp"))
    if micros is None:
        raise Malformed("malformed_bad_timestamp")
    return micros


def _play_money(value: object) -> tuple[int, str]:
    """A Google Money (`currencyCode`, `units`, `nanos`) as (micro-units, currency): units + nanos/10⁹,
    rounded half to even to the micro-unit."""
    money = _play_object(value)
    currency = _play_text(money, "currencyCode")
    units = _play_int(money.get("units", 0))
    nanos = _play_int(money.get("nanos", 0))
    micros = decimal_to_micros(Decimal(units) + Decimal(nanos) / Decimal(1_000_000_000))
    if micros is None:
        raise Malformed("malformed_invalid_field")
    return micros, currency


@dataclass
class PlayLineItem:
    order_id: str | None
    product_id: str
    expiry: int | None
    #: the plan's recurring price (micro-units, currency); None for a prepaid plan
    recurring_price: tuple[int, str] | None
    free_trial: bool
    #: an introductory or proration phase: the charge's money is only its Order's
    discounted: bool


@dataclass
class PlayState:
    """A SubscriptionPurchaseV2 as fetched with a notification."""
    start: int | None
    user: str | None
    country: str | None
    test_purchase: bool
    line_items: list[PlayLineItem]
    #: linkedPurchaseToken: the token whose chain this one continues (a plan change or resubscription)
    linked: str | None = None


def _play_state(value: object, where: str) -> PlayState:
    state = _play_object(value)
    linked = state.get("linkedPurchaseToken")
    if linked is not None and not isinstance(linked, str):
        raise Malformed("malformed_invalid_field")
    items = state.get("lineItems")
    if items is None or items == []:
        raise Malformed("malformed_missing_field")
    if not isinstance(items, list):
        raise Malformed("malformed_invalid_field")
    line_items = []
    for raw in items:
        item = _play_object(raw)
        product_id = _play_text(item, "productId")
        order_id = item.get("latestSuccessfulOrderId")
        if order_id is not None and not isinstance(order_id, str):
            raise Malformed("malformed_invalid_field")
        expiry = None if item.get("expiryTime") is None else _play_time(item["expiryTime"])
        plan = item.get("autoRenewingPlan")
        price = None
        if plan is not None and _play_object(plan).get("recurringPrice") is not None:
            price = _play_money(plan["recurringPrice"])
            if price[0] < 0:
                raise Malformed("malformed_negative_price")
        phase = _play_object(item.get("offerPhase") or {})
        line_items.append(PlayLineItem(order_id or None, product_id, expiry, price, "freeTrial" in phase,
                                       "introductoryPrice" in phase or "prorationPeriod" in phase))
    accounts = _play_object(state.get("externalAccountIdentifiers") or {})
    user = accounts.get("obfuscatedExternalAccountId")
    if user is not None and not isinstance(user, str):
        raise Malformed("malformed_invalid_field")
    country = state.get("regionCode")
    start = None if state.get("startTime") is None else _play_time(state["startTime"])
    return PlayState(start, user or None, country if isinstance(country, str) and country else None,
                     state.get("testPurchase") is not None, line_items, linked or None)


@dataclass
class PlayNotification:
    """One google_play line, decoded: its notification id, time, kind and what it names."""
    id: str
    at: int
    kind: str  # "subscription", "voided" or "test"
    token: str | None
    type: int | None = None
    order_id: str | None = None  # a voided purchase's order
    refund_type: int | None = None
    state: PlayState | None = None
    position: tuple[int, int] = (0, 0)  # (file index, line number)


def _json_object(data: bytes) -> dict:
    """A Play line or push payload: a JSON object in UTF-8, else the line is malformed_invalid_json."""
    try:
        obj = json.loads(data.decode("utf-8"), parse_float=Decimal, parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise Malformed("malformed_invalid_json") from error
    if not isinstance(obj, dict):
        raise Malformed("malformed_invalid_json")
    return obj


def parse_play_notification(line: bytes, package_name: str, where: str) -> PlayNotification:
    obj = _json_object(line)
    if obj.get("notification") is None:
        raise Malformed("malformed_missing_field")
    if obj.get("product") is not None:
        raise PlayNotSupported(where, "a one-time product's purchase (product)")
    envelope = _play_object(obj["notification"])
    message_id = None
    if "message" in envelope:  # the Pub/Sub push body: message.data is the DeveloperNotification in base64
        message = _play_object(envelope["message"])
        data = _play_text(message, "data")
        try:
            decoded = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError) as error:
            raise Malformed("malformed_invalid_field") from error
        notification = _json_object(decoded)
        message_id = message.get("messageId")
        if message_id is not None:
            message_id = str(_play_int(message_id)) if not isinstance(message_id, str) else message_id
    else:
        notification = envelope
    package = _play_text(notification, "packageName")
    at = _play_millis(notification.get("eventTimeMillis"))
    kinds = [k for k in ("subscriptionNotification", "voidedPurchaseNotification", "testNotification",
                         "oneTimeProductNotification") if notification.get(k) is not None]
    if not kinds:
        raise Malformed("malformed_missing_field")
    if package != package_name:
        raise Malformed("malformed_other_app")
    if kinds[0] == "oneTimeProductNotification":
        raise PlayNotSupported(where, "a one-time product's notification")
    if kinds[0] == "testNotification":
        return PlayNotification(message_id or f"test:{at}", at, "test", None)
    body = _play_object(notification[kinds[0]])
    token = _play_text(body, "purchaseToken")
    state = None if obj.get("subscription") is None else _play_state(obj["subscription"], where)
    if kinds[0] == "voidedPurchaseNotification":
        order_id = _play_text(body, "orderId")
        refund_type = _play_int(body.get("refundType", 1))
        if refund_type not in (1, 2):
            raise PlayNotSupported(where, f"refundType {refund_type}")
        return PlayNotification(message_id or f"{token}:voided:{at}", at, "voided", token, None, order_id, refund_type,
                                state)
    if body.get("notificationType") is None:
        raise Malformed("malformed_missing_field")
    kind = _play_int(body["notificationType"])
    identifier = message_id or f"{token}:{kind}:{notification['eventTimeMillis']}"
    if kind in PLAY_DELIVERING_TYPES and state is None:
        raise Malformed("malformed_missing_field")
    if kind not in PLAY_DELIVERING_TYPES + PLAY_FACTLESS_TYPES + (PLAY_CANCELED, PLAY_EXPIRED):
        raise PlayNotSupported(where, f"subscription notification type {kind}")
    return PlayNotification(identifier, at, "subscription", token, kind, None, None, state)


@dataclass
class PlayOrder:
    """An Orders API Order: the exact facts of one charge."""
    order_id: str
    created: int
    last_event: int
    total: tuple[int, str]
    #: developerRevenueInBuyerCurrency in micro-units of the total's currency, when it states one
    revenue: int | None
    #: the refund events: (time, micro-units); several partial ones are one refund of their sum at the first's time
    refunds: list[tuple[int, int]]
    position: tuple[int, int] = (0, 0)


def parse_play_order(line: bytes) -> PlayOrder:
    obj = _json_object(line)
    order_id = _play_text(obj, "orderId")
    if obj.get("createTime") is None or obj.get("total") is None:
        raise Malformed("malformed_missing_field")
    created = _play_time(obj["createTime"])
    last_event = created if obj.get("lastEventTime") is None else _play_time(obj["lastEventTime"])
    total = _play_money(obj["total"])
    if total[0] < 0:
        raise Malformed("malformed_negative_price")
    revenue = None
    if obj.get("developerRevenueInBuyerCurrency") is not None:
        micros, currency = _play_money(obj["developerRevenueInBuyerCurrency"])
        # A revenue in another currency, of 0 or above the total, is left to the commission rules.
        if currency == total[1] and 0 < micros <= total[0]:
            revenue = micros
    history = _play_object(obj.get("orderHistory") or {})
    refunds = []
    if history.get("refundEvent") is not None:
        event = _play_object(history["refundEvent"])
        if event.get("eventTime") is None:
            raise Malformed("malformed_missing_field")
        details = _play_object(event.get("refundDetails") or {})
        amount = total[0] if details.get("total") is None else _play_money(details["total"])[0]
        refunds.append((_play_time(event["eventTime"]), amount))
    for raw in history.get("partialRefundEvents") or []:
        event = _play_object(raw)
        details = _play_object(event.get("refundDetails") or {})
        if event.get("processedTime") is None or details.get("total") is None:
            raise Malformed("malformed_missing_field")
        refunds.append((_play_time(event["processedTime"]), _play_money(details["total"])[0]))
    return PlayOrder(order_id, created, last_event, total, revenue, sorted(refunds))


@dataclass
class PlayReadResult:
    events: list[Event]
    counters: dict[str, dict[str, int]]  # per format: files_read, lines_read, malformed reasons, store counters


def _read_store_lines(path: Path, on_corrupt_file: str, counters: dict[str, int], skipped: list[str]):
    """(line number, line) of a store file's non-blank lines, counting files and lines as the logs'."""
    data = read_counted_file(path, on_corrupt_file, counters, skipped)
    if data is None:
        return []
    lines = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.endswith(b"\r"):
            line = line[:-1]
        if not _is_blank(line):
            counters["lines_read"] += 1
            lines.append((number, line))
    return lines


def _play_malformed(counters: dict[str, int], reason: str) -> None:
    counters["malformed_lines"] += 1
    counters[reason] += 1


def read_google_play(notification_paths: list[Path], order_paths: list[Path], package_name: str,
                     user_transactions: dict[str, str], on_corrupt_file: str, first_order: int,
                     skipped: list[str]) -> PlayReadResult:
    """The events of the two Play feeds (contract §1.6), `order` numbered from `first_order`: each
    record's events in the file order of the line that first delivered it, after the purchase logs."""
    def fresh() -> dict[str, int]:
        return {name: 0 for name in ("files_read", "files_skipped_corrupt", "lines_read", "malformed_lines",
                                     *MALFORMED_REASONS, *STORE_MALFORMED_REASONS, *STORE_COUNTERS)}
    counters = {"google_play": fresh(), "google_play_orders": fresh()}
    notifications: dict[str, PlayNotification] = {}  # by id: a retry is the same notification
    for file_index, path in enumerate(notification_paths):
        for number, line in _read_store_lines(path, on_corrupt_file, counters["google_play"], skipped):
            if len(line) > MAX_LINE_BYTES:
                _play_malformed(counters["google_play"], "malformed_line_too_long")
                continue
            try:
                notification = parse_play_notification(line, package_name, f"{path}:{number}")
            except Malformed as malformed:
                _play_malformed(counters["google_play"], malformed.reason)
                continue
            notification.position = (file_index, number)
            notifications.setdefault(notification.id, notification)
    orders: dict[str, PlayOrder] = {}  # of two listings the later lastEventTime wins, a tie the later line
    for file_index, path in enumerate(order_paths):
        for number, line in _read_store_lines(path, on_corrupt_file, counters["google_play_orders"], skipped):
            if len(line) > MAX_LINE_BYTES:
                _play_malformed(counters["google_play_orders"], "malformed_line_too_long")
                continue
            try:
                order = parse_play_order(line)
            except Malformed as malformed:
                _play_malformed(counters["google_play_orders"], malformed.reason)
                continue
            order.position = (len(notification_paths) + file_index, number)
            known = orders.get(order.order_id)
            if known is None or order.last_event >= known.last_event:
                orders[order.order_id] = order
    played = counters["google_play"]
    in_order = sorted(notifications.values(), key=lambda n: n.position)
    # The token's latest state says whose a notification without one is.
    latest_state: dict[str, tuple[int, PlayState]] = {}
    for n in in_order:
        if n.state is not None and n.token is not None:
            if n.token not in latest_state or n.at >= latest_state[n.token][0]:
                latest_state[n.token] = (n.at, n.state)
    # The chain (contract §1.6): a token whose state has linkedPurchaseToken continues that token's chain,
    # followed to the root (the chain's first token), whichever line or file came first; a loop ends where it closes.
    links = {n.token: n.state.linked for n in in_order if n.state is not None and n.token is not None and n.state.linked}

    def chain_of(token: str) -> str:
        seen = {token}
        while token in links and links[token] not in seen:
            token = links[token]
            seen.add(token)
        return token

    # Orders are the facts: each successful order a delivering notification's state names, once.
    charges: dict[str, dict] = {}
    for n in in_order:
        if n.kind == "test" or (n.kind == "subscription" and n.type in PLAY_FACTLESS_TYPES):
            played["ignored_store_records"] += 1
            continue
        if n.kind != "subscription" or n.type not in PLAY_DELIVERING_TYPES:
            continue
        named = [item for item in n.state.line_items if item.order_id is not None]
        if not named:  # a purchase still pending names no successful order yet
            played["ignored_store_records"] += 1
            continue
        for item in named:
            charge = charges.get(item.order_id)
            if charge is None:
                charges[item.order_id] = {"chain": chain_of(n.token), "first": n, "item": item, "state": n.state}
            elif n.at < charge["first"].at:
                charge.update(first=n, item=item, state=n.state)
    for n in in_order:  # another notification's state naming an order none delivered is not read
        if n.kind == "subscription" and n.type not in PLAY_DELIVERING_TYPES and n.state is not None:
            for item in n.state.line_items:
                if item.order_id is not None and item.order_id not in charges:
                    raise PlayNotSupported(f"notification {n.id}", f"order {item.order_id}, named by no purchase notification")

    def user_of(chain: str, state: PlayState | None) -> str | None:
        """user_transactions by the chain's first token, else the state's account id."""
        if chain in user_transactions:
            return user_transactions[chain]
        return state.user if state is not None else None

    made: list[tuple[tuple[int, int], Event]] = []

    def add(position: tuple[int, int], event: Event | None) -> None:
        if event is None:
            return
        made.append((position, event))

    # Charges: when and how much (the Order's, else the notification's and the plan's price).
    details: dict[str, dict] = {}
    for order_id, charge in charges.items():
        item, state, order = charge["item"], charge["state"], orders.get(order_id)
        later = _PLAY_LATER_ORDER_RE.fullmatch(order_id) is not None
        if item.free_trial:
            at, price, revenue = (state.start if not later and state.start is not None else charge["first"].at), None, None
        elif order is not None:
            at, price, revenue = order.created, order.total, order.revenue
        else:
            at = state.start if not later and state.start is not None else charge["first"].at
            price = None if item.discounted else item.recurring_price
            revenue = None
        details[order_id] = {"at": at, "price": price, "revenue": revenue}
    # purchase: the earliest paid order of its chain (by time, then order id), counted for a test or not; a
    # later token's first order is a renewal when its chain has an earlier paid order.
    first_paid: dict[str, tuple[int, str]] = {}
    for order_id, charge in charges.items():
        if not charge["item"].free_trial:
            key = (details[order_id]["at"], order_id)
            if charge["chain"] not in first_paid or key < first_paid[charge["chain"]]:
                first_paid[charge["chain"]] = key
    for order_id, charge in charges.items():
        item, state, chain, detail = charge["item"], charge["state"], charge["chain"], details[order_id]
        user = user_of(chain, state)
        if user is None:
            played["unattributed_store_records"] += 1
            continue
        if item.free_trial:
            kind = "trial_start"
        else:
            kind = "purchase" if first_paid[chain] == (detail["at"], order_id) else "renewal"
        price = detail["price"]
        if kind != "trial_start" and price is None:
            raise PlayNotSupported(f"order {order_id}", "a charge without its price (unpriced_charges)")
        event = Event(order=0, source=f"google_play:{order_id}", ts=detail["at"], user_id=user, event=kind,
                      event_id=f"google_play:{order_id}", product_id=item.product_id, transaction_id=order_id,
                      original_transaction_id=chain, sandbox=state.test_purchase, platform="android",
                      country=state.country, expires_at=item.expiry, store="play_store")
        if kind != "trial_start":
            event.price_micros, event.currency = price
            event.exact_proceeds_micros = detail["revenue"]
        add(charge["first"].position, event)

    # Refunds: one per order, from voided purchases and the Orders' refund events.
    voided: dict[str, PlayNotification] = {}
    for n in in_order:
        if n.kind == "voided" and (n.order_id not in voided or n.at < voided[n.order_id].at):
            voided[n.order_id] = n
    refunded = set(voided) | {order_id for order_id, order in orders.items() if order.refunds and order_id in charges}
    for order_id in sorted(refunded, key=lambda o: voided[o].position if o in voided else orders[o].position):
        n, order, charge = voided.get(order_id), orders.get(order_id), charges.get(order_id)
        at = n.at if n is not None else order.refunds[0][0]
        if order is not None and order.refunds:
            amount, currency = sum(micros for _, micros in order.refunds), order.total[1]
        elif n is not None and n.refund_type == 1:
            amount, currency = None, None  # the whole price
        else:
            amount, currency = None, None
            raise PlayNotSupported(f"order {order_id}", "a partial refund without its Order (unpriced_refunds)")
        chain = charge["chain"] if charge is not None else chain_of(n.token)
        state = charge["state"] if charge is not None else (n.state if n.state is not None else latest_state.get(n.token, (0, None))[1])
        item = charge["item"] if charge is not None else (state.line_items[0] if state is not None else None)
        user = user_of(chain, state)
        if user is None or item is None:
            played["unattributed_store_records"] += 1
            continue
        if amount is None and charge is not None and details[order_id]["price"] is not None:
            # A free trial's order has no price: its whole refund names none (D22: an orphan).
            amount, currency = details[order_id]["price"]
        event = Event(order=0, source=f"google_play:{order_id}:refund", ts=at, user_id=user, event="refund",
                      event_id=f"google_play:{order_id}:refund", product_id=item.product_id, transaction_id=order_id,
                      original_transaction_id=chain, price_micros=amount, currency=currency,
                      sandbox=state.test_purchase if state is not None else False, platform="android",
                      country=state.country if state is not None else None, store="play_store")
        add(n.position if n is not None else order.position, event)

    # Cancels and expires: one per notification, at its time.
    for n in in_order:
        if n.kind != "subscription" or n.type not in (PLAY_CANCELED, PLAY_EXPIRED):
            continue
        state = n.state if n.state is not None else latest_state.get(n.token, (0, None))[1]
        chain = chain_of(n.token)
        user = user_of(chain, state)
        if user is None:
            played["unattributed_store_records"] += 1
            continue
        add(n.position, Event(order=0, source=f"google_play:{n.id}", ts=n.at, user_id=user,
                              event="cancel" if n.type == PLAY_CANCELED else "expire", event_id=f"google_play:{n.id}",
                              original_transaction_id=chain, sandbox=state.test_purchase if state is not None else False,
                              platform="android", country=state.country if state is not None else None, store="play_store"))
    made.sort(key=lambda pair: pair[0])
    events = []
    for index, (_, event) in enumerate(made):
        event.order = first_order + index
        events.append(event)
    return PlayReadResult(events, counters)


# =============================================================================================
# Clean-up of events (docs/analysis.md §2, steps 1-5)
# =============================================================================================

@dataclass
class CleanEvents:
    events: list[Event]  # file order
    duplicate_events: int
    unknown_event_types: int
    sandbox_events: int
    unassigned_events: int


def _keep_earliest(events: list[Event], key_of) -> tuple[list[Event], int]:
    """Among events with the same non-None key, the earliest ts wins, then file order."""
    winners: dict[object, Event] = {}
    for event in events:
        key = key_of(event)
        if key is None:
            continue
        best = winners.get(key)
        if best is None or (event.ts, event.order) < (best.ts, best.order):
            winners[key] = event
    kept = [e for e in events if key_of(e) is None or winners[key_of(e)] is e]
    return kept, len(events) - len(kept)


def clean_events(events: list[Event], as_of: int, assigned_users: set[str]) -> CleanEvents:
    events = [e for e in events if e.ts < as_of]  # 1. as_of, no counter
    events, by_event_id = _keep_earliest(events, lambda e: e.event_id)  # 2. duplicates
    events, by_transaction = _keep_earliest(
        events, lambda e: (e.event, e.transaction_id) if e.event in TRANSACTION_EVENTS else None)
    unknown = sum(1 for e in events if e.event not in EVENT_TYPES)  # 3.
    events = [e for e in events if e.event in EVENT_TYPES]
    sandbox = sum(1 for e in events if e.sandbox)  # 4.
    events = [e for e in events if not e.sandbox]
    unassigned = sum(1 for e in events if e.user_id not in assigned_users)  # 5.
    events = [e for e in events if e.user_id in assigned_users]
    return CleanEvents(events, by_event_id + by_transaction, unknown, sandbox, unassigned)


# =============================================================================================
# Attribution and per-user values (docs/analysis.md §2's attribution, docs/analysis.md §3)
# =============================================================================================

@dataclass
class CountedMoney:
    """A counted purchase, renewal or refund with its amount and currency (a refund without a
    price inherits the refunded transaction's)."""

    event: Event
    micros: int
    currency: str


@dataclass
class UserResult:
    user_id: str
    group: Group
    converted: bool = False
    trial_started: bool = False
    trial_converted: bool = False
    viewed_paywall: bool = False
    purchases: int = 0
    renewals: int = 0
    refunds: int = 0
    gross: float = 0.0
    refunded: float = 0.0
    net: float = 0.0
    #: product id -> (purchases, renewals, refunds, {currency: net micros}, [proceeds of each money event])
    products: dict[str, list] = field(default_factory=dict)
    assigned_at: int = 0
    #: (ts, currency, signed micros) of each counted money event with a known rate; a refund
    #: at its own ts (docs/analysis.md §4c)
    money_events: list[tuple[int, str, int]] = field(default_factory=list)
    #: ts of each counted purchase
    purchase_times: list[int] = field(default_factory=list)
    #: docs/analysis.md §8: net proceeds (report currency)
    proceeds: float = 0.0
    #: docs/analysis.md §8: the proceeds of the counted charges with a rate, before refunds, and of
    #: those whose record states both fee shares (exact_proceeds_share is the second over the first)
    charge_proceeds: float = 0.0
    exact_proceeds: float = 0.0
    #: docs/analysis.md §9: "converted", "pending", "lapsed", "unknown", or None without a trial
    trial_state: str | None = None
    active: bool = False


@dataclass
class OfferingCounters:
    pre_assignment_events: int = 0
    orphan_refunds: int = 0
    chainless_cancels: int = 0
    attribution_mismatches: int = 0
    attribution_mismatch_users: int = 0
    unknown_currency_events: int = 0


@dataclass
class Proceeds:
    """The settings of docs/analysis.md §8, and each chain's first paid charge (original_transaction_id -> ts)."""

    tax_rates: dict[str, float] = field(default_factory=dict)
    default_store: str = "app_store"
    app_store_small_business: bool = False
    commissions: dict[str, float] = field(default_factory=dict)
    chain_starts: dict[str, int] = field(default_factory=dict)

    def commission(self, event: Event) -> float:
        # Stores are matched in any case (docs/analysis.md §8: RevenueCat's PLAY_STORE is play_store).
        store = event.store.lower() if event.store is not None else self.default_store.lower()
        if store == "app_store":
            start = self.chain_starts.get(event.original_transaction_id) if event.original_transaction_id is not None else None
            past_first_year = (event.event == "renewal" and start is not None and event.ts - start >= 365 * MICROS_PER_DAY)
            return 0.15 if self.app_store_small_business or past_first_year else 0.30
        if store == "play_store":
            return 0.15
        return {name.lower(): rate for name, rate in self.commissions.items()}.get(store, 0.0)

    def of_charge(self, event: Event, report_price: float) -> float:
        if event.exact_proceeds_micros is not None:
            return report_price * (event.exact_proceeds_micros / event.price_micros)
        if event.tax_share is not None and event.commission_share is not None:
            return report_price * (1 - (event.tax_share + event.commission_share) / int(_WHOLE_SHARE))
        rate = self.tax_rates.get(event.country) if event.country is not None else None
        tax = 0.0 if rate is None else rate / (1 + rate)
        return report_price * (1 - tax) * (1 - self.commission(event))


def exact_proceeds_share(users: list[UserResult]) -> float | None:
    """docs/analysis.md §8: of the users' counted charges' proceeds before refunds, the share whose
    fees the record states; None when they have none (0 of 0)."""
    charges = math.fsum(u.charge_proceeds for u in users)
    return min(1.0, math.fsum(u.exact_proceeds for u in users) / charges) if charges > 0 else None


def chain_starts(events: list[Event]) -> dict[str, int]:
    """docs/analysis.md §8: per original_transaction_id, the earliest purchase or renewal after clean-up."""
    starts: dict[str, int] = {}
    for event in events:
        if event.event in ("purchase", "renewal") and event.original_transaction_id is not None:
            chain = event.original_transaction_id
            starts[chain] = min(starts.get(chain, event.ts), event.ts)
    return starts


@dataclass
class Affiliations:
    """The overlap rule of docs/analysis.md §2: the offering ids and group names of every offering a user is
    a member of (multi-group users excluded), analysed or not."""
    offerings: dict[str, set[str]] = field(default_factory=dict)
    groups: dict[str, set[str]] = field(default_factory=dict)

    @staticmethod
    def of(population: "Population", offerings: dict[int, Offering]) -> "Affiliations":
        result = Affiliations()
        for db_id, members in population.members.items():
            for user, (group, _) in members.items():
                result.offerings.setdefault(user, set()).add(offerings[db_id].offering_id)
                result.groups.setdefault(user, set()).add(group.name)
        return result

    def disagrees(self, event: "Event", user_id: str, offering: Offering, group: Group) -> bool:
        """A counted event disagrees when it names O and another group; or an offering the user
        is not in; or no offering and a group that is none of the user's."""
        if event.offering_id is not None:
            if event.offering_id == offering.offering_id:
                return event.test_group_id is not None and event.test_group_id != group.name
            return event.offering_id not in self.offerings.get(user_id, set())
        return (event.test_group_id is not None and event.test_group_id != group.name
                and event.test_group_id not in self.groups.get(user_id, set()))


def analyse_user(user_id: str, group: Group, assigned_at: int, offering: Offering, events: list[Event],
                 window_micros: int | None, rates: dict[str, float], counters: OfferingCounters,
                 proceeds: Proceeds | None = None, as_of: int = 0,
                 affiliations: Affiliations | None = None) -> UserResult:
    """Attribution of one member's events to (u, O) and the per-user values."""
    affiliations = affiliations or Affiliations()
    proceeds = proceeds or Proceeds()
    counted: list[Event] = []
    for event in events:
        if event.event == "refund":
            continue
        if event.ts < assigned_at:
            counters.pre_assignment_events += 1
        elif window_micros is not None and event.ts >= assigned_at + window_micros:
            pass  # after the window: counts nowhere
        else:
            counted.append(event)
    # A counted cancel with no chain to turn off: nothing of its chain started at or before it.
    # Its chain: its original_transaction_id; without one, its product_id among the charges that
    # have none. A counted purchase or renewal starts it by that key; a counted trial (a cancel in
    # a trial turns the trial's renewal off) as the trial's converting purchase would match: by
    # the trial's original_transaction_id, or its product_id when it has none. Counted, and it
    # changes nothing.
    def starts_chain_of(start: Event, cancel: Event) -> bool:
        if start.ts > cancel.ts:
            return False
        if start.event == "trial_start":
            if start.original_transaction_id is not None:
                return cancel.original_transaction_id == start.original_transaction_id
            return cancel.product_id == start.product_id
        return (start.original_transaction_id == cancel.original_transaction_id
                and (cancel.original_transaction_id is not None or start.product_id == cancel.product_id))

    starts = [e for e in counted if e.event in ("trial_start", "purchase", "renewal")]
    for cancel in (e for e in counted if e.event == "cancel"):
        if not any(starts_chain_of(start, cancel) for start in starts):
            counters.chainless_cancels += 1
    counted_ids = {id(e) for e in counted}
    refunded_by: dict[int, Event] = {}  # id(refund) -> refunded transaction
    for refund in (e for e in events if e.event == "refund"):
        # The refunded transaction: u's purchase with that id, else u's renewal with it (D22).
        target = next((e for e in events if e.event == "purchase" and e.transaction_id == refund.transaction_id), None)
        if target is None:
            target = next((e for e in events if e.event == "renewal" and e.transaction_id == refund.transaction_id), None)
        if target is not None and id(target) in counted_ids:
            counted.append(refund)
            refunded_by[id(refund)] = target
        else:
            counters.orphan_refunds += 1
    counted.sort(key=lambda e: e.order)

    result = UserResult(user_id, group, assigned_at=assigned_at)
    gross: dict[str, int] = {}
    refunded: dict[str, int] = {}
    #: id(charge) -> (its price in the report currency, its proceeds), for charges whose money
    #: counts: first, since a refund may come before its charge in file order
    charge_proceeds: dict[int, tuple[float, float]] = {}
    for charge in counted:
        if charge.event in ("purchase", "renewal") and charge.currency.upper() in rates:
            report_price = charge.price_micros / 1_000_000 * rates[charge.currency.upper()]
            charge_proceeds[id(charge)] = (report_price, proceeds.of_charge(charge, report_price))
    refunded_charges: set[int] = set()
    disagreed = False
    for event in counted:
        if affiliations.disagrees(event, user_id, offering, group):
            counters.attribution_mismatches += 1
            disagreed = True
        if event.event == "paywall_view":
            result.viewed_paywall = True
        elif event.event == "trial_start":
            result.trial_started = True
        if event.event not in ("purchase", "renewal", "refund"):
            continue
        if event.event == "refund":
            target = refunded_by[id(event)]
            money = (CountedMoney(event, event.price_micros, event.currency) if event.price_micros is not None
                     else CountedMoney(event, target.price_micros, target.currency))  # type: ignore[arg-type]
        else:
            money = CountedMoney(event, event.price_micros, event.currency)  # type: ignore[arg-type]
        product = result.products.setdefault(event.product_id, [0, 0, 0, {}, []])
        slot = {"purchase": 0, "renewal": 1, "refund": 2}[event.event]
        product[slot] += 1
        if event.event == "purchase":
            result.purchases += 1
            result.converted = True
            result.purchase_times.append(event.ts)
        elif event.event == "renewal":
            result.renewals += 1
        else:
            result.refunds += 1
            refunded_charges.add(id(refunded_by[id(event)]))
        if money.currency.upper() not in rates:  # codes in the logs match in any case (docs/analysis.md#units)
            counters.unknown_currency_events += 1
            continue
        report_amount = money.micros / 1_000_000 * rates[money.currency.upper()]
        if event.event == "refund":
            charge = charge_proceeds.get(id(refunded_by[id(event)]))
            taken_back = charge[1] * (report_amount / charge[0]) if charge is not None and charge[0] != 0 else 0.0
            result.proceeds -= taken_back
            product[4].append(-taken_back)
        else:
            kept = charge_proceeds[id(event)][1]
            result.proceeds += kept
            result.charge_proceeds += kept
            if event.states_its_fees:
                result.exact_proceeds += kept
            product[4].append(kept)
        sign = -1 if event.event == "refund" else 1
        bucket = refunded if event.event == "refund" else gross
        bucket[money.currency] = bucket.get(money.currency, 0) + money.micros
        result.money_events.append((event.ts, money.currency, sign * money.micros))
        product[3][money.currency] = product[3].get(money.currency, 0) + sign * money.micros

    trials = [e for e in counted if e.event == "trial_start"]
    purchases = [e for e in counted if e.event == "purchase"]
    for trial in trials:
        for purchase in purchases:
            if purchase.ts < trial.ts:
                continue
            if trial.original_transaction_id is not None:
                same_chain = purchase.original_transaction_id == trial.original_transaction_id
            else:
                same_chain = purchase.product_id == trial.product_id
            if same_chain:
                result.trial_converted = True
    # docs/analysis.md §9: the earliest trial's state, and the subscription's, as of the night.
    if trials:
        trial = min(trials, key=lambda e: (e.ts, e.order))
        if result.trial_converted:
            result.trial_state = "converted"
        elif trial.expires_at is None:
            result.trial_state = "unknown"
        else:
            result.trial_state = "pending" if trial.expires_at > as_of else "lapsed"
    result.active = any(
        e.event in ("purchase", "renewal") and id(e) not in refunded_charges and e.expires_at is not None and e.expires_at > as_of
        for e in counted)

    # Net per currency, exact; each of gross, refunded and net converted once (Decision D1).
    net = {c: gross.get(c, 0) - refunded.get(c, 0) for c in set(gross) | set(refunded)}
    result.gross = micros_to_report(gross, rates)
    result.refunded = micros_to_report(refunded, rates)
    result.net = micros_to_report(net, rates)
    counters.attribution_mismatch_users += disagreed
    return result


# =============================================================================================
# Statistics: pure functions on per-group sufficient statistics
# (docs/statistics.md: "Per group", "Each treatment against control", "SRM")
# =============================================================================================

@dataclass
class SufficientStatistics:
    users: int
    converters: int
    revenue_sum: float  # Σ per-user net revenue
    revenue_sum_squares: float  # Σ (per-user net revenue)²


def normal_quantile(probability: float) -> float:
    return float(_stats.norm.ppf(probability))


def sample_variance(s: SufficientStatistics) -> float:
    """max(0, (Σx² − (Σx)²/n) / (n − 1)); n >= 2."""
    n = s.users
    return max(0.0, (s.revenue_sum_squares - s.revenue_sum * s.revenue_sum / n) / (n - 1))


def wilson_interval(successes: int, n: int, z: float) -> tuple[float, float]:
    """Wilson score interval of successes/n, clamped to [0, 1] (Decision D17)."""
    p = successes / n
    denominator = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denominator
    half_width = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # At 0 (or n) successes the bound is exactly 0 (or 1); the subtraction above can leave a
    # rounding error of 1e-17 there, which no relative tolerance accepts against 0.
    low = 0.0 if successes == 0 else max(0.0, center - half_width)
    high = 1.0 if successes == n else min(1.0, center + half_width)
    return low, high


def prob_beta_greater(a_t: float, b_t: float, a_c: float, b_c: float) -> float:
    """P(X > Y) for independent X ~ Beta(a_t, b_t), Y ~ Beta(a_c, b_c) with integer a_t:
    the closed form Σ_{i=0}^{a_t−1} B(a_c+i, b_c+b_t) / ((b_t+i) B(1+i, b_t) B(a_c, b_c))
    (E. Miller, "Formulas for Bayesian A/B testing"), summed from log terms."""
    terms = []
    for i in range(int(a_t)):
        log_term = (_special.betaln(a_c + i, b_c + b_t) - math.log(b_t + i)
                    - _special.betaln(1 + i, b_t) - _special.betaln(a_c, b_c))
        terms.append(math.exp(log_term))
    return min(1.0, max(0.0, math.fsum(terms)))


def holm_adjust(p_values: list[float | None]) -> list[float | None]:
    """Holm–Bonferroni adjusted p-values over the non-empty entries (m = their number):
    the k-th smallest becomes max_{j<=k} min(1, (m − j + 1) p_(j))."""
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(present)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(present):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[index] = running
    return adjusted


def sequential_rho(alpha: float, tuning: float) -> float:
    """docs/statistics.md#sequential-always-valid-inference: ρ = √((−2 ln α + ln(1 − 2 ln α)) / N*)."""
    return math.sqrt((-2 * math.log(alpha) + math.log(1 - 2 * math.log(alpha))) / tuning)


def sequential_half_width(se: float, n: int, rho: float, alpha: float) -> float:
    """docs/statistics.md#sequential-always-valid-inference:
    h = √s² · √(2(nρ²+1) ln(√(nρ²+1)/α) / (n²ρ²)), s² = se²·n."""
    s2 = se * se * n
    return math.sqrt(s2) * math.sqrt(2 * (n * rho ** 2 + 1) * math.log(math.sqrt(n * rho ** 2 + 1) / alpha)
                                     / (n ** 2 * rho ** 2))


def add_sequential(row: dict, m_c: float, v_c: float, n_c: int, m_t: float, v_t: float, n_t: int,
                   alpha: float, tuning: float) -> None:
    """The seq_… values (docs/statistics.md#sequential-always-valid-inference) of a row whose fixed-horizon
    values are set: empty where the fixed value of the same row is empty, and the absolute-scale (relative) ones
    where their se is 0."""
    rho = sequential_rho(alpha, tuning)
    n = n_t + n_c
    se_abs = math.sqrt(v_t / n_t + v_c / n_c)
    diff = m_t - m_c
    if row["abs_lift_ci_low"] is not None and se_abs > 0:
        half = sequential_half_width(se_abs, n, rho, alpha)
        row["seq_abs_lift_ci_low"], row["seq_abs_lift_ci_high"] = diff - half, diff + half
    if row["rel_lift_ci_low"] is not None:
        se_rel = math.sqrt(v_t / (n_t * m_c ** 2) + m_t ** 2 * v_c / (n_c * m_c ** 4))
        if se_rel > 0:
            half = sequential_half_width(se_rel, n, rho, alpha)
            row["seq_rel_lift_ci_low"], row["seq_rel_lift_ci_high"] = row["rel_lift"] - half, row["rel_lift"] + half
    if row["p_value"] is not None and se_abs > 0:
        z2 = diff * diff / (se_abs * se_abs)
        nr = n * rho ** 2
        row["seq_p_value"] = min(1.0, math.sqrt(nr + 1) * math.exp(-rho ** 2 * n * z2 / (2 * (nr + 1))))


def _empty_comparison() -> dict[str, object]:
    return {name: None for name in COMPARISONS_COLUMNS[4:]}


def compare_conversion(control: SufficientStatistics, treatment: SufficientStatistics, alpha: float,
                       tuning: float = DEFAULT_SEQUENTIAL_TUNING) -> dict:
    row = _empty_comparison()
    n_c, n_t = control.users, treatment.users
    if n_c > 0:
        row["control_value"] = control.converters / n_c
    if n_t > 0:
        row["value"] = treatment.converters / n_t
    if n_c == 0 or n_t == 0:
        return row  # undefined when a group has 0 users (values shown where defined, D18)
    z = normal_quantile(1 - alpha / 2)
    x_c, x_t = control.converters, treatment.converters
    m_c, m_t = x_c / n_c, x_t / n_t
    v_c, v_t = m_c * (1 - m_c), m_t * (1 - m_t)
    diff = m_t - m_c
    row["abs_lift"] = diff
    half = z * math.sqrt(v_t / n_t + v_c / n_c)
    row["abs_lift_ci_low"], row["abs_lift_ci_high"] = diff - half, diff + half
    if m_c != 0:
        rel = m_t / m_c - 1
        rel_half = z * math.sqrt(v_t / (n_t * m_c ** 2) + m_t ** 2 * v_c / (n_c * m_c ** 4))
        row["rel_lift"], row["rel_lift_ci_low"], row["rel_lift_ci_high"] = rel, rel - rel_half, rel + rel_half
    pooled = (x_t + x_c) / (n_t + n_c)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n_t + 1 / n_c))
    row["p_value"] = 1.0 if se == 0 else float(2 * _stats.norm.sf(abs(diff / se)))
    row["chance_to_beat_control"] = prob_beta_greater(1 + x_t, 1 + n_t - x_t, 1 + x_c, 1 + n_c - x_c)
    row["mde_abs"] = (z + normal_quantile(0.8)) * math.sqrt(m_c * (1 - m_c) * (1 / n_t + 1 / n_c))
    add_sequential(row, m_c, v_c, n_c, m_t, v_t, n_t, alpha, tuning)
    row["_moments"] = (m_c, v_c, n_c, m_t, v_t, n_t, None)
    return row


def compare_arpu(control: SufficientStatistics, treatment: SufficientStatistics, alpha: float,
                 tuning: float = DEFAULT_SEQUENTIAL_TUNING) -> dict:
    row = _empty_comparison()
    n_c, n_t = control.users, treatment.users
    if n_c > 0:
        row["control_value"] = control.revenue_sum / n_c
    if n_t > 0:
        row["value"] = treatment.revenue_sum / n_t
    if n_c < 2 or n_t < 2:
        return row
    z = normal_quantile(1 - alpha / 2)
    m_c, m_t = control.revenue_sum / n_c, treatment.revenue_sum / n_t
    v_c, v_t = sample_variance(control), sample_variance(treatment)
    diff = m_t - m_c
    row["abs_lift"] = diff
    if m_c != 0:
        rel = m_t / m_c - 1
        rel_half = z * math.sqrt(v_t / (n_t * m_c ** 2) + m_t ** 2 * v_c / (n_c * m_c ** 4))
        row["rel_lift"], row["rel_lift_ci_low"], row["rel_lift_ci_high"] = rel, rel - rel_half, rel + rel_half
    row["_moments"] = (m_c, v_c, n_c, m_t, v_t, n_t, None)
    if v_c == 0 and v_t == 0:
        add_sequential(row, m_c, v_c, n_c, m_t, v_t, n_t, alpha, tuning)
        return row  # p-value, abs_lift interval and chance undefined
    se_t, se_c = v_t / n_t, v_c / n_c
    se = math.sqrt(se_t + se_c)
    df = (se_t + se_c) ** 2 / (se_t ** 2 / (n_t - 1) + se_c ** 2 / (n_c - 1))
    row["p_value"] = float(2 * _stats.t.sf(abs(diff / se), df))
    half = float(_stats.t.ppf(1 - alpha / 2, df)) * se
    row["abs_lift_ci_low"], row["abs_lift_ci_high"] = diff - half, diff + half
    row["chance_to_beat_control"] = float(_stats.norm.cdf(diff / se))
    add_sequential(row, m_c, v_c, n_c, m_t, v_t, n_t, alpha, tuning)
    row["_moments"] = (m_c, v_c, n_c, m_t, v_t, n_t, df)
    return row


def fieller_ratio(m_c: float, a: float, m_t: float, b: float, q: float) -> tuple[float, float] | None:
    """The ratios R with (m_t − R m_c)² ≤ q²(b + R² a), cut at 0 when m_t ≥ 0; None when the set
    is unbounded (m_c² ≤ q² a) or m_c ≤ 0."""
    big_a = m_c * m_c - q * q * a
    if m_c <= 0 or big_a <= 0:
        return None
    big_b, big_c = m_t * m_c, m_t * m_t - q * q * b
    root = math.sqrt(max(0.0, big_b * big_b - big_a * big_c))
    low, high = (big_b - root) / big_a, (big_b + root) / big_a
    return (max(low, 0.0) if m_t >= 0 else low), high


def add_adjusted(rows: list[dict], alpha: float, tuning: float) -> None:
    """The intervals that agree with each row's verdict: the interval of the row's own kind at the
    level γ = α·p_I/p̃ (p_I: the p-value of 0 under the interval's own formula, p̃: the adjusted
    p-value), and Fieller's ratio interval at the same quantile."""
    rho = sequential_rho(alpha, tuning)
    for prefix, p_key, family in (("", "p_value", "p_value"), ("seq_", "seq_p_value", "seq_p_value")):
        size = sum(1 for r in rows if r[family] is not None)
        for row in rows:
            adjusted = row[p_key + "_adjusted"]
            if adjusted is None or row[prefix + "abs_lift_ci_low"] is None or "_moments" not in row:
                continue
            m_c, v_c, n_c, m_t, v_t, n_t, df = row["_moments"]
            se = math.sqrt(v_t / n_t + v_c / n_c)
            diff = m_t - m_c
            if prefix:
                p_interval = row["seq_p_value"]
                nr = (n_t + n_c) * rho ** 2
                quantile = lambda g: math.sqrt(2 * (nr + 1) * math.log(math.sqrt(nr + 1) / g) / nr)
            elif df is not None:
                p_interval = row["p_value"]
                quantile = lambda g: float(_stats.t.isf(g / 2, df))
            else:
                p_interval = (1.0 if diff == 0 else 0.0) if se == 0 else min(1.0, float(2 * _stats.norm.sf(abs(diff) / se)))
                quantile = lambda g: float(_stats.norm.isf(g / 2))
            if adjusted == 0:
                level = alpha / max(size, 1) if p_interval == 0 else None
            else:
                level = alpha * p_interval / adjusted
                level = level if 0 < level < 1 else None
            if level is None:
                continue
            q = quantile(level)
            # Within what can happen (docs/statistics.md, "Intervals that agree with the verdict"): a difference of
            # proportions in [-1, 1], a relative lift >= -1.
            bound = (lambda x: min(1.0, max(-1.0, x))) if df is None else (lambda x: x)
            row[prefix + "abs_lift_ci_low_adjusted"] = bound(diff - q * se)
            row[prefix + "abs_lift_ci_high_adjusted"] = bound(diff + q * se)
            ratio = fieller_ratio(m_c, v_c / n_c, m_t, v_t / n_t, q) if row["rel_lift"] is not None else None
            if ratio is not None:
                row[prefix + "rel_lift_ci_low_adjusted"] = max(-1.0, ratio[0] - 1)
                row[prefix + "rel_lift_ci_high_adjusted"] = max(-1.0, ratio[1] - 1)


def compare_offering(stats_by_group: list[tuple[str, SufficientStatistics]], control_name: str,
                     alpha: float, tuning: float = DEFAULT_SEQUENTIAL_TUNING,
                     families: list[tuple[list[tuple[str, str]], list[SufficientStatistics]]] = ()) -> list[dict]:
    """comparisons.csv rows (without offering_id) for one offering: each non-control group
    in the given order, conversion then arpu; then each further family (docs/analysis.md §4b, §4c: a list of
    (metric name, "conversion" or "arpu") and one statistics per group, in group order) the same
    way. Holm per metric name over the offering."""
    names = [name for name, _ in stats_by_group]
    blocks = [([("conversion", "conversion"), ("arpu", "arpu")], [s for _, s in stats_by_group])] + list(families)
    compare = {"conversion": compare_conversion, "arpu": compare_arpu}
    ordered: list[dict] = []
    for metrics, statistics in blocks:
        control = statistics[names.index(control_name)]
        for name, group_statistics in zip(names, statistics):
            if name == control_name:
                continue
            for metric, kind in metrics:
                row = compare[kind](control, group_statistics, alpha, tuning)
                row.update({"group": name, "control_group": control_name, "metric": metric})
                ordered.append(row)
    for metric in dict.fromkeys(row["metric"] for row in ordered):
        metric_rows = [row for row in ordered if row["metric"] == metric]
        adjusted = holm_adjust([r["p_value"] for r in metric_rows])
        for row, p_adj in zip(metric_rows, adjusted):
            row["p_value_adjusted"] = p_adj
            row["significant"] = None if p_adj is None else p_adj < alpha
        adjusted = holm_adjust([r["seq_p_value"] for r in metric_rows])
        for row, p_adj in zip(metric_rows, adjusted):
            row["seq_p_value_adjusted"] = p_adj
            row["seq_significant"] = None if p_adj is None else p_adj < alpha
        add_adjusted(metric_rows, alpha, tuning)
    return ordered


def sample_ratio_mismatch(users: list[int], weights: list[float]) -> tuple[float | None, float | None, bool | None]:
    """(chi2, p-value, flag) of the users against the expected shares weights/Σweights.
    Groups with weight 0 and no users are left out; one with weight 0 and users makes the
    mismatch certain (Decision D19)."""
    total_users = sum(users)
    total_weight = sum(weights)
    if total_users == 0 or total_weight <= 0:
        return None, None, None
    chi2 = 0.0
    categories = 0
    for count, weight in zip(users, weights):
        if weight == 0:
            if count > 0:
                return math.inf, 0.0, True
            continue
        expected = total_users * weight / total_weight
        chi2 += (count - expected) ** 2 / expected
        categories += 1
    if categories < 2:
        # A single group cannot mismatch: χ² is 0 on 0 degrees of freedom, P(χ² ≥ 0) = 1.
        return chi2, 1.0, False
    p_value = float(_stats.chi2.sf(chi2, categories - 1))
    return chi2, p_value, p_value < 0.001


def sequential_sample_ratio(users: list[int], weights: list[float],
                            concentration: float = 100.0) -> tuple[float | None, float | None, bool | None]:
    """docs/statistics.md#sequential-sample-ratio: (ln BF, min(1, 1/BF), p < 0.001) of the Dirichlet(c·θ) mixture
    against the shares θ; a group with weight 0 and users gives BF = +inf, one without users takes no part."""
    total_users = sum(users)
    total_weight = sum(weights)
    if total_users == 0 or total_weight <= 0:
        return None, None, None
    log_bf = math.lgamma(concentration) - math.lgamma(concentration + total_users)
    for count, weight in zip(users, weights):
        if weight == 0:
            if count > 0:
                return math.inf, 0.0, True
            continue
        share = weight / total_weight
        log_bf += math.lgamma(concentration * share + count) - math.lgamma(concentration * share) - count * math.log(share)
    p_value = min(1.0, math.exp(-log_bf))
    return log_bf, p_value, p_value < 0.001


# =============================================================================================
# The job file (README.md#the-job-file)
# =============================================================================================

class _JobLoader(yaml.SafeLoader):
    """SafeLoader without implicit timestamps, so that as_of stays text and is read with the
    grammar of docs/input-formats.md#timestamps."""


_JobLoader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass
class Job:
    path: Path
    tables: Path
    logs: list[str]
    as_of: int
    report_currency: str
    rates: dict[str, float]
    alpha: float
    sequential_tuning: float
    decision: str
    control: str | None
    window_micros: int | None
    offerings: list[str] | None
    max_bad_line_ratio: float
    on_corrupt_file: str
    output: Path | None
    revenue_cap: tuple[str, float] | None = None  # ("percentile", p) or ("value", C)
    maturity_days: list[int] = field(default_factory=list)  # ascending
    slices: list[str] = field(default_factory=list)
    max_slice_levels: int = 20
    proceeds: Proceeds = field(default_factory=Proceeds)
    #: the store sources' globs by format (Google Play's only), and the Play app they are of
    store_logs: dict[str, list[str]] = field(default_factory=dict)
    play_package: str | None = None


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ReferenceError_(f"{what}: expected a number, got {value!r}")
    if isinstance(value, str):
        if not _REAL_RE.fullmatch(value.strip()):
            raise ReferenceError_(f"{what}: expected a number, got {value!r}")
        value = float(value)
    number = float(value)
    if not math.isfinite(number):
        raise ReferenceError_(f"{what}: expected a finite number, got {value!r}")
    return number


def _name(value: object, what: str) -> str:
    """A name in the job file; YAML may have read `2026` as an integer."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ReferenceError_(f"{what}: expected text, got {value!r}")
    return str(value)


def _read_rates_file(path: Path) -> dict[str, float]:
    try:
        data = strip_bom(read_input_bytes(path))
    except CorruptGzip as error:
        raise ReferenceError_(f"{path}: {error}") from error
    rates: dict[str, float] = {}
    for index, record in enumerate(iter_csv_records(data)):
        cells = [raw.decode("utf-8", "replace").strip() for raw, _ in record.fields]
        if index == 0 and [c.lower() for c in cells] == ["currency", "rate"]:
            continue
        if not record.well_formed or len(cells) != 2 or cells[0] == "":
            raise ReferenceError_(f"{path}:{record.line}: expected 'currency,rate'")
        if cells[0] in rates:
            raise ReferenceError_(f"{path}:{record.line}: currency {cells[0]} given twice")
        rates[cells[0]] = _number(cells[1], f"{path}:{record.line}: rate")
    return rates


def load_job(path: Path, as_of_override: str | None) -> Job:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ReferenceError_(f"{path}: cannot read job file: {error}") from error
    try:
        document = yaml.load(text, Loader=_JobLoader)
    except yaml.YAMLError as error:
        raise ReferenceError_(f"{path}: not valid YAML: {str(error).splitlines()[0]}") from error
    if not isinstance(document, dict):
        raise ReferenceError_(f"{path}: the job file must be a mapping of keys")
    base = path.resolve().parent

    def need(key: str) -> object:
        if document.get(key) is None:
            raise ReferenceError_(f"{path}: missing required key '{key}'")
        return document[key]

    tables = base / _name(need("tables"), "tables")
    logs_value = need("logs")
    items = [logs_value] if isinstance(logs_value, (str, dict)) else logs_value
    if not isinstance(items, list) or not items:
        raise ReferenceError_(f"{path}: 'logs' must be a glob or a list of globs")
    # docs/input-formats.md#store-sources-in-a-job: an item is a glob (the log format) or {path: glob, format: name}.
    logs: list[str] = []
    store_logs: dict[str, list[str]] = {}
    for item in items:
        if isinstance(item, dict):
            if set(item) != {"path", "format"} or not isinstance(item["path"], str):
                raise ReferenceError_(f"{path}: a 'logs' item must be a glob or {{path: glob, format: name}}")
            if item["format"] == "offerlab":
                logs.append(item["path"])
            elif item["format"] in PLAY_FORMATS:
                store_logs.setdefault(item["format"], []).append(item["path"])
            else:
                raise ReferenceError_(f"{path}: logs format {item['format']!r} is not read by the reference "
                                      f"(offerlab, {', '.join(PLAY_FORMATS)})")
        elif isinstance(item, str):
            logs.append(item)
        else:
            raise ReferenceError_(f"{path}: 'logs' must be a glob or a list of globs")
    play_package = None
    if store_logs:
        play = document.get("google_play")
        if not isinstance(play, dict) or not isinstance(play.get("package_name"), str) or set(play) != {"package_name"}:
            raise ReferenceError_(f"{path}: google_play: {{package_name: …}} is required with a google_play or google_play_orders item")
        play_package = play["package_name"]

    as_of_text = as_of_override if as_of_override is not None else document.get("as_of")
    if as_of_text is None:
        today = _dt.datetime.now(_dt.timezone.utc).date()
        as_of = _days_from_civil(today.year, today.month, today.day) * MICROS_PER_DAY
    else:
        as_of = parse_job_instant(str(as_of_text))
        if as_of is None:
            raise ReferenceError_(f"{path}: as_of {as_of_text!r} is not a timestamp (YYYY-MM-DDTHH:MM:SS[.f][Z|±HH:MM]) or a date")

    report_currency = _name(need("report_currency"), "report_currency")
    if document.get("rates") is not None and document.get("rates_file") is not None:
        raise ReferenceError_(f"{path}: give 'rates' or 'rates_file', not both")
    rates: dict[str, float] = {}
    if document.get("rates") is not None:
        if not isinstance(document["rates"], dict):
            raise ReferenceError_(f"{path}: 'rates' must be a mapping of currency to rate")
        for currency, rate in document["rates"].items():
            rates[_name(currency, "rates")] = _number(rate, f"rates.{currency}")
    elif document.get("rates_file") is not None:
        rates = _read_rates_file(base / _name(document["rates_file"], "rates_file"))
    for currency, rate in rates.items():
        if rate <= 0:
            raise ReferenceError_(f"{path}: rate of {currency} must be > 0, got {rate}")
    rates[report_currency] = 1.0  # the report currency itself is always 1 (Decision D4)

    alpha = _number(document.get("alpha", 0.05), "alpha")
    if not 0 < alpha < 1:
        raise ReferenceError_(f"{path}: alpha must be between 0 and 1, got {alpha}")
    control = None if document.get("control") is None else _name(document["control"], "control")
    sequential_tuning = _number(document.get("sequential_tuning", DEFAULT_SEQUENTIAL_TUNING), "sequential_tuning")
    if not sequential_tuning > 0:
        raise ReferenceError_(f"{path}: sequential_tuning must be a positive number, got {sequential_tuning}")
    decision = document.get("decision", "sequential")
    if decision not in ("sequential", "fixed"):
        raise ReferenceError_(f"{path}: decision must be 'sequential' or 'fixed', got {decision!r}")

    window_micros = None
    if document.get("conversion_window_days") is not None:
        days = _number(document["conversion_window_days"], "conversion_window_days")
        if days < 0:
            raise ReferenceError_(f"{path}: conversion_window_days must be >= 0")
        # W × 86 400 s, to the microsecond (Decision D6): exact from the number's decimal text.
        exact = Decimal(repr(days)) * MICROS_PER_DAY
        window_micros = int(exact.quantize(Decimal(1), rounding=decimal.ROUND_HALF_EVEN))

    offerings_value = document.get("offerings")
    offerings = None
    if offerings_value is not None:
        values = offerings_value if isinstance(offerings_value, list) else [offerings_value]
        offerings = [_name(v, "offerings") for v in values]

    ratio = _number(document.get("max_bad_line_ratio", 0.01), "max_bad_line_ratio")
    if ratio < 0:
        raise ReferenceError_(f"{path}: max_bad_line_ratio must be >= 0")
    on_corrupt = document.get("on_corrupt_file", "fail")
    if on_corrupt not in ("fail", "skip"):
        raise ReferenceError_(f"{path}: on_corrupt_file must be 'fail' or 'skip', got {on_corrupt!r}")
    output = None if document.get("output") is None else base / _name(document["output"], "output")

    revenue_cap = None
    cap = document.get("revenue_cap")
    if cap is not None:
        if not isinstance(cap, dict) or not cap or set(cap) - {"percentile", "value"}:
            raise ReferenceError_(f"{path}: revenue_cap must be {{percentile: p}} or {{value: C}}")
        if len(cap) == 2:
            raise ReferenceError_(f"{path}: revenue_cap: give percentile or value, not both")
        kind, number = next(iter(cap.items()))
        number = _number(number, f"revenue_cap.{kind}")
        if kind == "percentile" and not 0 < number < 1:
            raise ReferenceError_(f"{path}: revenue_cap: percentile must be between 0 and 1, got {number}")
        if kind == "value" and not number > 0:
            raise ReferenceError_(f"{path}: revenue_cap: value must be > 0, got {number}")
        revenue_cap = (kind, number)
    maturity_days: list[int] = []
    days_value = document.get("maturity_days")
    if days_value is not None:
        if not isinstance(days_value, list):
            raise ReferenceError_(f"{path}: maturity_days must be a list of whole days")
        for day in days_value:
            if isinstance(day, bool) or not isinstance(day, int) or not 0 < day <= 36_500:
                raise ReferenceError_(f"{path}: maturity_days: {day!r} is not a positive whole number up to 36500")
            if day in maturity_days:
                raise ReferenceError_(f"{path}: maturity_days: {day} given twice")
            maturity_days.append(day)
        maturity_days.sort()  # rows in ascending D (Decision D30)
    slices_value = document.get("slices")
    slices = [] if slices_value is None else (slices_value if isinstance(slices_value, list) else [slices_value])
    for name in slices:
        if name not in SLICE_FIELDS:
            raise ReferenceError_(f"{path}: slices: {name!r} is not one of {', '.join(SLICE_FIELDS)}")
    if len(set(slices)) != len(slices):
        raise ReferenceError_(f"{path}: slices: a field is named twice")
    max_levels = document.get("max_slice_levels", 20)
    if isinstance(max_levels, bool) or not isinstance(max_levels, int) or max_levels < 1:
        raise ReferenceError_(f"{path}: max_slice_levels must be a whole number >= 1, got {max_levels!r}")
    return Job(path, tables, logs, as_of, report_currency, rates, alpha, sequential_tuning, decision, control, window_micros,
               offerings, ratio, on_corrupt, output, revenue_cap, maturity_days, slices, max_levels,
               _proceeds_settings(document, base, path), store_logs, play_package)


def _fee_rate(value: object, what: str) -> float:
    rate = _number(value, what)
    if not 0 <= rate < 1:
        raise ReferenceError_(f"{what}: {rate} must be from 0 to less than 1")
    return rate


def _proceeds_settings(document: dict, base: Path, path: Path) -> Proceeds:
    """The keys of docs/analysis.md §8: tax_rates or tax_rates_file (country,rate), default_store,
    app_store_small_business, commission."""
    settings = Proceeds()
    if document.get("tax_rates") is not None and document.get("tax_rates_file") is not None:
        raise ReferenceError_(f"{path}: give 'tax_rates' or 'tax_rates_file', not both")
    if document.get("tax_rates") is not None:
        if not isinstance(document["tax_rates"], dict):
            raise ReferenceError_(f"{path}: 'tax_rates' must be a mapping of country to rate")
        for country, rate in document["tax_rates"].items():
            settings.tax_rates[_name(country, "tax_rates")] = _fee_rate(rate, f"tax_rates.{country}")
    elif document.get("tax_rates_file") is not None:
        file = base / _name(document["tax_rates_file"], "tax_rates_file")
        data = strip_bom(read_input_bytes(file))
        for index, record in enumerate(iter_csv_records(data)):
            cells = [raw.decode("utf-8", "replace").strip() for raw, _ in record.fields]
            if index == 0 and [c.lower() for c in cells] == ["country", "rate"]:
                continue
            if not record.well_formed or len(cells) != 2 or cells[0] == "" or cells[0] in settings.tax_rates:
                raise ReferenceError_(f"{file}:{record.line}: expected 'country,rate', each country once")
            settings.tax_rates[cells[0]] = _fee_rate(cells[1], f"{file}:{record.line}: rate")
    if document.get("default_store") is not None:
        settings.default_store = _name(document["default_store"], "default_store")
    small = document.get("app_store_small_business", False)
    if not isinstance(small, bool):
        raise ReferenceError_(f"{path}: app_store_small_business must be true or false")
    settings.app_store_small_business = small
    commission = document.get("commission")
    if commission is not None:
        if not isinstance(commission, dict):
            raise ReferenceError_(f"{path}: 'commission' must be a mapping of store to commission")
        for store, rate in commission.items():
            if store in ("app_store", "play_store"):
                raise ReferenceError_(f"{path}: commission: {store}'s commission is the store's own")
            settings.commissions[_name(store, "commission")] = _fee_rate(rate, f"commission.{store}")
    return settings


# =============================================================================================
# The run
# =============================================================================================

@dataclass
class RunResult:
    summary: list[dict]
    products: list[dict]
    quality: list[dict]
    comparisons: list[dict]
    srm: list[dict]
    maturity: list[dict] = field(default_factory=list)
    slice_summary: list[dict] = field(default_factory=list)
    slice_comparisons: list[dict] = field(default_factory=list)
    slice_srm: list[dict] = field(default_factory=list)


def member_level(events: list[Event], assigned_at: int, window_micros: int | None, dimension: str) -> str:
    """docs/analysis.md §7: the value of `dimension` on the member's earliest counted non-refund event that
    carries it (earliest ts, ties in file order); (none) when no such event carries it."""
    counted = [
        e for e in events
        if e.event != "refund" and e.ts >= assigned_at
        and (window_micros is None or e.ts < assigned_at + window_micros)
        and getattr(e, dimension) is not None
    ]
    if not counted:
        return NONE_LEVEL
    return getattr(min(counted, key=lambda e: (e.ts, e.order)), dimension)


def ranked_levels(levels: dict[str, list[UserResult]], max_levels: int) -> list[tuple[str, list[UserResult]]]:
    """docs/analysis.md §7: by users descending, ties by level text in byte order; past `max_levels`, one
    level (other) holding the rest, last."""
    ranked = sorted(levels.items(), key=lambda item: (-len(item[1]), byte_key(item[0])))
    kept = ranked[:max_levels]
    if len(ranked) > max_levels:
        kept.append((OTHER_LEVEL, [user for _, users in ranked[max_levels:] for user in users]))
    return kept


def analyse_groups(offering: Offering, control: Group | None, results: list[UserResult], job: Job):
    """docs/statistics.md ("Per group", "Each treatment against control", "SRM",
    "Sequential (always-valid) inference") for `results` (an offering's members, or one slice's): summary rows,
    comparison rows and the SRM triple."""
    summary, group_statistics = [], []
    for group in offering.groups:
        row, statistics = summarise_group(offering, group, control, [r for r in results if r.group is group], job.alpha, job.rates)
        summary.append(row)
        group_statistics.append((group.name, statistics))
    comparisons = []
    if control is not None:
        families = own_families([[r for r in results if r.group is g] for g in offering.groups])
        comparisons = [{"offering_id": offering.offering_id, **row}
                       for row in compare_offering(group_statistics, control.name, job.alpha, job.sequential_tuning, families)]
    srm = sample_ratio_mismatch([s.users for _, s in group_statistics], [g.weight for g in offering.groups])
    return summary, comparisons, srm


def run_job(job: Job) -> RunResult:
    tables = read_tables(job.tables)
    offerings, groups = build_offerings(tables)
    population = build_population(tables["user_offering_assignments"], offerings, groups, job.as_of)

    by_name = {o.offering_id: o for o in offerings.values()}
    if job.offerings is not None:
        unknown = [name for name in job.offerings if name not in by_name]
        if unknown:
            raise ReferenceError_(f"{job.path}: unknown offering(s) in 'offerings': {', '.join(unknown)}")
        analysed = [by_name[name] for name in dict.fromkeys(job.offerings)]
    else:
        analysed = [offerings[i] for i in population.offerings_with_rows]
    analysed.sort(key=lambda o: byte_key(o.offering_id))

    base = job.path.resolve().parent
    log_paths = expand_log_globs(job.logs, base) if job.logs else []
    if not log_paths and not job.store_logs:
        raise ReferenceError_(f"{job.path}: no log file matches {job.logs}")
    logs = read_logs(log_paths, job.on_corrupt_file)
    counters = logs.counters
    if job.store_logs:
        store_paths = {name: expand_log_globs(job.store_logs.get(name, []), base) for name in PLAY_FORMATS}
        for name, paths in store_paths.items():
            if job.store_logs.get(name) and not paths:
                raise ReferenceError_(f"{job.path}: no {name} file matches {job.store_logs[name]}")
        named = [str(p) for paths in [log_paths, *store_paths.values()] for p in paths]
        if len(set(named)) != len(named):
            raise ReferenceError_(f"{job.path}: a file is matched in two formats")
        play = read_google_play(store_paths["google_play"], store_paths["google_play_orders"], job.play_package,
                                read_user_transactions(job.tables), job.on_corrupt_file, len(logs.events),
                                logs.skipped_files)
        logs.events.extend(play.events)
        # quality.csv keeps the totals over the formats (docs/analysis.md §5).
        counters = {name: counters.get(name, 0) + sum(c[name] for c in play.counters.values())
                    for name in {*counters, *play.counters["google_play"]}}
    # Over the ratio fails; equal passes; no lines never fails (Decision D23).
    if counters["lines_read"] and counters["malformed_lines"] / counters["lines_read"] > job.max_bad_line_ratio:
        raise ReferenceError_(
            f"{counters['malformed_lines']} malformed lines of {counters['lines_read']} is over "
            f"max_bad_line_ratio {job.max_bad_line_ratio}")
    clean = clean_events(logs.events, job.as_of, population.assigned_users)
    job.proceeds.chain_starts = chain_starts(clean.events)
    events_by_user: dict[str, list[Event]] = {}
    for event in clean.events:
        events_by_user.setdefault(event.user_id, []).append(event)
    affiliations = Affiliations.of(population, offerings)

    quality = [{"offering_id": "", "counter": name, "count": counters[name]} for name in GLOBAL_COUNTERS[:4 + len(MALFORMED_REASONS)]]
    # A job with a store source also has the stores' reasons and counters (docs/analysis.md §5).
    quality += [{"offering_id": "", "counter": name, "count": counters[name]} for name in STORE_MALFORMED_REASONS if job.store_logs]
    quality += [
        {"offering_id": "", "counter": "duplicate_events", "count": clean.duplicate_events},
        {"offering_id": "", "counter": "unknown_event_types", "count": clean.unknown_event_types},
        {"offering_id": "", "counter": "sandbox_events", "count": clean.sandbox_events},
        {"offering_id": "", "counter": "unassigned_events", "count": clean.unassigned_events},
        {"offering_id": "", "counter": "invalid_assignments", "count": population.invalid_global},
    ]
    quality += [{"offering_id": "", "counter": name, "count": counters[name]} for name in STORE_COUNTERS if job.store_logs]
    summary, products, comparisons, srm, maturity = [], [], [], [], []
    slice_summary, slice_comparisons, slice_srm = [], [], []
    for offering in analysed:
        offering_counters = OfferingCounters()
        members = population.members.get(offering.db_id, {})
        results = [
            analyse_user(user, group, assigned_at, offering, events_by_user.get(user, []),
                         job.window_micros, job.rates, offering_counters, job.proceeds, job.as_of, affiliations)
            for user, (group, assigned_at) in sorted(members.items(), key=lambda item: byte_key(item[0]))
        ]
        control = control_group(offering, job.control)
        group_statistics = []
        cap = revenue_cap(job.revenue_cap, results)
        capped = []
        for group in offering.groups:
            users = [r for r in results if r.group is group]
            row, statistics = summarise_group(offering, group, control, users, job.alpha, job.rates)
            if job.revenue_cap is not None:
                capped_group, lowered = capped_statistics(users, cap)
                capped.append(capped_group)
                row.update({
                    "revenue_cap": cap,
                    "arpu_capped": capped_group.revenue_sum / capped_group.users if capped_group.users else None,
                    "arpu_capped_sd": math.sqrt(sample_variance(capped_group)) if capped_group.users >= 2 else None,
                    "capped_users": lowered,
                })
            summary.append(row)
            group_statistics.append((group.name, statistics))
            products += product_rows(offering, group, users, job.rates)
        families = [([("arpu_capped", "arpu")], capped)] if job.revenue_cap is not None else []
        for days in job.maturity_days:
            matured = [matured_statistics([r for r in results if r.group is g], days, job.as_of, job.rates) for g in offering.groups]
            maturity += [maturity_row(offering, g, days, m) for g, m in zip(offering.groups, matured)]
            families.append(([(f"conversion_d{days}", "conversion"), (f"arpu_d{days}", "arpu")], matured))
        families += own_families([[r for r in results if r.group is g] for g in offering.groups])
        if control is not None:
            for row in compare_offering(group_statistics, control.name, job.alpha, job.sequential_tuning, families):
                comparisons.append({"offering_id": offering.offering_id, **row})
        chi2, p_value, flag = sample_ratio_mismatch([s.users for _, s in group_statistics],
                                                    [g.weight for g in offering.groups])
        log_bf, seq_p, seq_flag = sequential_sample_ratio([s.users for _, s in group_statistics],
                                                          [g.weight for g in offering.groups])
        srm.append({"offering_id": offering.offering_id, "chi2": chi2, "srm_p_value": p_value, "srm_flag": flag,
                    "seq_srm_log_bayes_factor": log_bf, "seq_srm_p_value": seq_p, "seq_srm_flag": seq_flag})
        ordered_members = sorted(members.items(), key=lambda item: byte_key(item[0]))
        for dimension in job.slices:
            by_level: dict[str, list[UserResult]] = {}
            for (user, (_, assigned_at)), result in zip(ordered_members, results):
                level = member_level(events_by_user.get(user, []), assigned_at, job.window_micros, dimension)
                by_level.setdefault(level, []).append(result)
            for level, level_results in ranked_levels(by_level, job.max_slice_levels):
                key = {"offering_id": offering.offering_id, "dimension": dimension, "level": level}
                level_summary, level_comparisons, (chi2, p_value, flag) = analyse_groups(offering, control, level_results, job)
                slice_summary += [{**key, **row} for row in level_summary]
                slice_comparisons += [{**key, **row} for row in level_comparisons]
                slice_srm.append({**key, "chi2": chi2, "srm_p_value": p_value, "srm_flag": flag})
        values = {
            "invalid_assignments": population.invalid_by_offering.get(offering.db_id, 0),
            "multi_group_users": population.multi_group_users.get(offering.db_id, 0),
            "pre_assignment_events": offering_counters.pre_assignment_events,
            "orphan_refunds": offering_counters.orphan_refunds,
            "chainless_cancels": offering_counters.chainless_cancels,
            "attribution_mismatches": offering_counters.attribution_mismatches,
            "attribution_mismatch_users": offering_counters.attribution_mismatch_users,
            "unknown_currency_events": offering_counters.unknown_currency_events,
        }
        quality += [{"offering_id": offering.offering_id, "counter": n, "count": values[n]} for n in OFFERING_COUNTERS]
    return RunResult(summary, products, quality, comparisons, srm, maturity, slice_summary, slice_comparisons, slice_srm)


def own_families(groups: list[list[UserResult]]) -> list:
    """docs/analysis.md §8–§9 and docs/statistics.md, "The decision": proceeds per user (as arpu), completed trials'
    conversion and the refund user rate (both as conversion), per group."""
    proceeds = [SufficientStatistics(len(users), sum(1 for u in users if u.converted), math.fsum(u.proceeds for u in users),
                                     math.fsum(u.proceeds * u.proceeds for u in users)) for users in groups]
    trials = []
    for users in groups:
        converted = sum(1 for u in users if u.trial_state == "converted")
        lapsed = sum(1 for u in users if u.trial_state == "lapsed")
        trials.append(SufficientStatistics(converted + lapsed, converted, 0.0, 0.0))
    refund_users = [SufficientStatistics(len(users), sum(1 for u in users if u.refunds > 0), 0.0, 0.0) for users in groups]
    return [([("proceeds_per_user", "arpu")], proceeds), ([("trial_completed_conversion", "conversion")], trials),
            ([("refund_user_rate", "conversion")], refund_users)]


def revenue_cap(rule: tuple[str, float] | None, users: list[UserResult]) -> float | None:
    """docs/analysis.md §4b: {value: C} is C; {percentile: p} is the p-quantile of the positive per-user net
    revenues of every member (all groups pooled), linear interpolation between order
    statistics; None when there is no positive value (or no rule)."""
    if rule is None:
        return None
    kind, number = rule
    if kind == "value":
        return number
    xs = sorted(u.net for u in users if u.net > 0)
    if not xs:
        return None
    h = number * (len(xs) - 1)
    low = math.floor(h)
    high = min(low + 1, len(xs) - 1)
    return xs[low] + (h - low) * (xs[high] - xs[low])


def capped_statistics(users: list[UserResult], cap: float | None) -> tuple[SufficientStatistics, int]:
    """Sufficient statistics of min(net, cap) (never raised), and how many users it lowered."""
    values = [u.net if cap is None else min(u.net, cap) for u in users]
    lowered = sum(1 for u in users if cap is not None and u.net > cap)
    return SufficientStatistics(len(users), sum(1 for u in users if u.converted), math.fsum(values),
                                math.fsum(v * v for v in values)), lowered


def matured_statistics(users: list[UserResult], days: int, as_of: int, rates: dict[str, float]) -> SufficientStatistics:
    """docs/analysis.md §4c: members with assigned_at + D days <= as_of; converted_D = a counted purchase before
    assigned_at + D days; revenue_D = counted money events (refunds by their own ts) before it,
    converted once per user like the net revenue (Decision D1)."""
    n, converters, values = 0, 0, []
    for user in users:
        end = user.assigned_at + days * MICROS_PER_DAY
        if end > as_of:
            continue
        n += 1
        if any(ts < end for ts in user.purchase_times):
            converters += 1
        net: dict[str, int] = {}
        for ts, currency, micros in user.money_events:
            if ts < end:
                net[currency] = net.get(currency, 0) + micros
        values.append(micros_to_report(net, rates))
    return SufficientStatistics(n, converters, math.fsum(values), math.fsum(v * v for v in values))


def maturity_row(offering: Offering, group: Group, days: int, statistics: SufficientStatistics) -> dict:
    n = statistics.users
    return {
        "offering_id": offering.offering_id, "group": group.name, "days": days, "users": n,
        "converters": statistics.converters,
        "conversion_rate": statistics.converters / n if n else None,
        "net_revenue": statistics.revenue_sum,
        "arpu": statistics.revenue_sum / n if n else None,
        "arpu_sd": math.sqrt(sample_variance(statistics)) if n >= 2 else None,
    }


def summarise_group(offering: Offering, group: Group, control: Group | None, users: list[UserResult],
                    alpha: float, rates: dict[str, float]) -> tuple[dict, SufficientStatistics]:
    """One summary.csv row. Money sums are exact, rounded once (Decision D1): `math.fsum`."""
    n = len(users)
    converters = sum(1 for u in users if u.converted)
    trial_starters = sum(1 for u in users if u.trial_started)
    trial_converters = sum(1 for u in users if u.trial_converted)
    gross = math.fsum(u.gross for u in users)
    refunded = math.fsum(u.refunded for u in users)
    net = math.fsum(u.net for u in users)
    net_squares = math.fsum(u.net * u.net for u in users)
    statistics = SufficientStatistics(n, converters, net, net_squares)
    row = {
        "offering_id": offering.offering_id, "group": group.name,
        "is_control": control is not None and group is control, "weight": group.weight,
        "users": n, "converters": converters,
        "conversion_rate": None, "conversion_ci_low": None, "conversion_ci_high": None,
        "trial_starters": trial_starters, "trial_converters": trial_converters,
        "trial_conversion_rate": trial_converters / trial_starters if trial_starters else None,
        "paywall_viewers": sum(1 for u in users if u.viewed_paywall),
        "purchases": sum(u.purchases for u in users),
        "renewals": sum(u.renewals for u in users),
        "refunds": sum(u.refunds for u in users),
        "gross_revenue": gross, "refunded_revenue": refunded, "net_revenue": net,
        "arpu": net / n if n else None,
        "arpu_sd": math.sqrt(sample_variance(statistics)) if n >= 2 else None,
        "arppu": net / converters if converters else None,
        "revenue_cap": None, "arpu_capped": None, "arpu_capped_sd": None, "capped_users": None,
    }
    proceeds = SufficientStatistics(n, converters, math.fsum(u.proceeds for u in users), math.fsum(u.proceeds * u.proceeds for u in users))
    states = [u.trial_state for u in users]
    ended = states.count("converted") + states.count("lapsed")
    active = sum(1 for u in users if u.active)
    row.update({
        "net_proceeds": proceeds.revenue_sum,
        "proceeds_per_user": proceeds.revenue_sum / n if n else None,
        "proceeds_per_user_sd": math.sqrt(sample_variance(proceeds)) if n >= 2 else None,
        "exact_proceeds_share": exact_proceeds_share(users),
        "trials_converted": states.count("converted"), "trials_pending": states.count("pending"),
        "trials_lapsed": states.count("lapsed"), "trials_unknown": states.count("unknown"),
        "trial_completed_conversion_rate": states.count("converted") / ended if ended else None,
        "active_subscribers": active,
        "churned_subscribers": sum(1 for u in users if u.converted and not u.active),
        "refund_users": sum(1 for u in users if u.refunds > 0),
        "refund_user_rate": sum(1 for u in users if u.refunds > 0) / n if n else None,
    })
    if n:
        z = normal_quantile(1 - alpha / 2)
        row["conversion_rate"] = converters / n
        row["conversion_ci_low"], row["conversion_ci_high"] = wilson_interval(converters, n, z)
    return row, statistics


def product_rows(offering: Offering, group: Group, users: list[UserResult], rates: dict[str, float]) -> list[dict]:
    """products.csv rows of one group: per product id, counts and net revenue converted once
    per (group, product, currency)."""
    totals: dict[str, list] = {}
    for user in users:
        for product_id, (purchases, renewals, refunds, micros, proceeds) in user.products.items():
            total = totals.setdefault(product_id, [0, 0, 0, {}, []])
            total[0] += purchases
            total[1] += renewals
            total[2] += refunds
            total[4] += proceeds
            for currency, amount in micros.items():
                total[3][currency] = total[3].get(currency, 0) + amount
    return [
        {"offering_id": offering.offering_id, "group": group.name, "product_id": product_id,
         "purchases": t[0], "renewals": t[1], "refunds": t[2], "net_revenue": micros_to_report(t[3], rates),
         "net_proceeds": math.fsum(t[4])}
        for product_id, t in sorted(totals.items(), key=lambda item: byte_key(item[0]))
    ]


# =============================================================================================
# The `stats` seam (README.md#statistics-from-aggregates-offerlab-stats): comparisons and SRM from per-group
# sufficient statistics
# =============================================================================================

AGG_COLUMNS = ("offering_id", "group", "is_control", "weight", "users", "converters", "revenue_sum", "revenue_sum_squares")


def run_stats(path: Path, alpha: float, tuning: float = DEFAULT_SEQUENTIAL_TUNING) -> tuple[list[dict], list[dict]]:
    try:
        data = strip_bom(read_input_bytes(path))
    except CorruptGzip as error:
        raise ReferenceError_(f"{path}: {error}") from error
    records = list(iter_csv_records(data))
    if not records:
        raise ReferenceError_(f"{path}: empty file, a header row is required")
    header = [raw.decode("utf-8", "replace") for raw, _ in records[0].fields]
    for column in AGG_COLUMNS:
        if column not in header:
            raise ReferenceError_(f"{path}: missing column '{column}'")
    offerings: dict[str, list[tuple[str, bool, float, SufficientStatistics]]] = {}
    # Decision D31: an optional `metric` column; empty = the group's own sums, `arpu_capped` =
    # its capped sums (docs/analysis.md §4b), `d<D>` = its members matured after D days (docs/analysis.md §4c).
    metric_rows: dict[str, dict[str, list[tuple[str, bool, float, SufficientStatistics, str]]]] = {}
    for record in records[1:]:
        where = f"{path}:{record.line}"
        if not record.well_formed or len(record.fields) != len(header):
            raise ReferenceError_(f"{where}: expected {len(header)} fields in RFC 4180 CSV")
        cells = dict(zip(header, (raw.decode("utf-8", "replace") for raw, _ in record.fields)))
        is_control = cells["is_control"].lower()
        if is_control not in ("true", "false", "1", "0"):
            raise ReferenceError_(f"{where}: is_control must be true or false")
        users, converters = parse_table_int(cells["users"]), parse_table_int(cells["converters"])
        weight = parse_table_real(cells["weight"])
        total, squares = parse_table_real(cells["revenue_sum"]), parse_table_real(cells["revenue_sum_squares"])
        if users is None or converters is None or users < 0 or not 0 <= converters <= users:
            raise ReferenceError_(f"{where}: users and converters must be integers with 0 <= converters <= users")
        if weight is None or weight < 0 or total is None or squares is None or squares < 0:
            raise ReferenceError_(f"{where}: weight, revenue_sum and revenue_sum_squares must be numbers")
        if cells["offering_id"] == "" or cells["group"] == "":
            raise ReferenceError_(f"{where}: offering_id and group must not be empty")
        metric = cells.get("metric", "")
        entry = (cells["group"], is_control in ("true", "1"), weight, SufficientStatistics(users, converters, total, squares))
        if metric:
            if not (metric == "arpu_capped" or (re.fullmatch(r"d[0-9]+", metric) and int(metric[1:]) > 0)):
                raise ReferenceError_(f"{where}: metric must be empty, arpu_capped or d<days>")
            rows = metric_rows.setdefault(cells["offering_id"], {}).setdefault(metric, [])
            if any(r[0] == cells["group"] for r in rows):
                raise ReferenceError_(f"{where}: group {cells['group']} given twice for {cells['offering_id']} {metric}")
            rows.append((*entry, where))
            continue
        rows = offerings.setdefault(cells["offering_id"], [])
        if any(r[0] == cells["group"] for r in rows):
            raise ReferenceError_(f"{where}: group {cells['group']} given twice for {cells['offering_id']}")
        rows.append(entry)
    for offering_id in metric_rows:
        if offering_id not in offerings:
            raise ReferenceError_(f"{path}: offering {offering_id} has metric rows but no row with an empty metric")
    comparisons, srm = [], []
    for offering_id in sorted(offerings, key=byte_key):
        rows = offerings[offering_id]
        controls = [r for r in rows if r[1]]
        if len(controls) != 1:
            raise ReferenceError_(f"{path}: offering {offering_id} must have exactly one is_control row, has {len(controls)}")
        families = []
        by_metric = metric_rows.get(offering_id, {})
        # capped first, then D ascending (as run writes them)
        for metric in sorted(by_metric, key=lambda m: (0, 0) if m == "arpu_capped" else (1, int(m[1:]))):
            given = {r[0]: r for r in by_metric[metric]}
            for name, (_, is_control, weight, _, where) in given.items():
                own = next((r for r in rows if r[0] == name), None)
                if own is None:
                    raise ReferenceError_(f"{where}: group {name} has no row with an empty metric")
                if (own[1], own[2]) != (is_control, weight):
                    raise ReferenceError_(f"{where}: is_control and weight must be those of the group's own row")
                users = given[name][3].users
                if metric == "arpu_capped" and users != own[3].users or metric != "arpu_capped" and users > own[3].users:
                    raise ReferenceError_(f"{where}: users {users} do not fit the group's own {own[3].users}")
            missing = [r[0] for r in rows if r[0] not in given]
            if missing:
                raise ReferenceError_(f"{path}: offering {offering_id}: group {missing[0]} has no row with metric {metric}")
            statistics = [given[r[0]][3] for r in rows]
            if metric == "arpu_capped":
                families.append(([("arpu_capped", "arpu")], statistics))
            else:
                days = int(metric[1:])
                families.append(([(f"conversion_d{days}", "conversion"), (f"arpu_d{days}", "arpu")], statistics))
        for row in compare_offering([(r[0], r[3]) for r in rows], controls[0][0], alpha, tuning, families):
            comparisons.append({"offering_id": offering_id, **row})
        chi2, p_value, flag = sample_ratio_mismatch([r[3].users for r in rows], [r[2] for r in rows])
        log_bf, seq_p, seq_flag = sequential_sample_ratio([r[3].users for r in rows], [r[2] for r in rows])
        srm.append({"offering_id": offering_id, "chi2": chi2, "srm_p_value": p_value, "srm_flag": flag,
                    "seq_srm_log_bayes_factor": log_bf, "seq_srm_p_value": seq_p, "seq_srm_flag": seq_flag})
    return comparisons, srm


# =============================================================================================
# Writers (README.md#outputs)
# =============================================================================================

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def format_number(value: float) -> str:
    """Shortest round-trip text; integral values without `.0`; -0 as 0; non-finite empty (D2)."""
    if not math.isfinite(value):
        return ""
    if value == 0:
        return "0"
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def format_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_number(value)
    text = str(value)
    if text.startswith(FORMULA_TRIGGERS):
        text = "'" + text
    if any(char in text for char in ',"\r\n'):
        text = '"' + text.replace('"', '""') + '"'
    return text


# Money amounts, written rounded to the micro-unit (docs/analysis.md#units); per-user means and statistics are not.
MONEY_AMOUNT_COLUMNS = frozenset({"gross_revenue", "refunded_revenue", "net_revenue", "revenue_cap", "net_proceeds"})


def micro_units(value: float) -> float:
    """`value` rounded to 6 decimals, halves away from zero (as Swift's `rounded()`)."""
    if not math.isfinite(value):
        return value
    return math.copysign(math.floor(abs(value) * 1_000_000 + 0.5), value) / 1_000_000


def without_projected_bounds(rows: list[dict]) -> list[dict]:
    """comparisons.csv's rows with its projected far ends empty (PROJECTED_BOUND_COLUMNS)."""
    return [{**row, **{column: None for column in PROJECTED_BOUND_COLUMNS}} for row in rows]


def write_csv(path: Path, columns: Iterable[str], rows: list[dict]) -> None:
    """RFC 4180: header row, CRLF line endings (Decision D20), UTF-8."""
    columns = list(columns)
    lines = [",".join(columns)]

    def cell(row: dict, column: str) -> str:
        value = row[column]
        if column in MONEY_AMOUNT_COLUMNS and isinstance(value, float):
            value = micro_units(value)
        return format_cell(value)

    lines += [",".join(cell(row, c) for c in columns) for row in rows]
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
    os.replace(temporary, path)


# =============================================================================================
# Command line
# =============================================================================================

def _fail(message: str) -> int:
    print(f"{PROGRAM}: error: {message}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "stats":
        parser = argparse.ArgumentParser(prog=f"{PROGRAM} stats",
                                         description="comparisons.csv and srm.csv from per-group sufficient statistics (§3.1)")
        parser.add_argument("input", type=Path, help="AGG.csv")
        parser.add_argument("--out", type=Path, required=True, help="output folder (created if needed)")
        parser.add_argument("--alpha", type=float, default=0.05)
        parser.add_argument("--sequential-tuning", dest="sequential_tuning", type=float,
                            default=DEFAULT_SEQUENTIAL_TUNING)
        options = parser.parse_args(argv[1:])
        try:
            if not 0 < options.alpha < 1:
                raise ReferenceError_(f"--alpha must be between 0 and 1, got {options.alpha}")
            if not options.sequential_tuning > 0:
                raise ReferenceError_(f"--sequential-tuning must be a positive number, got {options.sequential_tuning}")
            comparisons, srm = run_stats(options.input, options.alpha, options.sequential_tuning)
            options.out.mkdir(parents=True, exist_ok=True)
            write_csv(options.out / "comparisons.csv", RUN_COMPARISONS_COLUMNS, without_projected_bounds(comparisons))
            write_csv(options.out / "srm.csv", SRM_COLUMNS, srm)
        except ReferenceError_ as error:
            return _fail(str(error))
        except OSError as error:
            return _fail(f"{getattr(error, 'filename', '') or ''}: {error.strerror or error}")
        return 0

    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Reference implementation of the OfferLab analysis contract: writes summary.csv, "
                    "products.csv, quality.csv, comparisons.csv and srm.csv for a job file.",
        epilog=f"Also: {PROGRAM} stats AGG.csv --out DIR [--alpha A] [--sequential-tuning N]")
    parser.add_argument("job", type=Path, help="the job file (YAML)")
    parser.add_argument("--out", type=Path,
                        help="output folder (default: the job's output/<YYYY-MM-DD of as_of>/)")
    parser.add_argument("--as-of", dest="as_of", help="overrides the job's as_of")
    options = parser.parse_args(argv)
    try:
        if not options.job.is_file():
            raise ReferenceError_(f"{options.job}: job file not found")
        job = load_job(options.job, options.as_of)
        result = run_job(job)
        if options.out is not None:
            out = options.out
        elif job.output is not None:
            out = job.output / format_utc_date(job.as_of)
        else:
            raise ReferenceError_(f"{options.job}: no --out and no 'output' key")
        out.mkdir(parents=True, exist_ok=True)
        write_csv(out / "summary.csv", SUMMARY_COLUMNS + CAPPED_COLUMNS, result.summary)
        write_csv(out / "products.csv", PRODUCTS_COLUMNS, result.products)
        write_csv(out / "quality.csv", QUALITY_COLUMNS, result.quality)
        write_csv(out / "comparisons.csv", RUN_COMPARISONS_COLUMNS, without_projected_bounds(result.comparisons))
        write_csv(out / "srm.csv", SRM_COLUMNS, result.srm)
        write_csv(out / "maturity.csv", MATURITY_COLUMNS, result.maturity)
        if job.slices:
            write_csv(out / "slice_summary.csv", SLICE_SUMMARY_COLUMNS, result.slice_summary)
            write_csv(out / "slice_comparisons.csv", SLICE_COMPARISONS_COLUMNS, result.slice_comparisons)
            write_csv(out / "slice_srm.csv", SLICE_SRM_COLUMNS, result.slice_srm)
    except ReferenceError_ as error:
        return _fail(str(error))
    except OSError as error:
        return _fail(f"{getattr(error, 'filename', '') or ''}: {error.strerror or error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
