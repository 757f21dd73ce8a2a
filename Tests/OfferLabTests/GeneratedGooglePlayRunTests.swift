import Foundation
import OfferLabGenerate
import OfferLabIngest
import OfferLabResults
import OfferLabStoreSources
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabWriters

/// `run` on a data set whose Google Play purchases come as Play tells an app's server
/// (`offerlab generate --format google_play`: Real-time developer notifications with the state
/// fetched, and the Orders API's Orders) gives the numbers of `run` on the same data set in the
/// purchase-log format (docs/input-formats.md#purchase-logs), every one of them exactly: the
/// Orders' developer revenue is the logs' 85 % of each price and their partial refunds the logs'
/// amounts. Google sends nothing of an App Store purchase, so Apple's users (four in five) keep
/// their facts in the app's logs. And so does a run on what `offerlab events` wrote of the two
/// feeds.
@Suite struct GeneratedGooglePlayRunTests {
    typealias Night = GeneratedStoreSourceRunTests.Night

    @Test func theNotificationsAndOrdersGiveTheNumbersOfTheLogs() async throws {
        let logs = try await GeneratedStoreSourceRunTests.logs.value
        let store = try await GeneratedStoreSourceRunTests.night(.googlePlay)
        #expect(store.job.inputs.storeSources.map(\.format) == [.googlePlay, .googlePlayOrders])

        // Every number but which share of the proceeds is exact: the Orders state Play's
        // developer revenue, the log lines of the same charges do not (docs/analysis.md §8).
        for name in ["summary", "comparisons", "srm", "products", "daily", "maturity"] {
            #expect(store.rows(name, leavingOut: "exact_proceeds_share") == logs.rows(name, leavingOut: "exact_proceeds_share"), "\(name)")
            #expect(
                store.eventsRows(name, leavingOut: "exact_proceeds_share") == logs.rows(name, leavingOut: "exact_proceeds_share"),
                "\(name) differs through offerlab events")
        }
        // Apple's users pay in every group, so the exact share of a group with Play payers lies
        // strictly between 0 and 1, the same through offerlab events; the logs' form states none.
        let summary = try #require(store.tables["summary"])
        let share = try #require(summary.columnNames.firstIndex(of: "exact_proceeds_share"))
        let shares = summary.rows.compactMap { row -> Double? in if case .real(let value?) = row[share] { value } else { nil } }
        #expect(!shares.isEmpty && shares.allSatisfy { $0 > 0 && $0 < 1 }, "\(shares)")
        #expect(store.eventsTables["summary"]?.rows.map { $0[share] } == summary.rows.map { $0[share] })
        #expect(logs.tables["summary"]?.rows.allSatisfy { $0[share] == .real(0) || $0[share] == .real(nil) } == true)
        #expect(store.feedsTheStoreColumns())

        // Counters: those the forms share are equal; the other app's notification is a malformed
        // line of its own, and the license testers' purchases are sandbox events of their own.
        let own: Set<String> = ["malformed_lines", "sandbox_events"]
        let agreeing = { (night: Night) in
            night.tables["quality"]?.rows.filter { !GeneratedStoreSourceRunTests.formCounters.union(own).contains(cellText($0[1])) }
        }
        #expect(agreeing(store) == agreeing(logs))
        #expect(store.global("malformed_lines") == logs.global("malformed_lines").map { $0 + 1 })
        #expect(store.global("malformed_other_app") == 1)
        #expect(store.global("sandbox_events") == logs.global("sandbox_events").map { $0 + store.report.logs.testPurchases })

        // Every line of the two feeds is read, and what carries no purchase fact is counted: the
        // grace periods, the account holds, the Play Console's test notification.
        let lines = (store.source(.googlePlay, "lines_read") ?? 0) + (store.source(.googlePlayOrders, "lines_read") ?? 0)
        #expect(lines == store.report.logs.storeLines)
        #expect(store.global("ignored_store_records") == store.report.logs.ignoredStoreRecords)
        #expect(store.report.logs.ignoredStoreRecords == store.report.logs.gracePeriods + store.report.logs.accountHolds + 1)
        // Every charge has its Order and every refund its amount; every record its user (the
        // table's tokens included).
        #expect(store.global("unattributed_store_records") == 0)
        #expect(store.global("unpriced_charges") == 0 && store.global("unpriced_refunds") == 0)

        // Not vacuous: the quirks are there, and the Play Store's users buy, renew and are refunded.
        let written = store.report.logs
        #expect(written.gracePeriods > 0 && written.accountHolds > 0 && written.testPurchases > 0)
        #expect(written.delayedOrders > 0 && written.userTransactionRows > 0 && written.storeLines > 50)
        let products = store.tables["products"]?.rows ?? []
        #expect(products.contains { $0[4] != .integer(0) } && products.contains { $0[5] != .integer(0) })
    }

    /// The plan changes of the set above (docs/generator.md#google-play---format-google_play): a
    /// chain goes on, at a renewal, on a new purchase token whose state names the one before as
    /// `linkedPurchaseToken`, and whose first order (an id of its own, without `..N`) has its Order.
    /// That the run above counts it as a renewal of its chain (read as a chain of its own, it
    /// would be a purchase) at the logs' time and price is its purchases and renewals equal to the
    /// logs' form's. The set's 14 days hold one renewal after a paid charge on Google Play;
    /// the sample (28 days, 70 000 users) holds plan changes too.
    @Test func aChainGoesOnOnANewPurchaseTokenAtARenewal() async throws {
        let folder = try TemporaryFolder()
        // Fourteen days: since users buy within two days of their first view, the ten days of the
        // other tests' set hold no renewal that changes plan.
        var configuration = GeneratedStoreSourceRunTests.configuration(.googlePlay, outputDirectory: folder.path)
        configuration.days = 14
        let report = try await DataSetGenerator.generate(configuration)
        let sources = try JobLoader.load(path: report.jobFile).inputs.storeSources
        var linkedTokens: Set<String> = []
        var firstOrders: Set<String> = []
        for path in sources.filter({ $0.format == .googlePlay }).flatMap(\.files) {
            for line in try Self.jsonLines(path) {
                guard let state = line["subscription"] as? [String: Any], let linked = state["linkedPurchaseToken"] as? String else {
                    continue
                }
                linkedTokens.insert(linked)
                for case let order? in (state["lineItems"] as? [[String: Any]] ?? []).map({ $0["latestSuccessfulOrderId"] as? String })
                where !order.contains("..") {
                    firstOrders.insert(order)
                }
            }
        }
        var listed: Set<String> = []
        for path in sources.filter({ $0.format == .googlePlayOrders }).flatMap(\.files) {
            listed.formUnion(try Self.jsonLines(path).compactMap { $0["orderId"] as? String })
        }
        #expect(!linkedTokens.isEmpty && firstOrders.count == linkedTokens.count, "\(linkedTokens) \(firstOrders)")
        #expect(firstOrders.isSubset(of: listed))
    }

    /// An Android app (`--play-users all`): every user pays through Google Play, the quirk users
    /// the App Store holds in the default shape too, and the Play form still gives every number of
    /// its logs' form. Its QA account (the logs' sandbox user) buys as a license tester
    /// (`testPurchase`); before it did, its purchases counted as real ones in the Play form.
    @Test func anAndroidAppGivesTheNumbersOfItsLogs() async throws {
        let logsFolder = try TemporaryFolder()
        let storeFolder = try TemporaryFolder()
        func night(_ format: SourceFormat, in folder: TemporaryFolder) async throws -> Night {
            let report = try await DataSetGenerator.generate(
                GeneratorConfiguration(
                    outputDirectory: folder.path, users: 3000, seed: 3, days: 10, jobs: 2,
                    shape: DataSetShape(playUsers: .all, sourceFormat: format)))
            let job = try JobLoader.load(path: report.jobFile)
            return Night(report: report, job: job, tables: try await GeneratedStoreSourceRunTests.tables(job))
        }
        async let logsNight = night(.offerlab, in: logsFolder)
        async let storeNight = night(.googlePlay, in: storeFolder)
        let (logs, store) = try await (logsNight, storeNight)
        for name in ["summary", "comparisons", "srm", "products", "daily", "maturity"] {
            #expect(store.rows(name, leavingOut: "exact_proceeds_share") == logs.rows(name, leavingOut: "exact_proceeds_share"), "\(name)")
        }
        #expect(store.global("sandbox_events") == logs.global("sandbox_events").map { $0 + store.report.logs.testPurchases })
        // Not vacuous: the logs' form names Google Play on every transaction line of its JSON
        // logs, the Play form's logs hold no such line (every store fact is Play's), and the QA
        // account's events are there.
        func transactionLines(_ night: Night) throws -> [[String: Any]] {
            // The showcase's lines are malformed ones on purpose.
            try night.job.inputs.logFiles.filter { $0.hasSuffix(".jsonl.gz") && !$0.contains("/showcase/") }.flatMap { path in
                try Self.jsonLines(path, skippingMalformed: true).filter {
                    ["purchase", "renewal", "trial_start"].contains($0["event"] as? String)
                }
            }
        }
        let logStores = Set(try transactionLines(logs).map { $0["store"] as? String ?? "none" })
        #expect(logStores == ["play_store"], "\(logStores)")
        #expect(try transactionLines(store).isEmpty)
        #expect(logs.global("sandbox_events").map { $0 > 0 } == true)
    }

    /// A notification delivered again keeps its `messageId`, and only then: the reader takes a
    /// second line with an id it has read as a re-delivery. In this set (400 users, seed 2) the
    /// long-time subscriber (a chain whose first charge was 380 days before the test, renewed in
    /// it) pays through Google Play; its two charges once shared their id, and the renewal was
    /// read as the purchase delivered again: the night lost it.
    @Test func aMessageIdNamesOneNotification() async throws {
        let folder = try TemporaryFolder()
        let report = try await DataSetGenerator.generate(
            GeneratorConfiguration(
                outputDirectory: folder.path, users: 400, seed: 2, days: 5, jobs: 1, shape: DataSetShape(sourceFormat: .googlePlay)))
        let job = try JobLoader.load(path: report.jobFile)
        var bodies: [String: Set<String>] = [:]
        for path in job.inputs.storeSources.filter({ $0.format == .googlePlay }).flatMap(\.files) {
            for line in try Self.jsonLines(path) {
                guard let message = (line["notification"] as? [String: Any])?["message"] as? [String: Any],
                    let id = message["messageId"] as? String, let data = message["data"] as? String
                else { continue }
                bodies[id, default: []].insert(data)
            }
        }
        #expect(bodies.filter { $0.value.count > 1 }.isEmpty, "\(bodies.filter { $0.value.count > 1 })")

        let events = folder.file("events")
        _ = try await StoreEventExport.run(job: job, folder: events)
        var transactions: Set<String> = []
        for path in try FileManager.default.subpathsOfDirectory(atPath: events) where path.hasSuffix(".jsonl.gz") {
            transactions.formUnion(try Self.jsonLines(events + "/" + path).compactMap { $0["transaction_id"] as? String })
        }
        #expect(transactions.isSuperset(of: ["GPA.0195-0000-0000-00001", "GPA.0195-0000-0000-00001..0"]))
    }

    /// The JSON objects of a generated `.jsonl.gz` file's lines (blank lines left out); with
    /// `skippingMalformed`, the lines that are no JSON object left out too (the app's logs hold
    /// some on purpose), else such a line fails the test.
    private static func jsonLines(_ path: String, skippingMalformed: Bool = false) throws -> [[String: Any]] {
        let reader = try InputFileReader(path: path)
        var bytes: [UInt8] = []
        try reader.forEachChunk { bytes.append(contentsOf: $0) }
        return try bytes.split(separator: 10).filter { $0.contains { $0 != 13 } }.compactMap { line in
            let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
            return skippingMalformed ? object : try #require(object)
        }
    }
}
