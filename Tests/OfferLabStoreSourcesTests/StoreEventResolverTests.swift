import OfferLabIngest
import Testing

@testable import OfferLabStoreSources

/// The rules that need every store source at once
/// (docs/input-formats.md#store-sources-from-records-to-events), on hand-made records.
@Suite struct StoreEventResolverTests {
    static let day: Int64 = 86_400_000_000
    static let asOf: Int64 = 100 * day

    func charge(
        _ id: String, chain: String? = "C", kind: StoreTransaction.Kind = .chargeByChainOrder, at: Int64, price: Int64? = 4_990_000,
        user: String? = "u1", format: SourceFormat = .appStoreNotifications, sandbox: Bool = false, familyShared: Bool = false,
        refund: StoreTransaction.Refund? = nil
    ) -> StoreTransaction {
        StoreTransaction(
            format: format, transactionID: id, originalTransactionID: chain, productID: "pro", kind: kind, at: at,
            money: .init(priceMicros: kind == .trial ? nil : price, currency: kind == .trial ? nil : "EUR"),
            buyer: StoreBuyer(
                userID: user, isSandbox: sandbox, isFamilyShared: familyShared, country: "DE", platform: "ios", store: "app_store")
        ).with(refund: refund)
    }

    func resolve(
        _ transactions: [StoreTransaction], changes: [StoreStatusChange] = [], reversals: [StoreRefundReversal] = [],
        users: [String: String] = [:]
    ) -> StoreEventResolution {
        StoreEventResolver.resolve(
            transactions: transactions, statusChanges: changes, refundReversals: reversals, userTransactions: users, asOf: Self.asOf)
    }

    func kinds(_ resolution: StoreEventResolution) -> [String: EventType] {
        Dictionary(uniqueKeysWithValues: resolution.events.map { ($0.eventID, $0.event) })
    }

    @Test func theEarliestPaidChargeOfAChainIsThePurchaseWhateverItsOrder() {
        // A free trial, then its first charge (announced by Apple as DID_RENEW), then renewals;
        // delivered out of order.
        let resolution = resolve([
            charge("3", at: 3 * Self.day), charge("1", kind: .trial, at: 1 * Self.day), charge("2", at: 2 * Self.day),
            charge("9", chain: "D", at: 5 * Self.day),
            charge("10", chain: nil, at: 6 * Self.day),
        ])
        #expect(
            kinds(resolution) == [
                "app_store_notifications:1": .trialStart, "app_store_notifications:2": .purchase,
                "app_store_notifications:3": .renewal, "app_store_notifications:9": .purchase, "app_store_notifications:10": .purchase,
            ])
    }

    @Test func theFirstChargeOfAChainIsFoundAmongAllRecordsOfAllSources() {
        // The chain's first charge is family-shared, unattributed, or reported by another
        // source: the App Store record is still a renewal.
        for first in [
            charge("1", at: 1 * Self.day, familyShared: true), charge("1", at: 1 * Self.day, user: nil),
            charge("1", kind: .firstCharge, at: 1 * Self.day, format: .revenueCatExport),
        ] {
            let resolution = resolve([charge("2", at: 2 * Self.day), first])
            #expect(kinds(resolution)["app_store_notifications:2"] == .renewal)
        }
    }

    @Test func sourcesThatSayTheKindAreTakenAtTheirWord() {
        let resolution = resolve([
            charge("1", kind: .laterCharge, at: 1 * Self.day, format: .revenueCatExport),
            charge("2", kind: .firstCharge, at: 2 * Self.day, format: .revenueCatWebhooks),
        ])
        #expect(kinds(resolution) == ["revenuecat_export:1": .renewal, "revenuecat_webhooks:2": .purchase])
    }

    @Test func usersComeFromTheServerTableThenTheRecordElseTheRecordIsCounted() {
        let resolution = resolve(
            [
                charge("1", chain: "A", at: 1, user: "token-a"), charge("2", chain: "B", at: 1, user: "token-b"),
                charge("3", chain: "E", at: 1, user: nil), charge("4", chain: "F", at: 1, user: nil, format: .revenueCatWebhooks),
            ],
            changes: [
                StoreStatusChange(
                    format: .appStoreNotifications, id: "n1", event: .cancel, at: 5, originalTransactionID: "A", transactionID: "1",
                    productID: "pro", buyer: StoreBuyer(userID: nil)),
                StoreStatusChange(
                    format: .appStoreNotifications, id: "n2", event: .expire, at: 6, originalTransactionID: "Z", transactionID: nil,
                    productID: nil, buyer: StoreBuyer(userID: nil)),
                // No original transaction id: the transaction is its own chain.
                StoreStatusChange(
                    format: .appStoreNotifications, id: "n3", event: .expire, at: 7, originalTransactionID: nil, transactionID: "E",
                    productID: nil, buyer: StoreBuyer(userID: nil)),
            ],
            users: ["A": "server-user", "E": "server-e"])
        let users = Dictionary(uniqueKeysWithValues: resolution.events.map { ($0.eventID, $0.userID) })
        #expect(
            users == [
                "app_store_notifications:1": "server-user", "app_store_notifications:2": "token-b", "app_store_notifications:3": "server-e",
                "app_store_notifications:n1": "server-user", "app_store_notifications:n3": "server-e",
            ])
        #expect(resolution.counts[.appStoreNotifications]?[.unattributedStoreRecords] == 1)
        #expect(resolution.counts[.revenueCatWebhooks]?[.unattributedStoreRecords] == 1)
    }

    @Test func familySharedRecordsBecomeNoEventAndAreCounted() {
        let resolution = resolve([charge("1", at: 1, familyShared: true), charge("2", chain: "D", at: 1)])
        #expect(resolution.events.map(\.eventID) == ["app_store_notifications:2"])
        #expect(resolution.counts[.appStoreNotifications]?[.familySharedRecords] == 1)
    }

    @Test func refundsWholeAndProratedAndTheirReversal() {
        let resolution = resolve(
            [
                charge("1", at: 1 * Self.day, refund: .init(at: 4 * Self.day, amountMicros: nil)),
                charge("2", at: 2 * Self.day, refund: .init(at: 5 * Self.day, amountMicros: 2_495_000)),
                charge("3", at: 3 * Self.day, refund: .init(at: 6 * Self.day, amountMicros: nil)),
                charge("4", at: 3 * Self.day, format: .revenueCatExport, refund: .init(at: 6 * Self.day, amountMicros: nil)),
                charge("5", at: 3 * Self.day, refund: .init(at: 8 * Self.day, amountMicros: nil)),
                charge("6", at: 3 * Self.day, refund: .init(at: 8 * Self.day, amountMicros: nil)),
            ],
            reversals: [
                // Reverses 3 (before as_of), and 4 although another source reported its refund.
                .init(format: .appStoreNotifications, id: "r3", transactionID: "3", at: 7 * Self.day),
                .init(format: .appStoreNotifications, id: "r4", transactionID: "4", at: 7 * Self.day),
                // Said before 5 was refunded (again): the later refund counts.
                .init(format: .appStoreNotifications, id: "r5", transactionID: "5", at: 7 * Self.day),
                // Said at as_of: not yet.
                .init(format: .appStoreNotifications, id: "r6", transactionID: "6", at: Self.asOf),
            ])
        let refunds = resolution.events.filter { $0.event == .refund }
        #expect(
            refunds.map(\.eventID) == [
                "app_store_notifications:1:refund", "app_store_notifications:2:refund", "app_store_notifications:5:refund",
                "app_store_notifications:6:refund",
            ])
        #expect(refunds[0].at == 4 * Self.day && refunds[0].priceMicros == nil && refunds[0].currency == nil)
        #expect(refunds[0].transactionID == "1")
        #expect(refunds[1].priceMicros == 2_495_000 && refunds[1].currency == "EUR")
    }

    func webhookRefund(
        of transactionID: String, chain: String? = nil, at: Int64, amount: Int64?, currency: String? = nil, user: String? = nil,
        familyShared: Bool = false
    ) -> StoreRefund {
        StoreRefund(
            format: .revenueCatWebhooks, transactionID: transactionID, originalTransactionID: chain, productID: nil, at: at,
            amountMicros: amount, currency: currency, buyer: StoreBuyer(userID: user, isFamilyShared: familyShared))
    }

    @Test func aRefundReportedApartRefundsAChargeOfAnySource() {
        var appStore = StoreSourceRecords(format: .appStoreNotifications)
        appStore.transactions = [charge("1", at: 1 * Self.day), charge("2", chain: "D", at: 2 * Self.day, user: nil)]
        appStore.counts[.linesRead] = 2
        var webhooks = StoreSourceRecords(format: .revenueCatWebhooks)
        webhooks.refunds = [
            // Partial, without its currency: the amount is in the charge's (EUR); the user is the charge's.
            webhookRefund(of: "1", at: 4 * Self.day, amount: 2_495_000),
            // Whole, its user from the server table through the charge's chain.
            webhookRefund(of: "2", at: 5 * Self.day, amount: nil, currency: "USD"),
            // The charge is in no source: the refund still counts, with its own user and currency.
            webhookRefund(of: "9", chain: "X", at: 6 * Self.day, amount: 1_000_000, currency: "GBP", user: "u9"),
            webhookRefund(of: "10", at: 6 * Self.day, amount: nil),
            webhookRefund(of: "11", at: 6 * Self.day, amount: nil, user: "u11", familyShared: true),
        ]
        webhooks.counts[.linesRead] = 5
        let resolution = StoreEventResolver.resolve(sources: [appStore, webhooks], userTransactions: ["D": "server-d"], asOf: Self.asOf)
        let refunds = resolution.events.filter { $0.event == .refund }
        #expect(refunds.map(\.eventID) == ["revenuecat_webhooks:1:refund", "revenuecat_webhooks:2:refund", "revenuecat_webhooks:9:refund"])
        #expect(refunds.map(\.userID) == ["u1", "server-d", "u9"])
        #expect(refunds.map(\.priceMicros) == [2_495_000, nil, 1_000_000])
        #expect(refunds.map(\.currency) == ["EUR", nil, "GBP"])
        #expect(refunds.map(\.transactionID) == ["1", "2", "9"] && refunds.map(\.at) == [4, 5, 6].map { $0 * Self.day })
        #expect(refunds[0].productID == "pro" && refunds[0].originalTransactionID == "C" && refunds[0].store == "app_store")
        #expect(resolution.counts[.revenueCatWebhooks]?[.unattributedStoreRecords] == 1)
        #expect(resolution.counts[.revenueCatWebhooks]?[.familySharedRecords] == 1)
        #expect(resolution.counts[.revenueCatWebhooks]?[.linesRead] == 5 && resolution.counts[.appStoreNotifications]?[.linesRead] == 2)
    }

    @Test func aRefundReportedApartIsReversedLikeAnyRefund() {
        let resolution = StoreEventResolver.resolve(
            transactions: [charge("1", at: 1 * Self.day), charge("2", at: 2 * Self.day), charge("3", at: 3 * Self.day)],
            refunds: [
                webhookRefund(of: "1", at: 4 * Self.day, amount: nil), webhookRefund(of: "2", at: 8 * Self.day, amount: nil),
                webhookRefund(of: "3", at: 4 * Self.day, amount: nil),
            ],
            statusChanges: [],
            refundReversals: [
                // Another source reverses 1's refund.
                .init(format: .appStoreNotifications, id: "r1", transactionID: "1", at: 7 * Self.day),
                // Said before 2 was refunded: the refund counts.
                .init(format: .revenueCatWebhooks, id: "r2", transactionID: "2", at: 7 * Self.day),
                // Said at as_of: not yet.
                .init(format: .revenueCatWebhooks, id: "r3", transactionID: "3", at: Self.asOf),
            ], userTransactions: [:], asOf: Self.asOf)
        #expect(
            resolution.events.filter { $0.event == .refund }.map(\.eventID) == [
                "revenuecat_webhooks:2:refund", "revenuecat_webhooks:3:refund",
            ])
    }

    @Test func unpricedChargesAreEventsAndCounted() {
        let resolution = resolve([
            charge("1", at: 1, price: nil), charge("2", chain: "D", at: 1, price: nil, sandbox: true),
            charge("3", chain: "E", kind: .trial, at: 1), charge("4", chain: "G", at: 1, price: 0),
        ])
        #expect(resolution.events.count == 4)
        #expect(resolution.counts[.appStoreNotifications]?[.unpricedCharges] == 1)
    }

    @Test func eventsWriteAsLinesTheLogReaderReadsBack() throws {
        let resolution = resolve(
            [
                charge("1", at: 1_700_000_000_123_456, refund: .init(at: 1_700_100_000_000_000, amountMicros: 2_495_000)),
                charge("2", chain: "D", at: 1_700_000_000_000_000, price: nil, user: "us\"er\\1", sandbox: true),
            ],
            changes: [
                StoreStatusChange(
                    format: .appStoreNotifications, id: "n1", event: .cancel, at: 1_700_200_000_000_000, originalTransactionID: "C",
                    transactionID: "1", productID: "pro", buyer: StoreBuyer(userID: nil))
            ], users: ["C": "u1"])
        let lines = StoreEventJSONLines.text(resolution.events).split(separator: "\n").map(String.init)
        try #require(lines.count == 4)
        #expect(
            lines[0]
                == #"{"event_id":"app_store_notifications:1","ts":"2023-11-14T22:13:20.123456Z","user_id":"u1","event":"purchase","product_id":"pro","transaction_id":"1","original_transaction_id":"C","price":4.99,"currency":"EUR","platform":"ios","country":"DE","store":"app_store"}"#
        )
        var parser = JSONLineParser(keepsSliceFields: true)
        var records: [LogRecord] = []
        for line in lines {
            var record = LogRecord()
            let reason = Array(line.utf8).withUnsafeBytes { parser.parse($0, into: &record) }
            #expect(reason == nil, "\(line)")
            records.append(record)
        }
        try #require(records.map(\.eventType) == [.purchase, .refund, .purchase, .cancel])
        #expect(records[0].timestamp == 1_700_000_000_123_456 && records[0].price == 4_990_000)
        #expect(records[1].price == 2_495_000 && records[1].string(records[1].transactionID) == "1")
        #expect(records[2].string(records[2].userID) == "us\"er\\1" && records[2].isSandbox && records[2].price == 0)
        #expect(records[3].string(records[3].eventID) == "app_store_notifications:n1")
    }

    @Test func majorUnitsAreExact() {
        #expect(StoreEventJSONLines.majorUnits(7_990_000) == "7.99")
        #expect(StoreEventJSONLines.majorUnits(1_200_000_000) == "1200")
        #expect(StoreEventJSONLines.majorUnits(1) == "0.000001")
        #expect(StoreEventJSONLines.majorUnits(-2_500_000) == "-2.5")
    }
}
