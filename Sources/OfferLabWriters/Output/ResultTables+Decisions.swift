import OfferLabAnalysis
import OfferLabJob
import OfferLabProjection
import OfferLabResults
import OfferLabStatistics
import OfferLabVocabulary

extension ResultColumn {
    // What to do with each treatment tonight (docs/statistics.md, "The decision"), in `decisions`.
    static let status = ResultColumn("status", .text)
    static let goalMetric = ResultColumn("goal_metric", .text)
    static let goalRelLift = ResultColumn("goal_rel_lift", .real)
    static let goalRelLiftCILow = ResultColumn("goal_rel_lift_ci_low", .real)
    static let goalRelLiftCIHigh = ResultColumn("goal_rel_lift_ci_high", .real)
    static let losingGuardrails = ResultColumn("losing_guardrails", .text)
    static let runtimeDays = ResultColumn("runtime_days", .real)
    static let targetMDE = ResultColumn("target_mde", .real)
    static let power = ResultColumn("power", .real)
    static let usersNeeded = ResultColumn("users_needed", .integer)
    static let enrolmentPerDay = ResultColumn("enrolment_per_day", .real)
    static let daysLeft = ResultColumn("days_left", .integer)
    static let daysLeftFloor = ResultColumn("days_left_floor", .bool)
    static let annualUsers = ResultColumn("annual_users", .real)
    static let impact365 = ResultColumn("impact_365", .real)
    static let impact365CILow = ResultColumn("impact_365_ci_low", .real)
    static let impact365CIHigh = ResultColumn("impact_365_ci_high", .real)
    static let conversionRelLift = ResultColumn("conversion_rel_lift", .real)
    static let arppuRelLift = ResultColumn("arppu_rel_lift", .real)
    static let periodTest = ResultColumn("period_test", .text)
}

/// A status as `decisions` stores it: its name. A name this offerlab does not know (a later
/// version's) reads as `unhealthy`: do not act on a verdict this version cannot read.
extension DecisionStatus: ColumnScalar {
    var resultValue: ResultValue { .text(rawValue) }
    static var zero: DecisionStatus { .unhealthy }
    static func read(_ value: ResultValue) -> DecisionStatus? {
        if case .text(let name) = value { DecisionStatus(rawValue: name) } else { nil }
    }
}

/// A row of `decisions`: what to do with one treatment tonight, and why.
package struct DecisionRow: TypedRow, Equatable {
    package var offeringID = ""
    package var group = ""
    package var controlGroup = ""
    package var status = DecisionStatus.unhealthy
    /// One sentence a product lead can act on.
    package var reason = ""
    package var goalMetric = ""
    package var goalRelLift: Double?
    package var goalRelLiftCILow: Double?
    package var goalRelLiftCIHigh: Double?
    /// The guardrails that lose, `;`-separated.
    package var losingGuardrails = ""
    package var runtimeDays = 0.0
    package var targetMDE = 0.0
    package var power: Double?
    package var usersNeeded: Int?
    package var enrolmentPerDay = 0.0
    package var daysLeft: Int?
    /// Whether `days_left` is a floor ("at least"): a rate it needs has not been seen yet, and the
    /// plan counts what it would bring as none; nil with no days left.
    package var daysLeftFloor: Bool?
    package var annualUsers = 0.0
    package var impact365: Double?
    package var impact365CILow: Double?
    package var impact365CIHigh: Double?
    package var conversionRelLift: Double?
    package var arppuRelLift: Double?
    /// The billing periods of a period test, control's against the treatment's ("weekly, monthly
    /// against 3-day pass, monthly, yearly"); empty when both sell the same periods.
    package var periodTest = ""

    static let table = TypedTable<DecisionRow>(
        name: "decisions", keys: [.offeringID, .group],
        columns: [
            .init(.offeringID, \.offeringID), .init(.group, \.group), .init(.controlGroup, \.controlGroup), .init(.status, \.status),
            .init(.reason, \.reason), .init(.goalMetric, \.goalMetric), .init(.goalRelLift, \.goalRelLift),
            .init(.goalRelLiftCILow, \.goalRelLiftCILow), .init(.goalRelLiftCIHigh, \.goalRelLiftCIHigh),
            .init(.losingGuardrails, \.losingGuardrails), .init(.runtimeDays, \.runtimeDays), .init(.targetMDE, \.targetMDE),
            .init(.power, \.power), .init(.usersNeeded, \.usersNeeded), .init(.enrolmentPerDay, \.enrolmentPerDay),
            .init(.daysLeft, \.daysLeft), .init(.daysLeftFloor, \.daysLeftFloor), .init(.annualUsers, \.annualUsers),
            .init(.impact365, \.impact365),
            .init(.impact365CILow, \.impact365CILow), .init(.impact365CIHigh, \.impact365CIHigh),
            .init(.conversionRelLift, \.conversionRelLift), .init(.arppuRelLift, \.arppuRelLift), .init(.periodTest, \.periodTest),
        ])

    /// The line `offerlab run` prints for it.
    var line: String { "\(offeringID) \(group): \(status.rawValue): \(reason)" }
}

extension ResultTables {
    /// `decisions`: one row per (offering, treatment) whose members the run read (docs/statistics.md,
    /// "The decision"); none for `offerlab stats`, whose sums lack the members' assignment days.
    static func decisions(
        _ offerings: [OfferingResult], statistics: [OfferingStatistics], sampleRatios: [SampleRatioRow], settings: ResultTableSettings,
        previous: PreviousNight? = nil
    ) -> [DecisionRow] {
        zip(offerings, statistics).flatMap { result, statistics -> [DecisionRow] in
            guard let assignments = result.assignments else { return [] }
            return OfferingDecision(
                result: result, statistics: statistics, sampleRatio: sampleRatios.first { $0.offeringID == result.offering.offeringID },
                assignments: assignments, tableSettings: settings, plannedDecisions: previous?.plannedDecisions ?? [:]
            ).rows()
        }
    }
}

/// The days a treatment still needs, when they can be told.
enum DaysNeeded: Equatable {
    /// `floor`: at least that many (a rate the plan needs has not been seen).
    case days(Int, floor: Bool = false)
    /// No size of the test reaches the target power.
    case unreachable

    var days: Int? {
        if case .days(let days, _) = self { days } else { nil }
    }

    var isFloor: Bool {
        if case .days(_, let floor) = self { floor } else { false }
    }
}

/// A guardrail metric as the decision reads it: its comparison and its name in a reason.
struct GuardrailReading {
    let metric: Metric
    let comparison: ComparisonResult?
    let words: String
}

/// The decision's inputs for one offering, and the rules applied to each of its treatments.
struct OfferingDecision {
    let result: OfferingResult
    let statistics: OfferingStatistics
    /// The night's `srm` row: with `decision: sequential` its always-valid flag withholds.
    let sampleRatio: SampleRatioRow?
    /// Parallel to the groups: when their members were assigned.
    let assignments: [AssignmentDays]
    let tableSettings: ResultTableSettings
    /// The decision dates the job's earlier nights planned, by `PreviousNight.key` (the smoothing
    /// of the days left).
    var plannedDecisions: [String: PlannedDecision] = [:]

    var settings: DecisionSettings { tableSettings.decisionSettings }
    var currency: String { tableSettings.reportCurrency }
    var control: Int { result.controlGroup }
    var controlName: String { result.offering.groups[control].name }

    func rows() -> [DecisionRow] {
        let treatments = result.offering.groups.indices.filter { $0 != control }
        let earliest = assignments.compactMap(\.first).min()
        let runtimeDays = earliest.map { max(0, Double(tableSettings.asOf - $0) / Microseconds.perDayAsDouble) } ?? 0
        let runtime = DecisionRules.Runtime(
            days: runtimeDays, nights: earliest.map { max(0, DecisionRules.Runtime.nights(from: $0, to: tableSettings.asOf)) } ?? 0,
            minimum: settings.minRuntimeDays, maximum: settings.maxRuntimeDays)
        let lastWeek = { (group: Int) in self.assignments[group].assigned(withinDaysBefore: 7) }
        let annualUsers = 365 * Double(assignments.indices.reduce(0) { $0 + lastWeek($1) }) / 7
        let withheld = withheldReason()
        let projected = Dictionary(uniqueKeysWithValues: zip(treatments, projectedGoalIntervals(treatments)))
        let refundsAmongBuyers = self.refundsAmongBuyers()
        let periods = { (group: Int) in self.result.offering.groups[group].products.map(\.billingPeriod) }
        return treatments.map { treatment in
            let periodTest = PeriodTest(control: periods(control), treatment: periods(treatment))
            let goal = settings.goal(isPeriodTest: periodTest != nil)
            var row = DecisionRow(
                offeringID: result.offering.offeringID, group: result.offering.groups[treatment].name, controlGroup: controlName,
                goalMetric: goal.csvName, runtimeDays: runtimeDays, targetMDE: settings.targetMDE, annualUsers: annualUsers,
                periodTest: periodTest?.periodsInWords ?? "")
            let projectedComparison = statistics.projection?.comparisons.first { $0.group == row.group }
            let goalOutcome: MetricOutcome
            if goal == .projectedARPU365 {
                let interval = projected[treatment] ?? nil
                (row.goalRelLift, row.goalRelLiftCILow, row.goalRelLiftCIHigh) = (
                    projectedComparison?.relativeDifference, interval?.relative?.low, interval?.relative?.high
                )
                goalOutcome = MetricOutcome(interval?.absolute, harmfulWhenUp: false)
            } else {
                let comparison = comparison(goal, of: row.group)
                let goalInterval = adjustedInterval(comparison, relative: true)
                (row.goalRelLift, row.goalRelLiftCILow, row.goalRelLiftCIHigh) = (
                    comparison?.relLift, goalInterval?.low, goalInterval?.high
                )
                goalOutcome = outcome(goal, of: row.group)
            }
            let losing = settings.guardrails(isPeriodTest: periodTest != nil).compactMap { metric -> GuardrailReading? in
                let reading = guardrail(metric, of: row.group, isPeriodTest: periodTest != nil, refundsAmongBuyers: refundsAmongBuyers)
                return MetricOutcome(adjustedInterval(reading.comparison, relative: false), harmfulWhenUp: metric.isHarmfulWhenUp) == .loses
                    ? reading : nil
            }
            row.losingGuardrails = losing.map(\.metric.csvName).joined(separator: ";")
            // Over the last 7 days, or the days the test has run when fewer.
            let enrolled = Double(lastWeek(control) + lastWeek(treatment))
            row.enrolmentPerDay = runtimeDays > 0 ? enrolled / min(7, runtimeDays) : 0
            // The days until a relative lift `lift` of the goal would be found, by its power plan.
            let daysPlan = {
                [enrolmentPerDay = row.enrolmentPerDay, group = row.group] (lift: Double) -> (
                    plan: Result<PowerPlan, PowerPlanGap>, days: DecisionRules.DaysPlan
                ) in
                let plan = self.powerPlan(goal, treatment: treatment, treatments: treatments.count, lift: lift)
                var daysNeeded: DaysNeeded?
                switch plan {
                case .success(let plan):
                    daysNeeded = self.daysNeeded(
                        plan, goal: goal, lift: lift, treatment: treatment,
                        perDay: (Double(lastWeek(control)), Double(lastWeek(treatment))), enrolmentPerDay: enrolmentPerDay,
                        runtime: runtime, group: group)
                case .failure(.targetUnreachable): daysNeeded = .unreachable
                case .failure:
                    // A projected goal without a value: the days until its year is identified.
                    if goal == .projectedARPU365, projected[treatment]??.identified == false {
                        daysNeeded = self.daysUntilIdentified(treatment: treatment, runtime: runtime, group: group)
                    }
                }
                return (
                    plan,
                    .init(daysLeft: daysNeeded?.days, isFloor: daysNeeded?.isFloor ?? false, unreachable: daysNeeded == .unreachable)
                )
            }
            let (plan, target) = daysPlan(settings.targetMDE)
            if case .success(let plan) = plan { (row.power, row.usersNeeded) = (plan.power, plan.usersNeeded) }
            if let projected = projectedComparison, let difference = projected.difference {
                row.impact365 = difference * annualUsers
                row.impact365CILow = projected.differenceInterval.map { $0.low * annualUsers }
                row.impact365CIHigh = projected.differenceInterval.map { $0.high * annualUsers }
            }
            row.conversionRelLift = comparison(.conversion, of: row.group)?.relLift
            let arppu = { (group: Int) -> Double? in
                let totals = self.result.groups[group]
                return totals.converters == 0 ? nil : totals.netRevenue / Double(totals.converters)
            }
            if let treated = arppu(treatment), let base = arppu(control), base != 0 { row.arppuRelLift = treated / base - 1 }
            // A goal that leads by more than the target is worth waiting for: when the target's
            // plan cannot be met in time, the lift it shows is planned for too.
            var lead: (plan: Result<PowerPlan, PowerPlanGap>, days: DecisionRules.DaysPlan)?
            if goalOutcome == .undecided, let lift = row.goalRelLift, lift > settings.targetMDE, target.runsPast(runtime) {
                lead = daysPlan(lift)
            }
            let outlook = DecisionRules.PowerOutlook(
                power: row.power, targetPower: settings.targetPower, target: target, lead: lead?.days)
            let status = DecisionRules.status(
                withheld: withheld != nil, goal: goalOutcome, guardrails: losing.map { _ in .loses }, runtime: runtime, outlook: outlook)
            row.status = status
            // Only a test that runs on has days left (the days to its minimum runtime, or more).
            if status == .keepRunning || status == .tooEarly {
                let followed = outlook.followed(runtime)
                row.daysLeft = followed.daysLeft
                row.daysLeftFloor = followed.daysLeft.map { _ in followed.isFloor }
            }
            let yearUnknown = goal == .projectedARPU365 && projectedComparison?.difference == nil
            row.reason = reason(
                status, goal: (goal, goalOutcome), row: row, withheld: withheld, losing: losing,
                plans: GoalPlans(target: plan, lead: lead?.plan, outlook: outlook),
                runtime: runtime,
                unknownYear: yearUnknown
                    ? UnknownYear(
                        unseen: unseen(treatment) ?? projectedComparison?.gap?.description ?? "no projection",
                        bounds: projected[treatment]??.absolute) : nil)
            if status == .keepRunning, goal == .arpu, row.daysLeft != nil, let assumed = renewalsAssumed(treatment) {
                row.reason += " " + assumed
            }
            if let periodTest {
                let farEnds = projectedComparison?.difference == nil ? nil : projectedComparison?.boundInterval
                row.reason +=
                    " " + Self.periodSentence(periodTest, goalIsChosen: goal != .projectedARPU365, farEnds: farEnds, currency: currency)
            }
            return row
        }
    }

    // MARK: The inputs

    /// The night's comparison of `group` with control on `metric`.
    func comparison(_ metric: Metric, of group: String) -> ComparisonResult? {
        statistics.night.comparisons.first { $0.group == group && $0.metric == metric }
    }

    /// The Holm-adjusted interval of the job's `decision` inference, absolute or relative.
    func adjustedInterval(_ comparison: ComparisonResult?, relative: Bool) -> ConfidenceInterval? {
        guard let comparison else { return nil }
        let (low, high) =
            switch (tableSettings.decision, relative) {
            case (.sequential, false): (comparison.seqAbsLiftCILowAdjusted, comparison.seqAbsLiftCIHighAdjusted)
            case (.sequential, true): (comparison.seqRelLiftCILowAdjusted, comparison.seqRelLiftCIHighAdjusted)
            case (.fixed, false): (comparison.absLiftCILowAdjusted, comparison.absLiftCIHighAdjusted)
            case (.fixed, true): (comparison.relLiftCILowAdjusted, comparison.relLiftCIHighAdjusted)
            }
        guard let low, let high else { return nil }
        return ConfidenceInterval(low: low, high: high)
    }

    /// A guardrail as the decision reads it for `group`: its comparison and its words.
    func guardrail(_ metric: Metric, of group: String, isPeriodTest: Bool, refundsAmongBuyers: [ComparisonResult]?) -> GuardrailReading {
        if isPeriodTest, metric == .refundUserRate, let amongBuyers = refundsAmongBuyers?.first(where: { $0.group == group }) {
            return GuardrailReading(metric: metric, comparison: amongBuyers, words: "refunds among buyers")
        }
        return GuardrailReading(metric: metric, comparison: comparison(metric, of: group), words: metric.plainName)
    }

    /// The share of each treatment's buyers with a counted refund against control's, compared as
    /// the night compares `refund_user_rate` (its Holm family the offering's treatments): a period
    /// test's refund guardrail (docs/statistics.md, "The refund guardrail of a period test"). Its
    /// groups sell different products to different shares of their members, and the year already
    /// nets their refunds, so refunds per member would hold against a treatment that it sells to
    /// more people. nil when a group has more refund users than buyers (refunds of renewals whose
    /// purchase came before the member's assignment) or the statistics reject the counts: the
    /// guardrail is then read per member.
    func refundsAmongBuyers() -> [ComparisonResult]? {
        guard result.groups.allSatisfy({ $0.refundUsers <= $0.converters }) else { return nil }
        let groups = zip(result.analysisGroups(), result.groups).map { group, totals in
            var buyers = group
            buyers.statistics = GroupSufficientStatistics(
                users: totals.converters, converters: totals.refundUsers, revenueSum: 0, revenueSumSquares: 0)
            return buyers
        }
        return try? analyzeOffering(groups, alpha: tableSettings.alpha, sequentialTuning: tableSettings.sequentialTuning).comparisons
            .filter { $0.metric == .conversion }
    }

    func outcome(_ metric: Metric, of group: String) -> MetricOutcome {
        MetricOutcome(adjustedInterval(comparison(metric, of: group), relative: false), harmfulWhenUp: metric.isHarmfulWhenUp)
    }

    /// Why the report withholds the offering's verdict: a sample ratio mismatch, or the limits of
    /// `VerdictWithheld`.
    func withheldReason() -> String? {
        let flagged =
            tableSettings.decision == .sequential
            ? sampleRatio?.seqFlagged.map { ($0, "always-valid ", sampleRatio?.seqPValue) }
            : sampleRatio?.check.flagged.map { ($0, "", sampleRatio?.check.pValue) }
        if let (isFlagged, kind, p) = flagged, isFlagged {
            return "the groups' sizes do not match the configured split (\(kind)\(p.map(ReportFormat.pValue) ?? "p unknown")): "
                + "assignment or logging is broken somewhere; find out why before acting on any result."
        }
        return VerdictWithheld.reason(
            mismatchUserShare: VerdictWithheld.share(
                result.quality.attributionMismatchUsers, of: result.groups.reduce(0) { $0 + $1.users }),
            unknownCurrencyShare: VerdictWithheld.share(
                result.quality.unknownCurrencyEvents, of: result.groups.reduce(0) { $0 + $1.purchases + $1.renewals + $1.refunds }))
    }

    /// The goal metric's sums per group, and the members that count for it.
    func goalStatistics(_ metric: Metric) -> [GroupSufficientStatistics]? {
        switch metric {
        case .conversion, .arpu: return result.groups.map(\.statistics)
        case .arpuCapped: return result.cappedRevenue?.groups
        case .proceedsPerUser: return result.groups.map(\.proceedsStatistics)
        case .trialCompletedConversion: return result.groups.map(\.trialCompletedStatistics)
        case .refundUserRate: return result.groups.map(\.refundUserStatistics)
        default:
            guard let days = metric.maturedDays else { return nil }
            return result.matured.first { $0.days == days }?.groups
        }
    }

    /// The power plan of `goal` for a relative lift `lift` (`target_mde`, or the lead the goal shows).
    func powerPlan(_ goal: Metric, treatment: Int, treatments: Int, lift: Double) -> Result<PowerPlan, PowerPlanGap> {
        let sequentialTuning = tableSettings.decision == .sequential ? tableSettings.sequentialTuning : nil
        if goal == .projectedARPU365 {
            // The relative difference's se from its interval; none while the year is not identified.
            guard let difference = projectedDifference(treatment), let se = difference.relativeStandardError(alpha: tableSettings.alpha)
            else { return .failure(.varianceIsZero) }
            return PowerPlanning.plan(
                relativeLiftStandardError: se, users: difference.users, treatments: treatments, alpha: tableSettings.alpha,
                targetMDE: lift, targetPower: settings.targetPower, sequentialTuning: sequentialTuning)
        }
        guard let groups = goalStatistics(goal) else { return .failure(.varianceIsZero) }
        let moments = { (group: GroupSufficientStatistics) in
            goal.kind == .conversion ? group.conversionMoments : group.revenueMoments
        }
        guard let base = moments(groups[control]), let treated = moments(groups[treatment]) else {
            return .failure(.varianceIsZero)
        }
        return PowerPlanning.plan(
            control: base, treatment: treated, treatments: treatments, alpha: tableSettings.alpha, targetMDE: lift,
            targetPower: settings.targetPower, sequentialTuning: sequentialTuning)
    }

    /// The days the test still needs to find a relative lift `lift` (docs/statistics.md, "Days
    /// left"): for `arpu`, revenue to date, until the power is reached with the members as old as
    /// they will be then (`TenurePower`); for a matured goal, until enough members will have
    /// matured; else ⌈users needed / enrolment⌉. Then pooled with the dates the earlier nights planned, never below the
    /// days to `min_runtime_days`. nil when enrolment has stopped.
    func daysNeeded(
        _ plan: PowerPlan, goal: Metric, lift: Double, treatment: Int, perDay: (control: Double, treatment: Double),
        enrolmentPerDay: Double, runtime: DecisionRules.Runtime, group: String
    ) -> DaysNeeded? {
        let tonight: Int?
        var floor = false
        if let days = goal.maturedDays, let groups = goalStatistics(goal) {
            let matured = groups[control].users + groups[treatment].users
            var assigned = assignments[control]
            assigned.add(assignments[treatment])
            tonight = DecisionRules.maturedDaysLeft(
                assigned: assigned, maturityDays: days, target: Double(matured + plan.usersNeeded), enrolmentPerDay: enrolmentPerDay,
                nightsRun: runtime.nights, minRuntimeDays: settings.minRuntimeDays)
        } else if goal == .arpu, plan.usersNeeded > 0, enrolmentPerDay > 0 {
            let scale = min(7, runtime.days)
            let growth = (projection(control)?.newcomerGrowth, projection(treatment)?.newcomerGrowth)
            // Renewals no rate is seen for count none: the days are at least these (a growth is made
            // only while some group's values still grow).
            floor = [growth.0, growth.1].contains { $0?.isFloor == true }
            guard
                let days = TenurePower.daysToTarget(
                    control: .init(result.revenueByTenure[control], perDay: perDay.control / scale, growth: growth.0),
                    treatment: .init(result.revenueByTenure[treatment], perDay: perDay.treatment / scale, growth: growth.1),
                    treatments: result.offering.groups.count - 1,
                    alpha: tableSettings.alpha, targetMDE: lift, targetPower: settings.targetPower,
                    sequentialTuning: tableSettings.decision == .sequential ? tableSettings.sequentialTuning : nil)
            else { return .unreachable }
            tonight = days
        } else {
            tonight = DecisionRules.daysLeft(
                usersNeeded: plan.usersNeeded, enrolmentPerDay: enrolmentPerDay, nightsRun: runtime.nights,
                minRuntimeDays: settings.minRuntimeDays)
        }
        return tonight.map { pooled($0, runtime: runtime, group: group, floor: floor) }
    }

    /// What a date of revenue to date assumes of the renewals no member has reached yet (contract
    /// §2.15, "Days left are a plan"): "The date assumes subscribers renew as the app's earlier
    /// buyers of monthly_1999 did." (the products whose past control's and the treatment's growth
    /// take), else that they go on as the members' own; nil when the plan takes no growth.
    func renewalsAssumed(_ treatment: Int) -> String? {
        let groups = [projection(control), projection(treatment)].compactMap { $0 }.filter { $0.newcomerGrowth != nil }
        guard !groups.isEmpty else { return nil }
        let products = Set(groups.flatMap(\.growthPast)).sorted()
        guard !products.isEmpty else { return "The date assumes subscribers go on renewing as the members have so far." }
        let names = products.map { result.projection?.productIDs[$0] ?? "" }
        return "The date assumes subscribers renew as the app's earlier buyers of \(names.joined(separator: ", ")) did."
    }

    /// Group `index`'s projection; nil without one.
    func projection(_ index: Int) -> GroupProjection? {
        let name = result.offering.groups[index].name
        return statistics.projection?.groups.first { $0.group == name }
    }

    /// Tonight's days pooled with the dates the earlier nights planned, never below the days to
    /// `min_runtime_days`. A `floor` (a rate not seen yet, counted as none) is tonight's own: a
    /// floor says when the test will not be decided before, not when it will be, so floors are
    /// neither pooled nor pooled with.
    func pooled(_ tonight: Int, runtime: DecisionRules.Runtime, group: String, floor: Bool = false) -> DaysNeeded {
        let runtimeLeft = DecisionRules.minimumDaysLeft(nightsRun: runtime.nights, minRuntimeDays: settings.minRuntimeDays)
        let planned = floor ? nil : plannedDecisions[PreviousNight.key(result.offering.offeringID, group)]
        return .days(
            max(runtimeLeft, DecisionRules.pooledDaysLeft(tonight: max(runtimeLeft, tonight), asOf: tableSettings.asOf, earlier: planned)),
            floor: floor)
    }

    // MARK: A projected goal (docs/statistics.md, "Period tests")

    /// The `projected_arpu_365` comparison of `treatment` as the decision reads it; nil without one.
    func projectedDifference(_ treatment: Int) -> ProjectedDifference? {
        let name = result.offering.groups[treatment].name
        guard let comparison = statistics.projection?.comparisons.first(where: { $0.group == name }) else { return nil }
        return ProjectedDifference(
            difference: comparison.difference, interval: comparison.differenceInterval ?? comparison.boundInterval,
            relativeDifference: comparison.relativeDifference,
            relativeInterval: comparison.relativeInterval, controlValue: comparison.controlValue,
            users: result.groups[control].users + result.groups[treatment].users)
    }

    /// Per treatment, the interval its projected goal is decided by: Holm over the offering's
    /// treatments, under the job's inference (`ProjectedGoal.intervals`).
    func projectedGoalIntervals(_ treatments: [Int]) -> [ProjectedGoalInterval?] {
        let differences = treatments.map { projectedDifference($0) ?? .none }
        return ProjectedGoal.intervals(
            differences, alpha: tableSettings.alpha,
            sequentialTuning: tableSettings.decision == .sequential ? tableSettings.sequentialTuning : nil)
    }

    /// What of the year `treatment` and control have not seen: each group's unseen part.
    func unseenParts(_ treatment: Int) -> [(group: String, part: UnseenPart)] {
        [control, treatment].compactMap { index in
            guard case .yearNotIdentified(let part)? = projection(index)?.gap else { return nil }
            return (result.offering.groups[index].name, part)
        }
    }

    /// "control: monthly_1999 needs 11 renewals …": what is unseen, per group, naming products by `product_id`.
    func unseen(_ treatment: Int) -> String? {
        let parts = unseenParts(treatment)
        guard !parts.isEmpty else { return nil }
        return parts.map {
            "\($0.group): " + ResultTables.reason(.yearNotIdentified($0.part), productIDs: result.projection?.productIDs ?? [])
        }
        .joined(separator: "; ")
    }

    /// The days until the year of `treatment` and control has a value: for each group whose year
    /// needs a product no rate of renewal has been seen for, one period, until its first renewal
    /// is seen (`ProjectedGoal.daysUntilRenewalsSeen`; the year at the rates seen continues it
    /// from there), the longer of the two, pooled as any days left; nil when a group's unseen part
    /// is trials none of which has ended, or a product without a period (when those will be seen
    /// cannot be told from tonight).
    func daysUntilIdentified(treatment: Int, runtime: DecisionRules.Runtime, group: String) -> DaysNeeded? {
        let parts = unseenParts(treatment)
        guard !parts.isEmpty else { return nil }
        var days = 0
        for (_, part) in parts {
            guard let product = part.product, let period = result.projection?.products[product].renewalPeriodDays else { return nil }
            days = max(
                days,
                ProjectedGoal.daysUntilRenewalsSeen(
                    seen: part.renewalsIdentified, needed: min(part.renewalsNeeded, part.renewalsIdentified + 1), periodDays: period))
        }
        return pooled(days, runtime: runtime, group: group)
    }

    /// The sentence a period test's reason ends with: why the year decides it and, when its year
    /// has a value, the assumption it rests on and the difference's far ends per newcomer (the
    /// risk that assumption carries); or, when the job chose another goal, that the user's goal
    /// reads revenue the shorter period charges early.
    static func periodSentence(_ test: PeriodTest, goalIsChosen: Bool, farEnds: ConfidenceInterval?, currency: String) -> String {
        let periods = "the groups bill on different periods (\(test.periodsInWords))"
        guard !goalIsChosen else {
            return "Note: \(periods): revenue so far favours the shorter period's early charges, a year decides such a test."
        }
        var text = "Decided on revenue per user in the first year because \(periods)"
        if let farEnds {
            let perUser = { (amount: Double) in ReportFormat.signedMoney(amount, currency) }
            text +=
                ", assuming later buyers and long-staying subscribers behave as those seen so far (if they do not, anywhere from "
                + "\(perUser(farEnds.low)) to \(perUser(farEnds.high)) per new user)"
        }
        return text + "."
    }

    // MARK: The sentence

    /// A `projected_arpu_365` goal whose year is not identified tonight: what of it each group has
    /// not seen, and the difference's bounds when there are any.
    struct UnknownYear {
        var unseen: String
        var bounds: ConfidenceInterval?
    }

    /// The goal's power plans tonight: for `target_mde`, and, when the goal leads by more than
    /// that and the target's plan cannot be met in time, for a lift as large as the one it shows.
    struct GoalPlans {
        var target: Result<PowerPlan, PowerPlanGap>
        /// nil without such a lead.
        var lead: Result<PowerPlan, PowerPlanGap>?
        /// The days each plan needs.
        var outlook: DecisionRules.PowerOutlook
    }

    /// "about 12 days left", or for a floor "at least 12 days left".
    static func daysLeft(_ days: Int, floor: Bool) -> String {
        "\(floor ? "at least" : "about") \(days) day\(days == 1 ? "" : "s") left"
    }

    /// What a floor's days rest on (contract §2.15, "Days left are a plan"); empty for a plan.
    static func floorNote(_ floor: Bool) -> String {
        floor ? "; renewals no rate has been seen for yet count as none, so this may rise" : ""
    }

    func reason(
        _ status: DecisionStatus, goal: (metric: Metric, outcome: MetricOutcome), row: DecisionRow, withheld: String?,
        losing: [GuardrailReading], plans: GoalPlans, runtime: DecisionRules.Runtime, unknownYear: UnknownYear?
    ) -> String {
        let (goalMetric, goalOutcome) = goal
        let unseen = unknownYear?.unseen
        let bounds = unknownYear?.bounds
        // A product lead's words: the metric's plain name, "a 10.0% change", and power as how
        // often the change would be found.
        let goal = goalMetric.plainName
        let change = "a \(ReportFormat.percent(settings.targetMDE)) change in \(goal)"
        let reliably = "\(ReportFormat.percent(settings.targetPower)) of the time"
        let traffic = "at \(ReportFormat.count(Int(row.enrolmentPerDay.rounded()))) new users a day"
        let maximum = "the \(ReportFormat.days(settings.maxRuntimeDays)) the test may run"
        // "Stop variant_b and keep control": a stop or a roll back names what stays.
        let keep = "and keep \(controlName)"
        let confirming = "confirming a lift that large \(reliably)"
        // Why a plan runs past `max_runtime_days`: the days it would take, or that no size is enough.
        func pastMaximum(_ plan: DecisionRules.DaysPlan, _ finding: String) -> String {
            guard let days = plan.daysLeft, !plan.unreachable else {
                return "\(traffic), no number of users would be enough for \(finding) by \(maximum), or ever"
            }
            return "\(traffic), \(finding) would take about \(ReportFormat.count(days)) more days, past \(maximum)"
        }
        // By how much the goal leads, on what, and what of it is not yet seen.
        let leads =
            "it leads \(controlName) on \(goal) by \(liftWithInterval(row)), more than the \(ReportFormat.percent(settings.targetMDE)) worth finding"
            + (unseen.map { " (not yet seen: \($0))" } ?? "")
        switch status {
        case .unhealthy:
            return "Do not act on \(row.group) yet: \(withheld ?? "the verdict is withheld.")"
        case .rollBack:
            let lift = { (relLift: Double?) in relLift.map { " (\(ReportFormat.signedPercent($0)))" } ?? "" }
            // Bounds alone: worse whatever the part of the year not yet seen does.
            let bounded = bounds != nil ? " even at the most the part not yet seen allows" : ""
            let names =
                (goalOutcome == .loses ? [goalMetric.plainName + lift(row.goalRelLift) + bounded] : [])
                + losing.map { $0.words + lift($0.comparison?.relLift) }
            return
                "Roll back \(row.group) \(keep): \(names.joined(separator: " and ")) \(names.count == 1 ? "is" : "are") worse than \(controlName)."
        case .tooEarly:
            let left = max(1, Int((settings.minRuntimeDays - Double(runtime.nights)).rounded(.up)))
            var text =
                "Too early to decide \(row.group): the test has run \(ReportFormat.days(Double(runtime.nights))) of the \(ReportFormat.days(settings.minRuntimeDays)) it needs; look again in \(left) day\(left == 1 ? "" : "s")"
            // A goal that wins already waits for the minimum runtime alone.
            let followed = plans.outlook.followed(runtime)
            if goalOutcome != .wins, followed.runsPast(runtime) {
                text +=
                    ", though tonight's plan cannot be met: "
                    + (plans.outlook.lead == nil
                        ? pastMaximum(followed, "finding \(change)") : "\(leads), but \(pastMaximum(followed, confirming))")
            }
            return text + "."
        case .ship:
            var text = "Ship \(row.group): \(goal) \(liftWithInterval(row))"
            if let bounds {
                let perUser = { (amount: Double) in ReportFormat.signedMoney(amount, self.currency) }
                text =
                    "Ship \(row.group): \(goal) is higher whatever the part not yet seen does (\(perUser(bounds.low)) to \(perUser(bounds.high)) per user)"
            }
            if let impact = row.impact365 {
                text += ", worth \(ReportFormat.signedMoney(impact, currency)) a year if shipped"
                if let low = row.impact365CILow, let high = row.impact365CIHigh {
                    text += " (likely \(ReportFormat.signedMoney(low, currency)) to \(ReportFormat.signedMoney(high, currency)))"
                }
            }
            return text + "."
        case .inconclusive:
            return
                "Stop \(row.group) \(keep): any difference is too small to matter: by now the test would have found \(change) \(ReportFormat.percent(row.power ?? 0)) of the time, and it has found none."
        case .futile:
            if let unseen, let days = plans.outlook.target.daysLeft {
                return
                    "Stop \(row.group) \(keep): its first year will not be known in time: \(unseen); about \(ReportFormat.count(days)) more days (the test may run \(ReportFormat.days(settings.maxRuntimeDays)))."
            }
            let finding = "finding \(change)"
            // What the goal shows tonight, so a stop on a clear loser says it is one.
            let shows = row.goalRelLift == nil ? "" : "\(goal) \(liftWithInterval(row)); "
            guard let days = plans.outlook.target.daysLeft else {
                return
                    "Stop \(row.group) \(keep): \(shows)\(traffic), no number of users would be enough for \(finding) \(reliably)."
            }
            let about = plans.outlook.target.isFloor ? "at least" : "about"
            return
                "Stop \(row.group) \(keep): \(shows)\(traffic), \(finding) would take \(about) \(ReportFormat.count(days)) more days (the test may run \(ReportFormat.days(settings.maxRuntimeDays)))."
        case .keepRunning:
            if let lead = plans.outlook.lead {
                if lead.runsPast(runtime) {
                    return "Keep running \(row.group): \(leads), but \(pastMaximum(lead, confirming))."
                }
                guard let days = lead.daysLeft else {
                    return "Keep running \(row.group): \(leads); how long \(confirming) will take cannot be told from tonight."
                }
                let users = (try? plans.lead?.get()).map { " (\(ReportFormat.count($0.usersNeeded)) more users)" } ?? ""
                return
                    "Keep running \(row.group): \(leads); \(Self.daysLeft(days, floor: lead.isFloor))\(users) until the test would confirm a lift that large \(reliably)\(Self.floorNote(lead.isFloor))."
            }
            if let unseen {
                guard let days = row.daysLeft else {
                    return
                        "Keep running \(row.group): its first year is not known yet and when it will be cannot be told from tonight: \(unseen)."
                }
                return
                    "Keep running \(row.group): about \(days) day\(days == 1 ? "" : "s") left until its first year is known (then the power is checked): \(unseen)."
            }
            switch plans.target {
            case .failure(let gap):
                return "Keep running \(row.group): the days left cannot be estimated yet: \(gap.description)."
            case .success(let plan):
                guard let days = row.daysLeft else {
                    return
                        "Keep running \(row.group) only if enrolment resumes: no one joined \(controlName) or \(row.group) in the last 7 days, and \(ReportFormat.count(plan.usersNeeded)) more users are needed."
                }
                let floor = row.daysLeftFloor == true
                return
                    "Keep running \(row.group): \(Self.daysLeft(days, floor: floor)) (\(ReportFormat.count(plan.usersNeeded)) more users) until the test would find \(change) \(reliably)\(Self.floorNote(floor))."
            }
        }
    }

    /// `+12.0% (+3.1% to +21.4%)`: the goal's relative lift and its adjusted interval.
    func liftWithInterval(_ row: DecisionRow) -> String {
        guard let lift = row.goalRelLift else { return "wins" }
        var text = ReportFormat.signedPercent(lift)
        if let low = row.goalRelLiftCILow, let high = row.goalRelLiftCIHigh {
            text += " (\(ReportFormat.signedPercent(low)) to \(ReportFormat.signedPercent(high)))"
        }
        return text
    }
}
