/// Mid-experiment power of a goal metric and the users a test still needs (docs/statistics.md,
/// "The decision"; GrowthBook's mid-experiment power): on the relative scale, with the unpooled
/// delta-method variance of the relative lift, Bonferroni over the offering's treatments.
public struct PowerPlan: Sendable, Equatable {
    /// power(0): the chance that the interval read now would exclude 0 if the true relative lift
    /// were ± `targetMDE`.
    public var power: Double
    /// ⌈s*·n⌉: the users (both groups) still to come until power reaches the target; 0 when it
    /// already has.
    public var usersNeeded: Int
}

/// Why a power plan cannot be made.
public enum PowerPlanGap: Error, Sendable, Equatable, CustomStringConvertible {
    /// Control's mean is 0: a relative lift has no scale.
    case controlMeanIsZero
    /// A group's variance is 0: nothing to plan against.
    case varianceIsZero
    /// No s ≤ 2²⁷ (the test 134 million times larger) reaches the target power.
    case targetUnreachable

    public var description: String {
        switch self {
        case .controlMeanIsZero: "control's mean is 0, so a relative lift has no scale yet"
        case .varianceIsZero: "a group's values do not vary yet"
        case .targetUnreachable: "no number of users reaches the target power"
        }
    }
}

public enum PowerPlanning {
    /// The largest s searched: 2²⁷ times the users so far.
    static let largestScale = 134_217_728.0

    /// The power now and the users still needed for `control` and `treatment`.
    ///
    /// - Parameters:
    ///   - treatments: k, the offering's treatments (alpha/k for each: Bonferroni, for planning).
    ///   - targetMDE: δ > 0, the relative lift worth finding.
    ///   - targetPower: in (0, 1).
    ///   - sequentialTuning: N* of the confidence sequence when the decision is sequential; nil
    ///     for the fixed-horizon interval.
    public static func plan(
        control: SampleMoments, treatment: SampleMoments, treatments: Int, alpha: Double, targetMDE: Double, targetPower: Double,
        sequentialTuning: Double?
    ) -> Result<PowerPlan, PowerPlanGap> {
        guard control.mean != 0 else { return .failure(.controlMeanIsZero) }
        guard control.variance > 0, treatment.variance > 0,
            let se = relativeLiftStandardError(control: control, treatment: treatment), se > 0
        else { return .failure(.varianceIsZero) }
        return plan(
            relativeLiftStandardError: se, users: control.count + treatment.count, treatments: treatments, alpha: alpha,
            targetMDE: targetMDE, targetPower: targetPower, sequentialTuning: sequentialTuning)
    }

    /// The same plan from the relative lift's standard error `se` > 0 after `users` (both
    /// groups), for a goal whose se comes from its interval (`projected_arpu_365`,
    /// `ProjectedDifference.relativeStandardError`).
    public static func plan(
        relativeLiftStandardError se: Double, users: Int, treatments: Int, alpha: Double, targetMDE: Double, targetPower: Double,
        sequentialTuning: Double?
    ) -> Result<PowerPlan, PowerPlanGap> {
        guard se > 0, se.isFinite, users > 0 else { return .failure(.varianceIsZero) }
        let curve = PowerCurve(
            varianceOfLift: se * se, users: Double(users), alpha: alpha / Double(max(1, treatments)),
            targetMDE: targetMDE, sequentialTuning: sequentialTuning)
        let now = curve.power(0)
        guard now < targetPower else { return .success(PowerPlan(power: now, usersNeeded: 0)) }
        // power(s) rises with s: double until it reaches the target, then bisect between the last two.
        var low = 0.0
        var high = 1.0 / 1024
        while curve.power(high) < targetPower {
            low = high
            high *= 2
            if high > largestScale { return .failure(.targetUnreachable) }
        }
        while curve.power(high) - targetPower > 1e-5 && high - low > 1e-12 * high {
            let middle = (low + high) / 2
            if curve.power(middle) < targetPower { low = middle } else { high = middle }
        }
        return .success(PowerPlan(power: now, usersNeeded: Int((high * curve.users).rounded(.up))))
    }
}

/// power(s) = 1 − Φ((h(s) − δ)/σ_s) + Φ(−(h(s) + δ)/σ_s) after s·n more users: σ_s² = σ̂²/(1 + s),
/// h(s) = z_{1−a/2}·σ_s (fixed) or the confidence sequence's half-width at level a for n(1 + s)
/// users with the same per-user variance n·σ̂² (sequential).
struct PowerCurve {
    let varianceOfLift: Double
    let users: Double
    let alpha: Double
    let targetMDE: Double
    let sequentialTuning: Double?

    func power(_ scale: Double) -> Double {
        let sigma = (varianceOfLift / (1 + scale)).squareRoot()
        let halfWidth: Double
        if let tuning = sequentialTuning {
            let rho = sequentialRho(alpha: alpha, tuning: tuning)
            halfWidth = sequentialHalfWidth(standardError: sigma, users: users * (1 + scale), rho: rho, alpha: alpha)
        } else {
            halfWidth = StandardNormal.upperQuantile(alpha / 2) * sigma
        }
        return StandardNormal.survival((halfWidth - targetMDE) / sigma) + StandardNormal.cdf(-(halfWidth + targetMDE) / sigma)
    }
}
