import Foundation
import OfferLabIngest
import OfferLabStatistics
import OfferLabTestSupport
import Testing

@testable import OfferLabGenerate
@testable import OfferLabStoreSources

/// `offerlab generate --format revenuecat_export|revenuecat_webhooks` read back by the readers:
/// every row and line is read, the quirks are there, and the two forms tell the same facts.
@Suite struct GeneratedRevenueCatTests {
    struct Generated {
        var report: GenerationReport
        /// The non-blank lines of the app's logs.
        var appLines: [String: Int]
        /// Each file's counters.
        var counts: [StoreCounts]
        var notes: [StoreLineNote] = []
        var export: [StoreTransaction] = []
        var webhooks = StoreSourceRecords(format: .revenueCatWebhooks)
    }

    static let start = Timestamp.parse("2026-03-01T00:00:00Z")!

    static func generate(_ format: SourceFormat) async throws -> Generated {
        let folder = try TemporaryFolder()
        let report = try await DataSetGenerator.generate(
            GeneratorConfiguration(
                outputDirectory: folder.path, users: 3000, seed: 11, days: 12, jobs: 1, shape: DataSetShape(sourceFormat: format)))
        let paths = report.files.map(\.path).filter { $0.hasPrefix("revenuecat/") }.sorted().map { folder.path + "/" + $0 }
        var appLines: [String: Int] = [:]
        for file in report.files where file.path.hasPrefix("logs/") {
            let input = try InputFileReader(path: folder.path + "/" + file.path)
            var splitter = LineSplitter()
            func count(_ line: Line) { appLines[String(decoding: line.bytes, as: UTF8.self), default: 0] += 1 }
            try input.forEachChunk { splitter.feed($0, count) }
            splitter.finish(count)
        }
        switch format {
        case .revenueCatExport:
            let files = try paths.map { try RevenueCatExportFile(path: $0) }
            return Generated(
                report: report, appLines: appLines, counts: files.map(\.counts), notes: files.flatMap(\.notes),
                export: RevenueCatExport.records(files).transactions)
        case .revenueCatWebhooks:
            let files = try paths.map { try RevenueCatWebhookFile(path: $0) }
            return Generated(
                report: report, appLines: appLines, counts: files.map(\.counts), notes: files.flatMap(\.notes),
                webhooks: RevenueCatWebhooks.records(files))
        default:
            return Generated(report: report, appLines: appLines, counts: [])
        }
    }

    static let logs = Task { try await generate(.offerlab) }
    static let export = Task { try await generate(.revenueCatExport) }
    static let webhooks = Task { try await generate(.revenueCatWebhooks) }

    @Test func everyRowAndLineIsRead() async throws {
        for generated in [try await Self.export.value, try await Self.webhooks.value] {
            #expect(generated.counts.count == generated.report.logs.storeFiles && !generated.counts.isEmpty)
            #expect(generated.counts.reduce(0) { $0 + $1[.linesRead] } == generated.report.logs.storeLines)
            #expect(generated.counts.allSatisfy { $0.malformedLines == 0 }, "\(generated.notes.prefix(3))")
        }
        #expect(try await Self.export.value.report.files.contains { $0.path.hasPrefix("revenuecat/export/2026-03-01/transactions_") })
    }

    /// The app's logs are those of the same data set in the logs' form, less the lines the store
    /// now sends: one for every row or webhook but the records RevenueCat adds (family-shared
    /// purchases, webhooks of other types).
    @Test(arguments: [SourceFormat.revenueCatExport, .revenueCatWebhooks])
    func theAppLogsLoseOnlyTheStoresLines(_ format: SourceFormat) async throws {
        let logs = try await Self.logs.value.appLines
        let generated = try await (format == .revenueCatExport ? Self.export : Self.webhooks).value
        var moved: [String] = []
        for (line, count) in logs {
            let left = generated.appLines[line] ?? 0
            #expect(left <= count)
            moved += Array(repeating: line, count: count - left)
        }
        #expect(generated.appLines.keys.allSatisfy { logs[$0] != nil })
        let report = generated.report.logs
        #expect(moved.count == report.storeLines - report.familySharedRecords - report.ignoredStoreRecords)
        let names = ["trial_start", "purchase", "renewal", "refund"] + (format == .revenueCatWebhooks ? ["cancel", "expire"] : [])
        #expect(moved.allSatisfy { line in names.contains { line.contains($0) } })
    }

    @Test func theExportHasTheQuirks() async throws {
        let generated = try await Self.export.value
        let records = generated.export
        #expect(records.filter(\.buyer.isFamilyShared).count == generated.report.logs.familySharedRecords)
        #expect(generated.report.logs.familySharedRecords > 0)
        // Family Sharing is the App Store's: never a Google Play user's purchase.
        #expect(records.filter(\.buyer.isFamilyShared).allSatisfy { $0.buyer.store == "app_store" })
        #expect(records.contains { $0.buyer.isSandbox })
        #expect(records.contains { $0.kind == .trial })
        // A trial's conversion (renewal 2) and a Play Store renewal's `..0` order id.
        #expect(records.contains { $0.kind == .firstCharge && $0.transactionID != $0.originalTransactionID })
        #expect(records.contains { $0.transactionID.hasPrefix("GPA.") && $0.transactionID.hasSuffix("..0") })
        #expect(records.contains { $0.kind == .laterCharge })
        // Refunds whole (nil) and partial, re-sent rows replacing the charge.
        #expect(records.contains { $0.refund != nil && $0.refund?.amountMicros == nil })
        #expect(records.contains { ($0.refund?.amountMicros ?? 0) > 0 })
        #expect(records.allSatisfy { $0.refund == nil || $0.refund!.at > $0.at })
        // The store the logs name and its share (docs/analysis.md §8): Google Play's 15 %, the App
        // Store's 30 %, and 15 % of the one renewal a year after its chain's first charge; the
        // period's end.
        let playStore = records.filter { $0.buyer.store == "play_store" }
        #expect(!playStore.isEmpty && records.allSatisfy { $0.buyer.store == "play_store" || $0.buyer.store == "app_store" })
        let longTime = try #require(records.first { $0.at < Self.start - 300 * 86_400_000_000 })
        func isSecondYear(_ record: StoreTransaction) -> Bool {
            record.originalTransactionID == longTime.originalTransactionID && record.kind == .laterCharge
        }
        #expect(records.filter(isSecondYear).count == 1)
        #expect(
            records.allSatisfy {
                $0.money.taxShare == 0 && $0.money.commissionShare == ($0.buyer.store == "play_store" || isSecondYear($0) ? 0.15 : 0.3)
            })
        #expect(records.allSatisfy { ($0.expiresAt ?? 0) > $0.at })
        // Rows sent more than once: duplicates and refunds.
        #expect(generated.report.logs.storeLines > records.count)
    }

    /// A charge whose log line arrives hours late, refunded before it arrives: the refund's row is
    /// the one read (its `updated_at` later than the charge row's), as the logs have the refund.
    @Test func aRefundBeforeItsChargeIsReceivedIsKept() throws {
        let folder = try TemporaryFolder()
        let configuration = GeneratorConfiguration(
            outputDirectory: folder.path, users: 1, seed: 1, days: 2, jobs: 1, shape: DataSetShape(sourceFormat: .revenueCatExport))
        let path = RevenueCatWriter.relativePath(day: 0, shard: 0, configuration: configuration)
        try FileManager.default.createDirectory(
            atPath: folder.path + "/" + path[..<path.lastIndex(of: "/")!], withIntermediateDirectories: true)
        var random = SplitMix64(state: 0)
        let user = UserProfile(index: 0, configuration: configuration, random: &random)
        let transaction = UserSimulator.transactionBase + 1
        let hour = Micros.hour
        var purchase = SimEvent(time: configuration.startMicros + hour, sequence: 0, kind: .purchase)
        purchase.product = Int8(Catalog.monthly1999)
        (purchase.transaction, purchase.original, purchase.amount) = (transaction, transaction, 1999)
        purchase.receiveDelay = 9 * hour
        var refund = SimEvent(time: configuration.startMicros + 4 * hour, sequence: 1, kind: .refund)
        refund.product = purchase.product
        (refund.transaction, refund.original, refund.amount) = (transaction, transaction, 1000)
        refund.receiveDelay = 1000
        var writer = RevenueCatWriter(configuration: configuration, shard: 0)
        writer.startUser()
        try writer.write(purchase, user: user, day: 0)
        try writer.write(refund, user: user, day: 0)
        var counts = LogCounts()
        try writer.finish(into: &counts)

        let file = try RevenueCatExportFile(path: folder.path + "/" + path)
        #expect(file.counts[.linesRead] == 2)
        let records = RevenueCatExport.records([file]).transactions
        #expect(records.count == 1)
        #expect(records.first?.refund == StoreTransaction.Refund(at: refund.time, amountMicros: 10_000_000))
    }

    @Test func theWebhooksHaveTheQuirks() async throws {
        let generated = try await Self.webhooks.value
        let records = generated.webhooks
        let ignored = records.counts[.ignoredStoreRecords]
        #expect(ignored == generated.report.logs.ignoredStoreRecords && ignored > 0)
        #expect(records.transactions.filter(\.buyer.isFamilyShared).count == generated.report.logs.familySharedRecords)
        #expect(records.statusChanges.contains { $0.event == .cancel } && records.statusChanges.contains { $0.event == .expire })
        #expect(!records.refunds.isEmpty && records.refunds.allSatisfy { ($0.amountMicros ?? 0) >= 0 })
        // Retried webhooks (the same id) are one record.
        let charges = records.transactions.count + records.refunds.count + records.statusChanges.count + ignored
        #expect(generated.report.logs.storeLines > charges)
    }

    /// The export and the webhooks of one data set name the same charges and refunds: the same
    /// transactions, kinds, times, prices and amounts refunded.
    @Test func bothFormsTellTheSameFacts() async throws {
        struct Fact: Hashable {
            var transactionID: String
            var kind: StoreTransaction.Kind
            var at: Int64
            var price: Int64?
            var currency: String?
            var userID: String?
            var isSandbox: Bool
            var isFamilyShared: Bool
            var store: String?
            var expiresAt: Int64?
            var commissionShare: Double?
        }
        func fact(_ record: StoreTransaction) -> Fact {
            Fact(
                transactionID: record.transactionID, kind: record.kind, at: record.at, price: record.money.priceMicros,
                currency: record.money.currency,
                userID: record.buyer.userID, isSandbox: record.buyer.isSandbox, isFamilyShared: record.buyer.isFamilyShared,
                store: record.buyer.store?.lowercased(), expiresAt: record.expiresAt, commissionShare: record.money.commissionShare)
        }
        let export = try await Self.export.value.export
        let webhooks = try await Self.webhooks.value.webhooks
        // A refund of a transaction from before the data re-sends that old charge in the export only
        // (the subscriber past the first year's charge before the data is in both: no refund).
        let exportCharges = export.filter { $0.at >= Self.start || $0.refund == nil }
        #expect(exportCharges.contains { $0.at < Self.start })
        #expect(Set(exportCharges.map(fact)) == Set(webhooks.transactions.map(fact)))
        #expect(exportCharges.count == webhooks.transactions.count)

        let prices = Dictionary(export.map { ($0.transactionID, $0.money.priceMicros) }, uniquingKeysWith: { a, _ in a })
        let exportRefunds = export.compactMap { record in
            record.refund.map { "\(record.transactionID) \($0.at) \($0.amountMicros ?? record.money.priceMicros ?? 0)" }
        }
        let webhookRefunds = webhooks.refunds.map {
            "\($0.transactionID) \($0.at) \($0.amountMicros ?? (prices[$0.transactionID] ?? 0) ?? 0)"
        }
        #expect(Set(exportRefunds) == Set(webhookRefunds))
        #expect(!exportRefunds.isEmpty)
    }
}
