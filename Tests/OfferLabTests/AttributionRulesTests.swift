import OfferLabIngest
import Testing

@testable import OfferLab
@testable import OfferLabAnalysis
@testable import OfferLabEvents
@testable import OfferLabProjection

/// One test per rule of attribution (docs/analysis.md, "Attribution, per analysed offering O and
/// member u", and "3. Per user"): each rule alone, then through a whole analysis, so that a broken
/// rule names itself.
@Suite struct AttributionRulesTests {
    /// u1 is in control from 2026-03-01 00:00 UTC.
    static let tables = TablesFixture(assignments: [("u1", "1", "10", "2026-03-01 00:00:00")])
    static let hour: Int64 = 3_600_000_000

    static func details(
        transaction: Int32 = -1, original: Int32 = -1, product: Int32 = -1, price: Int64 = EventRecord.noPrice, currency: Int32 = -1
    )
        -> EventDetails
    {
        EventDetails(price: price, transaction: transaction, originalTransaction: original, product: product, currency: currency)
    }

    // MARK: What counts: from the assignment on, inside the window

    @Test func aNonRefundEventCountsFromTheAssignmentUntilTheWindowEnds() {
        let assignedAt: Int64 = 100 * Self.hour
        #expect(AttributionRules.placement(of: assignedAt - 1, assignedAt: assignedAt, window: nil) == .beforeAssignment)
        #expect(AttributionRules.placement(of: assignedAt, assignedAt: assignedAt, window: nil) == .counted)
        #expect(AttributionRules.placement(of: assignedAt + 1000 * Self.hour, assignedAt: assignedAt, window: nil) == .counted)
        #expect(AttributionRules.placement(of: assignedAt + 24 * Self.hour - 1, assignedAt: assignedAt, window: 24 * Self.hour) == .counted)
        #expect(AttributionRules.placement(of: assignedAt + 24 * Self.hour, assignedAt: assignedAt, window: 24 * Self.hour) == .afterWindow)
    }

    @Test func anEventBeforeTheAssignmentIsCountedAsPreAssignmentOnly() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord("paywall_view", user: "u1", ts: "2026-02-28T23:59:59Z", offering: "wrong"),
                logRecord(
                    "purchase", user: "u1", ts: "2026-02-28T12:00:00Z", transaction: "p0", product: "weekly", price: "5", currency: "USD"),
                logRecord("paywall_view", user: "u1", ts: "2026-03-01T00:00:00Z"),
            ])
        let offering = results.offerings[0]
        #expect(offering.quality == OfferingQuality(preAssignmentEvents: 2))
        #expect(offering.groups[0].paywallViewers == 1)
        #expect(offering.groups[0].purchases == 0)
        #expect(offering.groups[0].converters == 0)
    }

    @Test func anEventAtTheEndOfTheWindowCountsNowhere() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-02T23:59:59Z", transaction: "p1", product: "weekly", price: "5", currency: "USD"),
                logRecord(
                    "renewal", user: "u1", ts: "2026-03-03T00:00:00Z", transaction: "r1", product: "weekly", price: "5", currency: "USD",
                    offering: "wrong"),
            ], window: 2)
        let offering = results.offerings[0]
        #expect(offering.quality == OfferingQuality())
        #expect(offering.groups[0].purchases == 1)
        #expect(offering.groups[0].renewals == 0)
        #expect(offering.groups[0].grossRevenue == 5)
    }

    // MARK: Refunds: what they refund, what is an orphan

    @Test func onlyPurchasesAndRenewalsCanBeRefunded() {
        let refundable = EventType.allCases.filter(\.isRefundable)
        #expect(refundable == [.purchase, .renewal])
    }

    @Test func aRefundOfATrialStartIsAnOrphan() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord("trial_start", user: "u1", ts: "2026-03-02T00:00:00Z", transaction: "t1", product: "weekly"),
                logRecord(
                    "refund", user: "u1", ts: "2026-03-03T00:00:00Z", transaction: "t1", product: "weekly", price: "0", currency: "USD"),
            ])
        let offering = results.offerings[0]
        #expect(offering.quality == OfferingQuality(orphanRefunds: 1))
        #expect(offering.groups[0].refunds == 0)
        #expect(offering.groups[0].trialStarters == 1)
        #expect(offering.products.isEmpty)
    }

    @Test func aRefundReturnsMoneyForThePurchaseBeforeARenewalOfTheSameTransaction() {
        let renewal = DetailedEvent(timestamp: 1, type: .renewal, details: Self.details(transaction: 7, price: 1))
        let purchase = DetailedEvent(timestamp: 2, type: .purchase, details: Self.details(transaction: 7, price: 2))
        let other = DetailedEvent(timestamp: 0, type: .purchase, details: Self.details(transaction: 8, price: 3))
        #expect(AttributionRules.refundedTransaction(of: 7, among: [other, renewal, purchase])?.details.price == 2)
        #expect(AttributionRules.refundedTransaction(of: 7, among: [other, renewal])?.details.price == 1)
        #expect(AttributionRules.refundedTransaction(of: 9, among: [other, renewal, purchase]) == nil)
    }

    @Test func aRefundAfterTheWindowCountsWithItsTransactionAndOneOfAnUncountedTransactionIsAnOrphan() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord(
                    "purchase", user: "u1", ts: "2026-02-28T00:00:00Z", transaction: "before", product: "weekly", price: "3",
                    currency: "USD"),
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-01T12:00:00Z", transaction: "p1", product: "weekly", price: "5", currency: "USD"),
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-03T00:00:00Z", transaction: "late", product: "weekly", price: "7", currency: "USD"),
                logRecord(
                    "refund", user: "u1", ts: "2026-03-10T00:00:00Z", transaction: "p1", product: "weekly", price: "5", currency: "USD"),
                logRecord("refund", user: "u1", ts: "2026-03-10T00:00:00Z", transaction: "before", product: "weekly"),
                logRecord("refund", user: "u1", ts: "2026-03-10T00:00:00Z", transaction: "late", product: "weekly"),
            ], window: 1)
        let offering = results.offerings[0]
        #expect(offering.quality == OfferingQuality(preAssignmentEvents: 1, orphanRefunds: 2))
        #expect(offering.groups[0].refunds == 1)
        #expect(offering.groups[0].refundedRevenue == 5)
        #expect(offering.groups[0].netRevenue == 0)
    }

    // MARK: Cancels: a chain's renewal turned off, or a cancel without a chain

    @Test func aCancelIsChainlessWithoutACountedStartOfItsChainAtOrBeforeIt() {
        let chained = DetailedEvent(
            timestamp: 10, type: .purchase, details: Self.details(transaction: 1, original: 5, product: 2, price: 1))
        let byProduct = DetailedEvent(timestamp: 10, type: .renewal, details: Self.details(transaction: 3, product: 4, price: 1))
        let trial = DetailedEvent(
            timestamp: 20, type: .trialStart, details: Self.details(transaction: 6, original: 7, product: 2, price: 0))
        let trialWithoutChainID = DetailedEvent(
            timestamp: 30, type: .trialStart, details: Self.details(transaction: 8, product: 9, price: 0))
        func isChainless(at time: Int64, original: Int32 = -1, product: Int32 = -1) -> Bool {
            let cancel = ProductContribution(
                product: product, kind: .cancel, timestamp: time, money: nil, chain: original, chargeProduct: product)
            return AttributionRules.isChainless(cancel, charges: [chained, byProduct], trials: [trial, trialWithoutChainID])
        }
        // Its chain charged at its very time, or before; its chain's trial started (its renewal turned off in the trial),
        // a trial that names no chain matched by its product as its purchase would be.
        #expect(!isChainless(at: 10, original: 5, product: 2))
        #expect(!isChainless(at: 11, original: 5))
        #expect(!isChainless(at: 11, product: 4))
        #expect(!isChainless(at: 20, original: 7, product: 2))
        #expect(!isChainless(at: 30, original: 6, product: 9))
        #expect(!isChainless(at: 30, product: 9))
        // Before the chain's first charge or its trial; a chain never started; another key than the starts'.
        #expect(isChainless(at: 9, original: 5, product: 2))
        #expect(isChainless(at: 19, original: 7, product: 2))
        #expect(isChainless(at: 29, original: 6, product: 9))
        #expect(isChainless(at: 30, original: 6, product: 2))
        #expect(isChainless(at: 11, original: 6, product: 2))
        #expect(isChainless(at: 11, product: 2))
        #expect(isChainless(at: 11, original: 3, product: 4))
        #expect(isChainless(at: 11))
    }

    @Test func aCancelWithoutAStartOfItsChainIsCountedAndChangesNothing() async throws {
        let withChain = [
            logRecord("trial_start", user: "u1", ts: "2026-03-02T00:00:00Z", transaction: "t1", original: "o1", product: "weekly"),
            logRecord(
                "purchase", user: "u1", ts: "2026-03-05T00:00:00Z", transaction: "p1", original: "o1", product: "weekly", price: "5",
                currency: "USD"),
            logRecord(
                "purchase", user: "u1", ts: "2026-03-02T00:00:00Z", transaction: "p2", product: "monthly", price: "9", currency: "USD"),
            // Turned off: o1 in its trial and at its first charge's very time, monthly's chain by its product.
            logRecord("cancel", user: "u1", ts: "2026-03-03T00:00:00Z", original: "o1", product: "weekly"),
            logRecord("cancel", user: "u1", ts: "2026-03-05T00:00:00Z", original: "o1", product: "weekly"),
            logRecord("cancel", user: "u1", ts: "2026-03-04T00:00:00Z", product: "monthly"),
        ]
        // o1 before its trial; a chain never started; none named; monthly's by an id its charge lacks.
        let chainless = [
            logRecord("cancel", user: "u1", ts: "2026-03-01T12:00:00Z", original: "o1", product: "weekly"),
            logRecord("cancel", user: "u1", ts: "2026-03-03T00:00:00Z", original: "o9", product: "weekly"),
            logRecord("cancel", user: "u1", ts: "2026-03-03T00:00:00Z"),
            logRecord("cancel", user: "u1", ts: "2026-03-03T00:00:00Z", original: "p2", product: "monthly"),
        ]
        let offering = try await analyse(Self.tables, withChain + chainless).offerings[0]
        let without = try await analyse(Self.tables, withChain).offerings[0]
        #expect(offering.quality == OfferingQuality(chainlessCancels: 4))
        #expect(without.quality == OfferingQuality())
        #expect(offering.groups == without.groups)
        #expect(offering.products == without.products)
        // The projection reads the cancels with a chain, and only them: the weekly chain turned off
        // at its first charge's very time (its renewal fell due on the 12th turned off, and lapsed),
        // the monthly one by its product (turned off tonight).
        let observed = try #require(offering.projection).groups
        #expect(observed == without.projection?.groups)
        let products = observed[0].products
        #expect(products.map { $0.pendingTurnedOff.values.reduce(0, +) }.reduce(0, +) == 1, "\(products)")
        #expect(products.map { $0.turnedOffRenewals.due(1) }.reduce(0, +) == 1 && products.allSatisfy { $0.pendingChains.isEmpty })
    }

    @Test func aRefundWithoutAPriceReturnsTheWholePriceInTheRefundedCurrency() {
        let refunded = Self.details(transaction: 7, price: 5_000_000, currency: 2)
        let withPrice = AttributionRules.refundAmount(
            refund: Self.details(transaction: 7, price: 1_000_000, currency: 3), refunded: refunded)
        #expect(withPrice.currency == 3 && withPrice.amount == 1_000_000)
        let withoutPrice = AttributionRules.refundAmount(refund: Self.details(transaction: 7), refunded: refunded)
        #expect(withoutPrice.currency == 2 && withoutPrice.amount == 5_000_000)
    }

    @Test func aRefundWithoutAPriceIsConvertedInTheCurrencyOfItsTransaction() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-02T00:00:00Z", transaction: "p1", product: "weekly", price: "5", currency: "EUR"),
                logRecord("refund", user: "u1", ts: "2026-03-03T00:00:00Z", transaction: "p1", product: "weekly"),
            ])
        #expect(results.offerings[0].groups[0].refundedRevenue == 10)
    }

    // MARK: Attribution mismatches

    /// Issue 47: u1 is in `test` (control) and in `other` (b) at once; u2 only in `test`. An event
    /// naming the other test a user is in is that test's event; one naming a test the user is
    /// not in, or a group that is none of the user's, disagrees.
    @Test func anEventOfAnOverlappingTestIsNoDisagreement() async throws {
        let tables = TablesFixture(assignments: [
            ("u1", "1", "10", "2026-03-01 00:00:00"), ("u1", "2", "21", "2026-03-01 00:00:00"), ("u2", "1", "10", "2026-03-01 00:00:00"),
        ])
        let results = try await analyse(
            tables,
            [
                // u1: other's own event (no disagreement for test), b without an offering (its group in other: none).
                logRecord("paywall_view", user: "u1", ts: "2026-03-02T00:00:00Z", offering: "other", group: "b"),
                logRecord("paywall_view", user: "u1", ts: "2026-03-02T01:00:00Z", group: "b"),
                // u1: test with another group (one for test; for other it is test's event), an unknown group (one in each).
                logRecord("paywall_view", user: "u1", ts: "2026-03-02T02:00:00Z", offering: "test", group: "variant"),
                logRecord("paywall_view", user: "u1", ts: "2026-03-02T03:00:00Z", group: "nowhere"),
                // u2: other, which u2 is not in (one); b, which is none of u2's groups (one).
                logRecord("paywall_view", user: "u2", ts: "2026-03-02T00:00:00Z", offering: "other", group: "b"),
                logRecord("paywall_view", user: "u2", ts: "2026-03-02T01:00:00Z", group: "b"),
            ], offerings: ["test", "other"])
        let test = try #require(results.offerings.first { $0.offering.offeringID == "test" })
        let other = try #require(results.offerings.first { $0.offering.offeringID == "other" })
        #expect((test.quality.attributionMismatches, test.quality.attributionMismatchUsers) == (4, 2))
        #expect((other.quality.attributionMismatches, other.quality.attributionMismatchUsers) == (1, 1))
    }

    @Test func eachCountedEventThatDisagreesIsOneMismatch() async throws {
        let results = try await analyse(
            Self.tables,
            [
                // Both fields disagree: one mismatch.
                logRecord("paywall_view", user: "u1", ts: "2026-03-02T00:00:00Z", offering: "other", group: "variant"),
                // Absent fields, and the right ones: none.
                logRecord("paywall_view", user: "u1", ts: "2026-03-02T01:00:00Z"),
                logRecord("paywall_view", user: "u1", ts: "2026-03-02T02:00:00Z", offering: "test", group: "control"),
                // A counted refund that disagrees: one.
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-02T03:00:00Z", transaction: "p1", product: "weekly", price: "5", currency: "USD"),
                logRecord("refund", user: "u1", ts: "2026-03-02T04:00:00Z", transaction: "p1", product: "weekly", group: "variant"),
                // An orphan that disagrees: none.
                logRecord("refund", user: "u1", ts: "2026-03-02T05:00:00Z", transaction: "nothing", product: "weekly", group: "variant"),
            ])
        #expect(results.offerings[0].quality == OfferingQuality(orphanRefunds: 1, attributionMismatches: 2, attributionMismatchUsers: 1))
    }

    // MARK: Per user: trial conversion

    @Test func aPurchaseConvertsATrialOfTheSameChainAtOrAfterIt() {
        func event(_ type: EventType, at time: Int64, original: Int32 = -1, product: Int32) -> DetailedEvent {
            DetailedEvent(timestamp: time, type: type, details: Self.details(original: original, product: product))
        }
        let trialInChain = event(.trialStart, at: 10, original: 1, product: 5)
        #expect(AttributionRules.convertsTrial(purchase: event(.purchase, at: 10, original: 1, product: 6), trial: trialInChain))
        #expect(!AttributionRules.convertsTrial(purchase: event(.purchase, at: 9, original: 1, product: 5), trial: trialInChain))
        #expect(!AttributionRules.convertsTrial(purchase: event(.purchase, at: 11, original: 2, product: 5), trial: trialInChain))
        // A purchase without a chain does not match a trial that has one, even of its product.
        #expect(!AttributionRules.convertsTrial(purchase: event(.purchase, at: 11, product: 5), trial: trialInChain))
        // A trial without a chain matches by product.
        let trialWithoutChain = event(.trialStart, at: 10, product: 5)
        #expect(AttributionRules.convertsTrial(purchase: event(.purchase, at: 11, original: 3, product: 5), trial: trialWithoutChain))
        #expect(!AttributionRules.convertsTrial(purchase: event(.purchase, at: 11, product: 6), trial: trialWithoutChain))
    }
}
