import Foundation
import Testing

@testable import OfferLab
@testable import OfferLabSupport

/// Names from the data are never executed: SQL binds them, CSV output neutralises formula
/// triggers (a leading `=`, `+`, `-`, `@`, tab or carriage return gets a `'`), the HTML report
/// escapes them.
@Suite struct HostileDataTests {
    static let offering = #"it's "quoted"); DROP TABLE summary; --"#
    static let groups = [
        #"=HYPERLINK("http://example.com","click")"#, "+SUM(1,2)", "-2+3", "@cmd", "\tTab", "\rCR", "plain, with a comma",
        "<script>alert(1)</script>",
    ]

    @Test func hostileNamesAreStoredAsTheyAreAndNeutralisedInCSV() throws {
        var tables = TablesFixture()
        tables.offerings = [(1, Self.offering, Self.offering, true)]
        tables.groups = Self.groups.enumerated().map { (10 + $0.offset, 1, $0.element, 1) }
        tables.assignments = Self.groups.indices.map { ("u\($0)", "1", "\(10 + $0)", "2026-03-01 00:00:00") }
        let night = try NightFixture(
            tables: tables,
            events: [
                event("purchase", user: "u0", ts: "2026-03-02T00:00:00Z", product: "=1+1", transaction: "t1", price: "1"),
                "=cmd|' /C calc'!A0",
            ],
            job: ["max_bad_line_ratio": "1"])
        let result = try night.run()
        try #require(result.status == 0, "\(result.standardError)")

        func shown(_ text: String) -> String { "=+-@\t\r".contains(text.first ?? " ") ? "'" + text : text }
        let summary = try night.csv("summary").dropFirst()
        #expect(summary.map { $0[0] } == Array(repeating: Self.offering, count: Self.groups.count))
        #expect(summary.map { $0[1] } == Self.groups.map(shown))
        #expect(try night.csv("products").dropFirst().map { [$0[1], $0[2]] } == [[shown(Self.groups[0]), "'=1+1"]])
        #expect(try night.csv("rejects").dropFirst().map { $0[3] } == ["'=cmd|' /C calc'!A0"])

        // The report escapes them.
        let report = try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)
        #expect(!report.contains("<script>alert(1)"))
        #expect(report.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))

        // The database holds the names as they are, and every table is still there.
        let database = try SQLiteDatabase(path: night.databasePath, readOnly: true)
        #expect(try database.tableNames().isSuperset(of: ["summary", "comparisons", "srm", "products", "quality", "runs", "run_inputs"]))
        var stored: [String] = []
        try database.prepare("SELECT \"group\" FROM summary WHERE offering_id = ? ORDER BY rowid").forEachRow([.text(Self.offering)]) {
            row in
            if case .text(let name) = row.value(at: 0) { stored.append(name) }
        }
        #expect(stored == Self.groups)
    }
}
