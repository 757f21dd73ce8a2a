import OfferLabIngest
import OfferLabStatistics
import Testing

@testable import OfferLab
@testable import OfferLabAnalysis

/// A purchase of `price` USD by `user` at `ts`.
private func purchase(_ user: String, _ ts: String, _ price: String, transaction: String) -> LogRecord {
    logRecord("purchase", user: user, ts: ts, transaction: transaction, product: "weekly", price: price, currency: "USD")
}

/// docs/analysis.md §4b, worked by hand: the cap is the linear quantile of the positive per-user revenues of
/// all groups pooled; each member's revenue is lowered to it, never raised.
@Suite struct CappedRevenueTests {
    /// control: c1 pays 10, c2 nothing, c3 pays 5 and gets 8 back (net −3); variant: v1 pays
    /// 100, v2 pays 20. Positive revenues pooled: [10, 20, 100].
    static let tables = TablesFixture(assignments: [
        ("c1", "1", "10", "2026-03-01 00:00:00"), ("c2", "1", "10", "2026-03-01 00:00:00"), ("c3", "1", "10", "2026-03-01 00:00:00"),
        ("v1", "1", "11", "2026-03-01 00:00:00"), ("v2", "1", "11", "2026-03-01 00:00:00"),
    ])
    /// Made anew for each use: a record is not `Sendable`.
    static var events: [LogRecord] {
        [
            purchase("c1", "2026-03-02T00:00:00Z", "10", transaction: "c1p"),
            purchase("c3", "2026-03-02T00:00:00Z", "5", transaction: "c3p"),
            logRecord("refund", user: "c3", ts: "2026-03-03T00:00:00Z", transaction: "c3p", product: "weekly", price: "8", currency: "USD"),
            purchase("v1", "2026-03-02T00:00:00Z", "60", transaction: "v1p"),
            logRecord(
                "renewal", user: "v1", ts: "2026-03-09T00:00:00Z", transaction: "v1r", product: "weekly", price: "40", currency: "USD"),
            purchase("v2", "2026-03-02T00:00:00Z", "20", transaction: "v2p"),
        ]
    }

    func capped(_ rule: RevenueCapRule, events: [LogRecord] = events) async throws -> CappedRevenue {
        try #require(try await analyse(Self.tables, events, revenueCap: rule).offerings[0].cappedRevenue)
    }

    @Test func percentileOfThePooledPositiveRevenues() async throws {
        // m = 3, p = 0.5: h = 1, the cap is x₁ = 20: v1's 100 becomes 20; c3's −3 stays.
        let result = try await capped(.percentile(0.5))
        #expect(result.cap == 20)
        #expect(result.cappedUsers == [0, 1])
        #expect(result.groups[0] == GroupSufficientStatistics(users: 3, converters: 2, revenueSum: 7, revenueSumSquares: 109))
        #expect(result.groups[1] == GroupSufficientStatistics(users: 2, converters: 2, revenueSum: 40, revenueSumSquares: 800))
    }

    @Test func oneAndTwoPositiveRevenues() async throws {
        // m = 1 (v1 alone pays): h = 0, the cap is 100 itself; nobody is over it.
        let one = try await capped(.percentile(0.99), events: Array(Self.events[3...4]))
        #expect(one.cap == 100 && one.cappedUsers == [0, 0])
        #expect(one.groups[1].revenueSum == 100)
        // m = 2 (c1 10, v1 100): h = 0.99, 10 + 0.99·90 = 99.1; v1 lowered to it.
        let two = try await capped(.percentile(0.99), events: [Self.events[0]] + Self.events[3...4])
        #expect(two.cap == 10 + 0.99 * 90 && two.cappedUsers == [0, 1])
        #expect(two.groups[1].revenueSum == 10 + 0.99 * 90)
    }

    @Test func aTieAtTheCapIsNotLowered() async throws {
        // c1 20, v2 20, a new payer 20 in control (c2), v1 100: [20, 20, 20, 100], p = 0.5:
        // h = 1.5, between 20 and 20: 20. Only v1 is over it.
        let events =
            Array(Self.events[3...5]) + [
                purchase("c1", "2026-03-02T00:00:00Z", "20", transaction: "c1q"),
                purchase("c2", "2026-03-02T00:00:00Z", "20", transaction: "c2q"),
            ]
        let result = try await capped(.percentile(0.5), events: events)
        #expect(result.cap == 20 && result.cappedUsers == [0, 1])
    }

    @Test func aValueCapAndNoPositiveRevenue() async throws {
        // {value: 15}: c1's 10 stays; v1 and v2 become 15.
        let value = try await capped(.value(15))
        #expect(value.cap == 15 && value.cappedUsers == [0, 2])
        #expect(value.groups[1].revenueSum == 30 && value.groups[1].revenueSumSquares == 450)
        // Nobody pays: no cap, the capped values are the uncapped ones.
        let none = try await capped(.percentile(0.99), events: [])
        #expect(none.cap == nil && none.cappedUsers == [0, 0])
        #expect(none.groups[0] == GroupSufficientStatistics(users: 3))
    }

    @Test func noRuleNoCappedRevenue() async throws {
        #expect(try await analyse(Self.tables, Self.events).offerings[0].cappedRevenue == nil)
    }
}

/// docs/analysis.md §4c, worked by hand, as of 2026-03-20T00:00:00Z with D = 7.
@Suite struct MaturedMetricsTests {
    static let asOf = "2026-03-20T00:00:00Z"

    @Test func assignedExactlyDDaysBeforeAsOfIsMatured() async throws {
        let tables = TablesFixture(assignments: [
            ("exact", "1", "10", "2026-03-13 00:00:00"), ("late", "1", "10", "2026-03-13 00:00:01"),
            ("early", "1", "11", "2026-03-01 00:00:00"),
        ])
        let result = try await analyse(tables, [], asOf: Self.asOf, maturityDays: [7, 30]).offerings[0]
        #expect(result.matured.map(\.days) == [7, 30])
        #expect(result.matured[0].groups.map(\.users) == [1, 1])  // "exact" (13th + 7 days = as_of), not "late"
        #expect(result.matured[1].groups.map(\.users) == [0, 0])  // nobody assigned 30 days before
    }

    @Test func refundsCountByTheirOwnTime() async throws {
        // m1, assigned 03-01: day 7 ends 03-08 00:00. Buys 10 on 03-02 (3 refunded on 03-05,
        // before D) and 20 on 03-03 (refunded whole on 03-09, after D); renews 5 on 03-10.
        // revenue_7 = 10 + 20 − 3 = 27; the night's net = 10 + 20 + 5 − 3 − 20 = 12.
        let tables = TablesFixture(assignments: [("m1", "1", "10", "2026-03-01 00:00:00")])
        let events = [
            purchase("m1", "2026-03-02T00:00:00Z", "10", transaction: "a"), purchase("m1", "2026-03-03T00:00:00Z", "20", transaction: "b"),
            logRecord("refund", user: "m1", ts: "2026-03-05T00:00:00Z", transaction: "a", product: "weekly", price: "3", currency: "USD"),
            logRecord("refund", user: "m1", ts: "2026-03-09T00:00:00Z", transaction: "b", product: "weekly"),
            logRecord("renewal", user: "m1", ts: "2026-03-10T00:00:00Z", transaction: "c", product: "weekly", price: "5", currency: "USD"),
        ]
        let result = try await analyse(tables, events, asOf: Self.asOf, maturityDays: [7]).offerings[0]
        #expect(result.groups[0].netRevenue == 12)
        #expect(result.matured[0].groups[0] == GroupSufficientStatistics(users: 1, converters: 1, revenueSum: 27, revenueSumSquares: 729))
    }

    @Test func aConversionWindowShorterThanDStillApplies() async throws {
        // Window of 3 days: w1's purchase on day 5 counts nowhere, although it is before day 7;
        // w2's on day 2 counts, and its refund on day 6 (after the window, before D) too.
        let tables = TablesFixture(assignments: [("w1", "1", "10", "2026-03-01 00:00:00"), ("w2", "1", "10", "2026-03-01 00:00:00")])
        let events = [
            purchase("w1", "2026-03-05T00:00:00Z", "9", transaction: "w1p"),
            purchase("w2", "2026-03-02T00:00:00Z", "9", transaction: "w2p"),
            logRecord("refund", user: "w2", ts: "2026-03-06T00:00:00Z", transaction: "w2p", product: "weekly", price: "4", currency: "USD"),
        ]
        let result = try await analyse(tables, events, asOf: Self.asOf, window: 3, maturityDays: [7]).offerings[0]
        #expect(result.groups[0].converters == 1)
        #expect(result.matured[0].groups[0] == GroupSufficientStatistics(users: 2, converters: 1, revenueSum: 5, revenueSumSquares: 25))
    }

    @Test func aPurchaseAfterDIsNotAMaturedConversion() async throws {
        let tables = TablesFixture(assignments: [("late", "1", "11", "2026-03-01 00:00:00")])
        let events = [purchase("late", "2026-03-08T00:00:00Z", "9", transaction: "p")]  // exactly assignment + 7 days: not before it
        let result = try await analyse(tables, events, asOf: Self.asOf, maturityDays: [7]).offerings[0]
        #expect(result.groups[1].converters == 1)
        #expect(result.matured[0].groups[1] == GroupSufficientStatistics(users: 1))
    }
}
