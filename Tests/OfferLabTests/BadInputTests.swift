import Foundation
import OfferLabIngest
import Testing

/// Broken logs through the real binary: malformed lines are counted and kept, too many fail
/// the run, corrupt gzip files fail it or are skipped whole, and a huge line costs no memory.
@Suite struct BadInputTests {
    /// Two lines of every malformed reason, in file order, among valid ones.
    static let malformedLines = [
        "not json", "[1,2]",  // malformed_invalid_json
        #"{"user_id":"u1","event":"cancel"}"#, #"{"ts":"2026-03-05T00:00:00Z","event":"cancel"}"#,  // missing_field
        #"{"ts":"2026-03-05T00:00:00Z","user_id":"","event":"cancel"}"#,  // invalid_field
        #"{"ts":"2026-03-05T00:00:00Z","user_id":true,"event":"cancel"}"#,
        #"{"ts":"2026-02-30T00:00:00Z","user_id":"u1","event":"cancel"}"#,  // bad_timestamp
        #"{"ts":1.5,"user_id":"u1","event":"cancel"}"#,
        event("purchase", user: "u1", ts: "2026-03-05T00:00:00Z", product: "weekly", transaction: "n1", price: "-1"),  // negative_price
        event("renewal", user: "u1", ts: "2026-03-05T00:00:00Z", product: "weekly", transaction: "n2", price: "-0.01"),
    ]

    @Test func malformedLinesAreCountedByReasonAndTheFirstOfEachKept() throws {
        // The third line of a reason is counted but not kept (rejects_per_reason: 2).
        let tooLong = "{\"ts\":\"" + String(repeating: "x", count: LineSplitter.defaultMaxLineLength) + "\"}"
        let extra = [#"{"ts":"2026-03-05T00:00:00Z","user_id":"u1"}"#, tooLong, tooLong, tooLong]
        let unknownCurrency = event(
            "purchase", user: "u2", ts: "2026-03-05T00:00:00Z", product: "weekly", transaction: "x1", price: "5", currency: "XYZ")
        let night = try NightFixture(
            events: NightFixture.standardEvents + Self.malformedLines + extra + [unknownCurrency],
            job: ["rejects_per_reason": "2", "max_bad_line_ratio": "1"])
        let csvLog = try night.writeLog(
            "b.csv", ["ts,user_id,event", "2026-03-05T00:00:00Z,u2,paywall_view", "2026-03-05T00:00:00Z,u2", "a,b,c,d"])
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")

        let counts = [
            "malformed_invalid_json": 2, "malformed_missing_field": 3, "malformed_invalid_field": 2, "malformed_bad_timestamp": 2,
            "malformed_negative_price": 2, "malformed_invalid_csv": 2, "malformed_line_too_long": 3, "malformed_lines": 16,
            "lines_read": 5 + 10 + 4 + 1 + 3,
        ]
        for (counter, count) in counts { #expect(try night.quality(counter) == count, "\(counter)") }
        // An unknown currency is not malformed: the event counts, its money does not.
        #expect(try night.quality("unknown_currency_events", offering: "test") == 1)

        let jsonLog = night.folder.file("logs/a.jsonl.gz")
        let rejects = try night.csv("rejects")
        #expect(rejects.first == ["file", "line", "reason", "text"])
        let kept = rejects.dropFirst().map { [$0[0], $0[1], $0[2]] }
        #expect(
            kept == [
                [jsonLog, "6", "malformed_invalid_json"], [jsonLog, "7", "malformed_invalid_json"],
                [jsonLog, "8", "malformed_missing_field"], [jsonLog, "9", "malformed_missing_field"],
                [jsonLog, "10", "malformed_invalid_field"], [jsonLog, "11", "malformed_invalid_field"],
                [jsonLog, "12", "malformed_bad_timestamp"], [jsonLog, "13", "malformed_bad_timestamp"],
                [jsonLog, "14", "malformed_negative_price"], [jsonLog, "15", "malformed_negative_price"],
                [jsonLog, "17", "malformed_line_too_long"], [jsonLog, "18", "malformed_line_too_long"],
                [csvLog, "3", "malformed_invalid_csv"], [csvLog, "4", "malformed_invalid_csv"],
            ])
        #expect(rejects[1][3] == "not json")
        #expect(rejects[3][3] == Self.malformedLines[2])
        // A too-long line is kept as its first 500 bytes.
        #expect(rejects[11][3] == String(tooLong.prefix(500)))
    }

    @Test func overTheRatioTheRunFailsAndChangesNothing() throws {
        // 5 valid lines and 2 malformed: 2/7 = 0.286.
        let night = try NightFixture(events: NightFixture.standardEvents, job: ["max_bad_line_ratio": "0.25"])
        #expect(try night.run().status == 0)
        let before = try night.snapshot()

        try night.writeLog("a.jsonl.gz", NightFixture.standardEvents + ["oops", "{"])
        try night.writeJob(["as_of": "2026-03-17"])
        let failed = try night.run()
        #expect(failed.status == 65)
        #expect(failed.standardError.hasPrefix("offerlab: error: 2 of 7 log lines are malformed"))
        #expect(failed.standardError.contains("over max_bad_line_ratio 0.25"))
        #expect(failed.standardError.split(separator: "\n").count == 1)
        #expect(try night.snapshot() == before)
        #expect(try night.outputEntries().filter { !$0.hasPrefix("results.sqlite") } == ["2026-03-16", "2026-03-17.failed-rejects.csv"])
    }

    /// A file of random bytes among healthy logs, after one with a single malformed line: the
    /// error names the bad file first, with its count, and the failed run's rejects are kept
    /// beside the night's folder, where the error says; the last good night is untouched. A
    /// later success of the night removes them.
    @Test func theErrorNamesTheFilesWithTheMostMalformedLinesAndKeepsTheirRejects() throws {
        let night = try NightFixture(events: NightFixture.standardEvents + ["oops"], job: ["rejects_per_reason": "3"])
        try night.writeJob(["max_bad_line_ratio": "1"])
        #expect(try night.run().status == 0)
        let before = try night.snapshot()

        // 40 lines of 99 pseudo-random bytes (a fixed linear congruential sequence).
        var state: UInt32 = 12_345
        let noise = (0..<4000).map { index -> UInt8 in
            state = state &* 1_103_515_245 &+ 12_345
            return index % 100 == 99 ? UInt8(ascii: "\n") : UInt8(0x20 + (state >> 16) % 0xE0)
        }
        let noisePath = night.folder.file("logs/b.bin")
        try Data(noise).write(to: URL(fileURLWithPath: noisePath))
        try night.writeLog("c.jsonl.gz", [event("paywall_view", user: "u2", ts: "2026-03-05T10:00:00Z")])
        try night.writeJob(["max_bad_line_ratio": "0.1", "as_of": "2026-03-17"])
        let failed = try night.run()
        #expect(failed.status == 65)
        let rejectsPath = night.folder.file("out/2026-03-17.failed-rejects.csv")
        let aLog = night.folder.file("logs/a.jsonl.gz")
        #expect(
            failed.standardError.hasSuffix(
                "over max_bad_line_ratio 0.1; most in \(noisePath) (40), \(aLog) (1); their first lines of each reason are in \(rejectsPath)\n"
            ),
            "\(failed.standardError)")
        #expect(failed.standardError.hasPrefix("offerlab: error: 41 of 47 log lines are malformed"))
        let rejects = parseCSV(try String(contentsOfFile: rejectsPath, encoding: .utf8))
        #expect(rejects.first == ["file", "line", "reason", "text"])
        #expect(rejects.dropFirst().map(\.[0]) == [aLog, noisePath, noisePath])
        #expect(try night.snapshot() == before)

        try FileManager.default.removeItem(atPath: noisePath)
        // (The logs have nothing since the previous night's as_of.)
        try night.writeJob(["max_bad_line_ratio": "0.2", "allow_stale_logs": "true"])
        #expect(try night.run().status == 0)
        #expect(!FileManager.default.fileExists(atPath: rejectsPath))
    }

    @Test func aRatioEqualToTheMaximumPasses() throws {
        // 1 malformed of 6 non-blank lines (blank lines do not count): exactly 1/6.
        let night = try NightFixture(events: NightFixture.standardEvents + ["", "  ", "oops"], job: ["max_bad_line_ratio": "\(1.0 / 6)"])
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try night.quality("lines_read") == 6)
    }

    /// Corruptions of `logs/b.jsonl.gz`, a valid member of two events.
    static let corruptions: [(name: String, damage: @Sendable ([UInt8]) -> [UInt8])] = [
        (
            "bad CRC",
            { bytes in
                var bytes = bytes
                bytes[bytes.count - 8] ^= 0xFF
                return bytes
            }
        ),
        (
            "bad header",
            { bytes in
                var bytes = bytes
                bytes[2] = 0x07
                return bytes
            }
        ),
        ("cut inside the member", { bytes in Array(bytes.prefix(bytes.count - 12)) }),
    ]

    func nightWithCorruptFile(_ corruption: Int, policy: String) throws -> (night: NightFixture, path: String) {
        let night = try NightFixture(job: ["on_corrupt_file": policy])
        let path = try night.writeLog(
            "b.jsonl.gz",
            [event("paywall_view", user: "u2", ts: "2026-03-05T00:00:00Z"), event("paywall_view", user: "u3", ts: "2026-03-05T00:00:00Z")])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try Data(Self.corruptions[corruption].damage(bytes)).write(to: URL(fileURLWithPath: path))
        return (night, path)
    }

    @Test(arguments: 0..<3)
    func aCorruptGzipFileFailsTheRunNamingIt(corruption: Int) throws {
        let (night, path) = try nightWithCorruptFile(corruption, policy: "fail")
        let result = try night.run()
        #expect(result.status == 65, "\(Self.corruptions[corruption].name)")
        #expect(result.standardError.hasPrefix("offerlab: error: log file \(path): "))
        #expect(result.standardError.contains("on_corrupt_file: skip would skip it"))
        #expect(!FileManager.default.fileExists(atPath: night.folder.file("out/2026-03-16")))
    }

    @Test(arguments: 0..<3)
    func withSkipACorruptGzipFileIsSkippedWholeAndListed(corruption: Int) throws {
        let (night, path) = try nightWithCorruptFile(corruption, policy: "skip")
        let result = try night.run()
        #expect(result.status == 0, "\(Self.corruptions[corruption].name): \(result.standardError)")
        #expect(result.standardError.contains("warning: skipped 1 corrupt file(s), listed in skipped_files.csv: \(path)"))
        #expect(try night.quality("files_skipped_corrupt") == 1)
        #expect(try night.quality("files_read") == 1)
        // Lines read before the damage are dropped with the rest of the file.
        #expect(try night.quality("lines_read") == NightFixture.standardEvents.count)
        let skipped = try night.csv("skipped_files")
        #expect(skipped.count == 2 && skipped[0] == ["file", "error"] && skipped[1][0] == path)
        #expect(skipped[1][1].contains("gzip file"), "\(skipped[1][1])")
        let report = try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)
        #expect(report.contains("Log files skipped") && report.contains("skipped_files.csv"))
    }

    /// A 256 MiB line is not held in memory: the run's peak resident size, read while it is
    /// stopped after reading the logs, stays far below it.
    @Test func aHugeLineIsCountedWithoutHoldingItInMemory() throws {
        let night = try NightFixture(job: ["max_bad_line_ratio": "1"])
        // First in file order: the run stops once it is read.
        let path = night.folder.file("logs/0-huge.jsonl.gz")
        let writer = try GzipWriter(path: path, level: 1)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        try writer.write(Array("{\"ts\":\"".utf8))
        for _ in 0..<256 { try writer.write(chunk) }
        try writer.write(Array("\"}\n".utf8))
        try writer.finish()

        let run = try night.start(pausingAt: "reading-logs")
        let status = try String(contentsOfFile: "/proc/\(run.pid)/status", encoding: .utf8)
        let peakKiB = try #require(
            status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ")[1]) })
        #expect(peakKiB < 64 * 1024, "peak resident size \(peakKiB) KiB")
        run.send(SIGCONT)
        let result = run.wait()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try night.quality("malformed_line_too_long") == 1)
    }
}
