import Foundation
import OfferLabStoreSources
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabSupport
@testable import OfferLabTables

/// An App Store night kept resolved in the cache (`KeptStoreNight`): a later night makes again only
/// the files whose events can have changed, and its outputs are those of the same night without
/// the cache, byte for byte, whatever changed in between (a later file refunding, extending or
/// charging earlier in a kept transaction's chain, a refund reversal crossing `as_of`, the
/// `user_transactions` table, a removed or damaged file, the store's settings).
@Suite struct KeptStoreNightTests {
    /// Epoch milliseconds of 2026-03-`day` at `hour`:00 UTC.
    static func time(_ day: Int, _ hour: Int = 10) -> Int64 { (1_772_323_200 + Int64(day - 1) * 86_400 + Int64(hour) * 3_600) * 1_000 }

    /// A signed transaction's payload: `id` of chain `chain`, bought by `user` on `day`, its period
    /// ending `expires` days later, refunded on `refundedDay` when given.
    static func transaction(
        _ id: String, chain: String, user: String, day: Int, hour: Int = 10, expires: Int = 7, refundedDay: Int? = nil
    ) -> String {
        #"{"transactionId":"\#(id)","originalTransactionId":"\#(chain)","productId":"weekly","bundleId":"com.example.app","#
            + #""purchaseDate":\#(time(day, hour)),"expiresDate":\#(time(day + expires, hour)),"price":7990,"currency":"USD","#
            + #""storefront":"USA","inAppOwnershipType":"PURCHASED","appAccountToken":"\#(user)""#
            + (refundedDay.map { #","revocationDate":\#(time($0, 12))"# } ?? "") + "}"
    }

    static func notification(_ type: String, _ id: String, day: Int, hour: Int = 11, transaction: String? = nil) -> String {
        MixedStoreSourceRunTests.notification(type: type, uuid: id, transaction: transaction, signedDate: time(day, hour))
    }

    /// A job of App Store notifications alone (`verify: false`) on `apple/*.jsonl`, users u1–u4
    /// assigned on March 1st, the server's `user_transactions` rows `chains`, and a cache.
    struct Fixture {
        let folder: TemporaryFolder
        var runs = 0

        init(chains: [(user: String, chain: String)] = [], settings: String = "bundle_id: com.example.app") throws {
            folder = try TemporaryFolder()
            var tables = TablesFixture()
            tables.assignments = (1...4).map {
                (user: "u\($0)", offering: "1", group: $0 % 2 == 0 ? "11" : "10", assignedAt: "2026-03-01T00:00:00Z")
            }
            try tables.write(to: folder.file("tables.sqlite"))
            try setUserTransactions(chains)
            try folder.write(
                "job.yaml",
                """
                tables: tables.sqlite
                logs: [{path: "apple/*.jsonl", format: app_store_notifications}]
                app_store: {\(settings), verify: false}
                as_of: 2026-03-20T00:00:00Z
                report_currency: USD
                max_bad_line_ratio: 1
                allow_empty_night: true
                output: out/
                database: out/results.sqlite
                cache: cache/

                """)
        }

        func setUserTransactions(_ chains: [(user: String, chain: String)]) throws {
            let database = try SQLiteDatabase(path: folder.file("tables.sqlite"))
            try database.execute(
                "DROP TABLE IF EXISTS user_transactions; CREATE TABLE user_transactions (user_id TEXT, original_transaction_id TEXT);")
            let insert = try database.prepare("INSERT INTO user_transactions VALUES (?, ?)")
            for row in chains { try insert.run([.text(row.user), .text(row.chain)]) }
        }

        func day(_ day: Int, _ lines: [String]) throws {
            try folder.write(String(format: "apple/day-%02d.jsonl", day), lines.joined(separator: "\n") + "\n")
        }

        /// The job as of 2026-03-`day`, writing to its own output and database.
        func job(asOf day: Int, cache: Bool, run: Int) throws -> Job { try folder.job(asOf: day, cache: cache, run: run) }

        /// What the store reading of the night as of `day` does with each file: `kept` (its batch
        /// read back) or `made` (resolved tonight); empty when the night is not kept.
        func plan(asOf day: Int) async throws -> [String] {
            let job = try job(asOf: day, cache: true, run: 0)
            let cache = try ParsedLogCache(folder: try #require(job.outputs.cachePath), rejectsPerReason: job.outputs.rejectsPerReason)
            let night = try await StoreSourceIngest.read(
                settings: StoreReadingSettings(job),
                userTransactions: try UserTransactions.load(from: TableSource(path: job.inputs.tablesPath, inflater: job.run.inflater)),
                cache: cache, keepsResolution: true)
            return ((night.kept as? KeptStoreNight)?.files ?? []).map {
                switch $0 {
                case .kept: "kept"
                case .made: "made"
                }
            }
        }

        /// Runs the night as of `day` with the cache and without; expects the same CSV files, byte
        /// for byte, and returns the cached run's report.
        @discardableResult
        mutating func night(asOf day: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> RunReport {
            runs += 1
            let cached = try await NightlyRun.run(try job(asOf: day, cache: true, run: runs))
            let fresh = try await NightlyRun.run(try job(asOf: day, cache: false, run: runs))
            let names = try FileManager.default.contentsOfDirectory(atPath: cached.outputFolder).filter { $0.hasSuffix(".csv") }.sorted()
            #expect(
                names == (try FileManager.default.contentsOfDirectory(atPath: fresh.outputFolder).filter { $0.hasSuffix(".csv") }.sorted()),
                sourceLocation: sourceLocation)
            #expect(names.contains("summary.csv"), sourceLocation: sourceLocation)
            for name in names {
                let kept = try fileBytes(cached.outputFolder + "/" + name)
                #expect(kept == (try fileBytes(fresh.outputFolder + "/" + name)), "\(name)", sourceLocation: sourceLocation)
            }
            return cached
        }
    }

    /// A later day refunds a kept purchase, extends a kept subscription, renews a kept chain,
    /// charges earlier in another (its `purchase` moves to the new file) and retries a kept
    /// expiry and test notification: the files delivering the changed transactions are made
    /// again, the untouched one is read back.
    @Test func aLaterFileChangesKeptTransactions() async throws {
        var fixture = try Fixture()
        try fixture.day(
            1,
            [
                Self.notification("SUBSCRIBED", "n1", day: 1, transaction: Self.transaction("T1", chain: "T1", user: "u1", day: 1)),
                Self.notification("SUBSCRIBED", "n2", day: 1, transaction: Self.transaction("T2", chain: "T2", user: "u2", day: 1)),
            ])
        try fixture.day(
            2,
            [
                Self.notification("SUBSCRIBED", "n3", day: 2, transaction: Self.transaction("T3", chain: "T3", user: "u3", day: 2)),
                Self.notification("TEST", "n-test", day: 2),
                Self.notification(
                    "EXPIRED", "n-expired", day: 2, hour: 12, transaction: Self.transaction("T3", chain: "T3", user: "u3", day: 2)),
            ])
        try fixture.day(
            3,
            [
                Self.notification(
                    "SUBSCRIBED", "n4", day: 3, transaction: Self.transaction("T4", chain: "T4", user: "u4", day: 3, expires: 30))
            ])
        #expect(try await fixture.plan(asOf: 4) == ["made", "made", "made"])
        try await fixture.night(asOf: 4)
        #expect(try await fixture.plan(asOf: 4) == ["kept", "kept", "kept"])

        try fixture.day(
            5,
            [
                Self.notification(
                    "REFUND", "n5", day: 5, transaction: Self.transaction("T1", chain: "T1", user: "u1", day: 1, refundedDay: 5)),
                Self.notification(
                    "DID_RENEW", "n6", day: 5, transaction: Self.transaction("T2", chain: "T2", user: "u2", day: 1, expires: 12)),
                Self.notification("DID_RENEW", "n7", day: 5, transaction: Self.transaction("T5", chain: "T3", user: "u3", day: 5)),
                Self.notification("SUBSCRIBED", "n8", day: 5, transaction: Self.transaction("T0", chain: "T4", user: "u4", day: 2)),
                Self.notification("TEST", "n9", day: 5),
                // Retries of a kept file's notifications: counted and made once.
                Self.notification("TEST", "n-test", day: 2),
                Self.notification(
                    "EXPIRED", "n-expired", day: 2, hour: 12, transaction: Self.transaction("T3", chain: "T3", user: "u3", day: 2)),
            ])
        #expect(try await fixture.plan(asOf: 6) == ["made", "kept", "made", "made"])
        try await fixture.night(asOf: 6)
        // The next night reads back what this one made, and the same night again.
        #expect(try await fixture.plan(asOf: 6) == ["kept", "kept", "kept", "kept"])
        try await fixture.night(asOf: 6)
    }

    /// A reversal said after the night's `as_of` does not count yet; the next night it does: the
    /// refunded transaction's file is made again, and a rerun of the earlier night undoes it.
    @Test func aRefundReversalCrossingAsOfRemakesItsTransaction() async throws {
        var fixture = try Fixture()
        try fixture.day(
            1,
            [
                Self.notification("SUBSCRIBED", "n1", day: 1, transaction: Self.transaction("T1", chain: "T1", user: "u1", day: 1)),
                Self.notification("SUBSCRIBED", "n2", day: 1, transaction: Self.transaction("T2", chain: "T2", user: "u2", day: 1)),
            ])
        try fixture.day(
            2,
            [
                Self.notification(
                    "REFUND", "n3", day: 2, transaction: Self.transaction("T1", chain: "T1", user: "u1", day: 1, refundedDay: 2))
            ])
        try fixture.day(
            4,
            [
                Self.notification(
                    "REFUND_REVERSED", "n4", day: 4, hour: 12, transaction: Self.transaction("T1", chain: "T1", user: "u1", day: 1))
            ])
        try await fixture.night(asOf: 4)
        #expect(try await fixture.plan(asOf: 5) == ["made", "kept", "kept"])
        try await fixture.night(asOf: 5)
        #expect(try await fixture.plan(asOf: 4) == ["kept", "kept", "kept"])
        try await fixture.night(asOf: 4)
    }

    /// Another `user_transactions` table, another store setting, a removed or changed kept file:
    /// the night is read whole, and kept anew.
    @Test func whatTheKeptNightDependsOnReadsItWhole() async throws {
        var fixture = try Fixture(chains: [("u1", "T2")])
        try fixture.day(
            1, [Self.notification("SUBSCRIBED", "n1", day: 1, transaction: Self.transaction("T1", chain: "T1", user: "u1", day: 1))])
        try fixture.day(
            2, [Self.notification("SUBSCRIBED", "n2", day: 2, transaction: Self.transaction("T2", chain: "T2", user: "u2", day: 2))])
        try fixture.day(
            3, [Self.notification("SUBSCRIBED", "n3", day: 3, transaction: Self.transaction("T3", chain: "T3", user: "u3", day: 3))])
        try await fixture.night(asOf: 5)
        #expect(try await fixture.plan(asOf: 5) == ["kept", "kept", "kept"])

        try fixture.setUserTransactions([("u4", "T2")])
        #expect(try await fixture.plan(asOf: 5) == ["made", "made", "made"])
        try await fixture.night(asOf: 5)

        try FileManager.default.removeItem(atPath: fixture.folder.file("apple/day-02.jsonl"))
        #expect(try await fixture.plan(asOf: 5) == ["made", "made"])
        try await fixture.night(asOf: 5)

        try fixture.day(
            1, [Self.notification("SUBSCRIBED", "n1", day: 1, transaction: Self.transaction("T1", chain: "T1", user: "u2", day: 1))])
        #expect(try await fixture.plan(asOf: 5) == ["made", "made"])
        try await fixture.night(asOf: 5)
        #expect(try await fixture.plan(asOf: 5) == ["kept", "kept"])

        let job = try String(contentsOfFile: fixture.folder.file("job.yaml"), encoding: .utf8)
        try fixture.folder.write("job.yaml", job.replacingOccurrences(of: "bundle_id: com.example.app", with: "bundle_id: com.other.app"))
        #expect(try await fixture.plan(asOf: 5) == ["made", "made"])
        try await fixture.night(asOf: 5)
    }

    /// A damaged file entry of a kept night is a miss: the night is read whole, the same.
    @Test func aDamagedKeptEntryReadsTheNightWhole() async throws {
        var fixture = try Fixture()
        try fixture.day(
            1, [Self.notification("SUBSCRIBED", "n1", day: 1, transaction: Self.transaction("T1", chain: "T1", user: "u1", day: 1))])
        try await fixture.night(asOf: 3)
        let folder = fixture.folder.file("cache")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            var bytes = try fileBytes(folder + "/" + name)
            guard bytes.starts(with: ParsedLogCache.keptFileMagic) else { continue }
            bytes[bytes.count - 3] ^= 0xff
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        #expect(try await fixture.plan(asOf: 3) == ["made"])
        let report = try await fixture.night(asOf: 3)
        #expect(report.cache?.entriesDiscarded == 1)
    }
}
