import Foundation
import OfferLabJob
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabSupport
@testable import OfferLabWriters

@Suite struct ResultsDatabaseTests {
    func table(_ offering: String, _ value: Int) -> ResultTable {
        var table = ResultTable(.quality)
        table.rows = [[.text(offering), .text("n"), .integer(value)], [.text(""), .text("lines_read"), .integer(value)]]
        return table
    }

    func run(_ night: String) -> RunRecord {
        RunRecord(
            job: "job.yaml", night: Night(night), startedAt: "s", finishedAt: "f", status: "succeeded",
            toolVersion: "t", inputFiles: [("a.jsonl.gz", 10)])
    }

    func rows(_ path: String) throws -> [String] {
        var rows: [String] = []
        try SQLiteDatabase(path: path).prepare("SELECT as_of, offering_id, count FROM quality ORDER BY as_of, offering_id").forEachRow {
            row in
            rows.append(
                (0..<3).map { column -> String in
                    switch row.value(at: column) {
                    case .text(let text): text
                    case .integer(let integer): String(integer)
                    default: "?"
                    }
                }.joined(separator: " "))
        }
        return rows
    }

    @Test func rerunningANightReplacesThatNightOnly() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("db/results.sqlite")
        try ResultsDatabase.write(path: path, tables: [table("x", 1)], offeringIDs: ["x"], run: run("2026-03-14"))
        try ResultsDatabase.write(path: path, tables: [table("x", 2)], offeringIDs: ["x"], run: run("2026-03-15"))
        try ResultsDatabase.write(path: path, tables: [table("y", 7)], offeringIDs: ["y"], run: run("2026-03-15"))
        try ResultsDatabase.write(path: path, tables: [table("x", 3)], offeringIDs: ["x"], run: run("2026-03-15"))
        #expect(try rows(path) == ["2026-03-14  1", "2026-03-14 x 1", "2026-03-15  3", "2026-03-15 x 3", "2026-03-15 y 7"])
        var runs = 0
        try SQLiteDatabase(path: path).prepare("SELECT count(*) FROM runs JOIN run_inputs USING (run_id)").forEachRow { row in
            if case .integer(let count) = row.value(at: 0) { runs = Int(count) }
        }
        #expect(runs == 4)
    }

    @Test func valuesFromTheDataAreBoundNotExecuted() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("results.sqlite")
        let hostile = "x'); DROP TABLE quality; --"
        try ResultsDatabase.write(path: path, tables: [table(hostile, 1)], offeringIDs: [hostile], run: run("2026-03-15"))
        #expect(try rows(path).contains("2026-03-15 \(hostile) 1"))
    }
}

@Suite struct OutputFolderTests {
    @Test func swappingInReplacesThePreviousOutputsWhole() throws {
        let folder = try TemporaryFolder()
        let first = try OutputFolder(output: folder.path, night: Night("2026-03-15"))
        try first.write("a.csv", contents: "old")
        try first.write("only-old.csv", contents: "old")
        #expect(try first.swapIn() == false)
        first.finish()
        let second = try OutputFolder(output: folder.path, night: Night("2026-03-15"))
        try second.write("a.csv", contents: "new")
        #expect(try second.swapIn() == true)
        second.finish()
        let night = folder.file("2026-03-15")
        #expect(try String(contentsOfFile: night + "/a.csv", encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: night + "/only-old.csv"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["2026-03-15"])
    }

    @Test func restoringPutsThePreviousOutputsBackOrNothing() throws {
        let folder = try TemporaryFolder()
        let first = try OutputFolder(output: folder.path, night: Night("2026-03-15"))
        try first.write("a.csv", contents: "old")
        let hadNone = try first.swapIn()
        first.restore(hadPrevious: hadNone)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        let again = try OutputFolder(output: folder.path, night: Night("2026-03-15"))
        try again.write("a.csv", contents: "old")
        _ = try again.swapIn()
        again.finish()
        let failed = try OutputFolder(output: folder.path, night: Night("2026-03-15"))
        try failed.write("a.csv", contents: "new")
        failed.restore(hadPrevious: try failed.swapIn())
        #expect(try String(contentsOfFile: folder.file("2026-03-15/a.csv"), encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["2026-03-15"])
    }

    @Test func discardLeavesThePreviousOutputs() throws {
        let folder = try TemporaryFolder()
        let first = try OutputFolder(output: folder.path, night: Night("2026-03-15"))
        try first.write("a.csv", contents: "old")
        _ = try first.swapIn()
        first.finish()
        let failed = try OutputFolder(output: folder.path, night: Night("2026-03-15"))
        try failed.write("a.csv", contents: "half")
        failed.discard()
        #expect(try String(contentsOfFile: folder.file("2026-03-15/a.csv"), encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["2026-03-15"])
    }
}

@Suite struct RunLockTests {
    @Test func aSecondHolderWaitsThenGivesUp() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("results.sqlite.lock")
        let first = try RunLock(path: path, timeoutSeconds: 0)
        // flock locks belong to the open file description, so a second open in-process conflicts.
        let error = #expect(throws: OfferLabError.self) { try RunLock(path: path, timeoutSeconds: 0.2) }
        #expect(error?.code == .locked && error?.exitCode == 75)
        withExtendedLifetime(first) {}
    }

    @Test func aReleasedLockCanBeTakenAgain() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("results.sqlite.lock")
        do { _ = try RunLock(path: path, timeoutSeconds: 0) }
        _ = try RunLock(path: path, timeoutSeconds: 0)
    }
}
