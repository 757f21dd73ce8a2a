extension SpecialFunctions {
    /// The regularized incomplete beta function I_x(a, b) and its complement 1 − I_x(a, b).
    ///
    /// - Parameters: `a, b > 0`, `0 ≤ x ≤ 1`. Outside the domain (or NaN) both tails are NaN.
    /// - Returns: `lower` = I_x(a, b), `upper` = I_{1−x}(b, a), each with full relative accuracy
    ///   when it is the smaller one (see ``TailProbabilities``).
    ///
    /// Method: the continued fraction of DiDonato and Morris (ACM TOMS 708, `bfrac`), written in
    /// λ = a − (a + b)x so that it does not cancel when x is close to 1 and a is huge (the Student
    /// t tail for 10⁷ degrees of freedom), evaluated on the side where it converges
    /// (x < (a + 1)/(a + b + 2)); the prefactor xᵃ(1 − x)ᵇ/B(a, b) uses Stirling errors and
    /// deviances instead of log-gamma differences. Cost: O(√min(a, b)) iterations near the mean,
    /// a handful in the tails.
    public static func regularizedIncompleteBeta(a: Double, b: Double, x: Double) -> TailProbabilities {
        regularizedIncompleteBeta(a: a, b: b, x: x, y: 1 - x)
    }

    /// I_x(a, b) with y = 1 − x supplied by the caller, who can often compute it exactly when x
    /// is close to 1 (for example y = t²/(ν + t²) for the Student t distribution).
    static func regularizedIncompleteBeta(a: Double, b: Double, x: Double, y: Double) -> TailProbabilities {
        guard a > 0, b > 0, a.isFinite, b.isFinite, x >= 0, y >= 0, x <= 1, y <= 1 else { return .undefined }
        if x == 0 { return TailProbabilities(lower: 0, upper: 1) }
        if y == 0 { return TailProbabilities(lower: 1, upper: 0) }
        let lambda = x < 0.5 ? a - (a + b) * x : (a + b) * y - b
        if x < (a + 1) / (a + b + 2) {
            let lower = betaPowerTerm(a: a, b: b, x: x, y: y) * betaFraction(a: a, b: b, x: x, y: y, lambda: lambda)
            return TailProbabilities(lower: lower, upper: 1 - lower)
        } else {
            let upper = betaPowerTerm(a: b, b: a, x: y, y: x) * betaFraction(a: b, b: a, x: y, y: x, lambda: -lambda)
            return TailProbabilities(lower: 1 - upper, upper: upper)
        }
    }

    /// The continued fraction 1/(β₁ + α₂/(β₂ + α₃/(β₃ + …))) with
    /// β₁ = a(λ + 1)/(a + 1),
    /// αₙ₊₁ = (a + n − 1)(a + b + n − 1)·n(b − n)·x² / (a + 2n − 1)²,
    /// βₙ₊₁ = n + n(b − n)x/(a + 2n − 1) + (a + n)/(a + 2n + 1)·(λ + 1 + n(1 + y)),
    /// so that I_x(a, b) = xᵃyᵇ/B(a, b) times it. Modified Lentz evaluation.
    private static func betaFraction(a: Double, b: Double, x: Double, y: Double, lambda: Double) -> Double {
        let tiny = 1e-300
        var f = a * (lambda + 1) / (a + 1)
        if f == 0 { f = tiny }
        var c = f
        var d = 0.0
        var n = 1.0
        let x2 = x * x
        while n < 1_000_000 {
            let s = a + 2 * n - 1
            let alpha = (a + n - 1) * (a + b + n - 1) * n * (b - n) * x2 / (s * s)
            let beta = n + n * (b - n) * x / s + (a + n) / (s + 2) * (lambda + 1 + n * (1 + y))
            d = beta + alpha * d
            if d == 0 { d = tiny }
            c = beta + alpha / c
            if c == 0 { c = tiny }
            d = 1 / d
            let delta = c * d
            f *= delta
            if abs(delta - 1) <= 2 * Double.ulpOfOne { break }
            n += 1
        }
        return 1 / f
    }
}
