/// The χ² distribution with k > 0 degrees of freedom (k need not be an integer).
///
/// P(X ≤ x) = P(k/2, x/2) and P(X > x) = Q(k/2, x/2), the regularized incomplete gamma
/// functions (``SpecialFunctions/regularizedIncompleteGamma(a:x:)``): the survival function is
/// computed directly, so a p-value of 1e-250 is not rounded to 0.
public struct ChiSquared: Sendable, Equatable {
    /// k, the degrees of freedom.
    public let degreesOfFreedom: Double

    /// A χ² distribution with `degreesOfFreedom` k > 0 (otherwise every function is NaN).
    public init(degreesOfFreedom: Double) {
        self.degreesOfFreedom = degreesOfFreedom
    }

    /// P(X ≤ x) and P(X > x). For x ≤ 0: (0, 1).
    public func tails(_ x: Double) -> TailProbabilities {
        guard degreesOfFreedom > 0, !x.isNaN else { return .undefined }
        if x <= 0 { return TailProbabilities(lower: 0, upper: 1) }
        return SpecialFunctions.regularizedIncompleteGamma(a: degreesOfFreedom / 2, x: x / 2)
    }

    /// P(X ≤ x).
    public func cdf(_ x: Double) -> Double { tails(x).lower }

    /// P(X > x), computed directly.
    public func survival(_ x: Double) -> Double { tails(x).upper }
}
