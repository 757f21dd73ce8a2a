import OfferLabStatistics
import OfferLabVocabulary
import Testing

@Suite("The decision's rules in their order and the days left, worked by hand")
struct DecisionRulesTests {
    @Test("An interval above 0 wins, below loses; for a metric harmful when up, the other way round")
    func outcomes() {
        let above = ConfidenceInterval(low: 0.01, high: 0.2)
        let below = ConfidenceInterval(low: -0.2, high: -0.01)
        let across = ConfidenceInterval(low: -0.1, high: 0.1)
        #expect(MetricOutcome(above, harmfulWhenUp: false) == .wins && MetricOutcome(below, harmfulWhenUp: false) == .loses)
        #expect(MetricOutcome(above, harmfulWhenUp: true) == .loses && MetricOutcome(below, harmfulWhenUp: true) == .wins)
        #expect(MetricOutcome(across, harmfulWhenUp: false) == .undecided && MetricOutcome(nil, harmfulWhenUp: true) == .undecided)
        #expect(MetricOutcome(ConfidenceInterval(low: 0, high: 0.3), harmfulWhenUp: false) == .undecided)
    }

    @Test("The first rule that holds decides")
    func order() {
        func status(
            withheld: Bool = false, goal: MetricOutcome = .undecided, guardrails: [MetricOutcome] = [], runtime: Double = 10,
            power: Double? = 0.3, daysLeft: Int? = 30, unreachable: Bool = false
        ) -> DecisionStatus {
            DecisionRules.status(
                withheld: withheld, goal: goal, guardrails: guardrails,
                runtime: .init(days: runtime, nights: Int(runtime), minimum: 7, maximum: 90),
                outlook: .init(power: power, targetPower: 0.8, target: .init(daysLeft: daysLeft, unreachable: unreachable)))
        }
        #expect(status(withheld: true, goal: .loses) == .unhealthy)
        #expect(status(goal: .loses, runtime: 1) == .rollBack)
        #expect(status(goal: .wins, guardrails: [.undecided, .loses]) == .rollBack)
        #expect(status(goal: .wins, runtime: 6.9) == .tooEarly)
        #expect(status(goal: .wins, guardrails: [.wins, .undecided]) == .ship)
        #expect(status(power: 0.8) == .inconclusive)
        #expect(status(power: 0.79) == .keepRunning)
        #expect(status(power: nil, daysLeft: nil) == .keepRunning)
        // Futile: past max_runtime_days (90) at the days left, or no size of the test reaches the target.
        #expect(status(runtime: 10, daysLeft: 80) == .keepRunning)
        #expect(status(runtime: 10.5, daysLeft: 80) == .futile)
        #expect(status(daysLeft: nil, unreachable: true) == .futile)
        #expect(status(goal: .wins, unreachable: true) == .ship)
        #expect(status(power: 0.8, daysLeft: 500) == .inconclusive)
        #expect(status(runtime: 3, daysLeft: 500) == .tooEarly)
    }

    @Test("Futile needs that neither the target nor a larger lift the goal shows can be found in time")
    func futileNeedsNothingWorthWaitingFor() {
        let runtime = DecisionRules.Runtime(days: 30, nights: 30, minimum: 7, maximum: 90)
        func status(target: DecisionRules.DaysPlan, lead: DecisionRules.DaysPlan?) -> DecisionStatus {
            DecisionRules.status(
                withheld: false, goal: .undecided, guardrails: [], runtime: runtime,
                outlook: .init(power: 0.3, targetPower: 0.8, target: target, lead: lead))
        }
        let pastMaximum = DecisionRules.DaysPlan(daysLeft: 61)
        #expect(!DecisionRules.DaysPlan(daysLeft: 60).runsPast(runtime) && pastMaximum.runsPast(runtime))
        #expect(DecisionRules.DaysPlan(daysLeft: nil, unreachable: true).runsPast(runtime))
        #expect(!DecisionRules.DaysPlan(daysLeft: nil).runsPast(runtime), "enrolment stopped: nothing is known to run past")
        // No lead larger than the target: stop.
        #expect(status(target: pastMaximum, lead: nil) == .futile)
        #expect(status(target: .init(daysLeft: nil, unreachable: true), lead: nil) == .futile)
        // A lead larger than the target runs on, whether it can be confirmed in time (20 days) or not (200, never).
        for lead in [DecisionRules.DaysPlan(daysLeft: 20), .init(daysLeft: 200), .init(daysLeft: nil, unreachable: true)] {
            #expect(status(target: pastMaximum, lead: lead) == .keepRunning)
            #expect(status(target: .init(daysLeft: nil, unreachable: true), lead: lead) == .keepRunning)
        }
        // The days left follow the lead only while the target's plan cannot be met.
        let outlook = { (target: Int) in
            DecisionRules.PowerOutlook(power: 0.3, targetPower: 0.8, target: .init(daysLeft: target), lead: .init(daysLeft: 20))
        }
        #expect(outlook(61).followed(runtime) == .init(daysLeft: 20))
        #expect(outlook(60).followed(runtime) == .init(daysLeft: 60))
    }

    @Test("Too early counts whole nights from the first member's night, not days from its timestamp")
    func tooEarlyCountsWholeNights() {
        let day: Int64 = 86_400_000_000
        let first = 20 * day + 2 * day / 24  // 02:00 on day 20
        #expect(DecisionRules.Runtime.nights(from: first, to: 27 * day) == 7)
        #expect(DecisionRules.Runtime.nights(from: first, to: 27 * day - 1) == 6)
        #expect(DecisionRules.Runtime.nights(from: first, to: first) == 0)
        #expect(DecisionRules.Runtime.nights(from: -day / 2, to: day / 2) == 1, "before the epoch too")
        func status(nights: Int) -> DecisionStatus {
            DecisionRules.status(
                withheld: false, goal: .wins, guardrails: [],
                runtime: .init(days: Double(27 * day - first) / Double(day), nights: nights, minimum: 7, maximum: 90),
                outlook: .init(power: 0.3, targetPower: 0.8, target: .init(daysLeft: 0)))
        }
        // 6.92 days after the first member, 7 nights after its night: decided.
        #expect(status(nights: 7) == .ship)
        #expect(status(nights: 6) == .tooEarly)
        #expect(DecisionRules.minimumDaysLeft(nightsRun: 7, minRuntimeDays: 7) == 0)
        #expect(DecisionRules.minimumDaysLeft(nightsRun: 6, minRuntimeDays: 7) == 1)
    }

    @Test("Days left: users needed over the enrolment rate, never below the minimum runtime; none when enrolment stopped")
    func daysLeft() {
        #expect(DecisionRules.daysLeft(usersNeeded: 1000, enrolmentPerDay: 300, nightsRun: 10, minRuntimeDays: 7) == 4)
        #expect(DecisionRules.daysLeft(usersNeeded: 900, enrolmentPerDay: 300, nightsRun: 10, minRuntimeDays: 7) == 3)
        #expect(DecisionRules.daysLeft(usersNeeded: 10, enrolmentPerDay: 300, nightsRun: 2, minRuntimeDays: 7) == 5)
        #expect(DecisionRules.daysLeft(usersNeeded: 10, enrolmentPerDay: 300, nightsRun: 2, minRuntimeDays: 7.5) == 6)
        #expect(DecisionRules.daysLeft(usersNeeded: 0, enrolmentPerDay: 0, nightsRun: 10, minRuntimeDays: 7) == 0)
        #expect(DecisionRules.daysLeft(usersNeeded: 1, enrolmentPerDay: 0, nightsRun: 10, minRuntimeDays: 7) == nil)
    }

    @Test("A matured goal waits for its members to age: D = 7, ten members a day for 20 days")
    func maturedDaysLeft() {
        // Members assigned at noon of days 0 … 19, ten a day; as_of = day 20. Matured now (≤ day 13):
        // days 0 … 12, 130 members. On night d, those assigned by day 13 + d are matured.
        let day: Int64 = 86_400_000_000
        var assigned = AssignmentDays(asOf: 20 * day)
        for d in 0..<20 {
            for _ in 0..<10 { assigned.add(assignedAt: Int64(d) * day + day / 2) }
        }
        func daysLeft(target: Double, rate: Double = 10, nights: Int = 20) -> Int? {
            DecisionRules.maturedDaysLeft(
                assigned: assigned, maturityDays: 7, target: target, enrolmentPerDay: rate, nightsRun: nights, minRuntimeDays: 7)
        }
        #expect(daysLeft(target: 130) == 0)
        #expect(daysLeft(target: 131) == 1)  // day 13's members mature on night 1
        #expect(daysLeft(target: 200) == 7)  // everyone now, by night 7
        #expect(daysLeft(target: 235) == 11)  // then 10 newcomers a day: 200 + 10 · 4 ≥ 235
        #expect(daysLeft(target: 235, rate: 0) == nil)
        #expect(daysLeft(target: 131, nights: 2) == 5)
    }

    @Test("Assignment days: a member exactly 7 days before as_of is in the last 7 days and at least 7 days old; counts add up")
    func assignmentDays() {
        let day: Int64 = 86_400_000_000
        let asOf = 30 * day + 5
        var first = AssignmentDays(asOf: asOf)
        // 7 days before exactly, a microsecond later, a microsecond earlier; and 1.5 days before.
        for at in [asOf - 7 * day, asOf - 7 * day + 1, asOf - 7 * day - 1] { first.add(assignedAt: at) }
        var second = AssignmentDays(asOf: asOf)
        second.add(assignedAt: asOf - day - day / 2)
        #expect(first.assigned(withinDaysBefore: 7) == 2 && first.assigned(atLeastDaysBefore: 7) == 2)
        #expect(first.assigned(withinDaysBefore: 6) == 0 && first.assigned(atLeastDaysBefore: 8) == 0)
        #expect(first.assigned(atLeastDaysBefore: -3) == 3 && first.first == asOf - 7 * day - 1)
        first.add(second)
        #expect(first.members == 4 && first.assigned(withinDaysBefore: 2) == 1 && first.assigned(atLeastDaysBefore: 2) == 3)
        #expect(first.first == asOf - 7 * day - 1 && first.assigned(withinDaysBefore: 0) == 0)
    }
}
