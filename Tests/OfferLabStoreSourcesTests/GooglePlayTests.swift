import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLabStoreSources

/// `google_play` and `google_play_orders` read from small lines of Google's real shapes
/// (docs/input-formats.md#google-play-google_play-and-google_play_orders): the Pub/Sub push body,
/// the DeveloperNotification, SubscriptionPurchaseV2, ProductPurchase and the Orders API `Order`.
@Suite struct GooglePlayTests {
    static let second: Int64 = 1_000_000
    /// 2026-03-01T10:00:00Z.
    static let march1: Int64 = 1_772_359_200 * second

    /// The DeveloperNotification JSON of a subscription notification.
    static func developerNotification(
        type: Int, token: String = "tok-a", millis: Int64 = 1_772_359_260_000, package: String = "com.example.app"
    )
        -> String
    {
        #"{"version":"1.0","packageName":"\#(package)","eventTimeMillis":"\#(millis)","subscriptionNotification":{"version":"1.0","notificationType":\#(type),"purchaseToken":"\#(token)"}}"#
    }

    /// The Pub/Sub push body of `notification`.
    static func push(_ notification: String, messageID: String) -> String {
        let data = Data(notification.utf8).base64EncodedString()
        return
            #"{"message":{"data":"\#(data)","messageId":"\#(messageID)","message_id":"\#(messageID)","publishTime":"2026-03-01T10:01:00.123Z"},"subscription":"projects/app/subscriptions/play"}"#
    }

    /// A SubscriptionPurchaseV2 with one line item.
    static func state(
        orderID: String = "GPA.1111-2222-3333-44444", phase: String = "basePrice", linked: String? = nil, test: Bool = false,
        latestOrderID: String? = nil, start: String = "2026-03-01T10:00:00.000Z"
    ) -> String {
        let link = linked.map { #","linkedPurchaseToken":"\#($0)""# } ?? ""
        let testPurchase = test ? #","testPurchase":{}"# : ""
        let latest = latestOrderID.map { #","latestOrderId":"\#($0)""# } ?? ""
        return
            #"{"kind":"androidpublisher#subscriptionPurchaseV2","regionCode":"DE","startTime":"\#(start)","subscriptionState":"SUBSCRIPTION_STATE_ACTIVE"\#(latest)\#(link)\#(testPurchase),"acknowledgementState":"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED","externalAccountIdentifiers":{"obfuscatedExternalAccountId":"user-1"},"lineItems":[{"productId":"premium","expiryTime":"2026-04-01T10:00:00Z","autoRenewingPlan":{"autoRenewEnabled":true,"recurringPrice":{"currencyCode":"EUR","units":"9","nanos":990000000}},"offerDetails":{"basePlanId":"monthly"},"latestSuccessfulOrderId":"\#(orderID)","offerPhase":{"\#(phase)":{}}}]}"#
    }

    static func line(_ notification: String, subscription: String? = nil, product: String? = nil) -> String {
        var line = #"{"notification":"# + notification
        if let subscription { line += #","subscription":"# + subscription }
        if let product { line += #","product":"# + product }
        return line + "}"
    }

    /// An Orders API `Order` of `orderID`.
    static func order(
        _ orderID: String, total: String = #"{"currencyCode":"EUR","units":"8","nanos":490000000}"#, revenue: String? = nil,
        history: String = #"{"processedEvent":{"eventTime":"2026-03-01T10:00:02Z"}}"#, lastEvent: String = "2026-03-01T10:00:02Z"
    ) -> String {
        let revenueMember = revenue.map { #","developerRevenueInBuyerCurrency":"# + $0 } ?? ""
        return
            #"{"orderId":"\#(orderID)","purchaseToken":"tok-a","state":"PROCESSED","createTime":"2026-03-01T10:00:01Z","lastEventTime":"\#(lastEvent)","total":\#(total),"tax":{"currencyCode":"EUR","units":"1","nanos":360000000}\#(revenueMember),"orderHistory":\#(history),"lineItems":[{"productId":"premium","total":\#(total)}]}"#
    }

    func notifications(_ files: [[String]], package: String? = "com.example.app") throws -> (
        [GooglePlayFile<GooglePlayNotification>], StoreSourceRecords
    ) {
        let folder = try TemporaryFolder()
        let read = try files.enumerated().map { index, lines in
            try GooglePlayFile(path: folder.write("n\(index).jsonl", lines.joined(separator: "\n") + "\n"), inflater: .zlib) {
                line throws(StoreLineRejection) in try GooglePlayNotification(line: line, packageName: package)
            }
        }
        return (read, GooglePlayNotifications.records(read))
    }

    func orders(_ lines: [String]) throws -> StoreSourceRecords {
        let folder = try TemporaryFolder()
        let file = try GooglePlayFile(path: folder.write("orders.jsonl", lines.joined(separator: "\n") + "\n"), inflater: .zlib) {
            line throws(StoreLineRejection) in try GooglePlayOrder(line: line)
        }
        var collector = GooglePlayOrderSource.Collector()
        collector.add(file)
        return collector.records
    }

    @Test func aPurchasePushWithItsStateIsOneChargeWithEveryField() throws {
        let (files, records) = try notifications([
            [Self.line(Self.push(Self.developerNotification(type: 4), messageID: "m1"), subscription: Self.state())]
        ])
        #expect(files[0].counts[.linesRead] == 1 && files[0].counts.malformedLines == 0)
        var expected = StoreTransaction(
            format: .googlePlay, transactionID: "GPA.1111-2222-3333-44444", originalTransactionID: "tok-a", productID: "premium",
            kind: .chargeByChainOrder, at: Self.march1, money: .init(priceMicros: 9_990_000, currency: "EUR"),
            buyer: StoreBuyer(userID: "user-1", country: "DE", platform: "android", store: "play_store"))
        expected.expiresAt = 1_775_037_600 * Self.second
        #expect(records.withoutSourcePath(expecting: files[0].path).transactions == [expected])
        #expect(records.counts[.ignoredStoreRecords] == 0)
    }

    @Test func reDeliveriesAndLaterNotificationsOfAKnownOrderAreOneRecord() throws {
        let purchase = Self.line(Self.push(Self.developerNotification(type: 4), messageID: "m1"), subscription: Self.state())
        // The same order named again by a decoded notification of another type that delivers orders.
        let recovered = Self.line(Self.developerNotification(type: 1, millis: 1_772_400_000_000), subscription: Self.state())
        let renewal = Self.line(
            Self.developerNotification(type: 2, millis: 1_774_994_500_000),
            subscription: Self.state(orderID: "GPA.1111-2222-3333-44444..0"))
        let (_, records) = try notifications([[purchase, recovered], [purchase, renewal, renewal]])
        #expect(records.transactions.map(\.transactionID) == ["GPA.1111-2222-3333-44444", "GPA.1111-2222-3333-44444..0"])
        // A renewal's order is charged when the first notification naming it came.
        #expect(records.transactions[1].at == 1_774_994_500 * Self.second)
        #expect(records.transactions.allSatisfy { $0.kind == .chargeByChainOrder && $0.originalTransactionID == "tok-a" })
    }

    @Test func aPlanChangeContinuesTheChainOfItsLinkedTokenToTheRoot() throws {
        let (_, records) = try notifications([
            [
                Self.line(Self.developerNotification(type: 4), subscription: Self.state()),
                Self.line(
                    Self.developerNotification(type: 4, token: "tok-c", millis: 1_773_000_000_000),
                    subscription: Self.state(orderID: "GPA.3", linked: "tok-b")),
                Self.line(
                    Self.developerNotification(type: 4, token: "tok-b", millis: 1_772_500_000_000),
                    subscription: Self.state(orderID: "GPA.2", linked: "tok-a")),
            ]
        ])
        #expect(records.transactions.map(\.originalTransactionID) == ["tok-a", "tok-a", "tok-a"])
    }

    /// A night that has a plan change's notification but not yet its Order (the generated set's
    /// Orders listed a day late): the new token's first order is the chain's renewal, at the new
    /// token's `startTime` and the plan's price; its refund (the voided purchase names the new
    /// token) is a refund in the chain too.
    @Test func aPlanChangesFirstOrderWithoutItsOrderIsARenewalAtItsStartAndPrice() throws {
        let week: Int64 = 7 * 86_400 * Self.second
        let (_, records) = try notifications([
            [
                Self.line(Self.developerNotification(type: 4), subscription: Self.state(orderID: "GPA.1")),
                Self.line(
                    Self.developerNotification(type: 4, token: "tok-b", millis: 1_772_964_060_000),
                    subscription: Self.state(orderID: "GPA.2", linked: "tok-a", start: "2026-03-08T10:00:00.000Z")),
                Self.line(
                    #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1773050400000","voidedPurchaseNotification":{"purchaseToken":"tok-b","orderId":"GPA.2","productType":1,"refundType":1}}"#
                ),
            ]
        ])
        let resolved = StoreEventResolver.resolve(sources: [records], userTransactions: ["tok-a": "server-user"], asOf: .max)
        #expect(resolved.events.map(\.event) == [.purchase, .renewal, .refund])
        #expect(resolved.events.map(\.at) == [Self.march1, Self.march1 + week, Self.march1 + week + 86_400 * Self.second])
        // A whole refund without its Order states no amount: the run takes its charge's whole price.
        #expect(resolved.events.map(\.priceMicros) == [9_990_000, 9_990_000, nil])
        #expect(resolved.events.map(\.originalTransactionID) == ["tok-a", "tok-a", "tok-a"])
        // The table names the chain's first token: the new token's orders are its user's.
        #expect(resolved.events.allSatisfy { $0.userID == "server-user" })
    }

    /// A voided purchase whose fetched state names the token it continues (contract §1.6: a token
    /// whose S has `linkedPurchaseToken` continues that chain, whatever notification S came with)
    /// refunds in the chain of the first token, though no other notification names the new token.
    @Test func aVoidedPurchasesStateLinksItsTokenToTheChain() throws {
        let (_, records) = try notifications([
            [
                Self.line(Self.developerNotification(type: 4), subscription: Self.state(orderID: "GPA.1")),
                Self.line(
                    #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1773050400000","voidedPurchaseNotification":{"purchaseToken":"tok-b","orderId":"GPA.2","productType":1,"refundType":1}}"#,
                    subscription: Self.state(orderID: "GPA.2", linked: "tok-a", start: "2026-03-08T10:00:00.000Z")),
            ]
        ])
        #expect(records.refunds.map(\.originalTransactionID) == ["tok-a"])
        let resolved = StoreEventResolver.resolve(sources: [records], userTransactions: ["tok-a": "server-user"], asOf: .max)
        #expect(resolved.events.map(\.event) == [.purchase, .refund])
        #expect(resolved.events.allSatisfy { $0.userID == "server-user" })
    }

    @Test func phasesTrialsIntroductoryAndOneTimeProducts() throws {
        let oneTime =
            #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1772359300000","oneTimeProductNotification":{"version":"1.0","notificationType":1,"purchaseToken":"tok-p","sku":"coins"}}"#
        let product =
            #"{"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"1772359290000","purchaseState":0,"consumptionState":0,"orderId":"GPA.9","purchaseType":0,"acknowledgementState":1,"productId":"coins","obfuscatedExternalAccountId":"user-2","regionCode":"US"}"#
        let pending = product.replacingOccurrences(of: #""purchaseState":0"#, with: #""purchaseState":2"#)
            .replacingOccurrences(of: "GPA.9", with: "GPA.10")
        let (_, records) = try notifications([
            [
                Self.line(Self.developerNotification(type: 4, token: "t1"), subscription: Self.state(orderID: "GPA.1", phase: "freeTrial")),
                Self.line(
                    Self.developerNotification(type: 4, token: "t2"), subscription: Self.state(orderID: "GPA.2", phase: "introductoryPrice")
                ),
                Self.line(
                    Self.developerNotification(type: 4, token: "t3"), subscription: Self.state(orderID: "GPA.3", phase: "prorationPeriod")),
                Self.line(oneTime, product: product),
                Self.line(oneTime.replacingOccurrences(of: "tok-p", with: "tok-q"), product: pending),
            ]
        ])
        #expect(records.transactions.map(\.transactionID) == ["GPA.1", "GPA.2", "GPA.3", "GPA.9"])
        #expect(records.transactions.map(\.kind) == [.trial, .chargeByChainOrder, .chargeByChainOrder, .firstCharge])
        #expect(records.transactions.map(\.money.priceMicros) == [nil, nil, nil, nil], "only an Order prices these")
        let coins = records.transactions[3]
        #expect(coins.at == 1_772_359_290 * Self.second && coins.productID == "coins" && coins.buyer.userID == "user-2")
        #expect(coins.buyer.isSandbox, "purchaseType 0 is a test purchase")
        #expect(records.counts[.ignoredStoreRecords] == 1, "a pending purchase's notification delivers no order: no purchase fact yet")
    }

    @Test func cancelsExpiresRevocationsVoidedPurchasesAndTheTypesWithoutAFact() throws {
        let voided =
            #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1772500000000","voidedPurchaseNotification":{"purchaseToken":"tok-b","orderId":"GPA.2","productType":1,"refundType":2}}"#
        let test =
            #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1772500000000","testNotification":{"version":"1.0"}}"#
        let (_, records) = try notifications([
            [
                Self.line(Self.developerNotification(type: 4), subscription: Self.state(orderID: "GPA.1")),
                Self.line(Self.developerNotification(type: 4, token: "tok-b"), subscription: Self.state(orderID: "GPA.2", linked: "tok-a")),
                // In grace: latestOrderId names the pending payment, which is no order yet.
                Self.line(
                    Self.developerNotification(type: 6, token: "tok-b", millis: 1_772_600_000_000),
                    subscription: Self.state(orderID: "GPA.2", linked: "tok-a", latestOrderID: "GPA.2..0")),
                Self.line(Self.push(Self.developerNotification(type: 3, millis: 1_772_400_000_000), messageID: "cancel-1")),
                Self.line(Self.push(Self.developerNotification(type: 3, millis: 1_772_400_000_000), messageID: "cancel-1")),
                Self.line(Self.developerNotification(type: 13, millis: 1_772_450_000_000)),
                Self.line(Self.developerNotification(type: 12, millis: 1_772_460_000_000), subscription: Self.state(orderID: "GPA.1")),
                Self.line(Self.developerNotification(type: 12, millis: 1_772_470_000_000), subscription: Self.state(orderID: "GPA.1")),
                Self.line(voided), Self.line(test), Self.line(Self.developerNotification(type: 5)),
            ]
        ])
        #expect(records.transactions.map(\.transactionID) == ["GPA.1", "GPA.2"])
        #expect(
            records.statusChanges.map(\.id) == ["cancel-1", "tok-a:13:1772450000000", "tok-a:12:1772460000000", "tok-a:12:1772470000000"])
        #expect(records.statusChanges.map(\.event) == [.cancel, .expire, .expire, .expire])
        #expect(records.statusChanges.allSatisfy { $0.buyer.userID == "user-1" && $0.originalTransactionID == "tok-a" })
        #expect(records.refunds.map(\.transactionID) == ["GPA.1", "GPA.2"], "one refund per order")
        #expect(records.refunds.map(\.amountUnknown) == [false, true])
        #expect(records.refunds.map(\.at) == [1_772_460_000 * Self.second, 1_772_500_000 * Self.second])
        #expect(records.refunds[1].originalTransactionID == "tok-a")
        #expect(records.counts[.ignoredStoreRecords] == 3, "in grace, the test notification, on hold")
    }

    /// A voided purchase of an order no other notification names (one from before the server kept
    /// them) says neither product nor buyer: with its token's state fetched, the refund takes both
    /// from it; without, it has neither (the table may still say the buyer).
    @Test func aVoidedPurchaseWithItsStateTakesItsProductAndBuyer() throws {
        let voided = { (token: String, order: String) in
            #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1772500000000","voidedPurchaseNotification":{"purchaseToken":"\#(token)","orderId":"\#(order)","productType":1,"refundType":1}}"#
        }
        let (_, records) = try notifications([
            [
                Self.line(voided("tok-old", "GPA.9"), subscription: Self.state(orderID: "GPA.9")),
                Self.line(voided("tok-other", "GPA.8")),
            ]
        ])
        #expect(records.transactions.isEmpty, "a voided purchase's state delivers no charge")
        #expect(records.refunds.map(\.transactionID) == ["GPA.9", "GPA.8"])
        #expect(records.refunds.map(\.productID) == ["premium", nil])
        #expect(records.refunds.map(\.buyer.userID) == ["user-1", nil])
        #expect(records.refunds[0].buyer.country == "DE" && records.refunds[0].originalTransactionID == "tok-old")
    }

    @Test func everyBadLineIsCountedUnderItsReason() throws {
        let other = Self.line(Self.developerNotification(type: 4, package: "com.other.app"), subscription: Self.state())
        let notBase64 = #"{"notification":{"message":{"data":"%%%not base64","messageId":"m9"},"subscription":"s"}}"#
        let notJSONData = #"{"notification":{"message":{"data":"\#(Data("not json".utf8).base64EncodedString())","messageId":"m9"}}}"#
        let noLineItems = Self.line(
            Self.developerNotification(type: 4), subscription: #"{"startTime":"2026-03-01T10:00:00Z","lineItems":[]}"#)
        let noState = Self.line(Self.developerNotification(type: 2))
        let badTime = Self.line(
            Self.developerNotification(type: 4).replacingOccurrences(of: #""1772359260000""#, with: #""soon""#), subscription: Self.state())
        let negative = Self.line(
            Self.developerNotification(type: 4),
            subscription: Self.state().replacingOccurrences(of: #""units":"9""#, with: #""units":"-9""#))
        let (files, records) = try notifications([
            ["{not json", "[1]", other, notBase64, notJSONData, noLineItems, noState, badTime, negative, ""]
        ])
        let counts = files[0].counts
        #expect(counts[.linesRead] == 9, "the blank line is not read")
        #expect(counts[.malformedInvalidJSON] == 3)
        #expect(counts[.malformedOtherApp] == 1)
        #expect(counts[.malformedInvalidField] == 1, "data not base64")
        #expect(counts[.malformedBadTimestamp] == 1)
        #expect(counts[.malformedMissingField] == 2)
        #expect(counts[.malformedNegativePrice] == 1)
        #expect(files[0].notes.map(\.line) == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(records.transactions.isEmpty)

        let orderRecords = try orders([
            Self.order("GPA.1").replacingOccurrences(
                of: #""total":{"currencyCode":"EUR","units":"8","nanos":490000000},"tax""#, with: #""tax""#),
            "not json", Self.order("GPA.2", total: #"{"currencyCode":"EUR","units":"-1"}"#), Self.order("GPA.3"),
        ])
        #expect(orderRecords.counts[.malformedMissingField] == 1, "an Order without total")
        #expect(orderRecords.counts[.malformedInvalidJSON] == 1 && orderRecords.counts[.malformedNegativePrice] == 1)
        #expect(orderRecords.chargeDetails.map(\.transactionID) == ["GPA.3"])
    }

    @Test func anOrderIsTheChargesTimePriceProceedsAndRefunds() throws {
        let partial =
            #"{"processedEvent":{"eventTime":"2026-03-01T10:00:02Z"},"partialRefundEvents":[{"createTime":"2026-03-05T00:00:00Z","processedTime":"2026-03-05T01:00:00Z","state":"PROCESSED","refundDetails":{"total":{"currencyCode":"EUR","units":"2"},"tax":{"currencyCode":"EUR"}}},{"createTime":"2026-03-06T00:00:00Z","processedTime":"2026-03-06T01:00:00Z","state":"PROCESSED","refundDetails":{"total":{"currencyCode":"EUR","nanos":500000000}}}]}"#
        let records = try orders([
            Self.order("GPA.1"),
            Self.order(
                "GPA.1", revenue: #"{"currencyCode":"EUR","units":"6","nanos":140000000}"#, history: partial,
                lastEvent: "2026-03-06T01:00:00Z"),
            Self.order("GPA.1", lastEvent: "2026-03-01T10:00:03Z"),
        ])
        let details = try #require(records.chargeDetails.first)
        #expect(records.chargeDetails.count == 1, "the listing with the latest lastEventTime wins")
        #expect(details.at == Self.march1 + 1 * Self.second)
        #expect(details.money == .init(priceMicros: 8_490_000, currency: "EUR", proceedsMicros: 6_140_000))
        #expect(details.refunds == .init(at: 1_772_672_400 * Self.second, amountMicros: 2_500_000))
    }

    /// The two feeds joined on the order id by the resolver, whichever came first.
    @Test func theResolverCompletesNotificationChargesWithTheirOrders() throws {
        let (_, notified) = try notifications([
            [
                Self.line(Self.developerNotification(type: 4), subscription: Self.state(orderID: "GPA.1")),
                Self.line(
                    Self.developerNotification(type: 2, millis: 1_774_994_500_000), subscription: Self.state(orderID: "GPA.1..0")),
                Self.line(
                    #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1775000000000","voidedPurchaseNotification":{"purchaseToken":"tok-a","orderId":"GPA.1..0","productType":1,"refundType":2}}"#
                ),
            ]
        ])
        let refunded =
            #"{"refundEvent":{"eventTime":"2026-03-02T00:00:00Z","refundDetails":{"total":{"currencyCode":"EUR","units":"8","nanos":490000000}}}}"#
        let listed = try orders([Self.order("GPA.1", revenue: #"{"currencyCode":"EUR","units":"7","nanos":220000000}"#, history: refunded)])
        // Without the Orders: the plan's price, the charge at its notification, the partial refund unpriced.
        let alone = StoreEventResolver.resolve(sources: [notified], userTransactions: [:], asOf: .max)
        #expect(alone.events.map(\.event) == [.purchase, .renewal, .refund])
        #expect(alone.events.map(\.priceMicros) == [9_990_000, 9_990_000, 0])
        #expect(alone.counts[.googlePlay]?[.unpricedRefunds] == 1)
        #expect(alone.events[0].commissionShare == nil, "no exact proceeds: the job's rules")

        let joined = StoreEventResolver.resolve(sources: [notified, listed], userTransactions: ["tok-a": "server-user"], asOf: .max)
        #expect(
            joined.events.map(\.eventID) == [
                "google_play:GPA.1", "google_play:GPA.1..0", "google_play:GPA.1..0:refund", "google_play_orders:GPA.1:refund",
            ])
        #expect(joined.events[0].at == Self.march1 + 1 * Self.second && joined.events[0].priceMicros == 8_490_000)
        #expect(joined.events[0].taxShare == 0 && abs(joined.events[0].commissionShare! - (1 - 7.22 / 8.49)) < 1e-12)
        #expect(joined.events[3].priceMicros == 8_490_000 && joined.events[3].at == 1_772_409_600 * Self.second)
        #expect(joined.events.allSatisfy { $0.userID == "server-user" && $0.store == "play_store" && $0.platform == "android" })
        #expect(joined.counts[.googlePlay]?[.unpricedRefunds] == 1, "GPA.1..0 has no Order yet")
    }
}
