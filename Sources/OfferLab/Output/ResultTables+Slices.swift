import OfferLabStatistics

extension ResultTables {
    /// `slice_summary`, `slice_comparisons` and `slice_srm` (§2.11): the columns of `summary`,
    /// `comparisons` and `srm` with `dimension` and `level` after `offering_id`, one block per
    /// (offering, field, level), each level analysed by the same `analyse` as its offering.
    static func sliceTables(_ offerings: [OfferingResult], alpha: Double, sequentialTuning: Double) throws -> [ResultTable] {
        let sliceKey: [(String, ResultColumnType)] = [("offering_id", .text), ("dimension", .text), ("level", .text)]
        var summary = ResultTable(
            name: "slice_summary", columns: sliceKey + [("group", .text), ("is_control", .bool), ("weight", .real)] + groupMetricColumns,
            keys: ["offering_id", "dimension", "level", "group"])
        var comparisons = ResultTable(
            name: "slice_comparisons", columns: sliceKey + comparisonColumns,
            keys: ["offering_id", "dimension", "level", "group", "metric"])
        var srm = ResultTable(name: "slice_srm", columns: sliceKey + srmColumns, keys: ["offering_id", "dimension", "level"])
        for result in offerings {
            for slice in result.slices {
                let key: [ResultValue] = [.text(result.offering.offeringID), .text(slice.field.rawValue), .text(slice.level)]
                for (index, group) in result.offering.groups.enumerated() {
                    summary.rows.append(
                        key + [.text(group.name), .bool(index == result.controlGroup), .real(group.weight)]
                            + groupMetricValues(slice.groups[index], alpha: alpha))
                }
                let analysis = try analyse(result, groups: slice.groups, alpha: alpha, sequentialTuning: sequentialTuning)
                for row in analysis.comparisons { comparisons.rows.append(key + comparisonValues(row)) }
                srm.rows.append(key + srmValues(analysis.sampleRatioMismatch))
            }
        }
        return [summary, comparisons, srm]
    }
}
