import OfferLabIngest

/// One line of a `google_play_orders` source: an Orders API `Order` (`orders.get`/`batchget`)
/// as listed (docs/input-formats.md#google-play-google_play-and-google_play_orders), read into
/// the details of its charge: when (`createTime`), how much (`total`), what the developer keeps
/// (`developerRevenueInBuyerCurrency`) and what was refunded (`orderHistory`).
///
/// A line becomes no order, counted with its line, under one of these reasons:
/// `malformed_invalid_json` (not a JSON object); `malformed_missing_field` (no `orderId`,
/// `createTime` or `total`, or a money without `currencyCode`); `malformed_invalid_field` (a
/// field of another JSON type than Google writes); `malformed_bad_timestamp` (`createTime`,
/// `lastEventTime` or a refund event's time not a time); `malformed_negative_price` (a negative
/// `total`).
package struct GooglePlayOrder: Sendable {
    package var orderID: String
    /// `lastEventTime` (else `createTime`): of two listings of an order, the later one wins.
    package var lastEventAt: Int64
    package var details: StoreChargeDetails

    init(line: [UInt8]) throws(StoreLineRejection) {
        let order = try StoreJSONObject(line, what: "the Order")
        guard let orderID = try order.string("orderId") else { throw .init(.malformedMissingField, "no orderId") }
        guard let createText = try order.string("createTime") else { throw .init(.malformedMissingField, "no createTime") }
        guard let totalObject = try order.object("total") else { throw .init(.malformedMissingField, "no total") }
        let total = try GooglePlayNotification.money(totalObject, "total")
        let revenue = try order.object("developerRevenueInBuyerCurrency").map { object throws(StoreLineRejection) in
            try GooglePlayNotification.money(object, "developerRevenueInBuyerCurrency")
        }
        let createdAt = try Self.time(createText, "createTime")
        let lastEventAt = try order.string("lastEventTime").map { text throws(StoreLineRejection) in try Self.time(text, "lastEventTime") }

        // The refunds: a whole refund's event, and each partial refund event (its processed time).
        var refunds: StoreChargeDetails.Refunds?
        func add(at: Int64, amount: Int64) {
            refunds = .init(at: min(refunds?.at ?? at, at), amountMicros: (refunds?.amountMicros ?? 0) + amount)
        }
        if let history = try order.object("orderHistory") {
            if let refund = try history.object("refundEvent") {
                guard let eventTime = try refund.string("eventTime") else {
                    throw .init(.malformedMissingField, "a refundEvent without eventTime")
                }
                let at = try Self.time(eventTime, "refundEvent.eventTime")
                // A whole refund without its details returns the total.
                let amount = try refund.object("refundDetails")?.object("total").map { object throws(StoreLineRejection) in
                    try GooglePlayNotification.money(object, "refundDetails.total").micros
                }
                add(at: at, amount: amount ?? total.micros)
            } else {
                for partial in try history.objects("partialRefundEvents") ?? [] {
                    guard let processed = try partial.string("processedTime") else { continue }
                    guard let amountObject = try partial.object("refundDetails")?.object("total") else {
                        throw .init(.malformedMissingField, "a partial refund event without refundDetails.total")
                    }
                    add(
                        at: try Self.time(processed, "partialRefundEvents[].processedTime"),
                        amount: try GooglePlayNotification.money(amountObject, "refundDetails.total").micros)
                }
            }
        }
        self.orderID = orderID
        self.lastEventAt = lastEventAt ?? createdAt
        details = StoreChargeDetails(
            format: .googlePlayOrders, transactionID: orderID, at: createdAt,
            money: .init(
                priceMicros: total.micros, currency: total.currency,
                proceedsMicros: revenue.flatMap { $0.currency == total.currency ? $0.micros : nil }),
            refunds: refunds)
    }

    private static func time(_ text: String, _ key: String) throws(StoreLineRejection) -> Int64 {
        guard let micros = Timestamp.parse(text) else { throw .init(.malformedBadTimestamp, "\(key) '\(text)' is not a time") }
        return micros
    }
}
