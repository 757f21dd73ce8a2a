import Foundation
import Testing

/// Killed, concurrent and failing runs through the real binary: the previous outputs and the
/// database stay exactly as they were, and the next run succeeds.
@Suite struct CrashSafetyTests {
    /// A night already written once; the logs then change, so that a new run would change it.
    func nightWithPreviousOutputs() throws -> (night: NightFixture, before: OutputSnapshot) {
        let night = try NightFixture()
        let first = try night.run()
        try #require(first.status == 0, "\(first.standardError)")
        let before = try night.snapshot()
        try night.writeLog(
            "b.jsonl.gz",
            [event("purchase", user: "u2", ts: "2026-03-05T00:00:00Z", product: "weekly", transaction: "t9", price: "7.99")])
        return (night, before)
    }

    @Test(arguments: ["reading-logs", "writing-csv", "in-transaction"])
    func aRunKilledAtAnyStageChangesNothingAndTheNextRunSucceeds(stage: String) throws {
        let (night, before) = try nightWithPreviousOutputs()
        let run = try night.start(pausingAt: stage)
        run.send(SIGKILL)
        #expect(run.wait().wasKilled)
        #expect(try night.snapshot() == before)

        let rerun = try night.run()
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let after = try night.snapshot()
        #expect(after != before)
        #expect(try night.quality("lines_read") == NightFixture.standardEvents.count + 1)
        // The staging folder of the killed run is gone: only the night and the database remain.
        #expect(try night.outputEntries().filter { !$0.hasPrefix("results.sqlite") } == ["2026-03-16"])
        #expect(after.database["runs"]?.count == 2)
    }

    @Test func aSecondRunGivesUpAfterTheLockTimeoutWithAClearMessage() throws {
        let (night, before) = try nightWithPreviousOutputs()
        let first = try night.start(pausingAt: "reading-logs")
        try night.writeJob(["lock_timeout_seconds": "0.5"])
        let started = Date()
        let second = try night.run()
        #expect(second.status == 75)
        #expect(Date().timeIntervalSince(started) >= 0.5)
        #expect(
            second.standardError
                == "offerlab: error: another run of this job holds \(night.databasePath).lock; waited 0.5 s (set lock_timeout_seconds to wait longer)\n"
        )
        #expect(try night.snapshot() == before)

        first.send(SIGCONT)
        #expect(first.wait().status == 0)
        #expect(try night.snapshot() != before)
    }

    @Test func aSecondRunWaitsForTheFirstThenRuns() throws {
        let (night, _) = try nightWithPreviousOutputs()
        try night.writeJob(["lock_timeout_seconds": "120"])
        let first = try night.start(pausingAt: "reading-logs")
        let second = try OfferLabProcess(["run", night.jobPath, "--quiet"])
        usleep(1_000_000)
        #expect(second.isRunning, "the second run did not wait: \(second.standardError)")
        first.send(SIGCONT)
        #expect(first.wait().status == 0)
        let result = second.wait()
        #expect(result.status == 0, "\(result.standardError)")
        // Both runs are recorded, and the night holds one set of rows, not two.
        #expect(try night.databaseRows()["runs"]?.count == 3)
        #expect(try night.resultRows(where: "as_of = '2026-03-16'")["summary"]?.count == 4)
        #expect(try night.csv("summary").count == 5)
    }

    @Test func aLockLeftByAKilledRunDoesNotBlockTheNextNight() throws {
        let (night, _) = try nightWithPreviousOutputs()
        let killed = try night.start(pausingAt: "reading-logs")
        killed.send(SIGKILL)
        _ = killed.wait()
        #expect(FileManager.default.fileExists(atPath: night.databasePath + ".lock"))
        try night.writeJob(["lock_timeout_seconds": "0", "allow_stale_logs": "true"])
        let next = try night.run(["--as-of", "2026-03-17"])
        #expect(next.status == 0, "\(next.standardError)")
    }

    /// A file size limit of 0 (`ulimit -f 0`): the first CSV file cannot be written.
    @Test func aFullDiskWhileWritingTheFilesIsAClearErrorAndChangesNothing() throws {
        let (night, before) = try nightWithPreviousOutputs()
        let result = try night.run(fileSizeLimitKiB: 0)
        #expect(result.status == 73, "\(result)")
        #expect(result.standardError.hasPrefix("offerlab: error: output: cannot write "))
        #expect(result.standardError.contains("File too large"))
        #expect(try night.snapshot() == before)
        #expect(try night.outputEntries().filter { !$0.hasPrefix("results.sqlite") } == ["2026-03-16"])
    }

    /// A limit just above the largest output file: the files fit, the database's write-ahead
    /// log (a page of each table and index the run writes) does not.
    @Test func aFullDiskWhileWritingTheDatabaseIsAClearErrorAndChangesNothing() throws {
        let (night, before) = try nightWithPreviousOutputs()
        let largestFile = try #require(before.files.values.map(\.count).max())
        let result = try night.run(fileSizeLimitKiB: largestFile / 1024 + 4)
        #expect(result.status == 73, "\(result)")
        // SQLite's words ("disk I/O error"; with the system's reason when SQLite still has it).
        #expect(result.standardError.hasPrefix("offerlab: error: database: \(night.databasePath): SQLite error 10: disk I/O error"))
        #expect(try night.snapshot() == before)
        #expect(try night.outputEntries().filter { !$0.hasPrefix("results.sqlite") } == ["2026-03-16"])
        #expect(try night.run().status == 0)
    }

    /// An output folder that cannot be created (a regular file is in the way: this fails for
    /// root too, unlike a folder without write permission).
    @Test func anUnwritableOutputFolderIsAClearError() throws {
        let night = try NightFixture()
        let blocker = try night.folder.write("blocker", "a file, not a folder")
        let result = try night.run(["--output", blocker + "/out"])
        #expect(result.status == 73)
        #expect(result.standardError == "offerlab: error: output: cannot create \(blocker)/out: Not a directory\n")
    }

    /// The database cannot be opened (a folder is in its place) after the CSV files were
    /// staged: they are discarded and the previous ones stay.
    @Test func anUnwritableDatabaseLeavesThePreviousFilesInPlace() throws {
        let (night, before) = try nightWithPreviousOutputs()
        let elsewhere = night.folder.file("elsewhere/results.sqlite")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let result = try night.run(["--database", elsewhere])
        #expect(result.status == 73)
        #expect(
            result.standardError
                == "offerlab: error: database: \(elsewhere): SQLite error 14: unable to open database file (Is a directory)\n")
        #expect(try night.snapshot() == before)
        #expect(try night.outputEntries().filter { !$0.hasPrefix("results.sqlite") } == ["2026-03-16"])
    }

    /// Issue 47: the night folder and the database change together. The swap fails (its staging
    /// folder is taken away while the run waits to swap it in): nothing is committed.
    @Test func aFolderThatCannotBeSwappedInCommitsNothing() throws {
        let (night, before) = try nightWithPreviousOutputs()
        let run = try night.start(pausingAt: "swapping")
        for entry in try FileManager.default.contentsOfDirectory(atPath: night.outputPath) where entry.hasPrefix(".2026-03-16.partial-") {
            try FileManager.default.removeItem(atPath: night.folder.file("out/\(entry)"))
        }
        run.send(SIGCONT)
        let result = run.wait()
        #expect(result.status == 73, "\(result.standardError)")
        #expect(result.standardError.contains("\nofferlab: error: output: cannot open"), "\(result.standardError)")
        #expect(try night.snapshot() == before)
    }

    /// The folder is swapped in, then the commit fails (the process may no longer grow a file,
    /// so the database's log cannot take the transaction): the previous folder is swapped back.
    @Test func aCommitThatFailsAfterTheSwapPutsThePreviousFolderBack() throws {
        let (night, before) = try nightWithPreviousOutputs()
        let run = try night.start(pausingAt: "swapped")
        #expect(try night.snapshot().files != before.files)  // the new folder is in place, uncommitted
        let limit = Process()
        limit.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        limit.arguments = ["--pid", "\(run.pid)", "--fsize=0"]
        try limit.run()
        limit.waitUntilExit()
        try #require(limit.terminationStatus == 0)
        run.send(SIGCONT)
        let result = run.wait()
        #expect(result.status == 73, "\(result.standardError)")
        #expect(result.standardError.contains("\nofferlab: error: database:"), "\(result.standardError)")
        #expect(try night.snapshot() == before)
        #expect(try night.outputEntries().filter { !$0.hasPrefix("results.sqlite") } == ["2026-03-16"])
    }
}
