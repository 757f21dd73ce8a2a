import OfferLabAnalysis
import OfferLabEvents
import OfferLabIngest
import OfferLabJob
import OfferLabResults
import OfferLabStatistics
import OfferLabStoreSources

/// Makes the typed night (`NightTables`) from a night's results and their statistics:
/// formatting only, every number is computed before (`NightlyRun`, `OfferingStatistics`).
package enum ResultTables {
    /// The night's tables. `statistics` is parallel to `results.offerings`; a `backfill` (a night
    /// older than the job's latest successful one) alerts nothing; `backtest`: the app's own track
    /// record, nil without a past read with its charges (no `backtest.csv`).
    package static func make(
        _ results: NightResults, statistics: [OfferingStatistics], settings: ResultTableSettings, previous: PreviousNight? = nil,
        backfill: Bool = false, backtest: [BacktestOutcome]? = nil
    ) -> NightTables {
        let analyses = zip(results.offerings, statistics).map { (offeringID: $0.offering.offeringID, statistics: $1.night) }
        var night = NightTables()
        night.summary = summary(results.offerings, statistics: statistics)
        night.comparisons = withProjectedRows(
            comparisons(analyses), offerings: results.offerings, statistics: statistics, alpha: settings.alpha)
        night.sampleRatios = sampleRatios(
            analyses, groups: results.offerings.map { $0.analysisGroups() }, concentration: settings.srmConcentration,
            earlierMinimum: previous?.sequentialSampleRatioMinimum ?? [:])
        night.products = products(results.offerings)
        night.quality = quality(results)
        night.sources = sources(results.ingest, hasLogFiles: settings.hasLogFiles) + historySources(results.historyIngest)
        night.daily = daily(results.offerings, statistics: statistics)
        night.maturity = maturity(results.offerings, statistics: statistics)
        night.rejects = rejects(results.ingest.rejects, storeNotes: results.ingest.storeNotes)
        night.skippedFiles = results.ingest.filesSkipped.map { SkippedFileRow(file: $0.path, error: $0.error) }
        night.rejectedMoney = rejectedMoney(results.ingest.rejectedMoney)
        night.offerings = offerings(results.offerings, settings: settings)
        night.shownProducts = shownProducts(results.offerings)
        night.shownCopy = shownCopy(results.offerings)
        (night.sliceSummary, night.sliceComparisons, night.sliceSampleRatios) = slices(results.offerings, statistics: statistics)
        night.projection = projection(results.offerings, statistics: statistics)
        night.decisions = decisions(
            results.offerings, statistics: statistics, sampleRatios: night.sampleRatios, settings: settings, previous: previous)
        night.alerts = backfill ? [] : alerts(decisions: night.decisions, sampleRatios: night.sampleRatios, previous: previous)
        night.writesSliceFiles = settings.writesSliceFiles
        night.backtest = Self.backtest(backtest ?? [])
        night.writesBacktestFile = backtest != nil
        return night.asWritten()
    }

    /// A group's metrics: its totals and their `summary`; docs/analysis.md §8–§9's empty when the
    /// source cannot tell them (`hasProceedsAndTrials`).
    static func groupMetrics(_ totals: GroupTotals, summary: GroupSummary, hasProceedsAndTrials: Bool = true) -> GroupMetrics {
        var metrics = GroupMetrics(
            users: totals.users, converters: totals.converters, conversionRate: summary.conversionRate,
            conversionCILow: summary.conversionCILow, conversionCIHigh: summary.conversionCIHigh, trialStarters: totals.trialStarters,
            trialConverters: totals.trialConverters,
            trialConversionRate: totals.trialStarters == 0 ? nil : Double(totals.trialConverters) / Double(totals.trialStarters),
            paywallViewers: totals.paywallViewers, purchases: totals.purchases, renewals: totals.renewals, refunds: totals.refunds,
            grossRevenue: totals.grossRevenue, refundedRevenue: totals.refundedRevenue, netRevenue: totals.netRevenue,
            arpu: summary.arpu, arpuSD: summary.arpuSD, arppu: summary.arppu)
        guard hasProceedsAndTrials else { return metrics }
        // Proceeds per user with its standard deviation: the rules of arpu and arpu_sd.
        let proceeds = totals.proceedsStatistics
        metrics.netProceeds = totals.proceedsSum
        metrics.proceedsPerUser = proceeds.revenueMean
        metrics.proceedsPerUserSD = proceeds.revenueVariance.map { $0.squareRoot() }
        metrics.exactProceedsShare = totals.exactProceedsShare
        (metrics.trialsConverted, metrics.trialsPending, metrics.trialsLapsed, metrics.trialsUnknown) = (
            totals.trialsConverted, totals.trialsPending, totals.trialsLapsed, totals.trialsUnknown
        )
        metrics.trialCompletedConversionRate = totals.trialCompletedConversionRate
        (metrics.activeSubscribers, metrics.churnedSubscribers) = (totals.activeSubscribers, totals.churnedSubscribers)
        metrics.refundUsers = totals.refundUsers
        metrics.refundUserRate = totals.users == 0 ? nil : Double(totals.refundUsers) / Double(totals.users)
        return metrics
    }

    /// docs/analysis.md §4's columns, then §4b's (empty without a `revenue_cap`; `revenue_cap` also when the
    /// offering has no positive revenue to take a percentile of).
    static func summary(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> [SummaryRow] {
        zip(offerings, statistics).flatMap { result, statistics in
            result.offering.groups.enumerated().map { index, group in
                let capped = statistics.capped?[index]
                return SummaryRow(
                    offeringID: result.offering.offeringID, group: group.name, isControl: index == result.controlGroup,
                    weight: group.weight,
                    metrics: groupMetrics(
                        result.groups[index], summary: statistics.night.summaries[index],
                        hasProceedsAndTrials: result.hasProceedsAndTrials),
                    revenueCap: result.cappedRevenue?.cap, arpuCapped: capped?.arpu ?? nil, arpuCappedSD: capped?.arpuSD ?? nil,
                    cappedUsers: result.cappedRevenue?.cappedUsers[index])
            }
        }
    }

    package static func summaryTable(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> ResultTable {
        SummaryRow.table.table(summary(offerings, statistics: statistics))
    }

    /// docs/analysis.md §4c: one row per (offering, D, group), D ascending, groups in offering order.
    static func maturity(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> [MaturityRow] {
        var rows: [MaturityRow] = []
        for (result, offeringStatistics) in zip(offerings, statistics) {
            for (matured, summaries) in zip(result.matured, offeringStatistics.matured) {
                for (index, group) in result.offering.groups.enumerated() {
                    let statistics = matured.groups[index]
                    let summary = summaries[index]
                    rows.append(
                        MaturityRow(
                            offeringID: result.offering.offeringID, group: group.name, days: matured.days, users: statistics.users,
                            converters: statistics.converters, conversionRate: summary.conversionRate, netRevenue: statistics.revenueSum,
                            arpu: summary.arpu, arpuSD: summary.arpuSD))
                }
            }
        }
        return rows
    }

    package static func maturityTable(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> ResultTable {
        MaturityRow.table.table(maturity(offerings, statistics: statistics))
    }

    /// One row per (offering, day, group): the group's metrics as of the end of the day and,
    /// for treatments, each compared metric's comparison with the control as of then.
    static func daily(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> [DailyRow] {
        var rows: [DailyRow] = []
        for (result, statistics) in zip(offerings, statistics) {
            for (day, analysis) in zip(result.daily, statistics.daily) {
                for (index, group) in result.offering.groups.enumerated() {
                    var row = DailyRow(
                        offeringID: result.offering.offeringID, date: day.date, group: group.name, isControl: index == result.controlGroup,
                        metrics: groupMetrics(day.groups[index], summary: analysis.summaries[index]))
                    for metric in DailyRow.comparedMetrics {
                        guard
                            let comparison = analysis.comparisons.first(where: {
                                $0.group == group.name && $0.metric.csvName == metric.name
                            })
                        else { continue }
                        row[keyPath: metric.field] = DailyComparison(lift: LiftValues(comparison), sequential: SequentialValues(comparison))
                        if metric.name == OwnMetric.conversion.rawValue { row.conversionMDE = comparison.mdeAbs }
                    }
                    rows.append(row)
                }
            }
        }
        return rows
    }

    /// The statistics of each offering, by `offering_id`, in output order.
    package typealias OfferingAnalyses = [(offeringID: String, statistics: OfferingAnalysis)]

    static func comparisons(_ analyses: OfferingAnalyses) -> [ComparisonRow] {
        analyses.flatMap { offeringID, analysis in
            analysis.comparisons.map { ComparisonRow(offeringID: offeringID, comparison: ComparisonValues($0)) }
        }
    }

    package static func comparisonsTable(_ analyses: OfferingAnalyses) -> ResultTable {
        ComparisonRow.table.table(comparisons(analyses))
    }

    /// `srm`: per offering the χ² check, and the always-valid one (docs/statistics.md,
    /// "Sequential sample ratio") at `concentration`, its p-value the least of tonight's and
    /// `earlierMinimum[offering]` (the job's earlier successful nights).
    static func sampleRatios(
        _ analyses: OfferingAnalyses, groups: [[AnalysisGroup]], concentration: Double, earlierMinimum: [String: Double] = [:]
    ) -> [SampleRatioRow] {
        zip(analyses, groups).map { analysis, groups in
            var row = SampleRatioRow(offeringID: analysis.offeringID, check: SampleRatioValues(analysis.statistics.sampleRatioMismatch))
            row.seqLogBayesFactor = SequentialSampleRatio.logBayesFactor(
                users: groups.map(\.statistics.users), weights: groups.map(\.weight), concentration: concentration)
            let tonight = row.seqLogBayesFactor.map { SequentialSampleRatio.pValue(logBayesFactor: $0) }
            let earlier = earlierMinimum[analysis.offeringID]
            row.seqPValue = tonight.map { min($0, earlier ?? 1) } ?? earlier
            row.seqFlagged = row.seqPValue.map { $0 < sampleRatioMismatchThreshold }
            return row
        }
    }

    package static func srmTable(_ analyses: OfferingAnalyses, groups: [[AnalysisGroup]], concentration: Double) -> ResultTable {
        SampleRatioRow.table.table(sampleRatios(analyses, groups: groups, concentration: concentration))
    }

    static func products(_ offerings: [OfferingResult]) -> [ProductRow] {
        offerings.flatMap { result in
            result.products.map { product in
                ProductRow(
                    offeringID: result.offering.offeringID, group: result.offering.groups[product.group].name, productID: product.productID,
                    purchases: product.purchases, renewals: product.renewals, refunds: product.refunds, netRevenue: product.netRevenue,
                    netProceeds: product.netProceeds)
            }
        }
    }

    package static func productsTable(_ offerings: [OfferingResult]) -> ResultTable {
        ProductRow.table.table(products(offerings))
    }

    /// Global counters first (empty `offering_id`), then each offering's. A job that reads a
    /// store source also gets the store's counters (docs/analysis.md §5), totalled over its
    /// formats: its own malformed reasons after those of docs/input-formats.md#malformed-lines, the
    /// others last; other jobs' files are as they were.
    package static func quality(_ results: NightResults) -> [QualityRow] {
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
        return global.map { QualityRow(counter: $0, count: $1) }
            + results.offerings.flatMap { result in
                result.quality.counters.map { QualityRow(offeringID: result.offering.offeringID, counter: $0, count: $1) }
            }
    }

    /// `sources.csv` (docs/analysis.md §5): per source format the job reads, in the order of
    /// `SourceFormat`, `lines_read` and each counter that applies to it, zeros included: for the
    /// purchase logs (`offerlab`, when the job has any) the reasons of
    /// docs/input-formats.md#malformed-lines, for a store format every store counter.
    static func sources(_ ingest: IngestCounters, hasLogFiles: Bool) -> [SourceRow] {
        ingest.sourceCounts(hasLogFiles: hasLogFiles).flatMap { format, counts in
            let counters =
                format == .offerlab ? StoreCounter.allCases.filter { $0 == .linesRead || $0.malformedReason != nil } : StoreCounter.allCases
            return counters.map { SourceRow(source: format.rawValue, counter: $0.rawValue, count: counts[$0]) }
        }
    }

    /// The `history_logs` files' rows (docs/statistics.md#the-apps-past), as the purchase logs'
    /// with `source` `history_logs`: their lines never count in the night's own rows.
    static func historySources(_ ingest: IngestCounters?) -> [SourceRow] {
        guard let ingest else { return [] }
        return sources(ingest, hasLogFiles: true).map { row in
            var row = row
            row.source = "history_logs"
            return row
        }
    }

    static func rejectedMoney(_ money: RejectedMoney) -> [RejectedMoneyRow] {
        money.amounts.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { currency, amount in
            RejectedMoneyRow(
                currency: currency, lines: amount.lines, amount: Double(amount.micros) / 1_000_000,
                negativeAmount: Double(amount.negativeMicros) / 1_000_000)
        } + (money.unreadable > 0 ? [RejectedMoneyRow(lines: money.unreadable)] : [])
    }

    /// The purchase logs' rejected lines (their text; docs/input-formats.md#malformed-lines), then
    /// the store sources' rejected or noted lines at their original file and line (what was wrong).
    static func rejects(_ rejects: [RejectedLine], storeNotes: [StoreLineNote] = []) -> [RejectRow] {
        rejects.map { RejectRow(file: $0.file, line: $0.line, reason: $0.reason.counterName, text: $0.text) }
            + storeNotes.map { RejectRow(file: $0.path, line: $0.line, reason: $0.counter.rawValue, text: $0.detail) }
    }
}
