/// The pooled two-proportion z-test (docs/statistics.md, Each treatment against control).
public struct ProportionTestResult: Sendable, Equatable {
    /// (p_t − p_c)/se, 0 when se = 0.
    public var z: Double
    /// Two-sided p-value 2·(1 − Φ(|z|)), computed from the upper tail (so 1e-200 stays 1e-200);
    /// 1 when se = 0.
    public var pValue: Double
}

/// Pooled two-proportion z-test: p̂ = (x_t + x_c)/(n_t + n_c), se = √(p̂(1 − p̂)(1/n_t + 1/n_c)).
///
/// - Returns: nil when either group has no users. se = 0 (nobody or everybody converted in both
///   groups together) gives z = 0 and p = 1.
public func pooledProportionTest(
    controlConverters: Int, controlUsers: Int, treatmentConverters: Int, treatmentUsers: Int
) -> ProportionTestResult? {
    guard controlUsers > 0, treatmentUsers > 0 else { return nil }
    let nc = Double(controlUsers)
    let nt = Double(treatmentUsers)
    let total = nc + nt
    let pooled = Double(controlConverters + treatmentConverters) / total
    let pooledComplement = Double(controlUsers - controlConverters + treatmentUsers - treatmentConverters) / total
    let se = (pooled * pooledComplement * (1 / nt + 1 / nc)).squareRoot()
    guard se > 0 else { return ProportionTestResult(z: 0, pValue: 1) }
    let difference = Double(treatmentConverters) / nt - Double(controlConverters) / nc
    let z = difference / se
    return ProportionTestResult(z: z, pValue: min(1, 2 * StandardNormal.survival(abs(z))))
}
