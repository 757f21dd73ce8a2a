import OfferLabAnalysis
import OfferLabResults
import OfferLabStatistics

extension ResultTables {
    /// `slice_summary`, `slice_comparisons` and `slice_srm` (docs/analysis.md §7): one block per
    /// (offering, field, level), each level analysed as its offering is (`OfferingStatistics.slices`).
    static func slices(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> (
        summary: [SliceSummaryRow], comparisons: [SliceComparisonRow], sampleRatios: [SliceSampleRatioRow]
    ) {
        var summary: [SliceSummaryRow] = []
        var comparisons: [SliceComparisonRow] = []
        var sampleRatios: [SliceSampleRatioRow] = []
        for (result, statistics) in zip(offerings, statistics) {
            for (slice, analysis) in zip(result.slices, statistics.slices) {
                let key = SliceKey(offeringID: result.offering.offeringID, dimension: slice.field.rawValue, level: slice.level)
                for (index, group) in result.offering.groups.enumerated() {
                    summary.append(
                        SliceSummaryRow(
                            slice: key, group: group.name, isControl: index == result.controlGroup, weight: group.weight,
                            metrics: groupMetrics(
                                slice.groups[index], summary: analysis.summaries[index], hasProceedsAndTrials: slice.hasProceedsAndTrials)))
                }
                comparisons += analysis.comparisons.map { SliceComparisonRow(slice: key, comparison: ComparisonValues($0)) }
                sampleRatios.append(SliceSampleRatioRow(slice: key, check: SampleRatioValues(analysis.sampleRatioMismatch)))
            }
        }
        return (summary, comparisons, sampleRatios)
    }

    /// The slice tables as `offerlab stats --slices` writes them.
    package static func sliceTables(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> [ResultTable] {
        let tables = slices(offerings, statistics: statistics)
        return [
            SliceSummaryRow.table.table(tables.summary), SliceComparisonRow.table.table(tables.comparisons),
            SliceSampleRatioRow.table.table(tables.sampleRatios),
        ]
    }
}
