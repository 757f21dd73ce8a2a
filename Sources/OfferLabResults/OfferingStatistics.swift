import OfferLabAnalysis
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
}

extension OfferingStatistics {
    /// Analyses `result`: the night with its capped and matured comparisons, each day and each
    /// slice level (their groups as the offering's, with their own totals).
    /// - Throws: `OfferLabError` (`.rejectedTotals`) naming the offering, for totals the statistics reject.
    package init(_ result: OfferingResult, alpha: Double, sequentialTuning: Double) throws {
        func analyse(_ groups: [GroupTotals], families: [ComparisonFamily] = []) throws -> OfferingAnalysis {
            let inputs = result.offering.groups.enumerated().map { index, group in
                AnalysisGroup(
                    name: group.name, isControl: index == result.controlGroup, weight: group.weight, statistics: groups[index].statistics)
            }
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
    }
}
