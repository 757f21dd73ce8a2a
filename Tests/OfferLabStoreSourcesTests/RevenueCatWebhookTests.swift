import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLabStoreSources

/// The project's own webhook bodies: every quirk of `revenuecat_webhooks`
/// (docs/input-formats.md#the-webhooks-type-by-type).
@Suite struct RevenueCatWebhookTests {
    /// A POST body whose event has `fields` (raw JSON values), in order, on top of a purchase's.
    static func body(_ fields: [(String, String)], base: [(String, String)] = purchase) -> String {
        var members = base.filter { key, _ in !fields.contains { $0.0 == key } }
        members += fields
        let event = members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",")
        return #"{"api_version":"1.0","event":{"# + event + "}}"
    }

    static let purchase: [(String, String)] = [
        ("id", #""evt-1""#), ("type", #""INITIAL_PURCHASE""#), ("period_type", #""NORMAL""#), ("transaction_id", #""tx-1""#),
        ("original_transaction_id", #""tx-1""#), ("product_id", #""monthly""#), ("purchased_at_ms", "1700000000000"),
        ("event_timestamp_ms", "1700000005000"), ("expiration_at_ms", "1702592000000"), ("price", "10.81"),
        ("price_in_purchased_currency", "9.99"), ("currency", #""EUR""#), ("environment", #""PRODUCTION""#),
        ("is_family_share", "false"), ("country_code", #""FR""#), ("store", #""APP_STORE""#),
        ("original_app_user_id", #""user-original""#), ("app_user_id", #""user-last""#), ("tax_percentage", "0.1667"),
        ("commission_percentage", "0.15"),
    ]

    static let second: Int64 = 1_000_000

    func read(_ lines: [String], userIDField: RevenueCatUserIDField = .originalAppUserID) throws -> (
        RevenueCatWebhookFile, StoreSourceRecords
    ) {
        let folder = try TemporaryFolder()
        let file = try RevenueCatWebhookFile(
            path: folder.write("hooks.jsonl", lines.joined(separator: "\n") + "\n"), userIDField: userIDField)
        return (file, RevenueCatWebhooks.records([file]).withoutSourcePath(expecting: file.path))
    }

    @Test func purchaseKeepsEveryField() throws {
        let (file, records) = try read([Self.body([])])
        #expect(file.counts[.linesRead] == 1 && file.counts.malformedLines == 0)
        #expect(
            records.transactions == [
                StoreTransaction(
                    format: .revenueCatWebhooks, transactionID: "tx-1", originalTransactionID: "tx-1", productID: "monthly",
                    kind: .firstCharge, at: 1_700_000_000 * Self.second,
                    money: .init(priceMicros: 9_990_000, currency: "EUR", taxShare: 0.1667, commissionShare: 0.15),
                    buyer: StoreBuyer(userID: "user-original", country: "FR", store: "APP_STORE")
                ).with(expiresAt: 1_702_592_000 * Self.second)
            ])
    }

    @Test func theUserIDFieldChoosesAppUserID() throws {
        let (_, records) = try read([Self.body([])], userIDField: .lastSeenAppUserID)
        #expect(records.transactions.first?.buyer.userID == "user-last")
        #expect(RevenueCatUserIDField(jobValue: "app_user_id") == .lastSeenAppUserID)
        #expect(RevenueCatUserIDField(jobValue: "last_seen_alias") == .lastSeenAppUserID)
        #expect(RevenueCatUserIDField(jobValue: "original_app_user_id") == .originalAppUserID)
        #expect(RevenueCatUserIDField(jobValue: "user_id") == nil)
    }

    @Test func chargeKinds() throws {
        let (_, records) = try read([
            Self.body([
                ("id", #""a""#), ("transaction_id", #""trial""#), ("period_type", #""TRIAL""#), ("price_in_purchased_currency", "0"),
            ]),
            Self.body([("id", #""b""#), ("transaction_id", #""conversion""#), ("type", #""RENEWAL""#), ("is_trial_conversion", "true")]),
            Self.body([("id", #""c""#), ("transaction_id", #""renewal""#), ("type", #""RENEWAL""#), ("is_trial_conversion", "false")]),
            Self.body([("id", #""d""#), ("transaction_id", #""renewal2""#), ("type", #""RENEWAL""#)]),
            Self.body([("id", #""e""#), ("transaction_id", #""pass""#), ("type", #""NON_RENEWING_PURCHASE""#)]),
            Self.body([("id", #""f""#), ("transaction_id", #""intro""#), ("period_type", #""INTRO""#)]),
        ])
        #expect(records.transactions.map(\.kind) == [.trial, .firstCharge, .laterCharge, .laterCharge, .firstCharge, .firstCharge])
        #expect(records.transactions[0].money.priceMicros == nil && records.transactions[0].money.currency == nil)
        #expect(records.transactions[1].money.priceMicros == 9_990_000, "price_in_purchased_currency, not price (USD)")
    }

    @Test func sandboxFamilyAndIntegerIDs() throws {
        let (_, records) = try read([
            Self.body([
                ("environment", #""SANDBOX""#), ("is_family_share", "true"), ("transaction_id", "4200000123"),
                ("original_app_user_id", "77"),
            ])
        ])
        let transaction = try #require(records.transactions.first)
        #expect(transaction.buyer.isSandbox && transaction.buyer.isFamilyShared)
        #expect(transaction.transactionID == "4200000123" && transaction.buyer.userID == "77")
    }

    @Test func aRetriedWebhookIsOneRecordAcrossFiles() throws {
        let folder = try TemporaryFolder()
        let cancel = Self.body([("id", #""evt-cancel""#), ("type", #""CANCELLATION""#), ("cancel_reason", #""UNSUBSCRIBE""#)])
        let ignored = Self.body([("id", #""evt-test""#), ("type", #""TEST""#)])
        let first = try RevenueCatWebhookFile(
            path: folder.write("a.jsonl", [Self.body([]), cancel, ignored, cancel].joined(separator: "\n")))
        let second = try RevenueCatWebhookFile(path: folder.write("b.jsonl", [Self.body([]), ignored, cancel].joined(separator: "\n")))
        let records = RevenueCatWebhooks.records([first, second])
        #expect(records.transactions.count == 1)
        #expect(records.statusChanges.map(\.id) == ["evt-cancel"])
        #expect(records.statusChanges.first?.at == 1_700_000_005 * Self.second, "at event_timestamp_ms")
        #expect(records.counts[.ignoredStoreRecords] == 1)
        #expect(records.transactions.map(\.sourcePath) == [first.path] && records.statusChanges.map(\.sourcePath) == [first.path])
        // Another webhook (its own id) charging the same transaction is still the one record.
        let again = try RevenueCatWebhookFile(
            path: folder.write("c.jsonl", Self.body([("id", #""evt-2""#), ("purchased_at_ms", "1700000001000")])))
        #expect(RevenueCatWebhooks.records([first, again]).transactions.map(\.at) == [1_700_000_000 * Self.second])
    }

    @Test func refundsReversalsAndExpirations() throws {
        let (_, records) = try read([
            Self.body([
                ("id", #""r1""#), ("type", #""CANCELLATION""#), ("cancel_reason", #""CUSTOMER_SUPPORT""#), ("price", "-10.81"),
                ("price_in_purchased_currency", "-9.99"),
            ]),
            Self.body([
                ("id", #""r2""#), ("transaction_id", #""tx-2""#), ("type", #""CANCELLATION""#), ("cancel_reason", #""CUSTOMER_SUPPORT""#),
                ("price_in_purchased_currency", "null"),
            ]),
            Self.body([("id", #""rr""#), ("type", #""REFUND_REVERSED""#), ("event_timestamp_ms", "1700000009000")]),
            Self.body([("id", #""x""#), ("type", #""EXPIRATION""#), ("environment", #""SANDBOX""#)]),
        ])
        #expect(records.refunds.map(\.amountMicros) == [9_990_000, nil])
        #expect(records.refunds.map(\.currency) == ["EUR", nil])
        #expect(records.refunds.first?.at == 1_700_000_005 * Self.second)
        #expect(
            records.refundReversals == [
                StoreRefundReversal(format: .revenueCatWebhooks, id: "rr", transactionID: "tx-1", at: 1_700_000_009 * Self.second)
            ])
        #expect(records.statusChanges.map(\.event) == [.expire])
        #expect(records.statusChanges.first?.buyer.isSandbox == true)
        #expect(records.transactions.isEmpty)
    }

    @Test func aChargeWithoutPriceIsUnpriced() throws {
        let (file, records) = try read([
            Self.body([("id", #""a""#), ("transaction_id", #""t1""#), ("price_in_purchased_currency", "null")]),
            Self.body([("id", #""b""#), ("transaction_id", #""t2""#), ("expiration_at_ms", #""soon""#)]),
        ])
        #expect(file.counts.malformedLines == 0)
        #expect(records.transactions.map(\.money.priceMicros) == [nil, 9_990_000])
        #expect(records.transactions[1].expiresAt == nil, "an unreadable expiration is absent (§2.13)")
    }

    @Test func aCountryOrStoreOfAnotherTypeIsAbsentAndTheLineKept() throws {
        let (file, records) = try read([
            Self.body([("id", #""a""#), ("transaction_id", #""t1""#), ("country_code", "250"), ("store", "7")]),
            Self.body([("id", #""b""#), ("transaction_id", #""t2""#), ("country_code", "1.5"), ("store", "{}")]),
            Self.body([("id", #""c""#), ("transaction_id", #""t3""#), ("country_code", "true"), ("store", #"["APP_STORE"]"#)]),
            Self.body([
                ("id", #""d""#), ("type", #""CANCELLATION""#), ("cancel_reason", #""CUSTOMER_SUPPORT""#), ("country_code", "{}"),
                ("store", "false"),
            ]),
            Self.body([("id", #""e""#), ("type", #""EXPIRATION""#), ("country_code", "[]"), ("store", "2.5")]),
        ])
        #expect(file.counts[.linesRead] == 5 && file.counts.malformedLines == 0, "as §1.2's country and store")
        #expect(records.transactions.map(\.buyer.country) == ["250", nil, nil], "an integer is read as its digits, as in §1.2")
        #expect(records.transactions.map(\.buyer.store) == ["7", nil, nil])
        #expect(records.refunds.map(\.buyer.country) == [nil] && records.refunds.map(\.buyer.store) == [nil])
        #expect(records.statusChanges.map(\.buyer.country) == [nil] && records.statusChanges.map(\.buyer.store) == [nil])
    }

    @Test func gzipMembersCRLFAndBlankLines() throws {
        let folder = try TemporaryFolder()
        let one = Self.body([("id", #""a""#), ("transaction_id", #""t1""#)])
        let two = Self.body([("id", #""b""#), ("transaction_id", #""t2""#)])
        let text = one + "\r\n\r\n  \r\n" + two
        let cut = text.index(text.startIndex, offsetBy: one.count / 2)
        let path = try folder.writeGzip("hooks.jsonl.gz", members: [String(text[..<cut]), String(text[cut...])])
        let file = try RevenueCatWebhookFile(path: path)
        #expect(file.counts[.linesRead] == 2 && file.counts.malformedLines == 0)
        #expect(RevenueCatWebhooks.records([file]).transactions.map(\.transactionID) == ["t1", "t2"])
    }

    @Test func malformedLinesAreCountedWithTheirLine() throws {
        let lines = [
            #"{"api_version":"1.0","event":{"id":"x""#,  // 1 invalid JSON
            "[1,2]",  // 2 not an object
            #"{"api_version":"1.0"}"#,  // 3 no event
            Self.body([("id", "null")]),  // 4 no id
            Self.body([("transaction_id", "null")]),  // 5 charge without transaction
            Self.body([("is_family_share", #""yes""#)]),  // 6 flag not a boolean
            Self.body([("price_in_purchased_currency", #""9.99 EUR""#)]),  // 7 price not a number
            Self.body([("purchased_at_ms", #""1700000000000""#)]),  // 8 time not an integer
            Self.body([("purchased_at_ms", "1.7e12")]),  // 9 time not an integer
            Self.body([("currency", "null")]),  // 10 price without currency
            Self.body([("price_in_purchased_currency", "-1")]),  // 11 negative charge
            #"{"api_version":"1.0","event":"INITIAL_PURCHASE"}"#,  // 12 event not an object
            Self.body([("id", #""ok""#), ("transaction_id", #""fine""#)]),  // 13 valid
            Self.body([("type", #""CANCELLATION""#), ("event_timestamp_ms", "null")]),  // 14 cancel without time
            Self.body([("type", #""RENEWAL""#), ("is_trial_conversion", #""true""#)]),  // 15 flag not a boolean
            Self.body([("type", #""CANCELLATION""#), ("cancel_reason", "{}")]),  // 16 reason not text
        ]
        let (file, records) = try read(lines)
        let expected: [MalformedReason] = [
            .invalidJSON, .invalidJSON, .missingField, .missingField, .missingField, .invalidField, .invalidField, .badTimestamp,
            .badTimestamp, .missingField, .negativePrice, .invalidField, .missingField, .invalidField, .invalidField,
        ]
        #expect(file.notes.map(\.counter) == expected.map(StoreCounter.init))
        #expect(file.notes.map(\.line) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16])
        #expect(file.notes.allSatisfy { $0.path == file.path && !$0.detail.isEmpty })
        #expect(file.counts[.malformedMissingField] == 5 && file.counts.malformedLines == 15)
        #expect(file.counts[.linesRead] == 16)
        #expect(file.notes[3].detail == "no event.id")
        #expect(records.transactions.map(\.transactionID) == ["fine"])
    }

    @Test func aLineOverTheLimitIsCountedNotParsed() throws {
        let folder = try TemporaryFolder()
        let long = Self.body([("product_id", "\"" + String(repeating: "p", count: LineSplitter.defaultMaxLineLength) + "\"")])
        let file = try RevenueCatWebhookFile(path: folder.write("hooks.jsonl", long + "\n" + Self.body([])))
        #expect(file.notes.map(\.line) == [1] && file.notes.map(\.counter) == [.malformedLineTooLong])
        #expect(RevenueCatWebhooks.records([file]).transactions.count == 1)
    }
}
