import OfferLabStatistics
import OfferLabVocabulary
import Testing

@Suite("Period tests: which pairs bill on different periods, and the interval their year is decided by")
struct PeriodTestTests {
    /// The periods of catalog `type`s (nil: a product without one).
    static func periods(_ types: [String?]) -> [BillingPeriod?] { types.map { $0.map(BillingPeriod.init(catalogType:)) } }

    static func test(_ control: [String?], _ treatment: [String?]) -> PeriodTest? {
        PeriodTest(control: periods(control), treatment: periods(treatment))
    }

    @Test("A pair is a period test when the sets of catalog types differ; the sample's variant_b against control is one")
    func detection() throws {
        let test = try #require(Self.test(["weekly", "monthly"], ["3_day_pass", "monthly", "yearly"]))
        #expect(test.control.map(\.catalogType) == ["weekly", "monthly"])
        #expect(test.treatment.map(\.catalogType) == ["3_day_pass", "monthly", "yearly"])
        #expect(test.periodsInWords == "weekly, monthly against 3-day pass, monthly, yearly")
        // The same periods at other prices (the sample's variant_a), in another order, or repeated: not one.
        #expect(Self.test(["weekly", "monthly"], ["monthly", "weekly", "weekly"]) == nil)
        // A product without a type names no period.
        #expect(Self.test(["weekly", nil], ["weekly"]) == nil)
        // Every pass is a period of its own, and so are one_time and a type the rules do not know.
        #expect(Self.test(["3_day_pass"], ["7_day_pass"]) != nil)
        #expect(Self.test(["monthly"], ["monthly", "one_time"])?.treatment.map(\.catalogType) == ["monthly", "one_time"])
        #expect(Self.test(["monthly"], ["quarterly"])?.periodsInWords == "monthly against quarterly")
        #expect(Self.test(["yearly"], ["weekly"])?.periodsInWords == "yearly against weekly")
    }

    static let rows: [ReferenceRow] = (try? Reference.rows("projected_goal.csv")) ?? []

    @Test("The reference holds fixed and sequential families of one to three treatments")
    func referenceIsComplete() throws {
        let rows = try Reference.rows("projected_goal.csv")
        #expect(rows.count == 40 && Self.rows.count == rows.count)
        #expect(rows.contains { $0["tuning"].isNaN } && rows.contains { $0["tuning"] == 5000 })
        #expect(rows.contains { $0["p_adjusted"] < $0["alpha"] } && rows.contains { $0["p_adjusted"] >= $0["alpha"] })
    }

    @Test("Holm-adjusted intervals of each family, fixed and sequential, match scipy")
    func intervals() throws {
        // Families: the rows of one (family, alpha, tuning), in treatment order.
        var families: [[ReferenceRow]] = []
        for row in Self.rows {
            if let last = families.last?.last, last["family"] == row["family"], last["alpha"] == row["alpha"],
                last["tuning"].isNaN == row["tuning"].isNaN
            {
                families[families.count - 1].append(row)
            } else {
                families.append([row])
            }
        }
        #expect(families.count == 24)
        for family in families {
            let differences = family.map { row in
                ProjectedDifference(
                    difference: row["d"], interval: ConfidenceInterval(low: row["low"], high: row["high"]), relativeDifference: row["r"],
                    relativeInterval: ConfidenceInterval(low: row["r_low"], high: row["r_high"]), controlValue: row["c"],
                    users: Int(row["users"]))
            }
            let tuning = family[0]["tuning"]
            let intervals = ProjectedGoal.intervals(differences, alpha: family[0]["alpha"], sequentialTuning: tuning.isNaN ? nil : tuning)
            for (row, interval) in zip(family, intervals) {
                let interval = try #require(interval, "\(row)")
                #expect(
                    abs(interval.absolute.low - row["abs_low"]) <= 1e-9 && abs(interval.absolute.high - row["abs_high"]) <= 1e-9, "\(row)")
                let relative = try #require(interval.relative)
                #expect(abs(relative.low - row["rel_low"]) <= 1e-9 && abs(relative.high - row["rel_high"]) <= 1e-9, "\(row)")
                #expect(interval.identified)
                // The interval excludes 0 exactly when the Holm-adjusted p-value is below alpha.
                #expect((interval.absolute.low > 0 || interval.absolute.high < 0) == (row["p_adjusted"] < row["alpha"]), "\(row)")
            }
        }
    }

    @Test("Without a value the bounds are read as an interval around their middle; no interval, none")
    func bounds() throws {
        let bounds = ConfidenceInterval(low: 0.5, high: 9)
        let items = [
            ProjectedDifference(
                difference: nil, interval: bounds, relativeDifference: 0.3, relativeInterval: bounds, controlValue: 2, users: 100),
            ProjectedDifference.none,
            ProjectedDifference(
                difference: 1, interval: ConfidenceInterval(low: 1, high: 1), relativeDifference: nil, relativeInterval: nil,
                controlValue: 2, users: 100),
        ]
        // One tested treatment, fixed: the bounds as they are.
        let fixed = ProjectedGoal.intervals(items, alpha: 0.05, sequentialTuning: nil)
        let asTheyAre = try #require(fixed[0])
        #expect(abs(asTheyAre.absolute.low - 0.5) < 1e-12 && abs(asTheyAre.absolute.high - 9) < 1e-12)
        #expect(!asTheyAre.identified && asTheyAre.relative == nil)
        #expect(MetricOutcome(asTheyAre.absolute, harmfulWhenUp: false) == .wins)
        #expect(fixed[1] == nil && fixed[2] == nil, "no interval, or one of width 0")
        // Sequential after 100 users: se = 8.5 / (2·1.959964) = 2.168407 around 4.75, its p-value
        // 0.77 (so γ = alpha) and the sequence's multiplier at n = 100 is 6.69 (scipy): −9.77 to 19.27.
        let sequential = try #require(ProjectedGoal.intervals(items, alpha: 0.05, sequentialTuning: 5000)[0])
        #expect(abs(sequential.absolute.low + 9.766160422818846) < 1e-9 && abs(sequential.absolute.high - 19.266160422818846) < 1e-9)
        #expect(MetricOutcome(sequential.absolute, harmfulWhenUp: false) == .undecided)
    }

    @Test("The days until a renewal is seen: one period per renewal still missing")
    func daysUntilSeen() {
        #expect(ProjectedGoal.daysUntilRenewalsSeen(seen: 1, needed: 11, periodDays: 365.25 / 12) == 305)
        #expect(ProjectedGoal.daysUntilRenewalsSeen(seen: 0, needed: 51, periodDays: 7) == 357)
        #expect(ProjectedGoal.daysUntilRenewalsSeen(seen: 3, needed: 3, periodDays: 7) == 1)
        // A year at the rates seen awaits the first renewal only.
        #expect(ProjectedGoal.daysUntilRenewalsSeen(seen: 0, needed: 1, periodDays: 7) == 7)
    }

    @Test("A power plan from the relative lift's standard error is the plan from the moments it came from")
    func planFromStandardError() throws {
        let control = SampleMoments(count: 5000, mean: 2.5, variance: 30)
        let treatment = SampleMoments(count: 5000, mean: 2.7, variance: 35)
        let se = try #require(relativeLiftStandardError(control: control, treatment: treatment))
        for tuning in [nil, 5000.0] {
            let fromMoments = PowerPlanning.plan(
                control: control, treatment: treatment, treatments: 2, alpha: 0.05, targetMDE: 0.1, targetPower: 0.8,
                sequentialTuning: tuning)
            let fromSE = PowerPlanning.plan(
                relativeLiftStandardError: se, users: 10_000, treatments: 2, alpha: 0.05, targetMDE: 0.1, targetPower: 0.8,
                sequentialTuning: tuning)
            #expect(try fromMoments.get() == fromSE.get())
        }
        #expect(
            PowerPlanning.plan(
                relativeLiftStandardError: 0, users: 10, treatments: 1, alpha: 0.05, targetMDE: 0.1, targetPower: 0.8, sequentialTuning: nil
            )
                == .failure(.varianceIsZero))
    }
}
