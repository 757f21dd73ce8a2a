/// A two-sided confidence interval [low, high].
public struct ConfidenceInterval: Sendable, Equatable {
    /// The lower end.
    public var low: Double
    /// The upper end.
    public var high: Double

    /// [low, high].
    public init(low: Double, high: Double) {
        self.low = low
        self.high = high
    }

    /// center ± halfWidth.
    public init(center: Double, halfWidth: Double) {
        self.init(low: center - halfWidth, high: center + halfWidth)
    }
}

/// z = Φ⁻¹(1 − alpha/2), the two-sided normal quantile, computed from alpha/2 directly.
public func twoSidedNormalQuantile(alpha: Double) -> Double {
    StandardNormal.upperQuantile(alpha / 2)
}
