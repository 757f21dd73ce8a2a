/// A group's size, mean and variance for one metric: what every two-sample formula needs.
public struct SampleMoments: Sendable, Equatable {
    /// n, the number of users.
    public var count: Int
    /// m, the mean per user.
    public var mean: Double
    /// v, the variance per user (p(1 − p) for a rate, the n − 1 sample variance for revenue).
    public var variance: Double

    /// Moments of a group of `count` ≥ 1 users (the two-sample formulas want ≥ 2 for a variance).
    public init(count: Int, mean: Double, variance: Double) {
        self.count = count
        self.mean = mean
        self.variance = variance
    }

    /// v/n, the squared standard error of the mean.
    public var varianceOfMean: Double { variance / Double(count) }
}
