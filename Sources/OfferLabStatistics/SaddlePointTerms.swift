#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Saddle-point terms (C. Loader, "Fast and accurate computation of binomial probabilities",
// 2000): the pieces that let xᵃ(1 − x)ᵇ/B(a, b) and xᵃe⁻ˣ/Γ(a + 1) keep full relative
// precision for huge arguments (tested to 10⁹), where log-gamma differences would cancel.
extension SpecialFunctions {
    /// Stirling's error δ(n) = log Γ(n + 1) − [(n + ½)·log n − n + ½·log 2π], for n > 0.
    ///
    /// Absolute error below 1e-16 for every n > 0: an asymptotic series above 15, the exact
    /// recurrence δ(n) = δ(n + 1) + Σ u²ⁱ/(2i + 1) (u = 1/(2n + 1)) from 1 to 15, and log-gamma
    /// below 1, where the terms are small. Used so that log Γ never has to be subtracted from
    /// log Γ for large arguments.
    static func stirlingError(_ n: Double) -> Double {
        if n > 15 { return stirlingSeries(n) }
        if n >= 1 {
            var m = n
            var shift = 0.0
            while m <= 15 {
                shift += stirlingStep(m)
                m += 1
            }
            return stirlingSeries(m) + shift
        }
        // 0 < n < 1: the terms are at most a few units, so the subtraction loses nothing.
        return logGamma(1 + n) - (n + 0.5) * log(n) + n - logSqrtTwoPi
    }

    /// δ(n) − δ(n + 1) = (n + ½)·log(1 + 1/n) − 1 = Σ_{i≥1} u²ⁱ/(2i + 1), u = 1/(2n + 1), n ≥ 1.
    private static func stirlingStep(_ n: Double) -> Double {
        let u = 1 / (2 * n + 1)
        let u2 = u * u
        var power = u2
        var sum = 0.0
        var k = 3.0
        while true {
            let next = sum + power / k
            if next == sum { return sum }
            sum = next
            power *= u2
            k += 2
        }
    }

    /// The Stirling series of δ(n) for n > 15, to the 1/n¹¹ term (truncation error < 1e-18).
    private static func stirlingSeries(_ n: Double) -> Double {
        let s0 = 1.0 / 12
        let s1 = 1.0 / 360
        let s2 = 1.0 / 1260
        let s3 = 1.0 / 1680
        let s4 = 1.0 / 1188
        let s5 = 691.0 / 360_360
        let nn = n * n
        return (s0 - (s1 - (s2 - (s3 - (s4 - s5 / nn) / nn) / nn) / nn) / nn) / n
    }

    /// Loader's deviance term x·log(x/M) + M − x with M = n·p, for x > 0, n > 0, 0 ≤ p ≤ 1.
    ///
    /// The product M is carried in double-double (`fma`), and near x = M a series in
    /// v = (x − M)/(x + M) replaces the cancelling logarithm, so the result has full relative
    /// accuracy even for n = 10⁸.
    static func deviance(_ x: Double, n: Double, p: Double) -> Double {
        let m = n * p
        if m == 0 { return x > 0 ? .infinity : 0 }
        let mLow = fma(n, p, -m)  // n·p = m + mLow exactly
        let difference = (x - m) - mLow
        let total = (x + m) + mLow
        if abs(difference) < 0.5 * total {
            let v = difference / total
            var sum = difference * v
            if abs(sum) < Double.leastNormalMagnitude { return sum }
            var term = 2 * x * v
            let v2 = v * v
            var k = 3.0
            while k < 1000 {
                term *= v2
                let next = sum + term / k
                if next == sum { return next }
                sum = next
                k += 2
            }
            return sum
        }
        let ratio = x / m
        let logRatio = (ratio.isFinite && ratio > 0) ? log(ratio) : log(x) - log(m)
        return x * logRatio + ((m - x) + mLow)
    }

    /// xᵃ·yᵇ / B(a, b) with y = 1 − x given separately (so both can be exact), for a, b > 0.
    ///
    /// Computed as √(ab / (2π(a + b)))·exp(δ(a + b) − δ(a) − δ(b) − D(a; a + b, x) − D(b; a + b, y))
    /// with δ the Stirling error and D the deviance: no log-gamma cancellation, so the relative
    /// error stays near 1e-15 whatever the size of a and b.
    static func betaPowerTerm(a: Double, b: Double, x: Double, y: Double) -> Double {
        if x <= 0 || y <= 0 { return 0 }
        let n = a + b
        let exponent =
            stirlingError(n) - stirlingError(a) - stirlingError(b)
            - deviance(a, n: n, p: x) - deviance(b, n: n, p: y)
        return exp(exponent) * (a * b / (2 * Double.pi * n)).squareRoot()
    }

    /// xᵃ·e⁻ˣ / Γ(a + 1) for a > 0, x ≥ 0, computed as exp(−δ(a) − D(a; x, 1)) / √(2πa).
    static func gammaPowerTerm(a: Double, x: Double) -> Double {
        if x == 0 { return 0 }
        if x.isInfinite { return 0 }
        return exp(-stirlingError(a) - deviance(a, n: x, p: 1)) / (2 * Double.pi * a).squareRoot()
    }
}
