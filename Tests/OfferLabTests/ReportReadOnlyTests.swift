import Foundation
import Testing

@testable import OfferLab
@testable import OfferLabSupport

/// Reading the results database. `offerlab report` only reads the database: it changes no byte of it and leaves no `-wal` or
/// `-shm` file beside it.
@Suite struct ReportReadOnlyTests {
    @Test func theReportLeavesTheDatabaseFolderAsItWas() throws {
        let night = try NightFixture()
        #expect(try night.run().status == 0)
        let entries = try night.outputEntries()
        #expect(entries == ["2026-03-16", "results.sqlite", "results.sqlite.lock"])
        let before = try Data(contentsOf: URL(fileURLWithPath: night.databasePath))
        let report = try runOfferLab([
            "report", "--db", night.databasePath, "--as-of", "2026-03-16", "--output", night.folder.file("report.html"),
        ])
        #expect(report.status == 0, "\(report.standardError)")
        #expect(try night.outputEntries() == entries)
        #expect(try Data(contentsOf: URL(fileURLWithPath: night.databasePath)) == before)
        #expect(
            try String(contentsOfFile: night.folder.file("report.html"), encoding: .utf8)
                == String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8))
    }

    /// The README's `sqlite3` example, on a night where two offerings each have a `control`
    /// group: every row it prints can be told from the others.
    @Test func theReadmeQueryTellsEveryRowApart() throws {
        var tables = NightFixture.standardTables
        tables.groups[2].name = "control"
        let night = try NightFixture(tables: tables)
        #expect(try night.run().status == 0)
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try #require(readme.components(separatedBy: "sqlite3 out/sample/results.sqlite \\\n").dropFirst().first)
        let query = try #require(example.split(separator: "\n").first).trimmingCharacters(in: .whitespaces).dropFirst().dropLast()
            .replacingOccurrences(of: "\\\"", with: "\"")
        let statement = try SQLiteDatabase(path: night.databasePath, readOnly: true).prepare(String(query))
        let key = ["as_of", "offering_id", "group"].compactMap { statement.columnNames.firstIndex(of: $0) }
        #expect(key.count == 3, "\(statement.columnNames)")
        var rows: [String] = []
        try statement.forEachRow { row in rows.append(key.map { "\(row.value(at: $0))" }.joined(separator: "|")) }
        #expect(rows.count == 4)
        #expect(Set(rows).count == rows.count, "\(rows)")
    }
}
