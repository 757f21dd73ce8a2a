import Foundation
import OfferLabIngest
import OfferLabResults
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabWriters

/// A refund the store reverses later counts in a night whose `as_of` falls between the refund
/// and the reversal, and in no later night (docs/input-formats.md, "Reversals"). The purchase logs
/// (docs/input-formats.md#purchase-logs) have no reversal, so a log without that refund gives that
/// one night other numbers: the forms differ there because their inputs say different things, not
/// by a fault of either. Here one member pays in BRL, which has no rate: the refund is one more
/// money event left out.
@Suite struct RefundReversalTests {
    /// A purchase on 2 March, refunded (a customer-support cancellation) on 3 March and the
    /// refund reversed on 4 March, each at 10:00, all as RevenueCat's webhooks.
    static let webhooks = [
        #"{"id":"p","type":"INITIAL_PURCHASE","purchased_at_ms":1772445600000,"event_timestamp_ms":1772445600000"#,
        #"{"id":"r","type":"CANCELLATION","cancel_reason":"CUSTOMER_SUPPORT","event_timestamp_ms":1772532000000"#,
        #"{"id":"rr","type":"REFUND_REVERSED","event_timestamp_ms":1772618400000"#,
    ].map {
        $0
            + #","period_type":"NORMAL","transaction_id":"T1","original_transaction_id":"T1","product_id":"weekly","#
            + #""price_in_purchased_currency":39.9,"currency":"BRL","environment":"PRODUCTION","store":"APP_STORE","#
            + #""original_app_user_id":"u1"}"#
    }.map { #"{"api_version":"1.0","event":"# + $0 + "}" }

    /// The job of one member in the webhooks' form (`store`) or in the logs' form, whose log holds
    /// the purchase but not the refund reversed later, as `offerlab generate` writes it.
    static func job(store: Bool) throws -> (folder: TemporaryFolder, job: Job) {
        let folder = try TemporaryFolder()
        var tables = TablesFixture()
        tables.assignments = [("u1", "1", "10", "2026-03-01T00:00:00Z")]
        try tables.write(to: folder.file("tables.sqlite"))
        var log = #"{"event_id":"a1","ts":"2026-03-02T09:59:00Z","user_id":"u1","event":"paywall_view"}"# + "\n"
        if !store {
            log +=
                #"{"event_id":"a2","ts":"2026-03-02T10:00:00Z","user_id":"u1","event":"purchase","product_id":"weekly","transaction_id":"T1","original_transaction_id":"T1","price":39.9,"currency":"BRL","store":"app_store"}"#
                + "\n"
        }
        try folder.write("logs/app.jsonl", log)
        try folder.write("revenuecat/hooks.jsonl", webhooks.joined(separator: "\n") + "\n")
        let logs = store ? #"["logs/app.jsonl", {path: "revenuecat/*.jsonl", format: revenuecat_webhooks}]"# : #"["logs/app.jsonl"]"#
        let path = try folder.write(
            "job.yaml",
            """
            tables: tables.sqlite
            logs: \(logs)
            as_of: 2026-03-05T00:00:00Z
            report_currency: USD
            output: out/
            database: out/results.sqlite

            """)
        return (folder, try JobLoader.load(path: path))
    }

    /// The night's refunds, money events left out for want of a rate, and the warning saying so.
    static func night(store: Bool, asOf: String) async throws -> (refunds: Int, unknownCurrency: Int, warnings: [String]) {
        let (folder, loaded) = try job(store: store)
        defer { withExtendedLifetime(folder) {} }
        var job = loaded
        job.run.night = try #require(Night(parsing: asOf))
        let results = try await NightlyRun.compute(job, progress: nil)
        let offering = try #require(results.offerings.first)
        let unknownCurrency = offering.unconvertibleEvents.reduce(0) { $0 + $1.events }
        let tables = ResultTables.make(
            results, statistics: try await NightlyRun.statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run)),
            settings: ResultTableSettings(job)
        ).files
        let quality = try #require(tables.first { $0.name == "quality" })
        let counted = quality.rows.first { $0[0] == .text("test") && $0[1] == .text("unknown_currency_events") }?[2]
        #expect(counted == .integer(unknownCurrency), "quality.csv says what the warning says")
        let warnings = try RunChecks.unconvertibleMoney(results.offerings, reportCurrency: job.analysis.reportCurrency, maxShare: nil)
        return (offering.groups.reduce(0) { $0 + $1.refunds }, unknownCurrency, warnings)
    }

    @Test func aNightBetweenARefundAndItsReversalCountsTheRefund() async throws {
        // Between the refund (3 March) and its reversal (4 March): the store's refund counts.
        let between = try await Self.night(store: true, asOf: "2026-03-04T00:00:00Z")
        #expect(between.refunds == 1 && between.unknownCurrency == 2)
        #expect(
            between.warnings == [
                "offering test: the money of 2 of 2 money events (100.00%) is left out, for want of a rate to USD: BRL 100.00% (2); give their rates (rates: {BRL: …}, or rates_file:)"
            ])
        // After the reversal: no refund, as in the logs' form every night.
        let after = try await Self.night(store: true, asOf: "2026-03-05T00:00:00Z")
        #expect(after.refunds == 0 && after.unknownCurrency == 1)
        for asOf in ["2026-03-04T00:00:00Z", "2026-03-05T00:00:00Z"] {
            let logs = try await Self.night(store: false, asOf: asOf)
            #expect(logs.refunds == 0 && logs.unknownCurrency == 1, "\(asOf)")
        }
    }
}
