import OfferLabStatistics
import Testing

@Suite("Wilson score interval")
struct WilsonTests {
    @Test("Ends to 1e-9 absolute against mpmath (n from 1 to 10⁸, x = 0 and x = n included)")
    func reference() throws {
        let rows = try Reference.rows("wilson.csv")
        #expect(rows.count >= 60)
        for row in rows {
            let interval = try #require(
                wilsonInterval(successes: Int(row["successes"]), trials: Int(row["trials"]), alpha: row["alpha"]))
            #expect(abs(interval.low - row["low"]) <= Tolerance.reported, "\(row) got \(interval.low)")
            #expect(abs(interval.high - row["high"]) <= Tolerance.reported, "\(row) got \(interval.high)")
            // Much better than required: relative 1e-12 where the end is not tiny.
            #expect(relativeError(interval.high, row["high"]) <= 1e-12, "\(row)")
        }
    }

    @Test("Exact ends at x = 0 and x = n; nil without trials")
    func corners() throws {
        let none = try #require(wilsonInterval(successes: 0, trials: 100_000_000, alpha: 0.05))
        #expect(none.low == 0)
        #expect(none.high > 0)
        let all = try #require(wilsonInterval(successes: 7, trials: 7, alpha: 0.05))
        #expect(all.high == 1)
        #expect(all.low < 1)
        #expect(wilsonInterval(successes: 0, trials: 0, alpha: 0.05) == nil)
        #expect(wilsonInterval(successes: 3, trials: 2, alpha: 0.05) == nil)
        #expect(wilsonInterval(successes: 1, trials: 2, alpha: 0) == nil)
    }

    @Test("Contains the rate, narrows as n grows, widens as alpha shrinks")
    func properties() throws {
        var previousWidth = Double.infinity
        for n in [10, 100, 1000, 10_000, 100_000] {
            let interval = try #require(wilsonInterval(successes: n / 10, trials: n, alpha: 0.05))
            #expect(interval.low < 0.1 && 0.1 < interval.high)
            #expect(interval.high - interval.low < previousWidth)
            previousWidth = interval.high - interval.low
        }
        let wide = try #require(wilsonInterval(successes: 30, trials: 300, alpha: 0.01))
        let narrow = try #require(wilsonInterval(successes: 30, trials: 300, alpha: 0.1))
        #expect(wide.low < narrow.low && narrow.high < wide.high)
    }
}
