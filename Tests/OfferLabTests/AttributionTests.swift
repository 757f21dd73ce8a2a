import OfferLabIngest
import Testing

@testable import OfferLab
@testable import OfferLabAnalysis

@Suite struct AttributionTests {
    static let tables = TablesFixture(assignments: [
        ("u1", "1", "10", "2026-03-01 09:00:00"), ("u3", "1", "11", "2026-03-05 00:00:00"),
        ("00123", "1", "11", "2026-03-05 00:00:00"),
    ])

    /// Window of 7 days: u1 counts events in [03-01 09:00, 03-08 09:00).
    /// Made anew for each use: a record is not `Sendable`.
    static var events: [LogRecord] {
        [
            logRecord("paywall_view", user: "u1", ts: "2026-02-28T00:00:00Z"),  // pre-assignment
            logRecord("paywall_view", user: "u1", ts: "2026-03-01T09:00:00Z"),  // at assignment: counts
            logRecord("trial_start", user: "u1", ts: "2026-03-01T10:00:00Z", transaction: "tr1", original: "o1", product: "weekly"),
            logRecord(
                "purchase", user: "u1", ts: "2026-03-04T00:00:00Z", transaction: "p1", original: "o1", product: "weekly", price: "7.99",
                currency: "USD", offering: "test", group: "variant"),
            logRecord(
                "renewal", user: "u1", ts: "2026-03-09T00:00:00Z", transaction: "r1", original: "o1", product: "weekly", price: "7.99",
                currency: "USD"),
            // After the window, no price:
            logRecord("refund", user: "u1", ts: "2026-03-12T00:00:00Z", transaction: "p1", product: "weekly"),
            // An orphan:
            logRecord(
                "refund", user: "u1", ts: "2026-03-12T00:00:00Z", transaction: "r1", product: "weekly", price: "7.99", currency: "USD"),
            logRecord("refund", user: "u1", ts: "2026-03-02T00:00:00Z", transaction: "tr1", product: "weekly"),  // refunds a trial: orphan
            logRecord(
                "purchase", user: "u1", ts: "2026-03-05T00:00:00Z", transaction: "p2", product: "monthly", price: "10", currency: "BRL"),
            logRecord("refund", user: "u1", ts: "2026-03-06T00:00:00Z", transaction: "p2", product: "monthly", price: "4", currency: "BRL"),
            logRecord("cancel", user: "u1", ts: "2026-03-06T00:00:00Z", offering: "wrong", group: "control"),  // names no chain: chainless
            logRecord("trial_start", user: "u3", ts: "2026-03-05T12:00:00Z", transaction: "tr3", product: "monthly"),
            logRecord(
                "purchase", user: "u3", ts: "2026-03-06T00:00:00Z", transaction: "p3", original: "x9", product: "monthly", price: "19.99",
                currency: "EUR", offering: "test", group: "variant"),
            logRecord("trial_start", user: "00123", ts: "2026-03-06T00:00:00Z", transaction: "tr4", original: "o5", product: "weekly"),
            logRecord(
                "purchase", user: "00123", ts: "2026-03-07T00:00:00Z", transaction: "p4", product: "weekly", price: "1", currency: "USD"),
        ]
    }

    @Test func controlGroupValues() async throws {
        let result = try await analyse(Self.tables, Self.events, window: 7).offerings[0]
        let control = result.groups[0]
        #expect(control.users == 1)
        #expect(control.converters == 1)  // BRL purchase still converts
        #expect(control.trialStarters == 1)
        #expect(control.trialConverters == 1)  // same original_transaction_id
        #expect(control.paywallViewers == 1)
        #expect(control.purchases == 2)
        #expect(control.renewals == 0)  // after the window
        #expect(control.refunds == 2)
        #expect(control.grossRevenue == 7.99)
        #expect(control.refundedRevenue == 7.99)  // whole price of p1; BRL left out
        #expect(control.netRevenue == 0)
        #expect(
            result.quality
                == OfferingQuality(
                    preAssignmentEvents: 1, orphanRefunds: 2, chainlessCancels: 1, attributionMismatches: 2,
                    attributionMismatchUsers: 1, unknownCurrencyEvents: 2))
    }

    @Test func variantGroupValues() async throws {
        let variant = try await analyse(Self.tables, Self.events, window: 7).offerings[0].groups[1]
        #expect(variant.users == 2)
        #expect(variant.converters == 2)
        #expect(variant.trialStarters == 2)
        // u3: trial without original id matches by product; 00123: trial with one, purchase without: no match.
        #expect(variant.trialConverters == 1)
        #expect(abs(variant.netRevenue - 40.98) < 1e-12)  // 19.99 EUR × 2 + 1 USD
        #expect(abs(variant.statistics.revenueSumSquares - (39.98 * 39.98 + 1)) < 1e-9)
    }

    @Test func productsCountRefundsUnderTheirOwnProduct() async throws {
        let products = try await analyse(Self.tables, Self.events, window: 7).offerings[0].products
        let rows = products.map { "\($0.group) \($0.productID) \($0.purchases) \($0.renewals) \($0.refunds) \($0.netRevenue)" }
        #expect(rows == ["0 monthly 1 0 1 0.0", "0 weekly 1 0 1 0.0", "1 monthly 1 0 0 39.98", "1 weekly 1 0 0 1.0"])
    }

    @Test func withoutAWindowLaterEventsCount() async throws {
        let control = try await analyse(Self.tables, Self.events).offerings[0].groups[0]
        #expect(control.renewals == 1)
        #expect(control.refunds == 3)  // r1 is now counted, so its refund is too
        #expect(abs(control.netRevenue - 0) < 1e-12)  // 7.99 + 7.99 − 7.99 − 7.99
    }
}
