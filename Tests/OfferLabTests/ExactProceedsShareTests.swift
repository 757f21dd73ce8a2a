import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabReport
@testable import OfferLabSupport
@testable import OfferLabWarehouse
@testable import OfferLabWriters

/// `exact_proceeds_share` (docs/analysis.md §8): of a group's counted charges' proceeds before
/// refunds, the share whose fees the record states, worked by hand. As of 2026-03-16 (rates:
/// EUR 2, no JPY; the App Store keeps 30 %, no VAT rates), everyone assigned on 2026-03-01:
/// - u1 (control, DE): a purchase of 10 USD on 03-02 with RevenueCat's 10 % tax and 15 %
///   commission (exact: 7.5), a renewal of 10 on 03-09 without them (the rules: 7), half the
///   purchase refunded on 03-10 (takes back 3.75 of the net proceeds, not of the share);
/// - u2 (control, US): a purchase of 5 EUR on 03-05 that states its tax alone (the rules:
///   10 × 0.7 = 7), and one of 100 JPY stating both shares, whose money is left out;
/// - u3 (variant, FR): a purchase of 10 USD on 03-03 with 0 % tax and 30 % commission (exact: 7);
/// - u4 (variant): nothing.
///
/// Control: 7.5 of 7.5 + 7 + 7 = 15/43; variant 7 of 7 = 1.
@Suite struct ExactProceedsShareTests {
    static func charge(
        _ event: String, _ user: String, _ ts: String, transaction: String, price: String, currency: String = "USD",
        country: String, tax: String? = nil, commission: String? = nil
    ) -> String {
        var fields = [
            "\"ts\":\"\(ts)\"", "\"user_id\":\"\(user)\"", "\"event\":\"\(event)\"", "\"product_id\":\"weekly\"",
            "\"transaction_id\":\"\(transaction)\"", "\"price\":\(price)", "\"currency\":\"\(currency)\"", "\"country\":\"\(country)\"",
        ]
        if let tax { fields.append("\"tax_percentage\":\(tax)") }
        if let commission { fields.append("\"commission_percentage\":\(commission)") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static let events = [
        charge("purchase", "u1", "2026-03-02T00:00:00Z", transaction: "p1", price: "10", country: "DE", tax: "0.1", commission: "0.15"),
        charge("renewal", "u1", "2026-03-09T00:00:00Z", transaction: "r1", price: "10", country: "DE"),
        #"{"ts":"2026-03-10T00:00:00Z","user_id":"u1","event":"refund","product_id":"weekly","transaction_id":"p1","price":5,"currency":"USD","country":"DE"}"#,
        charge("purchase", "u2", "2026-03-05T00:00:00Z", transaction: "p2", price: "5", currency: "EUR", country: "US", tax: "0.2"),
        charge(
            "purchase", "u2", "2026-03-06T00:00:00Z", transaction: "p3", price: "100", currency: "JPY", country: "US", tax: "0.1",
            commission: "0.15"),
        charge("purchase", "u3", "2026-03-03T00:00:00Z", transaction: "p4", price: "10", country: "FR", tax: "0", commission: "0.3"),
        #"{"ts":"2026-03-03T00:00:00Z","user_id":"u4","event":"paywall_view"}"#,
    ]

    /// `column` of `rows` (records) where every `key` matches, as text.
    static func value(_ rows: [[String: String]], _ column: String, where keys: [String: String]) throws -> String {
        let row = try #require(rows.first { row in keys.allSatisfy { row[$0.key] == $0.value } }, "\(keys)")
        return try #require(row[column], "no column \(column)")
    }

    static func expectShare(_ text: String, _ expected: Double?, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if let expected {
            let share = Double(text)
            #expect(share.map { abs($0 - expected) <= 1e-15 } == true, "\(what): \(text) != \(expected)", sourceLocation: sourceLocation)
        } else {
            #expect(text == "", "\(what): \(text) is not empty", sourceLocation: sourceLocation)
        }
    }

    @Test func summaryDailySlicesTheDatabaseAndTheReportCarryTheShare() throws {
        let night = try NightFixture(events: Self.events, job: ["offerings": "[test]", "slices": "[country]"])
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")

        let summary = ProjectionRunTests.records(try night.csv("summary"))
        Self.expectShare(try Self.value(summary, "exact_proceeds_share", where: ["group": "control"]), 15.0 / 43, "control")
        Self.expectShare(try Self.value(summary, "exact_proceeds_share", where: ["group": "variant"]), 1, "variant")
        // The net proceeds are after the refund; the share is of the charges before it.
        #expect(try Self.value(summary, "net_proceeds", where: ["group": "control"]) == "17.75")
        #expect(try Self.value(summary, "net_proceeds", where: ["group": "variant"]) == "7")
        // The column's place: after the proceeds per user.
        let header = try night.csv("summary")[0]
        let standardDeviation = try #require(header.firstIndex(of: "proceeds_per_user_sd"))
        #expect(header.firstIndex(of: "exact_proceeds_share") == standardDeviation + 1)

        // Day by day: nothing yet (0 of 0), u1's exact purchase alone, then u2's and u1's charges by the rules.
        let daily = ProjectionRunTests.records(try night.csv("daily"))
        for (date, control, variant) in [
            ("2026-03-01", nil, nil), ("2026-03-02", 1, nil), ("2026-03-03", 1, 1), ("2026-03-05", 15.0 / 29, 1),
            ("2026-03-09", 15.0 / 43, 1), ("2026-03-15", 15.0 / 43, 1),
        ] as [(String, Double?, Double?)] {
            Self.expectShare(
                try Self.value(daily, "exact_proceeds_share", where: ["date": date, "group": "control"]), control, "\(date) control")
            Self.expectShare(
                try Self.value(daily, "exact_proceeds_share", where: ["date": date, "group": "variant"]), variant, "\(date) variant")
        }

        // By country: DE holds u1 (7.5 of 14.5), US u2 (0 of 7), FR u3; each other group of a level has no charge.
        let slices = ProjectionRunTests.records(try night.csv("slice_summary"))
        for (level, control, variant) in [
            ("DE", 15.0 / 29, nil), ("US", 0, nil), ("FR", nil, 1), ("(none)", nil, nil),
        ] as [(String, Double?, Double?)] {
            Self.expectShare(
                try Self.value(slices, "exact_proceeds_share", where: ["level": level, "group": "control"]), control, "\(level) control")
            Self.expectShare(
                try Self.value(slices, "exact_proceeds_share", where: ["level": level, "group": "variant"]), variant, "\(level) variant")
        }

        // The database holds the same values.
        let database = try SQLiteDatabase(path: night.databasePath, readOnly: true)
        var stored: [SQLiteValue] = []
        try database.prepare("SELECT exact_proceeds_share FROM summary ORDER BY \"group\"").forEachRow { stored.append($0.value(at: 0)) }
        #expect(stored == [.real(15.0 / 43), .real(1)])

        // The report's "All numbers by group" shows it as a percentage.
        let report = try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)
        let row = try #require(report.components(separatedBy: "Exact proceeds share <code>exact_proceeds_share</code>").dropFirst().first)
        let cells = row.prefix { $0 != "\n" }
        #expect(cells.contains(">\(ReportFormat.percent(15.0 / 43))<") && cells.contains(">100.0%<"), "\(cells)")
    }

    /// A night stored by an offerlab without the column reads it as empty; the next night fills it.
    @Test func aNightStoredBeforeTheColumnReadsItEmpty() throws {
        let night = try NightFixture(events: Self.events, job: ["offerings": "[test]", "allow_stale_logs": "true"])
        #expect(try night.run(["--as-of", "2026-03-15"]).status == 0)
        let database = try SQLiteDatabase(path: night.databasePath)
        for table in ["summary", "daily"] { try database.execute("ALTER TABLE \(table) DROP COLUMN exact_proceeds_share") }
        let result = try night.run(["--as-of", "2026-03-16"])
        try #require(result.status == 0, "\(result.standardError)")
        var shares: [String: [SQLiteValue]] = [:]
        try database.prepare("SELECT as_of, exact_proceeds_share FROM summary").forEachRow { row in
            if case .text(let asOf) = row.value(at: 0) { shares[asOf, default: []].append(row.value(at: 1)) }
        }
        #expect(shares["2026-03-15"] == [.null, .null] && shares["2026-03-16"]?.contains(.real(1)) == true, "\(shares)")

        let earlier = try ReportData.load(databasePath: night.databasePath, night: Night("2026-03-15"))
        let groups = try #require(earlier.offerings.first).groups
        #expect(groups.map(\.summary.metrics.exactProceedsShare) == [nil, nil])
        #expect(groups.map(\.summary.metrics.netProceeds) == [17.75, 7])
    }

    /// The aggregates' own rows and a slices file carry the two sums the share is made of
    /// (`charge_proceeds_sum`, `exact_proceeds_sum`); `stats` writes the share from them, leaves
    /// it empty without them, and names a file that has one of the two or an exact part above
    /// the charges'.
    @Test func statsWritesTheShareFromTheAggregatesSums() throws {
        let folder = try TemporaryFolder()
        let columns = AggregateStatistics.columns + AggregateStatistics.summaryColumns + AggregateStatistics.trialColumns + ["metric"]
        let optional = AggregateStatistics.summaryColumns.count + AggregateStatistics.trialColumns.count
        /// The file with `chargeColumns` after `metric`, each group's own row ending in its cells of them.
        func aggregates(_ chargeColumns: [String], control: [String], treatment: [String]) throws -> String {
            let zeros = Array(repeating: "0", count: optional)
            let (empty, noSums) = (Array(repeating: "", count: optional), Array(repeating: "", count: chargeColumns.count))
            let rows = [
                ["o", "c", "true", "1", "10", "2", "5", "10"] + zeros + [""] + control,
                ["o", "t", "false", "1", "10", "1", "5", "10"] + zeros + [""] + treatment,
                ["o", "c", "true", "1", "10", "2", "4", "8"] + empty + ["proceeds_per_user"] + noSums,
                ["o", "t", "false", "1", "10", "1", "0", "0"] + empty + ["proceeds_per_user"] + noSums,
            ]
            return try folder.write(
                "agg-\((chargeColumns + control + treatment).joined(separator: "-")).csv",
                ([columns + chargeColumns] + rows).map { $0.joined(separator: ",") + "\n" }.joined())
        }
        func shares(_ input: String) throws -> [String] {
            let output = folder.file("out-\((input as NSString).lastPathComponent)")
            try AggregateStatistics.run(input: input, output: output, alpha: 0.05)
            let summary = ProjectionRunTests.records(parseCSV(try String(contentsOfFile: output + "/summary.csv", encoding: .utf8)))
            #expect(summary.map { $0["net_proceeds"] } == ["4", "0"])
            return summary.map { $0["exact_proceeds_share"] ?? "no column" }
        }
        let sums = AggregateStatistics.chargeProceedsColumns
        #expect(sums == ["charge_proceeds_sum", "exact_proceeds_sum"])
        // 1.5 of 6 exact; the treatment's charges have no proceeds (0 of 0).
        #expect(try shares(aggregates(sums, control: ["6", "1.5"], treatment: ["0", "0"])) == ["0.25", ""])
        // Without the two columns, net_proceeds is written and the share left empty.
        #expect(try shares(aggregates([], control: [], treatment: [])) == ["", ""])

        let one = try aggregates(["exact_proceeds_sum"], control: ["1.5"], treatment: ["0"])
        let missing = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: one, output: folder.file("bad"), alpha: 0.05)
        }
        #expect(missing.code == .badAggregates && (missing.cause as? IngestError)?.code == .missingColumn, "\(missing)")
        let above = try aggregates(sums, control: ["6", "6.5"], treatment: ["0", "0"])
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: above, output: folder.file("bad"), alpha: 0.05)
        }
        #expect(error.code == .badAggregates && error.location == .init(path: above, line: 2), "\(error)")
        #expect(error.message.contains("exact_proceeds_sum 6.5 exceeds charge_proceeds_sum 6"), "\(error)")
    }
}
