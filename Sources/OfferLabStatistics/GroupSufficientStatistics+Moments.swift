extension GroupSufficientStatistics {
    /// A centered sum of squares Σx² − (Σx)²/n at or below this fraction of Σx² is rounding noise
    /// and is taken as exactly 0 (values equal to about six significant digits). Without it a
    /// group where every user paid 9.99 would get a variance of 1e-15 instead of 0.
    public static let varianceNoiseFloor = 1e-12

    /// converters/users; nil when users = 0.
    public var conversionRate: Double? {
        users > 0 ? Double(converters) / Double(users) : nil
    }

    /// Σ revenue / users (ARPU); nil when users = 0.
    public var revenueMean: Double? {
        users > 0 ? revenueSum / Double(users) : nil
    }

    /// The n − 1 sample variance of per-user revenue,
    /// max(0, (Σx² − (Σx)²/n)/(n − 1)), with ``varianceNoiseFloor``; nil when users < 2.
    public var revenueVariance: Double? {
        guard users >= 2 else { return nil }
        let n = Double(users)
        let centered = revenueSumSquares - revenueSum * (revenueSum / n)
        if centered <= Self.varianceNoiseFloor * revenueSumSquares { return 0 }
        return centered / (n - 1)
    }

    /// The conversion rate as a Bernoulli sample: mean p, variance p(1 − p); nil when users = 0.
    public var conversionMoments: SampleMoments? {
        guard users > 0 else { return nil }
        let n = Double(users)
        let p = Double(converters) / n
        let q = Double(users - converters) / n  // exact complement, also when p is close to 1
        return SampleMoments(count: users, mean: p, variance: p * q)
    }

    /// Per-user revenue: mean and n − 1 sample variance; nil when users < 2.
    public var revenueMoments: SampleMoments? {
        guard let mean = revenueMean, let variance = revenueVariance else { return nil }
        return SampleMoments(count: users, mean: mean, variance: variance)
    }
}
