import OfferLabVocabulary

/// Where a metric's adjusted interval of the absolute lift lies.
public enum MetricOutcome: Sendable, Equatable {
    /// Entirely on the good side of 0.
    case wins
    /// Entirely on the harmful side.
    case loses
    /// It holds 0, or there is no interval.
    case undecided

    /// The outcome of `interval` for a metric whose harmful direction is up (`refund_user_rate`)
    /// or down (every other).
    public init(_ interval: ConfidenceInterval?, harmfulWhenUp: Bool) {
        guard let interval else {
            self = .undecided
            return
        }
        let above = interval.low > 0
        let below = interval.high < 0
        if above {
            self = harmfulWhenUp ? .loses : .wins
        } else if below {
            self = harmfulWhenUp ? .wins : .loses
        } else {
            self = .undecided
        }
    }
}

/// The decision date a job's earlier nights planned for a treatment: how many nights ran it on
/// with days left, and the date the latest of them gave (its `as_of` + its `days_left`), itself
/// the mean of those nights' own estimates.
public struct PlannedDecision: Sendable, Equatable {
    public var nights: Int
    /// µs since the epoch.
    public var decidedAt: Int64

    public init(nights: Int, decidedAt: Int64) {
        self.nights = nights
        self.decidedAt = decidedAt
    }
}

public enum DecisionRules {
    /// The first status that holds: unhealthy, roll back, too early, ship, inconclusive, futile,
    /// keep running.
    ///
    /// - Parameters:
    ///   - withheld: whether the offering's verdict is withheld.
    ///   - runtime: the days and whole nights the test has run, and `min_runtime_days`/`max_runtime_days`.
    public static func status(
        withheld: Bool, goal: MetricOutcome, guardrails: [MetricOutcome], runtime: Runtime, outlook: PowerOutlook
    ) -> DecisionStatus {
        if withheld { return .unhealthy }
        if goal == .loses || guardrails.contains(.loses) { return .rollBack }
        if Double(runtime.nights) < runtime.minimum { return .tooEarly }
        if goal == .wins { return .ship }
        if let power = outlook.power, power >= outlook.targetPower { return .inconclusive }
        // A lead larger than the target is worth waiting for even when confirming it runs past the maximum.
        if outlook.target.runsPast(runtime) && outlook.lead == nil { return .futile }
        return .keepRunning
    }

    /// The days a test has run, and the least and most it may (`min_runtime_days`, `max_runtime_days`).
    public struct Runtime: Sendable, Equatable {
        /// `runtime_days`: since the first member's `assigned_at`, to the microsecond.
        public var days: Double
        /// The nights since the first member's night (UTC dates apart): what `min_runtime_days`
        /// is counted in, so a test whose first member came at 02:00 is not too early on the
        /// night `min_runtime_days` after its first.
        public var nights: Int
        public var minimum: Double
        public var maximum: Double

        public init(days: Double, nights: Int, minimum: Double, maximum: Double) {
            self.days = days
            self.nights = nights
            self.minimum = minimum
            self.maximum = maximum
        }

        /// The UTC dates from the first member's `assigned_at` to `asOf` (µs): 0 on its own night.
        public static func nights(from firstAssignedAt: Int64, to asOf: Int64) -> Int {
            let day = Microseconds.perDayAsDouble
            return Int((Double(asOf) / day).rounded(.down) - (Double(firstAssignedAt) / day).rounded(.down))
        }
    }

    /// The days a plan still needs to find a lift.
    public struct DaysPlan: Sendable, Equatable {
        /// nil when they cannot be estimated (enrolment has stopped, no plan can be made).
        public var daysLeft: Int?
        /// Whether `daysLeft` is a floor: at least that many (a rate it needs is not seen yet).
        public var isFloor: Bool
        /// No size of the test reaches the target power.
        public var unreachable: Bool

        public init(daysLeft: Int?, isFloor: Bool = false, unreachable: Bool = false) {
            self.daysLeft = daysLeft
            self.isFloor = isFloor
            self.unreachable = unreachable
        }

        /// Whether the plan cannot be met by `max_runtime_days`: `runtime_days` + the days left
        /// past it, or no size of the test at all.
        public func runsPast(_ runtime: Runtime) -> Bool {
            if unreachable { return true }
            guard let daysLeft else { return false }
            return runtime.days + Double(daysLeft) > runtime.maximum
        }
    }

    /// Where the goal's power stands: now against the target, and what reaching it would take.
    public struct PowerOutlook: Sendable, Equatable {
        /// power(0) for `target_mde`, nil when no power plan could be made.
        public var power: Double?
        public var targetPower: Double
        /// The days until `target_mde` would be found.
        public var target: DaysPlan
        /// When the goal's estimate tonight leads by more than `target_mde` (and the target's plan
        /// runs past `max_runtime_days`): the days until a lift that large would be found.
        public var lead: DaysPlan?

        public init(power: Double?, targetPower: Double, target: DaysPlan, lead: DaysPlan? = nil) {
            self.power = power
            self.targetPower = targetPower
            self.target = target
            self.lead = lead
        }

        /// The plan a test that runs on follows: the target's, or the lead's when the target's
        /// cannot be met in time.
        public func followed(_ runtime: Runtime) -> DaysPlan {
            if let lead, target.runsPast(runtime) { return lead }
            return target
        }
    }

    /// Days until the test has `usersNeeded` more users at `enrolmentPerDay`: ⌈needed / r⌉, 0 when
    /// none are needed, never below the days left of `min_runtime_days`; nil when r = 0 and users
    /// are still needed (enrolment has stopped).
    public static func daysLeft(usersNeeded: Int, enrolmentPerDay: Double, nightsRun: Int, minRuntimeDays: Double) -> Int? {
        let runtimeLeft = minimumDaysLeft(nightsRun: nightsRun, minRuntimeDays: minRuntimeDays)
        guard usersNeeded > 0 else { return runtimeLeft }
        guard enrolmentPerDay > 0 else { return nil }
        return max(runtimeLeft, Int((Double(usersNeeded) / enrolmentPerDay).rounded(.up)))
    }

    /// Days left for a matured goal (`…_d<D>`): the smallest whole d ≥ 0 at which the members with
    /// `assigned_at` ≤ as_of + d days − D days, plus r·max(0, d − D) newcomers, reach `target`
    /// (= n(1 + s*), n the matured members now); never below the days left of `min_runtime_days`;
    /// nil when no d ever reaches it (enrolment has stopped and too few members are waiting).
    ///
    /// - Parameters:
    ///   - assigned: the members of the groups compared, by the days before `as_of` they were assigned.
    public static func maturedDaysLeft(
        assigned: AssignmentDays, maturityDays: Int, target: Double, enrolmentPerDay: Double, nightsRun: Int, minRuntimeDays: Double
    ) -> Int? {
        func reached(_ d: Int) -> Bool {
            let matured = assigned.assigned(atLeastDaysBefore: maturityDays - d)
            return Double(matured) + enrolmentPerDay * Double(max(0, d - maturityDays)) >= target
        }
        let runtimeLeft = minimumDaysLeft(nightsRun: nightsRun, minRuntimeDays: minRuntimeDays)
        if reached(0) { return runtimeLeft }
        // Every member now matures by d = D; past it only newcomers count, at r a day.
        if !reached(maturityDays) {
            guard enrolmentPerDay > 0 else { return nil }
            let missing = target - Double(assigned.members)
            return max(runtimeLeft, maturityDays + Int((missing / enrolmentPerDay).rounded(.up)))
        }
        var low = 0
        var high = maturityDays
        while high - low > 1 {
            let middle = (low + high) / 2
            if reached(middle) { high = middle } else { low = middle }
        }
        return max(runtimeLeft, high)
    }

    /// Tonight's days left pooled with the decision date the job's earlier nights planned: the
    /// date is the running mean of every night's own estimate (`earlier` holds how many nights
    /// and their mean), so one night's noise moves it by 1/(k + 1) of itself and a steady test's
    /// days count down. ⌈pooled date − as_of⌉ in days, at least 0; tonight's own without `earlier`.
    public static func pooledDaysLeft(tonight: Int, asOf: Int64, earlier: PlannedDecision?) -> Int {
        guard let earlier, earlier.nights > 0 else { return tonight }
        let day = Microseconds.perDayAsDouble
        let tonightsDate = Double(asOf) / day + Double(tonight)
        let pooled = (tonightsDate + Double(earlier.nights) * Double(earlier.decidedAt) / day) / Double(earlier.nights + 1)
        return max(0, Int((pooled - Double(asOf) / day).rounded(.up)))
    }

    /// The nights until `min_runtime_days` have run (`Runtime.nights`): ⌈min_runtime_days −
    /// nights run⌉, at least 0.
    public static func minimumDaysLeft(nightsRun: Int, minRuntimeDays: Double) -> Int {
        max(0, Int((minRuntimeDays - Double(nightsRun)).rounded(.up)))
    }
}
