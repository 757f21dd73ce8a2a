import Foundation
import OfferLabGenerate
import OfferLabIngest
import OfferLabStoreSources
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabSupport
@testable import OfferLabWarehouse

/// `offerlab events` (`StoreEventExport`): a job's store events written in the log format
/// (docs/input-formats.md#purchase-logs), one file per input file, read back by the purchase-log
/// parser as the same events.
@Suite struct StoreEventExportTests {
    /// One event as the purchase-log parser (docs/input-formats.md#purchase-logs) reads it, its id
    /// left out: every field a number is made of.
    struct LoggedEvent: Hashable, CustomStringConvertible {
        var event: String
        var at: Int64
        var userID: String
        var productID: String?
        var transactionID: String?
        var price: Int64?
        var currency: String?
        var isSandbox: Bool

        var description: String {
            "\(event) \(Timestamp.format(at)) \(userID) \(productID ?? "-") \(transactionID ?? "-") \(price.map(String.init) ?? "-") \(currency ?? "-")\(isSandbox ? " sandbox" : "")"
        }
    }

    /// The valid lines of a log file through the purchase-log parser
    /// (docs/input-formats.md#purchase-logs): their events and their event ids.
    static func readLog(_ path: String) throws -> (events: [LoggedEvent], ids: [String], malformed: Int) {
        var events: [LoggedEvent] = []
        var ids: [String] = []
        var malformed = 0
        _ = try LogFileScanner(path: path).scan(
            record: { pointer, _ in
                let record = pointer.pointee
                let text = record.text
                func string(_ range: Range<Int>?) -> String? { range.map { String(decoding: text[$0], as: UTF8.self) } }
                events.append(
                    LoggedEvent(
                        event: string(record.eventName)!, at: record.timestamp, userID: string(record.userID)!,
                        productID: string(record.productID), transactionID: string(record.transactionID), price: record.price,
                        currency: string(record.currency), isSandbox: record.isSandbox))
                ids.append(string(record.eventID) ?? "")
            }, malformed: { _ in malformed += 1 })
        return (events, ids, malformed)
    }

    static func webhook(id: String, transaction: String, type: String = "INITIAL_PURCHASE") -> String {
        StoreSourceJobTests.webhook(id: id, type: type, transaction: transaction)
    }

    // MARK: - The files written

    @Test func eachInputFileGetsItsOwnFileOfEvents() async throws {
        let fixture = try StoreSourceJobTests().job(
            logs: #"["logs/*", {path: "hooks/*/*.jsonl", format: revenuecat_webhooks}]"#,
            files: [
                "hooks/03-01/a.jsonl": Self.webhook(id: "e1", transaction: "t1") + "\n",
                "hooks/03-02/a.jsonl": Self.webhook(id: "e1", transaction: "t1") + "\n"
                    + Self.webhook(id: "e2", transaction: "t2", type: "RENEWAL") + "\n",
            ])
        let job = try JobLoader.load(path: fixture.path)
        let out = fixture.folder.file("events")
        let untouched = try fixture.folder.write("events/app/own.jsonl.gz", "kept")

        let summary = try await StoreEventExport.run(job: job, folder: out)
        let first = out + "/revenuecat_webhooks/hooks/03-01/a.jsonl.jsonl.gz"
        let second = out + "/revenuecat_webhooks/hooks/03-02/a.jsonl.jsonl.gz"
        #expect(summary.files.map(\.path) == [first, second] && summary.files.map(\.events) == [1, 1])
        #expect(
            summary.line
                == "wrote 2 events to 2 file(s) in \(out) from 2 store file(s): 3 lines read, 0 malformed")
        #expect(try Self.readLog(first).ids == ["revenuecat_webhooks:t1"])
        let renewal = try Self.readLog(second)
        #expect(renewal.ids == ["revenuecat_webhooks:t2"] && renewal.malformed == 0)
        #expect(
            renewal.events == [
                LoggedEvent(
                    event: "renewal", at: 1_773_000_000_000_000, userID: "rc-t2", productID: "monthly", transactionID: "t2",
                    price: 9_990_000, currency: "EUR", isSandbox: false)
            ])
        #expect(try String(contentsOfFile: untouched, encoding: .utf8) == "kept")
        // No temporary file is left beside them.
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/revenuecat_webhooks/hooks/03-02") == ["a.jsonl.jsonl.gz"])

        // Again, after the second day's file lost its renewal: the first file is replaced, the
        // second, without an event now, removed; the other file of the folder stays.
        try fixture.folder.write("hooks/03-02/a.jsonl", Self.webhook(id: "e1", transaction: "t1") + "\n")
        let again = try await StoreEventExport.run(job: job, folder: out)
        #expect(again.files.map(\.path) == [first] && again.inputFiles == 2)
        #expect(!FileManager.default.fileExists(atPath: second))
        #expect(try Self.readLog(first).ids == ["revenuecat_webhooks:t1"])
        #expect(try String(contentsOfFile: untouched, encoding: .utf8) == "kept")
    }

    @Test func aJobWithoutAStoreSourceIsABadJob() async throws {
        let fixture = try StoreSourceJobTests().job(logs: #"["logs/*"]"#)
        let job = try JobLoader.load(path: fixture.path)
        let error = try await #require(throws: OfferLabError.self) {
            try await StoreEventExport.run(job: job, folder: fixture.folder.file("events"))
        }
        #expect(error.code == .badJob && error.exitCode == 78 && error.location.jobKey == "logs")
        #expect(
            error.message
                == "job file \(fixture.path): logs: names no store source (app_store_notifications, revenuecat_export, revenuecat_webhooks, "
                + "google_play, google_play_orders): its logs are in the log format already"
        )
    }

    @Test func aFolderTheJobsGlobsReachIsRefused() async throws {
        let fixture = try StoreSourceJobTests().job(
            logs: #"[{path: "hooks/**/*.gz", format: revenuecat_webhooks}]"#,
            files: ["hooks/a.jsonl.gz": Self.webhook(id: "e1", transaction: "t1") + "\n"])
        let job = try JobLoader.load(path: fixture.path)
        let out = fixture.folder.file("hooks/events")
        let error = try await #require(throws: OfferLabError.self) { try await StoreEventExport.run(job: job, folder: out) }
        #expect(error.code == .badJob && error.exitCode == 78)
        #expect(
            error.message
                == "--out \(out): the job's glob \(fixture.folder.file("hooks/**/*.gz")) would read \(out)/revenuecat_webhooks/hooks/a.jsonl.gz.jsonl.gz; write the events to a folder the job's logs do not reach"
        )
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func tooManyMalformedStoreLinesWriteNothing() async throws {
        let fixture = try StoreSourceJobTests().job(
            logs: #"[{path: "hooks/*.jsonl", format: revenuecat_webhooks}]"#,
            files: ["hooks/a.jsonl": Self.webhook(id: "e1", transaction: "t1") + "\n{\"event\": 1}\n"])
        let job = try JobLoader.load(path: fixture.path)
        let out = fixture.folder.file("events")
        let error = try await #require(throws: OfferLabError.self) { try await StoreEventExport.run(job: job, folder: out) }
        #expect(error.code == .tooManyMalformedLines && error.exitCode == 65)
        #expect(
            error.message
                == "1 of 2 store lines are malformed, over max_bad_line_ratio 0.01; the first: \(fixture.folder.file("hooks/a.jsonl")) line 2: malformed_invalid_field (event is not an object)"
        )
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// The command: one line of what it wrote on stdout; a store job refused by `sql` with one
    /// line on stderr that names the command (`run` reads it: StoreSourceRunTests).
    @Test func theCommandLine() throws {
        let fixture = try StoreSourceJobTests().job(
            logs: #"["logs/*", {path: "hooks/*.jsonl", format: revenuecat_webhooks}]"#,
            files: ["hooks/a.jsonl": Self.webhook(id: "e1", transaction: "t1") + "\n"])
        let written = try runOfferLab(["events", fixture.path, "--out", "events"], in: fixture.folder.path)
        let out = fixture.folder.file("events")
        #expect(written.status == 0, "\(written.standardError)")
        #expect(
            written.standardOutput == "wrote 1 events to 1 file(s) in \(out) from 1 store file(s): 1 lines read, 0 malformed\n")
        #expect(try Self.readLog(out + "/revenuecat_webhooks/hooks/a.jsonl.jsonl.gz").ids == ["revenuecat_webhooks:t1"])

        for command in [["sql", fixture.path, "--dialect", "duckdb"]] {
            let refused = try runOfferLab(command, in: fixture.folder.path)
            #expect(refused.status == 78 && refused.standardOutput.isEmpty, "\(command)")
            let lines = refused.standardError.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("offerlab events \(fixture.path) --out DIR"), "\(refused.standardError)")
        }
        let badAsOf = try runOfferLab(["events", fixture.path, "--out", "events", "--as-of", "soon"], in: fixture.folder.path)
        #expect(
            badAsOf.status == 64
                && badAsOf.standardError.contains("The value 'soon' is invalid for '--as-of <date>': not a date like 2026-03-16"))
    }

    // MARK: - Refusals until the stores' events are read

    @Test func sqlOnAStoreSourceNamesTheCommandToRun() throws {
        let fixture = try StoreSourceJobTests().job(
            logs: #"["logs/*", {path: "hooks/*.jsonl", format: revenuecat_webhooks}]"#, files: ["hooks/a.jsonl": ""])
        let job = try JobLoader.load(path: fixture.path)
        let error = try #require(throws: OfferLabError.self) { try SQLScript.generate(job: job, dialect: .duckdb, part: .aggregates) }
        #expect(error.code == .badJob && error.exitCode == 78 && error.location.jobKey == "logs")
        #expect(
            error.message
                == "job file \(fixture.path): logs: format revenuecat_webhooks: SQL engines read only the log format; run `offerlab events \(fixture.path) --out DIR`, then point a job's logs at DIR/**/*.jsonl.gz (with its other logs) and write the SQL for that job (docs/input-formats.md)"
        )
    }

    /// Google Play's two feeds are both named, and the hint says the events replace both items.
    @Test func sqlOnAGooglePlayJobNamesBothFeeds() throws {
        let fixture = try StoreSourceJobTests().job(
            logs: #"["logs/*", {path: "play/*.jsonl", format: google_play}, {path: "orders/*.jsonl", format: google_play_orders}]"#,
            "google_play: {package_name: com.example.app}", files: ["play/a.jsonl": "", "orders/a.jsonl": ""])
        let job = try JobLoader.load(path: fixture.path)
        let error = try #require(throws: OfferLabError.self) { try SQLScript.generate(job: job, dialect: .spark, part: .aggregates) }
        #expect(error.code == .badJob && error.exitCode == 78 && error.location.jobKey == "logs")
        #expect(
            error.message
                == "job file \(fixture.path): logs: formats google_play, google_play_orders: SQL engines read only the log format; run `offerlab events \(fixture.path) --out DIR`, then point a job's logs at DIR/**/*.jsonl.gz in place of those items (with its other logs) and write the SQL for that job (docs/input-formats.md)"
        )
    }
}

/// `offerlab events` on the data sets `offerlab generate --format revenuecat_export|revenuecat_webhooks`
/// writes: the events it writes, read back by the purchase-log parser
/// (docs/input-formats.md#purchase-logs), are the events the same data set holds in the log format
/// (`--format offerlab`): the lines its app logs lose to the store.
@Suite struct GeneratedStoreEventsTests {
    typealias LoggedEvent = StoreEventExportTests.LoggedEvent

    static func generate(_ format: SourceFormat, into folder: TemporaryFolder) async throws -> GenerationReport {
        try await DataSetGenerator.generate(
            GeneratorConfiguration(
                outputDirectory: folder.path, users: 3000, seed: 11, days: 12, jobs: 1, shape: DataSetShape(sourceFormat: format)))
    }

    /// The events of every log-format file the data set's job names, without the copies
    /// docs/analysis.md §2 removes (the same `event_id`, then the same `event` and
    /// `transaction_id`: the earliest stays), as `comparable` has them.
    static func appEvents(_ folder: TemporaryFolder) throws -> (events: [LoggedEvent: Int], transactionIDs: Set<String>) {
        let job = try JobLoader.load(path: folder.file("job.yaml"))
        var byID: [String: LoggedEvent] = [:]
        var withoutID: [LoggedEvent] = []
        for file in job.inputs.logFiles {
            let read = try StoreEventExportTests.readLog(file)
            for (id, event) in zip(read.ids, read.events) {
                if id.isEmpty {
                    withoutID.append(event)
                } else if event.at < byID[id]?.at ?? .max {
                    byID[id] = event
                }
            }
        }
        var byTransaction: [String: LoggedEvent] = [:]
        var events: [LoggedEvent: Int] = [:]
        for event in Array(byID.values) + withoutID {
            guard ["trial_start", "purchase", "renewal", "refund"].contains(event.event), let transaction = event.transactionID else {
                events[comparable(event), default: 0] += 1
                continue
            }
            let key = event.event + " " + transaction
            if event.at < byTransaction[key]?.at ?? .max { byTransaction[key] = event }
        }
        for event in withRefundPrices(Array(byTransaction.values)) { events[comparable(event), default: 0] += 1 }
        return (events, Set(byTransaction.values.compactMap(\.transactionID)))
    }

    /// `events` with each refund that names no price given its charge's: a refund without a price
    /// returns the whole price of its charge (docs/analysis.md), as the logs write some and
    /// the stores write every refund.
    static func withRefundPrices(_ events: [LoggedEvent]) -> [LoggedEvent] {
        var charges: [String: LoggedEvent] = [:]
        for event in events where event.event == "purchase" || event.event == "renewal" { charges[event.transactionID!] = event }
        return events.map { event in
            guard event.event == "refund", event.price == nil, let charge = charges[event.transactionID!] else { return event }
            var priced = event
            (priced.price, priced.currency) = (charge.price, charge.currency)
            return priced
        }
    }

    /// What an event of the logs and its store form share: its time to the second (the logs
    /// write some times to the second or the tenth, the stores to the millisecond), and no
    /// transaction id (the store form gives Play Store charges order ids of their own; the logs'
    /// cancels and expires name none).
    static func comparable(_ event: LoggedEvent) -> LoggedEvent {
        var event = event
        event.at -= event.at % 1_000_000
        event.transactionID = nil
        return event
    }

    /// The data set in the log format: its events, and the transaction ids they name.
    static let logData = Task { () async throws -> (events: [LoggedEvent: Int], transactionIDs: Set<String>) in
        let folder = try TemporaryFolder()
        _ = try await generate(.offerlab, into: folder)
        return try appEvents(folder)
    }

    @Test(arguments: [SourceFormat.revenueCatExport, .revenueCatWebhooks])
    func theWrittenEventsAreTheDataSetsOwn(_ format: SourceFormat) async throws {
        let folder = try TemporaryFolder()
        let report = try await Self.generate(format, into: folder)
        let job = try JobLoader.load(path: folder.file("job.yaml"))
        let summary = try await StoreEventExport.run(job: job, folder: folder.file("events"))
        #expect(summary.malformedLines == 0 && summary.linesRead == report.logs.storeLines)

        var written: [LoggedEvent: Int] = [:]
        var ids: Set<String> = []
        var transactionIDs: Set<String> = []
        var events: [LoggedEvent] = []
        for file in summary.files {
            let read = try StoreEventExportTests.readLog(file.path)
            #expect(read.malformed == 0 && read.events.count == file.events, "\(file.path)")
            events += read.events
            ids.formUnion(read.ids)
        }
        for event in Self.withRefundPrices(events) {
            written[Self.comparable(event), default: 0] += 1
            if event.event != "cancel" && event.event != "expire" { transactionIDs.insert(event.transactionID ?? "") }
        }
        #expect(ids.allSatisfy { $0.hasPrefix(format.rawValue + ":") } && ids.count == summary.events, "event ids are unique")
        #expect(written.values.reduce(0, +) == summary.events && summary.events > 300, "\(summary.events)")
        // App Store transactions keep their ids (Play Store ones become order ids).
        let logTransactionIDs = try await Self.logData.value.transactionIDs
        let appStoreIDs = transactionIDs.filter { !$0.hasPrefix("GPA.") }
        #expect(!appStoreIDs.isEmpty && appStoreIDs.isSubset(of: logTransactionIDs))

        // The data set's log-format events that its store form took out of the app's logs.
        let remaining = try Self.appEvents(folder).events
        var moved: [LoggedEvent: Int] = [:]
        for (event, count) in try await Self.logData.value.events where count > remaining[event, default: 0] {
            moved[event] = count - remaining[event, default: 0]
        }
        // A refund of a charge from before the data re-sends that charge's row in the export (the
        // subscriber past the first year's charge before the data is the logs' too: no refund).
        let start = Timestamp.parse("2026-03-01T00:00:00Z")!
        let refunded = Set(events.filter { $0.event == "refund" }.compactMap(\.transactionID))
        let resent = Set(
            events.filter { $0.at < start && $0.event == "purchase" && refunded.contains($0.transactionID ?? "") }.map(Self.comparable))
        written = written.filter { !resent.contains($0.key) }
        #expect(written.keys.contains { $0.at < start })
        let missing = moved.filter { written[$0.key, default: 0] < $0.value }.keys.map(\.description).sorted()
        let extra = written.filter { moved[$0.key, default: 0] < $0.value }.keys.map(\.description).sorted()
        #expect(missing.isEmpty && extra.isEmpty, "missing \(missing.prefix(5)), extra \(extra.prefix(5))")
    }
}
