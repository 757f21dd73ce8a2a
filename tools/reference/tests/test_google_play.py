"""Google Play's two feeds (contract §1.6, docs/input-formats.md#google-play-google_play-and-google_play_orders),
worked by hand.

One offering `test`, every user in control (10), assigned 2026-03-01; as_of 2026-03-16T00:00:00Z; USD. The
logs hold nothing; the purchases come as notifications (with the state fetched) and Orders.
"""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path

from conftest import make_dataset, run, run_failing

HEADER = "user_id,subscription_offering_id,offering_group_id,assigned_at\n"
PACKAGE = "com.example.app"
PLAY_JOB = """logs: ["logs/*", {path: "play/notifications.jsonl", format: google_play}, {path: "play/orders.jsonl", format: google_play_orders}]
google_play: {package_name: com.example.app}"""


def millis(text: str) -> str:
    """An RFC 3339 UTC time as Google's eventTimeMillis (a string of epoch milliseconds)."""
    import datetime
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return str(int(moment.timestamp() * 1000))


def usd(units: int, nanos: int = 0) -> dict:
    return {"currencyCode": "USD", "units": str(units), "nanos": nanos}


def state(order: str | None, *, user: str | None = None, start: str = "2026-03-02T10:00:00Z", trial: bool = False,
          expiry: str = "2026-03-09T10:00:00Z", test: bool = False, pending: str | None = None) -> dict:
    """A SubscriptionPurchaseV2 naming `order` as its line item's latest successful one."""
    item = {"productId": "weekly", "expiryTime": expiry, "autoRenewingPlan": {"recurringPrice": usd(9, 990000000)},
            "offerPhase": {"freeTrial": {}} if trial else {"basePrice": {}}}
    if order is not None:
        item["latestSuccessfulOrderId"] = order
    result = {"kind": "androidpublisher#subscriptionPurchaseV2", "regionCode": "US", "startTime": start, "lineItems": [item]}
    if user is not None:
        result["externalAccountIdentifiers"] = {"obfuscatedExternalAccountId": user}
    if test:
        result["testPurchase"] = {}
    if pending is not None:
        result["latestOrderId"] = pending
    return result


def developer(at: str, body: dict, package: str = PACKAGE) -> dict:
    return {"version": "1.0", "packageName": package, "eventTimeMillis": millis(at), **body}


def subscription(token: str, kind: int) -> dict:
    return {"subscriptionNotification": {"version": "1.0", "notificationType": kind, "purchaseToken": token}}


def pushed(message_id: str, notification: dict) -> dict:
    """The Pub/Sub push body as posted: the DeveloperNotification base64 in message.data."""
    data = base64.b64encode(json.dumps(notification).encode()).decode()
    return {"message": {"data": data, "messageId": message_id, "publishTime": "2026-03-02T10:00:01Z"},
            "subscription": "projects/app/subscriptions/play"}


def order(order_id: str, token: str, at: str, total: dict, revenue: dict, refunds: dict | None = None,
          last: str | None = None) -> dict:
    return {"orderId": order_id, "purchaseToken": token, "state": "PROCESSED", "createTime": at, "lastEventTime": last or at,
            "total": total, "tax": usd(0), "developerRevenueInBuyerCurrency": revenue,
            "orderHistory": {"processedEvent": {"eventTime": at}, **(refunds or {})}, "lineItems": [{"productId": "weekly"}]}


A_PURCHASE = {"notification": pushed("m1", developer("2026-03-02T10:00:00Z", subscription("tA", 4))),
              "subscription": state("GPA.1", user="u1")}

#: u1 buys (its Order: 9.99, revenue 8.00), goes into a grace period (the pending renewal only as latestOrderId),
#: renews without an Order yet (9.99 at the notification's time, the rules' 15 %), cancels, and the first order
#: is refunded whole. u2's token is the table's (its state names no account): a trial, then its first paid order
#: (Order: 9.99, revenue 8.49) refunded in part (3.00, the Order's partial refund event). u3 is a license tester.
NOTIFICATIONS = [
    A_PURCHASE,
    A_PURCHASE,  # Pub/Sub's retry: the same messageId, one notification
    {"notification": pushed("m2", developer("2026-03-08T10:00:00Z", subscription("tA", 6))),
     "subscription": state("GPA.1", user="u1", pending="GPA.1..0")},
    {"notification": developer("2026-03-09T10:00:05Z", subscription("tA", 2)),  # stored decoded
     "subscription": state("GPA.1..0", user="u1", expiry="2026-03-16T10:00:00Z")},
    {"notification": developer("2026-03-09T11:00:00Z", subscription("tA", 2)),  # a re-send of the same order
     "subscription": state("GPA.1..0", user="u1", expiry="2026-03-16T10:00:00Z")},
    {"notification": pushed("m3", developer("2026-03-10T00:00:00Z", subscription("tA", 3))),
     "subscription": state("GPA.1..0", user="u1", expiry="2026-03-16T10:00:00Z")},
    {"notification": developer("2026-03-11T00:00:00Z", {"voidedPurchaseNotification": {
        "purchaseToken": "tA", "orderId": "GPA.1", "productType": 1, "refundType": 1}})},
    {"notification": pushed("m4", developer("2026-03-03T08:00:00Z", subscription("tB", 4))),
     "subscription": state("GPA.2", start="2026-03-03T08:00:00Z", trial=True, expiry="2026-03-06T08:00:00Z")},
    {"notification": pushed("m5", developer("2026-03-06T08:00:03Z", subscription("tB", 2))),
     "subscription": state("GPA.2..0", start="2026-03-03T08:00:00Z", expiry="2026-03-13T08:00:00Z")},
    {"notification": pushed("m6", developer("2026-03-07T00:00:00Z", {"voidedPurchaseNotification": {
        "purchaseToken": "tB", "orderId": "GPA.2..0", "productType": 1, "refundType": 2}}))},
    {"notification": pushed("m7", developer("2026-03-04T00:00:00Z", subscription("tC", 4))),
     "subscription": state("GPA.3", user="u3", start="2026-03-04T00:00:00Z", test=True)},
    {"notification": pushed("m8", developer("2026-03-04T00:00:00Z", subscription("tX", 4), package="com.example.other")),
     "subscription": state("GPA.9", user="u1")},
    {"notification": pushed("m9", developer("2026-03-05T00:00:00Z", {"testNotification": {"version": "1.0"}}))},
]
ORDERS = [
    order("GPA.1", "tA", "2026-03-02T10:00:01Z", usd(9, 990000000), usd(8)),
    order("GPA.2..0", "tB", "2026-03-06T08:00:02Z", usd(9, 990000000), usd(8, 490000000)),
    # Listed again at the partial refund: the later lastEventTime wins.
    order("GPA.2..0", "tB", "2026-03-06T08:00:02Z", usd(9, 990000000), usd(8, 490000000), last="2026-03-07T00:00:01Z",
          refunds={"partialRefundEvents": [{"createTime": "2026-03-07T00:00:00Z", "processedTime": "2026-03-07T00:00:01Z",
                                            "refundDetails": {"total": usd(3), "tax": usd(0)}}]}),
]


def play_dataset(root: Path, notifications: list, orders: list, *, lines: list[str] = (), job: str = PLAY_JOB) -> Path:
    path = make_dataset(root, assignments=HEADER + "".join(f"{u},1,10,2026-03-01T00:00:00Z\n" for u in ("u1", "u2", "u3")),
                        job=job)
    (root / "tables" / "user_transactions.csv").write_text("user_id,original_transaction_id\nu2,tB\n")
    (root / "play").mkdir()
    (root / "play" / "notifications.jsonl").write_text("".join(json.dumps(n) + "\n" for n in notifications)
                                                       + "".join(line + "\n" for line in lines))
    (root / "play" / "orders.jsonl").write_text("".join(json.dumps(o) + "\n" for o in orders))
    return path


def close(text: str, value: float) -> bool:
    """Money columns are written to the micro-unit."""
    return math.isclose(float(text), value, rel_tol=0, abs_tol=5e-7)


def test_notifications_and_orders_become_the_logs_events(tmp_path: Path, tmp_out: Path):
    out = run(play_dataset(tmp_path, NOTIFICATIONS, ORDERS, lines=["{not json"]), tmp_out)
    row = out.group("test", "control")
    # u1 and u2 converted (u3's purchase is a tester's: sandbox); one trial (u2's), converted.
    assert (row["users"], row["converters"], row["trial_starters"], row["trial_converters"]) == ("3", "2", "1", "1")
    assert (row["purchases"], row["renewals"], row["refunds"]) == ("2", "1", "2")
    # Revenue: 9.99 + 9.99 + 9.99 - 9.99 (GPA.1 whole) - 3 (GPA.2..0 in part) = 16.98.
    assert (row["gross_revenue"], row["refunded_revenue"], row["net_revenue"]) == ("29.97", "12.99", "16.98")
    # Proceeds: GPA.1's Order says 8.00, all taken back; GPA.1..0 has no Order: 9.99 x 0.85 = 8.4915; GPA.2..0's
    # Order says 8.49, of which 3/9.99 is taken back.
    assert close(row["net_proceeds"], 8.4915 + 8.49 * (1 - 3 / 9.99))
    # Before refunds, 8.00 and 8.49 of the 24.9815 are stated by an Order.
    assert close(row["exact_proceeds_share"], (8 + 8.49) / (8 + 8.4915 + 8.49))
    # u1 cancelled; its renewal's period runs past as_of: still active. u2's period ended on 03-13.
    assert (row["active_subscribers"], row["churned_subscribers"]) == ("1", "1")
    assert out.counter("lines_read") == len(NOTIFICATIONS) + 1 + len(ORDERS)
    assert out.counter("files_read") == 3  # the (empty) log file and one file of each feed
    assert (out.counter("malformed_lines"), out.counter("malformed_invalid_json"), out.counter("malformed_other_app")) == (2, 1, 1)
    assert out.counter("ignored_store_records") == 2  # the grace period and the test notification
    assert out.counter("sandbox_events") == 1
    assert out.counter("duplicate_events") == 0  # a retry or a re-send is one record, not a duplicate event
    assert out.counter("unattributed_store_records") == 0 and out.counter("unpriced_refunds") == 0
    (product,) = out.products
    assert (product["purchases"], product["renewals"], product["refunds"], product["net_revenue"]) == ("2", "1", "2", "16.98")


def test_a_night_before_the_orders_arrive_counts_the_plans_price(tmp_path: Path, tmp_out: Path):
    # Without GPA.1's Order, its charge is the plan's 9.99 at the state's startTime, proceeds by the rules.
    out = run(play_dataset(tmp_path, NOTIFICATIONS, ORDERS[1:]), tmp_out)
    row = out.group("test", "control")
    assert row["net_revenue"] == "16.98"
    assert close(row["net_proceeds"], 8.4915 + 8.49 * (1 - 3 / 9.99))
    assert close(row["exact_proceeds_share"], 8.49 / (8.4915 + 8.4915 + 8.49))


def test_a_partial_refund_without_its_order_is_refused(tmp_path: Path, tmp_out: Path, capsys):
    # The amount would be unknown (unpriced_refunds): not read by the reference, said, never skipped.
    error = run_failing(play_dataset(tmp_path, NOTIFICATIONS, ORDERS[:1]), tmp_out, capsys)
    assert "GPA.2..0" in error and "unpriced_refunds" in error


def test_the_table_wins_over_the_account_id(tmp_path: Path, tmp_out: Path):
    # tA's chain is u2's in user_transactions: its orders are u2's, whatever the state says.
    job = play_dataset(tmp_path, NOTIFICATIONS, ORDERS)
    (tmp_path / "tables" / "user_transactions.csv").write_text("user_id,original_transaction_id\nu2,tB\nu2,tA\n")
    row = run(job, tmp_out).group("test", "control")
    assert row["converters"] == "1" and row["purchases"] == "2" and row["renewals"] == "1"


#: u1's plan change: tA's first order GPA.1 (its Order: 9.99), then on 03-09 a new token tD whose state links tA
#: (its first order GPA.4, no Order yet: a night before it is listed), and GPA.4 refunded whole on 03-10.
CHANGED = {"notification": pushed("m10", developer("2026-03-09T10:00:05Z", subscription("tD", 4))),
           "subscription": {**state("GPA.4", user="u1", start="2026-03-09T10:00:00Z", expiry="2026-03-16T10:00:00Z"),
                            "linkedPurchaseToken": "tA"}}
CHANGED_REFUND = {"notification": pushed("m11", developer("2026-03-10T00:00:00Z", {"voidedPurchaseNotification": {
    "purchaseToken": "tD", "orderId": "GPA.4", "productType": 1, "refundType": 1}}))}


def test_a_plan_change_continues_the_chain_of_its_linked_token(tmp_path: Path, tmp_out: Path):
    # Whichever line comes first, tD's first order continues tA's chain: a renewal (a purchase, were tD a chain of
    # its own), at tD's startTime for the plan's 9.99; its refund takes it back.
    for name, lines in (("after", [A_PURCHASE, CHANGED, CHANGED_REFUND]), ("before", [CHANGED, CHANGED_REFUND, A_PURCHASE])):
        out = run(play_dataset(tmp_path / name, lines, ORDERS[:1]), tmp_out / name)
        row = out.group("test", "control")
        assert (row["converters"], row["purchases"], row["renewals"], row["refunds"]) == ("1", "1", "1", "1"), name
        assert (row["gross_revenue"], row["refunded_revenue"], row["net_revenue"]) == ("19.98", "9.99", "9.99"), name
        # GPA.1's Order says 8.00; GPA.4's proceeds (the rules' 85 % of 9.99) are all taken back.
        assert close(row["net_proceeds"], 8.00), name
        assert out.counter("unattributed_store_records") == 0 and out.counter("malformed_lines") == 0, name


def test_a_link_to_a_token_never_seen_roots_the_chain_there(tmp_path: Path, tmp_out: Path):
    # tD links tGone, of which nothing came: tGone is the chain's first token, so the table's row for tGone says
    # the user (tD's state names none), and GPA.4 is the first paid order seen of its chain: a purchase.
    unseen = dict(CHANGED, subscription={**state("GPA.4", start="2026-03-09T10:00:00Z"), "linkedPurchaseToken": "tGone"})
    job = play_dataset(tmp_path, [unseen], [])
    (tmp_path / "tables" / "user_transactions.csv").write_text("user_id,original_transaction_id\nu2,tGone\n")
    out = run(job, tmp_out)
    row = out.group("test", "control")
    assert (row["converters"], row["purchases"], row["renewals"], row["net_revenue"]) == ("1", "1", "0", "9.99")
    assert out.counter("unattributed_store_records") == 0


def test_what_the_reference_does_not_read_is_refused(tmp_path: Path, tmp_out: Path, capsys):
    one_time = {"notification": developer("2026-03-02T10:00:00Z", {"oneTimeProductNotification": {
        "version": "1.0", "notificationType": 1, "purchaseToken": "tP", "sku": "coins"}})}
    assert "one-time" in run_failing(play_dataset(tmp_path / "b", [one_time], []), tmp_out, capsys)
    other_format = PLAY_JOB.replace("google_play_orders}", "revenuecat_export}")
    assert "revenuecat_export" in run_failing(play_dataset(tmp_path / "c", NOTIFICATIONS, ORDERS, job=other_format), tmp_out, capsys)


def test_a_play_job_needs_its_package(tmp_path: Path, tmp_out: Path, capsys):
    job = PLAY_JOB.replace("google_play: {package_name: com.example.app}", "google_play: DELETE")
    assert "package_name" in run_failing(play_dataset(tmp_path, NOTIFICATIONS, ORDERS, job=job), tmp_out, capsys)
