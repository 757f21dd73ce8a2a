import Foundation
import Testing

/// A night whose inputs look broken never looks like a normal night (docs/reliability.md, A
/// broken night): it fails (exit 65) with one line saying what looked wrong and the job key
/// that allows it, and writes nothing. Through the real binary.
@Suite struct BrokenNightTests {
    /// Runs `night` and expects a failure with exactly `message`, leaving no night's outputs.
    static func expectFailure(_ night: NightFixture, _ arguments: [String] = [], message: String) throws {
        let before = FileManager.default.fileExists(atPath: night.outputPath) ? try night.outputEntries() : []
        let result = try night.run(arguments)
        #expect(result.status == 65, "\(result.standardError)")
        #expect(result.standardError == "offerlab: error: \(message)\n")
        // The lock file is made before any check.
        #expect(try night.outputEntries().filter { $0 != "results.sqlite.lock" } == before.filter { $0 != "results.sqlite.lock" })
    }

    @Test func logsWithoutALineFailTheNight() throws {
        let night = try NightFixture(events: [])
        try Self.expectFailure(
            night,
            message:
                "the logs hold no line (1 log file read): the logs look empty, or as_of is before them; allow_empty_night: true allows it")
        try night.writeJob(["allow_empty_night": "true"])
        let allowed = try night.run()
        #expect(allowed.status == 0, "\(allowed.standardError)")
        #expect(allowed.standardError == "warning: 1 log file yielded no valid line: \(night.folder.file("logs/a.jsonl.gz")) (empty)\n")
    }

    @Test func anAsOfBeforeEveryEventFailsTheNight() throws {
        let night = try NightFixture()
        try Self.expectFailure(
            night, ["--as-of", "2026-03-02"],
            message:
                "no valid log line is before as_of 2026-03-02T00:00:00Z (5 lines read, 0 malformed, 5 at or after as_of): the logs look empty, or as_of is before them; allow_empty_night: true allows it"
        )
    }

    /// Logs that stopped arriving: the next night's logs have nothing since the previous night's
    /// `as_of`. Re-running the previous night itself is no later night, and passes.
    @Test func logsWithNothingSinceThePreviousNightFailTheNight() throws {
        let night = try NightFixture()
        #expect(try night.run().status == 0)
        try Self.expectFailure(
            night, ["--as-of", "2026-03-17"],
            message:
                "no log event is at or after the previous night's as_of 2026-03-16T00:00:00Z (2026-03-16); the latest is 2026-03-04T10:00:00Z: the logs look stale; allow_stale_logs: true allows it"
        )
        #expect(try night.run().status == 0)
        // Another job file writing to the same database (its own output folder) has no previous night.
        let other = try night.folder.write("other.yaml", try String(contentsOfFile: night.jobPath, encoding: .utf8))
        #expect(
            try runOfferLab(["run", other, "--quiet", "--as-of", "2026-03-17", "--output", night.folder.file("other-out")]).status == 0)
        try night.writeJob(["allow_stale_logs": "true"])
        #expect(try night.run(["--as-of", "2026-03-18"]).status == 0)
        // An event on the previous night's as_of is one since.
        try night.writeJob(["allow_stale_logs": "false"])
        try night.writeLog("b.jsonl", [event("paywall_view", user: "u1", ts: "2026-03-18T00:00:00Z")])
        #expect(try night.run(["--as-of", "2026-03-19"]).status == 0)
    }

    @Test func anOfferingWithAssignmentsButNoUsersFailsTheNight() throws {
        // `o1` is assigned to offering `other` in a group of `test`: other's one row is invalid.
        var tables = NightFixture.standardTables
        tables.assignments = Array(tables.assignments.prefix(4)) + [("o1", "2", "10", "2026-03-01 00:00:00")]
        let night = try NightFixture(tables: tables)
        try Self.expectFailure(
            night,
            message:
                "offering other has no users: its 1 assignment row is invalid (invalid_assignments); allow_empty_offerings: true allows it")
        try night.writeJob(["allow_empty_offerings": "true"])
        #expect(try night.run().status == 0)
        // Named by the job without any assignment.
        try night.writeJob(["allow_empty_offerings": "false", "offerings": "[test, other]"])
        var unassigned = NightFixture.standardTables
        unassigned.assignments = Array(unassigned.assignments.prefix(4))
        try FileManager.default.removeItem(atPath: night.folder.file("tables.sqlite"))
        try unassigned.write(to: night.folder.file("tables.sqlite"))
        try Self.expectFailure(
            night,
            message:
                "offering other has no users: it has no assignment before as_of 2026-03-16T00:00:00Z; allow_empty_offerings: true allows it"
        )
    }

    /// Lines read, then an offering's users, against the previous successful night of the job:
    /// a fall of more than `max_volume_drop` (default 0.5) fails; as much passes.
    @Test func aDropInVolumeFailsTheNight() throws {
        let views = (0..<5).map { event("paywall_view", user: "u2", ts: "2026-03-15T0\($0):00:00Z") }
        let night = try NightFixture(events: NightFixture.standardEvents + views)
        #expect(try night.run().status == 0)
        // 10 lines, then 4: a fall of 60%.
        try night.writeLog(
            "a.jsonl.gz", Array(NightFixture.standardEvents.prefix(3)) + [event("paywall_view", user: "u2", ts: "2026-03-16T10:00:00Z")])
        try Self.expectFailure(
            night, ["--as-of", "2026-03-17"],
            message:
                "log lines read fell from 10 on the previous night (2026-03-16) to 4, by 60.00%, more than max_volume_drop 0.5; a larger max_volume_drop (up to 1) allows it"
        )
        try night.writeJob(["max_volume_drop": "0.6"])
        #expect(try night.run(["--as-of", "2026-03-17"]).status == 0)

        // Offering test's 4 users, then 1; other's 2 stay.
        var fewer = NightFixture.standardTables
        fewer.assignments = [fewer.assignments[0]] + Array(fewer.assignments.suffix(2))
        try FileManager.default.removeItem(atPath: night.folder.file("tables.sqlite"))
        try fewer.write(to: night.folder.file("tables.sqlite"))
        try night.writeLog("b.jsonl", [event("paywall_view", user: "u1", ts: "2026-03-17T10:00:00Z")])
        try Self.expectFailure(
            night, ["--as-of", "2026-03-18"],
            message:
                "offering test's users fell from 4 on the previous night (2026-03-17) to 1, by 75.00%, more than max_volume_drop 0.6; a larger max_volume_drop (up to 1) allows it"
        )
        try night.writeJob(["max_volume_drop": "1"])
        #expect(try night.run(["--as-of", "2026-03-18"]).status == 0)
    }

    @Test func aLogFileWithoutAValidLineIsNamedInAWarning() throws {
        let night = try NightFixture(job: ["max_bad_line_ratio": "1"])
        let junk = try night.writeLog("junk.jsonl", ["\u{1}\u{2}binary", "more junk"])
        let empty = try night.writeLog("empty.jsonl", [])
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardError.hasPrefix(
                "warning: 2 log files yielded no valid line: \(empty) (empty), \(junk) (2 lines, all malformed)\n"),
            "\(result.standardError)")
    }

    @Test func theVolumeKeysAreChecked() throws {
        let night = try NightFixture(job: ["max_volume_drop": "1.5"])
        let result = try night.run()
        #expect(result.status == 78)
        #expect(
            result.standardError
                == "offerlab: error: job file \(night.jobPath): max_volume_drop: 1.5 must be from 0 to 1 (a share of the previous night's volume; 1 allows any drop)\n"
        )
        try night.writeJob(["max_volume_drop": "0.5", "allow_stale_logs": "yes"])
        #expect(
            try night.run().standardError == "offerlab: error: job file \(night.jobPath): allow_stale_logs: 'yes' must be true or false\n")
    }
}
