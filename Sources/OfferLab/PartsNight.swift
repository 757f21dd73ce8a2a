import Foundation
import OfferLabAnalysis
import OfferLabEvents
import OfferLabIngest
import OfferLabJob
import OfferLabResults
import OfferLabSupport
import OfferLabTables
import OfferLabWarehouse

/// `offerlab stats --job JOB --parts DIR` (contract §3.3): the whole night from its parts, as an
/// engine's scripts return them (`offerlab sql --list-parts`) or as `offerlab run --parts`
/// writes them. The parts fill the same layer `run`'s own pass fills (`NightResults`), and the
/// night goes on as `run`'s does (`NightlyRun.night`): the same checks, statistics, files,
/// report and database rows. What stays `run`'s alone: the rejects (the lines themselves),
/// `on_corrupt_file: skip`, the app's track record (`backtest.csv`) and the `history_logs`
/// rows of `sources.csv` (docs/warehouse.md).
package enum PartsNight {
    /// Runs the night of `job` from the parts in `folder`.
    /// - Throws: `OfferLabError`; a part missing, of another night, version or job, or with a
    ///   row it cannot read is refused naming it (exit 65) before anything is written.
    package static func run(_ job: Job, parts folder: String) async throws -> RunReport {
        try await NightlyRun.night(of: job, readsLogs: false) { _ in try results(job, parts: folder) }
    }

    /// The night's results from the parts in `folder`.
    static func results(_ job: Job, parts folder: String) throws -> (NightResults, [ObservedCohort]?) {
        let identity = try NightPartsIdentity(job: job)
        func path(_ name: String) -> String { (folder as NSString).appendingPathComponent("\(name).csv") }
        // Every part first, so that a missing one is named before any is read.
        for name in RunParts.names(of: job) where !FileManager.default.fileExists(atPath: path(name)) {
            throw OfferLabError(
                .badAggregates,
                "part \(name): \(path(name)) is missing (`offerlab sql \(job.jobPath) --dialect duckdb|spark --list-parts` lists the parts, `--part \(name)` writes its script)",
                location: .init(path: path(name)))
        }
        for name in RunParts.names(of: job) where NightPart(rawValue: name) == nil {
            try checkIdentity(ofPart: name, path: path(name), identity: identity)
        }
        let catalog = try CatalogLoader.load(from: TableSource(path: job.inputs.tablesPath))
        let aggregates = path("aggregates")
        guard var offerings = try AggregateStatistics.summaryResults(aggregates, offerings: try AggregateStatistics.read(aggregates)) else {
            throw OfferLabError(
                .badAggregates, "part aggregates: \(aggregates) lacks the summary columns `offerlab sql --part aggregates` returns",
                location: .init(path: aggregates))
        }
        offerings = try offerings.map { try inCatalogOrder($0, catalog: catalog, control: job.analysis.control, path: aggregates) }
        offerings = try AggregateStatistics.withProducts(path("products"), results: offerings).map { result in
            var result = result
            result.products.sort { ($0.group, $0.productID) < ($1.group, $1.productID) }
            return result
        }
        if !job.analysis.slices.isEmpty { offerings = try AggregateStatistics.sliceResults(path("slices"), results: offerings) }
        var nightRows: [NightPart: [NightPartRow]] = [:]
        var paths: [NightPart: String] = [:]
        for part in NightParts.parts(of: job) {
            paths[part] = path(part.rawValue)
            nightRows[part] = try NightParts.read(part, path: path(part.rawValue), identity: identity)
        }
        try NightParts.apply(
            nightRows, paths: paths, to: &offerings, catalog: ProjectionCatalog(catalog), asOf: job.run.night.microseconds,
            windowMicroseconds: job.analysis.conversionWindowDays.map(AttributionRules.windowMicroseconds(days:)))
        let events = try NightParts.events(
            nightRows[.events] ?? [], path: path(NightPart.events.rawValue), hasHistory: !job.history.patterns.isEmpty)
        var results = try counters(path("quality"), offerings: offerings)
        results.eventsBeforeAsOf = events.eventsBeforeAsOf
        results.latestEvent = events.latestEvent
        results.historyIngest = events.history
        let cohorts = try nightRows[.backtest].map {
            try NightParts.cohorts($0, catalog: ProjectionCatalog(catalog), path: path(NightPart.backtest.rawValue))
        }
        results.warnings =
            RunChecks.projectionWithoutPeriods(offerings) + RunChecks.history(job: job, counters: events.history)
            + RunChecks.backtest(cohorts, job: job)
        return (results, cohorts)
    }

    /// Refuses a §3.2 part whose `night` column is missing or names another night, version or job.
    private static func checkIdentity(ofPart name: String, path: String, identity: NightPartsIdentity) throws {
        func refuse(_ problem: String, line: Int? = nil) -> OfferLabError {
            OfferLabError(
                .badAggregates, "part \(name): \(path)\(line.map { " line \($0)" } ?? ""): \(problem)",
                location: .init(path: path, line: line))
        }
        do {
            let reader = try TableFileReader(path: path, format: TableFormat(fileName: path) ?? .csv)
            guard let column = reader.columnIndex("night") else {
                throw refuse("no night column: not a part of `offerlab sql --part \(name)` for this night (or of an older offerlab)")
            }
            try reader.forEachRow { row in
                if let problem = identity.problem(withCell: row.string(at: column) ?? "") { throw refuse(problem, line: row.lineNumber) }
            }
        } catch let error as IngestError {
            throw OfferLabError(.badAggregates, context: "part \(name): ", error)
        }
    }

    /// An offering of the aggregates as `run` holds it: the catalog's offering, its groups in the
    /// catalog's order and its control the job's rule's.
    private static func inCatalogOrder(_ result: OfferingResult, catalog: OfferingCatalog, control: String?, path: String) throws
        -> OfferingResult
    {
        let id = result.offering.offeringID
        func refuse(_ problem: String) -> OfferLabError {
            OfferLabError(.badAggregates, "part aggregates: \(path): offering \(id): \(problem)", location: .init(path: path))
        }
        guard let offering = catalog.offerings.first(where: { $0.offeringID == id }) else {
            throw refuse("it is not in the catalog tables")
        }
        let names = result.offering.groups.map(\.name)
        guard names.sorted() == offering.groups.map(\.name).sorted() else {
            throw refuse(
                "its groups \(names.joined(separator: ", ")) are not the catalog's \(offering.groups.map(\.name).joined(separator: ", "))")
        }
        let order = offering.groups.map { group in names.firstIndex(of: group.name) ?? 0 }
        let controlGroup = offering.controlGroupIndex(preferred: control) ?? 0
        guard order[controlGroup] == result.controlGroup else {
            throw refuse("is_control names \(names[result.controlGroup]), the job's control is \(offering.groups[controlGroup].name)")
        }
        var ordered = result
        ordered.offering = offering
        ordered.controlGroup = controlGroup
        ordered.groups = order.map { result.groups[$0] }
        if var capped = result.cappedRevenue {
            capped.groups = order.map { capped.groups[$0] }
            capped.cappedUsers = order.map { capped.cappedUsers[$0] }
            ordered.cappedRevenue = capped
        }
        ordered.matured = result.matured.map { matured in MaturedGroups(days: matured.days, groups: order.map { matured.groups[$0] }) }
        return ordered
    }

    /// The night's counters from the `quality` part (`quality.csv`'s rows): the logs' lines, the
    /// clean-up's drops and each offering's counters, as `run` counts them.
    private static func counters(_ path: String, offerings: [OfferingResult]) throws -> NightResults {
        var ingest = IngestCounters()
        var cleanup = CleanupCounters()
        var invalidAssignments = 0
        var offeringCounters: [String: [String: Int]] = [:]
        let reasons = Dictionary(uniqueKeysWithValues: MalformedReason.allCases.map { ($0.counterName, $0) })
        var malformedLines = 0
        for counter in try AggregateStatistics.qualityCounters(path) {
            func refuse(_ problem: String) -> OfferLabError {
                OfferLabError(
                    .badAggregates, "part quality: \(path) line \(counter.line): \(problem)",
                    location: .init(path: path, line: counter.line))
            }
            guard counter.offeringID.isEmpty else {
                guard offerings.contains(where: { $0.offering.offeringID == counter.offeringID }) else {
                    throw refuse("offering \(counter.offeringID) is not in the aggregates")
                }
                offeringCounters[counter.offeringID, default: [:]][counter.counter] = counter.count
                continue
            }
            switch counter.counter {
            case "files_read": ingest.filesRead = counter.count
            case "files_skipped_corrupt":
                guard counter.count == 0 else {
                    throw refuse("files_skipped_corrupt \(counter.count): skipping a corrupt file is run's alone")
                }
            case "lines_read": ingest.nonBlankLines = counter.count
            case "malformed_lines": malformedLines = counter.count
            case "duplicate_events": cleanup.duplicateEvents = counter.count
            case "unknown_event_types": cleanup.unknownEventTypes = counter.count
            case "sandbox_events": cleanup.sandboxEvents = counter.count
            case "unassigned_events": cleanup.unassignedEvents = counter.count
            case "invalid_assignments": invalidAssignments = counter.count
            default:
                guard let reason = reasons[counter.counter] else { throw refuse("counter \(counter.counter) is not one of quality.csv's") }
                ingest.malformed[Int(reason.rawValue)] = counter.count
            }
        }
        guard malformedLines == ingest.malformedLines else {
            throw OfferLabError(
                .badAggregates,
                "part quality: \(path): malformed_lines \(malformedLines) is not the sum of its reasons, \(ingest.malformedLines)",
                location: .init(path: path))
        }
        let names = OfferingQuality().counters.map(\.0)
        let withQuality = try offerings.map { result in
            let counts = offeringCounters[result.offering.offeringID] ?? [:]
            if let unknown = counts.keys.sorted().first(where: { !names.contains($0) }) {
                throw OfferLabError(
                    .badAggregates,
                    "part quality: \(path): offering \(result.offering.offeringID): counter \(unknown) is not one of quality.csv's",
                    location: .init(path: path))
            }
            var result = result
            result.quality = OfferingQuality(
                invalidAssignments: counts["invalid_assignments"] ?? 0, multiGroupUsers: counts["multi_group_users"] ?? 0,
                preAssignmentEvents: counts["pre_assignment_events"] ?? 0, orphanRefunds: counts["orphan_refunds"] ?? 0,
                chainlessCancels: counts["chainless_cancels"] ?? 0, attributionMismatches: counts["attribution_mismatches"] ?? 0,
                attributionMismatchUsers: counts["attribution_mismatch_users"] ?? 0,
                unknownCurrencyEvents: counts["unknown_currency_events"] ?? 0)
            return result
        }
        return NightResults(offerings: withQuality, ingest: ingest, cleanup: cleanup, globalInvalidAssignments: invalidAssignments)
    }
}
