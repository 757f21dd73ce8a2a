/// The minimum detectable absolute difference in conversion rate at these sizes:
/// (z + Φ⁻¹(power))·√(p_c(1 − p_c)(1/n_t + 1/n_c)), z = Φ⁻¹(1 − alpha/2), p_c = x_c/n_c
/// (power 0.8; docs/statistics.md, Each treatment against control).
///
/// - Returns: nil when a group has no users or the counts are invalid. A control rate of 0 or 1
///   gives 0.
public func minimumDetectableEffect(
    controlConverters: Int, controlUsers: Int, treatmentUsers: Int, alpha: Double, power: Double = 0.8
) -> Double? {
    guard controlUsers > 0, treatmentUsers > 0, controlConverters >= 0, controlConverters <= controlUsers else {
        return nil
    }
    let n = Double(controlUsers)
    let variance = (Double(controlConverters) / n) * (Double(controlUsers - controlConverters) / n)
    let z = twoSidedNormalQuantile(alpha: alpha) + StandardNormal.quantile(power)
    return z * (variance * (1 / Double(treatmentUsers) + 1 / n)).squareRoot()
}
