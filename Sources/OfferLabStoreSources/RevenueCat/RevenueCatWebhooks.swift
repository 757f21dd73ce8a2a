import OfferLabIngest

/// One file of RevenueCat webhooks (`revenuecat_webhooks`,
/// docs/input-formats.md#the-webhooks-type-by-type): each non-blank line is one POST body
/// `{"api_version": …, "event": {…}}` (gzip or not, by its bytes; `\r\n`, several gzip members and
/// a last line without its newline as in the purchase logs: docs/input-formats.md#lines).
/// `RevenueCatWebhooks.records` merges the files of a source into its records.
///
/// By `event.type`:
/// - `INITIAL_PURCHASE`: a trial when `period_type` is `TRIAL`, else a first charge;
///   `NON_RENEWING_PURCHASE`: a first charge; `RENEWAL`: a first charge when
///   `is_trial_conversion` is true, else a later one. Charged at `purchased_at_ms`,
///   `price_in_purchased_currency` in `currency` (never `price`, which is USD).
/// - `CANCELLATION` with `cancel_reason` `CUSTOMER_SUPPORT`: a refund of `transaction_id` at
///   `event_timestamp_ms` of |`price_in_purchased_currency`| (absent: the whole price); any other
///   `CANCELLATION`: a cancel; `EXPIRATION`: an expire, both at `event_timestamp_ms`.
/// - `REFUND_REVERSED`: a reversal of the refund of `transaction_id`, at `event_timestamp_ms`.
/// - Any other type (`TEST`, `BILLING_ISSUE`, `TRANSFER`, …): ignored, counted.
///
/// A line becomes no record, counted with its line, for the first reason that applies:
/// 1. `malformed_line_too_long`; `malformed_invalid_json`: not JSON, or not an object;
/// 2. `malformed_missing_field`: `event`, `event.id` or `event.type` absent; on a type that
///    makes a record, `transaction_id`, `product_id` (charges), `purchased_at_ms` (charges) or
///    `event_timestamp_ms` (the others) absent;
/// 3. `malformed_invalid_field`: `event` not an object; an id or text field (`period_type` and
///    `cancel_reason` included; not `country_code` or `store`) neither a string nor an integer; a price, `tax_percentage` or
///    `commission_percentage` not a number; a flag (`is_family_share`, `is_trial_conversion`)
///    not `true`/`false`;
/// 4. `malformed_bad_timestamp`: a `*_ms` field not a JSON integer;
/// 5. `malformed_missing_field`: a charge with a price but no `currency`;
/// 6. `malformed_negative_price`: a charge with a negative price.
///
/// `null` is absent. A charge without a price is an unpriced charge; a record without the user
/// id is unattributed; an `expiration_at_ms` that is not an integer is read as absent
/// (docs/analysis.md §9); a `country_code` or `store` neither a string nor an integer is absent,
/// as the purchase logs' `country` and `store` are (docs/input-formats.md#json-lines). None of
/// these is malformed.
public struct RevenueCatWebhookFile: Sendable {
    public let path: String
    /// `lines_read` (the non-blank lines) and the malformed lines by reason.
    public private(set) var counts = StoreCounts()
    /// The rejected lines.
    public private(set) var notes: [StoreLineNote] = []
    /// The usable webhooks, in file order.
    var deliveries: [RevenueCatWebhook] = []

    /// Reads the file whole.
    ///
    /// - Throws: `IngestError`: the file cannot be read or decompressed.
    public init(path: String, userIDField: RevenueCatUserIDField = .originalAppUserID, inflater: Inflater = .fastestAvailable) throws {
        let input = try InputFileReader(path: path, inflater: inflater)
        var splitter = LineSplitter()
        var counts = StoreCounts()
        var notes: [StoreLineNote] = []
        var deliveries: [RevenueCatWebhook] = []
        func read(_ line: Line) {
            counts[.linesRead] += 1
            do throws(StoreLineRejection) {
                if line.isTooLong { throw StoreLineRejection(.lineTooLong, "longer than the line length limit") }
                deliveries.append(try RevenueCatWebhook(body: line.bytes, userIDField: userIDField))
            } catch {
                counts[error.counter] += 1
                notes.append(StoreLineNote(path: path, line: line.number, counter: error.counter, detail: error.detail))
            }
        }
        try input.forEachChunk { chunk in splitter.feed(chunk, read) }
        splitter.finish(read)
        self.path = path
        self.counts = counts
        self.notes = notes
        self.deliveries = deliveries
    }
}

/// The records of a `revenuecat_webhooks` source.
public enum RevenueCatWebhooks {
    /// The records of all the files, given in file order (sorted paths). A webhook RevenueCat
    /// retried (the same `event.id`) is one: the first in file order. Two webhooks charging or
    /// refunding the same `transaction_id` are one record: the first in file order. Records:
    /// one transaction per charged `transaction_id`, one refund per `CUSTOMER_SUPPORT`-cancelled
    /// one, one reversal per `REFUND_REVERSED` webhook, one status change per cancel or expire;
    /// the other types count in `ignored_store_records`. The files' counters and notes come along.
    public static func records(_ files: [RevenueCatWebhookFile]) -> StoreSourceRecords {
        var records = StoreSourceRecords(format: .revenueCatWebhooks)
        var seenEvents: Set<String> = []
        var chargedTransactions: Set<String> = []
        var refundedTransactions: Set<String> = []
        for file in files {
            records.counts += file.counts
            records.notes += file.notes
            for delivery in file.deliveries where seenEvents.insert(delivery.eventID).inserted {
                switch delivery.record {
                case .charge(var transaction):
                    transaction.sourcePath = file.path
                    if chargedTransactions.insert(transaction.transactionID).inserted { records.transactions.append(transaction) }
                case .refund(var refund):
                    refund.sourcePath = file.path
                    if refundedTransactions.insert(refund.transactionID).inserted { records.refunds.append(refund) }
                case .reversal(let reversal):
                    records.refundReversals.append(reversal)
                case .statusChange(var change):
                    change.sourcePath = file.path
                    records.statusChanges.append(change)
                case .ignored:
                    records.counts[.ignoredStoreRecords] += 1
                }
            }
        }
        return records
    }
}

/// One usable webhook body.
struct RevenueCatWebhook: Sendable {
    enum Record: Sendable {
        case charge(StoreTransaction)
        case refund(StoreRefund)
        case reversal(StoreRefundReversal)
        case statusChange(StoreStatusChange)
        case ignored
    }

    /// `event.id`: the same for every retry of the webhook.
    var eventID: String
    var record: Record

    /// The body's record, or the first reason it has none (see `RevenueCatWebhookFile`).
    init(body: UnsafeRawBufferPointer, userIDField: RevenueCatUserIDField) throws(StoreLineRejection) {
        guard let event = JSONValue.select(Self.fieldKeys, ofMember: "event", inObject: body) else {
            throw StoreLineRejection(.invalidJSON, "not a JSON object")
        }
        let fields: [JSONValue?]
        switch event {
        case .absent, .value(.null): throw StoreLineRejection(.missingField, "no event")
        case .value: throw StoreLineRejection(.invalidField, "event is not an object")
        case .object(let values): fields = values
        }
        func field(_ key: Field) -> JSONValue? { Self.present(fields[key.index]) }

        // 2. What every record needs.
        guard let idValue = field(.id) else { throw StoreLineRejection(.missingField, "no event.id") }
        guard let typeValue = field(.type) else { throw StoreLineRejection(.missingField, "no event.type") }
        guard let id = Self.text(idValue) else { throw StoreLineRejection(.invalidField, "event.id is not a string or integer") }
        guard let type = typeValue.string else { throw StoreLineRejection(.invalidField, "event.type is not a string") }
        enum Shape {
            case charge, cancellation, expiration, reversal
        }
        let shape: Shape
        switch type {
        case "INITIAL_PURCHASE", "NON_RENEWING_PURCHASE", "RENEWAL": shape = .charge
        case "CANCELLATION": shape = .cancellation
        case "EXPIRATION": shape = .expiration
        case "REFUND_REVERSED": shape = .reversal
        default:
            eventID = id
            record = .ignored
            return
        }
        var requiredKeys: [Field] = [.transactionID]
        if shape == .charge {
            requiredKeys += [.productID, .purchasedAt]
        } else {
            requiredKeys.append(.eventTimestamp)
        }
        for key in requiredKeys where field(key) == nil { throw StoreLineRejection(.missingField, "no \(key.rawValue)") }

        // 3. Values that are not what their key holds.
        func text(_ key: Field) throws(StoreLineRejection) -> String? {
            guard let value = field(key) else { return nil }
            guard let text = Self.text(value) else { throw StoreLineRejection(.invalidField, "\(key.rawValue) is not a string or integer") }
            return text.isEmpty ? nil : text
        }
        // Fields that only describe a record, as the purchase logs' `country` and `store`
        // (docs/input-formats.md#json-lines): another JSON type is absent and the line stays valid.
        func descriptive(_ key: Field) -> String? {
            field(key).flatMap(Self.text).flatMap { $0.isEmpty ? nil : $0 }
        }
        func flag(_ key: Field) throws(StoreLineRejection) -> Bool {
            guard let value = field(key) else { return false }
            guard let flag = value.bool else { throw StoreLineRejection(.invalidField, "\(key.rawValue) is not true or false") }
            return flag
        }
        func number(_ key: Field) throws(StoreLineRejection) -> String? {
            guard let value = field(key) else { return nil }
            guard let number = value.numberText else { throw StoreLineRejection(.invalidField, "\(key.rawValue) is not a number") }
            return number
        }
        let transactionID = try text(.transactionID)
        let originalTransactionID = try text(.originalTransactionID)
        let productID = try text(.productID)
        let userID = try text(userIDField == .originalAppUserID ? .originalAppUserID : .appUserID)
        let currency = try text(.currency)
        let environment = try text(.environment)
        let country = descriptive(.countryCode)
        let store = descriptive(.store)
        let familyShared = try flag(.isFamilyShare)
        let periodType = try text(.periodType)
        let trialConversion = try flag(.isTrialConversion)
        let cancelReason = try text(.cancelReason)
        let priceText = try number(.priceInPurchasedCurrency)
        let price: Int64?
        if let priceText {
            guard let micros = Price.parseMicros(priceText) else {
                throw StoreLineRejection(.invalidField, "price_in_purchased_currency is not a price")
            }
            price = micros
        } else {
            price = nil
        }
        let taxShare = try number(.taxPercentage).map { text throws(StoreLineRejection) in try Self.share(text, "tax_percentage") }
        let commissionShare = try number(.commissionPercentage).map { text throws(StoreLineRejection) in
            try Self.share(text, "commission_percentage")
        }
        let isSandbox = environment?.uppercased() == "SANDBOX"
        let buyer = StoreBuyer(userID: userID, isSandbox: isSandbox, isFamilyShared: familyShared, country: country, store: store)
        guard let transactionID else { throw StoreLineRejection(.missingField, "transaction_id is empty") }

        // 4. Times.
        func time(_ key: Field) throws(StoreLineRejection) -> Int64 {
            guard let micros = field(key)?.numberText.flatMap(Self.epochMilliseconds) else {
                throw StoreLineRejection(.badTimestamp, "\(key.rawValue) is not epoch milliseconds as a JSON integer")
            }
            return micros
        }
        eventID = id
        switch shape {
        case .charge:
            let kind: StoreTransaction.Kind =
                switch type {
                case "INITIAL_PURCHASE": periodType == "TRIAL" ? .trial : .firstCharge
                case "RENEWAL": trialConversion ? .firstCharge : .laterCharge
                default: .firstCharge  // NON_RENEWING_PURCHASE
                }
            let at = try time(.purchasedAt)
            // 5. and 6. The money.
            if kind != .trial, price != nil, currency == nil { throw StoreLineRejection(.missingField, "a price without currency") }
            if kind != .trial, let price, price < 0 { throw StoreLineRejection(.negativePrice, "a negative price") }
            let expiresAt = field(.expirationAt)?.numberText.flatMap(Self.epochMilliseconds)
            var transaction = StoreTransaction(
                format: .revenueCatWebhooks, transactionID: transactionID, originalTransactionID: originalTransactionID,
                productID: productID, kind: kind, at: at,
                money: .init(
                    priceMicros: kind == .trial ? nil : price, currency: kind == .trial ? nil : currency, taxShare: taxShare,
                    commissionShare: commissionShare),
                buyer: buyer)
            transaction.expiresAt = expiresAt
            record = .charge(transaction)
        case .cancellation where cancelReason == "CUSTOMER_SUPPORT":
            // RevenueCat sends the refunded amount as a negative price.
            record = .refund(
                StoreRefund(
                    format: .revenueCatWebhooks, transactionID: transactionID, originalTransactionID: originalTransactionID,
                    productID: productID, at: try time(.eventTimestamp), amountMicros: price.map { abs($0) },
                    currency: price == nil ? nil : currency, buyer: buyer))
        case .reversal:
            record = .reversal(
                StoreRefundReversal(format: .revenueCatWebhooks, id: id, transactionID: transactionID, at: try time(.eventTimestamp)))
        case .cancellation, .expiration:
            record = .statusChange(
                StoreStatusChange(
                    format: .revenueCatWebhooks, id: id, event: shape == .expiration ? .expire : .cancel,
                    at: try time(.eventTimestamp),
                    originalTransactionID: originalTransactionID, transactionID: transactionID, productID: productID,
                    buyer: StoreBuyer(userID: userID, isSandbox: isSandbox, country: country, store: store)))
        }
    }

    /// The keys of `event` read (`field`): only their values are made, the rest of the body is
    /// validated.
    private enum Field: String, CaseIterable {
        case id, type
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case purchasedAt = "purchased_at_ms"
        case eventTimestamp = "event_timestamp_ms"
        case expirationAt = "expiration_at_ms"
        case originalAppUserID = "original_app_user_id"
        case appUserID = "app_user_id"
        case currency, environment
        case countryCode = "country_code"
        case store
        case isFamilyShare = "is_family_share"
        case periodType = "period_type"
        case isTrialConversion = "is_trial_conversion"
        case cancelReason = "cancel_reason"
        case priceInPurchasedCurrency = "price_in_purchased_currency"
        case taxPercentage = "tax_percentage"
        case commissionPercentage = "commission_percentage"

        /// Its place among the values `JSONValue.select` gives.
        var index: Int { Self.allCases.firstIndex(of: self)! }
    }

    private static let fieldKeys = JSONValue.SelectionKeys(Field.allCases.map(\.rawValue))

    /// The value unless it is absent or `null`.
    private static func present(_ value: JSONValue?) -> JSONValue? {
        guard let value, value != .null else { return nil }
        return value
    }

    /// A string, or an integer as its decimal text (ids written as JSON integers, as in the
    /// purchase logs: docs/input-formats.md#json-lines).
    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .number(let text) where !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }): return text
        default: return nil
        }
    }

    /// A share such as `0.3`; not a finite number: invalid.
    private static func share(_ text: String, _ key: String) throws(StoreLineRejection) -> Double {
        guard let value = Double(text), value.isFinite else { throw StoreLineRejection(.invalidField, "\(key) is not finite") }
        return value
    }

    /// Epoch milliseconds written as a JSON integer → microseconds; nil for anything else.
    private static func epochMilliseconds(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { Timestamp.parseEpochMilliseconds(UnsafeRawBufferPointer($0)) }
    }
}
