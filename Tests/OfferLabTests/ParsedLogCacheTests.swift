import COfferLabSystem
import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabJob

/// XXH64 against the values of xxHash's own library (`Fixtures/xxh64/make_vectors.py`), whole
/// and fed in pieces of every shape.
@Suite struct XXH64Tests {
    @Test func hashesMatchTheReference() throws {
        let vectors = parseCSV(
            try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/OfferLabTests/Fixtures/xxh64/vectors.csv"), encoding: .utf8)
        )
        #expect(vectors.count == 43)
        for row in vectors.dropFirst() {
            let length = Int(row[0])!
            let seed = UInt64(row[1])!
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 131 + 7) }
            for pieceSize in [max(length, 1), 1, 7, 32, 33] {
                var state = offerlab_xxh64_state()
                offerlab_xxh64_reset(&state, seed)
                bytes.withUnsafeBytes { all in
                    for start in stride(from: 0, to: length, by: pieceSize) {
                        let piece = UnsafeRawBufferPointer(rebasing: all[start..<min(start + pieceSize, length)])
                        offerlab_xxh64_update(&state, piece.baseAddress, piece.count)
                    }
                }
                let hash = String(offerlab_xxh64_digest(&state), radix: 16).leftPadded(to: 16)
                #expect(hash == row[2], "length \(length), seed \(seed), pieces of \(pieceSize)")
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// The parsed-log cache (`cache:` in the job file): a run that reads files back from it writes
/// the outputs of a run that parses them, whatever changed in between.
@Suite struct ParsedLogCacheTests {
    /// The CSV outputs of a night: what a cached run must reproduce byte for byte.
    static let outputs = [
        "summary.csv", "products.csv", "quality.csv", "comparisons.csv", "srm.csv", "daily.csv", "rejects.csv", "skipped_files.csv",
    ]

    /// The sample job with a cache, run three times: the first run parses every file and keeps
    /// those with no event at or after `as_of`, the second reads them back; both write the bytes of a run without the cache
    /// (rejects, with their files and line numbers, included). `--no-cache` leaves the cache alone.
    @Test func aSecondRunReadsEveryFileBackAndWritesTheSameOutputs() throws {
        let folder = try TemporaryFolder()
        let sample = repositoryRoot.appendingPathComponent("jobs/sample.yaml").path
        let job = try folder.write(
            "job.yaml",
            // The logs alone: the past's files go through the cache as theirs do (HistoryRunTests).
            try String(contentsOfFile: sample, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("history_logs:") }.joined(separator: "\n")
                .replacingOccurrences(of: "../sample-data/", with: repositoryRoot.appendingPathComponent("sample-data").path + "/")
                + "cache: cache/\n")
        func run(_ name: String, _ arguments: [String] = []) throws -> ProcessResult {
            let result = try runOfferLab(
                ["run", job, "--output", folder.file(name), "--database", folder.file("\(name).sqlite")] + arguments)
            #expect(result.status == 0, "\(result.standardError)")
            // The sample's warnings, and none about the cache.
            #expect(result.standardError == EndToEndTests.standardError(EndToEndTests.dataSets[1].warnings, output: folder.file(name)))
            return result
        }
        let plain = try run("plain", ["--no-cache"])
        #expect(!FileManager.default.fileExists(atPath: folder.file("cache")))
        #expect(!plain.standardOutput.contains("cache"))
        let filling = try run("filling")
        // Every log file but those of the 15th, which have events at or after as_of; and every file
        // of the Play share, whose reading does not depend on as_of.
        let files = try FileGlob.matches(repositoryRoot.appendingPathComponent("sample-data/logs/*/*/*/*").path)
        let playFiles = try FileGlob.matches(repositoryRoot.appendingPathComponent("sample-data/googleplay/*/*/*/*/*").path)
        let keptLogs = files.count(where: { !$0.contains("/2026/03/15/") })
        #expect(keptLogs > 50 && keptLogs < files.count && playFiles.count > 100)
        let kept = keptLogs + playFiles.count
        #expect(filling.standardOutput.contains("cache \(folder.file("cache")): 0 log file(s) reused, \(kept) parsed and kept\n"))
        // Beside them, the Play night kept resolved (its feeds are the sample's only store sources):
        // an entry per group of files, its index and the segments of records the index names.
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder.file("cache"))
        let keptNight = try entries.filter { name in
            let bytes = try fileBytes(folder.file("cache/\(name)"))
            return [ParsedLogCache.keptFeedsGroupMagic, ParsedLogCache.keptFeedsIndexMagic, ParsedLogCache.keptFeedsSegmentMagic].contains {
                bytes.starts(with: $0)
            }
        }
        #expect(entries.count - keptNight.count == kept && keptNight.count >= 4)
        let reading = try run("reading")
        #expect(reading.standardOutput.contains(": \(kept) log file(s) reused, 0 parsed and kept\n"))
        for name in ["filling", "reading"] {
            for file in Self.outputs {
                let expected = try Data(contentsOf: URL(fileURLWithPath: folder.file("plain/2026-03-15/\(file)")))
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: folder.file("\(name)/2026-03-15/\(file)"))) == expected, "\(name): \(file)")
            }
        }
        #expect(parseCSV(try String(contentsOfFile: folder.file("plain/2026-03-15/rejects.csv"), encoding: .utf8)).count > 5)
    }

    /// A file changed since the last run is parsed again (by its bytes: its name, size and time
    /// are the same); the others are read back.
    @Test func aChangedFileIsParsedAgain() throws {
        let night = try NightFixture(job: ["cache": "cache/"])
        try night.writeLog("b.jsonl", [event("paywall_view", user: "u2", ts: "2026-03-05T10:00:00Z")])
        #expect(try night.run().standardOutput.contains(": 0 log file(s) reused, 2 parsed and kept\n"))
        let time = try FileManager.default.attributesOfItem(atPath: night.folder.file("logs/b.jsonl"))[.modificationDate]
        // The same length, the same time: the event's user changes from u2 to u4.
        try night.writeLog("b.jsonl", [event("paywall_view", user: "u4", ts: "2026-03-05T10:00:00Z")])
        try FileManager.default.setAttributes([.modificationDate: time as Any], ofItemAtPath: night.folder.file("logs/b.jsonl"))
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains(": 1 log file(s) reused, 1 parsed and kept\n"))
        try expectOutputsOfAPlainRun(night)
    }

    /// An entry damaged anywhere (a byte changed, cut short, emptied) is not used: its file is
    /// parsed again and the entry rewritten.
    @Test(arguments: ["flip", "truncate", "empty"])
    func aDamagedEntryIsParsedAgain(damage: String) throws {
        let night = try NightFixture(job: ["cache": "cache/"])
        #expect(try night.run().status == 0)
        let entry = night.folder.file("cache/" + (try FileManager.default.contentsOfDirectory(atPath: night.folder.file("cache"))[0]))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: entry)))
        switch damage {
        case "flip": bytes[bytes.count * 2 / 3] ^= 0x04
        case "truncate": bytes.removeLast(9)
        default: bytes = []
        }
        try Data(bytes).write(to: URL(fileURLWithPath: entry))
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains(": 0 log file(s) reused, 1 parsed and kept, 1 damaged entr(ies) parsed again\n"))
        try expectOutputsOfAPlainRun(night)
        #expect(try night.run().standardOutput.contains(": 1 log file(s) reused, 0 parsed and kept\n"))
    }

    /// A file with events at or after `as_of` is not kept (tomorrow's run keeps them); a rerun of
    /// an earlier night parses the files with events at or after its `as_of` and reads the others
    /// back, and the files' entries stay for the nights after.
    @Test func asOfDecidesWhichEntriesAreKeptAndUsed() throws {
        let night = try NightFixture(job: ["cache": "cache/"])
        try night.writeLog("b.jsonl", [event("paywall_view", user: "u2", ts: "2026-03-10T10:00:00Z")])
        try night.writeLog("c.jsonl", [event("paywall_view", user: "u3", ts: "2026-03-20T10:00:00Z")])
        #expect(try night.run().standardOutput.contains(": 0 log file(s) reused, 2 parsed and kept\n"))
        let earlier = try night.run(["--as-of", "2026-03-08"])
        #expect(earlier.standardOutput.contains(": 1 log file(s) reused, 0 parsed and kept\n"))
        try expectOutputsOfAPlainRun(night, ["--as-of", "2026-03-08"], night: "2026-03-08")
        #expect(try night.run(["--as-of", "2026-03-21"]).standardOutput.contains(": 2 log file(s) reused, 1 parsed and kept\n"))
        try expectOutputsOfAPlainRun(night, ["--as-of", "2026-03-21"], night: "2026-03-21")
    }

    /// How many rejected lines are kept is part of an entry's key.
    @Test func rejectsPerReasonIsPartOfTheKey() throws {
        let night = try NightFixture(
            events: NightFixture.standardEvents + ["{", "{", "not json"] + Array(repeating: NightFixture.standardEvents[0], count: 300),
            job: ["cache": "cache/", "rejects_per_reason": "1"])
        #expect(try night.run().status == 0)
        try night.writeJob(["rejects_per_reason": "2"])
        #expect(try night.run().standardOutput.contains(": 0 log file(s) reused, 1 parsed and kept\n"))
        #expect(try night.csv("rejects").count == 3)
        try expectOutputsOfAPlainRun(night)
    }

    /// After a successful run the entries of files it did not read are gone; a failed run
    /// removes none.
    @Test func entriesNoFileUsesAreRemovedAfterASuccessfulRun() throws {
        let night = try NightFixture(job: ["cache": "cache/"])
        try night.writeLog("b.jsonl", [event("paywall_view", user: "u2", ts: "2026-03-05T10:00:00Z")])
        #expect(try night.run().status == 0)
        let entries = try Set(FileManager.default.contentsOfDirectory(atPath: night.folder.file("cache")))
        #expect(entries.count == 2)
        let leftover = try night.folder.write("cache/\(entries.first!).tmp-crashed", "a run killed while writing")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: leftover)
        let recent = try night.folder.write("cache/\(entries.first!).tmp-writing", "another run writing now")

        try FileManager.default.removeItem(atPath: night.folder.file("logs/b.jsonl"))
        try night.writeLog("c.jsonl", Array(repeating: "not json", count: 10))
        #expect(try night.run().status == 65)
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: night.folder.file("cache"))).isSuperset(of: entries))

        try FileManager.default.removeItem(atPath: night.folder.file("logs/c.jsonl"))
        #expect(try night.run().standardOutput.contains(": 1 log file(s) reused, 0 parsed and kept\n"))
        let left = try Set(FileManager.default.contentsOfDirectory(atPath: night.folder.file("cache")))
        #expect(left.count == 2 && left.isSubset(of: entries.union([(recent as NSString).lastPathComponent])))
    }

    /// An entry that cannot be written (here, over a file size limit that the outputs fit in)
    /// costs the next run time, not this run: it succeeds, says so in one line, and leaves no
    /// half entry.
    @Test func anEntryThatCannotBeWrittenIsAWarning() throws {
        let views = (0..<100_000).map { event("paywall_view", user: "u\($0 % 4 + 1)", ts: "2026-03-05T10:00:00Z") }
        let night = try NightFixture(events: views, job: ["cache": "cache/"])
        #expect(try night.run().status == 0)
        let entry = try #require(try FileManager.default.contentsOfDirectory(atPath: night.folder.file("cache")).first)
        let entrySize = try #require(try FileManager.default.attributesOfItem(atPath: night.folder.file("cache/\(entry)"))[.size] as? Int)
        #expect(entrySize > 3 << 20)
        try FileManager.default.removeItem(atPath: night.folder.file("cache"))

        let result = try night.run(fileSizeLimitKiB: 1024)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains(": 0 log file(s) reused, 0 parsed and kept\n"))
        #expect(
            result.standardError
                == "warning: 1 cache entr(ies) not written, the next run parses those files again: \(night.folder.file("cache/\(entry)")): File too large\n"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: night.folder.file("cache")).isEmpty)
        try expectOutputsOfAPlainRun(night)
    }

    /// A cache folder the log globs reach is a job error on the first night, before it holds a
    /// file they match (the next night would read the entries as malformed logs).
    @Test func aCacheFolderInsideTheLogGlobsIsAJobError() throws {
        for (logs, glob) in [("[\"logs/**/*\"]", "logs/**/*"), ("[\"logs/*.gz\", \"logs/**\"]", "logs/**")] {
            let night = try NightFixture(job: ["cache": "logs/cache", "logs": logs])
            let result = try night.run()
            #expect(result.status == 78)
            #expect(
                result.standardError
                    == "offerlab: error: job file \(night.jobPath): cache: the log glob \(night.folder.file(glob)) would match the entries the cache keeps in \(night.folder.file("logs/cache")) (\(night.folder.file("logs/cache/0000000000000000.parsed"))); give the cache a folder the log globs do not reach\n"
            )
            #expect(!FileManager.default.fileExists(atPath: night.folder.file("logs/cache")))
        }
        // Globs that cannot reach the entries: a cache beside the logs, or among them with another suffix.
        for (logs, cache) in [("[\"logs/*\"]", "cache"), ("[\"logs/**/*.gz\"]", "logs/cache"), ("[\"logs/*\"]", "logs/.cache")] {
            let night = try NightFixture(job: ["cache": cache, "logs": logs])
            #expect(try night.run().status == 0)
            #expect(try night.run(["--as-of", "2026-03-16T00:00:01Z"]).status == 0)
        }
    }

    /// `FileGlob.wouldMatch` reads a glob as `matches` expands it, for a file that need not exist.
    @Test(arguments: [
        ("/a/**/*", "/a/cache/x.parsed", true), ("/a/**", "/a/b/c/d", true), ("/a/*", "/a/cache/x.parsed", false),
        ("/a/*/*.gz", "/a/cache/x.parsed", false), ("/a/*/*", "/a/cache/x.parsed", true), ("/a/**/*", "/a/.cache/x.parsed", false),
        ("/a/.*/*", "/a/.cache/x.parsed", true), ("/a/[bc]ache/?.parsed", "/a/cache/x.parsed", true),
        ("/a/**/x.parsed", "/a/x.parsed", true),
    ])
    func aGlobIsMatchedAsItIsExpanded(pattern: String, path: String, matches: Bool) {
        #expect(FileGlob.wouldMatch(pattern, path) == matches)
    }

    @Test func aCacheFolderThatCannotBeMadeIsAnOutputError() throws {
        let night = try NightFixture(job: ["cache": "job.yaml/cache"])
        let result = try night.run()
        #expect(result.status == 73)
        #expect(result.standardError == "offerlab: error: cache: cannot create \(night.folder.file("job.yaml/cache")): Not a directory\n")
        #expect(result.standardError.split(separator: "\n").count == 1)
    }

    /// A file read in pieces is kept as its pieces' batches, users unresolved, and read back as
    /// the same events, counts and rejects (the warnings job's logs: its showcase/ has malformed
    /// lines that name money).
    @Test func aFileReadInPiecesIsReadBackWhole() async throws {
        // An as_of after every event: a file with later events is not kept.
        var job = try JobLoader.load(
            path: repositoryRoot.appendingPathComponent("jobs/sample-with-warnings.yaml").path,
            overriding: JobOverrides(asOf: Night(parsing: "2026-04-01"))
        )
        let folder = try TemporaryFolder()
        job.inputs.logFiles = [try LogIngestTests.sampleJSONLogsInOneFile(of: job, at: folder.file("all.jsonl.gz"))]
        let population = try LogIngestTests.population(of: job)
        let cache = try ParsedLogCache(folder: folder.file("cache"), rejectsPerReason: job.outputs.rejectsPerReason)
        let parsed = try await LogIngest.read(
            settings: IngestSettings(job), population: Task { population }, progress: nil, width: 2, pieceSize: 64 << 10, cache: cache)
        let readBack = try await LogIngest.read(
            settings: IngestSettings(job), population: Task { population }, progress: nil, width: 2, pieceSize: 64 << 10, cache: cache)
        #expect(cache.usageSoFar.filesStored == 1 && cache.usageSoFar.filesReused == 1)
        #expect(parsed.segments.count > 5 && readBack.segments.count == parsed.segments.count)
        #expect(LogIngestTests.events(of: readBack) == LogIngestTests.events(of: parsed))
        #expect(readBack.counters.rejects.count > 3 && readBack.counters.rejects == parsed.counters.rejects)
        #expect(readBack.counters.malformed == parsed.counters.malformed)
        #expect(!parsed.counters.rejectedMoney.isEmpty && readBack.counters.rejectedMoney == parsed.counters.rejectedMoney)
        #expect(readBack.counters.nonBlankLines == parsed.counters.nonBlankLines)
        #expect(readBack.counters.filesRead == 1)
        #expect(readBack.counters.compressedBytes == parsed.counters.compressedBytes)
        #expect(readBack.counters.uncompressedBytes == parsed.counters.uncompressedBytes)
    }

    /// The night's CSV outputs equal those of a run of the same job without the cache.
    private func expectOutputsOfAPlainRun(
        _ night: NightFixture, _ arguments: [String] = [], night date: String = "2026-03-16",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let plain = night.folder.file("plain-\(UUID().uuidString)")
        let result = try night.run(arguments + ["--no-cache", "--output", plain, "--database", plain + ".sqlite"])
        #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
        for file in Self.outputs {
            let expected = try Data(contentsOf: URL(fileURLWithPath: "\(plain)/\(date)/\(file)"))
            let actual = try Data(contentsOf: URL(fileURLWithPath: night.folder.file("out/\(date)/\(file)")))
            #expect(actual == expected, "\(file)", sourceLocation: sourceLocation)
        }
    }
}
