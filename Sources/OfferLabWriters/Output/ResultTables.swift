import OfferLabAnalysis
import OfferLabEvents
import OfferLabIngest
import OfferLabJob
import OfferLabResults
import OfferLabStatistics
import OfferLabStoreSources

/// Builds the output tables of a night from its results and their statistics: formatting only,
/// every number is computed before (`NightlyRun`, `OfferingStatistics`).
package enum ResultTables {
    /// `files`: the CSV files; `database`: the tables stored in SQLite (the report's source, see
    /// `ResultTables+Report.swift`). `statistics` is parallel to `results.offerings`.
    package static func make(_ results: NightResults, statistics: [OfferingStatistics], job: Job) -> (
        files: [ResultTable], database: [ResultTable]
    ) {
        let analyses = zip(results.offerings, statistics).map { (offeringID: $0.offering.offeringID, statistics: $1.night) }
        let summary = summaryTable(results.offerings, statistics: statistics)
        let comparisons = withProjectedRows(
            comparisonsTable(analyses), offerings: results.offerings, statistics: statistics, alpha: job.alpha)
        let srm = srmTable(analyses)
        let products = productsTable(results.offerings)
        let quality = qualityTable(results)
        let sources = sourcesTable(results.ingest, hasLogFiles: !job.logFiles.isEmpty)
        let daily = dailyTable(results.offerings, statistics: statistics)
        let maturity = maturityTable(results.offerings, statistics: statistics)
        let rejects = rejectsTable(results.ingest.rejects, storeNotes: results.ingest.storeNotes)
        let skippedFiles = skippedFilesTable(results.ingest.filesSkipped)
        let shown = [offeringsTable(results.offerings, job: job), shownProductsTable(results.offerings), shownCopyTable(results.offerings)]
        // Only a job that slices writes the slice files. The database always gets the slice
        // tables, empty without slices, so that a night re-run without them drops its old rows.
        let slices = sliceTables(results.offerings, statistics: statistics)
        let projection = projectionTable(results.offerings, statistics: statistics)
        return (
            [summary, comparisons, srm, products, quality, sources, daily, maturity, rejects, skippedFiles]
                + (job.slices.isEmpty ? [] : slices) + [projection],
            [summary, comparisons, srm, products, quality, sources, daily, maturity, rejectedMoneyTable(results.ingest.rejectedMoney)]
                + shown + slices + [projection]
        )
    }

    /// The values of ``ResultColumn/sequential`` (all empty without a comparison).
    static func sequentialValues(_ row: ComparisonResult?) -> [ResultValue] {
        [row?.seqAbsLiftCILow, row?.seqAbsLiftCIHigh, row?.seqRelLiftCILow, row?.seqRelLiftCIHigh, row?.seqPValue, row?.seqPValueAdjusted]
            .map { .real($0 ?? nil) } + [.bool(row?.seqSignificant ?? nil)]
    }

    /// The values of ``ResultColumn/lift`` (all empty without a comparison).
    static func liftValues(_ row: ComparisonResult?) -> [ResultValue] {
        [
            row?.absLift, row?.absLiftCILow, row?.absLiftCIHigh, row?.relLift, row?.relLiftCILow, row?.relLiftCIHigh, row?.pValue,
            row?.pValueAdjusted,
        ].map { .real($0 ?? nil) } + [.bool(row?.significant ?? nil), .real(row?.chanceToBeatControl ?? nil)]
    }

    /// The values of ``ResultColumn/groupMetrics``: a group's totals and their `summary`.
    static func groupMetricValues(_ totals: GroupTotals, summary: GroupSummary, hasProceedsAndTrials: Bool = true) -> [ResultValue] {
        let trialRate = totals.trialStarters == 0 ? nil : Double(totals.trialConverters) / Double(totals.trialStarters)
        return [
            .integer(totals.users), .integer(totals.converters), .real(summary.conversionRate), .real(summary.conversionCILow),
            .real(summary.conversionCIHigh), .integer(totals.trialStarters), .integer(totals.trialConverters), .real(trialRate),
            .integer(totals.paywallViewers), .integer(totals.purchases), .integer(totals.renewals), .integer(totals.refunds),
            .real(totals.grossRevenue), .real(totals.refundedRevenue), .real(totals.netRevenue), .real(summary.arpu),
            .real(summary.arpuSD), .real(summary.arppu),
        ]
            + (hasProceedsAndTrials
                ? proceedsAndTrialValues(totals) : Array(repeating: .real(nil), count: proceedsAndTrialValues(totals).count))
    }

    /// docs/analysis.md §8–§9's columns of ``ResultColumn/groupMetrics``: proceeds, per user with its
    /// standard deviation (the rules of arpu and arpu_sd), then trials and subscribers.
    static func proceedsAndTrialValues(_ totals: GroupTotals) -> [ResultValue] {
        let proceeds = totals.proceedsStatistics
        return [
            .real(totals.proceedsSum), .real(proceeds.revenueMean), .real(proceeds.revenueVariance.map { $0.squareRoot() }),
            .integer(totals.trialsConverted),
            .integer(totals.trialsPending), .integer(totals.trialsLapsed), .integer(totals.trialsUnknown),
            .real(totals.trialCompletedConversionRate), .integer(totals.activeSubscribers), .integer(totals.churnedSubscribers),
        ]
    }

    /// docs/analysis.md §4's columns, then §4b's (empty without a `revenue_cap`; `revenue_cap` also when the
    /// offering has no positive revenue to take a percentile of).
    package static func summaryTable(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> ResultTable {
        var table = ResultTable(.summary)
        for (result, statistics) in zip(offerings, statistics) {
            for (index, group) in result.offering.groups.enumerated() {
                let capped = statistics.capped?[index]
                table.rows.append(
                    [.text(result.offering.offeringID), .text(group.name), .bool(index == result.controlGroup), .real(group.weight)]
                        + groupMetricValues(
                            result.groups[index], summary: statistics.night.summaries[index],
                            hasProceedsAndTrials: result.hasProceedsAndTrials)
                        + [
                            .real(result.cappedRevenue?.cap), .real(capped?.arpu ?? nil), .real(capped?.arpuSD ?? nil),
                            .optionalInteger(result.cappedRevenue?.cappedUsers[index]),
                        ])
            }
        }
        return table
    }

    /// docs/analysis.md §4c: one row per (offering, D, group), D ascending, groups in offering order.
    package static func maturityTable(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> ResultTable {
        var table = ResultTable(.maturity)
        for (result, offeringStatistics) in zip(offerings, statistics) {
            for (matured, summaries) in zip(result.matured, offeringStatistics.matured) {
                for (index, group) in result.offering.groups.enumerated() {
                    let statistics = matured.groups[index]
                    let summary = summaries[index]
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
    static func dailyTable(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> ResultTable {
        var table = ResultTable(.daily)
        for (result, statistics) in zip(offerings, statistics) {
            for (day, analysis) in zip(result.daily, statistics.daily) {
                for (index, group) in result.offering.groups.enumerated() {
                    var row: [ResultValue] = [
                        .text(result.offering.offeringID), .text(day.date), .text(group.name), .bool(index == result.controlGroup),
                    ]
                    row += groupMetricValues(day.groups[index], summary: analysis.summaries[index])
                    func comparison(_ metric: String) -> ComparisonResult? {
                        analysis.comparisons.first { $0.group == group.name && $0.metric.csvName == metric }
                    }
                    let comparisons = ResultColumn.dailyComparedMetrics.map(comparison)
                    for comparison in comparisons { row += liftValues(comparison) }
                    row.append(.real(comparison(OwnMetric.conversion.rawValue)?.mdeAbs ?? nil))
                    for comparison in comparisons { row += sequentialValues(comparison) }
                    table.rows.append(row)
                }
            }
        }
        return table
    }

    /// The statistics of each offering, by `offering_id`, in output order.
    package typealias OfferingAnalyses = [(offeringID: String, statistics: OfferingAnalysis)]

    /// The values of ``ResultColumn/comparison`` of one row.
    static func comparisonValues(_ row: ComparisonResult) -> [ResultValue] {
        [.text(row.group), .text(row.controlGroup), .text(row.metric.csvName), .real(row.controlValue), .real(row.value)]
            + liftValues(row) + [.real(row.mdeAbs)] + sequentialValues(row)
            + [
                row.absLiftCILowAdjusted, row.absLiftCIHighAdjusted, row.relLiftCILowAdjusted, row.relLiftCIHighAdjusted,
                row.seqAbsLiftCILowAdjusted, row.seqAbsLiftCIHighAdjusted, row.seqRelLiftCILowAdjusted, row.seqRelLiftCIHighAdjusted,
            ].map { .real($0) }
    }

    package static func comparisonsTable(_ analyses: OfferingAnalyses) -> ResultTable {
        var table = ResultTable(.comparisons)
        for (offeringID, analysis) in analyses {
            for row in analysis.comparisons { table.rows.append([.text(offeringID)] + comparisonValues(row)) }
        }
        return table
    }

    /// The values of ``ResultColumn/srm``.
    static func srmValues(_ srm: SampleRatioMismatchResult?) -> [ResultValue] {
        [.real(srm?.chiSquared), .real(srm?.pValue), .bool(srm?.isFlagged)]
    }

    package static func srmTable(_ analyses: OfferingAnalyses) -> ResultTable {
        var table = ResultTable(.srm)
        for (offeringID, analysis) in analyses { table.rows.append([.text(offeringID)] + srmValues(analysis.sampleRatioMismatch)) }
        return table
    }

    package static func productsTable(_ offerings: [OfferingResult]) -> ResultTable {
        var table = ResultTable(.products)
        for result in offerings {
            for product in result.products {
                table.rows.append([
                    .text(result.offering.offeringID), .text(result.offering.groups[product.group].name), .text(product.productID),
                    .integer(product.purchases), .integer(product.renewals), .integer(product.refunds), .real(product.netRevenue),
                    .real(product.netProceeds),
                ])
            }
        }
        return table
    }

    /// Global counters first (empty `offering_id`), then each offering's. A job that reads a
    /// store source also gets the store's counters (contract §1.6), totalled over its formats:
    /// its own malformed reasons after those of §1.3, the others last; other jobs' files are as
    /// they were.
    static func qualityTable(_ results: NightResults) -> ResultTable {
        var table = ResultTable(.quality)
        let ingest = results.ingest
        var global: [(String, Int)] = [
            ("files_read", ingest.filesRead), ("files_skipped_corrupt", ingest.filesSkipped.count), ("lines_read", ingest.nonBlankLines),
            ("malformed_lines", ingest.malformedLines),
        ]
        global += MalformedReason.allCases.map { ($0.counterName, ingest.malformed[Int($0.rawValue)]) }
        let storeCounters = ingest.storeCounts.isEmpty ? [] : StoreCounter.allCases.filter { $0.malformedReason == nil }
        func storeTotal(_ counter: StoreCounter) -> (String, Int) {
            (counter.rawValue, ingest.storeCounts.values.reduce(0) { $0 + $1[counter] })
        }
        global += storeCounters.filter(\.isMalformed).map(storeTotal)
        global += [
            ("duplicate_events", results.cleanup.duplicateEvents), ("unknown_event_types", results.cleanup.unknownEventTypes),
            ("sandbox_events", results.cleanup.sandboxEvents), ("unassigned_events", results.cleanup.unassignedEvents),
            ("invalid_assignments", results.globalInvalidAssignments),
        ]
        global += storeCounters.filter { !$0.isMalformed && $0 != .linesRead }.map(storeTotal)
        for (counter, count) in global { table.rows.append([.text(""), .text(counter), .integer(count)]) }
        for result in results.offerings {
            for (counter, count) in result.quality.counters {
                table.rows.append([.text(result.offering.offeringID), .text(counter), .integer(count)])
            }
        }
        return table
    }

    /// `sources.csv` (contract §1.6): per source format the job reads, in the order of
    /// `SourceFormat`, `lines_read` and each counter that applies to it, zeros included: for the
    /// §1.2 logs (`offerlab`, when the job has any) the reasons of §1.3, for a store format every
    /// store counter.
    static func sourcesTable(_ ingest: IngestCounters, hasLogFiles: Bool) -> ResultTable {
        var table = ResultTable(.sources)
        for (format, counts) in ingest.sourceCounts(hasLogFiles: hasLogFiles) {
            let counters =
                format == .offerlab ? StoreCounter.allCases.filter { $0 == .linesRead || $0.malformedReason != nil } : StoreCounter.allCases
            for counter in counters { table.rows.append([.text(format.rawValue), .text(counter.rawValue), .integer(counts[counter])]) }
        }
        return table
    }

    /// The log files left out whole (`on_corrupt_file: skip`), with what is wrong with them.
    static func skippedFilesTable(_ files: [SkippedFile]) -> ResultTable {
        var table = ResultTable(.skippedFiles)
        table.rows = files.map { [.text($0.path), .text($0.error)] }
        return table
    }

    static func rejectedMoneyTable(_ money: RejectedMoney) -> ResultTable {
        var table = ResultTable(.rejectedMoney)
        table.rows = money.amounts.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { currency, amount in
            [.text(""), .text(currency), .integer(amount.lines), .real(Double(amount.micros) / 1_000_000)]
        }
        if money.unreadable > 0 { table.rows.append([.text(""), .text(""), .integer(money.unreadable), .real(nil)]) }
        return table
    }

    /// The §1.2 logs' rejected lines (their text), then the store sources' rejected or noted
    /// lines at their original file and line (what was wrong).
    static func rejectsTable(_ rejects: [RejectedLine], storeNotes: [StoreLineNote] = []) -> ResultTable {
        var table = ResultTable(.rejects)
        table.rows = rejects.map { [.text($0.file), .integer($0.line), .text($0.reason.counterName), .text($0.text)] }
        table.rows += storeNotes.map { [.text($0.path), .integer($0.line), .text($0.counter.rawValue), .text($0.detail)] }
        return table
    }
}
