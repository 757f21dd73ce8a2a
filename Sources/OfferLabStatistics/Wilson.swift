/// The Wilson score interval of a binomial proportion at confidence 1 − alpha.
///
/// With p = x/n and z = Φ⁻¹(1 − alpha/2), the ends are the roots of
/// (n + z²)π² − (2x + z²)π + x²/n = 0. Each end is computed without cancellation, with full
/// relative precision: the larger root π₊ and 1 − π₋ are sums of positive terms; the smaller
/// root is then (x²/n)/((n + z²)·π₊) (the product of the roots), and 1 − π₊ likewise. So x = 0
/// gives a low of exactly 0, x = n a high of exactly 1, and n = 10⁸ loses nothing.
///
/// - Returns: nil when trials = 0 (no rate); requires 0 ≤ successes ≤ trials and 0 < alpha < 1.
public func wilsonInterval(successes: Int, trials: Int, alpha: Double) -> ConfidenceInterval? {
    guard trials > 0, successes >= 0, successes <= trials, alpha > 0, alpha < 1 else { return nil }
    let n = Double(trials)
    let x = Double(successes)
    let failures = Double(trials - successes)
    let z = twoSidedNormalQuantile(alpha: alpha)
    let z2 = z * z
    let root = z * (z2 + 4 * x * failures / n).squareRoot()
    let scale = n + z2
    let high = (2 * x + z2 + root) / (2 * scale)  // π₊
    let complementOfLow = (2 * failures + z2 + root) / (2 * scale)  // 1 − π₋
    let low = complementOfLow > 0.5 ? (x * x / n) / (scale * high) : 1 - complementOfLow
    let complementOfHigh = high > 0.5 ? (failures * failures / n) / (scale * complementOfLow) : 1 - high
    return ConfidenceInterval(low: low, high: high > 0.5 ? 1 - complementOfHigh : high)
}
