import OfferLabStatistics
import Testing

@Suite("Revenue cap: linear quantile of the positive revenues (docs/analysis.md §4b)")
struct RevenueCapTests {
    @Test("numpy's default quantile of small samples (Reference/make_linear_quantile.py)")
    func reference() throws {
        for row in try Reference.rows("linear_quantile.csv") {
            let sample = (0..<8).map { row["x\($0)"] }.filter { !$0.isNaN }
            let quantile = try #require(linearQuantile(sorted: sample, row["p"]))
            #expect(abs(quantile - row["quantile"]) <= 1e-12 * row["quantile"], "\(row)")
        }
    }

    @Test("Worked by hand: m = 1 (the upper neighbour read as x₀), m = 2, a tie")
    func byHand() {
        // m = 1: h = 0.99·0 = 0, the only value.
        #expect(linearQuantile(sorted: [5], 0.99) == 5)
        // m = 2: h = 0.99·1 = 0.99, 2 + 0.99·(10 − 2) = 9.92.
        #expect(linearQuantile(sorted: [2, 10], 0.99) == 2 + 0.99 * 8)
        // A tie: [1, 3, 3, 3, 9], p = 0.6: h = 2.4, between x₂ = 3 and x₃ = 3: 3.
        #expect(linearQuantile(sorted: [1, 3, 3, 3, 9], 0.6) == 3)
        // p = 0.9: h = 3.6, between x₃ = 3 and x₄ = 9: 3 + 0.6·6 = 6.6.
        #expect(linearQuantile(sorted: [1, 3, 3, 3, 9], 0.9) == 3 + 0.6000000000000001 * 6)
        #expect(linearQuantile(sorted: [], 0.5) == nil)
    }

    @Test("A percentile sorts the values it is given; a value is the cap whatever they are; no value, no cap")
    func rules() {
        var unsorted: [Double] = [10, 2]
        #expect(RevenueCapRule.percentile(0.99).cap(positiveRevenues: &unsorted) == 2 + 0.99 * 8)
        var none: [Double] = []
        #expect(RevenueCapRule.percentile(0.99).cap(positiveRevenues: &none) == nil)
        #expect(RevenueCapRule.value(500).cap(positiveRevenues: &none) == 500)
    }
}
