import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLabStoreSources

/// RevenueCat's documented sample webhook bodies (`shared/realdata/revenuecat/webhooks`), each
/// read as a receiver stores it (one body per line) through the parser. Each is its own source:
/// the samples reuse one `event.id`, which within one source would make them retries of one webhook.
@Suite struct RevenueCatWebhookSampleTests {
    static let sampleNames: Set<String> = [
        "event-types-and-fields_1.json", "sample-event-experiment-enrollment.json", "sample-event-invoice-issuance.json",
        "sample-event-refund-reversed.json", "sample-event-temporary-entitlement-grant.json", "sample-events_1.json",
        "sample-events_2.json", "sample-events_3.json", "sample-events_4.json", "sample-events_5.json", "sample-events_6.json",
        "sample-events_7.json", "sample-events_8.json", "sample-events_9.json", "sample-events_10.json", "sample-events_11.json",
        "sample-events_12.json", "sample-events_13.json", "sample-events_14.json", "sample-events_15.json",
    ]
    static let ignoredSamples: Set<String> = [
        "sample-events_4.json", "sample-events_6.json", "sample-events_7.json", "sample-events_8.json", "sample-events_10.json",
        "sample-events_14.json", "sample-events_15.json", "sample-event-invoice-issuance.json",
        "sample-event-temporary-entitlement-grant.json", "sample-event-experiment-enrollment.json",
    ]

    static func folder() throws -> String {
        try #require(RealData.folder("revenuecat/webhooks"), "shared/realdata/revenuecat/webhooks not found (set OFFERLAB_REALDATA)")
    }

    func records(ofSample name: String, userIDField: RevenueCatUserIDField = .originalAppUserID) throws -> StoreSourceRecords {
        let text = try String(contentsOfFile: Self.folder() + "/" + name, encoding: .utf8)
        // A JSON string holds no raw line break: the pretty-printed body on one line is the same body.
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        let temporary = try TemporaryFolder()
        let file = try RevenueCatWebhookFile(path: temporary.write("webhooks.jsonl", line + "\n"), userIDField: userIDField)
        #expect(file.counts[.linesRead] == 1)
        #expect(file.counts.malformedLines == 0, "\(name): \(file.notes)")
        return RevenueCatWebhooks.records([file]).withoutSourcePath(expecting: file.path)
    }

    /// Milliseconds since the epoch → microseconds.
    static func ms(_ milliseconds: Int64) -> Int64 { milliseconds * 1000 }

    @Test func everySampleIsCovered() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder()).filter { $0.hasSuffix(".json") }
        #expect(Set(names) == Self.sampleNames)
    }

    @Test func initialPurchaseIsAFirstChargeInThePurchasedCurrency() throws {
        let records = try records(ofSample: "sample-events_1.json")
        #expect(
            records.transactions == [
                StoreTransaction(
                    format: .revenueCatWebhooks, transactionID: "123456789012345", originalTransactionID: "123456789012345",
                    productID: "com.subscription.weekly", kind: .firstCharge, at: Self.ms(1_658_726_374_000),
                    money: .init(priceMicros: 4_990_000, currency: "USD", taxShare: 0, commissionShare: 0.3),
                    buyer: StoreBuyer(userID: "$RCAnonymousID:87c6049c58069238dce29853916d624c", country: "US", store: "APP_STORE")
                ).with(expiresAt: Self.ms(1_659_331_174_000))
            ])
        #expect(
            records.refunds.isEmpty && records.statusChanges.isEmpty && records.refundReversals.isEmpty
                && records.counts[.ignoredStoreRecords] == 0)
    }

    @Test func renewalIsPricedInEurosNotByItsUSDPrice() throws {
        let transaction = try #require(try records(ofSample: "sample-events_2.json").transactions.first)
        #expect(transaction.kind == .laterCharge)
        #expect(transaction.money.priceMicros == 7_990_000 && transaction.money.currency == "EUR")
        #expect(transaction.at == Self.ms(1_658_755_132_000) && transaction.expiresAt == Self.ms(1_659_359_932_000))
        #expect(transaction.buyer.country == "DE")
    }

    @Test func nonRenewingPurchaseIsAFirstChargeInCanadianDollars() throws {
        let transaction = try #require(try records(ofSample: "sample-events_5.json").transactions.first)
        #expect(transaction.kind == .firstCharge && transaction.productID == "2100_tokens")
        #expect(transaction.money.priceMicros == 32_990_000 && transaction.money.currency == "CAD")
        #expect(transaction.at == Self.ms(1_658_726_519_000))
        #expect(transaction.expiresAt == nil, "expiration_at_ms is null")
        #expect(transaction.money.commissionShare == 0.15)
    }

    @Test func trialStartedIsATrialWithoutMoney() throws {
        let records = try records(ofSample: "sample-events_11.json")
        #expect(
            records.transactions == [
                StoreTransaction(
                    format: .revenueCatWebhooks, transactionID: "123456789012345", originalTransactionID: "123456789012345",
                    productID: "com.subscription.yearly", kind: .trial, at: Self.ms(1_658_726_358_573),
                    money: .init(taxShare: 0, commissionShare: 0.15),
                    buyer: StoreBuyer(userID: "$RCAnonymousID:87c6049c58069238dce29853916d624c", country: "PH", store: "PLAY_STORE")
                ).with(expiresAt: Self.ms(1_658_992_117_958))
            ])
    }

    @Test func eventFormatExampleTakesTheChosenUserID() throws {
        let original = try #require(try records(ofSample: "event-types-and-fields_1.json").transactions.first)
        #expect(original.buyer.userID == "OriginalAppUserID")
        #expect(original.transactionID == "170000869511114" && original.originalTransactionID == "1530648507000")
        #expect(original.money.priceMicros == 2_490_000 && original.kind == .firstCharge)
        let lastSeen = try #require(
            try records(ofSample: "event-types-and-fields_1.json", userIDField: .lastSeenAppUserID).transactions.first)
        #expect(lastSeen.buyer.userID == "yourCustomerAppUserID")
    }

    @Test func customerSupportCancellationIsARefundOfThePositiveAmount() throws {
        let records = try records(ofSample: "sample-events_9.json")
        #expect(
            records.refunds == [
                StoreRefund(
                    format: .revenueCatWebhooks, transactionID: "100000000000000", originalTransactionID: "100000000000000",
                    productID: "com.revenuecat.myapp.monthly", at: Self.ms(1_601_337_615_995), amountMicros: 9_990_000, currency: "USD",
                    buyer: StoreBuyer(userID: "$RCAnonymousID:12345678-1234-1234-1234-123456789123", store: "APP_STORE"))
            ])
        #expect(records.transactions.isEmpty && records.statusChanges.isEmpty)
    }

    @Test func refundReversedIsAReversalOfItsTransaction() throws {
        let records = try records(ofSample: "sample-event-refund-reversed.json")
        #expect(
            records.refundReversals == [
                StoreRefundReversal(
                    format: .revenueCatWebhooks, id: "12345678-1234-1234-1234-123456789012", transactionID: "123456789012345",
                    at: Self.ms(1_697_451_462_232))
            ])
        #expect(records.transactions.isEmpty && records.refunds.isEmpty)
    }

    @Test func unsubscribeCancellationsAreCancelsWithTheirWebhookID() throws {
        #expect(
            try records(ofSample: "sample-events_3.json").statusChanges == [
                StoreStatusChange(
                    format: .revenueCatWebhooks, id: "12345678-ABCD-1234-ABCD-12345678912", event: .cancel, at: Self.ms(1_601_337_615_995),
                    originalTransactionID: "100000000000000", transactionID: "100000000000002", productID: "com.revenuecat.myapp.weekly",
                    buyer: StoreBuyer(userID: "$RCAnonymousID:12345678-1234-ABCD-1234-123456789123", store: "APP_STORE"))
            ])
        let trialCancelled = try #require(try records(ofSample: "sample-events_12.json").statusChanges.first)
        #expect(trialCancelled.event == .cancel && trialCancelled.at == Self.ms(1_658_726_482_659) && trialCancelled.buyer.country == "CN")
    }

    @Test func expirationIsAnExpire() throws {
        let records = try records(ofSample: "sample-events_13.json")
        let change = try #require(records.statusChanges.first)
        #expect(records.statusChanges.count == 1)
        #expect(change.event == .expire && change.id == "12345678-1234-1234-1234-123456789012")
        #expect(change.at == Self.ms(1_697_451_462_232) && change.transactionID == "123456789012345")
        #expect(change.buyer.userID == "$RCAnonymousID:8069238d6049ce87cc529853916d624c")
    }

    @Test(arguments: ignoredSamples.sorted())
    func typesWithoutAPurchaseFactAreIgnoredAndCounted(_ name: String) throws {
        let records = try records(ofSample: name)
        #expect(records.counts[.ignoredStoreRecords] == 1)
        #expect(records.transactions.isEmpty && records.refunds.isEmpty && records.refundReversals.isEmpty && records.statusChanges.isEmpty)
    }
}
