import OfferLabStatistics
import Testing

@Suite("Mid-experiment power and the users still needed (docs/statistics.md, The decision) against scipy")
struct PowerPlanningTests {
    static let rows: [ReferenceRow] = (try? Reference.rows("power_planning.csv")) ?? []

    @Test("The reference covers fixed and sequential, one and three treatments, targets reached and not")
    func fileIsComplete() throws {
        let rows = try Reference.rows("power_planning.csv")
        #expect(rows.count == 288 && Self.rows.count == rows.count, "\(rows.count) \(Self.rows.count)")
        #expect(rows.contains { $0["tuning"].isNaN } && rows.contains { $0["tuning"] == 5000 })
        #expect(rows.contains { $0["s_low"] == 0 } && rows.contains { $0["s_low"] > 1 })
    }

    @Test("power(0) and users needed within the range where power is the target to 1e-5", arguments: rows)
    func plan(_ row: ReferenceRow) throws {
        let control = SampleMoments(count: Int(row["n_c"]), mean: row["m_c"], variance: row["v_c"])
        let treatment = SampleMoments(count: Int(row["n_t"]), mean: row["m_t"], variance: row["v_t"])
        let result = PowerPlanning.plan(
            control: control, treatment: treatment, treatments: Int(row["treatments"]), alpha: row["alpha"], targetMDE: row["mde"],
            targetPower: row["target"], sequentialTuning: row["tuning"].isNaN ? nil : row["tuning"])
        let plan = try result.get()
        #expect(relativeError(plan.power, row["power"]) <= 1e-9, "\(row): power \(plan.power)")
        let users = row["n_c"] + row["n_t"]
        if row["s_low"] == 0 {
            #expect(plan.usersNeeded == 0, "\(row)")
        } else {
            // ⌈s·n⌉ for an s in [s_low, s_high].
            let needed = Double(plan.usersNeeded)
            #expect(
                needed >= (row["s_low"] * users).rounded(.up) - 1 && needed <= (row["s_high"] * users).rounded(.up) + 1, "\(row): \(needed)"
            )
        }
    }

    @Test("No plan without a scale or a spread, or when no test size reaches the target")
    func gaps() {
        let some = SampleMoments(count: 100, mean: 1, variance: 2)
        func plan(_ control: SampleMoments, _ treatment: SampleMoments, mde: Double = 0.1) -> Result<PowerPlan, PowerPlanGap> {
            PowerPlanning.plan(
                control: control, treatment: treatment, treatments: 1, alpha: 0.05, targetMDE: mde, targetPower: 0.8, sequentialTuning: nil)
        }
        #expect(plan(SampleMoments(count: 100, mean: 0, variance: 0), some) == .failure(.controlMeanIsZero))
        #expect(plan(some, SampleMoments(count: 100, mean: 1, variance: 0)) == .failure(.varianceIsZero))
        // A relative lift of 1e-9 on a spread of √2: 2²⁷ times 200 users are not enough.
        #expect(plan(some, some, mde: 1e-9) == .failure(.targetUnreachable))
    }
}
