import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabSupport

/// What the commands other than `run` say, through the real binary.
@Suite struct CommandMessageTests {
    @Test func theVersionIsTheOneTheRunsTableRecords() throws {
        let night = try NightFixture()
        #expect(try night.run().status == 0)
        var recorded: [SQLiteValue] = []
        try SQLiteDatabase(path: night.databasePath, readOnly: true).prepare("SELECT tool_version FROM runs").forEachRow {
            recorded.append($0.value(at: 0))
        }
        let version = try runOfferLab(["--version"])
        #expect(version.status == 0)
        let lines = version.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(!(lines.first ?? "").isEmpty)
        #expect(recorded == [.text(lines.first ?? "")])
        // Then which inflaters the binary can use, and how to get ISA-L when it cannot.
        #expect(lines.last == Inflater.availabilityText)
        #expect(
            Inflater.isalAvailable
                ? lines.last == "gzip: zlib, ISA-L (isal, the default)"
                : lines.last?.hasPrefix("gzip: zlib only; ISA-L unavailable, ") == true)
    }

    /// A mistyped command is named with the one meant, not called "unexpected arguments".
    @Test(arguments: [
        ("rn", ": did you mean run?"), ("reprot", ": did you mean report?"), ("statuss", ": did you mean status?"),
        ("stauts", ": did you mean status?"),
        ("frobnicate", ""),
    ])
    func aMistypedCommandGetsTheOneMeant(typed: String, suggestion: String) throws {
        let result = try runOfferLab([typed, "jobs/sample.yaml"])
        #expect(result.status == 64 && result.standardOutput.isEmpty)
        #expect(
            result.standardError
                == "offerlab: error: unknown command '\(typed)'\(suggestion) (commands: run, report, status, stats, sql, events, generate, decompress; offerlab --help)\n"
        )
    }

    /// The database is `--db` on every command that takes one, and `--database`, which `run` took
    /// first, on each of them too.
    @Test(arguments: ["--db", "--database"]) func everyCommandNamesItsDatabaseAsRunDoes(flag: String) throws {
        let night = try NightFixture()
        let database = night.folder.file("elsewhere.sqlite")
        let run = try night.run([flag, database])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(FileManager.default.fileExists(atPath: database))
        // `run` names the page to open first.
        #expect(
            run.standardOutput.contains("\nreport: \(night.outputPath)/2026-03-16/report.html (the page to open first)\n"),
            "\(run.standardOutput)")
        let status = try runOfferLab(["status", flag, database])
        #expect(status.status == 0 && status.standardOutput.hasPrefix("offering\tgroup\tstatus"), "\(status.standardError)")
        let report = try runOfferLab(["report", flag, database, "--output", "-"])
        #expect(report.status == 0 && report.standardOutput.hasPrefix("<!DOCTYPE html>"), "\(report.standardError)")
    }

    /// `report`, like `status`, reads the latest successful night when no `--as-of` names one.
    @Test func reportWithoutAsOfRebuildsTheLatestNight() throws {
        // The same logs every night: nothing since the previous night.
        let night = try NightFixture(job: ["allow_stale_logs": "true"])
        for asOf in ["2026-03-16", "2026-03-15"] { #expect(try night.run(["--as-of", asOf]).status == 0) }
        let result = try runOfferLab(["report", "--db", night.databasePath], in: night.folder.path)
        #expect(result.status == 0 && result.standardOutput == "wrote report-2026-03-16.html\n", "\(result.standardError)")
        let rebuilt = try String(contentsOfFile: night.folder.file("report-2026-03-16.html"), encoding: .utf8)
        #expect(rebuilt == (try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)))
        // A database without a night says so, as `status` does.
        let missing = try runOfferLab(["report", "--db", night.folder.file("none.sqlite")])
        #expect(missing.status == 66 && missing.standardError.split(separator: "\n").count == 1, "\(missing.standardError)")
    }

    /// A file that is no SQLite database given as the database (a CSV file) is named as such in
    /// one line, without SQLite's statement, by the commands that read it and by `run`, which
    /// leaves it as it was.
    @Test func aCSVFileGivenAsTheDatabaseIsOneLineNamingIt() throws {
        let night = try NightFixture()
        let csv = try night.folder.write("summary.csv", "offering_id,group,users\ntest,control,2\n")
        let line = "offerlab: error: \(csv) is not an offerlab results database (SQLite: file is not a database)\n"
        for command in ["status", "report"] {
            let result = try runOfferLab([command, "--db", csv])
            #expect(result.status == 65 && result.standardError == line, "\(command): \(result.standardError)")
        }
        let run = try night.run(["--db", csv])
        #expect(run.status == 73 && run.standardError == line, "\(run.standardError)")
        #expect(try String(contentsOfFile: csv, encoding: .utf8) == "offering_id,group,users\ntest,control,2\n")
    }

    /// `--inflater isal` where ISA-L cannot be used says why, and how to get it.
    @Test(.enabled(if: !Inflater.isalAvailable, "ISA-L is available here")) func isalWhereItCannotBeUsedSaysHowToGetIt() throws {
        let night = try NightFixture()
        let result = try runOfferLab(["run", night.jobPath, "--inflater", "isal"])
        #expect(result.status == 64)
        #expect(result.standardError == "offerlab: error: the isal inflater cannot be used: \(Inflater.isalUnavailableReason ?? "")\n")
        #expect(result.standardError.contains("install libisal"))
    }

    /// A bad command line is one `offerlab: error:` line and exit 64, as every other error is one
    /// line (ArgumentParser's usage and help lines stay behind `--help`).
    @Test(arguments: [
        (["run"], "Missing expected argument '<job>'"), (["run", "job.yaml", "--colour", "blue"], "Unknown option '--colour'"),
        (["frobnicate"], "unknown command 'frobnicate' (commands: run,"),
        (["run", "job.yaml", "--threads", "0"], "--threads must be at least 1, got 0"),
        (["run", "job.yaml", "--inflater", "gzip"], "The value 'gzip' is invalid for '--inflater <name>'"),
    ])
    func aBadCommandLineIsOneErrorLine(arguments: [String], message: String) throws {
        let result = try runOfferLab(arguments)
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("offerlab: error: \(message)"), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func generateIntoAFolderHoldingADataSetIsOneErrorLine() throws {
        let folder = try TemporaryFolder()
        let arguments = ["generate", "--out", folder.path, "--users", "20", "--seed", "1", "--days", "1"]
        #expect(try runOfferLab(arguments).status == 0)
        let again = try runOfferLab(arguments)
        #expect(again.status == 73)
        #expect(
            again.standardError
                == "offerlab: error: \(folder.path): already holds a data set (tables); choose another folder or pass --force to replace it\n"
        )
    }
}
