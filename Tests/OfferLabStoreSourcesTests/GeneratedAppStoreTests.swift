import Foundation
import OfferLabIngest
import OfferLabStatistics
import OfferLabTestSupport
import Testing

@testable import OfferLabGenerate
@testable import OfferLabStoreSources

/// `offerlab generate --format app_store_notifications` read back by the store readers: the
/// notifications verified against the data set's own test CA (the job's root certificate) and
/// resolved with its `user_transactions` table give the events the same data set holds in the
/// purchase logs (docs/input-formats.md#purchase-logs), `expires_at` included, and the counters
/// what the generator wrote. Apple sends nothing of a Google Play purchase: the Play Store's users
/// (the logs' `store` `play_store`) keep their facts in the app's logs of the App Store's form, so
/// the notifications give the events of every other user (docs/generator.md).
@Suite struct GeneratedAppStoreTests {
    static let users = 3000

    /// A generated data set, kept on disk while the suite runs (its folder is only read).
    struct Generated: @unchecked Sendable {
        let folder: TemporaryFolder
        let report: GenerationReport
    }

    static func generate(_ format: SourceFormat) async throws -> Generated {
        let folder = try TemporaryFolder()
        let report = try await DataSetGenerator.generate(
            GeneratorConfiguration(
                outputDirectory: folder.path, users: users, seed: 11, days: 12, jobs: 2,
                shape: DataSetShape(userIDs: .uuid, sourceFormat: format)))
        return Generated(folder: folder, report: report)
    }

    static let logs = Task { try await generate(.offerlab) }
    static let notifications = Task { try await generate(.appStoreNotifications) }

    /// What the run's numbers depend on in a store event (its id aside:
    /// docs/input-formats.md#store-sources-from-records-to-events gives store events ids of their
    /// own).
    struct Fact: Equatable, CustomStringConvertible {
        var user: String
        var event: EventType
        var at: Int64
        var product: String?
        var transaction: String?
        var original: String?
        /// Micro-units; for a refund nil means the whole price.
        var price: Int64?
        var currency: String?
        var isSandbox: Bool
        /// Microseconds since the epoch; nil when absent.
        var expiresAt: Int64?

        var description: String {
            let money = "\(price.map(String.init) ?? "-") \(currency ?? "")"
            return "\(event) \(user) \(at) \(product ?? "-") \(transaction ?? "-")/\(original ?? "-") \(money) \(expiresAt ?? -1)"
        }

        /// Charges, trials and refunds by (event, transaction); cancels and expires by (user,
        /// event, chain): each is one event of the data set.
        var key: String {
            switch event {
            case .cancel, .expire: "\(event) \(user) \(original ?? "")"
            default: "\(event) \(transaction ?? "")"
            }
        }
    }

    static let storeEvents: Set<EventType> = [.trialStart, .purchase, .renewal, .refund, .cancel, .expire]

    /// Reads every valid line of the log-format data set's logs
    /// (docs/input-formats.md#purchase-logs), `country` and `platform` included.
    static func scanLogs(_ folder: String, report: GenerationReport, _ read: (LogRecord) -> Void) throws {
        for file in report.files where file.path.hasPrefix("logs/") {
            var scanner = LogFileScanner(path: folder + "/" + file.path)
            scanner.keepsSliceFields = true
            _ = try scanner.scan(record: { pointer, _ in read(pointer.pointee) }, malformed: { _ in })
        }
    }

    /// The users whose transactions name the Play Store (cancels and expires name no store).
    static func playStoreUsers(_ folder: String, report: GenerationReport) throws -> Set<String> {
        var users: Set<String> = []
        try scanLogs(folder, report: report) { record in
            if record.string(record.store)?.lowercased() == "play_store" { users.insert(record.string(record.userID) ?? "") }
        }
        #expect(!users.isEmpty)
        return users
    }

    /// The log-format data set's store events (docs/input-formats.md#purchase-logs) before `as_of`
    /// of the users the App Store knows (not the Play Store's), copies removed as
    /// docs/analysis.md §2 removes them (the earliest delivery stays).
    static func logFacts(_ folder: String, report: GenerationReport, asOf: Int64) throws -> [String: Fact] {
        var facts: [String: Fact] = [:]
        let playStoreUsers = try playStoreUsers(folder, report: report)
        try scanLogs(folder, report: report) { record in
            guard let event = record.eventType, storeEvents.contains(event), record.timestamp < asOf else { return }
            let fact = Fact(
                user: record.string(record.userID) ?? "", event: event, at: record.timestamp,
                product: record.string(record.productID), transaction: record.string(record.transactionID),
                original: record.string(record.originalTransactionID), price: record.price,
                currency: record.string(record.currency), isSandbox: record.isSandbox, expiresAt: record.expiresAt)
            if let known = facts[fact.key], known.at <= fact.at { return }
            facts[fact.key] = fact
        }
        return facts.filter { !playStoreUsers.contains($0.value.user) }
    }

    /// The job's `app_store` entry: its bundle id and root certificate paths.
    static func appStoreEntry(_ folder: String) throws -> (bundleID: String, roots: [String]) {
        let job = try String(contentsOfFile: folder + "/job.yaml", encoding: .utf8)
        let bundle = try #require(job.firstMatch(of: /bundle_id: (\S+)/)?.output.1)
        let roots = try #require(job.firstMatch(of: /root_certificates: \[([^\]]*)\]/)?.output.1)
        return (String(bundle), roots.split(separator: ",").map { folder + "/" + $0.trimmingCharacters(in: .whitespaces) })
    }

    /// `tables/user_transactions.csv`: original transaction id → user id.
    static func userTransactions(_ folder: String) throws -> [String: String] {
        let text = try String(contentsOfFile: folder + "/tables/user_transactions.csv", encoding: .utf8)
        var table: [String: String] = [:]
        for row in text.split(separator: "\n").dropFirst() {
            let fields = row.split(separator: ",")
            table[String(fields[1])] = String(fields[0])
        }
        return table
    }

    /// Reads every file at once (the tasks share the cores) and merges them in path order.
    static func readNotifications(_ paths: [String], decoder: AppStoreNotificationDecoder) async throws -> StoreSourceRecords {
        let readings = try await withThrowingTaskGroup(of: (Int, AppStoreFileReading).self) { group in
            for (index, path) in paths.enumerated() {
                group.addTask { (index, try await AppStoreNotificationFile.read(path: path, decoder: decoder)) }
            }
            var readings = [AppStoreFileReading?](repeating: nil, count: paths.count)
            for try await (index, reading) in group { readings[index] = reading }
            return readings.compactMap { $0 }
        }
        return AppStoreNotificationFile.records(readings)
    }

    /// The notifications read and resolved as a run reads them.
    static func read(
        _ folder: String, report: GenerationReport, table: [String: String]? = nil
    ) async throws -> (records: StoreSourceRecords, resolution: StoreEventResolution) {
        let entry = try appStoreEntry(folder)
        let roots = try entry.roots.map { Array(try Data(contentsOf: URL(fileURLWithPath: $0))) }
        let decoder = AppStoreNotificationDecoder(
            bundleID: entry.bundleID, verifier: try AppStoreSignatureVerifier(rootCertificates: roots))
        let paths = report.files.map(\.path).filter { $0.hasPrefix("appstore/notifications/") }.map { folder + "/" + $0 }
        let records = try await readNotifications(paths, decoder: decoder)
        let asOf = try #require(Timestamp.parse(report.asOf))
        let resolution = StoreEventResolver.resolve(
            sources: [records], userTransactions: try table ?? userTransactions(folder), asOf: asOf)
        return (records, resolution)
    }

    @Test func theNotificationsResolveToTheEventsOfTheLogs() async throws {
        let logs = try await Self.logs.value
        let generated = try await Self.notifications.value
        let (folder, report) = (generated.folder, generated.report)
        let asOf = try #require(Timestamp.parse(report.asOf))
        let start = try #require(Timestamp.parse("2026-03-01T00:00:00Z"))
        let expected = try Self.logFacts(logs.folder.path, report: logs.report, asOf: asOf)
        let (_, resolution) = try await Self.read(folder.path, report: report)
        var actual: [String: Fact] = [:]
        for event in resolution.events where event.at < asOf {
            let fact = Fact(
                user: event.userID, event: event.event, at: event.at, product: event.productID,
                transaction: event.event == .cancel || event.event == .expire ? nil : event.transactionID,
                original: event.originalTransactionID, price: event.priceMicros, currency: event.currency, isSandbox: event.isSandbox,
                expiresAt: event.expiresAt)
            #expect(event.store == "app_store", "\(fact)")
            #expect(actual[fact.key] == nil, "two events \(fact)")
            actual[fact.key] = fact
        }
        // A refund without an amount takes the whole price of its charge.
        func wholePrice(_ facts: [String: Fact], _ refund: Fact) -> (Int64?, String?) {
            guard refund.price == nil else { return (refund.price, refund.currency) }
            let charge = [EventType.purchase, .renewal].lazy.compactMap { facts["\($0) \(refund.transaction ?? "")"] }.first
            return (charge?.price, charge?.currency)
        }

        #expect(Set(expected.keys).subtracting(actual.keys).sorted().prefix(5) == [])
        // The store says more only of a refund of a transaction from before the data: that earlier
        // period's charge (the refund itself may come after `as_of`).
        let refunded = Set(resolution.events.filter { $0.event == .refund }.compactMap(\.transactionID))
        let extra = Set(actual.keys).subtracting(expected.keys).compactMap { actual[$0] }
        #expect(extra.allSatisfy { $0.event == .purchase && $0.at < start && refunded.contains($0.transaction ?? "") })
        #expect(!extra.isEmpty)
        var prorated = 0
        for (key, log) in expected {
            guard let store = actual[key] else { continue }
            #expect(store.user == log.user && store.product == log.product && store.isSandbox == log.isSandbox, "\(store) ≠ \(log)")
            // Times: the store's to the millisecond, the log's as each line writes them.
            #expect(abs(store.at - log.at) < 1_000_000, "\(store) ≠ \(log)")
            // The period's end: the store's to the millisecond; cancels and expires carry none.
            #expect((store.expiresAt == nil) == (log.expiresAt == nil), "\(store) ≠ \(log)")
            if let storeEnd = store.expiresAt, let logEnd = log.expiresAt { #expect(abs(storeEnd - logEnd) < 1_000, "\(store) ≠ \(log)") }
            if log.original != nil { #expect(store.original == log.original, "\(store) ≠ \(log)") }
            let (storeMoney, storeCurrency) = wholePrice(actual, store)
            let (logMoney, logCurrency) = wholePrice(expected, log)
            #expect(storeCurrency == logCurrency, "\(store) ≠ \(log)")
            let chargePrice = [EventType.purchase, .renewal].lazy.compactMap { expected["\($0) \(log.transaction ?? "")"]?.price }.first
            if log.event == .refund, store.price != nil, let price = chargePrice, let storeMoney, let logMoney {
                // Apple says a partial refund in thousandths of a percent of the price: to the nearest one.
                #expect(abs(storeMoney - logMoney) <= price / 200_000 + 1, "\(store) ≠ \(log)")
                prorated += 1
            } else {
                #expect(storeMoney == logMoney, "\(store) ≠ \(log)")
            }
        }
        #expect(prorated > 0)
        // Not vacuous: the periods' ends were compared, and the chain past its first year is here.
        #expect(expected.values.filter { $0.expiresAt != nil }.count > 100)
        #expect(expected.values.contains { $0.event == .purchase && $0.at < start - 365 * 86_400_000_000 })
        // Every kind of event, the sandbox's too, was compared.
        #expect(Set(expected.values.map(\.event)) == Self.storeEvents)
        #expect(expected.values.contains { $0.isSandbox })
    }

    /// Not only at the set's `as_of`: every night of the period, at midnight, has the refunds of
    /// the logs' form. A reversed refund, which the logs do not hold, is reversed the same day, so
    /// no night counts it (docs/generator.md, "Refunds"; docs/input-formats.md, "Reversals").
    @Test func everyNightHasTheRefundsOfTheLogs() async throws {
        let logs = try await Self.logs.value
        let generated = try await Self.notifications.value
        let (folder, report) = (generated.folder, generated.report)
        let asOf = try #require(Timestamp.parse(report.asOf))
        let start = try #require(Timestamp.parse("2026-03-01T00:00:00Z"))
        let logRefunds = try Self.logFacts(logs.folder.path, report: logs.report, asOf: asOf).values.filter { $0.event == .refund }
        let (records, _) = try await Self.read(folder.path, report: report)
        let table = try Self.userTransactions(folder.path)
        #expect(!records.refundReversals.isEmpty)
        let day: Int64 = 86_400_000_000
        let nights = (1...(asOf - start) / day).map { start + $0 * day }
        #expect(nights.last == asOf)
        for night in nights {
            let resolution = StoreEventResolver.resolve(sources: [records], userTransactions: table, asOf: night)
            let refunds = resolution.events.filter { $0.event == .refund && $0.at < night }.compactMap(\.transactionID)
            let expected = logRefunds.filter { $0.at < night }.compactMap(\.transaction)
            #expect(refunds.count == Set(refunds).count)
            let extra = Set(refunds).subtracting(expected).sorted()
            let missing = Set(expected).subtracting(refunds).sorted()
            #expect(extra.isEmpty && missing.isEmpty, "night \(night): refunds \(extra.prefix(5)) more, \(missing.prefix(5)) fewer")
        }
    }

    @Test func theCountersAreWhatWasWritten() async throws {
        let generated = try await Self.notifications.value
        let (folder, report) = (generated.folder, generated.report)
        let (records, resolution) = try await Self.read(folder.path, report: report)
        let counts = try #require(resolution.counts[.appStoreNotifications])
        #expect(counts[.linesRead] == report.logs.storeLines)
        #expect(counts[.malformedBadSignature] == 1 && report.logs.badSignatureLines == 1)
        #expect(counts[.malformedOtherApp] == 1 && report.logs.otherAppLines == 1)
        #expect(counts.malformedLines == 2, "\(records.notes.prefix(3))")
        #expect(records.notes.map(\.counter).sorted() == [.malformedBadSignature, .malformedOtherApp])
        #expect(records.notes.allSatisfy { $0.path.contains("/2026/03/01/notifications-0") && $0.line > 0 })
        #expect(counts[.familySharedRecords] == report.logs.familySharedRecords && counts[.familySharedRecords] > 0)
        #expect(counts[.ignoredStoreRecords] == report.logs.ignoredStoreRecords && counts[.ignoredStoreRecords] > 0)
        #expect(counts[.unattributedStoreRecords] == 0 && counts[.unpricedCharges] == 0 && counts[.unknownNotificationTypes] == 0)
        // Refunds reversed: the refund does not count.
        #expect(records.refundReversals.count == report.logs.reversedRefunds && report.logs.reversedRefunds > 0)
        let refunded = Set(resolution.events.filter { $0.event == .refund }.compactMap(\.transactionID))
        #expect(records.refundReversals.allSatisfy { !refunded.contains($0.transactionID) })
        // Each transaction in several notifications; cancels and expires carry old transactions.
        #expect(report.logs.storeLines > records.transactions.count + records.statusChanges.count)
        let purchasedAt = Dictionary(records.transactions.map { ($0.transactionID, $0.at) }, uniquingKeysWith: min)
        #expect(
            records.statusChanges.contains { change in change.transactionID.flatMap { purchasedAt[$0] }.map { $0 < change.at } == true })
        #expect(records.transactions.contains { $0.refund?.amountMicros != nil } && records.transactions.contains { $0.buyer.isSandbox })
    }

    /// Apple sends nothing about a Google Play user: the family-shared purchases are App Store
    /// users', and the Play Store's users are on Android in the app's logs, every other user on an
    /// Apple platform.
    @Test func playStoreUsersAreOnAndroidAndOutOfApplesNotifications() async throws {
        let logs = try await Self.logs.value
        let playStoreUsers = try Self.playStoreUsers(logs.folder.path, report: logs.report)
        // Of the users with a transaction (which names the Play Store when it is theirs).
        var platformsByUser: [String: Set<String>] = [:]
        var transacting: Set<String> = []
        try Self.scanLogs(logs.folder.path, report: logs.report) { record in
            let user = record.string(record.userID) ?? ""
            if record.eventType?.isTransaction == true { transacting.insert(user) }
            if let platform = record.string(record.platform) { platformsByUser[user, default: []].insert(platform) }
        }
        var platforms: [Bool: Set<String>] = [:]
        for user in transacting { platforms[playStoreUsers.contains(user), default: []].formUnion(platformsByUser[user] ?? []) }
        #expect(platforms == [true: ["android"], false: ["ios", "ipados", "macos"]])

        // A family-shared purchase's transaction is the user's index over a base (not every such
        // user is found by token or table): no index is a Play Store user's.
        let generated = try await Self.notifications.value
        let (records, _) = try await Self.read(generated.folder.path, report: generated.report)
        let configuration = GeneratorConfiguration(outputDirectory: "", users: Self.users, seed: 11)
        let familyUsers = try records.transactions.filter(\.buyer.isFamilyShared).map { transaction in
            let id = try #require(UInt64(transaction.transactionID))
            var random = SplitMix64(state: 0)
            return UserProfile(
                index: Int(id - AppStoreNotificationWriter.familyTransactionBase), configuration: configuration, random: &random)
        }
        #expect(!familyUsers.isEmpty && familyUsers.allSatisfy { !$0.paysThroughPlayStore }, "\(familyUsers.map(\.index))")
    }

    /// Most users are found by `appAccountToken`, some only by the server's table, which wins.
    @Test func usersAreFoundByTokenOrByTheTable() async throws {
        let generated = try await Self.notifications.value
        let (folder, report) = (generated.folder, generated.report)
        let table = try Self.userTransactions(folder.path)
        #expect(table.count == report.logs.userTransactionRows && !table.isEmpty)
        let (_, withTable) = try await Self.read(folder.path, report: report)
        let (_, withoutTable) = try await Self.read(folder.path, report: report, table: [:])
        let unattributed = withoutTable.counts[.appStoreNotifications]?[.unattributedStoreRecords] ?? 0
        #expect(unattributed > 0)
        let byToken = withoutTable.events.count
        #expect(byToken > withTable.events.count / 2, "most events found by the token")
        // A token the table overrides names another user: the events differ in their user only.
        let users = Set(withTable.events.map(\.userID))
        #expect(withoutTable.events.contains { !users.contains($0.userID) })
    }
}
