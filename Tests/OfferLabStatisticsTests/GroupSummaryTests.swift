import OfferLabStatistics
import Testing

@Suite("Per-group summary")
struct GroupSummaryTests {
    @Test("Empty when undefined: users 0, users < 2, converters 0")
    func emptyWhenUndefined() {
        let none = GroupSummary(GroupSufficientStatistics(), alpha: 0.05)
        #expect(none == GroupSummary(GroupSufficientStatistics(users: 0), alpha: 0.05))
        #expect(none.conversionRate == nil && none.conversionCILow == nil && none.conversionCIHigh == nil)
        #expect(none.arpu == nil && none.arpuSD == nil && none.arppu == nil)

        let one = GroupSummary(GroupSufficientStatistics(users: 1, converters: 0), alpha: 0.05)
        #expect(one.conversionRate == 0 && one.conversionCILow == 0 && one.arpu == 0)
        #expect(one.arpuSD == nil && one.arppu == nil)

        let two = GroupSummary(
            GroupSufficientStatistics(users: 2, converters: 1, revenueSum: 4, revenueSumSquares: 16), alpha: 0.05)
        #expect(two.arpu == 2 && two.arppu == 4)
        #expect(two.arpuSD.map { abs($0 - 8.0.squareRoot()) <= 1e-15 } == true)  // values 4 and 0
    }

    @Test("Sample SD from sufficient statistics matches the two-pass formula")
    func standardDeviation() throws {
        let values: [Double] = [0, 0, 4.99, 9.99, 0, 49.99, -9.99, 0, 0, 9.99]
        let n = Double(values.count)
        let mean = values.reduce(0, +) / n
        let twoPass = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1)).squareRoot()
        let statistics = GroupSufficientStatistics(
            users: values.count, converters: 5, revenueSum: values.reduce(0, +),
            revenueSumSquares: values.map { $0 * $0 }.reduce(0, +))
        let summary = GroupSummary(statistics, alpha: 0.05)
        #expect(abs(try #require(summary.arpuSD) - twoPass) <= 1e-12 * twoPass)
    }

    @Test("The noise floor zeroes identical values and nothing else")
    func noiseFloor() throws {
        // 300 users who all paid 9.99: Σx² and (Σx)²/n differ only by rounding.
        let price = 9.99
        let sum = (0..<300).reduce(0.0) { total, _ in total + price }
        let squares = (0..<300).reduce(0.0) { total, _ in total + price * price }
        let same = GroupSufficientStatistics(users: 300, converters: 300, revenueSum: sum, revenueSumSquares: squares)
        #expect(same.revenueVariance == 0)
        // 10⁶ users at 9.99 and one at 10.99: a real, tiny variance (about 1e-6) survives.
        let n = 1_000_001
        let almost = GroupSufficientStatistics(
            users: n, converters: n, revenueSum: 1_000_000 * price + 10.99,
            revenueSumSquares: 1_000_000 * price * price + 10.99 * 10.99)
        let variance = try #require(almost.revenueVariance)
        #expect(abs(variance - 1.0 / Double(n)) <= 1e-3 / Double(n))
    }

    @Test("Sufficient statistics add up; the summary of a sum is the summary of the pooled users")
    func additivity() {
        let a = GroupSufficientStatistics(users: 3, converters: 1, revenueSum: 9.99, revenueSumSquares: 99.8001)
        let b = GroupSufficientStatistics(users: 2, converters: 2, revenueSum: 14.98, revenueSumSquares: 4.99 * 4.99 + 9.99 * 9.99)
        let sum = a + b
        #expect(sum.users == 5 && sum.converters == 3)
        #expect(GroupSummary(sum, alpha: 0.05).conversionRate == 0.6)
    }
}
