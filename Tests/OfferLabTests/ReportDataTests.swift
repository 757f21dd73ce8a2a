import Foundation
import OfferLabIngest
import OfferLabResults
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabReport
@testable import OfferLabSupport
@testable import OfferLabWriters

/// A night's report data read from a run's tables and read back from the database are the same.
@Suite struct ReportDataTests {
    static let tables = TablesFixture(assignments: [
        ("u1", "1", "10", "2026-03-01 09:00:00"), ("u2", "1", "11", "2026-03-02 09:00:00"), ("u3", "1", "10", "2026-03-02 10:00:00"),
        ("u4", "2", "20", "2026-03-03 00:00:00"),
    ])
    /// Made anew for each use: a record is not `Sendable`.
    static var events: [LogRecord] {
        [
            logRecord(
                "purchase", user: "u1", ts: "2026-03-03T00:00:00Z", transaction: "p1", product: "weekly", price: "7.99", currency: "USD"),
            logRecord(
                "purchase", user: "u2", ts: "2026-03-04T00:00:00Z", transaction: "p2", product: "monthly", price: "19.99", currency: "USD"),
        ]
    }

    func job(_ folder: TemporaryFolder, offerings: [String]) -> Job {
        Job(
            jobPath: folder.file("job.yaml"),
            inputs: JobInputs(tablesPath: folder.file("tables.sqlite"), logPatterns: [], logFiles: [folder.file("a.jsonl")]),
            history: JobHistory(),
            analysis: JobAnalysis(reportCurrency: "USD", rates: ["USD": 1], conversionWindowDays: 7, offerings: offerings),
            estimators: JobEstimators(), decision: DecisionSettings(),
            outputs: JobOutputs(outputPath: folder.path, databasePath: folder.file("results.sqlite")),
            run: JobRun(night: Night("2026-03-06"), lockTimeoutSeconds: 1))
    }

    func run(_ night: String, finishedAt: String) -> RunRecord {
        RunRecord(
            job: "job.yaml", night: Night(night), startedAt: "2026-03-06T02:30:00Z", finishedAt: finishedAt,
            status: "succeeded", toolVersion: NightlyRun.toolVersion, inputFiles: [("a.jsonl", 120), ("b.jsonl", 0)])
    }

    /// The typed night of a run of the fixture over `offerings`.
    func typedNight(_ folder: TemporaryFolder, offerings: [String]) async throws -> NightTables {
        let results = try await analyse(Self.tables, Self.events, asOf: "2026-03-06", window: 7, offerings: offerings)
        let job = job(folder, offerings: offerings)
        return ResultTables.make(
            results, statistics: try await NightlyRun.statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run)),
            settings: ResultTableSettings(job))
    }

    /// The database tables of a run of the fixture over `offerings`.
    func databaseTables(_ folder: TemporaryFolder, offerings: [String]) async throws -> [ResultTable] {
        try await typedNight(folder, offerings: offerings).databaseTables
    }

    /// docs/analysis.md §8–§9 in the report: proceeds per user beside revenue per user in the results
    /// table, and how many trials ended and how many still run.
    @Test func proceedsAndRunningTrialsAreShown() async throws {
        let folder = try TemporaryFolder()
        let users = ["t1", "t2", "t3", "v1"]
        let tables = TablesFixture(assignments: users.map { ($0, "1", $0 == "v1" ? "11" : "10", "2026-03-01 00:00:00") })
        let events = [
            logRecord(
                "trial_start", user: "t1", ts: "2026-03-02T00:00:00Z", transaction: "a", product: "weekly", expires: "2026-03-05T00:00:00Z"),
            logRecord(
                "trial_start", user: "t2", ts: "2026-03-04T00:00:00Z", transaction: "b", product: "weekly", expires: "2026-03-07T00:00:00Z"),
            logRecord(
                "trial_start", user: "t3", ts: "2026-03-04T00:00:00Z", transaction: "c", product: "weekly", expires: "2026-03-08T00:00:00Z"),
            logRecord(
                "purchase", user: "v1", ts: "2026-03-02T00:00:00Z", transaction: "d", product: "weekly", price: "10", currency: "USD",
                expires: "2026-03-09T00:00:00Z"),
        ]
        let results = try await analyse(tables, events, asOf: "2026-03-06", offerings: ["test"])
        let job = job(folder, offerings: ["test"])
        let made = ResultTables.make(
            results, statistics: try await NightlyRun.statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run)),
            settings: ResultTableSettings(job))
        let page = HTMLReport.render(ReportData(night: made, run: run("2026-03-06", finishedAt: "2026-03-06T02:31:00Z")))
        #expect(page.contains("<th scope=\"col\" class=\"num\">Proceeds per user</th>"))
        #expect(page.contains("kept USD 7.00"))
        #expect(page.contains("Trials: 1 trial ended (converted or lapsed), 2 trials still running."))
        #expect(page.contains("Active subscribers tonight: control 0, variant 1."))
    }

    @Test func theDatabaseGivesBackWhatTheRunHad() async throws {
        let folder = try TemporaryFolder()
        let night = try await typedNight(folder, offerings: ["other", "test"])
        let record = run("2026-03-06", finishedAt: "2026-03-06T02:31:00Z")
        try ResultsDatabase.write(
            path: folder.file("results.sqlite"), tables: night.databaseTables, offeringIDs: ["other", "test"], run: record)

        let inMemory = ReportData(night: night, run: record)
        let stored = try ReportData.load(databasePath: folder.file("results.sqlite"), night: Night("2026-03-06"))
        #expect(stored == inMemory)
        #expect(HTMLReport.render(stored) == HTMLReport.render(inMemory))

        // And it is the run's data: settings, groups, what they were shown, the daily series, the run's facts.
        let test = try #require(stored.offerings.first { $0.offeringID == "test" })
        #expect(stored.offerings.map(\.offeringID) == ["other", "test"])
        #expect(test.name == "Test" && test.isActive && test.controlGroup == "control" && test.currency == "USD" && test.alpha == 0.05)
        #expect(test.conversionWindowDays == 7)
        #expect(test.groups.map(\.name) == ["control", "variant"])
        #expect(test.groups.map(\.users) == [2, 1])
        #expect(test.groups[0].isControl && !test.groups[1].isControl)
        #expect(
            test.groups[0].shownProducts == [
                ShownProductRow(
                    offeringID: "test", group: "control", productID: "weekly", type: "weekly", fallbackDisplayPrice: "7.99",
                    isDefault: true, badgeText: nil, subtitleText: nil, chargedCurrencies: "USD")
            ])
        #expect(test.groups[1].shownProducts.first?.badgeText == "BEST VALUE")
        #expect(
            test.groups[0].shownCopy
                == ShownCopyRow(
                    offeringID: "test", group: "control", headerTitle: "Title", headerSubtitle: "Sub", ctaButtonText: "Next",
                    supportingText: "Cancel anytime"))
        #expect(test.groups[1].shownCopy == nil)
        #expect(test.products.map(\.productID) == ["weekly", "monthly"])
        #expect(test.daily.map(\.date).first == "2026-03-01" && test.daily.map(\.date).last == "2026-03-05")
        #expect(test.daily.count == 5 * 2)
        #expect(test.counter("invalid_assignments") == 0)
        #expect(stored.quality.first?.counter == "files_read")
        #expect(stored.run.inputFiles == [InputFile(path: "a.jsonl", bytes: 120), InputFile(path: "b.jsonl", bytes: 0)])
        #expect(stored.run.finishedAt == "2026-03-06T02:31:00Z")
    }

    /// The capped revenue and the matured users are stored and read back, and shown (docs/analysis.md §4b, §4c).
    @Test func cappedRevenueAndMaturedUsersAreReadBackAndShown() async throws {
        let folder = try TemporaryFolder()
        // Cap of 10: u2's 19.99 is lowered. Maturity 3 days: all three members of `test` were
        // assigned by 03-03 00:00; u1 bought 2 days after assignment, u2 1 day 15 hours after.
        let results = try await analyse(
            Self.tables, Self.events, asOf: "2026-03-06", window: 7, offerings: ["test"], revenueCap: .value(10), maturityDays: [3])
        let job = job(folder, offerings: ["test"])
        let night = ResultTables.make(
            results, statistics: try await NightlyRun.statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run)),
            settings: ResultTableSettings(job))
        let record = run("2026-03-06", finishedAt: "2026-03-06T02:31:00Z")
        try ResultsDatabase.write(path: folder.file("results.sqlite"), tables: night.databaseTables, offeringIDs: ["test"], run: record)
        let stored = try ReportData.load(databasePath: folder.file("results.sqlite"), night: Night("2026-03-06"))
        #expect(stored == ReportData(night: night, run: record))

        let test = try #require(stored.offerings.first)
        #expect(test.groups.map(\.revenueCap) == [10, 10] && test.groups.map(\.cappedUsers) == [0, 1])
        #expect(test.groups.map(\.arpuCapped) == [7.99 / 2, 10])
        #expect(test.matured.map(\.days) == [3, 3] && test.matured.map(\.group) == ["control", "variant"])
        #expect(test.matured.map(\.users) == [2, 1] && test.matured.map(\.conversionRate) == [0.5, 1])
        #expect(test.matured.map(\.arpu) == [7.99 / 2, 19.99])
        #expect(test.comparison("variant", named: "arpu_capped")?.value == 10)
        #expect(test.comparison("variant", named: "conversion_d3")?.metric == .conversion)
        #expect(test.comparison("variant", named: "arpu_d3")?.value == 19.99)

        let page = HTMLReport.render(stored)
        // The statistical details list every comparisons.csv row, the capped and matured ones after the own: those with
        // values in the table, those without (a group of 1 user has no revenue comparison) in one line under it.
        let details = try #require(
            page.components(separatedBy: "<table class=\"details\">").last?.components(separatedBy: "</table>").first)
        #expect(
            details.components(separatedBy: "<tr><th scope=\"row\">variant</th><td>").dropFirst().map { $0.prefix { $0 != "<" } } == [
                "conversion", "conversion within 3 days", "users refunded (lower is better)",
            ])
        #expect(
            page.contains(
                "No value yet (a group has too few users): variant: revenue per user; variant: revenue per user, capped; variant: revenue per user within 3 days; "
                    + "variant: proceeds per user; variant: conversion of ended trials."
            ))
        for expected in [
            "Revenue per user, capped", "counted up to USD 10.00", "1 user was over it", "Matured users", "after 3 days", "USD 19.99",
        ] {
            #expect(page.contains(expected), "missing: \(expected)")
        }
        let plain = HTMLReport.render(ReportData(night: try await typedNight(folder, offerings: ["test"]), run: record))
        #expect(!plain.contains("<h3>Revenue per user, capped</h3>") && !plain.contains("<h3>Matured users</h3>"))

        // A capped or matured comparison is read with the night's decision, like the own ones.
        var decided = test
        decided.familyComparisons = [
            Comparison(
                group: "variant", metric: .arpu, pValue: 0.01, pValueAdjusted: 0.01, significant: true,
                sequential: SequentialValues(pValue: 0.2, pValueAdjusted: 0.2, significant: false), familyMetric: "arpu_capped")
        ]
        decided.decision = .sequential
        #expect(decided.comparison("variant", named: "arpu_capped")?.significant == false)
        #expect(decided.comparison("variant", named: "arpu_capped")?.pValueAdjusted == 0.2)
        decided.decision = .fixed
        #expect(decided.comparison("variant", named: "arpu_capped")?.significant == true)
    }

    /// The typed night reads back only what a run writes: with every table filled (capped
    /// revenue, maturity, slices, paywall copy), each row fits its table's columns, reading the
    /// database's tables back finds every table and column and gives the night the run made, and
    /// a column renamed in a table is named as missing instead of read as empty.
    @Test func theReportReadsOnlyTheTablesAndColumnsARunWrites() async throws {
        let folder = try TemporaryFolder()
        let results = try await analyse(
            Self.tables, Self.events, asOf: "2026-03-06", window: 7, offerings: ["other", "test"], revenueCap: .value(10),
            maturityDays: [3], slices: [.country])
        let job = job(folder, offerings: ["other", "test"])
        let made = ResultTables.make(
            results, statistics: try await NightlyRun.statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run)),
            settings: ResultTableSettings(job))
        let tables = made.databaseTables
        // Each row has a value of its column's type in each column (or none).
        func fits(_ value: ResultValue, _ type: ResultColumnType) -> Bool {
            switch (value, type) {
            case (.text, .text), (.integer, .integer), (.real, .real), (.real, .money), (.bool, .bool), (.real(nil), _): true
            default: false
            }
        }
        for table in made.files + tables {
            for row in table.rows {
                #expect(row.count == table.columns.count && zip(row, table.columns).allSatisfy { fits($0, $1.type) }, "\(table.name)")
            }
        }
        var missing: [String] = []
        let readBack = NightTables(database: tables, missing: { missing.append($0) })
        #expect(missing.isEmpty, "\(missing)")
        var stored = made
        (stored.rejects, stored.skippedFiles, stored.writesSliceFiles) = ([], [], false)
        #expect(readBack == stored)
        let report = ReportData(night: readBack, run: run("2026-03-06", finishedAt: "f"))
        // Every reading path was taken.
        let test = try #require(report.offerings.first { $0.offeringID == "test" })
        #expect(!test.comparisons.isEmpty && !test.familyComparisons.isEmpty && !test.matured.isEmpty && !test.daily.isEmpty)
        #expect(test.groups.contains { $0.shownCopy != nil && !$0.shownProducts.isEmpty } && test.sampleRatio != nil)
        #expect(!test.products.isEmpty && !report.quality.isEmpty && !(report.slices.first?.offerings.isEmpty ?? true))
        #expect(!test.projection.isEmpty && !test.projectedComparisons.isEmpty)

        var renamed = tables
        let summary = try #require(renamed.firstIndex { $0.name == SummaryRow.table.schema.name })
        let arpu = try #require(renamed[summary].columns.firstIndex(of: .arpu))
        renamed[summary].schema.columns[arpu].name = "arpu_per_user"
        missing = []
        _ = NightTables(database: renamed, missing: { missing.append($0) })
        #expect(Set(missing) == ["summary.arpu"])
    }

    @Test func theLatestSuccessfulRunOfTheNightIsRead() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("results.sqlite")
        let both = try await databaseTables(folder, offerings: ["other", "test"])
        let testOnly = try await typedNight(folder, offerings: ["test"])
        try ResultsDatabase.write(path: path, tables: both, offeringIDs: ["other", "test"], run: run("2026-03-05", finishedAt: "first"))
        try ResultsDatabase.write(path: path, tables: both, offeringIDs: ["other", "test"], run: run("2026-03-06", finishedAt: "second"))
        try ResultsDatabase.write(
            path: path, tables: testOnly.databaseTables, offeringIDs: ["test"], run: run("2026-03-06", finishedAt: "third"))

        let latest = try ReportData.load(databasePath: path, night: Night("2026-03-06"))
        #expect(latest.run.finishedAt == "third")
        #expect(latest == ReportData(night: testOnly, run: run("2026-03-06", finishedAt: "third")))
        #expect(latest.offerings.map(\.offeringID) == ["test"])
        #expect(try ReportData.load(databasePath: path, night: Night("2026-03-05")).run.finishedAt == "first")
    }

    @Test func aMissingDatabaseOrNightIsNamed() async throws {
        let folder = try TemporaryFolder()
        let missing = try #require(throws: OfferLabError.self) {
            try ReportData.load(databasePath: folder.file("none.sqlite"), night: Night("2026-03-06"))
        }
        #expect(missing.code == .noNights && missing.location == .init(path: folder.file("none.sqlite")), "\(missing)")
        #expect(missing.exitCode == 66)

        let path = folder.file("results.sqlite")
        try ResultsDatabase.write(
            path: path, tables: try await databaseTables(folder, offerings: ["test"]), offeringIDs: ["test"],
            run: run("2026-03-05", finishedAt: "f"))
        let night = try #require(throws: OfferLabError.self) { try ReportData.load(databasePath: path, night: Night("2026-03-06")) }
        #expect(night.code == .nightNotFound && night.location == .init(path: path), "\(night)")
        #expect(night.exitCode == 65)
        // What the person can ask for instead.
        #expect(night.message.hasSuffix("(nights held: 2026-03-05)"), "\(night)")
    }

    @Test func aNightWrittenBeforeReportsExistedSaysSo() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("results.sqlite")
        let tables = try await databaseTables(folder, offerings: ["test"]).filter {
            !["offerings", "shown_products", "shown_copy"].contains($0.name)
        }
        try ResultsDatabase.write(path: path, tables: tables, offeringIDs: ["test"], run: run("2026-03-06", finishedAt: "f"))
        let error = try #require(throws: OfferLabError.self) { try ReportData.load(databasePath: path, night: Night("2026-03-06")) }
        #expect(error.code == .nightNotFound && error.location == .init(path: path), "\(error)")
        // Also once a later night has created the report tables.
        try ResultsDatabase.write(
            path: path, tables: try await databaseTables(folder, offerings: ["test"]), offeringIDs: ["test"],
            run: run("2026-03-07", finishedAt: "f"))
        #expect(throws: OfferLabError.self) { try ReportData.load(databasePath: path, night: Night("2026-03-06")) }
        #expect(try ReportData.load(databasePath: path, night: Night("2026-03-07")).offerings.count == 1)
    }
}
