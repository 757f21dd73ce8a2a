import OfferLabAnalysis
import OfferLabProjection
import OfferLabStatistics
import OfferLabSupport

/// The statistics step of a night: every analysis of one offering that the result tables show,
/// computed from its per-group sufficient statistics by the pure statistics module. The table
/// builders (`ResultTables`) only format these values.
package struct OfferingStatistics: Sendable {
    /// The night's: the groups' summaries, every comparison (capped and matured included) and
    /// the sample-ratio check.
    package var night: OfferingAnalysis
    /// The groups' summaries of capped revenue (docs/analysis.md §4b); nil without a `revenue_cap`.
    package var capped: [GroupSummary]? = nil
    /// Parallel to `OfferingResult.matured`: the groups' summaries of each maturity (docs/analysis.md §4c).
    package var matured: [[GroupSummary]] = []
    /// Parallel to `OfferingResult.daily`: the analysis as of the end of each day (docs/analysis.md §4a).
    package var daily: [OfferingAnalysis] = []
    /// Parallel to `OfferingResult.slices`: each slice level analysed as the offering is (docs/analysis.md §7).
    package var slices: [OfferingAnalysis] = []
    /// The 365-day projection of each group and its comparisons
    /// (docs/statistics.md#the-projection-in-a-run); nil when the members are not known
    /// (`OfferingResult.projection`).
    package var projection: OfferingProjection? = nil
}

extension OfferingResult {
    /// The offering's groups as the statistics read them, with `totals` (the night's by default).
    package func analysisGroups(_ totals: [GroupTotals]? = nil) -> [AnalysisGroup] {
        offering.groups.enumerated().map { index, group in
            AnalysisGroup(
                name: group.name, isControl: index == controlGroup, weight: group.weight, statistics: (totals ?? groups)[index].statistics)
        }
    }
}

extension OfferingStatistics {
    /// Analyses `result`: the night with its capped and matured comparisons, each day and each
    /// slice level (their groups as the offering's, with their own totals).
    /// - Throws: `OfferLabError` (`.rejectedTotals`) naming the offering, for totals the statistics reject.
    package init(_ result: OfferingResult, settings: StatisticsSettings) throws {
        let (alpha, sequentialTuning) = (settings.alpha, settings.sequentialTuning)
        func analyse(_ groups: [GroupTotals], families: [ComparisonFamily] = []) throws -> OfferingAnalysis {
            let inputs = result.analysisGroups(groups)
            do {
                return try analyzeOffering(inputs, alpha: alpha, sequentialTuning: sequentialTuning, families: families)
            } catch {
                throw OfferLabError(.rejectedTotals, "offering \(result.offering.offeringID): \(error)", cause: error)
            }
        }
        self.init(night: try analyse(result.groups, families: result.comparisonFamilies))
        capped = result.cappedRevenue.map { $0.groups.map { GroupSummary($0, alpha: alpha) } }
        matured = result.matured.map { $0.groups.map { GroupSummary($0, alpha: alpha) } }
        // The days compare proceeds beside ARPU (daily.csv); each slice level every metric of its own groups.
        daily = try result.daily.map { day in
            try analyse(day.groups, families: result.hasProceedsAndTrials ? [.proceedsPerUser(day.groups.map(\.proceedsStatistics))] : [])
        }
        slices = try result.slices.map { slice in
            try analyse(slice.groups, families: slice.hasProceedsAndTrials ? OfferingResult.ownFamilies(slice.groups) : [])
        }
        projection = try result.projection.map { inputs in
            var generator = SplitMix64(state: Self.projectionSeed(asOf: inputs.asOf, offeringID: result.offering.offeringID))
            var configuration = ProjectionConfiguration(asOf: inputs.asOf, alpha: alpha, replicates: Self.projectionReplicates)
            // The days left of revenue to date plan on a newcomer's growth while a group's values still grow.
            configuration.growthDays = result.revenueByTenure.compactMap { $0.growthDays(horizon: Int(configuration.horizonDays)) }.max()
            do {
                return try projectOffering(
                    observed: inputs.groups, control: result.controlGroup, products: inputs.products, past: inputs.past,
                    configuration: configuration, using: &generator)
            } catch {
                throw OfferLabError(.rejectedTotals, "offering \(result.offering.offeringID): projection: \(error)", cause: error)
            }
        }
    }

    /// Draws per group: the calibration study's (docs/projection-calibration.md), at half the
    /// cost of the method's default 2 000 (docs/performance-history.md, "What a run costs").
    package static let projectionReplicates = 1000

    /// The seed of an offering's projection draws (docs/statistics.md, "The night's seed"): from
    /// the night's `as_of` and the `offering_id` alone, so the same inputs give the same
    /// intervals on every run and machine, and each night and offering draws its own.
    package static func projectionSeed(asOf: Int64, offeringID: String) -> UInt64 {
        // FNV-1a over the id's bytes, then SplitMix64's finaliser to spread both.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in offeringID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return SplitMix64.mix(hash ^ SplitMix64.mix(UInt64(bitPattern: asOf)))
    }
}
