import OfferLabVocabulary

/// A period test (docs/statistics.md, "Period tests"): a treatment and its control that sell
/// different billing periods, so revenue so far favours the shorter period's early charges and
/// the test is decided by its year (`projected_arpu_365`).
public struct PeriodTest: Sendable, Equatable {
    /// Control's billing periods, shortest first.
    public var control: [BillingPeriod]
    /// The treatment's.
    public var treatment: [BillingPeriod]

    /// The test of a treatment whose products bill on `treatment` against control's `control`
    /// (nil: a product without a catalog `type`, which names no period); nil when the two sell
    /// the same set of periods. Every catalog `type` is a period of its own (`3_day_pass` and
    /// `7_day_pass`, `one_time`, a type the rules do not know).
    public init?(control: [BillingPeriod?], treatment: [BillingPeriod?]) {
        let controlPeriods = Set(control.compactMap { $0 })
        let treatmentPeriods = Set(treatment.compactMap { $0 })
        guard controlPeriods != treatmentPeriods else { return nil }
        self.control = BillingPeriod.shortestFirst(controlPeriods)
        self.treatment = BillingPeriod.shortestFirst(treatmentPeriods)
    }

    /// "weekly, monthly against 3-day pass, monthly, yearly": control's periods against the
    /// treatment's, in a product lead's words.
    public var periodsInWords: String {
        "\(control.map(\.plainName).joined(separator: ", ")) against \(treatment.map(\.plainName).joined(separator: ", "))"
    }
}

/// The goal `projected_arpu_365` of a treatment, as the decision reads its comparison row
/// (docs/statistics.md, "Period tests"): the expected difference per newcomer and its (1 − alpha)
/// interval, or, when the year is not identified, only the bounds of the difference.
public struct ProjectedDifference: Sendable, Equatable {
    /// t's − control's projection; nil when the year is not identified.
    public var difference: Double?
    /// Its (1 − alpha) interval; with no `difference`, the bounds (each side's lower against the
    /// other's upper).
    public var interval: ConfidenceInterval?
    /// t/control − 1 and its (1 − alpha) interval, when control's projection is above 0.
    public var relativeDifference: Double?
    public var relativeInterval: ConfidenceInterval?
    /// Control's projection, the relative decision interval's denominator.
    public var controlValue: Double?
    /// n = n_t + n_c.
    public var users: Int

    public init(
        difference: Double?, interval: ConfidenceInterval?, relativeDifference: Double?, relativeInterval: ConfidenceInterval?,
        controlValue: Double?, users: Int
    ) {
        self.difference = difference
        self.interval = interval
        self.relativeDifference = relativeDifference
        self.relativeInterval = relativeInterval
        self.controlValue = controlValue
        self.users = users
    }

    /// Nothing to decide by.
    public static let none = ProjectedDifference(
        difference: nil, interval: nil, relativeDifference: nil, relativeInterval: nil, controlValue: nil, users: 0)

    /// The standard error of a (1 − alpha) normal interval: its width / (2·z_{1−alpha/2}).
    static func standardError(of interval: ConfidenceInterval, alpha: Double) -> Double {
        (interval.high - interval.low) / (2 * StandardNormal.upperQuantile(alpha / 2))
    }

    /// The relative difference's standard error (from its interval), for the power plan; nil
    /// without one or when it is 0.
    public func relativeStandardError(alpha: Double) -> Double? {
        guard relativeDifference != nil, let relativeInterval else { return nil }
        let se = Self.standardError(of: relativeInterval, alpha: alpha)
        return se > 0 && se.isFinite ? se : nil
    }
}

/// The interval a projected goal is decided by, absolute and relative.
public struct ProjectedGoalInterval: Sendable, Equatable {
    public var absolute: ConfidenceInterval
    public var relative: ConfidenceInterval?
    /// false: the year is not identified and `absolute` is the bounds of the difference.
    public var identified: Bool

    public init(absolute: ConfidenceInterval, relative: ConfidenceInterval?, identified: Bool) {
        self.absolute = absolute
        self.relative = relative
        self.identified = identified
    }
}

public enum ProjectedGoal {
    /// Per treatment of an offering (in order), the interval its projected goal wins or loses by,
    /// Holm-adjusted over the treatments with a difference, under the decision's inference:
    ///
    /// - se = the width of the difference's (1 − alpha) interval / (2·z_{1−alpha/2}) (the
    ///   projection's interval is a percentile one; read as normal), centred on the difference;
    /// - fixed (`sequentialTuning` nil): p = 2·P(Z > |Δ|/se); sequential: §2.8's always-valid p
    ///   of Δ with se after n users (ρ from alpha and N*);
    /// - Holm over those p, and the interval at γ = alpha·p/p̃ (`adjustedIntervalLevel`):
    ///   Δ ± z_{γ/2}·se, or Δ ± h(γ) for the confidence sequence, so 0 lies outside exactly when
    ///   p̃ < alpha; the relative one is that interval over control's projection, never below
    ///   −100%, so it excludes 0 exactly when the absolute one does (the relative difference's
    ///   own percentile interval, widened the same way, crossed −100% and 0 on a pass test the
    ///   absolute interval shipped);
    /// - without a difference (`identified` false), the bounds are read the same way, as an
    ///   interval around their middle: they decide only when, so widened, they lie on one side of
    ///   0 (with one treatment and `fixed`, the bounds as they are). Read every night unwidened,
    ///   a group of a dozen users whose one charge was refunded (a year of exactly 0) rolled an
    ///   A/A period test back on its second night.
    ///
    /// nil where there is no interval, its se is 0, or no level agrees.
    public static func intervals(_ differences: [ProjectedDifference], alpha: Double, sequentialTuning: Double?) -> [ProjectedGoalInterval?]
    {
        let rho = sequentialTuning.map { sequentialRho(alpha: alpha, tuning: $0) }
        // Each treatment with a value: its Δ, se and own p-value.
        let tested: [(index: Int, difference: Double, se: Double, p: Double)] = differences.indices.compactMap { index in
            let item = differences[index]
            // Bounds alone: read as an interval around their middle, every bit of their width as
            // if it were sampling error.
            guard let interval = item.interval else { return nil }
            let difference = item.difference ?? (interval.low + interval.high) / 2
            let se = ProjectedDifference.standardError(of: interval, alpha: alpha)
            guard se > 0, se.isFinite else { return nil }
            let p =
                if let rho {
                    sequentialPValue(estimate: difference, standardError: se, totalUsers: max(1, item.users), rho: rho)
                } else {
                    min(1, 2 * StandardNormal.survival(abs(difference) / se))
                }
            return (index, difference, se, p)
        }
        let adjusted = holmBonferroni(tested.map(\.p))
        var result = [ProjectedGoalInterval?](repeating: nil, count: differences.count)
        for (test, pAdjusted) in zip(tested, adjusted) {
            guard
                let level = adjustedIntervalLevel(alpha: alpha, intervalPValue: test.p, adjustedPValue: pAdjusted, familySize: tested.count)
            else { continue }
            let multiplier =
                if let rho {
                    sequentialHalfWidth(standardError: 1, totalUsers: max(1, differences[test.index].users), rho: rho, alpha: level)
                } else {
                    StandardNormal.upperQuantile(level / 2)
                }
            let item = differences[test.index]
            let absolute = ConfidenceInterval(center: test.difference, halfWidth: multiplier * test.se)
            var relative: ConfidenceInterval?
            if item.difference != nil, let control = item.controlValue, control > 0 {
                relative = ConfidenceInterval(low: max(-1, absolute.low / control), high: absolute.high / control)
            }
            result[test.index] = ProjectedGoalInterval(absolute: absolute, relative: relative, identified: item.difference != nil)
        }
        return result
    }

    /// Days until a renewal the year needs is seen often enough: each further renewal of a product
    /// with a renewal every `periodDays` comes due one period later for the oldest chains, so
    /// ⌈(needed − seen)·period⌉ (the lag between a renewal falling due and enough chains having
    /// reached it, which tonight's `seen` already carries, is taken as constant); at least 1.
    public static func daysUntilRenewalsSeen(seen: Int, needed: Int, periodDays: Double) -> Int {
        let periods = max(0, needed - seen)
        return max(1, Int((Double(periods) * periodDays).rounded(.up)))
    }
}
