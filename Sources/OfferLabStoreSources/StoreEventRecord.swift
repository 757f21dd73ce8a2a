import OfferLabIngest
import OfferLabVocabulary

extension StoreEvent {
    /// Fills `record` with exactly what the purchase-log parser (docs/input-formats.md#json-lines)
    /// makes of `StoreEventJSONLines.line(self)` (`JSONLineParser(keepsSliceFields:)`), without
    /// writing the line and parsing it back: the same field bytes (so the same interning), the same
    /// values, and for an event the parser would reject, the same malformed reason (the record is
    /// then empty). A run makes every store event's record this way; `StoreEventRecordTests` holds
    /// the two paths together.
    ///
    /// What the line's text decides: an empty optional string is absent, a price is exact
    /// unless its magnitude is above `Price.maximumMicros`, a timestamp survives its text only
    /// from year 0 to 9999, a fee share is read from its `Double` description.
    ///
    /// - Returns: nil when the event is a valid log record, otherwise the parser's reason.
    public func fillLogRecord(_ record: inout LogRecord, keepsSliceFields: Bool) -> MalformedReason? {
        record.reset()
        // (3) Types: the user is a non-empty string, the price and the shares numbers in range.
        guard !userID.isEmpty else { return .invalidField }
        // A charge without its money is written with price 0 (`StoreEventJSONLines.line`).
        let price = priceMicros ?? (event.requiresPrice ? 0 : nil)
        if let price, price.magnitude > Price.maximumMicros.magnitude { return .invalidField }
        guard let taxShare = Self.share(taxShare), let commissionShare = Self.share(commissionShare) else { return .invalidField }
        if let taxShare, let commissionShare, Int64(taxShare) + Int64(commissionShare) >= LogRecord.wholeShare { return .invalidField }
        // (4) The timestamp.
        guard Self.textTimestamps.contains(at) else { return .badTimestamp }
        // (5) Keys required by the event type; a price's currency (`XXX` when it has none).
        let currency = price == nil ? nil : (self.currency ?? "XXX")
        if event.isTransaction && (productID?.isEmpty ?? true || transactionID?.isEmpty ?? true) { return .missingField }
        if price != nil && currency?.isEmpty ?? true { return .missingField }
        // (6) Negative price.
        if let price, price < 0 { return .negativePrice }

        var ranges = (
            eventID: Range<Int>?.none, userID: 0..<0, eventName: 0..<0, productID: Range<Int>?.none, transactionID: Range<Int>?.none,
            originalTransactionID: Range<Int>?.none, currency: Range<Int>?.none, country: Range<Int>?.none,
            platform: Range<Int>?.none, store: Range<Int>?.none
        )
        // Through a pointer: a closure capturing `self` would copy the event, retaining and
        // releasing each of its strings.
        withUnsafePointer(to: self) { event in
            record.writeText { text in
                func append(_ value: String) -> Range<Int> {
                    let start = text.count
                    text.append(contentsOf: value.utf8)
                    return start..<text.count
                }
                func appendOptional(_ value: String?) -> Range<Int>? {
                    guard let value, !value.isEmpty else { return nil }
                    return append(value)
                }
                ranges.eventID = appendOptional(event.pointee.eventID)
                ranges.userID = append(event.pointee.userID)
                ranges.eventName = append(event.pointee.event.logName)
                ranges.productID = appendOptional(event.pointee.productID)
                ranges.transactionID = appendOptional(event.pointee.transactionID)
                ranges.originalTransactionID = appendOptional(event.pointee.originalTransactionID)
                ranges.currency = appendOptional(currency)
                if keepsSliceFields {
                    ranges.country = appendOptional(event.pointee.country)
                    ranges.platform = appendOptional(event.pointee.platform)
                }
                ranges.store = appendOptional(event.pointee.store)
            }
        }
        record.eventID = ranges.eventID
        record.userID = ranges.userID
        record.eventName = ranges.eventName
        record.eventType = event
        record.timestamp = at
        record.productID = ranges.productID
        record.transactionID = ranges.transactionID
        record.originalTransactionID = ranges.originalTransactionID
        record.price = price
        record.currency = ranges.currency
        record.isSandbox = isSandbox
        record.country = ranges.country
        record.platform = ranges.platform
        record.expiresAt = expiresAt.flatMap { Self.textTimestamps.contains($0) ? $0 : nil }
        record.store = ranges.store
        record.taxShare = taxShare
        record.commissionShare = commissionShare
        return nil
    }

    /// The timestamps whose text (`Timestamp.format`) the grammar reads back: years 0 to 9999.
    static let textTimestamps: Range<Int64> =
        Timestamp.daysFromCivil(year: 0, month: 1, day: 1) * Microseconds.perDay..<Timestamp.daysFromCivil(
            year: 10_000, month: 1, day: 1) * Microseconds.perDay

    /// A fee share in billionths, as the parser reads the line's: `.some(nil)` when the line has
    /// none (absent or not finite), nil when it is no share (the record is an invalid field).
    private static func share(_ share: Double?) -> Int32?? {
        guard let share, share.isFinite else { return .some(nil) }
        // The line holds the description; read back as the parser reads any number.
        var text = share.description
        guard let share = text.withUTF8({ Price.parseShare(UnsafeRawBufferPointer($0)) }), share >= 0, share < LogRecord.wholeShare
        else { return nil }
        return .some(Int32(share))
    }
}
