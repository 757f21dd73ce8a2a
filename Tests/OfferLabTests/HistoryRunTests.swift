import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLabJob
@testable import OfferLabSupport

/// The app's past in `offerlab run` (docs/statistics.md#the-apps-past): `history_logs` read
/// beside the logs, through the parsed-log cache, counted apart in `sources.csv`, and used by the
/// 365-day projection only.
@Suite struct HistoryRunTests {
    /// 40 earlier buyers of the monthly plan (users the assignment table does not hold), each its
    /// own chain: 4 stop after their purchase, 36 renew 12 times and stop (their 13th renewal was
    /// due in January 2026). So renewal 1 is at 36/40 = 0.9, renewals 2 … 12 at 1.
    static let pastLines: [String] = (0..<40).flatMap { buyer in (0..<charges(buyer)).map { charge(buyer, $0) } }

    /// How many charges buyer `buyer` of `pastLines` paid.
    static func charges(_ buyer: Int) -> Int { buyer < 4 ? 1 : 13 }

    /// Charge `charge` (0: the purchase) of buyer `buyer` of `pastLines`.
    static func charge(_ buyer: Int, _ charge: Int) -> String {
        let start = Date(timeIntervalSince1970: 1_736_071_200)  // 2025-01-05T10:00:00Z
        let time = start.addingTimeInterval(Double(charge) * 365.25 / 12 * 86_400)
        return ProjectionRunTests.line(
            charge == 0 ? "purchase" : "renewal", user: "h\(buyer)", ts: ISO8601DateFormatter().string(from: time), product: "monthly",
            transaction: "h\(buyer)-\(charge)", original: "h\(buyer)", price: "19.99")
    }

    /// The test: control's u1 and u2 (assigned on 2026-03-06, unpaid) and 30 members of variant
    /// assigned on 2026-02-01, each of whom bought the monthly plan that day; 27 renewed once
    /// (renewal 1 due on 2026-03-03, before the night; renewal 2 on 2026-04-03, after it). So the
    /// members identify renewal 1 (30 due) and are compared with the past: 27 renewed, 27 expected
    /// at the past's 0.9. The past gives renewals 2 … 11.
    static let tables = TablesFixture(
        assignments: [("u1", "1", "10", "2026-03-06 00:00:00"), ("u2", "1", "10", "2026-03-06 00:00:00")]
            + (0..<30).map { ("m\($0)", "1", "11", "2026-02-01 00:00:00") })
    static let memberLines: [String] = (0..<30).flatMap { member in
        let charges = [
            ProjectionRunTests.line(
                "purchase", user: "m\(member)", ts: "2026-02-01T10:00:00Z", product: "monthly", transaction: "m\(member)-0",
                original: "m\(member)", price: "19.99"),
            ProjectionRunTests.line(
                "renewal", user: "m\(member)", ts: "2026-03-03T21:00:00Z", product: "monthly", transaction: "m\(member)-1",
                original: "m\(member)", price: "19.99"),
        ]
        return member < 27 ? charges : [charges[0]]
    }
    /// The members' year: 3 paid once; 27 paid twice, and renewals 2 … 11 are due before their
    /// day 365 at the past's rate of 1 (the 12th falls after it): 19.99 · (3 + 27 · 12) / 30.
    static let memberYear = 19.99 * 327 / 30
    /// Without the past: renewals 2 … 11 continue at the members' renewal 1, 27/30 (the only rate seen).
    static let memberYearAtTheirOwnRate: Double = {
        let laterRenewals: Double = (1...10).reduce(0.0) { $0 + pow(0.9, Double($1)) }
        let charges: Double = 3 + 27 * (2 + laterRenewals)
        return 19.99 * charges / 30
    }()

    /// The test (`tables`, `memberLines`) and `logs`, with `history` written to
    /// `past/h.jsonl.gz` and named by `history_logs` when given.
    static func night(history: [String]?, logs: [String] = [], job: [String: String] = [:]) throws -> NightFixture {
        let night = try NightFixture(tables: tables, events: memberLines + logs, job: job)
        if let history {
            try writePast(history, to: "past/h.jsonl.gz", of: night)
            try night.writeJob(["history_logs": "[\"past/*.gz\"]"])
        }
        return night
    }

    /// Writes `lines` as the gzip file `name` of `night`'s folder.
    static func writePast(_ lines: [String], to name: String, of night: NightFixture) throws {
        try FileManager.default.createDirectory(
            atPath: (night.folder.file(name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let writer = try GzipWriter(path: night.folder.file(name))
        try writer.write(lines.map { $0 + "\n" }.joined())
        try writer.finish()
    }

    static func variant(_ night: NightFixture) throws -> [String: String] {
        try #require(ProjectionRunTests.records(try night.csv("projection")).first { $0["group"] == "variant" })
    }

    @Test func thePastIdentifiesTheYearTheTestHasNotSeen() throws {
        let night = try Self.night(history: Self.pastLines)
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError == "")
        let header = try #require(try night.csv("projection").first)
        #expect(
            header.suffix(8) == [
                "observed_share", "own_rates_share", "follow_on_share", "past_share", "continued_share", "bounded_share", "past_detail",
                "past_missing",
            ])
        let variant = try Self.variant(night)
        let value = try ProjectionRunTests.number(variant["projected_arpu_365"])
        #expect(abs(value - Self.memberYear) < 1e-6, "\(variant)")
        #expect(variant["reason"] == "")
        #expect(abs(try ProjectionRunTests.number(variant["observed_share"]) - 57.0 / 327) < 1e-6)
        #expect(abs(try ProjectionRunTests.number(variant["past_share"]) - 270.0 / 327) < 1e-6)
        #expect(try ProjectionRunTests.number(variant["bounded_share"]) == 0)
        // The rest of the year: nothing to come at the members' own rates (their renewal 2 on is the
        // past's), no follow-on chain, nothing continued beyond what was seen.
        for share in ["own_rates_share", "follow_on_share", "continued_share"] {
            #expect(abs(try ProjectionRunTests.number(variant[share])) < 1e-9, "\(share): \(variant)")
        }
        #expect(variant["past_detail"] == "monthly renewals 2–11 from 40 earlier buyers" && variant["past_missing"] == "")
        let report = try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)
        #expect(
            report.contains(
                "The year of variant rests on 17.4% realised, 82.6% from the app&#39;s past (monthly renewals 2–11 from 40 earlier buyers)"
                    + "; 0.0% of it lies between its far ends."))
        // The past's lines count apart from the night's.
        let sources = try night.csv("sources")
        #expect(sources.contains(["history_logs", "lines_read", "\(Self.pastLines.count)"]))
        #expect(sources.contains(["offerlab", "lines_read", "\(Self.memberLines.count)"]))
    }

    /// Adding `history_logs` changes the projection and nothing else: every CSV file but the
    /// projection's rows, the `projected_arpu_365` comparisons and the past's own `sources` rows
    /// is the same byte for byte.
    @Test func thePastChangesNoOtherNumber() throws {
        let plain = try Self.night(history: nil)
        let withPast = try Self.night(history: Self.pastLines)
        #expect(try plain.run().status == 0)
        #expect(try withPast.run().status == 0)
        #expect(abs(try ProjectionRunTests.number(Self.variant(plain)["projected_arpu_365"]) - Self.memberYearAtTheirOwnRate) < 1e-6)
        #expect(abs(try ProjectionRunTests.number(Self.variant(withPast)["projected_arpu_365"]) - Self.memberYear) < 1e-6)
        let files = try FileManager.default.contentsOfDirectory(atPath: plain.folder.file("out/2026-03-16")).filter {
            $0.hasSuffix(".csv") && $0 != "projection.csv"
        }
        #expect(files.contains("summary.csv") && files.contains("quality.csv") && files.contains("decisions.csv"))
        for file in files {
            let name = String(file.dropLast(4))
            func kept(_ rows: [[String]]) -> [[String]] {
                guard let header = rows.first else { return rows }
                let metric = header.firstIndex(of: "metric")
                let source = header.firstIndex(of: "source")
                // A decision on the projected year (a period test's) rests on the projection.
                let goal = header.firstIndex(of: "goal_metric")
                // decisions.csv's money of a year rests on the projection.
                let ownColumns = header.indices.filter { !header[$0].contains("impact") }
                return rows.filter { row in
                    !(metric.map { row[$0] == "projected_arpu_365" } ?? false) && !(source.map { row[$0] == "history_logs" } ?? false)
                        && !(goal.map { row[$0] == "projected_arpu_365" } ?? false)
                }.map { row in ownColumns.map { row[$0] } }
            }
            #expect(kept(try plain.csv(name)) == kept(try withPast.csv(name)), "\(file)")
        }
    }

    /// A glob that matches nothing changes the decisions (the year, the days left) without failing
    /// the night, so the line that names it is where the lead looks too: on stderr, in the report
    /// (run and rebuilt) and from `status`, as long as the night's latest run lacked the past.
    @Test func aHistoryGlobThatMatchesNothingIsOneLineWhereverTheNightIsRead() throws {
        let night = try Self.night(history: nil, job: ["history_logs": "[\"past/*.gz\"]"])
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        let line =
            "the app's past is missing: history_logs '\(night.folder.file("past/*.gz"))' matched no file; "
            + "the year's projection and the days left are made without it"
        #expect(run.standardError == "warning: \(line)\n")
        #expect(abs(try ProjectionRunTests.number(Self.variant(night)["projected_arpu_365"]) - Self.memberYearAtTheirOwnRate) < 1e-6)
        #expect(try night.csv("sources").contains(["history_logs", "lines_read", "0"]))

        let inHTML = line.replacingOccurrences(of: "'", with: "&#39;")
        let report = try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)
        #expect(report.contains("The app&#39;s past is missing") && report.contains(inHTML.dropFirst()), "\(report)")
        let rebuilt = try runOfferLab(["report", "--db", night.databasePath, "--output", "-"])
        #expect(rebuilt.status == 0 && rebuilt.standardOutput == report, "\(rebuilt.standardError)")
        let status = try runOfferLab(["status", "--db", night.databasePath])
        #expect(status.status == 0 && status.standardError == "warning: \(line)\n", "\(status.standardError)")

        // The night run again with its past: the line goes.
        try Self.writePast(Self.pastLines, to: "past/h.jsonl.gz", of: night)
        #expect(try night.run().standardError == "")
        let withPast = try runOfferLab(["status", "--db", night.databasePath])
        #expect(withPast.status == 0 && withPast.standardError == "", "\(withPast.standardError)")
        let page = try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)
        #expect(!page.contains("past is missing"))
    }

    /// A database whose `runs` table predates the column that names the globs gains it in place:
    /// its nights read as ones with nothing missing, and the next night says what it lacks.
    @Test func aDatabaseWithoutTheMissingPastColumnGainsIt() throws {
        let night = try Self.night(history: nil, job: ["history_logs": "[\"past/*.gz\"]", "allow_stale_logs": "true"])
        #expect(try night.run(["--as-of", "2026-03-15"]).status == 0)
        try SQLiteDatabase(path: night.databasePath).execute("ALTER TABLE runs DROP COLUMN history_globs_without_files")
        let earlier = try runOfferLab(["status", "--db", night.databasePath])
        #expect(earlier.status == 0 && earlier.standardError == "", "\(earlier.standardError)")
        #expect(try night.run(["--as-of", "2026-03-16"]).status == 0)
        let status = try runOfferLab(["status", "--db", night.databasePath])
        #expect(status.status == 0 && status.standardError.hasPrefix("warning: the app's past is missing: "), "\(status.standardError)")
    }

    /// The night's own logs are part of the past too: the chains of users who are not members of
    /// the offering, there, count as the history files' would.
    @Test func theLogsNonMembersArePartOfThePast() throws {
        let night = try NightFixture(
            tables: Self.tables, events: Self.memberLines + Self.pastLines, job: ["history_logs": "[\"past/*.gz\"]"])
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        let variant = try Self.variant(night)
        #expect(abs(try ProjectionRunTests.number(variant["projected_arpu_365"]) - Self.memberYear) < 1e-6, "\(variant)")
        #expect(variant["past_detail"] == "monthly renewals 2–11 from 40 earlier buyers")
    }

    /// A chain begun in the past runs on in the night's logs (its `original_transaction_id`): one
    /// chain, whichever files hold its charges, and a charge in both (the same transaction at the
    /// same time) counted once; so with the cache, which keeps the past's files reduced to their
    /// charges. Here each buyer who renewed has charges 0–5 in the past and 6–12 in the logs (as
    /// two chains they would count 76 buyers, 36 of them stopping after renewal 5), and the 4 who
    /// stopped after their purchase have it in both (counted twice, the past's renewal 1 would be at 40/40,
    /// apart from the members' 27/30, and its later renewals scaled).
    @Test func aChainRunsOnFromThePastIntoTheLogs() throws {
        let inPast = (0..<40).flatMap { buyer in (0..<min(Self.charges(buyer), 6)).map { Self.charge(buyer, $0) } }
        let inLogs = (0..<40).flatMap { buyer in (Self.charges(buyer) == 1 ? 0..<1 : 6..<13).map { Self.charge(buyer, $0) } }
        let night = try Self.night(history: inPast, logs: inLogs, job: ["cache": "cache/"])
        for (run, cache) in [(1, ": 0 log file(s) reused, 2 parsed and kept\n"), (2, ": 2 log file(s) reused, 0 parsed and kept\n")] {
            let result = try night.run()
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains(cache), "run \(run): \(result.standardOutput)")
            let variant = try Self.variant(night)
            #expect(abs(try ProjectionRunTests.number(variant["projected_arpu_365"]) - Self.memberYear) < 1e-6, "run \(run): \(variant)")
            #expect(variant["past_detail"] == "monthly renewals 2–11 from 40 earlier buyers", "run \(run)")
        }
    }

    /// A damaged entry of a past file is parsed again, the night's numbers the same.
    @Test func aDamagedPastEntryIsParsedAgain() throws {
        let night = try Self.night(history: Self.pastLines, job: ["cache": "cache/"])
        #expect(try night.run().status == 0)
        let projection = try night.csv("projection")
        let cache = night.folder.file("cache")
        for name in try FileManager.default.contentsOfDirectory(atPath: cache) {
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cache + "/" + name)))
            bytes[bytes.count - 1] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: cache + "/" + name))
        }
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardOutput.contains(": 0 log file(s) reused, 2 parsed and kept, 2 damaged entr(ies) parsed again\n"),
            "\(run.standardOutput)")
        #expect(try night.csv("projection") == projection)
    }

    @Test func malformedPastLinesAreCountedApartInOneWarning() throws {
        let night = try Self.night(
            history: Self.pastLines + ["not json", "{\"ts\":\"bad\",\"user_id\":\"h1\",\"event\":\"renewal\"}"],
            job: ["max_bad_line_ratio": "0.001"])
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        let warnings = run.standardError.split(separator: "\n")
        #expect(warnings.count == 1, "\(run.standardError)")
        #expect(
            warnings.first?.hasPrefix(
                "warning: history_logs: 2 of \(Self.pastLines.count + 2) lines are malformed (0.42%), over max_bad_line_ratio 0.001; most in "
            ) == true, "\(run.standardError)")
        #expect(warnings.first?.contains(night.folder.file("past/h.jsonl.gz") + " (2)") == true)
        let sources = try night.csv("sources")
        let pastMalformed = sources.filter { $0[0] == "history_logs" && $0[1].hasPrefix("malformed_") }.reduce(0) { $0 + (Int($1[2]) ?? 0) }
        #expect(pastMalformed == 2)
        // The night itself has none.
        #expect(try night.quality("malformed_lines") == 0)
        #expect(try ProjectionRunTests.number(try Self.variant(night)["projected_arpu_365"]) > 200)
    }

    @Test func aLaterNightReadsThePastFromTheCache() throws {
        let night = try Self.night(history: Self.pastLines, job: ["cache": "cache/"])
        let first = try night.run()
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains(": 0 log file(s) reused, 2 parsed and kept\n"), "\(first.standardOutput)")
        let firstProjection = try night.csv("projection")
        let second = try night.run()
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains(": 2 log file(s) reused, 0 parsed and kept\n"), "\(second.standardOutput)")
        #expect(try night.csv("projection") == firstProjection)
    }

    /// A past of several files (each chain runs through all three) is kept as its chains beside
    /// its files: a later night reads only those back, with the numbers of the files; a file
    /// changed since is parsed again and the chains read anew.
    @Test func aPastOfSeveralFilesIsKeptAsItsChains() throws {
        let night = try Self.night(history: nil, job: ["cache": "cache/"])
        let parts = [0..<5, 5..<9, 9..<13].map { charges in
            (0..<40).flatMap { buyer in charges.clamped(to: 0..<Self.charges(buyer)).map { Self.charge(buyer, $0) } }
        }
        for (part, name) in zip(parts, ["a", "b", "c"]) { try Self.writePast(part, to: "past/\(name).jsonl.gz", of: night) }
        try night.writeJob(["history_logs": "[\"past/*.gz\"]"])
        for (run, cache) in [(1, ": 0 log file(s) reused, 4 parsed and kept\n"), (2, ": 4 log file(s) reused, 0 parsed and kept\n")] {
            let result = try night.run()
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains(cache), "run \(run): \(result.standardOutput)")
            // The logs' file, the three past files, and their chains.
            #expect(try FileManager.default.contentsOfDirectory(atPath: night.folder.file("cache")).count == 5, "run \(run)")
            let variant = try Self.variant(night)
            #expect(abs(try ProjectionRunTests.number(variant["projected_arpu_365"]) - Self.memberYear) < 1e-6, "run \(run): \(variant)")
            #expect(variant["past_detail"] == "monthly renewals 2–11 from 40 earlier buyers", "run \(run)")
        }
        try Self.writePast(parts[2] + [Self.charge(40, 0)], to: "past/c.jsonl.gz", of: night)
        let changed = try night.run()
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(changed.standardOutput.contains(": 3 log file(s) reused, 1 parsed and kept\n"), "\(changed.standardOutput)")
        #expect(try Self.variant(night)["past_detail"] == "monthly renewals 2–11 from 41 earlier buyers")
        #expect(try FileManager.default.contentsOfDirectory(atPath: night.folder.file("cache")).count == 5)
    }

    /// A damaged chains entry is no damaged file: the night reads the files' entries (none
    /// parsed again), with the same numbers, and writes the chains anew.
    @Test func aDamagedChainsEntryIsReadFromTheFilesEntries() throws {
        let night = try Self.night(history: Self.pastLines, job: ["cache": "cache/"])
        #expect(try night.run().status == 0)
        let projection = try night.csv("projection")
        let cache = night.folder.file("cache")
        let chainsEntries = try FileManager.default.contentsOfDirectory(atPath: cache).map { cache + "/" + $0 }.filter {
            try Data(contentsOf: URL(fileURLWithPath: $0)).starts(with: Array("OfferLab past chains\n".utf8))
        }
        let chainsEntry = try #require(chainsEntries.first)
        #expect(chainsEntries.count == 1)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: chainsEntry)))
        bytes[bytes.count - 1] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: chainsEntry))
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains(": 2 log file(s) reused, 0 parsed and kept\n"), "\(run.standardOutput)")
        #expect(try night.csv("projection") == projection)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: chainsEntry))) != bytes)
    }

    /// The sample job with the sample's past ended before the night (its lines of the night's day
    /// left out, as a real past's are, so that the cache keeps its files): a night that reads the
    /// past back as its chains writes the bytes of a night without the cache, projection and
    /// decisions included.
    @Test func theSamplesPastReadBackAsItsChainsWritesTheNumbersOfItsFiles() throws {
        let folder = try TemporaryFolder()
        let sampleData = repositoryRoot.appendingPathComponent("sample-data").path
        let pastFiles = try FileGlob.matches(sampleData + "/history/*/*/*.jsonl.gz")
        #expect(pastFiles.count == 12)
        for path in pastFiles {
            let reader = try InputFileReader(path: path)
            var bytes: [UInt8] = []
            try reader.forEachChunk { bytes.append(contentsOf: $0) }
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { !$0.contains("\"ts\":\"2026-03-15T") }
            let name = "past/" + path.dropFirst(sampleData.count + "/history/".count)
            try FileManager.default.createDirectory(
                atPath: (folder.file(name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let writer = try GzipWriter(path: folder.file(name))
            try writer.write(lines.map { $0 + "\n" }.joined())
            try writer.finish()
        }
        let sample = try String(contentsOfFile: repositoryRoot.appendingPathComponent("jobs/sample.yaml").path, encoding: .utf8)
        let job = try folder.write(
            "job.yaml",
            sample.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.hasPrefix("history_logs:") ? "history_logs: [\"past/*/*/*.jsonl.gz\"]" : String($0)
            }.joined(separator: "\n").replacingOccurrences(of: "../sample-data/", with: sampleData + "/") + "cache: cache/\n")
        func run(_ name: String, _ arguments: [String] = []) throws -> ProcessResult {
            let result = try runOfferLab(
                ["run", job, "--output", folder.file(name), "--database", folder.file("\(name).sqlite")] + arguments)
            #expect(result.status == 0, "\(result.standardError)")
            return result
        }
        _ = try run("plain", ["--no-cache"])
        _ = try run("filling")
        let reading = try run("reading")
        let chainsEntries = try FileManager.default.contentsOfDirectory(atPath: folder.file("cache")).filter {
            try Data(contentsOf: URL(fileURLWithPath: folder.file("cache/" + $0))).starts(with: Array("OfferLab past chains\n".utf8))
        }
        #expect(chainsEntries.count == 1)
        // Every file but the logs of the night's day, which have events at or after as_of (ParsedLogCacheTests).
        let logFiles = try FileGlob.matches(sampleData + "/logs/*/*/*/*")
        let playFiles = try FileGlob.matches(sampleData + "/googleplay/*/*/*/*/*")
        let kept = logFiles.count(where: { !$0.contains("/2026/03/15/") }) + playFiles.count + pastFiles.count
        #expect(reading.standardOutput.contains(": \(kept) log file(s) reused, 0 parsed and kept\n"), "\(reading.standardOutput)")
        for name in ["filling", "reading"] {
            for file in ["projection.csv", "decisions.csv", "comparisons.csv", "summary.csv", "sources.csv", "backtest.csv"] {
                let expected = try Data(contentsOf: URL(fileURLWithPath: folder.file("plain/2026-03-15/\(file)")))
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: folder.file("\(name)/2026-03-15/\(file)"))) == expected, "\(name): \(file)")
            }
        }
        let projection = try String(contentsOfFile: folder.file("plain/2026-03-15/projection.csv"), encoding: .utf8)
        #expect(projection.contains("earlier buyers"), "\(projection)")
    }

    @Test func aFileBothGlobsMatchIsReadOnceAsLogs() throws {
        // history_logs reaches the night's own log file too: it is read once, as logs.
        let night = try Self.night(history: Self.pastLines)
        try night.writeJob(["history_logs": "[\"past/*.gz\", \"logs/*\"]"])
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        let sources = try night.csv("sources")
        #expect(sources.contains(["history_logs", "lines_read", "\(Self.pastLines.count)"]))
        #expect(sources.contains(["offerlab", "lines_read", "\(Self.memberLines.count)"]))
    }
}
