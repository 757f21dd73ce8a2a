import OfferLabIngest
import Testing

@testable import OfferLab

@Suite struct DailySeriesTests {
    static let tables = TablesFixture(assignments: [
        ("u1", "1", "10", "2026-03-01 09:00:00"), ("u3", "1", "11", "2026-03-02 12:00:00"),
        ("u2", "1", "10", "2026-03-01 00:00:00"), ("u2", "1", "11", "2026-03-03 00:00:00"),
    ])
    /// Made anew for each use: a record is not `Sendable`.
    static var events: [LogRecord] {
        [
            logRecord(
                "purchase", user: "u1", ts: "2026-03-03T10:00:00Z", transaction: "p1", product: "weekly", price: "10", currency: "USD"),
            logRecord("refund", user: "u1", ts: "2026-03-05T23:59:59Z", transaction: "p1", product: "weekly"),
            logRecord(
                "purchase", user: "u3", ts: "2026-03-02T13:00:00Z", transaction: "p3", product: "weekly", price: "5", currency: "USD"),
            logRecord(
                "purchase", user: "u2", ts: "2026-03-02T00:00:00Z", transaction: "p2", product: "weekly", price: "7", currency: "USD"),
        ]
    }

    /// Each day: (control users, converters, net revenue, refunds; variant users, converters, net revenue).
    @Test func everyDayIsTheStateAtItsEnd() async throws {
        let daily = try await analyse(Self.tables, Self.events, asOf: "2026-03-06").offerings[0].daily
        let rows = daily.map { day in
            let (c, v) = (day.groups[0], day.groups[1])
            return "\(day.date) \(c.users) \(c.converters) \(c.netRevenue) \(c.refunds) | \(v.users) \(v.converters) \(v.netRevenue)"
        }
        #expect(
            rows == [
                "2026-03-01 2 0 0.0 0 | 0 0 0.0",
                "2026-03-02 2 1 7.0 0 | 1 1 5.0",  // u2 (control until 03-03) buys
                "2026-03-03 1 1 10.0 0 | 1 1 5.0",  // u2's second group appears: excluded
                "2026-03-04 1 1 10.0 0 | 1 1 5.0",
                "2026-03-05 1 1 0.0 1 | 1 1 5.0",  // the refund at 23:59:59 counts that day
            ])
    }

    @Test func theLastDayIsTheNight() async throws {
        let results = try await analyse(AttributionTests.tables, AttributionTests.events, window: 7)
        let offering = results.offerings[0]
        let last = try #require(offering.daily.last)
        #expect(last.date == "2026-03-19")
        #expect(offering.daily.first?.date == "2026-03-01")
        for (day, night) in zip(last.groups, offering.groups) {
            #expect(day.users == night.users && day.converters == night.converters && day.refunds == night.refunds)
            #expect(day.trialConverters == night.trialConverters && day.purchases == night.purchases && day.renewals == night.renewals)
            // Money to the last bit: both are the exact sums of the same values, rounded once.
            #expect(day.netRevenue.bitPattern == night.netRevenue.bitPattern)
            #expect(day.statistics.revenueSumSquares.bitPattern == night.statistics.revenueSumSquares.bitPattern)
            #expect(day.grossRevenue.bitPattern == night.grossRevenue.bitPattern)
            #expect(day.refundedRevenue.bitPattern == night.refundedRevenue.bitPattern)
        }
    }
}
