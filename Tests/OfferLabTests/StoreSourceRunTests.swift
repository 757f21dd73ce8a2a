import Foundation
import OfferLabGenerate
import OfferLabIngest
import OfferLabStoreSources
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabWriters

/// `run` on a data set whose store facts come as RevenueCat sends them (`offerlab generate
/// --format revenuecat_export|revenuecat_webhooks`) gives exactly the numbers of `run` on the same
/// data set in the format of §1.2 (contract §1.6: everything after §1.2 is unchanged).
@Suite struct GeneratedStoreSourceRunTests {
    struct Night {
        var report: GenerationReport
        var job: Job
        /// The output tables, by name.
        var tables: [String: ResultTable]

        /// The global `quality.csv` counter `name`; nil when the file has no such row.
        func global(_ name: String) -> Int? { counter(name, offering: "") }

        func counter(_ name: String, offering: String) -> Int? {
            tables["quality"]?.rows.first { $0[0] == .text(offering) && $0[1] == .text(name) }.flatMap {
                if case .integer(let count) = $0[2] { count } else { nil }
            }
        }

        /// The `sources.csv` row (`source`, `counter`).
        func source(_ source: SourceFormat, _ counter: String) -> Int? {
            tables["sources"]?.rows.first { $0[0] == .text(source.rawValue) && $0[1] == .text(counter) }.flatMap {
                if case .integer(let count) = $0[2] { count } else { nil }
            }
        }
    }

    static func night(_ format: LogSourceFormat) async throws -> Night {
        let folder = try TemporaryFolder()
        let report = try DataSetGenerator.generate(
            GeneratorConfiguration(outputDirectory: folder.path, users: 2000, seed: 5, days: 10, jobs: 1, sourceFormat: format))
        let job = try JobLoader.load(path: report.jobFile)
        let results = try await NightlyRun.compute(job, progress: nil)
        let tables = ResultTables.make(results, statistics: try NightlyRun.statistics(of: results, job: job), job: job).files
        return Night(report: report, job: job, tables: Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0) }))
    }

    static let logs = Task { try await night(.offerlab) }

    /// Counters that differ by the form of the facts, for reasons of the form (docs/generator.md,
    /// "Store forms"): the lines and files read, copies removed by event id (a store's
    /// re-deliveries are not duplicates), the logged offering and group the store's events do not
    /// carry, the old charge the export re-sends with a refund, and the store's own counters.
    static let formCounters: Set<String> = [
        "files_read", "lines_read", "duplicate_events", "attribution_mismatches", "pre_assignment_events",
        "malformed_bad_signature", "malformed_other_app", "ignored_store_records", "unpriced_charges", "unattributed_store_records",
        "family_shared_records", "unknown_notification_types",
    ]

    @Test(arguments: [LogSourceFormat.revenueCatExport, .revenueCatWebhooks])
    func aStoreFormGivesTheNumbersOfTheLogs(format: LogSourceFormat) async throws {
        let logs = try await Self.logs.value
        let store = try await Self.night(format)
        let source = try #require(SourceFormat(rawValue: format.rawValue))
        #expect(store.job.storeSources.map(\.format) == [source])

        for name in ["summary", "comparisons", "srm", "products", "daily", "maturity"] {
            #expect(store.tables[name]?.rows == logs.tables[name]?.rows, "\(name) differs")
        }
        let agreeing = { (night: Night) in night.tables["quality"]?.rows.filter { !Self.formCounters.contains(cellText($0[1])) } }
        #expect(agreeing(store) == agreeing(logs))
        // The same malformed lines of the app's logs, and no store line malformed.
        func reasons(_ night: Night) -> [String: Int] {
            Dictionary(grouping: night.tables["rejects"]?.rows ?? []) { cellText($0[2]) }.mapValues(\.count)
        }
        #expect(reasons(store) == reasons(logs))

        // The store's own lines, in lines_read and in sources.csv; the §1.2 logs keep the rest.
        #expect(store.source(source, "lines_read") == store.report.logs.storeLines)
        #expect(store.global("lines_read") == (store.source(.offerlab, "lines_read") ?? 0) + store.report.logs.storeLines)
        #expect(store.global("files_read") == store.job.logFiles.count + store.report.logs.storeFiles)
        #expect(store.global("family_shared_records") == store.report.logs.familySharedRecords)
        #expect(store.source(source, "family_shared_records") == store.report.logs.familySharedRecords)
        #expect(store.global("ignored_store_records") == store.report.logs.ignoredStoreRecords)
        #expect(store.source(source, "malformed_invalid_json") == 0 && store.global("unattributed_store_records") == 0)
        for reason in MalformedReason.allCases {
            #expect(store.source(.offerlab, reason.counterName) == logs.global(reason.counterName), "\(reason.counterName)")
        }
        // The logs' run has no store counter and reads the offerlab format only.
        #expect(logs.global("family_shared_records") == nil)
        #expect(Set(logs.tables["sources"]?.rows.map { cellText($0[0]) } ?? []) == ["offerlab"])

        // Not vacuous: the store's files carry trials, charges, renewals and refunds of both offerings,
        // and the quirks the counters count.
        #expect(store.report.logs.storeLines > 100 && store.report.logs.familySharedRecords > 0)
        if format == .revenueCatWebhooks { #expect(store.report.logs.ignoredStoreRecords > 0) }
        let products = store.tables["products"]?.rows ?? []
        #expect(products.contains { $0[4] != .integer(0) } && products.contains { $0[5] != .integer(0) })
        #expect(store.tables["summary"]?.rows.contains { $0[9] != .integer(0) } == true, "trial starters")
    }
}

/// The text of a text cell ("" for any other).
func cellText(_ value: ResultValue) -> String {
    if case .text(let text) = value { text } else { "" }
}
