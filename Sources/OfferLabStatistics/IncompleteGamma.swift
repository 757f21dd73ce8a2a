extension SpecialFunctions {
    /// The regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 − P(a, x).
    ///
    /// - Parameters: `a > 0`, `x ≥ 0` (x = +∞ gives P = 1). Outside the domain both are NaN.
    /// - Returns: `lower` = P(a, x), `upper` = Q(a, x), the smaller one with full relative accuracy.
    ///
    /// Method: the power series of P for x < a + 1, the Legendre continued fraction of Q
    /// (modified Lentz) otherwise; the prefactor xᵃe⁻ˣ/Γ(a + 1) uses Stirling errors and
    /// deviances, so it is exact for large a. Cost: O(√a) terms near x = a, a few in the tails.
    public static func regularizedIncompleteGamma(a: Double, x: Double) -> TailProbabilities {
        guard a > 0, a.isFinite, x >= 0 else { return .undefined }
        if x == 0 { return TailProbabilities(lower: 0, upper: 1) }
        if x.isInfinite { return TailProbabilities(lower: 1, upper: 0) }
        let prefactor = gammaPowerTerm(a: a, x: x)  // xᵃe⁻ˣ/Γ(a + 1)
        if x < a + 1 {
            // P(a, x) = xᵃe⁻ˣ/Γ(a + 1) · Σ_{n≥0} xⁿ / ((a + 1)…(a + n)).
            var term = 1.0
            var sum = 1.0
            var denominator = a
            while true {
                denominator += 1
                term *= x / denominator
                let next = sum + term
                if next == sum { break }
                sum = next
            }
            let lower = prefactor * sum
            return TailProbabilities(lower: lower, upper: 1 - lower)
        }
        // Q(a, x) = xᵃe⁻ˣ/Γ(a) · 1/(x + 1 − a − 1(1 − a)/(x + 3 − a − 2(2 − a)/(x + 5 − a − …))).
        let tiny = 1e-300
        var bTerm = (x - a) + 1
        var c = 1 / tiny
        var d = 1 / bTerm
        var h = d
        var i = 1.0
        while i < 1_000_000 {
            let aTerm = -i * (i - a)
            bTerm += 2
            d = aTerm * d + bTerm
            if d == 0 { d = tiny }
            c = bTerm + aTerm / c
            if c == 0 { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) <= 2 * Double.ulpOfOne { break }
            i += 1
        }
        let upper = a * prefactor * h
        return TailProbabilities(lower: 1 - upper, upper: upper)
    }
}
