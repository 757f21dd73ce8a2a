/// The per-group numbers of `summary.csv` that come from sufficient statistics (docs/analysis.md §4).
///
/// Every value is nil when it is undefined: the rate, its interval and ARPU when users = 0;
/// `arpuSD` when users < 2; `arppu` when converters = 0.
public struct GroupSummary: Sendable, Equatable {
    /// converters/users.
    public var conversionRate: Double?
    /// Lower end of the (1 − alpha) Wilson score interval of the conversion rate.
    public var conversionCILow: Double?
    /// Upper end of the (1 − alpha) Wilson score interval of the conversion rate.
    public var conversionCIHigh: Double?
    /// Σ net revenue / users.
    public var arpu: Double?
    /// Sample standard deviation (n − 1) of per-user net revenue, from Σx and Σx²
    /// (see ``GroupSufficientStatistics/revenueVariance``).
    public var arpuSD: Double?
    /// Σ net revenue / converters.
    public var arppu: Double?

    /// Summarises one group at confidence level 1 − alpha (0 < alpha < 1; otherwise the interval
    /// is nil).
    public init(_ statistics: GroupSufficientStatistics, alpha: Double) {
        conversionRate = statistics.conversionRate
        let interval = wilsonInterval(successes: statistics.converters, trials: statistics.users, alpha: alpha)
        conversionCILow = interval?.low
        conversionCIHigh = interval?.high
        arpu = statistics.revenueMean
        arpuSD = statistics.revenueVariance.map { $0.squareRoot() }
        arppu = statistics.converters > 0 ? statistics.revenueSum / Double(statistics.converters) : nil
    }
}
