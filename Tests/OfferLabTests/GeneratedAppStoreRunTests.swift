import Foundation
import OfferLabGenerate
import OfferLabIngest
import OfferLabResults
import OfferLabStoreSources
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabWriters

/// `run` on a data set whose store facts come as signed App Store Server Notifications
/// (`offerlab generate --format app_store_notifications --user-ids uuid`) gives the numbers of
/// `run` on the same data set in the purchase-log format (docs/input-formats.md#purchase-logs):
/// every count exactly (the trial and subscriber columns too, from `expiresDate`), and money and
/// proceeds to Apple's precision, since a partial refund is said in thousandths of a percent of the
/// price (docs/generator.md). Apple sends nothing of a Google Play purchase, so the form cannot
/// hold one: the Play Store's users (one in five, `store` `play_store` in the logs) keep their
/// facts in the app's logs, as an app selling on both stores learns of its Android purchases
/// otherwise, and the proceeds compared are every user's, each at its own store's commission.
@Suite struct GeneratedAppStoreRunTests {
    typealias Night = GeneratedStoreSourceRunTests.Night

    static func night(_ format: SourceFormat) async throws -> Night {
        let folder = try TemporaryFolder()
        let report = try await DataSetGenerator.generate(
            GeneratorConfiguration(
                outputDirectory: folder.path, users: 2000, seed: 5, days: 10, jobs: 2,
                shape: DataSetShape(userIDs: .uuid, sourceFormat: format)))
        let job = try JobLoader.load(path: report.jobFile)
        let results = try await NightlyRun.compute(job, progress: nil)
        let tables = ResultTables.make(
            results, statistics: try await NightlyRun.statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run)),
            settings: ResultTableSettings(job)
        ).files
        return Night(report: report, job: job, tables: Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0) }))
    }

    /// Whether two cells are the same number: text and counts exactly, reals to a relative 10⁻⁴
    /// (a prorated refund read back differs by at most 1/200 000 of its charge's price, 0.0001 USD
    /// at most here; a sum of a few refunds, and the statistics on it, move by 10⁻⁵ of it).
    static func same(_ store: ResultValue, _ logs: ResultValue) -> Bool {
        if case .real(let a?) = store, case .real(let b?) = logs {
            return a == b || abs(a - b) <= 1e-4 * max(1, abs(a), abs(b))
        }
        return store == logs
    }

    @Test func theNotificationsGiveTheNumbersOfTheLogs() async throws {
        async let logsNight = Self.night(.offerlab)
        async let storeNight = Self.night(.appStoreNotifications)
        let (logs, store) = try await (logsNight, storeNight)
        #expect(store.job.inputs.storeSources.map(\.format) == [.appStoreNotifications])

        var inexact = 0
        var differences: [String] = []
        for name in ["summary", "comparisons", "srm", "products", "daily", "maturity"] {
            let storeRows = store.tables[name]?.rows ?? []
            let logRows = logs.tables[name]?.rows ?? []
            #expect(storeRows.count == logRows.count, "\(name)")
            for (storeRow, logRow) in zip(storeRows, logRows) {
                for (column, (storeCell, logCell)) in zip(storeRow, logRow).enumerated() where !Self.same(storeCell, logCell) {
                    differences.append("\(name)[\(column)] \(storeCell) ≠ \(logCell) in \(logRow.prefix(3))")
                }
                if storeRow != logRow { inexact += 1 }
            }
        }
        #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(8).joined(separator: "\n"))")
        // The prorated refunds do move the money (else this test would not need its tolerance).
        #expect(inexact > 0)
        #expect(store.feedsTheStoreColumns())

        // Counters: those the forms share are equal; the store's own say what was written.
        // The two rejected notifications are malformed lines of their own.
        let formCounters = GeneratedStoreSourceRunTests.formCounters.union(["malformed_lines"])
        #expect(store.global("malformed_lines") == logs.global("malformed_lines").map { $0 + 2 })
        let agreeing = { (night: Night) in night.tables["quality"]?.rows.filter { !formCounters.contains(cellText($0[1])) } }
        #expect(agreeing(store) == agreeing(logs))
        // Among them the money events left out for want of a rate (BRL has none), which the run's
        // warning counts: the same in both forms, and not vacuously.
        let offerings = Set(logs.tables["summary"]?.rows.map { cellText($0[0]) } ?? [])
        #expect(!offerings.isEmpty)
        for offering in offerings {
            let unconvertible = logs.counter("unknown_currency_events", offering: offering)
            #expect(
                (unconvertible ?? 0) > 0 && store.counter("unknown_currency_events", offering: offering) == unconvertible, "\(offering)")
        }
        #expect(store.source(.appStoreNotifications, "lines_read") == store.report.logs.storeLines)
        #expect(store.global("malformed_bad_signature") == 1 && store.global("malformed_other_app") == 1)
        #expect(store.global("family_shared_records") == store.report.logs.familySharedRecords)
        #expect(store.global("ignored_store_records") == store.report.logs.ignoredStoreRecords)
        #expect(store.global("unattributed_store_records") == 0 && store.global("unpriced_charges") == 0)
        #expect(store.report.logs.familySharedRecords > 0 && store.report.logs.reversedRefunds > 0)
        #expect(store.report.logs.userTransactionRows > 0)
    }
}
