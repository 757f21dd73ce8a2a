#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The asymptotic confidence sequence (docs/statistics.md, Sequential; Waudby-Smith et al. 2023, eq. 9; the
/// formulas of GrowthBook's sequential test): an interval and a p-value that stay valid however
/// often the experiment is looked at, at the price of being wider than the fixed-horizon ones.
public enum SequentialInference {
    /// N*, the total users of the two groups at which the sequence is tightest, when the job
    /// does not say (`sequential_tuning`).
    public static let defaultTuning = 5000.0
}

/// ρ = √((−2 ln α + ln(1 − 2 ln α)) / N*), the mixing parameter that makes the confidence
/// sequence tightest when n = N* users have been seen.
///
/// - Parameters:
///   - alpha: 0 < alpha < 1.
///   - tuning: N* > 0.
public func sequentialRho(alpha: Double, tuning: Double) -> Double {
    let minusTwiceLogAlpha = -2 * log(alpha)
    return ((minusTwiceLogAlpha + log1p(minusTwiceLogAlpha)) / tuning).squareRoot()
}

/// The half-width of the confidence sequence around an estimate with standard error `se` after
/// n users: h = √s² · √(2(nρ²+1) ln(√(nρ²+1)/α) / (n²ρ²)) with s² = se²·n, which is
/// se·√(2(nρ²+1) ln(√(nρ²+1)/α) / (nρ²)).
///
/// - Parameters:
///   - standardError: se ≥ 0 of the estimate (se = 0 gives 0).
///   - totalUsers: n = n_t + n_c ≥ 1.
///   - rho: ``sequentialRho(alpha:tuning:)`` for the same alpha.
///   - alpha: 0 < alpha < 1.
public func sequentialHalfWidth(standardError: Double, totalUsers: Int, rho: Double, alpha: Double) -> Double {
    sequentialHalfWidth(standardError: standardError, users: Double(totalUsers), rho: rho, alpha: alpha)
}

/// ``sequentialHalfWidth(standardError:totalUsers:rho:alpha:)`` for a number of users that need
/// not be whole (the users a test would have after s·n more, for planning).
public func sequentialHalfWidth(standardError: Double, users: Double, rho: Double, alpha: Double) -> Double {
    let nRhoSquared = users * rho * rho
    let logTerm = 0.5 * log1p(nRhoSquared) - log(alpha)  // ln(√(nρ²+1)/α), without overflow
    return standardError * (2 * (nRhoSquared + 1) * logTerm / nRhoSquared).squareRoot()
}

/// The always-valid p-value of an estimate with standard error `se` > 0 after n users:
/// p = min(1, √(nρ²+1) · exp(−ρ² n z² / (2(nρ²+1)))) with z = estimate/se. It is below alpha
/// exactly when 0 lies outside estimate ± ``sequentialHalfWidth(standardError:totalUsers:rho:alpha:)``.
///
/// Computed as one exponential of a logarithm, so a large n or z neither overflows nor loses
/// the tiny values (they underflow to 0 only below 1e-308).
public func sequentialPValue(estimate: Double, standardError: Double, totalUsers: Int, rho: Double) -> Double {
    let nRhoSquared = Double(totalUsers) * rho * rho
    let z = estimate / standardError
    return min(1, exp(0.5 * log1p(nRhoSquared) - nRhoSquared * z * z / (2 * (nRhoSquared + 1))))
}

/// The confidence sequence of the absolute lift m_t − m_c, with se² = v_t/n_t + v_c/n_c
/// (unpooled, for both metrics); nil when se = 0.
public func sequentialAbsoluteLiftInterval(
    control: SampleMoments, treatment: SampleMoments, rho: Double, alpha: Double
) -> ConfidenceInterval? {
    let se = absoluteLiftStandardError(control: control, treatment: treatment)
    guard se > 0 else { return nil }
    let halfWidth = sequentialHalfWidth(standardError: se, totalUsers: control.count + treatment.count, rho: rho, alpha: alpha)
    return ConfidenceInterval(center: treatment.mean - control.mean, halfWidth: halfWidth)
}

/// The confidence sequence of the relative lift m_t/m_c − 1, with the delta-method se of
/// ``relativeLiftStandardError(control:treatment:)``; nil when m_c = 0 or that se is 0.
public func sequentialRelativeLiftInterval(
    control: SampleMoments, treatment: SampleMoments, rho: Double, alpha: Double
) -> ConfidenceInterval? {
    guard let lift = relativeLift(control: control, treatment: treatment),
        let se = relativeLiftStandardError(control: control, treatment: treatment), se > 0
    else { return nil }
    let halfWidth = sequentialHalfWidth(standardError: se, totalUsers: control.count + treatment.count, rho: rho, alpha: alpha)
    return ConfidenceInterval(center: lift, halfWidth: halfWidth)
}

/// The always-valid p-value of the absolute lift (`seq_p_value`); nil when its se is 0.
public func sequentialLiftPValue(control: SampleMoments, treatment: SampleMoments, rho: Double) -> Double? {
    let se = absoluteLiftStandardError(control: control, treatment: treatment)
    guard se > 0 else { return nil }
    return sequentialPValue(
        estimate: treatment.mean - control.mean, standardError: se, totalUsers: control.count + treatment.count, rho: rho)
}
