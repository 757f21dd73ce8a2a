/// Per-group sufficient statistics: everything the tests and intervals need, and additive,
/// so days, files and shards combine by `+`.
public struct GroupSufficientStatistics: Sendable, Equatable {
    /// Number of users (n).
    public var users: Int
    /// Users with at least one counted purchase.
    public var converters: Int
    /// Σ per-user net revenue, report currency.
    public var revenueSum: Double
    /// Σ (per-user net revenue)².
    public var revenueSumSquares: Double

    public init(users: Int = 0, converters: Int = 0, revenueSum: Double = 0, revenueSumSquares: Double = 0) {
        self.users = users
        self.converters = converters
        self.revenueSum = revenueSum
        self.revenueSumSquares = revenueSumSquares
    }

    public static func + (lhs: Self, rhs: Self) -> Self {
        Self(
            users: lhs.users + rhs.users, converters: lhs.converters + rhs.converters,
            revenueSum: lhs.revenueSum + rhs.revenueSum, revenueSumSquares: lhs.revenueSumSquares + rhs.revenueSumSquares)
    }
}
