import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLabStatistics
@testable import OfferLabWriters

/// The nightly decision in `offerlab run` (docs/statistics.md, "The decision"): `decisions.csv`,
/// the database, the report and the lines on stdout, on hand-made nights whose status is known.
@Suite struct DecisionRunTests {
    /// One member of `test`: the day (0–13) of its assignment after 2026-03-02, what it paid and
    /// whether a dollar of it was refunded.
    struct Member {
        var day: Int
        var price: Double? = nil
        var refunded = false
        /// The hour of the day it was assigned at (UTC).
        var hour = 0
    }

    /// `control` (group 10) and `variant` (group 11) of `test`, equal weights, each selling the
    /// product of its `products` type (both a weekly plan by default: not a period test); every
    /// charge is logged as `products`' product of its group; `solo` has one group. `as_of` is
    /// 2026-03-16, day 14.
    static func night(
        control: [Member], variant: [Member], job: [String: String] = [:],
        products: (control: String, variant: String) = ("weekly", "weekly")
    ) throws -> NightFixture {
        var assignments: [(user: String?, offering: String, group: String, assignedAt: String)] = []
        var events: [String] = []
        for (group, members, product) in [("10", control, products.control), ("11", variant, products.variant)] {
            for (index, member) in members.enumerated() {
                let user = "g\(group)u\(index)"
                let day = String(format: "%02d", 2 + member.day)
                // Its charge an hour after its assignment, its refund two.
                let hour = { (after: Int) in String(format: "%02d", member.hour + after) }
                assignments.append((user, "1", group, "2026-03-\(day) \(hour(0)):00:00"))
                guard let price = member.price else { continue }
                events.append(
                    ProjectionRunTests.line(
                        "purchase", user: user, ts: "2026-03-\(day)T\(hour(1)):00:00Z", product: product, transaction: "t\(user)",
                        price: "\(price)"))
                if member.refunded {
                    events.append(
                        ProjectionRunTests.line(
                            "refund", user: user, ts: "2026-03-\(day)T\(hour(2)):00:00Z", product: product, transaction: "t\(user)",
                            price: "1"))
                }
            }
        }
        assignments.append(("s1", "3", "30", "2026-03-02 00:00:00"))
        let tables = TablesFixture(
            assignments: assignments, offerings: [(1, "test", "Test", true), (3, "solo", "Solo", true)],
            groups: [(10, 1, "control", 1), (11, 1, "variant", 1), (30, 3, "only", 1)],
            products: [(10, products.control, products.control, "7.99", nil), (11, products.variant, products.variant, "7.99", nil)])
        return try NightFixture(tables: tables, events: events, job: job)
    }

    /// `count` members spread over days `days` in turn, assigned at `hour`, the first `paying` of
    /// them paying `price` (the first `refunded` of those refunded a dollar).
    static func members(
        _ count: Int, paying: Int = 0, price: Double = 10, refunded: Int = 0, days: Range<Int> = 0..<14, hour: Int = 0
    ) -> [Member] {
        (0..<count).map { index in
            Member(
                day: days.lowerBound + index % days.count, price: index < paying ? price : nil, refunded: index < min(refunded, paying),
                hour: hour)
        }
    }

    /// Runs the night and gives the decision of `variant` by column, and the run's stdout.
    static func decision(_ night: NightFixture, date: String = "2026-03-16") throws -> (row: [String: String], standardOutput: String) {
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        let rows = ProjectionRunTests.records(try night.csv("decisions", night: date))
        #expect(rows.map { $0["offering_id"] } == ["test"], "one treatment; the one-group offering has no row")
        return (try #require(rows.first), run.standardOutput)
    }

    static func number(_ text: String?) throws -> Double { try #require(text.flatMap(Double.init)) }

    /// 10% of control pays 10, 75% of the variant: revenue per user 1 against 7.5, a win well past
    /// any interval. Half of each group joined in the last 7 days.
    @Test func aWinningGoalShips() throws {
        let night = try Self.night(control: Self.members(200, paying: 20), variant: Self.members(200, paying: 150))
        let (row, output) = try Self.decision(night)
        #expect(row["status"] == "ship" && row["control_group"] == "control" && row["goal_metric"] == "arpu")
        #expect(row["losing_guardrails"] == "" && row["days_left"] == "", "a decided test has no days left")
        #expect(abs(try Self.number(row["goal_rel_lift"]) - 6.5) < 1e-9)
        #expect(try Self.number(row["goal_rel_lift_ci_low"]) > 0)
        // Why: 7.5 times the payers (+650%), each paying the same.
        #expect(abs(try Self.number(row["conversion_rel_lift"]) - 6.5) < 1e-9)
        #expect(abs(try Self.number(row["arppu_rel_lift"])) < 1e-12)
        // Days 0–13 in turn: days 7–13 hold 14 of each group's 200 per day (days 0–3 hold 15).
        #expect(abs(try Self.number(row["enrolment_per_day"]) - 196.0 / 7) < 1e-9)
        #expect(abs(try Self.number(row["annual_users"]) - 365 * 196.0 / 7) < 1e-6)
        #expect(abs(try Self.number(row["runtime_days"]) - 14) < 1e-9)
        // What shipping is worth: the projected first-year difference × a year of newcomers, its
        // interval likewise; all empty where the projection has no value (its bounds alone stay in
        // comparisons.csv).
        let projected = try #require(
            ProjectionRunTests.records(try night.csv("comparisons")).first {
                $0["offering_id"] == "test" && $0["metric"] == "projected_arpu_365"
            })
        let annual = 365 * 196.0 / 7
        let hasValue = projected["abs_lift"].flatMap(Double.init) != nil
        for (impact, lift) in [
            ("impact_365", "abs_lift"), ("impact_365_ci_low", "abs_lift_ci_low"), ("impact_365_ci_high", "abs_lift_ci_high"),
        ] {
            if hasValue, let difference = projected[lift].flatMap(Double.init) {
                #expect(abs(try Self.number(row[impact]) - difference * annual) < 1e-6 * max(1, abs(difference * annual)), "\(impact)")
            } else {
                #expect(row[impact] == "", "\(impact)")
            }
        }
        #expect(row["reason"]?.hasPrefix("Ship variant: revenue per user +650.0% (") == true, "\(row["reason"] ?? "")")
        #expect(output.contains("\ntest variant: ship: Ship variant: revenue per user +650.0%"), "\(output)")
    }

    /// The same winning goal, but 60 of the variant's payers were refunded a dollar: its revenue
    /// per user still wins (7.2 against 1), its refund user rate (30% against 0) loses.
    @Test func aGuardrailThatLosesRollsBackAWinningGoal() throws {
        let night = try Self.night(control: Self.members(200, paying: 20), variant: Self.members(200, paying: 150, refunded: 60))
        let (row, _) = try Self.decision(night)
        #expect(row["status"] == "roll_back" && row["losing_guardrails"] == "refund_user_rate")
        #expect(abs(try Self.number(row["goal_rel_lift"]) - 6.2) < 1e-9)
        #expect(
            row["reason"] == "Roll back variant and keep control: users refunded (lower is better) is worse than control.",
            "\(row["reason"] ?? "")")
        let summary = ProjectionRunTests.records(try night.csv("summary")).filter { $0["offering_id"] == "test" }
        #expect(summary.map { $0["refund_users"] } == ["0", "60"] && summary.map { $0["refund_user_rate"] } == ["0", "0.3"])
    }

    /// Day 3 with a winning goal: too early; the days left never fall below the 4 the minimum runtime needs.
    @Test func dayThreeWithAWinningGoalIsTooEarly() throws {
        let (row, _) = try Self.decision(
            try Self.night(
                control: Self.members(200, paying: 20, days: 11..<14), variant: Self.members(200, paying: 150, days: 11..<14)))
        #expect(row["status"] == "too_early")
        #expect(abs(try Self.number(row["runtime_days"]) - 3) < 1e-9)
        // Fewer than 7 days: the enrolment is per day of the test.
        #expect(abs(try Self.number(row["enrolment_per_day"]) - 400.0 / 3) < 1e-9)
        #expect(try Self.number(row["days_left"]) >= 4)
        #expect(row["reason"]?.contains("has run 3 days of the 7 days it needs; look again in 4 days.") == true, "\(row["reason"] ?? "")")
    }

    /// The first members came at 02:00 on day 7: on day 14, 6.9 days after them but the 7th night
    /// after their night, the winning goal is not too early any more.
    @Test func theMinimumRuntimeCountsWholeNights() throws {
        let (row, _) = try Self.decision(
            try Self.night(
                control: Self.members(200, paying: 20, days: 7..<14, hour: 2),
                variant: Self.members(200, paying: 150, days: 7..<14, hour: 2)))
        #expect(abs(try Self.number(row["runtime_days"]) - (7 - 2.0 / 24)) < 1e-9)
        #expect(row["status"] == "ship", "\(row["reason"] ?? "")")
    }

    /// Day 3 of a test with no lift, which finding a 10% change would take months at 133 new
    /// users a day: too early, and the reason says that tonight's plan already runs past
    /// `max_runtime_days` (30).
    @Test func tooEarlySaysWhenThePlanIsAlreadyOutOfReach() throws {
        let (row, _) = try Self.decision(
            try Self.night(
                control: Self.members(200, paying: 40, days: 11..<14), variant: Self.members(200, paying: 40, days: 11..<14),
                job: ["decision": "fixed", "goal_metric": "conversion", "max_runtime_days": "30"]))
        let plan = try PowerPlanning.plan(
            control: SampleMoments(count: 200, mean: 0.2, variance: 0.2 * 0.8),
            treatment: SampleMoments(count: 200, mean: 0.2, variance: 0.2 * 0.8), treatments: 1, alpha: 0.05, targetMDE: 0.1,
            targetPower: 0.8, sequentialTuning: nil
        ).get()
        let days = Int((Double(plan.usersNeeded) / (400.0 / 3)).rounded(.up))
        #expect(days + 3 > 30)
        #expect(row["status"] == "too_early" && row["days_left"] == String(days))
        #expect(
            row["reason"]
                == "Too early to decide variant: the test has run 3 days of the 7 days it needs; look again in 4 days, though tonight's plan "
                + "cannot be met: at 133 new users a day, finding a 10.0% change in conversion would take about \(days) more days, past "
                + "the 30 days the test may run.", "\(row["reason"] ?? "")")
    }

    /// Equal weights, 100 against 300 members: a sample ratio mismatch withholds even a winning goal.
    @Test func aSampleRatioMismatchIsUnhealthy() throws {
        let (row, _) = try Self.decision(
            try Self.night(control: Self.members(100, paying: 10), variant: Self.members(300, paying: 225)))
        #expect(row["status"] == "unhealthy")
        #expect(row["reason"]?.contains("do not match the configured split") == true, "\(row["reason"] ?? "")")
    }

    /// 2,000 a group, half of each converting, fixed-horizon inference, goal conversion: σ̂² =
    /// 0.25/(2000·0.25) + 0.25·0.25/(2000·0.25²) = 0.001, so a 10% lift would be found with power
    /// 1 − Φ((1.959964·√0.001 − 0.1)/√0.001) + Φ(−(…+ 0.1)/√0.001) = 0.885379 (scipy): inconclusive.
    @Test func aPoweredTestWithoutAWinIsInconclusive() throws {
        let (row, _) = try Self.decision(
            try Self.night(
                control: Self.members(2000, paying: 1000), variant: Self.members(2000, paying: 1000),
                job: ["decision": "fixed", "goal_metric": "conversion"]))
        #expect(row["status"] == "inconclusive")
        #expect(abs(try Self.number(row["power"]) - 0.8853791407623514) < 1e-9)
        #expect(row["users_needed"] == "0" && row["days_left"] == "")
        #expect(
            row["reason"]?.hasPrefix(
                "Stop variant and keep control: any difference is too small to matter: by now the test would have found a 10.0% change in conversion "
            )
                == true)
    }

    /// 20% against 22% conversion in 200 a group: not yet powered. The users still needed are the
    /// power plan's for m_c = 0.2, v_c = 0.16, m_t = 0.22, v_t = 0.1716 (PowerPlanningTests holds the
    /// plan to scipy), and the days left those users at 28 a day (196 joined in the last 7 days):
    /// with `max_runtime_days: 1000` the test may run that long.
    @Test func anUnpoweredTestKeepsRunningWithTheDaysLeft() throws {
        let (row, _) = try Self.decision(
            try Self.night(
                control: Self.members(200, paying: 40), variant: Self.members(200, paying: 44),
                job: ["decision": "fixed", "goal_metric": "conversion", "max_runtime_days": "1000"]))
        let plan = try Self.unpoweredPlan
        #expect(row["status"] == "keep_running")
        #expect(abs(try Self.number(row["power"]) - plan.power) < 1e-12)
        #expect(row["users_needed"] == String(plan.usersNeeded))
        let days = Int((Double(plan.usersNeeded) / 28).rounded(.up))
        #expect(row["days_left"] == String(days))
        #expect(
            row["reason"]
                == "Keep running variant: about \(days) days left (\(ReportFormat.count(plan.usersNeeded)) more users) until the test would find a 10.0% change in conversion 80.0% of the time.",
            "\(row["reason"] ?? "")")
    }

    static var unpoweredPlan: PowerPlan {
        get throws {
            try PowerPlanning.plan(
                control: SampleMoments(count: 200, mean: 0.2, variance: 0.2 * 0.8),
                treatment: SampleMoments(count: 200, mean: 0.22, variance: 0.22 * 0.78), treatments: 1, alpha: 0.05, targetMDE: 0.1,
                targetPower: 0.8, sequentialTuning: nil
            ).get()
        }
    }

    /// The same test under the default `max_runtime_days` (90): 14 days run and hundreds to go, so
    /// stop, saying what finding the lift would take; a futile test has no days left.
    @Test func aTestThatCannotFindTheLiftInTimeIsFutile() throws {
        let (row, output) = try Self.decision(
            try Self.night(
                control: Self.members(200, paying: 40), variant: Self.members(200, paying: 44),
                job: ["decision": "fixed", "goal_metric": "conversion"]))
        let plan = try Self.unpoweredPlan
        let days = Int((Double(plan.usersNeeded) / 28).rounded(.up))
        #expect(days + 14 > 90)
        #expect(row["status"] == "futile" && row["days_left"] == "" && row["users_needed"] == String(plan.usersNeeded))
        // What the goal shows tonight comes first: conversion +10.0% and its interval.
        let (lift, low, high) = (
            try Self.number(row["goal_rel_lift"]), try Self.number(row["goal_rel_lift_ci_low"]),
            try Self.number(row["goal_rel_lift_ci_high"])
        )
        #expect(abs(lift - 0.1) < 1e-9 && low < 0 && high > 0.1)
        let shows = "conversion +10.0% (\(ReportFormat.signedPercent(low)) to \(ReportFormat.signedPercent(high)))"
        let reason =
            "Stop variant and keep control: \(shows); at 28 new users a day, finding a 10.0% change in conversion would take about \(days) more days (the test may run 90 days)."
        #expect(row["reason"] == reason, "\(row["reason"] ?? "")")
        #expect(output.contains("test variant: futile: " + reason))
    }

    /// The power plan of conversion 20% (control) against `variant`'s rate in 200 a group, for a
    /// relative lift `lift`.
    static func conversionPlan(variant: Double, lift: Double) throws -> PowerPlan {
        try PowerPlanning.plan(
            control: SampleMoments(count: 200, mean: 0.2, variance: 0.2 * 0.8),
            treatment: SampleMoments(count: 200, mean: variant, variance: variant * (1 - variant)), treatments: 1, alpha: 0.05,
            targetMDE: lift, targetPower: 0.8, sequentialTuning: nil
        ).get()
    }

    /// 20% against 28% conversion (+40%, not yet significant): finding a 10% change would take
    /// years, but the +40% it shows can be confirmed within `max_runtime_days`: keep running, with
    /// the days of that lift.
    @Test func aLeadLargerThanTheTargetKeepsRunningOnItsOwnPlan() throws {
        let (row, _) = try Self.decision(
            try Self.night(
                control: Self.members(200, paying: 40), variant: Self.members(200, paying: 56),
                job: ["decision": "fixed", "goal_metric": "conversion"]))
        let target = try Self.conversionPlan(variant: 0.28, lift: 0.1)
        // The lift as the comparison computes it, 0.28 / 0.2 − 1 in floating point.
        let lead = try Self.conversionPlan(variant: 0.28, lift: (56.0 / 200) / (40.0 / 200) - 1)
        let days = Int((Double(lead.usersNeeded) / 28).rounded(.up))
        #expect(Double(target.usersNeeded) / 28 + 14 > 90 && days + 14 <= 90)
        #expect(row["status"] == "keep_running" && row["days_left"] == String(days), "\(row)")
        #expect(row["users_needed"] == String(target.usersNeeded), "users_needed stays the target's")
        let reason = try #require(row["reason"])
        #expect(reason.hasPrefix("Keep running variant: it leads control on conversion by +40.0% ("), "\(reason)")
        #expect(
            reason.hasSuffix(
                "), more than the 10.0% worth finding; about \(days) days left (\(ReportFormat.count(lead.usersNeeded)) more users) "
                    + "until the test would confirm a lift that large 80.0% of the time."), "\(reason)")
    }

    /// 20% against 25% (+25%): neither 10% nor 25% can be found by day 90, yet a lead larger than
    /// the target is worth waiting for: keep running with the lead's days, never "stop".
    @Test func aLeadThatCannotBeConfirmedInTimeIsNeverStopped() throws {
        let (row, output) = try Self.decision(
            try Self.night(
                control: Self.members(200, paying: 40), variant: Self.members(200, paying: 50),
                job: ["decision": "fixed", "goal_metric": "conversion"]))
        let lead = try Self.conversionPlan(variant: 0.25, lift: (50.0 / 200) / (40.0 / 200) - 1)
        let days = Int((Double(lead.usersNeeded) / 28).rounded(.up))
        #expect(days + 14 > 90)
        #expect(row["status"] == "keep_running" && row["days_left"] == String(days), "\(row)")
        let reason = try #require(row["reason"])
        #expect(reason.hasPrefix("Keep running variant: it leads control on conversion by +25.0% ("), "\(reason)")
        #expect(
            reason.hasSuffix(
                "), more than the 10.0% worth finding, but at 28 new users a day, confirming a lift that large 80.0% of the time "
                    + "would take about \(days) more days, past the 90 days the test may run."), "\(reason)")
        #expect(!reason.contains("Stop") && output.contains("test variant: keep_running: " + reason))
    }

    @Test func aLongestRuntimeBelowTheShortestIsABadJob() throws {
        let night = try Self.night(control: Self.members(2), variant: Self.members(2), job: ["max_runtime_days": "5"])
        let run = try night.run()
        #expect(run.status == 78)
        #expect(run.standardError.contains("max_runtime_days") && run.standardError.contains("from min_runtime_days (7.0) to 36500"))
    }

    /// Everyone joined in the first week: no one in the last 7 days, so no days can be promised.
    @Test func enrolmentThatStoppedLeavesTheDaysLeftEmpty() throws {
        let (row, _) = try Self.decision(
            try Self.night(
                control: Self.members(200, paying: 40, days: 0..<7), variant: Self.members(200, paying: 44, days: 0..<7),
                job: ["decision": "fixed", "goal_metric": "conversion"]))
        #expect(row["status"] == "keep_running" && row["enrolment_per_day"] == "0" && row["annual_users"] == "0")
        #expect(row["days_left"] == "" && row["users_needed"] != "")
        #expect(row["reason"]?.contains("no one joined control or variant in the last 7 days") == true, "\(row["reason"] ?? "")")
    }

    /// Nobody in control converted: a relative lift has no scale, so no power plan.
    @Test func aControlMeanOf0HasNoPowerPlan() throws {
        let (row, _) = try Self.decision(
            try Self.night(
                control: Self.members(200), variant: Self.members(200, paying: 2),
                job: ["decision": "fixed", "goal_metric": "conversion"]))
        #expect(row["status"] == "keep_running" && row["power"] == "" && row["users_needed"] == "" && row["days_left"] == "")
        #expect(row["goal_rel_lift"] == "" && row["arppu_rel_lift"] == "")
        #expect(row["reason"]?.contains("control's mean is 0") == true, "\(row["reason"] ?? "")")
    }

    /// The database keeps the night's decisions, and the report it rebuilds opens the offering with them.
    @Test func theDatabaseAndTheReportCarryTheDecision() throws {
        let night = try Self.night(control: Self.members(200, paying: 20), variant: Self.members(200, paying: 150))
        let (row, _) = try Self.decision(night)
        let stored = try night.resultRows(where: "offering_id = 'test'")["decisions"] ?? []
        #expect(stored.count == 1 && stored.first?.contains("ship") == true)
        let rebuilt = try runOfferLab(["report", "--db", night.databasePath, "--as-of", "2026-03-16", "--output", "-"])
        #expect(rebuilt.status == 0, "\(rebuilt.standardError)")
        let page = rebuilt.standardOutput
        let reason = try #require(row["reason"])
        // In test's section (solo, one group, has none), before its results.
        let section = try #require(page.range(of: "<code class=\"offering-id\">test</code>"))
        let rest = page[section.upperBound...]
        let decision = try #require(rest.range(of: "What to do tonight"))
        #expect(rest.range(of: "Results by group").map { decision.lowerBound < $0.lowerBound } == true)
        #expect(page[..<section.lowerBound].range(of: "What to do tonight") == nil)
        #expect(page.contains(reason.replacingOccurrences(of: "'", with: "&#39;")))
        #expect(page.contains("Revenue per user of variant +650.0% against control: 650.0% more paying users, each paying 0.0% more."))
    }

    // MARK: Period tests (docs/statistics.md, "Period tests")

    /// The decision of a period test's variant and its projection's comparison row.
    static func periodDecision(_ night: NightFixture, date: String = "2026-03-16") throws -> (
        row: [String: String], projected: [String: String], output: String
    ) {
        let (row, output) = try Self.decision(night, date: date)
        let projected = try #require(
            ProjectionRunTests.records(try night.csv("comparisons", night: date)).first {
                $0["offering_id"] == "test" && $0["metric"] == "projected_arpu_365"
            })
        return (row, projected, output)
    }

    /// Two passes, of 3 and 7 days, never renew: each group's year is its purchases, all made on
    /// the day of assignment. 10% of control pays 10, 75% of the variant: the pair is a period
    /// test decided on its year, by the comparison's interval. Read a year and more after the
    /// assignments, every member's year is observed, so both groups have a value.
    static let passesNight = "2027-03-20"

    static func passes(
        _ job: [String: String], control: [Member] = members(200, paying: 20), variant: [Member] = members(200, paying: 150)
    ) throws -> NightFixture {
        try Self.night(
            control: control, variant: variant,
            job: job.merging([
                "as_of": "\(passesNight)T00:00:00Z", "allow_future_as_of": "true", "max_days_after_last_event": "400",
            ]) { first, _ in first },
            products: ("3_day_pass", "7_day_pass"))
    }

    @Test func aPeriodTestShipsByItsYearsInterval() throws {
        let night = try Self.passes([:])
        let (row, projected, output) = try Self.periodDecision(night, date: Self.passesNight)
        #expect(row["goal_metric"] == "projected_arpu_365" && row["period_test"] == "3-day pass against 7-day pass", "\(row)")
        #expect(row["status"] == "ship", "\(row) \(projected)")
        // The goal's lift is the comparison's relative difference, inside the sequential interval
        // that ships it: above 0 like the absolute one it is drawn from, and wider than the fixed
        // form's (the row's own width, checked below).
        let lift = try Self.number(projected["rel_lift"])
        #expect(abs(try Self.number(row["goal_rel_lift"]) - lift) < 1e-12)
        let (low, high) = (try Self.number(row["goal_rel_lift_ci_low"]), try Self.number(row["goal_rel_lift_ci_high"]))
        let fixedHalfWidth = try Self.fixedRelativeHalfWidth(projected)
        #expect(low > 0 && low < lift - fixedHalfWidth && high > lift + fixedHalfWidth, "\(row) \(projected)")
        // The year at the rates seen: the reason names the assumption and the far ends.
        let sentence =
            "Decided on revenue per user in the first year because the groups bill on different periods (3-day pass against 7-day pass), "
            + "assuming later buyers and long-staying subscribers behave as those seen so far (if they do not, anywhere from "
        let reason = try #require(row["reason"])
        #expect(
            reason.hasPrefix("Ship variant: revenue per user in the first year +") && reason.contains(" " + sentence)
                && reason.hasSuffix(" per new user)."), "\(reason)")
        #expect(output.contains("test variant: ship: " + reason))
    }

    /// A period test's refund guardrail, named in the job, reads refunds among buyers: the variant
    /// sells its pass to 150 members where control sells to 20, a fifth of each group's buyers
    /// refunded a dollar. Per member that is 15% against 2% (the night's `refund_user_rate` row
    /// loses), per buyer 20% against 20%: the year ships. With 40% of the variant's buyers
    /// refunded against 2% of control's 100, the guardrail loses among buyers too and rolls the
    /// variant back; without `guardrail_metrics` in the job a period test has no guardrail, and
    /// the year, which nets those refunds, decides alone.
    @Test func aPeriodTestsRefundGuardrailReadsRefundsAmongBuyers() throws {
        let guardrail = ["guardrail_metrics": "[refund_user_rate]"]
        let sameShare = try Self.passes(
            guardrail, control: Self.members(200, paying: 20, refunded: 4), variant: Self.members(200, paying: 150, refunded: 30))
        let (shipped, _, _) = try Self.periodDecision(sameShare, date: Self.passesNight)
        #expect(shipped["status"] == "ship" && shipped["losing_guardrails"] == "", "\(shipped)")
        let perMember = try #require(
            ProjectionRunTests.records(try sameShare.csv("comparisons", night: Self.passesNight)).first {
                $0["offering_id"] == "test" && $0["metric"] == "refund_user_rate"
            })
        #expect(try Self.number(perMember["seq_abs_lift_ci_low_adjusted"]) > 0, "per member, the variant's refunds lose: \(perMember)")

        let (control, variant) = (Self.members(200, paying: 100, refunded: 2), Self.members(200, paying: 150, refunded: 60))
        let moreRefunded = try Self.passes(guardrail, control: control, variant: variant)
        let (rolledBack, _, _) = try Self.periodDecision(moreRefunded, date: Self.passesNight)
        #expect(rolledBack["status"] == "roll_back" && rolledBack["losing_guardrails"] == "refund_user_rate", "\(rolledBack)")
        #expect(
            rolledBack["reason"]?.hasPrefix("Roll back variant and keep control: refunds among buyers (+1,900.0%) is worse than control. ")
                == true, "\(rolledBack["reason"] ?? "")")
        let (byTheYear, _, _) = try Self.periodDecision(
            try Self.passes([:], control: control, variant: variant), date: Self.passesNight)
        #expect(byTheYear["status"] == "ship" && byTheYear["losing_guardrails"] == "", "\(byTheYear)")
    }

    /// Half the width of the difference's own interval over control's value: the relative
    /// decision interval's half-width with `decision: fixed` and one treatment.
    static func fixedRelativeHalfWidth(_ projected: [String: String]) throws -> Double {
        let (ownLow, ownHigh) = (try Self.number(projected["abs_lift_ci_low"]), try Self.number(projected["abs_lift_ci_high"]))
        return (ownHigh - ownLow) / 2 / (try Self.number(projected["control_value"]))
    }

    /// The same groups with `decision: fixed`: one treatment, so the decision's interval is as
    /// wide as the comparison row's own difference interval (Holm over one is no adjustment),
    /// around the lift, in proportion of control's value.
    @Test func aFixedPeriodTestIsDecidedByAnIntervalAsWideAsTheRowsOwn() throws {
        let night = try Self.passes(["decision": "fixed"])
        let (row, projected, _) = try Self.periodDecision(night, date: Self.passesNight)
        #expect(row["status"] == "ship")
        let (low, high) = (try Self.number(row["goal_rel_lift_ci_low"]), try Self.number(row["goal_rel_lift_ci_high"]))
        let lift = try Self.number(projected["rel_lift"])
        let halfWidth = try Self.fixedRelativeHalfWidth(projected)
        #expect(abs((high - low) / 2 - halfWidth) < 1e-9 && abs((low + high) / 2 - lift) < 1e-9 && low > 0, "\(row) \(projected)")
    }

    /// Control sells a weekly plan, the variant a monthly one, and no renewal is seen often enough:
    /// neither year has a rate of renewal to continue (a monthly plan read at day 14 has seen none
    /// of its renewals), so the comparison has far ends only, and here they straddle 0: keep
    /// running, naming what is unseen, with the days until the monthly plan's first renewal is
    /// seen (a month). Then the same night with the user's own goal.
    @Test func aPeriodTestWithoutItsYearKeepsRunningNamingWhatIsUnseen() throws {
        let night = try Self.night(
            control: Self.members(200, paying: 20), variant: Self.members(200, paying: 22), job: ["max_runtime_days": "1000"],
            products: ("weekly", "monthly"))
        let (row, projected, output) = try Self.periodDecision(night)
        #expect(
            projected["abs_lift"] == "" && projected["abs_lift_ci_low"] == "" && projected["abs_lift_bound_low"] != "",
            "far ends only: \(projected)")
        #expect(row["goal_metric"] == "projected_arpu_365" && row["status"] == "keep_running", "\(row)")
        #expect(row["goal_rel_lift"] == "" && row["power"] == "" && row["users_needed"] == "")
        let reason = try #require(row["reason"])
        #expect(
            reason.hasPrefix(
                "Keep running variant: about 31 days left until its first year is known (then the power is checked): control: weekly needs 52 renewals and the test has seen none of them often enough; "
            ), "\(reason)")
        #expect(reason.contains("; variant: monthly needs 11 renewals and the test has seen none of them often enough; "), "\(reason)")
        #expect(row["days_left"] == "31")
        #expect(reason.hasSuffix("because the groups bill on different periods (weekly against monthly)."))
        #expect(output.contains("test variant: keep_running: " + reason))
        // The database and `offerlab status` carry it.
        let stored = try night.resultRows(where: "offering_id = 'test'")["decisions"] ?? []
        #expect(stored.count == 1 && stored.first?.contains("weekly against monthly") == true && stored.first?.contains(reason) == true)
        let status = try runOfferLab(["status", "--db", night.databasePath])
        #expect(status.status == 0, "\(status.standardError)")
        let line = try #require(status.standardOutput.split(separator: "\n").first { $0.hasPrefix("test\tvariant\t") })
        #expect(
            line.hasPrefix("test\tvariant\tkeep_running\tprojected_arpu_365\t") && line.hasSuffix("\tweekly against monthly"), "\(line)")

        // The user's own goal stays, and the reason says the groups bill on different periods.
        let own = try Self.night(
            control: Self.members(200, paying: 20), variant: Self.members(200, paying: 22),
            job: ["max_runtime_days": "1000", "goal_metric": "arpu"], products: ("weekly", "monthly"))
        let (ownRow, _, _) = try Self.periodDecision(own)
        #expect(ownRow["goal_metric"] == "arpu" && ownRow["period_test"] == "weekly against monthly")
        #expect(
            ownRow["reason"]?.hasSuffix(
                " Note: the groups bill on different periods (weekly against monthly): revenue so far favours the shorter period's early charges, a year decides such a test."
            ) == true, "\(ownRow["reason"] ?? "")")
    }

    /// A treatment that sells control's periods is no period test: its goal stays `arpu`.
    @Test func theSamePeriodsAreNoPeriodTest() throws {
        let (row, _) = try Self.decision(try Self.night(control: Self.members(200, paying: 20), variant: Self.members(200, paying: 150)))
        #expect(row["goal_metric"] == "arpu" && row["period_test"] == "" && row["reason"]?.contains("periods") == false)
    }

    @Test(arguments: [
        ("revenue", "'revenue' is not a metric this job compares"),
        ("arpu_d14", "arpu_d14 needs 14 in maturity_days"),
        ("arpu_capped", "arpu_capped needs revenue_cap"),
    ])
    func anUnknownGoalIsABadJobNamingTheMetrics(goal: String, message: String) throws {
        let night = try Self.night(control: Self.members(2), variant: Self.members(2), job: ["goal_metric": goal])
        let run = try night.run()
        #expect(run.status == 78)
        #expect(run.standardError.contains("goal_metric") && run.standardError.contains(message), "\(run.standardError)")
        #expect(run.standardError.contains("known: conversion, arpu, proceeds_per_user, trial_completed_conversion, refund_user_rate"))
    }
}
