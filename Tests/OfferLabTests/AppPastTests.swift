import Foundation
import OfferLabAnalysis
import OfferLabIngest
import OfferLabJob
import OfferLabStatistics
import OfferLabTables
import OfferLabTestSupport
import Testing

@testable import OfferLabEvents
@testable import OfferLabProjection

/// The app's past (docs/statistics.md#the-apps-past) read from its files (`PastFile`) and read
/// from their chains (`PastChains`, what the parsed-log cache keeps for a later night) counts the
/// same chains, whichever files and logs hold their charges.
@Suite struct AppPastTests {
    static let asOf = "2026-04-01"

    /// m0 … m4 are members of `test`; u0 is assigned to `other` only; every h… is unknown.
    static let tables = TablesFixture(
        assignments: (0..<5).map { ("m\($0)", "1", "11", "2026-01-01 00:00:00") } + [("u0", "2", "20", "2026-01-01 00:00:00")])

    /// A charge or refund of `user` at `ts`.
    static func money(
        _ user: String, _ ts: String, event: String = "renewal", original: String?, transaction: String, product: String = "monthly"
    ) -> LogRecord {
        logRecord(
            event, user: user, ts: ts, transaction: transaction, original: original, product: product, price: "19.99", currency: "USD")
    }

    /// Each product's past, for no members and for `test`'s, read from `files` and from their
    /// chains (nil when the logs overlap them), with `logs` as the night's logs.
    static func pasts(logs: [LogRecord], files: [[LogRecord]]) throws -> (files: [[ProductPast]], chains: [[ProductPast]]?) {
        let folder = try TemporaryFolder()
        try tables.write(to: folder.file("tables.sqlite"))
        let source = try TableSource(path: folder.file("tables.sqlite"))
        let catalog = try CatalogLoader.load(from: source)
        let asOf = try #require(UTCTime.parseAsOf(Self.asOf))
        let population = try Population.load(from: source, catalog: catalog, asOf: asOf)
        var batch = EventBatch(fileIndex: 0)
        for record in logs { withUnsafePointer(to: record) { batch.add($0, asOf: asOf) } }
        batch.resolveUsers(population.users)
        var store = EventStore()
        store.append(batch, keepRejects: 10)
        let pastFiles = files.enumerated().map { index, records in
            var batch = EventBatch(fileIndex: index)
            for record in records { withUnsafePointer(to: record) { batch.add($0, asOf: asOf) } }
            return PastFile([batch], keepRejects: 10)
        }
        let test = try #require(catalog.offerings.firstIndex { $0.offeringID == "test" })
        let memberLists = [[], population.members[test]]
        let fromFiles = AppPast(logs: store, past: pastFiles, users: population.users, offeringCatalog: catalog, asOf: asOf, rates: [:])
        let fromChains = AppPast(
            logs: store, chains: PastChains(pastFiles), users: population.users, offeringCatalog: catalog, asOf: asOf, rates: [:])
        // The track record's cohorts too: their buyers, what they paid, the past at each cut and
        // each member's events the cut reads (the members in any order).
        func cohorts(_ past: AppPast) -> [String] {
            past.backtest.ready.map { cohort in
                let events = cohort.members.runs.flatMap { run in
                    zip([0] + run.eventEnds, run.eventEnds).map { start, end in
                        run.events[start..<end].map { "\($0.time) \($0.kind) \($0.amount)" }.joined(separator: ", ")
                    }
                }.sorted()
                return "\(cohort.productID) \(cohort.monthText) \(cohort.readDay) \(cohort.buyers) \(cohort.horizonDays) "
                    + "\(cohort.realizedRevenue) \(cohort.past) \(events)"
            }
        }
        if let fromChains { #expect(cohorts(fromChains) == cohorts(fromFiles)) }
        return (memberLists.map { fromFiles.past(ofMembers: $0) }, fromChains.map { past in memberLists.map { past.past(ofMembers: $0) } })
    }

    /// One chain across three files; a charge in two files (the same transaction: once; another
    /// transaction at the same time: twice); a chain without `original_transaction_id` of a member
    /// and of a user the table does not hold (left out); a refund alone in the past whose chain the
    /// logs begin after it; a chain the logs carry on after its last charge there, and refund; a
    /// chain the logs only refund.
    @Test func theChainsCountWhatTheFilesCount() throws {
        let files = [
            [
                Self.money("h1", "2026-01-05T10:00:00Z", event: "purchase", original: "o1", transaction: "o1-0"),
                Self.money("h2", "2026-01-06T10:00:00Z", event: "purchase", original: nil, transaction: "h2-0"),
                Self.money("m0", "2026-01-06T10:00:00Z", event: "purchase", original: nil, transaction: "m0-0"),
                Self.money("h3", "2026-01-10T10:00:00Z", event: "purchase", original: "o3", transaction: "o3-0"),
                Self.money("h4", "2026-01-10T10:00:00Z", event: "purchase", original: "o4", transaction: "o4-0"),
                Self.money("h5", "2026-01-12T10:00:00Z", event: "refund", original: "o5", transaction: "o5-0"),
                Self.money("h6", "2026-01-15T10:00:00Z", event: "purchase", original: "o6", transaction: "o6-0"),
                Self.money("h7", "2026-01-15T10:00:00Z", event: "purchase", original: "o7", transaction: "o7-0", product: "weekly"),
            ],
            [
                Self.money("h1", "2026-02-05T10:00:00Z", original: "o1", transaction: "o1-1"),
                Self.money("h2", "2026-02-06T10:00:00Z", original: nil, transaction: "h2-1"),
                Self.money("h3", "2026-01-10T10:00:00Z", event: "purchase", original: "o3", transaction: "o3-0"),
                Self.money("h4", "2026-01-10T10:00:00Z", event: "purchase", original: "o4", transaction: "o4-x"),
                Self.money("h6", "2026-02-15T10:00:00Z", original: "o6", transaction: "o6-1"),
                Self.money("h7", "2026-01-22T10:00:00Z", original: "o7", transaction: "o7-1", product: "weekly"),
            ],
            [
                Self.money("h1", "2026-03-05T10:00:00Z", original: "o1", transaction: "o1-2"),
                Self.money("h3", "2026-02-10T10:00:00Z", original: "o3", transaction: "o3-1"),
            ],
        ]
        let logs = [
            Self.money("h5", "2026-03-01T10:00:00Z", event: "purchase", original: "o5", transaction: "o5-1"),
            Self.money("h6", "2026-03-15T10:00:00Z", original: "o6", transaction: "o6-2"),
            Self.money("h6", "2026-03-16T10:00:00Z", event: "refund", original: "o6", transaction: "o6-2"),
            // A refund alone of a chain of the past (no charge of it in the logs).
            Self.money("h3", "2026-03-20T10:00:00Z", event: "refund", original: "o3", transaction: "o3-1"),
        ]
        let pasts = try Self.pasts(logs: logs, files: files)
        #expect(pasts.chains == pasts.files)
        // Monthly: o1, m0's, o3, o4, o5, o6 (h2's cannot be told); weekly: o7. Without m0 for `test`.
        #expect(pasts.files.map { $0.reduce(0) { $0 + $1.chains } } == [7, 6])
    }

    /// Logs that repeat a charge of the past, or refund one at its time, overlap the chains:
    /// only the files tell how, and the chains say so.
    @Test func logsThatOverlapThePastAreLeftToTheFiles() throws {
        let files = [[Self.money("h1", "2026-01-05T10:00:00Z", event: "purchase", original: "o1", transaction: "o1-0")]]
        for logs in [
            [Self.money("h1", "2026-01-05T10:00:00Z", event: "purchase", original: "o1", transaction: "o1-0")],
            [Self.money("h1", "2026-01-05T10:00:00Z", event: "refund", original: "o1", transaction: "o1-0")],
        ] {
            let pasts = try Self.pasts(logs: logs, files: files)
            #expect(pasts.chains == nil)
            #expect(pasts.files[0].reduce(0) { $0 + $1.chains } == 1)
        }
        let later = try Self.pasts(
            logs: [Self.money("h1", "2026-01-05T10:00:01Z", event: "refund", original: "o1", transaction: "o1-0")], files: files)
        #expect(later.chains == later.files)
    }

    /// A cancel after a chain's charge turns its renewal off in the past as in the members' chains
    /// (contract §2.14, "What a member's state says"): one that lapsed, one turned back on in time,
    /// one before the chain's first charge (nothing), one in the logs after the past's last charge.
    @Test func aCancelTurnsAPastChainsRenewalOff() throws {
        func cancel(_ user: String, _ ts: String, original: String) -> LogRecord {
            logRecord("cancel", user: user, ts: ts, original: original, product: "monthly")
        }
        let files = [
            [
                Self.money("h1", "2026-01-05T10:00:00Z", event: "purchase", original: "o1", transaction: "o1-0"),
                cancel("h1", "2026-01-20T10:00:00Z", original: "o1"),
                Self.money("h2", "2026-01-05T10:00:00Z", event: "purchase", original: "o2", transaction: "o2-0"),
                cancel("h2", "2026-01-10T10:00:00Z", original: "o2"),
                cancel("h3", "2026-01-03T10:00:00Z", original: "o3"),
                Self.money("h3", "2026-01-05T10:00:00Z", event: "purchase", original: "o3", transaction: "o3-0"),
            ],
            [
                Self.money("h2", "2026-02-05T10:00:00Z", original: "o2", transaction: "o2-1"),
                Self.money("h4", "2026-03-01T10:00:00Z", event: "purchase", original: "o4", transaction: "o4-0"),
            ],
        ]
        // o4's cancel in the logs comes with no charge of its chain there (the track record's
        // cohorts once left it out of the chains kept for a later night).
        let logs = [cancel("h4", "2026-03-10T10:00:00Z", original: "o4")]
        let pasts = try Self.pasts(logs: logs, files: files)
        #expect(pasts.chains == pasts.files)
        let monthly = pasts.files[0].first { $0.chains > 0 }
        // Due turned off at renewal 1: o1 (lapsed), o2 (renewed), o4 (lapsed on 31 March); o3's
        // cancel came before its charge and its renewal 1 was due on.
        #expect(monthly?.turnedOffRenewals.atRisk == [0, 3] && monthly?.turnedOffRenewals.renewed == [0, 1])
        #expect(monthly?.renewals.atRisk == [0, 4, 1] && monthly?.renewals.renewed == [0, 1, 0])
    }

    /// Random pasts over three files, with ties in time and repeated ids, and logs after them.
    @Test func theChainsCountWhatTheFilesCountOnRandomPasts() throws {
        var generator = SplitMix64(seed: 58, stream: 1)
        let start = try #require(UTCTime.parseAsOf("2026-01-01"))
        func money(day: Int) -> LogRecord {
            let user = Int.random(in: 0..<12, using: &generator)
            let time = start + Int64(day) * 86_400_000_000 + Int64(Int.random(in: 0..<2, using: &generator)) * 43_200_000_000
            let original = Int.random(in: 0..<5, using: &generator) == 0 ? nil : "o\(Int.random(in: 0..<25, using: &generator))"
            return Self.money(
                user < 3 ? "m\(user)" : "h\(user)", Timestamp.format(time),
                event: ["purchase", "renewal", "renewal", "refund", "cancel"][Int.random(in: 0..<5, using: &generator)], original: original,
                transaction: "t\(Int.random(in: 0..<6, using: &generator))", product: Bool.random(using: &generator) ? "monthly" : "weekly")
        }
        var counted = 0
        for _ in 0..<40 {
            let files = (0..<3).map { _ in (0..<40).map { _ in money(day: Int.random(in: 0..<20, using: &generator)) } }
            let logs = (0..<30).map { _ in money(day: Int.random(in: 20..<30, using: &generator)) }
            let pasts = try Self.pasts(logs: logs, files: files)
            #expect(pasts.chains == pasts.files)
            counted += pasts.files[0].reduce(0) { $0 + $1.chains }
        }
        #expect(counted > 400)
    }
}
