import Foundation
import Testing

@testable import OfferLab
@testable import OfferLabSupport
@testable import OfferLabWriters

/// The database keeps every night: re-running a night through the binary replaces exactly that
/// night (for the offerings it analyses) and leaves every other night alone.
@Suite struct NightHistoryTests {
    @Test func rerunningANightReplacesThatNightOnly() throws {
        // The same logs every night: nothing since the previous night.
        let night = try NightFixture(job: ["allow_stale_logs": "true"])
        for asOf in ["2026-03-15", "2026-03-16", "2026-03-17"] {
            let result = try night.run(["--as-of", asOf])
            try #require(result.status == 0, "\(result.standardError)")
        }
        let otherNights = "as_of <> '2026-03-16'"
        let before = try night.resultRows(where: otherNights)
        #expect(before["summary"]?.count == 8)

        // New events change the night of 2026-03-16 when it is run again.
        try night.writeLog(
            "b.jsonl.gz",
            [event("purchase", user: "u4", ts: "2026-03-15T12:00:00Z", product: "monthly", transaction: "t8", price: "19.99")])
        let rerun = try night.run(["--as-of", "2026-03-16"])
        #expect(rerun.status == 0, "\(rerun.standardError)")
        #expect(try night.resultRows(where: otherNights) == before)
        #expect(try night.databaseRows()["runs"]?.count == 4)

        // The night's rows are exactly those of a first run of that night on a fresh database.
        let fresh = night.folder.file("fresh.sqlite")
        #expect(try night.run(["--as-of", "2026-03-16", "--database", fresh]).status == 0)
        let thisNight = "as_of = '2026-03-16'"
        #expect(try night.resultRows(where: thisNight) == night.resultRows(where: thisNight, in: fresh))
        // … which hold the new purchase: the variant has 2 purchases now.
        let variant = try #require(night.csv("summary").first { $0.count > 13 && $0[1] == "variant" })
        #expect(variant[13] == "2")
    }

    @Test func rerunningOneOfferingLeavesTheOtherOfferingsOfTheNight() throws {
        // The same logs every night: nothing since the previous night.
        let night = try NightFixture(job: ["allow_stale_logs": "true"])
        #expect(try night.run().status == 0)
        let before = try night.resultRows(where: "offering_id = 'other'")
        try night.writeLog(
            "b.jsonl.gz", [event("purchase", user: "o2", ts: "2026-03-05T00:00:00Z", product: "weekly", transaction: "t7", price: "1")])
        try night.writeJob(["offerings": "[test]"])
        #expect(try night.run().status == 0)
        let after = try night.resultRows(where: "offering_id = 'other'")
        #expect(after == before)
        #expect(try night.csv("summary").dropFirst().allSatisfy { $0[0] == "test" })
    }

    /// A database written by an earlier version, whose tables lack a column this version writes,
    /// is migrated in place: its nights are kept, the new column is empty for them and filled for
    /// the new night.
    @Test func aDatabaseOfAnEarlierVersionGainsTheNewColumnsAndKeepsItsHistory() throws {
        // The same logs every night: nothing since the previous night.
        let night = try NightFixture(job: ["allow_stale_logs": "true"])
        #expect(try night.run(["--as-of", "2026-03-15"]).status == 0)
        let database = try SQLiteDatabase(path: night.databasePath)
        try database.execute("ALTER TABLE summary DROP COLUMN arppu")
        let earlierNight = try night.resultRows(where: "as_of = '2026-03-15'")

        let result = try night.run(["--as-of", "2026-03-16"])
        try #require(result.status == 0, "\(result.standardError)")
        var arppu: [(night: SQLiteValue, value: SQLiteValue)] = []
        try database.prepare("SELECT as_of, arppu FROM summary WHERE converters > 0").forEachRow { row in
            arppu.append((row.value(at: 0), row.value(at: 1)))
        }
        #expect(arppu.contains { $0.night == .text("2026-03-15") } && arppu.contains { $0.night == .text("2026-03-16") })
        #expect(arppu.allSatisfy { ($0.night == .text("2026-03-15")) == ($0.value == .null) })
        #expect(try night.databaseRows()["runs"]?.count == 2)
        // Every other column of the earlier night is as it was.
        let kept = try night.resultRows(where: "as_of = '2026-03-15'")
        #expect(kept.keys.sorted() == earlierNight.keys.sorted())
        #expect(kept["comparisons"] == earlierNight["comparisons"])
    }

    /// A database from before the sequential columns (docs/statistics.md, Sequential): its comparisons, daily and offerings
    /// tables gain them in place, empty for the nights it held, filled for the new night.
    @Test func aDatabaseWithoutTheSequentialColumnsGainsThemAndKeepsItsNights() throws {
        // The same logs every night: nothing since the previous night.
        let night = try NightFixture(job: ["allow_stale_logs": "true"])
        #expect(try night.run(["--as-of", "2026-03-15"]).status == 0)
        let database = try SQLiteDatabase(path: night.databasePath)
        let added: [(table: String, columns: [String])] = [
            ("comparisons", OfferLabWriters.SequentialValues.columns.map(\.column.name)),
            (
                "daily",
                OwnMetric.allCases.flatMap { metric in
                    OfferLabWriters.SequentialValues.columns.map(\.column).map { ResultColumn.daily($0, of: metric).name }
                }
            ),
            ("offerings", ["sequential_tuning", "decision"]),
        ]
        for (table, columns) in added {
            for column in columns { try database.execute("ALTER TABLE \(table) DROP COLUMN \"\(column)\"") }
        }
        let earlierNight = try night.resultRows(where: "as_of = '2026-03-15'")

        let result = try night.run(["--as-of", "2026-03-16"])
        try #require(result.status == 0, "\(result.standardError)")
        for (table, columns) in added {
            for column in columns {
                var values: [String: [SQLiteValue]] = [:]
                try database.prepare("SELECT as_of, \"\(column)\" FROM \(table)").forEachRow { row in
                    if case .text(let asOf) = row.value(at: 0) { values[asOf, default: []].append(row.value(at: 1)) }
                }
                #expect(values["2026-03-15"]?.allSatisfy { $0 == .null } == true, "\(table).\(column)")
                #expect(values["2026-03-16"]?.contains { $0 != .null } == true, "\(table).\(column)")
            }
        }
        let kept = try night.resultRows(where: "as_of = '2026-03-15'")
        #expect(kept["summary"] == earlierNight["summary"])

        // The earlier night's report still renders, its verdicts on the fixed-horizon test, saying so.
        let report = try runOfferLab(["report", "--db", night.databasePath, "--as-of", "2026-03-15", "--output", "-"])
        #expect(report.status == 0, "\(report.standardError)")
        #expect(report.standardOutput.contains("This night was stored by an offerlab without the always-valid (sequential) test"))
        let newNight = try runOfferLab(["report", "--db", night.databasePath, "--as-of", "2026-03-16", "--output", "-"])
        #expect(newNight.status == 0 && !newNight.standardOutput.contains("without the always-valid"))
    }
}
