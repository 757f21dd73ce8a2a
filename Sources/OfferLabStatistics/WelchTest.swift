/// Welch's unequal-variance t-test with Welch–Satterthwaite degrees of freedom.
public struct WelchTestResult: Sendable, Equatable {
    /// (m_t − m_c)/se.
    public var t: Double
    /// ν = (v_t/n_t + v_c/n_c)² / ((v_t/n_t)²/(n_t − 1) + (v_c/n_c)²/(n_c − 1)); not an integer
    /// in general. With one variance 0 it is the other group's n − 1.
    public var degreesOfFreedom: Double
    /// se = √(v_t/n_t + v_c/n_c).
    public var standardError: Double
    /// Two-sided p-value 2·P(T_ν > |t|), computed from the upper tail.
    public var pValue: Double
}

/// Welch's t-test of treatment against control.
///
/// - Returns: nil when a group has fewer than 2 users or both variances are 0 (se = 0: the
///   statistic and its degrees of freedom are 0/0).
public func welchTest(control: SampleMoments, treatment: SampleMoments) -> WelchTestResult? {
    guard let (variance, df) = welchVariance(control: control, treatment: treatment) else { return nil }
    let se = variance.squareRoot()
    let t = (treatment.mean - control.mean) / se
    let p = min(1, 2 * StudentT(degreesOfFreedom: df).survival(abs(t)))
    return WelchTestResult(t: t, degreesOfFreedom: df, standardError: se, pValue: p)
}

/// The variance of the difference of the means (se²) and its Welch–Satterthwaite degrees of
/// freedom ν: the test's, and the Student quantile's of the intervals that agree with its
/// verdict. nil where `welchTest` is nil.
func welchVariance(control: SampleMoments, treatment: SampleMoments) -> (variance: Double, degreesOfFreedom: Double)? {
    guard control.count >= 2, treatment.count >= 2 else { return nil }
    let vc = control.varianceOfMean
    let vt = treatment.varianceOfMean
    let sum = vc + vt
    guard sum > 0, sum.isFinite else { return nil }
    // Shares of the variance, so that tiny or huge variances neither underflow nor overflow.
    let shareC = vc / sum
    let shareT = vt / sum
    return (sum, 1 / (shareT * shareT / Double(treatment.count - 1) + shareC * shareC / Double(control.count - 1)))
}
