import Foundation
import Testing

/// jobs/offerlab-nightly.sh, the cron wrapper, running the real binary (`OFFERLAB`): cron mails
/// whatever it prints, so a success must print nothing and a failure exactly one line.
@Suite struct NightlyWrapperTests {
    static let wrapper = repositoryRoot.appendingPathComponent("jobs/offerlab-nightly.sh").path

    func runWrapper(_ night: NightFixture, log: String) throws -> ProcessResult {
        try OfferLabProcess(executable: "/bin/bash", [Self.wrapper, night.jobPath, log], environment: ["OFFERLAB": try offerLabBinary()])
            .wait()
    }

    /// Issue 47: a crontab line without its job exits 64 (EX_USAGE) with one line for cron's mail.
    @Test func withoutAJobItExits64WithOneLine() throws {
        let result = try OfferLabProcess(executable: "/bin/bash", [Self.wrapper], environment: ["OFFERLAB": try offerLabBinary()]).wait()
        #expect(result.status == 64)
        #expect(result.standardError == "usage: offerlab-nightly.sh JOB.yaml [LOG_FILE] (no job file given)\n")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func aSuccessPrintsNothingAndAppendsToTheLog() throws {
        let night = try NightFixture()
        let log = night.folder.file("nightly.log")
        for run in 1...2 {
            let result = try runWrapper(night, log: log)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardError.isEmpty)
            let text = try String(contentsOfFile: log, encoding: .utf8)
            #expect(text.components(separatedBy: "=== exit 0\n").count - 1 == run, "\(text)")
            #expect(text.contains("wrote \(night.outputPath)/2026-03-16"))
        }
    }

    /// A night with an alert (a first night that ships) prints the `alert:` line for cron's mail
    /// and exits with the job's alert_exit_code, without an error line.
    @Test func anAlertIsPassedOnWithTheJobsExitCode() throws {
        let night = try DecisionRunTests.night(
            control: DecisionRunTests.members(200, paying: 20), variant: DecisionRunTests.members(200, paying: 150),
            job: ["alert_exit_code": "3"])
        let result = try runWrapper(night, log: night.folder.file("nightly.log"))
        #expect(result.status == 3, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("alert: test variant: ship: Ship variant"), "\(result.standardOutput)")
        #expect(result.standardOutput.split(separator: "\n").count == 1)
        #expect(result.standardError.isEmpty, "\(result.standardError)")
    }

    @Test func aFailurePrintsOneLineAndPassesTheCodeOn() throws {
        let night = try NightFixture(job: ["colour": "blue"])
        let log = night.folder.file("nightly.log")
        let result = try runWrapper(night, log: log)
        #expect(result.status == 78)
        #expect(result.standardOutput.isEmpty)
        // offerlab's own error and exit code, on one line.
        #expect(
            result.standardError.hasPrefix(
                "offerlab nightly job \(night.jobPath) failed with exit code 78: job file \(night.jobPath): unknown key 'colour' (known: tables, "
            ))
        #expect(result.standardError.hasSuffix(") (log: \(log))\n"))
        #expect(result.standardError.split(separator: "\n").count == 1)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("offerlab: error: job file \(night.jobPath): unknown key 'colour'"))
        #expect(text.hasSuffix("=== exit 78\n"))
    }

    /// Without a log file the log goes next to the job's outputs (its `output:` folder), never
    /// beside the job file, which may be in a repository.
    @Test func theDefaultLogIsInTheOutputFolder() throws {
        let night = try NightFixture(job: ["output": "\"results/nightly/\"   # a comment"])
        let result = try OfferLabProcess(
            executable: "/bin/bash", [Self.wrapper, night.jobPath], environment: ["OFFERLAB": try offerLabBinary()]
        )
        .wait()
        #expect(result.status == 0, "\(result.standardError)")
        let text = try String(contentsOfFile: night.folder.file("results/nightly/offerlab-nightly.log"), encoding: .utf8)
        #expect(text.contains("=== exit 0\n"))
        #expect(!FileManager.default.fileExists(atPath: night.folder.file("offerlab-nightly.log")))

        // A failure before the folder exists still has its log there.
        let failing = try NightFixture(job: ["output": "\(night.folder.file("elsewhere"))/", "colour": "blue"])
        let failed = try OfferLabProcess(
            executable: "/bin/bash", [Self.wrapper, failing.jobPath], environment: ["OFFERLAB": try offerLabBinary()]
        )
        .wait()
        #expect(failed.status == 78)
        #expect(
            failed.standardError.hasSuffix(" (log: \(night.folder.file("elsewhere"))/offerlab-nightly.log)\n"), "\(failed.standardError)")
    }
}
