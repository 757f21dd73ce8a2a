import OfferLabStatistics
import OfferLabVocabulary
import Testing

/// Why sequential inference exists (docs/statistics.md, Sequential), as a test: A/A experiments (no true difference) read every night.
/// A small, seeded version of `scripts/aa-simulation.py` (docs/statistics.md has its table),
/// through `analyzeOffering` itself: the fixed-horizon test calls far more than alpha of them
/// significant on some night, the sequential one at most alpha (to Monte-Carlo error).
@Suite("A/A experiments read every night")
struct SequentialFalsePositiveTests {
    static let experiments = 300
    static let nights = 30
    static let usersPerNight = 100
    static let alpha = 0.05
    /// What a converter pays: mostly small amounts, sometimes a large one (skewed, like revenue).
    static let prices: [(price: Double, upTo: Double)] = [(4.99, 0.6), (9.99, 0.9), (49.99, 0.99), (199.99, 1)]

    @Test func sequentialStaysWithinAlphaWhereFixedDoesNot() throws {
        var random = SplitMix64(state: 20_260_315)
        func unit() -> Double { Double(random.next() >> 11) * 0x1p-53 }
        var everFixed: [Metric: Int] = [:]
        var everSequential: [Metric: Int] = [:]
        for _ in 0..<Self.experiments {
            var groups = [GroupSufficientStatistics(), GroupSufficientStatistics()]
            var fixedHits = Set<Metric>()
            var sequentialHits = Set<Metric>()
            for _ in 0..<Self.nights {
                for index in groups.indices {
                    for _ in 0..<Self.usersPerNight {
                        groups[index].users += 1
                        guard unit() < 0.05 else { continue }
                        let draw = unit()
                        let price = Self.prices.first { draw < $0.upTo }?.price ?? 0
                        groups[index].converters += 1
                        groups[index].revenueSum += price
                        groups[index].revenueSumSquares += price * price
                    }
                }
                let analysis = try analyzeOffering(
                    [
                        AnalysisGroup(name: "control", isControl: true, weight: 1, statistics: groups[0]),
                        AnalysisGroup(name: "variant", isControl: false, weight: 1, statistics: groups[1]),
                    ], alpha: Self.alpha)
                for row in analysis.comparisons {
                    if row.significant == true { fixedHits.insert(row.metric) }
                    if row.seqSignificant == true { sequentialHits.insert(row.metric) }
                }
            }
            for metric in fixedHits { everFixed[metric, default: 0] += 1 }
            for metric in sequentialHits { everSequential[metric, default: 0] += 1 }
        }
        let bound = Self.alpha + 3 * (Self.alpha * (1 - Self.alpha) / Double(Self.experiments)).squareRoot()
        for metric in [Metric.conversion, .arpu] {
            let fixed = Double(everFixed[metric] ?? 0) / Double(Self.experiments)
            let sequential = Double(everSequential[metric] ?? 0) / Double(Self.experiments)
            #expect(sequential <= bound, "\(metric): sequential ever significant in \(sequential) of the experiments")
            #expect(fixed > bound, "\(metric): fixed-horizon ever significant in \(fixed) of the experiments")
        }
    }
}
