#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Special functions the distributions are built on: log-gamma, the regularized incomplete
/// beta and gamma functions, and the saddle-point terms that keep them exact for huge arguments.
///
/// Every function is pure and thread-safe.
public enum SpecialFunctions {}

/// ½·log(2π).
let logSqrtTwoPi = 0.918_938_533_204_672_741_780_329_736_406

extension SpecialFunctions {
    /// log |Γ(x)|.
    ///
    /// Uses the C library's reentrant `lgamma_r` (no shared `signgam`). Accurate to a few ulps in
    /// absolute terms; near the zeros at x = 1 and x = 2 the *relative* error grows, as it must.
    /// Returns +∞ at 0 and the non-positive integers.
    public static func logGamma(_ x: Double) -> Double {
        var sign: Int32 = 0
        return lgamma_r(x, &sign)
    }
}

extension SpecialFunctions {
    /// 1/B(a, b) = Γ(a + b)/(Γ(a)Γ(b)) for a, b > 0, without log-gamma cancellation:
    /// √(ab/(2π(a + b)))·exp(δ(a + b) − δ(a) − δ(b) + a·log(1 + b/a) + b·log(1 + a/b)).
    static func inverseBeta(a: Double, b: Double) -> Double {
        let n = a + b
        let exponent =
            stirlingError(n) - stirlingError(a) - stirlingError(b) + a * log1p(b / a) + b * log1p(a / b)
        return exp(exponent) * (a * b / (2 * Double.pi * n)).squareRoot()
    }
}
