#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The draws the parameter uncertainty needs, from any seedable generator (visible to the package:
/// the calibration study simulates with them). Written out (not the
/// standard library's `random(in:)`, whose algorithm may change) so a seed gives the same
/// intervals on every Swift version.
extension RandomNumberGenerator {
    /// Uniform in (0, 1): never 0, so its logarithm is finite.
    package mutating func unitOpen() -> Double {
        (Double(next() >> 11) + 0.5) * 0x1p-53
    }

    /// A standard normal (Box–Muller; the second value is dropped for simplicity).
    package mutating func standardNormal() -> Double {
        let radius = (-2 * log(unitOpen())).squareRoot()
        return radius * cos(2 * Double.pi * unitOpen())
    }

    /// A Poisson count with the given mean: by multiplication below 30, by a rounded normal above
    /// (the bootstrap needs the spread, not the exact tail).
    mutating func poisson(mean: Double) -> Int {
        guard mean > 0 else { return 0 }
        if mean < 30 {
            let limit = exp(-mean)
            var product = unitOpen()
            var count = 0
            while product > limit {
                product *= unitOpen()
                count += 1
            }
            return count
        }
        return max(0, Int((mean + mean.squareRoot() * standardNormal()).rounded()))
    }

    /// A binomial count of `trials` with success probability `probability`: Bernoulli trials up
    /// to 40 trials, otherwise a Poisson for a rare side and a rounded normal in between.
    mutating func binomial(trials: Int, probability: Double) -> Int {
        guard trials > 0, probability > 0 else { return 0 }
        guard probability < 1 else { return trials }
        if trials <= 40 {
            var count = 0
            for _ in 0..<trials where unitOpen() < probability { count += 1 }
            return count
        }
        let mean = Double(trials) * probability
        let complementMean = Double(trials) - mean
        if mean < 10 { return min(trials, poisson(mean: mean)) }
        if complementMean < 10 { return max(0, trials - poisson(mean: complementMean)) }
        let spread = (mean * (1 - probability)).squareRoot()
        return min(trials, max(0, Int((mean + spread * standardNormal()).rounded())))
    }

    /// A Gamma(shape, 1) variate (Marsaglia and Tsang, 2000; shape < 1 by the boost U^(1/shape)).
    package mutating func gamma(shape: Double) -> Double {
        if shape < 1 {
            return gamma(shape: shape + 1) * pow(unitOpen(), 1 / shape)
        }
        let d = shape - 1.0 / 3
        let c = 1 / (9 * d).squareRoot()
        while true {
            var x = 0.0
            var v = 0.0
            repeat {
                x = standardNormal()
                v = 1 + c * x
            } while v <= 0
            v = v * v * v
            let u = unitOpen()
            if log(u) < 0.5 * x * x + d - d * v + d * log(v) { return d * v }
        }
    }
}
