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

    @Test func aFailurePrintsOneLineAndPassesTheCodeOn() throws {
        let night = try NightFixture(job: ["colour": "blue"])
        let log = night.folder.file("nightly.log")
        let result = try runWrapper(night, log: log)
        #expect(result.status == 78)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == "offerlab nightly job \(night.jobPath) failed with exit code 78; see \(log)\n")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("offerlab: error: job file \(night.jobPath): unknown key 'colour'"))
        #expect(text.hasSuffix("=== exit 78\n"))
    }
}
