import Foundation
import OfferLabStatistics
import Testing

/// One list of `Reference/exact_sum.json`: doubles and the double nearest to their exact sum.
struct ExactSumCase: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let values: [String]
    let sum: String
    var testDescription: String { name }

    static func load() throws -> [ExactSumCase] {
        try JSONDecoder().decode([ExactSumCase].self, from: Reference.data("exact_sum.json"))
    }

    var doubles: [Double] { values.map(number) }
}

@Suite("Exact sums")
struct ExactSumTests {
    static func sum(_ values: some Sequence<Double>) -> ExactSum {
        var sum = ExactSum()
        for value in values { sum.add(value) }
        return sum
    }

    @Test("The double nearest to the exact sum, as rational arithmetic and math.fsum find it")
    func reference() throws {
        let cases = try ExactSumCase.load()
        #expect(cases.count >= 17)
        for reference in cases {
            let expected = number(reference.sum)
            let value = Self.sum(reference.doubles).value
            #expect(value.bitPattern == expected.bitPattern, "\(reference.name): \(value), expected \(expected)")
        }
    }

    @Test("The same double whatever the order, and whatever the split into sums merged")
    func orderAndSplit() throws {
        var generator = SplitMix64(state: 7)
        for reference in try ExactSumCase.load() {
            let values = reference.doubles
            let expected = Self.sum(values).value
            #expect(Self.sum(values.reversed()).value.bitPattern == expected.bitPattern, "\(reference.name)")
            var parts = [ExactSum(), ExactSum(), ExactSum()]
            for value in values.shuffled(using: &generator) { parts[Int.random(in: 0..<3, using: &generator)].add(value) }
            var merged = parts[2]
            merged.add(parts[0])
            merged.add(parts[1])
            #expect(merged.value.bitPattern == expected.bitPattern, "\(reference.name)")
        }
    }

    /// What the daily series relies on: the running total of per-day changes (a user's new value
    /// added, their old one subtracted) is the total of the users' last values.
    @Test("Values added and later subtracted leave no trace")
    func changesTelescope() throws {
        let revenues = try #require(try ExactSumCase.load().first { $0.name == "per-user revenues" }).doubles
        var generator = SplitMix64(state: 11)
        var changes = ExactSum()
        for revenue in revenues {
            let earlier = Double.random(in: -100...100, using: &generator)
            changes.add(earlier)
            changes.subtract(earlier)
            changes.add(revenue)
        }
        #expect(changes.value.bitPattern == Self.sum(revenues).value.bitPattern)
        // Plain addition of the same values does not hold to the last bit.
        #expect(revenues.reduce(0, +) != Self.sum(revenues).value)
    }

    @Test("Zero, one value, and values beyond the largest double")
    func edges() {
        #expect(ExactSum().value.bitPattern == (0.0).bitPattern)
        #expect(Self.sum([-0.0]).value.bitPattern == (0.0).bitPattern)
        for value in [
            1.0, -2.5, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 2.2250738585072014e-308, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, 0.1,
        ] {
            #expect(Self.sum([value]).value.bitPattern == value.bitPattern, "\(value)")
        }
        #expect(Self.sum([.greatestFiniteMagnitude, .greatestFiniteMagnitude]).value == .infinity)
        #expect(Self.sum([-.greatestFiniteMagnitude, -.greatestFiniteMagnitude]).value == -.infinity)
        // Half an ulp of the largest double rounds up to infinity, just under it does not.
        let halfUlp = Double.greatestFiniteMagnitude.ulp / 2
        #expect(Self.sum([.greatestFiniteMagnitude, halfUlp]).value == .infinity)
        #expect(Self.sum([.greatestFiniteMagnitude, halfUlp.nextDown]).value == .greatestFiniteMagnitude)
    }

    @Test("Infinities and NaN: as IEEE addition, and a value subtracted cancels the same value added")
    func nonFinite() {
        #expect(Self.sum([1, .infinity]).value == .infinity)
        #expect(Self.sum([1, -.infinity]).value == -.infinity)
        #expect(Self.sum([.infinity, -.infinity]).value.isNaN)
        #expect(Self.sum([1, .nan]).value.isNaN)
        var sum = Self.sum([3, .infinity, .nan])
        sum.subtract(.infinity)
        sum.subtract(.nan)
        #expect(sum.value == 3)
        sum.subtract(.infinity)
        #expect(sum.value == -.infinity)
    }
}
