import OfferLabAnalysis
import OfferLabResults
import OfferLabStatistics

extension ResultTables {
    /// `slice_summary`, `slice_comparisons` and `slice_srm` (docs/analysis.md §7): the columns of `summary`,
    /// `comparisons` and `srm` with `dimension` and `level` after `offering_id`, one block per
    /// (offering, field, level), each level analysed as its offering is (`OfferingStatistics.slices`).
    package static func sliceTables(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> [ResultTable] {
        var summary = ResultTable(.sliceSummary)
        var comparisons = ResultTable(.sliceComparisons)
        var srm = ResultTable(.sliceSRM)
        for (result, statistics) in zip(offerings, statistics) {
            for (slice, analysis) in zip(result.slices, statistics.slices) {
                let key: [ResultValue] = [.text(result.offering.offeringID), .text(slice.field.rawValue), .text(slice.level)]
                for (index, group) in result.offering.groups.enumerated() {
                    summary.rows.append(
                        key + [.text(group.name), .bool(index == result.controlGroup), .real(group.weight)]
                            + groupMetricValues(
                                slice.groups[index], summary: analysis.summaries[index], hasProceedsAndTrials: slice.hasProceedsAndTrials))
                }
                for row in analysis.comparisons { comparisons.rows.append(key + comparisonValues(row)) }
                srm.rows.append(key + srmValues(analysis.sampleRatioMismatch))
            }
        }
        return [summary, comparisons, srm]
    }
}
