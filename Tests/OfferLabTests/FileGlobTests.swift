import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob

/// `**` in a job's log globs: every folder depth, never a silently shorter list.
@Suite struct FileGlobTests {
    /// Logs at three depths, with a hidden folder, a symbolic link back up (a loop) and a file
    /// that only `*.csv.gz` names.
    private func logsFolder() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for name in [
            "logs/top.jsonl.gz", "logs/2026/03/01/a.jsonl.gz", "logs/2026/03/02/b.jsonl.gz", "logs/late/c.jsonl.gz",
            "logs/late/d.csv.gz", "logs/.hidden/e.jsonl.gz",
        ] {
            try folder.write(name, "")
        }
        try FileManager.default.createSymbolicLink(atPath: folder.file("logs/2026/loop"), withDestinationPath: folder.file("logs"))
        return folder
    }

    /// The distinct matches, relative to `folder`, sorted.
    private func relative(_ paths: [String], to folder: TemporaryFolder) -> [String] {
        Set(paths.map { String($0.dropFirst(folder.path.count + 1)) }).sorted()
    }

    @Test func globstarMatchesEveryDepthIncludingNone() throws {
        let folder = try logsFolder()
        let matches = try FileGlob.matches(FileGlob.escaped(folder.path) + "/logs/**/*.jsonl.gz")
        #expect(
            relative(matches, to: folder) == [
                "logs/2026/03/01/a.jsonl.gz", "logs/2026/03/02/b.jsonl.gz", "logs/late/c.jsonl.gz", "logs/top.jsonl.gz",
            ])
    }

    /// What `glob(3)` alone gives: `**` as `*`, one folder deep.
    @Test func aSingleStarStaysOneFolderDeep() throws {
        let folder = try logsFolder()
        let matches = try FileGlob.matches(FileGlob.escaped(folder.path) + "/logs/*/*.jsonl.gz")
        #expect(relative(matches, to: folder) == ["logs/late/c.jsonl.gz"])
        let inSegment = try FileGlob.matches(FileGlob.escaped(folder.path) + "/logs/la**/*.gz")
        #expect(relative(inSegment, to: folder) == ["logs/late/c.jsonl.gz", "logs/late/d.csv.gz"])
    }

    @Test func aTrailingGlobstarIsEveryFileBelow() throws {
        let folder = try logsFolder()
        let matches = try FileGlob.matches(FileGlob.escaped(folder.path) + "/logs/2026/**")
        #expect(relative(matches, to: folder) == ["logs/2026/03/01/a.jsonl.gz", "logs/2026/03/02/b.jsonl.gz"])
    }

    @Test func globstarAfterAPatternAndBeforeAnother() throws {
        let folder = try logsFolder()
        let matches = try FileGlob.matches(FileGlob.escaped(folder.path) + "/l*/**/0?/**/*.gz")
        #expect(relative(matches, to: folder) == ["logs/2026/03/01/a.jsonl.gz", "logs/2026/03/02/b.jsonl.gz"])
    }

    /// A folder name with glob characters, found by the walk, is taken literally below it.
    @Test func foldersFoundByTheWalkAreTakenLiterally() throws {
        let folder = try TemporaryFolder()
        for name in ["logs/[x]/a.gz", "logs/x/b.gz"] {
            try folder.write(name, "")
        }
        let matches = try FileGlob.matches(FileGlob.escaped(folder.path) + "/logs/**/*.gz")
        #expect(relative(matches, to: folder) == ["logs/[x]/a.gz", "logs/x/b.gz"])
    }

    /// Through the job file: the glob's files are the run's input files.
    @Test func aJobWithAGlobstarReadsEveryDepth() throws {
        let night = try NightFixture()
        let nested = night.folder.file("logs/deeper/still")
        try FileManager.default.createDirectory(atPath: nested, withIntermediateDirectories: true)
        let logs = try FileManager.default.contentsOfDirectory(atPath: night.folder.file("logs")).filter { !$0.hasPrefix("deeper") }
        let moved = try #require(logs.first)
        try FileManager.default.moveItem(atPath: night.folder.file("logs/" + moved), toPath: nested + "/" + moved)
        try night.writeJob(["logs": "[\"logs/**/*\"]"])
        let job = try JobLoader.load(path: night.folder.file("job.yaml"))
        #expect(job.inputs.logFiles.count == logs.count)
        #expect(job.inputs.logFiles.contains(nested + "/" + moved))
    }
}
