// The intervals that agree with a row's verdict (docs/statistics.md, Intervals that agree with the
// verdict): the `…_adjusted` columns of `comparisons.csv`.
//
// The verdict is `p_value_adjusted < alpha` (or its sequential twin): Holm–Bonferroni over the
// family, on the absolute scale, with the test docs/statistics.md#each-treatment-against-control
// names (for conversion the pooled z-test, which the unpooled interval does not invert). An
// interval agrees with it when 0 is outside exactly when the verdict says significant.
//
// Every interval used here belongs to a nested family I(γ) whose own test of 0 gives a p-value
// p_I: 0 ∉ I(γ) ⟺ p_I < γ. Taken at γ = alpha·p_I/p̃ (p̃ the Holm-adjusted p-value), it
// excludes 0 ⟺ p_I < alpha·p_I/p̃ ⟺ p̃ < alpha. Where the interval inverts the verdict's own
// test (Welch, sequential), p_I = p and γ = alpha/k with k = p̃/p, the multiplier of the row's
// Holm step (m − i + 1 at step i, more when an earlier step's value carries over).

/// γ = alpha·p_I/p̃, the level at which an interval whose own test of 0 gives `intervalPValue`
/// excludes 0 exactly when `adjustedPValue` < alpha.
///
/// - Returns: nil when no level in (0, 1) does it: γ ≥ 1 (the interval's test is far weaker than
///   the verdict's, in groups of a handful of users) or γ = 0 (p_I underflowed, or its standard
///   error is 0, while p̃ did not). When both are 0, alpha/`familySize` (0 is then far outside
///   the interval at any usual level).
public func adjustedIntervalLevel(alpha: Double, intervalPValue: Double, adjustedPValue: Double, familySize: Int) -> Double? {
    if adjustedPValue == 0 { return intervalPValue == 0 ? alpha / Double(max(familySize, 1)) : nil }
    let level = alpha * intervalPValue / adjustedPValue
    guard level > 0, level < 1, level.isFinite else { return nil }
    return level
}

/// Fieller's interval of the relative lift μ_t/μ_c − 1: every ratio R with
/// (m_t − R·m_c)² ≤ q²·(v_t/n_t + R²·v_c/n_c), minus 1.
///
/// At R = 1 the inequality is |m_t − m_c| ≤ q·√(v_t/n_t + v_c/n_c): the interval excludes 0
/// exactly when the absolute interval m_t − m_c ± q·se (same q, unpooled se) excludes 0. When
/// m_t ≥ 0 the ratio of two means of non-negative values is ≥ 0, so the interval starts at
/// −100% at the lowest (it is intersected with the possible values).
///
/// - Parameter quantile: q, the absolute interval's multiplier of its standard error.
/// - Returns: nil when m_c ≤ 0, or when the control's mean is within q standard errors of 0
///   (m_c² ≤ q²·v_c/n_c): the set of ratios is then unbounded.
public func fiellerRelativeLiftInterval(control: SampleMoments, treatment: SampleMoments, quantile: Double) -> ConfidenceInterval? {
    let mc = control.mean
    let mt = treatment.mean
    let q2 = quantile * quantile
    let a = control.varianceOfMean
    let b = treatment.varianceOfMean
    let leading = mc * mc - q2 * a
    guard mc > 0, leading > 0, leading.isFinite else { return nil }
    // A·R² − 2B·R + C ≤ 0 with A = m_c² − q²a, B = m_t·m_c, C = m_t² − q²b; its discriminant
    // B² − AC = q²(a·m_t² + b·A) ≥ 0, written so that nothing cancels.
    let half = mt * mc
    let constant = mt * mt - q2 * b
    let root = (q2 * (a * mt * mt + b * leading)).squareRoot()
    let far = half + (half >= 0 ? root : -root)
    // The roots are far/A and C/far (their product is C/A): neither is a difference of near equals.
    var low = far == 0 ? 0 : constant / far
    var high = far / leading
    if low > high { swap(&low, &high) }
    if mt >= 0 { low = max(low, 0) }
    return ConfidenceInterval(low: low - 1, high: high - 1)
}

/// The adjusted absolute interval and its Fieller relative interval at one quantile.
public struct AdjustedLiftIntervals: Sendable, Equatable {
    /// m_t − m_c ± q·se.
    public var absolute: ConfidenceInterval
    /// ``fiellerRelativeLiftInterval(control:treatment:quantile:)`` at the same q; nil where it is.
    public var relative: ConfidenceInterval?
}

/// The fixed-horizon intervals of a row that agree with its Holm-adjusted p-value
/// (`abs_lift_ci_*_adjusted`, `rel_lift_ci_*_adjusted`).
///
/// - Conversion (`studentDegreesOfFreedom` nil): the unpooled normal interval, whose own test
///   is the unpooled z-test, p_I = 2·P(Z > |m_t − m_c|/se) (1 when se = 0 and m_t = m_c, 0 when
///   se = 0 otherwise).
/// - Revenue: the Welch interval with the Student t quantile at ν; p_I is the Welch p-value.
///
/// - Returns: nil when ``adjustedIntervalLevel(alpha:intervalPValue:adjustedPValue:familySize:)`` is nil.
public func adjustedFixedLiftIntervals(
    control: SampleMoments, treatment: SampleMoments, studentDegreesOfFreedom: Double?, alpha: Double, adjustedPValue: Double,
    familySize: Int
) -> AdjustedLiftIntervals? {
    let se = absoluteLiftStandardError(control: control, treatment: treatment)
    let lift = treatment.mean - control.mean
    let intervalPValue: Double
    let quantile: (Double) -> Double
    if let degrees = studentDegreesOfFreedom {
        let t = StudentT(degreesOfFreedom: degrees)
        intervalPValue = se > 0 ? min(1, 2 * t.survival(abs(lift) / se)) : (lift == 0 ? 1 : 0)
        quantile = { t.upperQuantile($0 / 2) }
    } else {
        intervalPValue = se > 0 ? min(1, 2 * StandardNormal.survival(abs(lift) / se)) : (lift == 0 ? 1 : 0)
        quantile = { StandardNormal.upperQuantile($0 / 2) }
    }
    guard
        let level = adjustedIntervalLevel(
            alpha: alpha, intervalPValue: intervalPValue, adjustedPValue: adjustedPValue, familySize: familySize)
    else { return nil }
    let q = quantile(level)
    return AdjustedLiftIntervals(
        absolute: ConfidenceInterval(center: lift, halfWidth: q * se),
        relative: fiellerRelativeLiftInterval(control: control, treatment: treatment, quantile: q))
}

/// The sequential intervals of a row that agree with its Holm-adjusted sequential p-value
/// (`seq_abs_lift_ci_*_adjusted`, `seq_rel_lift_ci_*_adjusted`): the confidence sequence with ρ
/// unchanged and γ in place of alpha in ln(√(nρ²+1)/γ), which is the interval the sequential
/// p-value inverts (p < γ ⟺ |m_t − m_c| > h(γ)).
///
/// - Returns: nil when the absolute se is 0 (no sequential values then) or no level agrees.
public func adjustedSequentialLiftIntervals(
    control: SampleMoments, treatment: SampleMoments, rho: Double, alpha: Double, adjustedPValue: Double, familySize: Int
) -> AdjustedLiftIntervals? {
    guard let pValue = sequentialLiftPValue(control: control, treatment: treatment, rho: rho),
        let level = adjustedIntervalLevel(alpha: alpha, intervalPValue: pValue, adjustedPValue: adjustedPValue, familySize: familySize)
    else { return nil }
    let q = sequentialHalfWidth(standardError: 1, totalUsers: control.count + treatment.count, rho: rho, alpha: level)
    let se = absoluteLiftStandardError(control: control, treatment: treatment)
    return AdjustedLiftIntervals(
        absolute: ConfidenceInterval(center: treatment.mean - control.mean, halfWidth: q * se),
        relative: fiellerRelativeLiftInterval(control: control, treatment: treatment, quantile: q))
}
