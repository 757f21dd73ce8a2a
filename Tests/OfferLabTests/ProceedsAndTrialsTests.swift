import OfferLabIngest
import OfferLabJob
import OfferLabStatistics
import Testing

@testable import OfferLab
@testable import OfferLabAnalysis
@testable import OfferLabProjection

/// A charge of `price` USD by `user` at `ts`, with the fields proceeds and subscription state read.
private func charge(
    _ user: String, _ ts: String, _ price: String, event: String = "purchase", transaction: String, original: String? = nil,
    product: String = "weekly", country: String? = nil, store: String? = nil, expires: String? = nil, taxShare: Int32? = nil,
    commissionShare: Int32? = nil
) -> LogRecord {
    logRecord(
        event, user: user, ts: ts, transaction: transaction, original: original, product: product, price: price, currency: "USD",
        country: country, expires: expires, store: store, taxShare: taxShare, commissionShare: commissionShare)
}

private func refund(_ user: String, _ ts: String, _ price: String?, of transaction: String) -> LogRecord {
    logRecord("refund", user: user, ts: ts, transaction: transaction, product: "weekly", price: price, currency: price == nil ? nil : "USD")
}

private func assigned(_ users: [String], group: String = "10", at time: String = "2026-03-01 00:00:00") -> TablesFixture {
    TablesFixture(assignments: users.map { ($0, "1", group, time) })
}

private func expectClose(_ actual: Double, _ expected: Double, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(abs(actual - expected) <= 1e-9 * max(1, abs(expected)), "\(actual) != \(expected)", sourceLocation: sourceLocation)
}

/// docs/analysis.md §8, worked by hand: the store's commission, VAT, RevenueCat's shares, refunds.
@Suite struct ProceedsTests {
    /// u1's chain o1 begins with a purchase before u1's assignment (not counted for the test, but
    /// the store's year of paid service starts there): the renewal 364 days later pays 30 %, the
    /// one 365 days later 15 %; a renewal without `original_transaction_id` pays 30 %.
    /// Made anew for each use: a record is not `Sendable`.
    static var chain: [LogRecord] {
        [
            charge("u1", "2025-03-01T00:00:00Z", "100", event: "purchase", transaction: "p1", original: "o1"),
            charge("u1", "2026-02-28T00:00:00Z", "100", event: "renewal", transaction: "r1", original: "o1"),
            charge("u1", "2026-03-01T00:00:00Z", "100", event: "renewal", transaction: "r2", original: "o1"),
            charge("u1", "2026-03-02T00:00:00Z", "100", event: "renewal", transaction: "r3"),
        ]
    }

    @Test func aChainCrossingItsFirstYear() async throws {
        let results = try await analyse(assigned(["u1"], at: "2025-06-01 00:00:00"), Self.chain)
        let control = results.offerings[0].groups[0]
        #expect(control.netRevenue == 300)
        // 100 × 0.70 + 100 × 0.85 + 100 × 0.70.
        expectClose(control.proceedsSum, 225)
        expectClose(control.proceedsSumSquares, 225 * 225)
    }

    @Test func theSmallBusinessProgramPaysFifteenPercentThroughout() async throws {
        var settings = ProceedsSettings()
        settings.appStoreSmallBusiness = true
        let results = try await analyse(assigned(["u1"], at: "2025-06-01 00:00:00"), Self.chain, proceeds: settings)
        expectClose(results.offerings[0].groups[0].proceedsSum, 255)
    }

    /// Play keeps 15 %: 10 → 8.5; a refund of 4 of the 10 takes back 4/10 of 8.5 = 3.4; one without a
    /// price takes back the whole charge's proceeds.
    @Test func aProratedRefundTakesBackItsShare() async throws {
        let events = [
            charge("c1", "2026-03-02T00:00:00Z", "10", transaction: "c1p", store: "play_store"),
            refund("c1", "2026-03-03T00:00:00Z", "4", of: "c1p"),
            charge("c2", "2026-03-02T00:00:00Z", "10", transaction: "c2p"), refund("c2", "2026-03-03T00:00:00Z", nil, of: "c2p"),
        ]
        let results = try await analyse(assigned(["c1", "c2"]), events)
        let control = results.offerings[0].groups[0]
        #expect(control.netRevenue == 6)
        expectClose(control.proceedsSum, 5.1)
        expectClose(control.proceedsSumSquares, 5.1 * 5.1)
        // products.csv: one product, both users.
        expectClose(try #require(results.offerings[0].products.first?.netProceeds), 5.1)
    }

    /// DE has a VAT rate of 19 % (prices include it: t = 0.19/1.19), FR none; RevenueCat's shares
    /// replace both; another store pays the job's commission, or nothing.
    @Test func vatAndTheStoresCommissions() async throws {
        var settings = ProceedsSettings()
        settings.taxRates = ["DE": 0.19]
        settings.commissions = ["amazon": 0.2]
        let events = [
            charge("de", "2026-03-02T00:00:00Z", "11.9", transaction: "a", country: "DE"),  // 11.9 / 1.19 × 0.7 = 7
            charge("fr", "2026-03-02T00:00:00Z", "10", transaction: "b", country: "FR"),  // 10 × 0.7 = 7
            // RevenueCat's 10 % tax and 15 % commission: 10 × 0.75 = 7.5.
            charge(
                "rc", "2026-03-02T00:00:00Z", "10", transaction: "c", country: "DE", taxShare: 100_000_000, commissionShare: 150_000_000),
            charge("am", "2026-03-02T00:00:00Z", "10", transaction: "d", country: "FR", store: "amazon"),  // 8
            charge("xs", "2026-03-02T00:00:00Z", "10", transaction: "e", store: "web"),  // 10
        ]
        let results = try await analyse(assigned(["de", "fr", "rc", "am", "xs"]), events, proceeds: settings)
        let control = results.offerings[0].groups[0]
        expectClose(control.proceedsSum, 7 + 7 + 7.5 + 8 + 10)
        expectClose(control.proceedsSumSquares, 49 + 49 + 56.25 + 64 + 100)
        // `default_store` decides the store of an event without one.
        settings.defaultStore = ProceedsSettings.playStore
        let play = try await analyse(assigned(["fr"]), [events[1]], proceeds: settings)
        expectClose(play.offerings[0].groups[0].proceedsSum, 8.5)
    }

    /// Stores are matched in any case (docs/analysis.md §8): RevenueCat's `PLAY_STORE` pays Google
    /// Play's 15 %, `App_Store` the App Store's 30 %, and a job's `Amazon` commission applies to
    /// `amazon`.
    @Test func storesAreMatchedInAnyCase() async throws {
        var settings = ProceedsSettings()
        settings.commissions = ["amazon": 0.2]
        let events = [
            charge("p", "2026-03-02T00:00:00Z", "10", transaction: "a", store: "PLAY_STORE"),  // 8.5
            charge("a", "2026-03-02T00:00:00Z", "10", transaction: "b", store: "App_Store"),  // 7
            charge("m", "2026-03-02T00:00:00Z", "10", transaction: "c", store: "AMAZON"),  // 8
        ]
        let results = try await analyse(assigned(["p", "a", "m"]), events, proceeds: settings)
        expectClose(results.offerings[0].groups[0].proceedsSum, 8.5 + 7 + 8)
    }

    /// Proceeds per user are compared as ARPU is: the same row computed on the proceeds' sums.
    @Test func proceedsPerUserRowsAreARPURowsOnProceeds() async throws {
        let events = [
            charge("c1", "2026-03-02T00:00:00Z", "10", transaction: "a"), charge("v1", "2026-03-02T00:00:00Z", "20", transaction: "b"),
            charge("v2", "2026-03-02T00:00:00Z", "5", transaction: "c"),
        ]
        let tables = TablesFixture(assignments: [
            ("c1", "1", "10", "2026-03-01 00:00:00"), ("c2", "1", "10", "2026-03-01 00:00:00"), ("v1", "1", "11", "2026-03-01 00:00:00"),
            ("v2", "1", "11", "2026-03-01 00:00:00"),
        ])
        let result = try await analyse(tables, events).offerings[0]
        let analysis = try analyzeOffering(
            result.offering.groups.indices.map {
                AnalysisGroup(
                    name: result.offering.groups[$0].name, isControl: $0 == 0, weight: 1, statistics: result.groups[$0].statistics)
            }, alpha: 0.05, families: result.comparisonFamilies)
        let row = try #require(analysis.comparisons.first { $0.metric == .proceedsPerUser })
        // control: 7, 0; variant: 14, 3.5.
        expectClose(try #require(row.controlValue), 3.5)
        expectClose(try #require(row.value), 8.75)
        #expect(row.pValue != nil && row.mdeAbs == nil)
    }
}

/// docs/analysis.md §9, worked by hand, as of 2026-03-20T00:00:00Z.
@Suite struct TrialsAndSubscriptionsTests {
    /// Made anew for each use: a record is not `Sendable`.
    static var events: [LogRecord] {
        [
            // t1's trial ends exactly at as_of: lapsed. t2's after it: pending. t3's has no end: unknown.
            logRecord(
                "trial_start", user: "t1", ts: "2026-03-13T00:00:00Z", transaction: "t1t", product: "weekly",
                expires: "2026-03-20T00:00:00Z"),
            logRecord(
                "trial_start", user: "t2", ts: "2026-03-15T00:00:00Z", transaction: "t2t", product: "weekly",
                expires: "2026-03-22T00:00:00Z"),
            logRecord("trial_start", user: "t3", ts: "2026-03-10T00:00:00Z", transaction: "t3t", product: "weekly"),
            // t4 converted (same product), neither with expires_at: converted, and churned (no period known to be running).
            logRecord("trial_start", user: "t4", ts: "2026-03-01T00:00:00Z", transaction: "t4t", product: "weekly"),
            charge("t4", "2026-03-08T00:00:00Z", "10", transaction: "t4p"),
            // s1's last charge runs past as_of but is refunded: not active, churned. s2's ended on the
            // 17th: churned. s3's runs: active.
            charge("s1", "2026-03-10T00:00:00Z", "10", transaction: "s1p", expires: "2026-04-10T00:00:00Z"),
            refund("s1", "2026-03-12T00:00:00Z", "2", of: "s1p"),
            charge("s2", "2026-03-10T00:00:00Z", "10", transaction: "s2p", expires: "2026-03-17T00:00:00Z"),
            charge("s3", "2026-03-10T00:00:00Z", "10", transaction: "s3p", expires: "2026-04-10T00:00:00Z"),
        ]
    }

    @Test func trialStatesAndSubscribersAsOfTheNight() async throws {
        let results = try await analyse(assigned(["t1", "t2", "t3", "t4", "s1", "s2", "s3"]), Self.events)
        let control = results.offerings[0].groups[0]
        #expect(
            [control.trialsConverted, control.trialsPending, control.trialsLapsed, control.trialsUnknown] == [1, 1, 1, 1])
        #expect(control.trialCompletedConversionRate == 0.5)
        #expect(control.trialCompletedStatistics.users == 2 && control.trialCompletedStatistics.converters == 1)
        #expect(control.activeSubscribers == 1 && control.churnedSubscribers == 3)
    }

    /// The projection (docs/statistics.md#the-projection-in-a-run) reads a charge's `expires_at` as
    /// its chain's next due time: s3's weekly chain runs to April 10, after the night, with 47
    /// weekly renewals left in its member's year (325 days); t4's, without one, was due a week after
    /// its charge and missed; s1's refunded charge ends its chain. t4's trial converted.
    @Test func theProjectionReadsEachChargesExpiry() async throws {
        let results = try await analyse(assigned(["t4", "s1", "s3"]), Self.events)
        let observed = try #require(results.offerings[0].projection).groups[0]
        let weekly = try #require(observed.products.first { !$0.pendingChains.isEmpty }, "\(observed.products)")
        #expect(weekly.pendingChains == [1 << 16 | 47: 1] && weekly.pendingTurnedOff.isEmpty, "\(weekly.pendingChains)")
        #expect(weekly.renewals.atRisk == [0, 1] && weekly.renewals.renewed == [0, 0], "\(weekly.renewals)")
        #expect(observed.users == 3 && observed.payers == 3 && observed.trialsConverted == 1 && observed.trialEntries == 1)
    }

    /// Each day is the night as of its end: s2 is active through the day that ends before its
    /// period does (the 16th ends at 17T00:00, which is not before expires_at), t1's trial pending
    /// until the last day, t2's from the 15th.
    @Test func theDailySeriesFollowsPeriodsThatEndBetweenEvents() async throws {
        let results = try await analyse(assigned(["t1", "t2", "t3", "t4", "s1", "s2", "s3"]), Self.events)
        let days = Dictionary(uniqueKeysWithValues: results.offerings[0].daily.map { ($0.date, $0.groups[0]) })
        let day15 = try #require(days["2026-03-15"])
        #expect(day15.activeSubscribers == 2 && day15.churnedSubscribers == 2)
        #expect(
            day15.trialsPending == 2 && day15.trialsLapsed == 0,
            "\(day15.trialsPending) \(day15.trialsLapsed) \(day15.trialsUnknown) \(day15.trialsConverted)")
        let day16 = try #require(days["2026-03-16"])
        #expect(day16.activeSubscribers == 1 && day16.churnedSubscribers == 3)
        let day18 = try #require(days["2026-03-18"])
        #expect(day18.trialsPending == 2 && day18.trialsLapsed == 0)
        let last = try #require(days["2026-03-19"])
        #expect(last.trialsPending == 1 && last.trialsLapsed == 1 && last.activeSubscribers == 1)
    }
}

/// The proceeds, trial and subscriber columns of `daily.csv`, `slice_summary.csv`,
/// `slice_comparisons.csv`, `summary.csv` and `comparisons.csv` as a run writes them, worked by
/// hand, day by day (docs/analysis.md §4a, §7–§9): a wrong value in any one of them fails here,
/// not only in the comparison with the reference.
///
/// As of 2026-03-16, everyone assigned 2026-03-01 (control u1, u2; variant u3, u4); prices in USD,
/// the App Store keeping 30 % (no `store`), Google Play 15 %:
/// - u1 (DE): a weekly trial 03-02 ending 03-05; its first charge 10 at 03-05 (proceeds 7, its
///   period ending 03-12), renewed 10 at 03-12 (7, ending 03-19): converted, active;
/// - u2 (US): a trial 03-10 ending 03-17: pending;
/// - u3 (DE): a monthly trial 03-03 ending 03-06, then an annual plan of another chain at 03-08
///   on Google Play, 20 (proceeds 17, ending 03-15), 4 of it refunded at 03-09 (takes back
///   4/20 × 17 = 3.4): the trial lapsed; converted, churned;
/// - u4 (no country): a trial 03-04 without an end: unknown.
@Suite struct ProceedsAndTrialsColumnsTests {
    /// A JSON Lines event with the fields proceeds and subscription state read (`price` in USD).
    static func line(
        _ event: String, _ user: String, _ ts: String, product: String, transaction: String, original: String? = nil,
        price: Int? = nil, expires: String? = nil, store: String? = nil, country: String? = nil
    ) -> String {
        var fields = [
            "\"ts\":\"\(ts)\"", "\"user_id\":\"\(user)\"", "\"event\":\"\(event)\"", "\"product_id\":\"\(product)\"",
            "\"transaction_id\":\"\(transaction)\"",
        ]
        if let original { fields.append("\"original_transaction_id\":\"\(original)\"") }
        if let price { fields += ["\"price\":\(price)", "\"currency\":\"USD\""] }
        if let expires { fields.append("\"expires_at\":\"\(expires)\"") }
        if let store { fields.append("\"store\":\"\(store)\"") }
        if let country { fields.append("\"country\":\"\(country)\"") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static let events = [
        line(
            "trial_start", "u1", "2026-03-02T00:00:00Z", product: "weekly", transaction: "u1t", original: "u1t",
            expires: "2026-03-05T00:00:00Z", country: "DE"),
        line(
            "purchase", "u1", "2026-03-05T00:00:00Z", product: "weekly", transaction: "u1p", original: "u1t", price: 10,
            expires: "2026-03-12T00:00:00Z", country: "DE"),
        line(
            "renewal", "u1", "2026-03-12T00:00:00Z", product: "weekly", transaction: "u1r", original: "u1t", price: 10,
            expires: "2026-03-19T00:00:00Z", country: "DE"),
        line(
            "trial_start", "u2", "2026-03-10T00:00:00Z", product: "weekly", transaction: "u2t", expires: "2026-03-17T00:00:00Z",
            country: "US"),
        line(
            "trial_start", "u3", "2026-03-03T00:00:00Z", product: "monthly", transaction: "u3t", expires: "2026-03-06T00:00:00Z",
            country: "DE"),
        line(
            "purchase", "u3", "2026-03-08T00:00:00Z", product: "annual", transaction: "u3p", price: 20, expires: "2026-03-15T00:00:00Z",
            store: "play_store", country: "DE"),
        line("refund", "u3", "2026-03-09T00:00:00Z", product: "annual", transaction: "u3p", price: 4, country: "DE"),
        line("trial_start", "u4", "2026-03-04T00:00:00Z", product: "weekly", transaction: "u4t"),
    ]

    /// The columns checked, in this order, in every expected row below.
    static let columns = [
        "net_proceeds", "proceeds_per_user", "proceeds_per_user_sd", "trials_converted", "trials_pending", "trials_lapsed",
        "trials_unknown", "trial_completed_conversion_rate", "active_subscribers", "churned_subscribers",
    ]

    /// Expects `row`'s `columns` to be `expected` (nil: empty), numbers to 1e-9.
    static func expect(
        _ row: [String: String]?, _ columns: [String], _ expected: [Double?], _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let row else {
            Issue.record("no row: \(what)", sourceLocation: sourceLocation)
            return
        }
        for (column, value) in zip(columns, expected) {
            let text = row[column]
            if let value {
                let number = text.flatMap(Double.init)
                #expect(
                    number.map { abs($0 - value) <= 1e-9 * max(1, abs(value)) } == true,
                    "\(what) \(column): \(text ?? "no column") != \(value)",
                    sourceLocation: sourceLocation)
            } else {
                #expect(text == "", "\(what) \(column): \(text ?? "no column") is not empty", sourceLocation: sourceLocation)
            }
        }
    }

    static let sqrt2 = 2.0.squareRoot()

    @Test func dailySummaryAndComparisonsCarryTheHandWorkedValues() throws {
        let night = try NightFixture(events: Self.events, job: ["offerings": "[test]", "slices": "[country]"])
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        let daily = ProjectionRunTests.records(try night.csv("daily"))
        func day(_ date: String, _ group: String) -> [String: String]? {
            daily.first { $0["offering_id"] == "test" && $0["date"] == date && $0["group"] == group }
        }
        // 03-04 ends at u1's trial's end (lapsed, its charge not yet made); u3's trial runs, u4's has no end.
        Self.expect(day("2026-03-04", "control"), Self.columns, [0, 0, 0, 0, 0, 1, 0, 0, 0, 0], "03-04 control")
        Self.expect(day("2026-03-04", "variant"), Self.columns, [0, 0, 0, 0, 1, 0, 1, nil, 0, 0], "03-04 variant")
        // 03-08: u1 converted (7; sd of 7 and 0 is 3.5√2), u3's charge counts (17), its trial lapsed.
        Self.expect(day("2026-03-08", "control"), Self.columns, [7, 3.5, 3.5 * Self.sqrt2, 1, 0, 0, 0, 1, 1, 0], "03-08 control")
        Self.expect(day("2026-03-08", "variant"), Self.columns, [17, 8.5, 8.5 * Self.sqrt2, 0, 0, 1, 1, 0, 1, 0], "03-08 variant")
        let lift = ["proceeds_per_user_abs_lift", "proceeds_per_user_rel_lift"]
        Self.expect(day("2026-03-08", "variant"), lift, [5, 5 / 3.5], "03-08 variant lift")
        // 03-09: u3's refund takes back 3.4 and ends u3's subscription.
        Self.expect(day("2026-03-09", "variant"), Self.columns, [13.6, 6.8, 6.8 * Self.sqrt2, 0, 0, 1, 1, 0, 0, 1], "03-09 variant")
        // 03-11 ends at u1's period's end, before its renewal: churned; u2's trial runs.
        Self.expect(day("2026-03-11", "control"), Self.columns, [7, 3.5, 3.5 * Self.sqrt2, 1, 1, 0, 0, 1, 0, 1], "03-11 control")
        // The last day, and the night's summary.csv.
        let control: [Double?] = [14, 7, 7 * Self.sqrt2, 1, 1, 0, 0, 1, 1, 0]
        let variant: [Double?] = [13.6, 6.8, 6.8 * Self.sqrt2, 0, 0, 1, 1, 0, 0, 1]
        Self.expect(day("2026-03-15", "control"), Self.columns, control, "03-15 control")
        Self.expect(day("2026-03-15", "variant"), Self.columns, variant, "03-15 variant")
        Self.expect(day("2026-03-15", "variant"), lift, [-0.2, -0.2 / 7], "03-15 variant lift")
        let summary = ProjectionRunTests.records(try night.csv("summary"))
        Self.expect(summary.first { $0["group"] == "control" }, Self.columns, control, "summary control")
        Self.expect(summary.first { $0["group"] == "variant" }, Self.columns, variant, "summary variant")

        // comparisons.csv: proceeds per user 7 → 6.8; completed trials 1 of 1 → 0 of 1.
        let comparisons = ProjectionRunTests.records(try night.csv("comparisons"))
        let values = ["control_value", "value", "abs_lift"]
        Self.expect(comparisons.first { $0["metric"] == "proceeds_per_user" }, values, [7, 6.8, -0.2], "proceeds_per_user row")
        Self.expect(comparisons.first { $0["metric"] == "trial_completed_conversion" }, values, [1, 0, -1], "trial row")

        // products.csv: u1's two weekly charges; u3's annual charge less its refund.
        let products = ProjectionRunTests.records(try night.csv("products"))
        func product(_ group: String, _ id: String) -> [String: String]? {
            products.first { $0["group"] == group && $0["product_id"] == id }
        }
        Self.expect(product("control", "weekly"), ["net_revenue", "net_proceeds"], [20, 14], "control weekly")
        Self.expect(product("variant", "annual"), ["net_revenue", "net_proceeds"], [16, 13.6], "variant annual")

        // Slices by country: DE (u1, u3), then (none) (u4) and US (u2), one user each, in byte order.
        let slices = ProjectionRunTests.records(try night.csv("slice_summary"))
        #expect(slices.map { $0["level"] ?? "" } == ["DE", "DE", "(none)", "(none)", "US", "US"])
        func slice(_ level: String, _ group: String) -> [String: String]? {
            slices.first { $0["dimension"] == "country" && $0["level"] == level && $0["group"] == group }
        }
        Self.expect(slice("DE", "control"), Self.columns, [14, 14, nil, 1, 0, 0, 0, 1, 1, 0], "DE control")
        Self.expect(slice("DE", "variant"), Self.columns, [13.6, 13.6, nil, 0, 0, 1, 0, 0, 0, 1], "DE variant")
        Self.expect(slice("US", "control"), Self.columns, [0, 0, nil, 0, 1, 0, 0, nil, 0, 0], "US control")
        Self.expect(slice("US", "variant"), Self.columns, [0, nil, nil, 0, 0, 0, 0, nil, 0, 0], "US variant")
        Self.expect(slice("(none)", "variant"), Self.columns, [0, 0, nil, 0, 0, 0, 1, nil, 0, 0], "(none) variant")
        let sliceComparisons = ProjectionRunTests.records(try night.csv("slice_comparisons"))
        func sliceRow(_ metric: String) -> [String: String]? {
            sliceComparisons.first { $0["level"] == "DE" && $0["metric"] == metric }
        }
        // One user a group: the means, but no difference (an arpu row's rule for fewer than 2 users).
        Self.expect(sliceRow("proceeds_per_user"), values, [14, 13.6, nil], "DE proceeds_per_user row")
        Self.expect(sliceRow("trial_completed_conversion"), values, [1, 0, -1], "DE trial row")
    }
}
