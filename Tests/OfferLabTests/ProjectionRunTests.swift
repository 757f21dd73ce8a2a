import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLabReport
@testable import OfferLabResults
@testable import OfferLabSupport
@testable import OfferLabWriters

/// The 365-day projection inside `offerlab run` (docs/statistics.md#the-projection-in-a-run):
/// `projection.csv`, the `projected_arpu_365` rows of `comparisons.csv`, the database and the
/// report, on hand-made nights whose projection is known.
@Suite struct ProjectionRunTests {
    /// `test`'s users u1, u2 (control, shown `weekly`) and u3, u4 (variant, shown `monthly`), all
    /// assigned at `assignedAt`.
    static func tables(assignedAt: String) -> TablesFixture {
        TablesFixture(assignments: [
            ("u1", "1", "10", assignedAt), ("u2", "1", "10", assignedAt), ("u3", "1", "11", assignedAt), ("u4", "1", "11", assignedAt),
        ])
    }

    /// A JSON Lines event with the fields the projection reads.
    static func line(
        _ name: String, user: String, ts: String, product: String, transaction: String, original: String? = nil, price: String? = nil
    ) -> String {
        var fields = [
            "\"ts\":\"\(ts)\"", "\"user_id\":\"\(user)\"", "\"event\":\"\(name)\"", "\"product_id\":\"\(product)\"",
            "\"transaction_id\":\"\(transaction)\"",
        ]
        if let original { fields.append("\"original_transaction_id\":\"\(original)\"") }
        if let price { fields += ["\"price\":\(price)", "\"currency\":\"USD\""] }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Everyone assigned 439 days before the night: the whole year is observed, so the projection
    /// is the realised `revenue_365`: u1 paid 7.99 twice in the year (a third charge on day 369
    /// is after it), u2's charge was refunded, u3 paid 19.99 and was refunded 5 on day 396 (after
    /// the year: it does not count), u4 paid nothing.
    static let yearOld: [String] = [
        line("purchase", user: "u1", ts: "2025-01-02T10:00:00Z", product: "weekly", transaction: "t1", original: "t1", price: "7.99"),
        line("renewal", user: "u1", ts: "2025-01-09T10:00:00Z", product: "weekly", transaction: "t1b", original: "t1", price: "7.99"),
        line("renewal", user: "u1", ts: "2026-01-05T10:00:00Z", product: "weekly", transaction: "t1c", original: "t1", price: "7.99"),
        line("purchase", user: "u2", ts: "2025-01-03T10:00:00Z", product: "weekly", transaction: "t2", original: "t2", price: "7.99"),
        line("refund", user: "u2", ts: "2025-01-04T10:00:00Z", product: "weekly", transaction: "t2"),
        line("purchase", user: "u3", ts: "2025-01-02T12:00:00Z", product: "monthly", transaction: "t3", original: "t3", price: "19.99"),
        line("refund", user: "u3", ts: "2026-02-01T10:00:00Z", product: "monthly", transaction: "t3", price: "5"),
    ]

    /// Ten days of test: nobody in control has paid; u3 and u4 bought the monthly plan, whose
    /// first renewal nobody has reached.
    static let tenDaysOld: [String] = [
        line("purchase", user: "u3", ts: "2026-03-07T10:00:00Z", product: "monthly", transaction: "t3", original: "t3", price: "19.99"),
        line("purchase", user: "u4", ts: "2026-03-08T10:00:00Z", product: "monthly", transaction: "t4", original: "t4", price: "19.99"),
    ]

    /// `rows` (header first) as dictionaries by column name.
    static func records(_ rows: [[String]]) -> [[String: String]] {
        guard let header = rows.first else { return [] }
        return rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    static func number(_ text: String?) throws -> Double { try #require(text.flatMap(Double.init)) }

    @Test func aYearObservedIsProjectedAsRealised() throws {
        let night = try NightFixture(
            tables: Self.tables(assignedAt: "2025-01-01 00:00:00"), events: Self.yearOld, job: ["max_days_after_last_event": "400"])
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        let rows = try night.csv("projection")
        #expect(
            rows.first == [
                "offering_id", "group", "users", "observed_days_mean", "realized_arpu", "projected_arpu_365", "projected_arpu_365_ci_low",
                "projected_arpu_365_ci_high", "projected_arpu_365_bound_low", "projected_arpu_365_bound_high", "reason", "observed_share",
                "own_rates_share", "follow_on_share", "past_share", "continued_share", "bounded_share", "past_detail", "past_missing",
            ])
        let groups = Self.records(rows)
        #expect(groups.map { $0["group"] } == ["control", "variant"])
        for (group, expected) in zip(groups, [7.99, 9.995]) {
            #expect(group["offering_id"] == "test" && group["users"] == "2" && group["observed_days_mean"] == "365")
            #expect(abs(try Self.number(group["realized_arpu"]) - expected) < 1e-9)
            #expect(abs(try Self.number(group["projected_arpu_365"]) - expected) < 1e-9)
            // Nothing is left to happen: the interval is the value.
            #expect(abs(try Self.number(group["projected_arpu_365_ci_low"]) - expected) < 1e-9)
            #expect(abs(try Self.number(group["projected_arpu_365_ci_high"]) - expected) < 1e-9)
            #expect(group["reason"] == "")
        }
        // summary.csv's net revenue counts the charge and the refund after the year.
        let summary = Self.records(try night.csv("summary"))
        #expect(summary.map { $0["net_revenue"] } == ["23.97", "14.99"])

        // The comparison is about a newcomer (docs/statistics.md, "Each treatment against
        // control"), not these members: two members a group, one renewal seen of either plan, so
        // a newcomer's year rests on renewals nobody has reached often enough, however fully the
        // members' own year is observed: no value, only the far ends.
        let comparison = try #require(Self.records(try night.csv("comparisons")).first { $0["metric"] == "projected_arpu_365" })
        #expect(comparison["group"] == "variant" && comparison["control_group"] == "control")
        let low = try Self.number(comparison["abs_lift_bound_low"])
        let high = try Self.number(comparison["abs_lift_bound_high"])
        #expect(low < 0 && high > 0)
        let empty = [
            "control_value", "value", "abs_lift", "abs_lift_ci_low", "abs_lift_ci_high", "rel_lift", "p_value", "p_value_adjusted",
            "significant", "chance_to_beat_control",
            "mde_abs", "seq_abs_lift_ci_low", "seq_p_value", "seq_significant", "abs_lift_ci_low_adjusted", "seq_rel_lift_ci_high_adjusted",
        ]
        #expect(empty.allSatisfy { comparison[$0] == "" })

        // The database holds the same values.
        let database = try SQLiteDatabase(path: night.databasePath, readOnly: true)
        var stored: [String] = []
        try database.prepare(
            "SELECT as_of, \"group\", users, observed_days_mean, realized_arpu, projected_arpu_365, reason FROM projection ORDER BY \"group\""
        ).forEachRow { row in stored.append((0..<row.count).map { "\(row.value(at: $0))" }.joined(separator: "|")) }
        #expect(stored.count == 2 && stored.allSatisfy { $0.hasPrefix("text(\"2026-03-16\")|") })
        var storedComparison: [SQLiteValue] = []
        try database.prepare("SELECT abs_lift, abs_lift_bound_low FROM comparisons WHERE metric = 'projected_arpu_365'").forEachRow { row in
            storedComparison = [row.value(at: 0), row.value(at: 1)]
        }
        #expect(storedComparison.first == .null)
        guard storedComparison.count == 2, case .real(let storedLow) = storedComparison[1] else {
            Issue.record("no stored interval: \(storedComparison)")
            return
        }
        #expect(abs(storedLow - low) <= 1e-9 * abs(low))
    }

    /// A product the catalog lists without a `type` renews every 30 days: 40 members in each
    /// group bought it on 2026-01-01 and renewed it on 31 January and 2 March, 10 a charge (30
    /// each so far). Its year continues at the members' own renewals (every renewal seen so far
    /// was made) on the period their charges show, so the year is well above the 30 paid; and
    /// the run warns, naming the period. (Projected as one-time, as it was, the year was the 30.)
    @Test func aProductWithoutATypeRenewsAsItsMembersCharges() throws {
        var assignments: [(user: String?, offering: String, group: String, assignedAt: String)] = []
        var events: [String] = []
        for group in ["10", "11"] {
            for member in 0..<40 {
                let user = "g\(group)u\(member)"
                assignments.append((user, "1", group, "2026-01-01 00:00:00"))
                for (charge, day) in ["2026-01-01", "2026-01-31", "2026-03-02"].enumerated() {
                    events.append(
                        Self.line(
                            charge == 0 ? "purchase" : "renewal", user: user, ts: "\(day)T10:00:00Z", product: "plan",
                            transaction: "t\(user)-\(charge)", original: "t\(user)", price: "10"))
                }
            }
        }
        let tables = TablesFixture(
            assignments: assignments, offerings: [(1, "test", "Test", true)], groups: [(10, 1, "control", 1), (11, 1, "variant", 1)],
            products: [(10, "plan", "", "10", nil), (11, "plan", "", "10", nil)])
        let night = try NightFixture(tables: tables, events: events, job: ["max_days_after_last_event": "30"])
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "offering test: renewals of products without a billing period in the catalog (type weekly, monthly, yearly, one_time or …_pass): plan (160 renewals; projected on its members' own renewals, every 30 days as their charges show): give them a type"
            ), "\(run.standardError)")
        let projection = Self.records(try night.csv("projection"))
        #expect(projection.count == 2)
        for group in projection {
            #expect(abs(try Self.number(group["realized_arpu"]) - 30) < 1e-9, "\(group)")
            #expect(try Self.number(group["projected_arpu_365"]) > 60, "the year goes on renewing: \(group)")
        }
    }

    @Test func tooLittleTenureLeavesTheValueEmptyWithTheReason() throws {
        let night = try NightFixture(tables: Self.tables(assignedAt: "2026-03-06 00:00:00"), events: Self.tenDaysOld)
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        let groups = Self.records(try night.csv("projection"))
        let control = try #require(groups.first { $0["group"] == "control" })
        #expect(control["observed_days_mean"] == "10" && control["realized_arpu"] == "0")
        #expect(
            control["projected_arpu_365"] == "" && control["projected_arpu_365_ci_low"] == ""
                && control["reason"] == "no member has paid yet")
        let variant = try #require(groups.first { $0["group"] == "variant" })
        #expect(variant["realized_arpu"] == "19.99" && variant["projected_arpu_365"] == "")
        #expect(
            variant["reason"]?.hasPrefix("monthly needs 11 renewals and the test has seen none of them often enough; the part not seen is ")
                == true, "\(variant["reason"] ?? "")")
        // No rate of renewal seen: no interval, only the far ends, the unseen renewals from none to
        // the ceiling's 0.98 each: from the charge paid to about 10.8 of them (and late buyers).
        #expect(variant["projected_arpu_365_ci_low"] == "" && variant["projected_arpu_365_ci_high"] == "")
        let low = try Self.number(variant["projected_arpu_365_bound_low"])
        let high = try Self.number(variant["projected_arpu_365_bound_high"])
        #expect(low >= 19.99 - 1e-9 && low < 25 && high >= 10 * 19.99, "\(low) \(high)")
        let comparison = try #require(Self.records(try night.csv("comparisons")).first { $0["metric"] == "projected_arpu_365" })
        #expect(comparison["value"] == "" && comparison["abs_lift"] == "" && comparison["p_value"] == "" && comparison["significant"] == "")

        let report = try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)
        let assumes: HTML = "\(OfferingSection.projectionAssumes)"
        #expect(report.contains(assumes.markup))
        #expect(report.contains("projected from 10 of 365 days"))
        #expect(report.contains("cannot be projected yet") && report.contains("far ends USD 19.99 to"))
        #expect(report.contains("The year cannot be projected yet for control: no member has paid yet."))
        // `offerlab report --db` rebuilds the same page from the database alone.
        let rebuilt = try runOfferLab(["report", "--db", night.databasePath, "--as-of", "2026-03-16", "--output", "-"])
        #expect(rebuilt.status == 0 && rebuilt.standardOutput == report)
    }

    @Test("The report projects a year only when its value is given and its interval within a factor of 3")
    func aWideIntervalIsNotAProjection() {
        let settled = ProjectionRow(group: "a", projectedARPU365: 10, low: 6, high: 17.9)
        #expect(OfferingSection.unprojectableReason(settled) == nil)
        var wide = settled
        wide.high = 18.1
        #expect(OfferingSection.unprojectableReason(wide) == "its interval spans more than a factor of 3, too wide to decide on")
        wide.high = 12
        wide.low = 0
        #expect(OfferingSection.unprojectableReason(wide) != nil)
        let empty = ProjectionRow(group: "b", low: 1, high: 2, reason: "no member has paid yet")
        #expect(OfferingSection.unprojectableReason(empty) == "no member has paid yet")
    }

    @Test func theSameInputsGiveTheSameProjection() throws {
        var outputs: [[[String]]] = []
        for _ in 0..<2 {
            let night = try NightFixture(tables: Self.tables(assignedAt: "2026-03-06 00:00:00"), events: Self.tenDaysOld)
            #expect(try night.run().status == 0)
            outputs.append(try night.csv("projection") + (try night.csv("comparisons")).filter { $0.contains("projected_arpu_365") })
        }
        #expect(outputs[0] == outputs[1])
        // The draws matter here (the far ends are quantiles of them), so equal files mean equal seeds.
        let variant = try #require(Self.records(outputs[0]).first { $0["group"] == "variant" })
        #expect(try Self.number(variant["projected_arpu_365_bound_low"]) < (try Self.number(variant["projected_arpu_365_bound_high"])))
    }

    @Test func theSeedDependsOnTheNightAndTheOfferingOnly() {
        let seed = OfferingStatistics.projectionSeed(asOf: 1_773_619_200_000_000, offeringID: "test")
        #expect(seed == OfferingStatistics.projectionSeed(asOf: 1_773_619_200_000_000, offeringID: "test"))
        #expect(seed != OfferingStatistics.projectionSeed(asOf: 1_773_619_200_000_001, offeringID: "test"))
        #expect(seed != OfferingStatistics.projectionSeed(asOf: 1_773_619_200_000_000, offeringID: "tesu"))
    }
}

/// A CSV file's text without its `projected_arpu_365` rows: for comparing a run's
/// `comparisons.csv` with outputs that have no projection (the reference, `offerlab stats`).
func withoutProjectedRows(_ csv: String) -> String {
    csv.components(separatedBy: "\r\n").filter { !$0.contains(",projected_arpu_365,") }.joined(separator: "\r\n")
}
