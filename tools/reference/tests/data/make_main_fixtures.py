#!/usr/bin/env python3
"""Regenerates the gzip files of the `main` data set from the text below (the .gz files are
committed; this script documents exactly what they hold).

- tables/user_offering_assignments.csv: gzip content under a plain `.csv` name (CRLF lines).
- logs/2026/03/b.jsonl.gz: two gzip members; the boundary falls inside line 4.
"""
import gzip
from pathlib import Path

HERE = Path(__file__).resolve().parent / "main"

ASSIGNMENTS = "\r\n".join([
    "user_id,subscription_offering_id,offering_group_id,assigned_at,source",
    # spring (offering 1): groups 10 control, 11 group_b, 12 group_c
    "u1,1,10,2026-03-01T00:00:00Z,app",
    "u1,1,10,2026-03-02 00:00:00,app",          # same group again: the earliest counts
    "u2,1,10,2026-03-01T00:00:00Z,app",
    "u3,1,11,2026-03-01T00:00:00Z,app",
    "u4,1,11,2026-03-01T12:00:00Z,\"web, beta\"",
    "u5,1,12,2026-03-01 00:00:00,",
    "00123,1,11,2026-03-01T00:00:00Z,app",       # text id: not the same user as 123
    "u6,1,10,2026-03-01T00:00:00Z,app",          # u6: two groups -> multi_group_users
    "u6,1,11,2026-03-02T00:00:00Z,app",
    "u7,1,10,2026-03-16T00:00:00Z,app",          # at as_of: ignored, u7 is unassigned
    "ux,1,20,2026-03-01T00:00:00Z,app",          # group of another offering: invalid (spring)
    "uy,1,99,2026-03-01T00:00:00Z,app",          # unknown group: invalid (spring)
    "\\N,1,10,2026-03-01T00:00:00Z,app",         # NULL user: invalid (spring)
    "\"\",1,10,2026-03-01T00:00:00Z,app",        # empty user: invalid (spring)
    "uz,1,10,2026-02-30 00:00:00,app",           # impossible date: invalid (spring)
    "uw,9,10,2026-03-01T00:00:00Z,app",          # unknown offering: invalid (global)
    "uv,abc,10,2026-03-01T00:00:00Z,app",        # unreadable offering: invalid (global)
    "ur,1,99,2026-03-20T00:00:00Z,app",          # after as_of: ignored before anything else
    # -winter (offering 2): groups 20 beta, 21 baseline
    "u1,2,21,2026-03-05T00:00:00+00:00,app",
    "u9,2,20,2026-03-05T00:00:00Z,app",
    "uq,2,10,2026-03-05T00:00:00Z,app",          # group of spring: invalid (-winter)
    # dormant (offering 3): only a row after as_of -> not analysed
    "ud,3,30,2026-03-20T00:00:00Z,app",
]) + "\r\n"

B_LINES = [
    '{"event_id":"E2","ts":"2026-03-03T00:00:00Z","user_id":"u1","event":"purchase","product_id":"p_month","transaction_id":"T1dup","price":99,"currency":"USD"}',
    '{"ts":"2026-03-04T01:00:00Z","user_id":"u2","event":"purchase","product_id":"p_month","transaction_id":"T3","original_transaction_id":"OT2","price":"4.5","currency":"EUR"}',
    '{"ts":1772409600000,"user_id":"u4","event":"trial_start","product_id":"p_month","transaction_id":"TT4","original_transaction_id":"OT4"}',
    '{"ts":"2026-03-03T02:00:00.123456789+02:00","user_id":"u4","event":"purchase","product_id":"p_month","transaction_id":"T7","price":8,"currency":"USD"}',
    '{"ts":"2026-03-04T00:00:00Z","user_id":"u4","event":"refund","product_id":"p_month","transaction_id":"T7","price":3,"currency":"JPY"}',
    '{"ts":"2026-03-01T11:00:00Z","user_id":"u4","event":"purchase","product_id":"p_month","transaction_id":"T8","price":8,"currency":"USD"}',
    '{"event_id":"E9","ts":"2026-03-02T00:00:00Z","user_id":"u4","event":"upgrade"}',
    '{"ts":"2026-03-02T00:00:00Z","user_id":"u5","event":"purchase","product_id":"p_week","transaction_id":"T9","price":1200,"currency":"JPY","offeringId":"autumn"}',
    '{"ts":"2026-03-03T00:00:00Z","user_id":"u5","event":"refund","product_id":"p_week","transaction_id":"T9"}',
    '{"ts":"2026-03-02T00:00:00Z","user_id":"00123","event":"paywall_view"}',
    '{"ts":"2026-03-02T00:00:00Z","user_id":123,"event":"paywall_view"}',
    '{"ts":"2026-03-03T00:00:00Z","user_id":"u6","event":"purchase","product_id":"p_month","transaction_id":"T12","price":10,"currency":"USD"}',
    '{"ts":"2026-03-02T00:00:00Z","user_id":"u7","event":"paywall_view"}',
    '{"ts":"2026-03-06T00:00:00Z","user_id":"u9","event":"purchase","product_id":"p_month","transaction_id":"T10","price":20,"currency":"USD","offering_id":"-winter","test_group_id":"beta"}',
    '{"ts":"2026-03-16T00:00:00Z","user_id":"u9","event":"paywall_view"}',
]


def main() -> None:
    (HERE / "tables" / "user_offering_assignments.csv").write_bytes(
        gzip.compress(ASSIGNMENTS.encode(), mtime=0))
    text = ("\n".join(B_LINES)).encode()  # the last line lacks its newline
    cut = text.index(b'"transaction_id":"T7"')  # inside line 4
    (HERE / "logs" / "2026" / "03" / "b.jsonl.gz").write_bytes(
        gzip.compress(text[:cut], mtime=0) + gzip.compress(text[cut:], mtime=0))


if __name__ == "__main__":
    main()
