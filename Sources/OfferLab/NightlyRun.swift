import Foundation
import OfferLabAnalysis
import OfferLabEvents
import OfferLabIngest
import OfferLabJob
import OfferLabReport
import OfferLabResults
import OfferLabStatistics
import OfferLabSupport
import OfferLabTables
import OfferLabWarehouse
import OfferLabWriters

/// What a finished run reports back to the command line.
package struct RunReport: Sendable {
    /// The folder the outputs were written to.
    package var outputFolder: String
    package var databasePath: String
    package var offerings: [String]
    package var linesRead: Int
    package var malformedLines: Int
    package var skippedFiles: [String]
    /// What the run did with the job's parsed-log cache; nil without one.
    package var cache: CacheUsage?
    /// Warnings for the person or the cron job that runs it (without a `warning: ` prefix):
    /// money left out for want of a rate, offerings whose control falls back.
    package var warnings: [String] = []
    /// Per (offering, treatment): `<offering> <group>: <status>: <reason>` (docs/statistics.md, "The decision").
    package var decisions: [String] = []
    /// `alert: …` per change since the job's previous successful night (docs/reliability.md, "Alerts").
    package var alerts: [String] = []
}

/// `offerlab run`: tables and logs in, outputs and database rows out.
///
/// The stages, in the order data meets them (`run` calls them): the offering and assignment
/// tables and the log files (`compute`); clean-up, attribution and the per-group sufficient
/// statistics (`analyse`); the statistics (`statistics(of:settings:)`); the typed night of result
/// tables (`ResultTables.make`); the writers of the CSV files, the database and the report (`write`).
package enum NightlyRun {
    package static let toolVersion = "0.1.0"

    /// Runs `job`, reporting progress through `progress` (nil: quiet).
    /// - Throws: `OfferLabError`; on any error the previous outputs are left as they were.
    /// With `parts`, also writes the night's parts into that folder once the night is written
    /// (`RunParts`: what `offerlab stats --parts` reads, and an engine's parts must equal).
    package static func run(_ job: Job, progress: ProgressReporter? = nil, parts: String? = nil) async throws -> RunReport {
        try await night(of: job, parts: parts) { cache in
            let results = try await compute(job, progress: progress, cache: cache)
            return (results, try await observe(results.backtestCohorts, width: job.run.threads))
        }
    }

    /// A night of `job` from what `results` computes (`run`'s own pass over the inputs, or the
    /// night's parts: `PartsNight`), through the one way every night takes: the checks of a
    /// broken night, the statistics, the typed tables, the writers. `results` is handed the
    /// job's parsed-log cache (nil without one, or when `readsLogs` is false: then the cache is
    /// neither opened nor trimmed).
    package static func night(
        of job: Job, parts: String? = nil, readsLogs: Bool = true,
        results compute: (ParsedLogCache?) async throws -> (NightResults, [ObservedCohort]?)
    ) async throws -> RunReport {
        let startedAt = Date()
        let lock = try RunLock(path: job.outputs.databasePath + ".lock", timeoutSeconds: job.run.lockTimeoutSeconds)
        defer { withExtendedLifetime(lock) {} }
        let output = OutputSettings(job)
        if let other = ResultsDatabase.otherJob(sharingOutputOf: output) {
            throw OfferLabError(
                .cannotWrite,
                "output \(job.outputs.outputPath) is already written by another job file, \(other) (database \(job.outputs.databasePath)); "
                    + "this job (\(job.identity)) would replace its files: give each job its own output",
                location: .init(path: job.outputs.outputPath, jobKey: "output"))
        }
        let cache = try (readsLogs ? job.outputs.cachePath : nil).map {
            try ParsedLogCache(folder: $0, rejectsPerReason: job.outputs.rejectsPerReason, keptSliceFields: job.analysis.keptSliceFields)
        }
        let (results, cohorts) = try await compute(cache)
        let previous = ResultsDatabase.previousNight(of: output)
        try RunChecks.brokenNight(results, previous: previous, job: job)
        let analyses = try await statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run))
        let night = ResultTables.make(
            results, statistics: analyses, settings: ResultTableSettings(job), previous: previous,
            backfill: ResultsDatabase.hasLaterNight(of: output),
            backtest: try await backtest(of: cohorts, settings: StatisticsSettings(job.estimators, run: job.run)))
        let offeringIDs = results.offerings.map(\.offering.offeringID)
        var run = RunRecord(
            job: output.jobIdentity, output: JobIdentity.resolved(job.outputs.outputPath), night: job.run.night,
            startedAt: UTCTime.isoText(date: startedAt), finishedAt: UTCTime.isoText(date: Date()), status: "succeeded",
            toolVersion: toolVersion,
            inputFiles: (job.inputs.logFiles + job.inputs.storeSources.flatMap(\.files) + job.history.files).map {
                ($0, Int64(fileSize(atPath: $0) ?? 0))
            }
        )
        run.signaturesVerified = job.inputs.signaturesVerified
        run.historyGlobsWithoutFiles = job.history.globsWithoutFiles
        let outputFolder = try write(night, offeringIDs: offeringIDs, run: run, to: output)
        if let parts { try RunParts.write(results, cohorts: cohorts, job: job, to: parts) }
        cache?.removeUnusedEntries()
        return RunReport(
            outputFolder: outputFolder, databasePath: job.outputs.databasePath, offerings: offeringIDs,
            linesRead: results.ingest.nonBlankLines, malformedLines: results.ingest.malformedLines,
            skippedFiles: results.ingest.filesSkipped.map(\.path),
            cache: cache?.usageSoFar, warnings: results.warnings, decisions: night.decisionLines, alerts: night.alertLines)
    }

    /// The writers: the night's CSV files and report into its output folder, its rows into the
    /// database. Returns the folder.
    /// - Throws: `OfferLabError`; the database and the folder are then as they were.
    private static func write(_ night: NightTables, offeringIDs: [String], run: RunRecord, to output: OutputSettings) throws -> String {
        let folder = try OutputFolder(output: output.outputPath, night: output.night)
        // The CSV files are written on another core while the database transaction runs and
        // the report is written. The folder is swapped in last inside the transaction, and swapped
        // back when the commit fails: the database and the folder change together or not at all.
        let csvFiles = try ConcurrentWork {
            for (index, table) in night.files.enumerated() {
                try folder.write("\(table.name).csv", contents: CSVWriter.csv(table))
                if index == 0 { TestPause.at(.writingCSV) }
            }
        }
        var swapped: Bool?
        do {
            try ResultsDatabase.write(
                path: output.databasePath, tables: night.databaseTables, offeringIDs: offeringIDs, run: run,
                beforeCommit: {
                    try folder.write("report.html", contents: HTMLReport.render(ReportData(night: night, run: run)))
                    try csvFiles.wait()
                    TestPause.at(.swapping)
                    swapped = try folder.swapIn()
                    TestPause.at(.swapped)
                })
            folder.finish()
            FailedRunRejects.remove(output: output.outputPath, night: output.night)
        } catch {
            // The staging folder goes once the CSV files are no longer being written. Their
            // error, when they failed too, is the one reported: it is the earlier step.
            defer {
                if let hadPrevious = swapped { folder.restore(hadPrevious: hadPrevious) } else { folder.discard() }
            }
            try csvFiles.wait()
            throw error
        }
        return folder.finalPath
    }

    /// Reads the inputs and computes every number (no output is touched, but for the rejects of
    /// a run failing for too many malformed lines: `checkMalformedLines`).
    static func compute(_ job: Job, progress: ProgressReporter?, cache: ParsedLogCache? = nil) async throws -> NightResults {
        let source = try TableSource(path: job.inputs.tablesPath, inflater: job.run.inflater)
        let catalog = try CatalogLoader.load(from: source)
        let analysed = try catalog.analysedOfferings(named: job.analysis.offerings, jobPath: job.jobPath)
        // A control no offering has is a typo: the job is bad before any log is read (which
        // offerings fall back is known once the assignments say which are analysed).
        _ = try RunChecks.control(
            job.analysis.control, offerings: (analysed ?? Array(catalog.offerings.indices)).map { catalog.offerings[$0] },
            jobPath: job.jobPath)
        // The store sources' user_transactions table too: a broken one fails the run before any
        // log is read, as a broken catalog does.
        let userTransactions = job.inputs.storeSources.isEmpty ? [:] : try UserTransactions.load(from: source)
        progress?.say("catalog tables read")
        // The assignment table is read while the store files and the first log files are (see `LogIngest`).
        let populationTask = Task {
            let population = try Population.load(from: source, catalog: catalog, asOf: job.run.night.microseconds, progress: progress)
            progress?.say("\(population.users.count) assigned users")
            return population
        }
        let store: EventStore
        do {
            // The store sources are read, verified (App Store files kept in the cache) and resolved
            // before the logs (`LogIngest` appends their events after the logs'): read beside them,
            // their records and the logs' entries held fresh memory at once (a 1M-user later night
            // with Google Play peaked at 570 MiB, against 440 one after the other).
            let storeNight =
                job.inputs.storeSources.isEmpty
                ? nil
                : try await StoreSourceIngest.read(
                    settings: StoreReadingSettings(job), userTransactions: userTransactions, width: job.run.threads, cache: cache,
                    keepsResolution: true)
            if let storeNight { progress?.say("store sources read: \(storeNight.files.count) files, \(storeNight.eventCount) events") }
            store = try await LogIngest.read(
                settings: IngestSettings(job), population: populationTask, progress: progress, width: job.run.threads, cache: cache,
                storeNight: storeNight)
        } catch {
            // A broken assignment table is reported before a broken log or store file, as when
            // they were read one after the other.
            _ = try await populationTask.value
            throw error
        }
        let population = try await populationTask.value
        let analysedIndices = analysed ?? catalog.offerings.indices.filter { population.hasRowsBeforeAsOf[$0] }
        let controlWarnings = try RunChecks.control(
            job.analysis.control, offerings: analysedIndices.map { catalog.offerings[$0] }, jobPath: job.jobPath)

        try checkMalformedLines(store.counters, job: job)
        let candidates = analysed ?? Array(catalog.offerings.indices)
        try RunChecks.asOfBeforeEveryMember(
            job, offerings: candidates.map { catalog.offerings[$0].offeringID },
            haveMembers: candidates.contains { !population.members[$0].isEmpty })
        // The app's past (docs/statistics.md#the-apps-past): its files after the logs, through
        // the same parser and cache, each reduced to its charges and refunds; a chain runs across
        // them and the logs by its ids' text.
        var past: AppPast?
        var historyCounters: IngestCounters?
        if !job.history.patterns.isEmpty {
            let settings = IngestSettings(job, history: true)
            let history = try await LogIngest.readPast(settings: settings, progress: progress, width: job.run.threads, cache: cache)
            historyCounters = history.counters
            let asOf = job.run.night.microseconds
            if case .chains(let chains) = history.past {
                past = AppPast(
                    logs: store, chains: chains, users: population.users, offeringCatalog: catalog, asOf: asOf, rates: job.analysis.rates)
            }
            if past == nil {
                // Without chains, or with logs that overlap them: the files themselves.
                var files = history.past.files
                if files == nil {
                    files = try await LogIngest.readPast(
                        settings: settings, progress: progress, width: job.run.threads, cache: cache, chains: false
                    )
                    .past.files
                }
                past = AppPast(
                    logs: store, past: files ?? [], users: population.users, offeringCatalog: catalog, asOf: asOf, rates: job.analysis.rates
                )
            }
            progress?.say("history read: \(job.history.files.count) files, \(history.past.eventCount) charges and refunds")
        }
        let (eventsBeforeAsOf, latestEvent) = (store.count, store.latestTimestamp)
        try RunChecks.boundedAsOf(job, latestEvent: latestEvent, nowMicroseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
        // Consumed, not copied: a second reference would keep every file's records alive until
        // the analysis is done, although clean-up releases them as it regroups them.
        var results = try await analyse(
            catalog: catalog, population: population, store: consume store, offerings: analysedIndices,
            settings: AnalysisSettings(job.analysis, run: job.run),
            past: past, progress: progress)
        results.historyIngest = historyCounters
        results.backtestCohorts = past?.backtest.ready
        results.eventsBeforeAsOf = eventsBeforeAsOf
        results.latestEvent = latestEvent
        let rejectsFile = ((job.outputs.outputPath as NSString).appendingPathComponent(job.run.night.date) as NSString)
            .appendingPathComponent(
                "rejects.csv")
        results.warnings =
            try RunChecks.filesWithoutValidLines(results.ingest)
            + RunChecks.rejectedMoney(results.ingest.rejectedMoney, rejectsFile: rejectsFile) + controlWarnings
            + RunChecks.unconvertibleMoney(
                results.offerings, reportCurrency: job.analysis.reportCurrency, maxShare: job.analysis.maxUnconvertibleMoneyShare)
            + RunChecks.projectionWithoutPeriods(results.offerings)
            + RunChecks.history(job: job, counters: historyCounters) + RunChecks.backtest(results.backtestCohorts, job: job)
        return results
    }

    /// Fails the run when malformed lines are over `max_bad_line_ratio`, naming the files with
    /// the most of them, and keeps the run's rejects where the error says (`FailedRunRejects`).
    /// - Throws: `.tooManyMalformedLines`.
    static func checkMalformedLines(_ counters: IngestCounters, job: Job) throws {
        let ratio = counters.nonBlankLines == 0 ? 0 : Double(counters.malformedLines) / Double(counters.nonBlankLines)
        guard ratio > job.inputs.maxBadLineRatio else { return }
        // Stable: among files with as many malformed lines, the first in path order comes first.
        let worst = counters.malformedFiles.enumerated().sorted { ($0.element.lines, $1.offset) > ($1.element.lines, $0.offset) }.prefix(3)
        let rejects: String
        do {
            rejects =
                "their first lines of each reason are in \(try FailedRunRejects.write(counters, output: job.outputs.outputPath, night: job.run.night))"
        } catch let error as OfferLabError {
            rejects = "their first lines could not be kept (\(error.message))"
        }
        throw OfferLabError(
            .tooManyMalformedLines,
            "\(counters.malformedLines) of \(counters.nonBlankLines) log lines are malformed (\(percent(ratio))), over max_bad_line_ratio \(job.inputs.maxBadLineRatio); "
                + "most in \(worst.map { "\($0.element.path) (\($0.element.lines))" }.joined(separator: ", ")); \(rejects)")
    }

    /// Clean-up, attribution and the per-group sums (docs/analysis.md §2–§4c, §7) for the given offerings (catalog indices), on events
    /// already read. The store is consumed: its records are released while clean-up regroups
    /// them by user.
    ///
    /// The members of all offerings are evaluated in runs of `membersPerRun`, on every core,
    /// and each offering's contributions are added up: so an offering's analysis has both cores
    /// even when it is the only one, or the largest. The numbers do not depend on the threads:
    /// counts are integers and money sums exact (`ExactMoney`).
    static func analyse(
        catalog: OfferingCatalog, population: Population, store: consuming EventStore, offerings: [Int], settings: AnalysisSettings,
        past: AppPast? = nil, progress: ProgressReporter? = nil, membersPerRun: Int = membersPerRun
    ) async throws -> NightResults {
        let (asOf, maturityDays, slices) = (settings.asOf, settings.maturityDays, settings.slices)
        let (events, cleanup) = EventCleanup.run(store: &store, userCount: population.users.count, width: settings.threads)
        progress?.say("\(events.events.count) events after clean-up")
        var attribution = AttributionContext(
            labels: store.labels, rates: settings.rates, windowDays: settings.windowDays, asOf: asOf, maturityDays: maturityDays,
            keepsPositiveRevenues: settings.revenueCap != nil, proceeds: settings.proceeds,
            chainStarts: events.chainStarts(transactionCount: store.transactions.count))
        attribution.projection = ProjectionCatalog(catalog, labels: store.labels)
        let context = attribution
        let ordered = offerings.sorted {
            catalog.offerings[$0].offeringID.utf8.lexicographicallyPrecedes(catalog.offerings[$1].offeringID.utf8)
        }
        var sums = ordered.map {
            OfferingSums(
                offeringIndex: $0, catalog: catalog, population: population, asOf: asOf, maturities: maturityDays.count, slices: slices)
        }
        let runs = ordered.indices.flatMap { position in
            let count = population.members[ordered[position]].count
            return stride(from: 0, to: count, by: membersPerRun).map { (position: position, members: $0..<min($0 + membersPerRun, count)) }
        }
        let series = sums.map(\.series)
        let affiliations = Affiliations(catalog: catalog, population: population, labels: context.labels)
        try await InOrder.run(count: runs.count, width: settings.threads) { index in
            let run = runs[index]
            let offering = ordered[run.position]
            return (
                run.position,
                try Attribution.evaluate(
                    population.members[offering][run.members], offeringIndex: offering, catalog: catalog, series: series[run.position],
                    events: events, context: context, affiliations: affiliations, slices: slices)
            )
        } merge: { (evaluated: (position: Int, contributions: MemberContributions)) in
            try sums[evaluated.position].add(evaluated.contributions, labels: context.labels)
        }
        progress?.say("analysed \(ordered.map { catalog.offerings[$0].offeringID }.joined(separator: ", "))")
        // Side by side: each offering's members are read once more, reduced to the projection's counts.
        var offerings: [OfferingResult] = []
        try await InOrder.run(count: sums.count, width: settings.threads) { [sums] position in
            try sums[position].result(
                catalog: catalog, context: context, preferredControl: settings.control, revenueCap: settings.revenueCap,
                maturityDays: maturityDays, maxSliceLevels: settings.maxSliceLevels)
        } merge: { (result: OfferingResult) in
            offerings.append(result)
        }
        for (position, offering) in ordered.enumerated() {
            if let past { offerings[position].projection?.past = past.past(ofMembers: population.members[offering]) }
        }
        return NightResults(
            offerings: offerings, ingest: store.counters, cleanup: cleanup, globalInvalidAssignments: population.globalInvalidAssignments)
    }

    /// The statistics step: each offering's analyses, in the order of `results.offerings`.
    /// - Throws: `OfferLabError` (`.rejectedTotals`) naming an offering whose totals the statistics reject.
    static func statistics(of results: NightResults, settings: StatisticsSettings) async throws -> [OfferingStatistics] {
        // The offerings side by side, `threads` at a time: the projection's draws are most of
        // this step, and each offering draws from its own seed, so nothing depends on the order.
        // Each outcome is taken in offering order, so that of two rejected the first is named.
        let offerings = results.offerings
        var statistics: [OfferingStatistics] = []
        try await InOrder.run(count: offerings.count, width: settings.threads) { index in
            Result { try OfferingStatistics(offerings[index], settings: settings) }
        } merge: { outcome in
            statistics.append(try outcome.get())
        }
        return statistics
    }

    /// The app's own track record (docs/statistics.md#the-apps-own-track-record): each cohort
    /// projected as an offering is, `threads` at a time, in the cohorts' order; nil without cohorts
    /// counted.
    /// - Throws: `OfferLabError` (`.rejectedTotals`) naming the first cohort the projection rejects.
    static func backtest(of cohorts: [ObservedCohort]?, settings: StatisticsSettings) async throws -> [BacktestOutcome]? {
        guard let cohorts else { return nil }
        var outcomes: [BacktestOutcome] = []
        try await InOrder.run(count: cohorts.count, width: settings.threads) { index in
            Result { try BacktestOutcome(cohorts[index], alpha: settings.alpha) }
        } merge: { outcome in
            outcomes.append(try outcome.get())
        }
        return outcomes
    }

    /// Each cohort's buyers observed (`ObservedCohort`), `width` at a time, in the cohorts' order; nil
    /// without cohorts.
    /// - Throws: `OfferLabError` (`.rejectedTotals`) naming the first cohort the projection cannot read.
    static func observe(_ cohorts: [BacktestCohorts.Cohort]?, width: Int?) async throws -> [ObservedCohort]? {
        guard let cohorts else { return nil }
        var observed: [ObservedCohort] = []
        try await InOrder.run(count: cohorts.count, width: width) { index in
            Result { try ObservedCohort(cohorts[index]) }
        } merge: { outcome in
            observed.append(try outcome.get())
        }
        return observed
    }

    /// Members evaluated by one task: enough that a run's contributions are added up far
    /// faster than they are evaluated, few enough that the runs waiting to be added up take
    /// little memory (a few MB each). No number depends on it (tests use small runs).
    static let membersPerRun = 16_384

    static func percent(_ ratio: Double) -> String {
        String(format: "%.2f%%", ratio * 100)
    }
}
