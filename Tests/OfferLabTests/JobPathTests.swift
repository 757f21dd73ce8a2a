import Foundation
import OfferLabTestSupport
import Testing

/// Paths in a job file are relative to the job file, wherever the run starts; a missing one is
/// named in full.
@Suite struct JobPathTests {
    @Test func relativePathsFollowTheJobFileNotTheWorkingDirectory() throws {
        let night = try NightFixture()
        let elsewhere = try TemporaryFolder()
        let relativeJob = "../" + URL(fileURLWithPath: night.folder.path).lastPathComponent + "/job.yaml"
        let result = try runOfferLab(["run", relativeJob, "--quiet"], in: elsewhere.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(FileManager.default.fileExists(atPath: night.folder.file("out/2026-03-16/summary.csv")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    @Test(arguments: [
        ("tables", "missing.sqlite", "tables: {folder}/missing.sqlite does not exist"),
        ("logs", "[\"missing/*.gz\"]", "logs: the glob {folder}/missing/*.gz matches no file"),
        ("rates_file", "missing.csv", "rates_file: {folder}/missing.csv: cannot open"),
    ])
    func aMissingPathIsNamedInFull(key: String, value: String, expected: String) throws {
        let night = try NightFixture()
        if key == "rates_file" {
            var keys = night.jobKeys.filter { $0.key != "rates" }
            keys.append((key, value))
            try night.folder.write("job.yaml", keys.map { "\($0.key): \($0.value)" }.joined(separator: "\n"))
        } else {
            try night.writeJob([key: value])
        }
        let result = try night.run()
        #expect(result.status == 78)
        #expect(
            result.standardError.contains(expected.replacingOccurrences(of: "{folder}", with: night.folder.path)), "\(result.standardError)"
        )
    }

    /// Glob characters in the job file's folder are that folder's name, not a pattern.
    @Test func aJobFolderNameWithGlobCharactersIsTakenLiterally() throws {
        let night = try NightFixture()
        let folder = night.folder.file("night [1] *")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["tables.sqlite", "job.yaml", "logs"] {
            try FileManager.default.moveItem(atPath: night.folder.file(name), toPath: folder + "/" + name)
        }
        // A sibling the pattern `night [1] *` would match.
        try FileManager.default.createDirectory(atPath: night.folder.file("night 1 x/logs"), withIntermediateDirectories: true)
        try night.folder.write("night 1 x/logs/decoy.jsonl", "not json\n")
        let result = try runOfferLab(["run", folder + "/job.yaml", "--quiet"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try String(contentsOfFile: folder + "/out/2026-03-16/quality.csv", encoding: .utf8).contains(",lines_read,5\r\n"))
    }
}
