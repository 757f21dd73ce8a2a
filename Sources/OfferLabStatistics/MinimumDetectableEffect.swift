/// The minimum detectable absolute difference in conversion rate at these sizes:
/// (z + Φ⁻¹(power))·√(p_c(1 − p_c)(1/n_t + 1/n_c)), z = Φ⁻¹(1 − alpha/2) (contract §2.5, power 0.8).
///
/// - Returns: nil when a group has no users. A control rate of 0 or 1 gives 0.
public func minimumDetectableEffect(
    control: SampleMoments, treatmentUsers: Int, alpha: Double, power: Double = 0.8
) -> Double? {
    guard control.count > 0, treatmentUsers > 0 else { return nil }
    let z = twoSidedNormalQuantile(alpha: alpha) + StandardNormal.quantile(power)
    return z * (control.variance * (1 / Double(treatmentUsers) + 1 / Double(control.count))).squareRoot()
}
