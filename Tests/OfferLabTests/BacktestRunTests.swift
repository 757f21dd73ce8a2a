import Foundation
import OfferLabTestSupport
import Testing

/// The app's own track record in `offerlab run` (docs/statistics.md#the-apps-own-track-record):
/// `backtest.csv`, its table and the report's line, on a past whose rows are worked by hand.
@Suite struct BacktestRunTests {
    /// Charge `charge` (0: the purchase) of a monthly chain `id` bought at `start`, at 20 USD (a
    /// price a double holds exactly, so that sums in any order are equal): charge k falls k
    /// periods of 365.25/12 = 30.4375 days after the purchase, as the projection bills.
    static func charge(_ id: String, _ charge: Int, start: TimeInterval) -> String {
        let time = Date(timeIntervalSince1970: start + Double(charge) * 30.4375 * 86_400)
        return ProjectionRunTests.line(
            charge == 0 ? "purchase" : "renewal", user: id, ts: ISO8601DateFormatter().string(from: time), product: "monthly",
            transaction: "\(id)-\(charge)", original: id, price: "20")
    }

    /// January 2025 (purchases on 2025-01-05T10:00Z): 40 buyers, 30 renew once (on day 30, at
    /// 30.4375 days) and stop, 10 stop after their purchase. June 2025 (2025-06-10T10:00Z): 10
    /// buyers, 8 renew once and stop, 2 stop after their purchase.
    static let pastLines: [String] =
        buyers("jan", 40, renewing: 30, start: 1_736_071_200) + buyers("jun", 10, renewing: 8, start: 1_749_549_600)

    /// `count` monthly buyers bought at `start`, the first `renewing` of them renewing once.
    static func buyers(_ name: String, _ count: Int, renewing: Int, start: TimeInterval) -> [String] {
        var lines: [String] = []
        for buyer in 0..<count {
            for index in 0..<(buyer < renewing ? 2 : 1) { lines.append(charge("\(name)\(buyer)", index, start: start)) }
        }
        return lines
    }

    /// The standard night (as_of 2026-03-16; its logs' own chains, bought in March 2026, have 11
    /// days or fewer after them: no cohort) with `history` as its past.
    static func night(history: [String]) throws -> NightFixture {
        let night = try NightFixture()
        try HistoryRunTests.writePast(history, to: "past/h.jsonl.gz", of: night)
        try night.writeJob(["history_logs": "[\"past/*.gz\"]"])
        return night
    }

    /// The rows, worked by hand (monthly: 30.4375 days; a renewal k is due k periods after the
    /// purchase; a buyer is read at 00:00 UTC 30 or 60 days after the day of its purchase, 29 or 59
    /// days and 14 hours after it):
    ///
    /// - January, day 30: the cut is 2025-01-31, before any other chain's first charge: the past is
    ///   empty and the buyers have seen no renewal (the first is due on day 30.4375): no rate seen, no
    ///   projection. Horizon: 2025-01-05T10:00 to 2026-03-16 is over a year, 365 days. Paid: 40
    ///   purchases and 30 renewals on day 30 (renewal 2 would fall on day 60.875): 70 · 20 / 40 = 35.
    /// - January, day 60 (cut 2025-03-02, still no other chain): the buyers' own renewal 1, 30 of 40
    ///   due, is the only rate seen, so the 30 running chains (renewal 2 due on day 60.875) continue
    ///   at 0.75 through renewal 11 (due on day 334.8; the 12th, on day 365.25, is past the horizon):
    ///   per buyer (70 · 20 + 30 · 20 · Σ_{j=1..10} 0.75^j) / 40 = 35 + 15 · 3 · (1 − 0.75^10) =
    ///   77.465892…; even renewals at the continuation's lowest draws leave the year above 35, which the
    ///   interval does not hold: `covered` false.
    /// - June, day 30 (cut 2025-07-01): January's chains as they stood then: renewal 1 40 due, 30
    ///   renewed; renewal 2 (due 2025-03-07) 30 due, none renewed. The June buyers (due at renewal 1
    ///   on day 30.4375) take those rates as they are (they have seen none of their own): each pays
    ///   20 + 0.75 · 20 = 35, and renewal 2 at 0 ends every chain. Horizon: 2025-06-10T10:00 to
    ///   2026-03-16T00:00 is 278.6 days, 278. Paid: (10 + 8) · 20 / 10 = 36, inside an interval
    ///   of the buyers' binomial renewal 1 around 35 (about ± 6).
    /// - June, day 60 (cut 2025-07-31): the buyers' renewal 1 is seen (8 of 10; too few due to
    ///   compare), the 8 running chains' renewal 2 is at the past's 0: nothing more to come, and the
    ///   interval is the paid amount itself, 36, 36 to 36: `covered` true.
    @Test func aHandWorkedPastGivesItsRowsAndTheReportsLine() throws {
        let night = try Self.night(history: Self.pastLines)
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError == "")
        let rows = try night.csv("backtest")
        #expect(
            rows.first == [
                "product_id", "read_day", "cohort_month", "buyers", "projected_revenue_per_buyer", "ci_low", "ci_high",
                "realized_revenue_per_buyer", "horizon_days", "covered",
            ])
        let records = ProjectionRunTests.records(rows)
        #expect(
            records.map { [$0["product_id"], $0["read_day"], $0["cohort_month"], $0["buyers"], $0["horizon_days"]] } == [
                ["monthly", "30", "2025-01", "40", "365"], ["monthly", "30", "2025-06", "10", "278"],
                ["monthly", "60", "2025-01", "40", "365"], ["monthly", "60", "2025-06", "10", "278"],
            ])
        guard records.count == 4 else { return }
        let (january30, june30, january60, june60) = (records[0], records[1], records[2], records[3])
        #expect(january30["projected_revenue_per_buyer"] == "" && january30["ci_low"] == "" && january30["covered"] == "")
        #expect(try ProjectionRunTests.number(january30["realized_revenue_per_buyer"]) == 35)

        #expect(abs(try ProjectionRunTests.number(june30["projected_revenue_per_buyer"]) - 35) < 1e-9, "\(june30)")
        let (low, high) = (try ProjectionRunTests.number(june30["ci_low"]), try ProjectionRunTests.number(june30["ci_high"]))
        #expect(20 <= low && low < 33 && 37 < high && high < 45, "\(june30)")
        #expect(try ProjectionRunTests.number(june30["realized_revenue_per_buyer"]) == 36)
        #expect(june30["covered"] == "true")

        let januaryYear: Double = 35 + 15 * 3 * (1 - (0..<10).reduce(1.0) { power, _ in power * 0.75 })
        // Money is written to the micro-unit.
        #expect(abs(try ProjectionRunTests.number(january60["projected_revenue_per_buyer"]) - januaryYear) <= 5e-7, "\(january60)")
        #expect(try ProjectionRunTests.number(january60["ci_low"]) > 50, "\(january60)")
        #expect(try ProjectionRunTests.number(january60["realized_revenue_per_buyer"]) == 35)
        #expect(january60["covered"] == "false")

        for column in ["projected_revenue_per_buyer", "ci_low", "ci_high", "realized_revenue_per_buyer"] {
            #expect(try ProjectionRunTests.number(june60[column]) == 36, "\(column): \(june60)")
        }
        #expect(june60["covered"] == "true")

        // The table keeps the rows; the report says it per product, run and rebuilt alike.
        #expect(try night.databaseRows()["backtest"]?.count == 4)
        let line =
            "monthly: on this app&#39;s past, the year projected at day 30 held the paid amount in 1 of 1 month "
            + "(1 more it could not project yet); at day 60 in 1 of 2 months"
        let report = try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)
        #expect(report.contains(line), "\(report)")
        let rebuilt = try runOfferLab(["report", "--db", night.databasePath, "--output", "-"])
        #expect(rebuilt.status == 0 && rebuilt.standardOutput == report)
    }

    /// A job without `history_logs` has no past, hence no backtest: no file, an empty table, no line.
    @Test func aNightWithoutAPastHasNoBacktest() throws {
        let night = try NightFixture()
        let run = try night.run()
        #expect(run.status == 0 && run.standardError == "", "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: night.folder.file("out/2026-03-16/backtest.csv")))
        #expect(try night.databaseRows()["backtest"] == [])
        let report = try String(contentsOfFile: night.folder.file("out/2026-03-16/report.html"), encoding: .utf8)
        #expect(!report.contains("on this app&#39;s past"))
    }

    /// A past whose every month has 30 days or fewer after its last first charge (one buyer on
    /// 2026-02-20: 23 days before the night) is too short for any cohort: one warning line, the
    /// header alone, and a successful night.
    @Test func aPastTooShortForAnyCohortIsOneLineAndASuccessfulNight() throws {
        let night = try Self.night(history: [Self.charge("feb", 0, start: 1_771_581_600)])
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardError
                == "warning: the app's past is too short for a backtest: no month of a renewing product's first charges has more than "
                + "30 days of past after its last first charge before as_of; backtest.csv is empty\n")
        #expect(try night.csv("backtest").count == 1)
        #expect(try night.databaseRows()["backtest"] == [])
    }

    /// A later night that reads the past back from the cache as its chains (their counted events
    /// kept with them) writes the backtest of the files.
    @Test func aPastReadBackAsItsChainsGivesTheSameBacktest() throws {
        let night = try Self.night(history: Self.pastLines)
        try night.writeJob(["cache": "cache/"])
        #expect(try night.run(["--no-cache"]).status == 0)
        let plain = try night.csv("backtest")
        #expect(plain.count == 5)
        for run in 1...2 {
            let result = try night.run()
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try night.csv("backtest") == plain, "run \(run)")
        }
    }
}
