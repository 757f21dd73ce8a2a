import Foundation
import OfferLabTestSupport
import OfferLabVocabulary
import Testing

/// The projection's horizon is the year whatever `conversion_window_days` (contract §2.14, "The
/// horizon is the year"; docs/statistics.md#the-projection-in-a-run), through the real binary:
/// the money after the window reaches the projection and no other number.
@Suite struct ProjectionHorizonRunTests {
    /// A 7-day window from 2026-01-01 (it ends on 2026-01-08): u1 buys the weekly plan inside it
    /// and renews twice after it; u2 buys after it and is refunded; u3 buys the monthly plan inside
    /// it, renews after it and gets 5 back of that renewal; u4 pays nothing.
    static let purchases: [String] = [
        line("purchase", user: "u1", ts: "2026-01-02T10:00:00Z", product: "weekly", transaction: "t1", original: "t1", price: "7.99"),
        line("renewal", user: "u1", ts: "2026-01-09T10:00:00Z", product: "weekly", transaction: "t1b", original: "t1", price: "7.99"),
        line("renewal", user: "u1", ts: "2026-01-16T10:00:00Z", product: "weekly", transaction: "t1c", original: "t1", price: "7.99"),
        line("purchase", user: "u2", ts: "2026-01-10T10:00:00Z", product: "weekly", transaction: "t2", original: "t2", price: "7.99"),
        line("purchase", user: "u3", ts: "2026-01-03T12:00:00Z", product: "monthly", transaction: "t3", original: "t3", price: "19.99"),
        line("renewal", user: "u3", ts: "2026-02-03T12:00:00Z", product: "monthly", transaction: "t3b", original: "t3", price: "19.99"),
    ]
    /// The refunds of the charges after the window: orphans for every realised number.
    static let refunds: [String] = [
        line("refund", user: "u2", ts: "2026-01-11T10:00:00Z", product: "weekly", transaction: "t2"),
        line("refund", user: "u3", ts: "2026-02-04T12:00:00Z", product: "monthly", transaction: "t3b", price: "5"),
    ]

    static func line(
        _ name: String, user: String, ts: String, product: String, transaction: String, original: String? = nil, price: String? = nil
    ) -> String {
        ProjectionRunTests.line(name, user: user, ts: ts, product: product, transaction: transaction, original: original, price: price)
    }

    static func night(_ events: [String]) throws -> NightFixture {
        try NightFixture(
            tables: ProjectionRunTests.tables(assignedAt: "2026-01-01 00:00:00"), events: events,
            job: ["conversion_window_days": "7", "max_days_after_last_event": "400"])
    }

    @Test func theMoneyAfterTheWindowReachesTheProjectionOnly() throws {
        let full = try Self.night(Self.purchases + Self.refunds)
        let run = try full.run()
        #expect(run.status == 0, "\(run.standardError)")
        // Without the charges after the window (t1b, t1c, t2, t3b): the night the window shows.
        let afterWindow = ["t1b", "t1c", "t2", "t3b"].map { "\"transaction_id\":\"\($0)\"" }
        let windowOnly = try Self.night(Self.purchases.filter { line in !afterWindow.contains { line.contains($0) } } + Self.refunds)
        #expect(try windowOnly.run().status == 0)

        // The realised part of the projection is the members' first year so far: control
        // (3 · 7.99 + 7.99 − 7.99)/2 = 11.985, variant (2 · 19.99 − 5)/2 = 17.49; the window's
        // own is 7.99/2 and 19.99/2.
        for (fixture, expected) in [(full, [11.985, 17.49]), (windowOnly, [3.995, 9.995])] {
            let groups = ProjectionRunTests.records(try fixture.csv("projection"))
            #expect(groups.map { $0["group"] } == ["control", "variant"])
            for (group, value) in zip(groups, expected) {
                #expect(abs(try ProjectionRunTests.number(group["realized_arpu"]) - value) < 1e-9, "\(group)")
            }
        }
        // Every realised number is the window's: the same with and without the money after it.
        let summary = ProjectionRunTests.records(try full.csv("summary"))
        #expect(summary.map { $0["net_revenue"] } == ["7.99", "19.99"])
        for name in ["summary", "products", "srm", "daily", "comparisons"] {
            let text = { (fixture: NightFixture) in
                withoutProjectedRows(try String(contentsOfFile: fixture.folder.file("out/2026-03-16/\(name).csv"), encoding: .utf8))
            }
            #expect(try text(full) == text(windowOnly), "\(name).csv")
        }
        let offeringQuality = { (fixture: NightFixture) in try fixture.csv("quality").filter { $0.first == "test" } }
        #expect(try offeringQuality(full) == offeringQuality(windowOnly))
        // The refunds of charges after the window stay orphans for the night.
        #expect(try full.quality("orphan_refunds", offering: "test") == 2)
    }

    /// A chain's state tonight is read from the whole year, window or not (contract §2.14, "What a
    /// member's state says"): `ProjectionTurnedOffTests`' 200 monthly members in each group, read
    /// on day 40 with a 7-day window, every cancel after it. Members 0–99 turn renewal off on day
    /// 20 and 10 of them renew all the same; 90 of members 100–199 renew; members 100–119 turn it
    /// off again on day 35. The year is the unit test's, (3000 + 80·on + 20·off)/200 a member, as
    /// without a window; with the cancels after the window left out it was the year without them.
    @Test func aCancelAfterTheWindowKeepsItsChainsStateTonight() throws {
        let start = try #require(ISO8601DateFormatter().date(from: "2026-01-01T00:00:00Z"))
        let time = { (days: Double) in ISO8601DateFormatter().string(from: start.addingTimeInterval(days * 86_400)) }
        var assignments: [(user: String?, offering: String, group: String, assignedAt: String)] = []
        var events: [String] = []
        for (group, prefix) in [("10", "c"), ("11", "v")] {
            for member in 0..<200 {
                let (user, chain) = ("\(prefix)\(member)", "\(prefix)t\(member)")
                assignments.append((user, "1", group, "2026-01-01 00:00:00"))
                events.append(
                    Self.line(
                        "purchase", user: user, ts: time(1.0 / 24), product: "monthly", transaction: chain, original: chain, price: "10"))
                if member < 100 {
                    events.append(Self.line("cancel", user: user, ts: time(20), product: "monthly", transaction: chain, original: chain))
                }
                if member < 10 || (100..<190).contains(member) {
                    events.append(
                        Self.line(
                            "renewal", user: user, ts: time(30.5), product: "monthly", transaction: chain + "r", original: chain,
                            price: "10"))
                }
                if (100..<120).contains(member) {
                    events.append(Self.line("cancel", user: user, ts: time(35), product: "monthly", transaction: chain, original: chain))
                }
            }
        }
        let products = [(10, "monthly", "monthly", "10", String?.none), (11, "monthly", "monthly", "10", nil)]
        func year(window: String?, cancels: Bool) throws -> [Double] {
            var job = ["as_of": "2026-02-10T00:00:00Z"]
            job["conversion_window_days"] = window
            let night = try NightFixture(
                tables: TablesFixture(assignments: assignments, products: products),
                events: cancels ? events : events.filter { !$0.contains("\"event\":\"cancel\"") }, job: job)
            let run = try night.run()
            #expect(run.status == 0, "\(run.standardError)")
            return try ProjectionRunTests.records(try night.csv("projection", night: "2026-02-10")).map {
                try ProjectionRunTests.number($0["projected_arpu_365"])
            }
        }
        let later = { (count: Int) -> Double in (1...count).reduce(0.0) { $0 + 10 * pow(0.5, Double($1)) } }
        let expected = (3000 + 80 * later(10) + 20 * 0.1 * (10 + later(9))) / 200
        let windowed = try year(window: "7", cancels: true)
        #expect(windowed.count == 2 && windowed.allSatisfy { abs($0 - expected) < 1e-9 }, "\(windowed), \(expected)")
        #expect(try year(window: nil, cancels: true) == windowed)
        #expect(try year(window: "7", cancels: false).allSatisfy { abs($0 - (3000 + 100 * later(10)) / 200) < 1e-9 })
    }

    /// The sample night without its past (jobs/sample.yaml but `history_logs`: a 14-day window,
    /// 28 days of data): every group's projection is a year's, so it needs the renewals of a year
    /// (52 weekly, 12 monthly) of which no member has reached the first often enough: no rate seen,
    /// only far ends (with the past the sample has, a rate is seen); it once projected the window's 14 days instead,
    /// labelled a year (impact_365 USD +166,810.60). Its other numbers are the reference's
    /// (`EndToEndTests.outputsMatchTheReference`).
    @Test func theSampleNightProjectsAYearThroughItsFourteenDayWindow() throws {
        let folder = try TemporaryFolder()
        let sampleData = repositoryRoot.appendingPathComponent("sample-data").path
        let sample = try String(contentsOf: repositoryRoot.appendingPathComponent("jobs/sample.yaml"), encoding: .utf8)
        let job = folder.file("sample-without-past.yaml")
        try sample.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("history_logs:") }
            .joined(separator: "\n").replacingOccurrences(of: "../sample-data", with: sampleData)
            .write(toFile: job, atomically: true, encoding: .utf8)
        let run = try runOfferLab(["run", job, "--quiet", "--output", folder.path, "--database", folder.file("results.sqlite")])
        #expect(run.status == 0, "\(run.standardError)")
        let groups = ProjectionRunTests.records(
            parseCSV(try String(contentsOfFile: folder.file("2026-03-15/projection.csv"), encoding: .utf8)))
        #expect(groups.count == 6)
        for group in groups {
            let reason = try #require(group["reason"])
            // No value exactly where the reason names renewals without a rate seen.
            #expect(
                (group["projected_arpu_365"] == "") == !reason.isEmpty
                    && (reason.isEmpty || reason.contains("needs 52 renewals") || reason.contains("needs 12 renewals")),
                "\(group)")
            // The upper far end, renewals at 0.98: several times what 28 days brought (6.7 to 12
            // times), not the window's revenue.
            #expect(
                try ProjectionRunTests.number(group["projected_arpu_365_bound_high"])
                    > 5 * ProjectionRunTests.number(group["realized_arpu"]))
        }
        // A year's impact only where both newcomers' years have a value.
        let decisions = ProjectionRunTests.records(
            parseCSV(try String(contentsOfFile: folder.file("2026-03-15/decisions.csv"), encoding: .utf8)))
        let comparisons = ProjectionRunTests.records(
            parseCSV(try String(contentsOfFile: folder.file("2026-03-15/comparisons.csv"), encoding: .utf8)))
        for decision in decisions {
            let projected = comparisons.first { $0["group"] == decision["group"] && $0["metric"] == "projected_arpu_365" }
            #expect((decision["impact_365"] == "") == (projected?["abs_lift"] ?? "" == ""), "\(decision)")
        }
        #expect(decisions.count == 4)
        // One metric catalogue (docs/architecture.md, "The vocabulary"): each offering compares the
        // metrics the job's keys may name (`Metric.compared`: its cap, maturities 3 and 7) and the
        // projected year, in that order, each read back by its name with its words.
        for offering in ["onboarding_copy_test", "spring_2026_price_test"] {
            var written: [String] = []
            for row in comparisons where row["offering_id"] == offering {
                if let name = row["metric"], !written.contains(name) { written.append(name) }
            }
            let catalogue = Metric.compared(maturityDays: [3, 7], hasRevenueCap: true) + [.projectedARPU365]
            #expect(written == catalogue.map(\.csvName), "\(offering)")
            #expect(written.compactMap { Metric(csvName: $0)?.plainName } == catalogue.map(\.plainName))
        }
    }
}
