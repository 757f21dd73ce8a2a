/// The sample-ratio-mismatch check (docs/statistics.md, SRM).
public struct SampleRatioMismatchResult: Sendable, Equatable {
    /// χ² = Σ (users − E)²/E over the groups with a positive weight, E = N·weight/Σ weights;
    /// +∞ when a group of weight 0 has users.
    public var chiSquared: Double
    /// k − 1, k = the number of groups with a positive weight (0 for a single such group).
    public var degreesOfFreedom: Int
    /// P(χ²_{k−1} > chiSquared), computed from the upper tail; 1 when χ² = 0, 0 when χ² = +∞.
    public var pValue: Double
    /// pValue < threshold (0.001 by default).
    public var isFlagged: Bool

    /// A result as computed by ``sampleRatioMismatch(users:weights:threshold:)``.
    public init(chiSquared: Double, degreesOfFreedom: Int, pValue: Double, isFlagged: Bool) {
        self.chiSquared = chiSquared
        self.degreesOfFreedom = degreesOfFreedom
        self.pValue = pValue
        self.isFlagged = isFlagged
    }
}

/// The p-value below which a sample ratio mismatch is flagged (docs/statistics.md, SRM).
public let sampleRatioMismatchThreshold = 0.001

/// The χ² goodness-of-fit test of the users per group against the shares their weights promise.
///
/// Weights need not sum to 1 (2/1/1, 50/25/25 and 0.5/0.25/0.25 are the same). Corners:
/// - no users at all, or every weight 0: nil (no expected shares to test);
/// - a group with weight 0 and 0 users contributes nothing and is not counted in k;
/// - a group with weight 0 that has users: χ² = +∞, p = 0, flagged (users where none were
///   promised is the strongest mismatch there is);
/// - a single group with a positive weight (and no users elsewhere): χ² = 0, 0 degrees of
///   freedom, p = 1, not flagged.
///
/// - Precondition: `users` and `weights` have the same length; users ≥ 0; weights finite and ≥ 0.
public func sampleRatioMismatch(
    users: [Int], weights: [Double], threshold: Double = sampleRatioMismatchThreshold
) -> SampleRatioMismatchResult? {
    precondition(users.count == weights.count, "one weight per group")
    let totalUsers = users.reduce(0, +)
    let totalWeight = weights.reduce(0, +)
    guard totalUsers > 0, totalWeight > 0 else { return nil }
    var chiSquared = 0.0
    var positive = 0
    let n = Double(totalUsers)
    for (count, weight) in zip(users, weights) {
        if weight > 0 {
            positive += 1
            let expected = n * (weight / totalWeight)
            let difference = Double(count) - expected
            chiSquared += difference * difference / expected
        } else if count > 0 {
            chiSquared = .infinity
        }
    }
    let degreesOfFreedom = positive - 1
    let pValue: Double
    if chiSquared.isInfinite {
        pValue = 0
    } else if degreesOfFreedom == 0 || chiSquared == 0 {
        pValue = 1
    } else {
        pValue = ChiSquared(degreesOfFreedom: Double(degreesOfFreedom)).survival(chiSquared)
    }
    return SampleRatioMismatchResult(
        chiSquared: chiSquared, degreesOfFreedom: degreesOfFreedom, pValue: pValue, isFlagged: pValue < threshold)
}
