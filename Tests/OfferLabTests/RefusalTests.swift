import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabSupport
import OfferLabTestSupport
import Testing

/// Issue 47: what will go wrong is refused up front, in one line naming the file and what was
/// found, instead of a number that looks right and is not.
@Suite struct RefusalTests {
    /// The job's error for `changes` to the standard night's job file.
    private func jobError(_ changes: [String: String]) throws -> OfferLabError {
        let night = try NightFixture(job: changes)
        return try #require(throws: OfferLabError.self) { try JobLoader.load(path: night.jobPath) }
    }

    @Test func anUnknownKeySuggestsTheNearestKnownOne() throws {
        let error = try jobError(["as_off": "2026-03-16T00:00:00Z"])
        #expect(error.code == .badJob)
        #expect(error.message.contains("unknown key 'as_off'; did you mean as_of? (known: "), "\(error.message)")
        #expect(JobKey.nearest(to: "Output") == "output" && JobKey.nearest(to: "max_volume_drops") == "max_volume_drop")
        #expect(JobKey.nearest(to: "colour") == nil)
    }

    @Test func aTabInTheIndentationIsNamed() throws {
        let night = try NightFixture()
        let text = try String(contentsOfFile: night.jobPath, encoding: .utf8)
        try (text + "slices:\n\t- country\n").write(toFile: night.jobPath, atomically: true, encoding: .utf8)
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: night.jobPath) }
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).count + 1
        #expect(error.message == "job file \(night.jobPath): line \(line): a tab in the indentation; YAML indents with spaces")
    }

    @Test func aTildeIsTheHomeFolder() throws {
        let night = try NightFixture(job: ["cache": "~/offerlab-cache-of-a-test"])
        let job = try JobLoader.load(path: night.jobPath)
        #expect(job.outputs.cachePath == NSString(string: "~/offerlab-cache-of-a-test").expandingTildeInPath)
        #expect(job.outputs.cachePath?.hasPrefix("/") == true && job.outputs.cachePath?.contains("~") == false)
    }

    @Test func outputsTheLogGlobsReachAreABadJob() throws {
        // A glob that reaches everywhere: on the next night it would read this night's report.
        let output = try jobError(["logs": #"["**/*.*"]"#])
        #expect(output.code == .badJob && output.location.jobKey == "output")
        #expect(output.message.contains("the log glob"), "\(output.message)")
        #expect(output.message.contains("would match what the run writes there"), "\(output.message)")
        let database = try jobError(["database": "logs/results.sqlite"])
        #expect(database.code == .badJob && database.location.jobKey == "database", "\(database.message)")
    }

    @Test func aDuplicatedColumnIsAnError() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("groups.csv", "id,group_name,weight,group_name\n1,a,1,b\n")
        let error = try #require(throws: IngestError.self) { try TableFileReader(path: path, format: .csv) }
        #expect(error.message == "column 'group_name' appears twice in the header (columns 2 and 4)")

        let night = try NightFixture()
        try night.writeLog("b.csv", ["ts,user_id,event,user_id", "2026-03-02T10:00:00Z,u1,paywall_view,u2"])
        let run = try night.run()
        #expect(run.status == 65, "\(run.standardError)")
        #expect(run.standardError.contains("b.csv") && run.standardError.contains("column 'user_id' appears twice"), "\(run.standardError)")
    }

    @Test func aCSVLogHeaderWithoutALogFieldNamesWhatItFound() throws {
        let night = try NightFixture()
        try night.writeLog("b.csv", ["time,who,what", "2026-03-02T10:00:00Z,u1,paywall_view"])
        let run = try night.run()
        #expect(run.status == 65, "\(run.standardError)")
        #expect(
            run.standardError.contains("the CSV header names no log field (ts, user_id, event, …); it has 'time', 'who', 'what'"),
            "\(run.standardError)")
    }
}
