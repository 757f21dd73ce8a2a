import Foundation
import OfferLabAnalysis
import OfferLabIngest
import OfferLabStatistics
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabResults
@testable import OfferLabSupport
@testable import OfferLabTables

/// Offering tables written to a real SQLite file: by default one offering `test` (id 1) with
/// groups `control` (id 10, weight 2) and `variant` (id 11, weight 1), and an offering `other`
/// (id 2) with groups `a` (id 20) and `b` (id 21).
struct TablesFixture {
    var assignments: [(user: String?, offering: String, group: String, assignedAt: String)] = []
    var offerings: [(id: Int, offeringID: String, name: String, isActive: Bool)] = [
        (1, "test", "Test", true), (2, "other", "Other", false),
    ]
    var groups: [(id: Int, offering: Int, name: String, weight: Double)] = [
        (10, 1, "control", 2), (11, 1, "variant", 1), (20, 2, "a", 1), (21, 2, "b", 1),
    ]
    /// What each group sells: control a weekly plan, the variant a monthly one (so `test` is a
    /// period test, docs/statistics.md "Period tests", unless a fixture says otherwise).
    var products: [(group: Int, productID: String, type: String, price: String, badge: String?)] = [
        (10, "weekly", "weekly", "7.99", nil), (11, "monthly", "monthly", "19.99", "BEST VALUE"),
    ]

    func write(to path: String) throws {
        let database = try SQLiteDatabase(path: path, create: true)
        try database.execute(
            """
            CREATE TABLE subscription_offerings (id INTEGER, offering_id TEXT, name TEXT, is_active INTEGER);
            CREATE TABLE subscription_offering_groups (id INTEGER, subscription_offering_id INTEGER, group_name TEXT, weight REAL);
            CREATE TABLE subscription_offering_group_products (offering_group_id INTEGER, product_id TEXT, type TEXT,
                fallback_display_price TEXT, position INTEGER, is_default INTEGER, badge_text TEXT, subtitle_text TEXT);
            CREATE TABLE subscription_offering_group_copy (offering_group_id INTEGER, header_title TEXT, header_subtitle TEXT,
                cta_button_text TEXT, supporting_text TEXT);
            CREATE TABLE user_offering_assignments (user_id TEXT, subscription_offering_id TEXT, offering_group_id TEXT, assigned_at TEXT);
            INSERT INTO subscription_offering_group_copy VALUES (10, 'Title', 'Sub', 'Next', 'Cancel anytime');
            """)
        let offering = try database.prepare("INSERT INTO subscription_offerings VALUES (?, ?, ?, ?)")
        for row in offerings {
            try offering.run([.integer(Int64(row.id)), .text(row.offeringID), .text(row.name), .integer(row.isActive ? 1 : 0)])
        }
        let product = try database.prepare(
            "INSERT INTO subscription_offering_group_products VALUES (?, ?, ?, ?, 0, 1, ?, NULL)")
        for row in products {
            try product.run([
                .integer(Int64(row.group)), .text(row.productID), .text(row.type), .text(row.price), row.badge.map { .text($0) } ?? .null,
            ])
        }
        let group = try database.prepare("INSERT INTO subscription_offering_groups VALUES (?, ?, ?, ?)")
        for row in groups {
            try group.run([.integer(Int64(row.id)), .integer(Int64(row.offering)), .text(row.name), .real(row.weight)])
        }
        // One transaction: a commit per row would sync the file thousands of times.
        try database.execute("BEGIN")
        let insert = try database.prepare("INSERT INTO user_offering_assignments VALUES (?, ?, ?, ?)")
        for row in assignments {
            try insert.run([row.user.map { .text($0) } ?? .null, .text(row.offering), .text(row.group), .text(row.assignedAt)])
        }
        try database.execute("COMMIT")
    }
}

/// Builds a `LogRecord` as the parsers would.
func logRecord(
    _ event: String, user: String, ts: String, id: String? = nil, transaction: String? = nil, original: String? = nil,
    product: String? = nil, price: String? = nil, currency: String? = nil, offering: String? = nil, group: String? = nil,
    sandbox: Bool = false, country: String? = nil, platform: String? = nil, expires: String? = nil, store: String? = nil,
    taxShare: Int32? = nil, commissionShare: Int32? = nil
) -> LogRecord {
    var record = LogRecord()
    func put(_ value: String?) -> Range<Int>? {
        guard let value else { return nil }
        let start = record.text.count
        record.text.append(contentsOf: value.utf8)
        return start..<record.text.count
    }
    record.userID = put(user)!
    record.eventName = put(event)!
    record.eventType = EventType.allCases.first { $0.logName == event }
    record.timestamp = try! #require(UTCTime.parseAsOf(ts))
    record.eventID = put(id)
    record.transactionID = put(transaction)
    record.originalTransactionID = put(original)
    record.productID = put(product)
    record.currency = put(currency)
    record.offeringID = put(offering)
    record.testGroupID = put(group)
    record.price = price.map { Int64((Double($0)! * 1_000_000).rounded()) }
    record.isSandbox = sandbox
    record.country = put(country)
    record.platform = put(platform)
    record.expiresAt = expires.map { try! #require(UTCTime.parseAsOf($0)) }
    record.store = put(store)
    record.taxShare = taxShare
    record.commissionShare = commissionShare
    return record
}

/// Runs the analysis on hand-made tables and events (events in one file, in the order given).
func analyse(
    _ tables: TablesFixture, _ events: [LogRecord], asOf: String = "2026-03-20", rates: [String: Double] = ["USD": 1, "EUR": 2],
    window: Double? = nil, offerings: [String] = ["test"], control: String? = nil, revenueCap: RevenueCapRule? = nil,
    maturityDays: [Int] = [], slices: [SliceField] = [], maxSliceLevels: Int = SliceField.defaultMaxLevels,
    proceeds: ProceedsSettings = ProceedsSettings()
) async throws -> NightResults {
    let folder = try TemporaryFolder()
    let path = folder.file("tables.sqlite")
    try tables.write(to: path)
    let source = try TableSource(path: path)
    let catalog = try CatalogLoader.load(from: source)
    let asOfMicros = try #require(UTCTime.parseAsOf(asOf))
    let population = try Population.load(from: source, catalog: catalog, asOf: asOfMicros)
    var batch = EventBatch(fileIndex: 0)
    batch.keptSliceFields = SliceFields(proceeds.taxRates.isEmpty || slices.contains(.country) ? slices : slices + [.country])
    for record in events {
        withUnsafePointer(to: record) { batch.add($0, asOf: asOfMicros) }
    }
    batch.resolveUsers(population.users)
    var store = EventStore()
    store.append(batch, keepRejects: 10)
    let indices = offerings.map { name in catalog.offerings.firstIndex { $0.offeringID == name }! }
    var settings = AnalysisSettings(asOf: asOfMicros, rates: rates, windowDays: window, control: control)
    (settings.revenueCap, settings.maturityDays, settings.slices) = (revenueCap, maturityDays, slices)
    (settings.maxSliceLevels, settings.proceeds) = (maxSliceLevels, proceeds)
    return try await NightlyRun.analyse(catalog: catalog, population: population, store: store, offerings: indices, settings: settings)
}

/// The sample data set (`jobs/sample.yaml`): its population, and its log files read into a store,
/// the population handed over by `population` (default: at once).
func sampleEvents(
    population makeTask: (Population) -> Task<Population, Error> = { population in Task { population } }
) async throws -> (population: Population, store: EventStore) {
    let job = try JobLoader.load(path: repositoryRoot.appendingPathComponent("jobs/sample.yaml").path)
    let source = try TableSource(path: job.inputs.tablesPath)
    let catalog = try CatalogLoader.load(from: source)
    let population = try Population.load(from: source, catalog: catalog, asOf: job.run.night.microseconds)
    let store = try await LogIngest.read(settings: IngestSettings(job), population: makeTask(population), progress: nil)
    return (population, store)
}

extension Night {
    /// The night of a date or timestamp a test writes (one `Night(parsing:)` accepts).
    init(_ text: String) { self = try! #require(Night(parsing: text)) }
}
