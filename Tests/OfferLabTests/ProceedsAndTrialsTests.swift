import OfferLabIngest
import OfferLabJob
import OfferLabStatistics
import Testing

@testable import OfferLab
@testable import OfferLabAnalysis

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
    static let chain = [
        charge("u1", "2025-03-01T00:00:00Z", "100", event: "purchase", transaction: "p1", original: "o1"),
        charge("u1", "2026-02-28T00:00:00Z", "100", event: "renewal", transaction: "r1", original: "o1"),
        charge("u1", "2026-03-01T00:00:00Z", "100", event: "renewal", transaction: "r2", original: "o1"),
        charge("u1", "2026-03-02T00:00:00Z", "100", event: "renewal", transaction: "r3"),
    ]

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
            charge("rc", "2026-03-02T00:00:00Z", "10", transaction: "c", country: "DE", taxShare: 100_000, commissionShare: 150_000),
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

    /// Stores are matched in any case (contract §1.6): RevenueCat's `PLAY_STORE` pays Google Play's
    /// 15 %, `App_Store` the App Store's 30 %, and a job's `Amazon` commission applies to `amazon`.
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
    static let events = [
        // t1's trial ends exactly at as_of: lapsed. t2's after it: pending. t3's has no end: unknown.
        logRecord(
            "trial_start", user: "t1", ts: "2026-03-13T00:00:00Z", transaction: "t1t", product: "weekly", expires: "2026-03-20T00:00:00Z"),
        logRecord(
            "trial_start", user: "t2", ts: "2026-03-15T00:00:00Z", transaction: "t2t", product: "weekly", expires: "2026-03-22T00:00:00Z"),
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

    @Test func trialStatesAndSubscribersAsOfTheNight() async throws {
        let results = try await analyse(assigned(["t1", "t2", "t3", "t4", "s1", "s2", "s3"]), Self.events)
        let control = results.offerings[0].groups[0]
        #expect(
            [control.trialsConverted, control.trialsPending, control.trialsLapsed, control.trialsUnknown] == [1, 1, 1, 1])
        #expect(control.trialCompletedConversionRate == 0.5)
        #expect(control.trialCompletedStatistics.users == 2 && control.trialCompletedStatistics.converters == 1)
        #expect(control.activeSubscribers == 1 && control.churnedSubscribers == 3)
    }

    /// The projection (contract §2.14) reads a charge's `expires_at` as its chain's next due time:
    /// each purchase's own, none for the charge without one, none for a refund.
    @Test func theProjectionReadsEachChargesExpiry() async throws {
        let results = try await analyse(assigned(["t4", "s1", "s3"]), Self.events)
        let events = try #require(results.offerings[0].projection).groups[0].events
        let april10 = try #require(UTCTime.parseAsOf("2026-04-10"))
        #expect(events.map(\.expiresAt) == [nil, april10, nil, april10], "\(events)")
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
