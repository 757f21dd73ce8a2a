import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabJob

/// Google Play's two feeds kept by the parsed-log cache, beside an App Store source: each file's
/// lines are kept as read and every night joins the month again from them, so the outputs are
/// those of the same night without the cache, byte for byte, whatever night a file arrives on: an
/// Order a night after its notification (the price corrected), a voided purchase refunding a
/// charge kept from an earlier night, a partial refund's Order listed again, a rerun of an
/// earlier night, a changed file and damaged entries.
@Suite struct GooglePlayCacheTests {
    typealias Play = GooglePlayRunTests
    typealias Apple = KeptStoreNightTests

    /// u1–u4 assigned on March 1st (u1, u3 in control; u2, u4 in the variant); the job reads App
    /// Store notifications (`verify: false`; without `apple`, none: Play's feeds are its only store
    /// sources), Play's notifications and Play's Orders, with a cache.
    struct Fixture {
        let folder: TemporaryFolder
        var runs = 0

        init(apple: Bool = true) throws {
            folder = try TemporaryFolder()
            var tables = TablesFixture()
            tables.assignments = (1...4).map {
                (user: "u\($0)", offering: "1", group: $0 % 2 == 0 ? "11" : "10", assignedAt: "2026-03-01T00:00:00Z")
            }
            try tables.write(to: folder.file("tables.sqlite"))
            try folder.write(
                "job.yaml",
                """
                tables: tables.sqlite
                logs:
                \(apple ? "  - {path: \"apple/*.jsonl\", format: app_store_notifications}\n" : "")\
                  - {path: "play/notifications/*.jsonl", format: google_play}
                  - {path: "play/orders/*.jsonl", format: google_play_orders}
                \(apple ? "app_store: {bundle_id: com.example.app, verify: false}\n" : "")\
                google_play: {package_name: com.example.app}
                report_currency: USD
                max_bad_line_ratio: 1
                allow_empty_night: true
                output: out/
                database: out/results.sqlite
                cache: cache/

                """)
        }

        func write(_ folder: String, day: Int, _ lines: [String]) throws {
            try self.folder.write(String(format: "\(folder)/day-%02d.jsonl", day), lines.joined(separator: "\n") + "\n")
        }

        func job(asOf day: Int, cache: Bool, run: Int) throws -> Job { try folder.job(asOf: day, cache: cache, run: run) }

        /// Runs the night as of `day` with the cache and without; expects the same CSV files and
        /// report, byte for byte (but the report's clock times: when each run started and
        /// computed), and returns the cached run's report.
        @discardableResult
        mutating func night(asOf day: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> RunReport {
            runs += 1
            let cached = try await NightlyRun.run(try job(asOf: day, cache: true, run: runs))
            let fresh = try await NightlyRun.run(try job(asOf: day, cache: false, run: runs))
            let outputs = { (folder: String) in
                try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".csv") || $0.hasSuffix(".html") }
                    .sorted()
            }
            let names = try outputs(cached.outputFolder)
            #expect(names == (try outputs(fresh.outputFolder)), sourceLocation: sourceLocation)
            #expect(names.contains("summary.csv") && names.contains("report.html"), sourceLocation: sourceLocation)
            let clockTime = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/
            for name in names {
                var (kept, read) = (try fileBytes(cached.outputFolder + "/" + name), try fileBytes(fresh.outputFolder + "/" + name))
                if name == "report.html" {
                    let withoutClock = { (bytes: [UInt8]) in
                        Array(String(decoding: bytes, as: UTF8.self).replacing(clockTime, with: "").utf8)
                    }
                    (kept, read) = (withoutClock(kept), withoutClock(read))
                }
                #expect(kept == read, "\(name)", sourceLocation: sourceLocation)
            }
            return cached
        }

        /// Flips a byte near the end of each cache entry that starts with `magic`; how many.
        func damageEntries(startingWith magic: [UInt8]) throws -> Int {
            let cache = folder.file("cache")
            var damaged = 0
            for name in try FileManager.default.contentsOfDirectory(atPath: cache) {
                var bytes = try fileBytes(cache + "/" + name)
                guard bytes.starts(with: magic) else { continue }
                bytes[bytes.count - 3] ^= 0xff
                try Data(bytes).write(to: URL(fileURLWithPath: cache + "/" + name))
                damaged += 1
            }
            return damaged
        }

        /// Run `run`'s `summary.csv` (with the cache), by group and column.
        func summary(run: Int, asOf day: Int) throws -> (String, String) throws -> String {
            try Play.summary(folder.file(String(format: "out-\(run)-true/2026-03-%02d", day)))
        }

        /// Day 2: u1, u2 and u3 buy on Play (9.99 a month, the plan's price); the Orders of u2's and
        /// u3's charges come the same day, u1's not yet; u4 subscribes on the App Store (7.99).
        func firstDays() throws {
            let start = "2026-03-02T10:00:00Z"
            try write(
                "play/notifications", day: 2,
                [
                    Play.line(
                        Play.notification(4, token: "tA", at: Apple.time(2)), messageID: "m1",
                        state: Play.state(user: "u1", orderID: "GPA.1", phase: "basePrice", start: start)),
                    Play.line(
                        Play.notification(4, token: "tB", at: Apple.time(2)), messageID: "m2",
                        state: Play.state(user: "u2", orderID: "GPA.2", phase: "basePrice", start: start)),
                    Play.line(
                        Play.notification(4, token: "tC", at: Apple.time(2)), messageID: "m3",
                        state: Play.state(user: "u3", orderID: "GPA.3", phase: "basePrice", start: start)),
                ])
            try write(
                "play/orders", day: 2,
                [
                    Play.order("GPA.2", total: "9.99", revenue: "8.00", created: "2026-03-02T10:00:01Z"),
                    Play.order("GPA.3", total: "9.99", revenue: "8.00", created: "2026-03-02T10:00:01Z"),
                ])
            try write(
                "apple", day: 2,
                [Apple.notification("SUBSCRIBED", "a1", day: 2, transaction: Apple.transaction("T1", chain: "T1", user: "u4", day: 2))])
        }

        /// Day 5: u1's Order arrives (7.99, a promotion: the price corrected), u2's Order is listed
        /// again with a partial refund of 1.00, u3's purchase is voided (refunding a charge of day 2),
        /// and u4 renews on the App Store.
        func laterDays() throws {
            let refund =
                #"{"partialRefundEvents":[{"createTime":"2026-03-05T00:00:00Z","processedTime":"2026-03-05T01:00:00Z","state":"PROCESSED","refundDetails":{"total":{"currencyCode":"USD","units":"1"}}}]}"#
            try write(
                "play/orders", day: 5,
                [
                    Play.order("GPA.1", total: "7.99", revenue: "6.79", created: "2026-03-02T10:00:01Z"),
                    Play.order("GPA.2", total: "9.99", revenue: "8.00", created: "2026-03-02T10:00:01Z", history: refund)
                        .replacingOccurrences(
                            of: #""lastEventTime":"2026-03-02T10:00:01Z""#, with: #""lastEventTime":"2026-03-05T01:00:00Z""#),
                ])
            let voided =
                #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"\#(Apple.time(5))","voidedPurchaseNotification":{"purchaseToken":"tC","orderId":"GPA.3","productType":1,"refundType":1}}"#
            try write("play/notifications", day: 5, [Play.line(voided, messageID: "m4")])
            try write(
                "apple", day: 5,
                [
                    Apple.notification(
                        "DID_RENEW", "a2", day: 5, transaction: Apple.transaction("T2", chain: "T1", user: "u4", day: 5))
                ])
        }
    }

    @Test func laterNightsReadTheFeedsBackAndJoinThemAsWithoutTheCache() async throws {
        var fixture = try Fixture()
        try fixture.firstDays()
        let first = try await fixture.night(asOf: 4)
        #expect(first.cache?.filesReused == 0 && first.cache?.filesStored == 3)
        let night4 = try fixture.summary(run: 1, asOf: 4)
        // Control: u1 at the plan's price (no Order yet) and u3 at its Order's; no refund yet.
        #expect(try night4("control", "gross_revenue") == "19.98" && night4("control", "refunded_revenue") == "0")

        try fixture.laterDays()
        let later = try await fixture.night(asOf: 6)
        // The three files of day 2 read back; the three of day 5 read and kept.
        #expect(later.cache?.filesReused == 3 && later.cache?.filesStored == 3)
        let night6 = try fixture.summary(run: 2, asOf: 6)
        // u1's charge at its Order's 7.99, u3's 9.99 refunded by the voided purchase of day 5.
        #expect(try night6("control", "gross_revenue") == "17.98" && night6("control", "refunded_revenue") == "9.99")
        // u2's partial refund of 1.00 from the Order listed again; u4's App Store renewal.
        #expect(try night6("variant", "refunded_revenue") == "1" && night6("variant", "renewals") == "1")

        // Every file read back; then the earlier night again, with the later files there.
        #expect(try await fixture.night(asOf: 6).cache?.filesReused == 6)
        #expect(try await fixture.night(asOf: 4).cache?.filesReused == 6)
    }

    /// A damaged entry is a miss (counted, the file read again) and a changed file has an entry of
    /// its own: the night is the same as without the cache.
    @Test func aDamagedEntryOrAChangedFileIsReadAgain() async throws {
        var fixture = try Fixture()
        try fixture.firstDays()
        try await fixture.night(asOf: 4)
        let damaged = try fixture.damageEntries(startingWith: Array("OfferLab store file\n".utf8))
        #expect(damaged == 3)
        try fixture.laterDays()
        let report = try await fixture.night(asOf: 6)
        #expect(report.cache?.entriesDiscarded == 3 && report.cache?.filesReused == 0)

        // u3's Order of day 2 listed with another developer revenue: read again, not the kept one.
        try fixture.write(
            "play/orders", day: 2,
            [
                Play.order("GPA.2", total: "9.99", revenue: "8.00", created: "2026-03-02T10:00:01Z"),
                Play.order("GPA.3", total: "9.99", revenue: "7.00", created: "2026-03-02T10:00:01Z"),
            ])
        let changed = try await fixture.night(asOf: 6)
        #expect(changed.cache?.filesReused == 5 && changed.cache?.filesStored == 1)
    }
}
