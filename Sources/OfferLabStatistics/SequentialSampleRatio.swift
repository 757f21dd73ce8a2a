#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The always-valid sample-ratio test (Lindon & Malek 2022; docs/statistics.md, "Sequential sample
/// ratio"): a Dirichlet(c·θ) mixture against the groups' promised shares θ, whose Bayes factor
/// can be read every night without inflating its error rate.
public enum SequentialSampleRatio {
    /// c when the job does not say (`srm_concentration`).
    public static let defaultConcentration = 100.0

    /// ln BF = ln Γ(c) − ln Γ(c + n) + Σ_g [ln Γ(cθ_g + n_g) − ln Γ(cθ_g)] − Σ_g n_g ln θ_g, with
    /// θ the weights normalised to 1. Groups with weight 0 and no users take no part; a group
    /// with weight 0 that has users gives +∞ (users where none were promised). nil when there is
    /// no user or no positive weight.
    ///
    /// - Precondition: `users` and `weights` have the same length; users ≥ 0; weights finite and
    ///   ≥ 0; concentration > 0.
    public static func logBayesFactor(users: [Int], weights: [Double], concentration: Double) -> Double? {
        precondition(users.count == weights.count, "one weight per group")
        let totalWeight = weights.reduce(0, +)
        let totalUsers = users.reduce(0, +)
        guard totalUsers > 0, totalWeight > 0 else { return nil }
        var logFactor = SpecialFunctions.logGamma(concentration) - SpecialFunctions.logGamma(concentration + Double(totalUsers))
        for (count, weight) in zip(users, weights) {
            guard weight > 0 else {
                if count > 0 { return .infinity }
                continue
            }
            let share = weight / totalWeight
            let prior = concentration * share
            logFactor += SpecialFunctions.logGamma(prior + Double(count)) - SpecialFunctions.logGamma(prior) - Double(count) * log(share)
        }
        return logFactor
    }

    /// The night's always-valid p-value min(1, 1/BF) from ln BF.
    public static func pValue(logBayesFactor: Double) -> Double {
        min(1, exp(-logBayesFactor))
    }
}
