"""Reading bytes: timestamps, log lines (docs/input-formats.md#purchase-logs,
docs/input-formats.md#malformed-lines), CSV/TSV records, gzip, the job file, the output format."""

from __future__ import annotations

import gzip
import json
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import event, make_dataset, purchase, ref, run, run_failing

EPOCH_2026_03_02 = 1772409600 * 1_000_000  # 2026-03-02T00:00:00Z in microseconds


# --------------------------------------------------------------------------- timestamps

@pytest.mark.parametrize("text, micros", [
    ("2026-03-02T00:00:00Z", EPOCH_2026_03_02),
    ("2026-03-02 00:00:00", EPOCH_2026_03_02),
    ("2026-03-02T00:00:00", EPOCH_2026_03_02),
    ("2026-03-02T01:30:00+01:30", EPOCH_2026_03_02),
    ("2026-03-01T23:00:00-01:00", EPOCH_2026_03_02),
    ("2026-03-02T00:00:00.5Z", EPOCH_2026_03_02 + 500_000),
    ("2026-03-02T00:00:00.123456789Z", EPOCH_2026_03_02 + 123_456),  # truncated, not rounded
    ("2026-03-02T00:00:00.999999999Z", EPOCH_2026_03_02 + 999_999),
    ("2026-03-02T00:00:00+23:59", EPOCH_2026_03_02 - (23 * 3600 + 59 * 60) * 1_000_000),
    ("2024-02-29T00:00:00Z", 1709164800 * 1_000_000),
    ("2000-02-29T00:00:00Z", 951782400 * 1_000_000),
    ("1969-12-31T23:59:59.999999Z", -1),
])
def test_valid_timestamps(text, micros):
    assert ref.parse_timestamp_text(text) == micros


@pytest.mark.parametrize("text", [
    "2026-02-30T00:00:00Z", "2100-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
    "2026-03-02T24:00:00Z", "2026-03-02T25:61:00Z", "2026-03-02T00:60:00Z", "2026-03-02T00:00:60Z",
    "2026-03-02T00:00:00+24:00", "2026-03-02T00:00:00+01:60", "2026-03-02t00:00:00Z", "2026-03-02T00:00:00z",
    "2026-03-02T00:00Z", "2026-03-02", "2026-3-2T00:00:00Z", "2026-03-02T00:00:00.Z",
    "2026-03-02T00:00:00.1234567890Z", "2026-03-02T00:00:00+0100", "2026-03-02T00:00:00 Z",
    " 2026-03-02T00:00:00Z", "2026-03-02T00:00:00Z\n", "1772409600000", "",
    "２０２６-03-02T00:00:00Z",  # non-ASCII digits
])
def test_bad_timestamps(text):
    assert ref.parse_timestamp_text(text) is None


# --------------------------------------------------------------------------- log lines

def line(obj) -> bytes:
    if isinstance(obj, bytes):
        return obj
    return (obj if isinstance(obj, str) else json.dumps(obj)).encode()


def reason(obj) -> str | None:
    try:
        ref.parse_json_line(line(obj), 0, "x")
    except ref.Malformed as malformed:
        return malformed.reason
    return None


BASE = {"ts": "2026-03-02T00:00:00Z", "user_id": "u1", "event": "paywall_view"}
BUY = {**BASE, "event": "purchase", "product_id": "p", "transaction_id": "t", "price": 1, "currency": "USD"}


@pytest.mark.parametrize("obj, expected", [
    (BASE, None),
    (BUY, None),
    # 1. invalid JSON or not an object
    ('{"ts": "2026-03-02T00:00:00Z"', "malformed_invalid_json"),
    ("[1]", "malformed_invalid_json"),
    ('"text"', "malformed_invalid_json"),
    ("null", "malformed_invalid_json"),
    ('{"ts":"2026-03-02T00:00:00Z","user_id":"u1","event":"paywall_view","x":NaN}', "malformed_invalid_json"),
    ('{"ts":"2026-03-02T00:00:00Z","user_id":"u1","event":"paywall_view","x":-Infinity}', "malformed_invalid_json"),
    ('{"ts":"2026-03-02T00:00:00Z","user_id":"u1","event":"paywall_view",}', "malformed_invalid_json"),
    ("{'ts':1}", "malformed_invalid_json"),
    (b'{"ts":"2026-03-02T00:00:00Z","user_id":"u\xff","event":"paywall_view"}', "malformed_invalid_json"),  # not UTF-8
    ('\ufeff{"ts":"2026-03-02T00:00:00Z","user_id":"u1","event":"paywall_view"}', "malformed_invalid_json"),  # BOM mid-file
    (' {"ts":"2026-03-02T00:00:00Z","user_id":"u1","event":"paywall_view"}\t', None),  # JSON whitespace around
    # 2. required fields (null is absent)
    ({"user_id": "u1", "event": "paywall_view"}, "malformed_missing_field"),
    ({**BASE, "user_id": None}, "malformed_missing_field"),
    ({"ts": "2026-03-02T00:00:00Z", "user_id": "u1"}, "malformed_missing_field"),
    ({"ts": "bad", "event": "paywall_view"}, "malformed_missing_field"),  # 2 before 4
    # 3. field types
    ({**BASE, "user_id": ""}, "malformed_invalid_field"),
    ({**BASE, "user_id": 1.0}, "malformed_invalid_field"),
    ({**BASE, "user_id": True}, "malformed_invalid_field"),
    ({**BASE, "user_id": ["u1"]}, "malformed_invalid_field"),
    ({**BASE, "event": 3}, "malformed_invalid_field"),
    ({**BASE, "price": "abc", "currency": "USD"}, "malformed_invalid_field"),
    ({**BASE, "price": True, "currency": "USD"}, "malformed_invalid_field"),
    ({**BASE, "price": {"v": 1}, "currency": "USD"}, "malformed_invalid_field"),
    ({**BASE, "price": " 1", "currency": "USD"}, "malformed_invalid_field"),
    ({**BASE, "price": "1e400", "currency": "USD"}, "malformed_invalid_field"),  # beyond Int64 micro-units
    ({**BASE, "product_id": 1.5}, "malformed_invalid_field"),
    # a dimension of another type is absent, the line valid (D16), as offerlab reads it
    ({**BASE, "country": False, "platform": 1.5, "store": {"a": 1}}, None),
    ({**BASE, "ts": "bad", "user_id": 1.5}, "malformed_invalid_field"),  # 3 before 4
    # an unpaired surrogate escape is text no UTF-8 carries: not JSON, in any key or value (D16)
    ('{"ts":"2026-03-02T00:00:00Z","user_id":"\\ud800","event":"paywall_view"}', "malformed_invalid_json"),
    ('{"ts":"2026-03-02T00:00:00Z","user_id":"u1","event":"paywall_view","note":["\\udc00"]}', "malformed_invalid_json"),
    ('{"ts":"2026-03-02T00:00:00Z","user_id":"u1","event":"paywall_view","\\ud800x":1}', "malformed_invalid_json"),
    ('{"ts":"2026-03-02T00:00:00Z","user_id":"\\ud83d\\ude00","event":"paywall_view"}', None),
    ({**BASE, "unknown": [1, {"a": None}], "Ts": 1.5}, None),  # unknown keys ignored whatever their value
    # 4. timestamps
    ({**BASE, "ts": "2026-02-30T00:00:00Z"}, "malformed_bad_timestamp"),
    ({**BASE, "ts": "1772409600000"}, "malformed_bad_timestamp"),
    ({**BASE, "ts": 1772409600000.0}, "malformed_bad_timestamp"),
    ('{"ts":1.7724096e12,"user_id":"u1","event":"paywall_view"}', "malformed_bad_timestamp"),
    ({**BASE, "ts": True}, "malformed_bad_timestamp"),
    ({**BASE, "ts": {"t": 1}}, "malformed_bad_timestamp"),
    ({**BUY, "ts": "bad", "price": None}, "malformed_bad_timestamp"),  # 4 before 5
    # 5. fields the event type needs
    ({**BUY, "product_id": None}, "malformed_missing_field"),
    ({**BUY, "transaction_id": None}, "malformed_missing_field"),
    ({**BUY, "transaction_id": ""}, "malformed_missing_field"),  # empty id = absent (D14)
    ({**BUY, "price": None}, "malformed_missing_field"),
    ({**BUY, "currency": None}, "malformed_missing_field"),
    ({**BUY, "event": "trial_start", "price": None, "currency": None}, None),
    ({**BUY, "event": "refund", "price": None, "currency": None}, None),
    ({**BUY, "event": "refund", "product_id": None}, "malformed_missing_field"),
    ({**BASE, "price": 1}, "malformed_missing_field"),  # currency whenever price is present
    ({**BUY, "event": "cancel", "product_id": None, "transaction_id": None, "price": None}, None),
    ({**BUY, "event": "whatever", "product_id": None, "transaction_id": None, "price": None}, None),
    ({**BUY, "price": -1, "currency": None}, "malformed_missing_field"),  # 5 before 6
    # 6. negative price
    ({**BUY, "price": -0.01}, "malformed_negative_price"),
    ({**BUY, "price": "-3"}, "malformed_negative_price"),
    ({**BUY, "price": "-0.0000001"}, "malformed_negative_price"),  # below 0 even if it rounds to 0
    ({**BUY, "price": -0.0}, None),
    ({**BUY, "price": 0}, None),
])
def test_line_reasons_in_order(obj, expected):
    assert reason(obj) == expected


def test_fields_are_decoded():
    text = ('{"eventId":7,"ts":1772409600123,"userId":"\\u00e9\\ud83d\\ude00\\/x","event":"purchase",'
            '"productId":"p","transactionId":12345678901234567890123,"originalTransactionId":"o",'
            '"price":"7.99","currency":"EUR","offeringId":"off","testGroupId":"g","environment":"SANDBOX"}')
    e = ref.parse_json_line(text.encode(), 5, "f:1")
    assert (e.event_id, e.ts, e.user_id, e.transaction_id) == ("7", EPOCH_2026_03_02 + 123_000, "é😀/x", "12345678901234567890123")
    assert (e.price_micros, e.currency, e.offering_id, e.test_group_id, e.sandbox) == (7_990_000, "EUR", "off", "g", True)


def test_snake_case_wins_and_null_is_absent():
    e = ref.parse_json_line(line({**BASE, "user_id": "snake", "userId": "camel", "event_id": None, "eventId": "E"}), 0, "")
    assert (e.user_id, e.event_id) == ("snake", "E")
    # the losing spelling is not looked at, whatever its type
    assert reason({**BASE, "userId": {"x": 1}}) is None


@pytest.mark.parametrize("value, expected", [
    (5, "5"), ("DE", "DE"), ("", None), (False, None), (1.5, None), ({"code": "DE"}, None),
    (["DE"], None),
])
def test_a_dimension_of_another_type_is_absent(value, expected):
    """country, platform and store: a string or an integer's digits; any other JSON type is no
    value and the line stays valid (D16), so slicing a job never changes which lines count."""
    for name in ("country", "platform", "store"):
        e = ref.parse_json_line(line({**BUY, name: value}), 0, "")
        assert getattr(e, name) == expected, name


def test_an_empty_snake_case_optional_field_gives_way_to_camel_case():
    """An empty string is absent for every optional field (D14), so its camelCase spelling is
    read (D13), as offerlab does; an empty user_id stays an invalid field."""
    e = ref.parse_json_line(line({**BUY, "product_id": "", "productId": "p", "expires_at": "",
                                  "expiresAt": "2026-04-02T00:00:00Z", "offering_id": "", "offeringId": "camel"}), 0, "")
    assert (e.product_id, e.offering_id, e.expires_at) == ("p", "camel", EPOCH_2026_03_02 + 31 * 86_400_000_000)
    assert reason({**BASE, "user_id": "", "userId": "u"}) == "malformed_invalid_field"


@pytest.mark.parametrize("price, micros", [
    (Decimal("7.99"), 7_990_000), (Decimal("1200"), 1_200_000_000), (Decimal("0.0000005"), 0),
    (Decimal("0.0000015"), 2), (Decimal("1e2"), 100_000_000), (Decimal("9223372036854.775807"), 2 ** 63 - 1),
    (Decimal("9223372036854.775808"), None),
])
def test_price_micro_units(price, micros):
    assert ref.decimal_to_micros(price) == micros


# --------------------------------------------------------------------------- CSV and TSV

def fields(data: bytes):
    return [([raw for raw, _ in r.fields], [q for _, q in r.fields], r.well_formed) for r in ref.iter_csv_records(data)]


def test_csv_records():
    data = b'a,"b ""q"", c",\r\n"multi\nline",\\N,""\n\n   \r\nlast,no-newline'
    records = list(ref.iter_csv_records(data))
    assert [r.fields for r in records] == [
        [(b"a", False), (b'b "q", c', True), (b"", False)],
        [(b"multi\nline", True), (b"\\N", False), (b"", True)],
        [(b"last", False), (b"no-newline", False)],
    ]
    assert [r.line for r in records] == [1, 2, 6]
    assert all(r.well_formed for r in records)


@pytest.mark.parametrize("data", [b'a"b,c\n', b'"a"b,c\n', b'"never closed,c\nmore\n'])
def test_csv_bad_quoting(data):
    assert not list(ref.iter_csv_records(data))[0].well_formed


def test_csv_table_nulls(tmp_path: Path):
    path = tmp_path / "subscription_offerings.csv"
    path.write_bytes(b'id,offering_id,name,is_active\r\n1,x,,\\N\r\n2,y,"","\\N"\r\n')
    rows = ref._read_text_table(path, "subscription_offerings")
    assert [(r.values["name"], r.values["is_active"]) for r in rows] == [(None, None), ("", "\\N")]


def test_tsv_table(tmp_path: Path):
    path = tmp_path / "subscription_offerings.tsv.gz"  # a plain file with a .gz name
    path.write_bytes(b"name\tid\toffering_id\tis_active\r\n"
                     b"a\\tb\\nc\\\\d\\0e\\qf\t1\tNULL\t1\n"
                     b"NULLx\t2\t\\N\ttrue\n")
    rows = ref._read_text_table(path, "subscription_offerings")
    assert [r.values for r in rows] == [
        {"name": "a\tb\nc\\d\0eqf", "id": "1", "offering_id": None, "is_active": "1"},
        {"name": "NULLx", "id": "2", "offering_id": "N", "is_active": "true"},
    ]


def test_missing_table_column_names_file_and_column(tmp_path: Path, tmp_out: Path, capsys):
    job = make_dataset(tmp_path, assignments="user_id,subscription_offering_id,assigned_at\n")
    error = run_failing(job, tmp_out, capsys)
    assert "user_offering_assignments.csv" in error and "offering_group_id" in error


def test_wrong_field_count_in_a_table_is_an_error(tmp_path: Path, tmp_out: Path, capsys):
    job = make_dataset(tmp_path, assignments="user_id,subscription_offering_id,offering_group_id,assigned_at\nu1,1,10\n")
    assert "user_offering_assignments.csv:2" in run_failing(job, tmp_out, capsys)


# --------------------------------------------------------------------------- gzip

def test_gzip_members_back_to_back_and_detection_by_magic(tmp_path: Path):
    path = tmp_path / "plain_name.jsonl"
    path.write_bytes(gzip.compress(b"first\nsec") + gzip.compress(b"ond\n"))
    assert ref.read_input_bytes(path) == b"first\nsecond\n"
    plain = tmp_path / "not_gzip.gz"
    plain.write_bytes(b"hello")
    assert ref.read_input_bytes(plain) == b"hello"


@pytest.mark.parametrize("damage", ["truncate", "garbage", "zeros", "crc"])
def test_corrupt_gzip(tmp_path: Path, damage):
    good = gzip.compress(b"x" * 1000)
    data = {"truncate": good[:-10], "garbage": good + b"junk", "zeros": good + b"\0\0\0\0",
            "crc": good[:-8] + bytes([good[-8] ^ 1]) + good[-7:]}[damage]
    path = tmp_path / "f.gz"
    path.write_bytes(data)
    with pytest.raises(ref.CorruptGzip):
        ref.read_input_bytes(path)


def test_corrupt_log_file_fails_or_is_skipped(tmp_path: Path, capsys):
    job = make_dataset(tmp_path, assignments="user_id,subscription_offering_id,offering_group_id,assigned_at\n"
                                             "u1,1,10,2026-03-01T00:00:00Z\n",
                       events=[event("u1", "paywall_view", "2026-03-02T00:00:00Z")])
    (tmp_path / "logs" / "broken.jsonl.gz").write_bytes(gzip.compress(json.dumps(event("u1", "trial_start", "2026-03-02T00:00:00Z", product_id="p", transaction_id="t")).encode())[:-4])
    error = run_failing(job, tmp_path / "out1", capsys)
    assert "broken.jsonl.gz" in error and "truncated" in error
    job.write_text(job.read_text() + "on_corrupt_file: skip\n")
    out = run(job, tmp_path / "out2")
    assert (out.counter("files_read"), out.counter("files_skipped_corrupt"), out.counter("lines_read")) == (1, 1, 1)
    assert out.group("test", "control")["trial_starters"] == "0"


# --------------------------------------------------------------------------- log files end to end

ONE_USER = "user_id,subscription_offering_id,offering_group_id,assigned_at\nu1,1,10,2026-03-01T00:00:00Z\n"


def test_blank_lines_crlf_and_line_length(tmp_path: Path, tmp_out: Path):
    view = json.dumps(event("u1", "paywall_view", "2026-03-02T00:00:00Z"))
    padded_ok = view[:-1] + ', "pad": "' + "x" * (ref.MAX_LINE_BYTES - len(view) - 11) + '"}'
    assert len(padded_ok) == ref.MAX_LINE_BYTES
    too_long = padded_ok[:-2] + 'x"}'
    job = make_dataset(tmp_path, assignments=ONE_USER, events=["", "  \t", view + "\r", padded_ok + "\r", too_long, "\r"])
    out = run(job, tmp_out)
    assert (out.counter("lines_read"), out.counter("malformed_line_too_long"), out.counter("malformed_lines")) == (3, 1, 1)


def test_csv_log(tmp_path: Path, tmp_out: Path):
    csv_log = ("\ufeffuserId,ts,event,product_id,transactionId,price,currency,extra\r\n"
               "u1,1772409600000,trial_start,p,TT,,,\r\n"            # ts of digits: epoch ms
               'u1,2026-03-03 00:00:00,purchase,p,T1,"7.5",USD,"a,b"\r\n'
               'u1,2026-03-03 00:00:00,purchase,p,T2,,USD,\r\n'       # empty price = absent
               'u1,2026-03-03 00:00:00,purchase,p,"",1,USD,\r\n'      # quoted empty = absent
               'u1,"2026-03-04T00:00:00Z",paywall_view,,,,,"multi\nline"\r\n'
               "u1,2026-03-05T00:00:00Z,paywall_view\r\n"             # too few fields
               'u1,2026-03-05T00:00:00Z,paywall_view,,,,,"x"y\r\n')    # bad quoting
    job = make_dataset(tmp_path, assignments=ONE_USER, csv_log=csv_log)
    out = run(job, tmp_out)
    assert (out.counter("lines_read"), out.counter("malformed_missing_field"), out.counter("malformed_invalid_csv")) == (7, 2, 2)
    row = out.group("test", "control")
    assert (row["trial_converters"], row["net_revenue"], row["paywall_viewers"]) == ("1", "7.5", "1")


# --------------------------------------------------------------------------- job file and CLI

def test_job_errors(tmp_path: Path, tmp_out: Path, capsys):
    job = make_dataset(tmp_path, assignments=ONE_USER, job="as_of: 2026-02-30T00:00:00Z")
    assert "as_of" in run_failing(job, tmp_out, capsys)
    job = make_dataset(tmp_path, assignments=ONE_USER, job="report_currency: DELETE")
    assert "report_currency" in run_failing(job, tmp_out, capsys)
    job = make_dataset(tmp_path, assignments=ONE_USER, job='logs: ["nothing/*.jsonl"]')
    assert "no log file" in run_failing(job, tmp_out, capsys)
    job = make_dataset(tmp_path, assignments=ONE_USER, job="on_corrupt_file: maybe")
    assert "on_corrupt_file" in run_failing(job, tmp_out, capsys)
    job = make_dataset(tmp_path, assignments=ONE_USER, job="rates: {EUR: -1}")
    assert "EUR" in run_failing(job, tmp_out, capsys)
    assert ref.main([str(tmp_path / "missing.yaml"), "--out", str(tmp_out)]) == 1
    assert "job file not found" in capsys.readouterr().err


def test_as_of_as_a_date_and_rates_file(tmp_path: Path, tmp_out: Path):
    job = make_dataset(tmp_path, assignments=ONE_USER, as_of="2026-03-03", job="rates: DELETE\nrates_file: rates.csv",
                       events=[purchase("u1", "2026-03-02T23:59:59Z", "T1", price=1, currency="GBP"),
                               purchase("u1", "2026-03-03T00:00:00Z", "T2", price=1, currency="GBP")])
    (tmp_path / "rates.csv").write_text("currency,rate\nGBP,1.25\n")
    assert run(job, tmp_out).group("test", "control")["net_revenue"] == "1.25"


@pytest.mark.parametrize("value, text", [
    (None, ""), (True, "true"), (False, "false"), (3, "3"), (3.0, "3"), (-0.0, "0"), (0.1, "0.1"),
    (1 / 3, "0.3333333333333333"), (1e-7, "1e-07"), (1.5e300, "1.5e+300"), (float("nan"), ""),
    ("=SUM(A1)", "'=SUM(A1)"), ("+x", "'+x"), ("-winter", "'-winter"), ("@me", "'@me"),
    ("\tx", "'\tx"), ("\rx", "\"'\rx\""), ("a,b", '"a,b"'), ('say "hi"', '"say ""hi"""'), ("plain", "plain"),
])
def test_cell_format(value, text):
    assert ref.format_cell(value) == text
