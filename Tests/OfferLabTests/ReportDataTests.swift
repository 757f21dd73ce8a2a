import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLab

/// A night's report data read from a run's tables and read back from the database are the same.
@Suite struct ReportDataTests {
    static let tables = TablesFixture(assignments: [
        ("u1", "1", "10", "2026-03-01 09:00:00"), ("u2", "1", "11", "2026-03-02 09:00:00"), ("u3", "1", "10", "2026-03-02 10:00:00"),
        ("u4", "2", "20", "2026-03-03 00:00:00"),
    ])
    static let events = [
        logRecord("purchase", user: "u1", ts: "2026-03-03T00:00:00Z", transaction: "p1", product: "weekly", price: "7.99", currency: "USD"),
        logRecord(
            "purchase", user: "u2", ts: "2026-03-04T00:00:00Z", transaction: "p2", product: "monthly", price: "19.99", currency: "USD"),
    ]

    func job(_ folder: TemporaryFolder, offerings: [String]) -> Job {
        Job(
            jobPath: folder.file("job.yaml"), tablesPath: folder.file("tables.sqlite"), logPatterns: [], logFiles: [folder.file("a.jsonl")],
            asOf: UTCTime.parseAsOf("2026-03-06") ?? 0, reportCurrency: "USD", rates: ["USD": 1], alpha: 0.05, control: nil,
            conversionWindowDays: 7, offerings: offerings, maxBadLineRatio: 0.01, onCorruptFile: .fail, outputPath: folder.path,
            databasePath: folder.file("results.sqlite"), rejectsPerReason: 20, lockTimeoutSeconds: 1)
    }

    func run(_ night: String, finishedAt: String) -> RunRecord {
        RunRecord(
            job: "job.yaml", asOf: night + "T00:00:00Z", night: night, startedAt: "2026-03-06T02:30:00Z", finishedAt: finishedAt,
            status: "succeeded", toolVersion: NightlyRun.toolVersion, inputFiles: [("a.jsonl", 120), ("b.jsonl", 0)])
    }

    /// The database tables of a run of the fixture over `offerings`.
    func databaseTables(_ folder: TemporaryFolder, offerings: [String]) async throws -> [ResultTable] {
        let results = try await analyse(Self.tables, Self.events, asOf: "2026-03-06", window: 7, offerings: offerings)
        return try ResultTables.make(results, job: job(folder, offerings: offerings)).database
    }

    @Test func theDatabaseGivesBackWhatTheRunHad() async throws {
        let folder = try TemporaryFolder()
        let tables = try await databaseTables(folder, offerings: ["other", "test"])
        let record = run("2026-03-06", finishedAt: "2026-03-06T02:31:00Z")
        try ResultsDatabase.write(path: folder.file("results.sqlite"), tables: tables, offeringIDs: ["other", "test"], run: record)

        let inMemory = ReportData(tables: tables, run: record)
        let stored = try ReportData.load(databasePath: folder.file("results.sqlite"), night: "2026-03-06")
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
                ShownProduct(
                    productID: "weekly", type: "weekly", fallbackDisplayPrice: "7.99", isDefault: true, badgeText: nil, subtitleText: nil)
            ])
        #expect(test.groups[1].shownProducts.first?.badgeText == "BEST VALUE")
        #expect(
            test.groups[0].shownCopy
                == ShownCopy(headerTitle: "Title", headerSubtitle: "Sub", ctaButtonText: "Next", supportingText: "Cancel anytime"))
        #expect(test.groups[1].shownCopy == nil)
        #expect(test.products.map(\.productID) == ["weekly", "monthly"])
        #expect(test.daily.map(\.date).first == "2026-03-01" && test.daily.map(\.date).last == "2026-03-05")
        #expect(test.daily.count == 5 * 2)
        #expect(test.counter("invalid_assignments") == 0)
        #expect(stored.quality.first?.name == "files_read")
        #expect(stored.run.inputFiles == [InputFile(path: "a.jsonl", bytes: 120), InputFile(path: "b.jsonl", bytes: 0)])
        #expect(stored.run.finishedAt == "2026-03-06T02:31:00Z")
    }

    @Test func theLatestSuccessfulRunOfTheNightIsRead() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("results.sqlite")
        let both = try await databaseTables(folder, offerings: ["other", "test"])
        let testOnly = try await databaseTables(folder, offerings: ["test"])
        try ResultsDatabase.write(path: path, tables: both, offeringIDs: ["other", "test"], run: run("2026-03-05", finishedAt: "first"))
        try ResultsDatabase.write(path: path, tables: both, offeringIDs: ["other", "test"], run: run("2026-03-06", finishedAt: "second"))
        try ResultsDatabase.write(path: path, tables: testOnly, offeringIDs: ["test"], run: run("2026-03-06", finishedAt: "third"))

        let latest = try ReportData.load(databasePath: path, night: "2026-03-06")
        #expect(latest.run.finishedAt == "third")
        #expect(latest == ReportData(tables: testOnly, run: run("2026-03-06", finishedAt: "third")))
        #expect(latest.offerings.map(\.offeringID) == ["test"])
        #expect(try ReportData.load(databasePath: path, night: "2026-03-05").run.finishedAt == "first")
    }

    @Test func aMissingDatabaseOrNightIsNamed() async throws {
        let folder = try TemporaryFolder()
        let missing = try #require(throws: OfferLabError.self) {
            try ReportData.load(databasePath: folder.file("none.sqlite"), night: "2026-03-06")
        }
        #expect(missing.message.contains("none.sqlite does not exist") && missing.exitCode == 78)

        let path = folder.file("results.sqlite")
        try ResultsDatabase.write(
            path: path, tables: try await databaseTables(folder, offerings: ["test"]), offeringIDs: ["test"],
            run: run("2026-03-05", finishedAt: "f"))
        let night = try #require(throws: OfferLabError.self) { try ReportData.load(databasePath: path, night: "2026-03-06") }
        #expect(night.message.contains("holds no successful run for 2026-03-06 (nights held: 2026-03-05)"), "\(night.message)")
        #expect(night.exitCode == 65)
    }

    @Test func aNightWrittenBeforeReportsExistedSaysSo() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("results.sqlite")
        let tables = try await databaseTables(folder, offerings: ["test"]).filter {
            !["offerings", "shown_products", "shown_copy"].contains($0.name)
        }
        try ResultsDatabase.write(path: path, tables: tables, offeringIDs: ["test"], run: run("2026-03-06", finishedAt: "f"))
        let error = try #require(throws: OfferLabError.self) { try ReportData.load(databasePath: path, night: "2026-03-06") }
        #expect(error.message.contains("run the night again"), "\(error.message)")
        // Also once a later night has created the report tables.
        try ResultsDatabase.write(
            path: path, tables: try await databaseTables(folder, offerings: ["test"]), offeringIDs: ["test"],
            run: run("2026-03-07", finishedAt: "f"))
        #expect(throws: OfferLabError.self) { try ReportData.load(databasePath: path, night: "2026-03-06") }
        #expect(try ReportData.load(databasePath: path, night: "2026-03-07").offerings.count == 1)
    }
}
