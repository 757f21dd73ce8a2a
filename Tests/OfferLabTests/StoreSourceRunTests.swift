import Foundation
import OfferLabGenerate
import OfferLabIngest
import OfferLabResults
import OfferLabStoreSources
import OfferLabSupport
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabReport
@testable import OfferLabWriters

/// `run` on a data set whose store facts come as RevenueCat sends them (`offerlab generate
/// --format revenuecat_export|revenuecat_webhooks`) gives exactly the numbers of `run` on the same
/// data set in the purchase-log format (docs/input-formats.md#purchase-logs;
/// docs/input-formats.md#store-sources-in-a-job: every rule after the reading of the logs is
/// unchanged), proceeds, trial states and subscribers included: the store's rows carry its `store`,
/// the period's end and the commission docs/analysis.md §8 gives the logs' event (Google Play's,
/// the App Store's second year).
@Suite struct GeneratedStoreSourceRunTests {
    struct Night {
        var report: GenerationReport
        var job: Job
        /// The output tables, by name.
        var tables: [String: ResultTable]
        /// With a store source: the output tables of the job's purchase logs
        /// (docs/input-formats.md#purchase-logs) beside what `offerlab events` wrote of its store
        /// sources, by name.
        var eventsTables: [String: ResultTable] = [:]

        /// The global `quality.csv` counter `name`; nil when the file has no such row.
        func global(_ name: String) -> Int? { counter(name, offering: "") }

        func counter(_ name: String, offering: String) -> Int? {
            tables["quality"]?.rows.first { $0[0] == .text(offering) && $0[1] == .text(name) }.flatMap {
                if case .integer(let count) = $0[2] { count } else { nil }
            }
        }

        /// The `sources.csv` row (`source`, `counter`).
        func source(_ source: SourceFormat, _ counter: String) -> Int? {
            tables["sources"]?.rows.first { $0[0] == .text(source.rawValue) && $0[1] == .text(counter) }.flatMap {
                if case .integer(let count) = $0[2] { count } else { nil }
            }
        }
    }

    /// The data set of the nights: the same in every form but where its store's users' facts are.
    static func configuration(_ format: SourceFormat, outputDirectory: String) -> GeneratorConfiguration {
        GeneratorConfiguration(
            outputDirectory: outputDirectory, users: 2000, seed: 5, days: 10, jobs: 1, shape: DataSetShape(sourceFormat: format))
    }

    static func night(_ format: SourceFormat) async throws -> Night {
        let folder = try TemporaryFolder()
        let report = try await DataSetGenerator.generate(configuration(format, outputDirectory: folder.path))
        let job = try JobLoader.load(path: report.jobFile)
        var night = Night(report: report, job: job, tables: try await tables(job))
        guard !job.inputs.storeSources.isEmpty else { return night }
        let events = folder.file("events")
        _ = try await StoreEventExport.run(job: job, folder: events)
        var eventsJob = job
        eventsJob.inputs.storeSources = []
        let written = try FileManager.default.subpathsOfDirectory(atPath: events).filter { $0.hasSuffix(".jsonl.gz") }
        eventsJob.inputs.logFiles = (job.inputs.logFiles + written.map { events + "/" + $0 }).sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
        night.eventsTables = try await tables(eventsJob)
        return night
    }

    static func tables(_ job: Job) async throws -> [String: ResultTable] {
        let results = try await NightlyRun.compute(job, progress: nil)
        let tables = ResultTables.make(
            results, statistics: try await NightlyRun.statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run)),
            settings: ResultTableSettings(job)
        ).files
        return Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0) })
    }

    static let logs = Task { try await night(.offerlab) }

    /// Counters that differ by the form of the facts, for reasons of the form (docs/generator.md,
    /// "Store forms"): the lines and files read, copies removed by event id (a store's
    /// re-deliveries are not duplicates), the logged offering and group the store's events do not
    /// carry, the old charge the export re-sends with a refund, and the store's own counters.
    static let formCounters: Set<String> = [
        "files_read", "lines_read", "duplicate_events", "attribution_mismatches", "attribution_mismatch_users", "pre_assignment_events",
        "malformed_bad_signature", "malformed_other_app", "ignored_store_records", "unpriced_charges", "unattributed_store_records",
        "family_shared_records", "unknown_notification_types", "unpriced_refunds",
    ]

    @Test(arguments: [SourceFormat.revenueCatExport, .revenueCatWebhooks])
    func aStoreFormGivesTheNumbersOfTheLogs(format: SourceFormat) async throws {
        let logs = try await Self.logs.value
        let store = try await Self.night(format)
        let source = try #require(SourceFormat(rawValue: format.rawValue))
        #expect(store.job.inputs.storeSources.map(\.format) == [source])

        // And so does a run on what `offerlab events` wrote of the store's files, but for the
        // share of exact proceeds: RevenueCat states each charge's fees (the same shares the
        // rules give), the log lines of the same charges do not (docs/analysis.md §8).
        for name in ["summary", "comparisons", "srm", "products", "daily", "maturity"] {
            #expect(store.rows(name, leavingOut: "exact_proceeds_share") == logs.rows(name, leavingOut: "exact_proceeds_share"), "\(name)")
            #expect(
                store.eventsRows(name, leavingOut: "exact_proceeds_share") == logs.rows(name, leavingOut: "exact_proceeds_share"),
                "\(name) differs through offerlab events")
        }
        for (night, share) in [(store.tables, 1.0), (store.eventsTables, 1), (logs.tables, 0)] {
            let summary = try #require(night["summary"])
            let (column, proceeds) = (
                try #require(summary.columnNames.firstIndex(of: "exact_proceeds_share")),
                try #require(summary.columnNames.firstIndex(of: "net_proceeds"))
            )
            #expect(summary.rows.contains { $0[proceeds] != .real(0) })
            #expect(summary.rows.allSatisfy { $0[proceeds] == .real(0) || $0[column] == .real(share) }, "\(share)")
        }
        // The export names a Play Store chain by its order id; the chain's cancel, a log line,
        // names the logs' id, so it has no chain there (docs/generator.md, "Store forms").
        let differing = format == .revenueCatExport ? Self.formCounters.union(["chainless_cancels"]) : Self.formCounters
        let agreeing = { (night: Night) in night.tables["quality"]?.rows.filter { !differing.contains(cellText($0[1])) } }
        #expect(agreeing(store) == agreeing(logs))
        // The same malformed lines of the app's logs, and no store line malformed.
        func reasons(_ night: Night) -> [String: Int] {
            Dictionary(grouping: night.tables["rejects"]?.rows ?? []) { cellText($0[2]) }.mapValues(\.count)
        }
        #expect(reasons(store) == reasons(logs))

        // The store's own lines, in lines_read and in sources.csv; the purchase logs
        // (docs/input-formats.md#purchase-logs) keep the rest.
        #expect(store.source(source, "lines_read") == store.report.logs.storeLines)
        #expect(store.global("lines_read") == (store.source(.offerlab, "lines_read") ?? 0) + store.report.logs.storeLines)
        #expect(store.global("files_read") == store.job.inputs.logFiles.count + store.report.logs.storeFiles)
        #expect(store.global("family_shared_records") == store.report.logs.familySharedRecords)
        #expect(store.source(source, "family_shared_records") == store.report.logs.familySharedRecords)
        #expect(store.global("ignored_store_records") == store.report.logs.ignoredStoreRecords)
        #expect(store.source(source, "malformed_invalid_json") == 0 && store.global("unattributed_store_records") == 0)
        for reason in MalformedReason.allCases {
            #expect(store.source(.offerlab, reason.counterName) == logs.global(reason.counterName), "\(reason.counterName)")
        }
        // The logs' run has no store counter and reads the offerlab format only.
        #expect(logs.global("family_shared_records") == nil)
        #expect(Set(logs.tables["sources"]?.rows.map { cellText($0[0]) } ?? []) == ["offerlab"])

        // Not vacuous: the store's files carry trials, charges, renewals and refunds of both offerings,
        // and the quirks the counters count.
        #expect(store.report.logs.storeLines > 100 && store.report.logs.familySharedRecords > 0)
        if format == .revenueCatWebhooks { #expect(store.report.logs.ignoredStoreRecords > 0) }
        let products = store.tables["products"]?.rows ?? []
        #expect(products.contains { $0[4] != .integer(0) } && products.contains { $0[5] != .integer(0) })
        #expect(store.tables["summary"]?.rows.contains { $0[9] != .integer(0) } == true, "trial starters")
        #expect(store.feedsTheStoreColumns())
    }
}

extension GeneratedStoreSourceRunTests.Night {
    /// The rows of table `name` without its column `column` (when it has one).
    func rows(_ name: String, leavingOut column: String) -> [[ResultValue]]? {
        Self.rows(of: tables[name], leavingOut: column)
    }

    /// As `rows(_:leavingOut:)`, of the run on what `offerlab events` wrote.
    func eventsRows(_ name: String, leavingOut column: String) -> [[ResultValue]]? {
        Self.rows(of: eventsTables[name], leavingOut: column)
    }

    private static func rows(of table: ResultTable?, leavingOut column: String) -> [[ResultValue]]? {
        guard let table else { return nil }
        guard let index = table.columnNames.firstIndex(of: column) else { return table.rows }
        return table.rows.map { row in row.enumerated().filter { $0.offset != index }.map(\.element) }
    }

    /// Whether some offering of `summary.csv` has trials still running, active subscribers and
    /// proceeds: the columns the store's `store`, period ends and commissions feed
    /// (docs/analysis.md §8–§9).
    func feedsTheStoreColumns() -> Bool {
        guard let summary = tables["summary"] else { return false }
        return ["trials_pending", "active_subscribers", "net_proceeds"].allSatisfy { name in
            guard let column = summary.columnNames.firstIndex(of: name) else { return false }
            return summary.rows.contains { row in
                switch row[column] {
                case .integer(let count): count > 0
                case .real(let value?): value > 0
                default: false
                }
            }
        }
    }
}

/// The text of a text cell ("" for any other).
func cellText(_ value: ResultValue) -> String {
    if case .text(let text) = value { text } else { "" }
}

/// A hand-made job of the app's own log beside a RevenueCat export and App Store notifications:
/// the app's paywall views and purchase line meet the store's facts, a transaction in both is one
/// event, and each malformed store line is counted and rejected at its own file and line.
@Suite struct MixedStoreSourceRunTests {
    static let exportHeader =
        "rc_original_app_user_id,product_identifier,start_time,store_transaction_id,original_store_transaction_id,renewal_number,"
        + "is_trial_period,is_trial_conversion,is_sandbox,ownership_type,purchased_currency,price_in_purchased_currency,"
        + "purchase_price_in_purchased_currency,updated_at,refunded_at,store"

    /// A JWS with `payload`, an ES256 header without certificates and a signature of zeros:
    /// well-formed, never verifiable.
    static func unverifiableNotification(bundleID: String) -> String {
        func base64URL(_ text: String) -> String { base64URL(Data(text.utf8)) }
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let payload =
            #"{"notificationType":"DID_RENEW","notificationUUID":"n-\#(bundleID)","signedDate":1772445600000,"data":{"bundleId":"\#(bundleID)","environment":"Production"}}"#
        let jws = [base64URL(#"{"alg":"ES256"}"#), base64URL(payload), base64URL(Data(count: 64))].joined(separator: ".")
        return #"{"signedPayload":"\#(jws)"}"#
    }

    /// Writes the job (`verify`: its `app_store.verify`) and its files; returns the folder and the job.
    static func job(verify: Bool = true, maxBadLineRatio: Double = 0.5) throws -> (folder: TemporaryFolder, job: Job) {
        let folder = try TemporaryFolder()
        var tables = TablesFixture()
        tables.assignments = [
            ("u1", "1", "10", "2026-03-01T00:00:00Z"), ("u2", "1", "11", "2026-03-01T00:00:00Z"), ("u3", "1", "10", "2026-03-01T00:00:00Z"),
        ]
        try tables.write(to: folder.file("tables.sqlite"))
        // The server registered chain T5 for u3, whatever RevenueCat calls its user.
        try SQLiteDatabase(path: folder.file("tables.sqlite")).execute(
            "CREATE TABLE user_transactions (user_id TEXT, original_transaction_id TEXT); INSERT INTO user_transactions VALUES ('u3', 'T5');"
        )
        try folder.write(
            "logs/app.jsonl",
            """
            {"event_id":"a1","ts":"2026-03-02T10:00:00Z","user_id":"u1","event":"paywall_view"}
            {"event_id":"a2","ts":"2026-03-02T11:00:00Z","user_id":"u2","event":"paywall_view"}
            {"event_id":"a3","ts":"2026-03-02T10:05:00Z","user_id":"u1","event":"purchase","product_id":"weekly","transaction_id":"T1","price":7.99,"currency":"USD"}

            """)
        try folder.write(
            "revenuecat/export.csv",
            [
                exportHeader,
                "u1,weekly,2026-03-02 10:05:00,T1,T1,1,false,false,false,PURCHASED,USD,7.99,7.99,2026-03-02 10:05:00,,app_store",
                "u2,monthly,2026-03-03 9:00:00,T2,T2,1,FALSE,FALSE,FALSE,PURCHASED,USD,19.99,19.99,2026-03-03 09:00:00,,app_store",
                "u3,weekly,2026-03-04 09:00:00,T3,T3,1,false,false,false,PURCHASED,USD,abc,abc,2026-03-04 09:00:00,,app_store",
                ",weekly,2026-03-04 10:00:00,T4,T4,1,false,false,false,PURCHASED,USD,7.99,7.99,2026-03-04 10:00:00,,app_store",
                "rc-alias-9,weekly,2026-03-05 09:00:00,T5,T5,1,false,false,false,PURCHASED,USD,7.99,7.99,2026-03-05 09:00:00,,app_store",
            ].joined(separator: "\n") + "\n")
        try folder.write(
            "apple/notifications.jsonl",
            unverifiableNotification(bundleID: "com.example.app") + "\n\n" + unverifiableNotification(bundleID: "com.other.app") + "\n")
        let path = try folder.write(
            "job.yaml",
            """
            tables: tables.sqlite
            logs: ["logs/app.jsonl", {path: "revenuecat/*.csv", format: revenuecat_export}, {path: "apple/*.jsonl", format: app_store_notifications}]
            app_store: {bundle_id: com.example.app, verify: \(verify)}
            as_of: 2026-03-20T00:00:00Z
            report_currency: USD
            max_bad_line_ratio: \(maxBadLineRatio)
            output: out/
            database: out/results.sqlite
            cache: cache/

            """)
        return (folder, try JobLoader.load(path: path))
    }

    /// Runs the job of `job(verify:)`; returns the folder, the night's output folder, the job and the run's report.
    static func run(verify: Bool = true) async throws -> (folder: TemporaryFolder, night: String, job: Job, report: RunReport) {
        let (folder, job) = try job(verify: verify)
        let report = try await NightlyRun.run(job)
        return (folder, report.outputFolder, job, report)
    }

    static func csv(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
    }

    @Test func theAppLogAndTheStoresMakeOneNight() async throws {
        let (folder, night, _, run) = try await Self.run()
        // T1 is in the app's log and in the export: one purchase, its money once. T5 is u3's by
        // the server's user_transactions; T4 names no user.
        let summary = try Self.csv(night + "/summary.csv")
        let columns = summary[0].split(separator: ",").map(String.init)
        func value(_ group: String, _ column: String) throws -> String {
            let row = try #require(summary.first { $0.hasPrefix("test,\(group),") }).split(separator: ",", omittingEmptySubsequences: false)
            return String(row[try #require(columns.firstIndex(of: column))])
        }
        #expect(try value("control", "users") == "2" && value("control", "converters") == "2" && value("control", "purchases") == "2")
        #expect(try value("control", "gross_revenue") == "15.98" && value("control", "paywall_viewers") == "1")
        #expect(try value("variant", "purchases") == "1" && value("variant", "gross_revenue") == "19.99")
        #expect(try value("variant", "paywall_viewers") == "1")

        let quality = Set(try Self.csv(night + "/quality.csv"))
        for row in [
            ",files_read,3", ",lines_read,10", ",malformed_lines,3", ",malformed_invalid_field,1", ",malformed_bad_signature,1",
            ",malformed_other_app,1", ",duplicate_events,1", ",unattributed_store_records,1", ",family_shared_records,0",
        ] {
            #expect(quality.contains(row), "\(row)")
        }

        // Every (source, counter) of the formats read; these are the rows that are not 0.
        let sources = try Self.csv(night + "/sources.csv")
        #expect(sources[0] == "source,counter,count")
        #expect(sources.count == 1 + 8 + 2 * StoreCounter.allCases.count)
        #expect(
            sources.filter { !$0.hasSuffix(",0") }
                == [
                    "source,counter,count", "offerlab,lines_read,3", "app_store_notifications,lines_read,2",
                    "app_store_notifications,malformed_bad_signature,1", "app_store_notifications,malformed_other_app,1",
                    "revenuecat_export,lines_read,5", "revenuecat_export,malformed_invalid_field,1",
                    "revenuecat_export,unattributed_store_records,1",
                ])

        // The store's malformed lines at their own file and line (the blank line 2 counted as a line).
        let rejects = try Self.csv(night + "/rejects.csv").dropFirst()
        #expect(rejects.count == 3)
        for prefix in [
            folder.file("revenuecat/export.csv") + ",4,malformed_invalid_field,",
            folder.file("apple/notifications.jsonl") + ",1,malformed_bad_signature,",
            folder.file("apple/notifications.jsonl") + ",3,malformed_other_app,",
        ] {
            #expect(rejects.contains { $0.hasPrefix(prefix) }, "\(prefix)")
        }

        // A store file of malformed lines only is named as a purchase-log file
        // (docs/input-formats.md#purchase-logs) would be.
        #expect(
            run.warnings.contains("1 log file yielded no valid line: \(folder.file("apple/notifications.jsonl")) (2 lines, all malformed)"))

        let report = try String(contentsOfFile: night + "/report.html", encoding: .utf8)
        #expect(report.contains("Every App Store notification's signature was verified."))
        #expect(
            report.contains(
                "<td><code>app_store_notifications</code></td><td><code>malformed_other_app</code></td><td class=\"num\">1</td>"))
        #expect(!report.contains("not verified"))
    }

    /// The `sources` table holds the night's rows of sources.csv, replaced by a re-run of the
    /// night; the run's record says whether the App Store signatures were verified.
    @Test func theDatabaseKeepsTheSourcesAndTheVerification() async throws {
        let (folder, night, job, first) = try await Self.run()
        let sourcesCSV = try Self.csv(night + "/sources.csv")
        // The night again: the App Store file's reading comes from the cache, the same counters.
        let again = try await NightlyRun.run(job)
        #expect(first.cache?.filesReused == 0 && again.cache?.filesStored == 0)
        #expect(again.cache?.filesReused == 2, "the app log and the App Store file")
        #expect(try Self.csv(night + "/sources.csv") == sourcesCSV)
        let database = try SQLiteDatabase(path: folder.file("out/results.sqlite"), readOnly: true)
        var rows: [String] = []
        try database.prepare("SELECT as_of, source, counter, count FROM sources ORDER BY rowid").forEachRow { row in
            rows.append(
                (0..<4).map { column in
                    switch row.value(at: column) {
                    case .text(let text): text
                    case .integer(let integer): "\(integer)"
                    default: "?"
                    }
                }.joined(separator: ","))
        }
        let csv = try Self.csv(night + "/sources.csv").dropFirst().map { "2026-03-20," + $0 }
        #expect(rows == Array(csv))
        var verified: [Int64] = []
        try database.prepare("SELECT signatures_verified FROM runs ORDER BY run_id").forEachRow { row in
            if case .integer(let value) = row.value(at: 0) { verified.append(value) }
        }
        #expect(verified == [1, 1])

        let unverified = try await Self.run(verify: false)
        let report = try String(contentsOfFile: unverified.night + "/report.html", encoding: .utf8)
        #expect(report.contains("<dt>App Store signatures</dt><dd>not verified (app_store.verify: false)</dd>"))
        #expect(report.contains("App Store notifications were <strong>not verified</strong>"))
        // `offerlab report --db` rebuilds the same page from the database: sources and verification included.
        let stored = try ResultsDatabase.readNight(
            path: unverified.folder.file("out/results.sqlite"), night: "2026-03-20", tables: NightTables.stored.map(\.schema.name))
        #expect(stored.run.signaturesVerified == false)
        #expect(HTMLReport.render(ReportData(night: NightTables(database: stored.tables), run: stored.run)) == report)
    }

    /// Over `max_bad_line_ratio` with the store's malformed lines: the error names the store
    /// files with the most, and the failed run's rejects hold their lines.
    @Test func theStoresMalformedLinesCountInTheRatio() async throws {
        let (folder, job) = try Self.job(maxBadLineRatio: 0.2)
        let error = try await #require(throws: OfferLabError.self) { try await NightlyRun.run(job) }
        #expect(error.code == .tooManyMalformedLines)
        #expect(error.message.hasPrefix("3 of 10 log lines are malformed (30.00%), over max_bad_line_ratio 0.2"))
        #expect(
            error.message.contains(
                "most in \(folder.file("apple/notifications.jsonl")) (2), \(folder.file("revenuecat/export.csv")) (1)"))
        let rejects = try Self.csv(folder.file("out/2026-03-20.failed-rejects.csv"))
        #expect(
            rejects.count == 4 && rejects.contains { $0.hasPrefix(folder.file("apple/notifications.jsonl") + ",3,malformed_other_app,") })
    }

    /// An App Store notification body of `type` carrying `transaction` (a payload's JSON), signed
    /// by nobody at `signedDate` (epoch milliseconds): read with `app_store.verify: false`.
    static func notification(type: String, uuid: String, transaction: String? = nil, signedDate: Int64 = 1_772_668_800_000) -> String {
        func jws(_ payload: String) -> String {
            func base64URL(_ data: Data) -> String {
                data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "")
            }
            return [base64URL(Data(#"{"alg":"ES256"}"#.utf8)), base64URL(Data(payload.utf8)), base64URL(Data(count: 64))].joined(
                separator: ".")
        }
        let data =
            #""bundleId":"com.example.app","environment":"Production""#
            + (transaction.map { #","signedTransactionInfo":"\#(jws($0))""# } ?? "")
        let payload = #"{"notificationType":"\#(type)","notificationUUID":"\#(uuid)","signedDate":\#(signedDate),"data":{\#(data)}}"#
        return #"{"signedPayload":"\#(jws(payload))"}"#
    }

    /// The store's own counters, each hit once by hand, in `sources.csv` and the global rows of
    /// `quality.csv`: a notification of a type Apple does not document carrying u1's charge
    /// without a price (`unknown_notification_types`, `unpriced_charges`: the charge still
    /// converts u1, with no money), its re-delivery by `DID_RENEW` (the same record), a `TEST`
    /// notification (`ignored_store_records`) and u3's family-shared purchase
    /// (`family_shared_records`: no event).
    @Test func theStoresOwnCountersAreCountedOnceEach() throws {
        let night = try NightFixture(job: [
            "logs": #"["logs/*", {path: "apple/*.jsonl", format: app_store_notifications}]"#,
            "app_store": "{bundle_id: com.example.app, verify: false}",
        ])
        func transaction(_ id: String, user: String, price: String, ownership: String = "PURCHASED") -> String {
            #"{"transactionId":"\#(id)","originalTransactionId":"\#(id)","productId":"weekly","bundleId":"com.example.app","#
                + #""purchaseDate":1772668800000,"signedDate":1772668800000,"currency":"USD","storefront":"USA","#
                + #""inAppOwnershipType":"\#(ownership)","environment":"Production","appAccountToken":"\#(user)"\#(price)}"#
        }
        try night.folder.write(
            "apple/notifications.jsonl",
            [
                Self.notification(type: "A_TYPE_APPLE_ADDS_LATER", uuid: "n1", transaction: transaction("A1", user: "u1", price: "")),
                Self.notification(type: "DID_RENEW", uuid: "n2", transaction: transaction("A1", user: "u1", price: "")),
                Self.notification(type: "TEST", uuid: "n3"),
                Self.notification(
                    type: "SUBSCRIBED", uuid: "n4",
                    transaction: transaction("A2", user: "u3", price: #","price":9990"#, ownership: "FAMILY_SHARED")),
            ].joined(separator: "\n") + "\n")
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        let sources = Set(try night.csv("sources").map { $0.joined(separator: ",") })
        let expected = [
            "lines_read": 4, "unknown_notification_types": 1, "unpriced_charges": 1, "ignored_store_records": 1,
            "family_shared_records": 1, "unattributed_store_records": 0, "malformed_bad_signature": 0,
        ]
        for (counter, count) in expected {
            #expect(sources.contains("app_store_notifications,\(counter),\(count)"), "sources.csv \(counter)")
            if counter != "lines_read" {
                #expect(try night.quality(counter) == count, "quality.csv \(counter)")
            }
        }
        // u1's logged purchase (7.99) and A1 (no money): 2 purchases; u3's family purchase is no event.
        let summary = ProjectionRunTests.records(try night.csv("summary")).filter { $0["offering_id"] == "test" }
        #expect(summary.map { $0["purchases"] } == ["2", "1"] && summary.map { $0["gross_revenue"] } == ["7.99", "39.98"])
    }

    /// A broken `user_transactions` table fails the run before any log is read, as a broken
    /// catalog does: its own one line and exit code, not the error of the corrupt log file that
    /// would be read first, and the night's earlier outputs stay as they were.
    @Test func aBrokenUserTransactionsTableFailsBeforeAnyLogIsRead() throws {
        let night = try NightFixture(job: ["logs": #"["logs/*", {path: "revenuecat/*.csv", format: revenuecat_export}]"#])
        try night.folder.write(
            "revenuecat/export.csv",
            Self.exportHeader
                + "\nu1,weekly,2026-03-05 09:00:00,T9,T9,1,false,false,false,PURCHASED,USD,7.99,7.99,2026-03-05 09:00:00,,app_store\n")
        let first = try night.run()
        #expect(first.status == 0, "\(first.standardError)")
        let before = try night.snapshot()

        try SQLiteDatabase(path: night.folder.file("tables.sqlite")).execute(
            "CREATE TABLE user_transactions (user_id TEXT, original_transaction_id TEXT); INSERT INTO user_transactions VALUES ('', 'T9');")
        let log = try night.writeLog("b.jsonl.gz", [event("paywall_view", user: "u2", ts: "2026-03-05T00:00:00Z")])
        try Data(try fileBytes(log).dropLast(12)).write(to: URL(fileURLWithPath: log))
        let result = try night.run()
        #expect(result.status == 65)
        #expect(
            result.standardError.hasPrefix("offerlab: error: tables: \(night.folder.file("tables.sqlite")): user_transactions ")
                && result.standardError.hasSuffix(": user_id is empty\n"), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(try night.snapshot() == before)
    }

    /// The store sources are read before the logs, beside the assignment table: a broken table (here
    /// missing) is still what the run reports, not the corrupt store file read meanwhile.
    @Test func aBrokenAssignmentTableIsReportedBeforeACorruptStoreFile() throws {
        let night = try NightFixture(job: ["logs": #"["logs/*", {path: "revenuecat/*.csv.gz", format: revenuecat_export}]"#])
        try night.folder.write("revenuecat/export.csv.gz", bytes: [0x1F, 0x8B, 0x08, 0x00, 0xFF, 0xFF, 0xFF])
        let corruptStore = try night.run()
        #expect(corruptStore.status == 65)
        #expect(corruptStore.standardError.contains("revenuecat_export file"), "\(corruptStore.standardError)")

        try SQLiteDatabase(path: night.folder.file("tables.sqlite")).execute(
            "DROP TABLE user_offering_assignments;")
        let result = try night.run()
        #expect(result.status == 65)
        #expect(
            result.standardError
                == "offerlab: error: tables: \(night.folder.file("tables.sqlite")) has no table user_offering_assignments\n",
            "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
    }
}

@Suite struct StoreEventBatchTests {
    /// An event the purchase-log parser (docs/input-formats.md#purchase-logs) would reject (here:
    /// an empty user) is returned as a note of its file, under the parser's reason, never dropped
    /// unseen; the others become the batch's records, with the population's users and the event's
    /// money.
    @Test func consecutiveStoreFilesAreBatchedUntilEachBatchHasItsMinimum() {
        #expect(StoreEventBatches.runs(eventCounts: [], minimumEvents: 10) == [])
        #expect(StoreEventBatches.runs(eventCounts: [3, 0, 4, 5, 12, 1], minimumEvents: 10) == [0..<4, 4..<5, 5..<6])
        #expect(StoreEventBatches.runs(eventCounts: [3, 7], minimumEvents: 10) == [0..<2])
    }

    @Test func aStoreEventTheParserRejectsIsReturnedAsANote() throws {
        var users = ByteStringInterner()
        _ = users.intern("someone")
        let u1 = users.intern("u1")
        let at = try #require(Timestamp.parse("2026-03-02T10:05:00Z"))
        var purchase = StoreEvent(format: .revenueCatExport, eventID: "revenuecat_export:T1", at: at, userID: "u1", event: .purchase)
        purchase.productID = "weekly"
        purchase.transactionID = "T1"
        purchase.priceMicros = 7_990_000
        purchase.currency = "USD"
        var anonymous = purchase
        anonymous.eventID = "revenuecat_export:T2"
        anonymous.userID = ""
        // Two files in one batch: the note names the file its event came from.
        anonymous.sourcePath = "/data/export-2.csv"
        let made = StoreEventBatches.batch(
            [[purchase], [anonymous]], fileIndex: 3, path: "/data/export.csv", users: users, asOf: at + 1, keptSliceFields: [])
        #expect(made.batch.records.map(\.user.populationIndex) == [u1] && made.batch.records.map(\.timestamp) == [at])
        #expect(made.batch.details.map(\.price) == [7_990_000])
        #expect(made.rejected.count == 1)
        let note = try #require(made.rejected.first)
        #expect(note.format == .revenueCatExport && note.note.path == "/data/export-2.csv" && note.note.line == 0)
        #expect(note.note.counter == .malformedInvalidField && note.note.detail.contains("revenuecat_export:T2"))
    }
}
