import OfferLabIngest
import OfferLabStatistics

/// Builds the output tables of a night from its results.
enum ResultTables {
    /// `files`: the CSV files; `database`: the tables stored in SQLite (the report's source, see
    /// `ResultTables+Report.swift`).
    static func make(_ results: NightResults, job: Job) throws -> (files: [ResultTable], database: [ResultTable]) {
        let analyses = try results.offerings.map { result in
            (
                offeringID: result.offering.offeringID,
                statistics: try analyse(
                    result, groups: result.groups, alpha: job.alpha, sequentialTuning: job.sequentialTuning,
                    families: result.comparisonFamilies)
            )
        }
        let summary = summaryTable(results.offerings, alpha: job.alpha)
        let comparisons = comparisonsTable(analyses)
        let srm = srmTable(analyses)
        let products = productsTable(results.offerings)
        let quality = qualityTable(results)
        let daily = try dailyTable(results.offerings, job: job)
        let maturity = maturityTable(results.offerings, alpha: job.alpha)
        let rejects = rejectsTable(results.ingest.rejects)
        let skippedFiles = skippedFilesTable(results.ingest.filesSkipped)
        let shown = [offeringsTable(results.offerings, job: job), shownProductsTable(results.offerings), shownCopyTable(results.offerings)]
        // Only a job that slices writes the slice files. The database always gets the slice
        // tables, empty without slices, so that a night re-run without them drops its old rows.
        let slices = try sliceTables(results.offerings, alpha: job.alpha, sequentialTuning: job.sequentialTuning)
        return (
            [summary, comparisons, srm, products, quality, daily, maturity, rejects, skippedFiles] + (job.slices.isEmpty ? [] : slices),
            [summary, comparisons, srm, products, quality, daily, maturity] + shown + slices
        )
    }

    /// The §2.4 columns of a group, shared by `summary` and `daily`.
    static let groupMetricColumns: [(String, ResultColumnType)] = [
        ("users", .integer), ("converters", .integer), ("conversion_rate", .real), ("conversion_ci_low", .real),
        ("conversion_ci_high", .real), ("trial_starters", .integer), ("trial_converters", .integer), ("trial_conversion_rate", .real),
        ("paywall_viewers", .integer), ("purchases", .integer), ("renewals", .integer), ("refunds", .integer), ("gross_revenue", .real),
        ("refunded_revenue", .real), ("net_revenue", .real), ("arpu", .real), ("arpu_sd", .real), ("arppu", .real),
    ]

    /// The §2.8 columns of a comparison: after `mde_abs` in `comparisons`, and with each metric's
    /// prefix after every other column in `daily`.
    static func sequentialColumns(prefix: String = "") -> [(String, ResultColumnType)] {
        [
            "seq_abs_lift_ci_low", "seq_abs_lift_ci_high", "seq_rel_lift_ci_low", "seq_rel_lift_ci_high", "seq_p_value",
            "seq_p_value_adjusted",
        ]
        .map { (prefix + $0, .real) } + [(prefix + "seq_significant", .bool)]
    }

    /// The values of ``sequentialColumns(prefix:)`` (all empty without a comparison).
    static func sequentialValues(_ row: ComparisonResult?) -> [ResultValue] {
        [row?.seqAbsLiftCILow, row?.seqAbsLiftCIHigh, row?.seqRelLiftCILow, row?.seqRelLiftCIHigh, row?.seqPValue, row?.seqPValueAdjusted]
            .map { .real($0 ?? nil) } + [.bool(row?.seqSignificant ?? nil)]
    }

    /// The statistics of an offering whose groups have `groups` totals (the night's or a day's),
    /// with `families` compared too (the night's capped and matured metrics).
    static func analyse(
        _ result: OfferingResult, groups: [GroupTotals], alpha: Double, sequentialTuning: Double, families: [ComparisonFamily] = []
    ) throws -> OfferingAnalysis {
        let inputs = result.offering.groups.enumerated().map { index, group in
            AnalysisGroup(
                name: group.name, isControl: index == result.controlGroup, weight: group.weight, statistics: groups[index].statistics)
        }
        do {
            return try analyzeOffering(inputs, alpha: alpha, sequentialTuning: sequentialTuning, families: families)
        } catch {
            throw OfferLabError(.data, "offering \(result.offering.offeringID): \(error)")
        }
    }

    static func groupMetricValues(_ totals: GroupTotals, alpha: Double) -> [ResultValue] {
        let metrics = GroupSummary(totals.statistics, alpha: alpha)
        let trialRate = totals.trialStarters == 0 ? nil : Double(totals.trialConverters) / Double(totals.trialStarters)
        return [
            .integer(totals.users), .integer(totals.converters), .real(metrics.conversionRate), .real(metrics.conversionCILow),
            .real(metrics.conversionCIHigh), .integer(totals.trialStarters), .integer(totals.trialConverters), .real(trialRate),
            .integer(totals.paywallViewers), .integer(totals.purchases), .integer(totals.renewals), .integer(totals.refunds),
            .real(totals.grossRevenue), .real(totals.refundedRevenue), .real(totals.netRevenue), .real(metrics.arpu),
            .real(metrics.arpuSD), .real(metrics.arppu),
        ]
    }

    /// §2.4's columns, then §2.9's (empty without a `revenue_cap`; `revenue_cap` also when the
    /// offering has no positive revenue to take a percentile of).
    static func summaryTable(_ offerings: [OfferingResult], alpha: Double) -> ResultTable {
        var table = ResultTable(
            name: "summary",
            columns: [("offering_id", .text), ("group", .text), ("is_control", .bool), ("weight", .real)] + groupMetricColumns
                + [("revenue_cap", .real), ("arpu_capped", .real), ("arpu_capped_sd", .real), ("capped_users", .integer)],
            keys: ["offering_id", "group"])
        for result in offerings {
            for (index, group) in result.offering.groups.enumerated() {
                let capped = result.cappedRevenue.map { GroupSummary($0.groups[index], alpha: alpha) }
                table.rows.append(
                    [.text(result.offering.offeringID), .text(group.name), .bool(index == result.controlGroup), .real(group.weight)]
                        + groupMetricValues(result.groups[index], alpha: alpha)
                        + [
                            .real(result.cappedRevenue?.cap), .real(capped?.arpu ?? nil), .real(capped?.arpuSD ?? nil),
                            .optionalInteger(result.cappedRevenue?.cappedUsers[index]),
                        ])
            }
        }
        return table
    }

    /// §2.10: one row per (offering, D, group), D ascending, groups in offering order.
    static func maturityTable(_ offerings: [OfferingResult], alpha: Double) -> ResultTable {
        var table = ResultTable(
            name: "maturity",
            columns: [
                ("offering_id", .text), ("group", .text), ("days", .integer), ("users", .integer), ("converters", .integer),
                ("conversion_rate", .real), ("net_revenue", .real), ("arpu", .real), ("arpu_sd", .real),
            ],
            keys: ["offering_id", "group", "days"])
        for result in offerings {
            for matured in result.matured {
                for (index, group) in result.offering.groups.enumerated() {
                    let statistics = matured.groups[index]
                    let summary = GroupSummary(statistics, alpha: alpha)
                    table.rows.append([
                        .text(result.offering.offeringID), .text(group.name), .integer(matured.days), .integer(statistics.users),
                        .integer(statistics.converters), .real(summary.conversionRate), .real(statistics.revenueSum), .real(summary.arpu),
                        .real(summary.arpuSD),
                    ])
                }
            }
        }
        return table
    }

    /// One row per (offering, day, group): the group's metrics as of the end of the day and,
    /// for treatments, both comparisons with the control as of then (`conversion_…`, `arpu_…`),
    /// their sequential columns last.
    static func dailyTable(_ offerings: [OfferingResult], job: Job) throws -> ResultTable {
        let alpha = job.alpha
        let metrics = ["conversion", "arpu"]
        let comparisonColumns = [
            "abs_lift", "abs_lift_ci_low", "abs_lift_ci_high", "rel_lift", "rel_lift_ci_low", "rel_lift_ci_high", "p_value",
            "p_value_adjusted",
        ]
        var columns: [(String, ResultColumnType)] =
            [("offering_id", .text), ("date", .text), ("group", .text), ("is_control", .bool)] + groupMetricColumns
        for metric in metrics {
            columns += comparisonColumns.map { ("\(metric)_\($0)", .real) }
            columns += [("\(metric)_significant", .bool), ("\(metric)_chance_to_beat_control", .real)]
        }
        columns.append(("conversion_mde_abs", .real))
        for metric in metrics { columns += sequentialColumns(prefix: "\(metric)_") }
        var table = ResultTable(name: "daily", columns: columns, keys: ["offering_id", "date", "group"])
        for result in offerings {
            for day in result.daily {
                let statistics = try analyse(result, groups: day.groups, alpha: alpha, sequentialTuning: job.sequentialTuning)
                for (index, group) in result.offering.groups.enumerated() {
                    var row: [ResultValue] = [
                        .text(result.offering.offeringID), .text(day.date), .text(group.name), .bool(index == result.controlGroup),
                    ]
                    row += groupMetricValues(day.groups[index], alpha: alpha)
                    var mde: Double?
                    let comparisons = metrics.map { metric in
                        statistics.comparisons.first { $0.group == group.name && $0.metric.csvName == metric }
                    }
                    for (metric, comparison) in zip(metrics, comparisons) {
                        row += [
                            comparison?.absLift, comparison?.absLiftCILow, comparison?.absLiftCIHigh, comparison?.relLift,
                            comparison?.relLiftCILow,
                            comparison?.relLiftCIHigh, comparison?.pValue, comparison?.pValueAdjusted,
                        ].map { .real($0 ?? nil) }
                        row += [.bool(comparison?.significant ?? nil), .real(comparison?.chanceToBeatControl ?? nil)]
                        if metric == "conversion" { mde = comparison?.mdeAbs ?? nil }
                    }
                    row.append(.real(mde))
                    for comparison in comparisons { row += sequentialValues(comparison) }
                    table.rows.append(row)
                }
            }
        }
        return table
    }

    /// The statistics of each offering, by `offering_id`, in output order.
    typealias OfferingAnalyses = [(offeringID: String, statistics: OfferingAnalysis)]

    /// The columns of `comparisons` after `offering_id` (`slice_comparisons` has them too).
    static let comparisonColumns: [(String, ResultColumnType)] =
        [
            ("group", .text), ("control_group", .text), ("metric", .text), ("control_value", .real),
            ("value", .real), ("abs_lift", .real), ("abs_lift_ci_low", .real), ("abs_lift_ci_high", .real), ("rel_lift", .real),
            ("rel_lift_ci_low", .real), ("rel_lift_ci_high", .real), ("p_value", .real), ("p_value_adjusted", .real),
            ("significant", .bool), ("chance_to_beat_control", .real), ("mde_abs", .real),
        ] + sequentialColumns()

    /// The values of ``comparisonColumns`` of one row.
    static func comparisonValues(_ row: ComparisonResult) -> [ResultValue] {
        [
            .text(row.group), .text(row.controlGroup), .text(row.metric.csvName),
            .real(row.controlValue), .real(row.value), .real(row.absLift), .real(row.absLiftCILow), .real(row.absLiftCIHigh),
            .real(row.relLift), .real(row.relLiftCILow), .real(row.relLiftCIHigh), .real(row.pValue), .real(row.pValueAdjusted),
            .bool(row.significant), .real(row.chanceToBeatControl), .real(row.mdeAbs),
        ] + sequentialValues(row)
    }

    static func comparisonsTable(_ analyses: OfferingAnalyses) -> ResultTable {
        var table = ResultTable(
            name: "comparisons", columns: [("offering_id", .text)] + comparisonColumns, keys: ["offering_id", "group", "metric"])
        for (offeringID, analysis) in analyses {
            for row in analysis.comparisons { table.rows.append([.text(offeringID)] + comparisonValues(row)) }
        }
        return table
    }

    /// The columns of `srm` after `offering_id` (`slice_srm` has them too).
    static let srmColumns: [(String, ResultColumnType)] = [("chi2", .real), ("srm_p_value", .real), ("srm_flag", .bool)]

    static func srmValues(_ srm: SampleRatioMismatchResult?) -> [ResultValue] {
        [.real(srm?.chiSquared), .real(srm?.pValue), .bool(srm?.isFlagged)]
    }

    static func srmTable(_ analyses: OfferingAnalyses) -> ResultTable {
        var table = ResultTable(name: "srm", columns: [("offering_id", .text)] + srmColumns, keys: ["offering_id"])
        for (offeringID, analysis) in analyses { table.rows.append([.text(offeringID)] + srmValues(analysis.sampleRatioMismatch)) }
        return table
    }

    static func productsTable(_ offerings: [OfferingResult]) -> ResultTable {
        var table = ResultTable(
            name: "products",
            columns: [
                ("offering_id", .text), ("group", .text), ("product_id", .text), ("purchases", .integer), ("renewals", .integer),
                ("refunds", .integer), ("net_revenue", .real),
            ],
            keys: ["offering_id", "group", "product_id"])
        for result in offerings {
            for product in result.products {
                table.rows.append([
                    .text(result.offering.offeringID), .text(result.offering.groups[product.group].name), .text(product.productID),
                    .integer(product.purchases), .integer(product.renewals), .integer(product.refunds), .real(product.netRevenue),
                ])
            }
        }
        return table
    }

    static func emptyQualityTable() -> ResultTable {
        ResultTable(
            name: "quality", columns: [("offering_id", .text), ("counter", .text), ("count", .integer)], keys: ["offering_id", "counter"])
    }

    /// Global counters first (empty `offering_id`), then each offering's.
    static func qualityTable(_ results: NightResults) -> ResultTable {
        var table = emptyQualityTable()
        let ingest = results.ingest
        var global: [(String, Int)] = [
            ("files_read", ingest.filesRead), ("files_skipped_corrupt", ingest.filesSkipped.count), ("lines_read", ingest.nonBlankLines),
            ("malformed_lines", ingest.malformedLines),
        ]
        global += MalformedReason.allCases.map { ($0.counterName, ingest.malformed[Int($0.rawValue)]) }
        global += [
            ("duplicate_events", results.cleanup.duplicateEvents), ("unknown_event_types", results.cleanup.unknownEventTypes),
            ("sandbox_events", results.cleanup.sandboxEvents), ("unassigned_events", results.cleanup.unassignedEvents),
            ("invalid_assignments", results.globalInvalidAssignments),
        ]
        for (counter, count) in global { table.rows.append([.text(""), .text(counter), .integer(count)]) }
        for result in results.offerings {
            for (counter, count) in result.quality.counters {
                table.rows.append([.text(result.offering.offeringID), .text(counter), .integer(count)])
            }
        }
        return table
    }

    /// The log files left out whole (`on_corrupt_file: skip`), with what is wrong with them.
    static func skippedFilesTable(_ files: [SkippedFile]) -> ResultTable {
        var table = ResultTable(name: "skipped_files", columns: [("file", .text), ("error", .text)], keys: ["file"])
        table.rows = files.map { [.text($0.path), .text($0.error)] }
        return table
    }

    static func rejectsTable(_ rejects: [RejectedLine]) -> ResultTable {
        var table = ResultTable(
            name: "rejects", columns: [("file", .text), ("line", .integer), ("reason", .text), ("text", .text)],
            keys: ["file", "line", "reason"])
        table.rows = rejects.map { [.text($0.file), .integer($0.line), .text($0.reason.counterName), .text($0.text)] }
        return table
    }
}
