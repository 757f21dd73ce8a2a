#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The beta distribution Beta(α, β), α, β > 0: the posterior of a conversion rate.
///
/// The density and the distribution function use the saddle-point form of xᵃ(1 − x)ᵇ/B(a, b)
/// (Stirling errors and deviances), so they keep their relative precision for large α and β
/// (verified to 10⁷ for the distribution function, 10⁸ through the chance to beat control).
public struct BetaDistribution: Sendable, Equatable {
    /// α (successes + prior).
    public let alpha: Double
    /// β (failures + prior).
    public let beta: Double

    /// Beta(α, β); α, β > 0 (otherwise the functions return NaN).
    public init(alpha: Double, beta: Double) {
        self.alpha = alpha
        self.beta = beta
    }

    /// α/(α + β).
    public var mean: Double { alpha / (alpha + beta) }

    /// αβ/((α + β)²(α + β + 1)).
    public var variance: Double {
        let n = alpha + beta
        return alpha * beta / (n * n * (n + 1))
    }

    /// The density at x; 0 outside [0, 1].
    public func density(_ x: Double) -> Double {
        density(x, complement: 1 - x)
    }

    /// The density at x with 1 − x given exactly by the caller.
    func density(_ x: Double, complement y: Double) -> Double {
        guard alpha > 0, beta > 0, !x.isNaN else { return .nan }
        if x < 0 || x > 1 { return 0 }
        if x == 0 { return alpha == 1 ? beta : (alpha < 1 ? .infinity : 0) }
        if y == 0 { return beta == 1 ? alpha : (beta < 1 ? .infinity : 0) }
        return SpecialFunctions.betaPowerTerm(a: alpha, b: beta, x: x, y: y) / (x * y)
    }

    /// P(X ≤ x) and P(X > x) (I_x(α, β) and its complement).
    public func tails(_ x: Double) -> TailProbabilities {
        guard !x.isNaN else { return .undefined }
        if x <= 0 { return TailProbabilities(lower: 0, upper: 1) }
        if x >= 1 { return TailProbabilities(lower: 1, upper: 0) }
        return SpecialFunctions.regularizedIncompleteBeta(a: alpha, b: beta, x: x)
    }

    /// P(X ≤ x).
    public func cdf(_ x: Double) -> Double { tails(x).lower }

    /// P(X > x), computed directly.
    public func survival(_ x: Double) -> Double { tails(x).upper }
}
