import OfferLabStatistics

/// A count a group adds up over its members: one per member (users, converters, …) or one per
/// event (purchases, …). This is the one declaration of a group's counts: `GroupCounts` adds,
/// merges and snapshots every case in one loop, and `column` names it in `summary.csv` and in
/// the aggregates of `offerlab sql` and `offerlab stats` (docs/architecture.md, "A new metric").
public enum GroupCount: Int, CaseIterable, Sendable {
    case users, converters, trialStarters, trialConverters, paywallViewers, purchases, renewals, refunds
    /// docs/analysis.md §9: members by the state of their trial as of the night, and by their subscription.
    case trialsConverted, trialsPending, trialsLapsed, trialsUnknown, activeSubscribers, churnedSubscribers
    /// Members with at least one counted refund.
    case refundUsers

    /// Its column in `summary.csv` and in the aggregates.
    public var column: String {
        switch self {
        case .users: "users"
        case .converters: "converters"
        case .trialStarters: "trial_starters"
        case .trialConverters: "trial_converters"
        case .paywallViewers: "paywall_viewers"
        case .purchases: "purchases"
        case .renewals: "renewals"
        case .refunds: "refunds"
        case .trialsConverted: "trials_converted"
        case .trialsPending: "trials_pending"
        case .trialsLapsed: "trials_lapsed"
        case .trialsUnknown: "trials_unknown"
        case .activeSubscribers: "active_subscribers"
        case .churnedSubscribers: "churned_subscribers"
        case .refundUsers: "refund_users"
        }
    }
}

/// A sum of money a group adds up over its members (report currency): the one declaration of a
/// group's money, added and rounded in one loop (`GroupMoney`, `ExactMoney`).
public enum GroupMoneySum: Int, CaseIterable, Sendable {
    /// Σ per-user net revenue and Σ its squares.
    case revenueSum, revenueSumSquares
    /// Σ per-user gross revenue and Σ per-user refunded amounts (≥ 0, known currencies only).
    case grossRevenue, refundedRevenue
    /// Σ per-user net proceeds and Σ their squares (docs/analysis.md §8).
    case proceedsSum, proceedsSumSquares

    /// Its column in the aggregates.
    public var column: String {
        switch self {
        case .revenueSum: "revenue_sum"
        case .revenueSumSquares: "revenue_sum_squares"
        case .grossRevenue: "gross_revenue"
        case .refundedRevenue: "refunded_revenue"
        case .proceedsSum: "proceeds_sum"
        case .proceedsSumSquares: "proceeds_sum_squares"
        }
    }
}

/// One value per `GroupCount`, in one vector: a member's day is evaluated into one without an
/// allocation, and adding two is one vector addition (a loop over the slots of an `InlineArray`
/// cost 3 % of a night's CPU).
public struct GroupCounts: Sendable, Equatable {
    /// At least `GroupCount.allCases.count` (a test holds them together); the slots past the
    /// last count stay 0.
    package static let slots = SIMD16<Int>.scalarCount
    private var values = SIMD16<Int>()

    public init() {}

    public subscript(count: GroupCount) -> Int {
        get { values[count.rawValue] }
        set { values[count.rawValue] = newValue }
    }

    /// Adds every count of `other`.
    package mutating func add(_ other: GroupCounts) {
        values &+= other.values
    }

    /// Adds `new − old`, count by count: the change of a member's contribution.
    package mutating func add(_ new: GroupCounts, subtracting old: GroupCounts) {
        values &+= new.values &- old.values
    }
}

/// One amount per `GroupMoneySum`, in one vector: one member's values, or sums rounded from
/// `ExactMoney`.
public struct GroupMoney: Sendable, Equatable {
    /// At least `GroupMoneySum.allCases.count` (a test holds them together); the slots past the
    /// last sum stay 0.
    package static let slots = SIMD8<Double>.scalarCount
    fileprivate var values = SIMD8<Double>()

    public init() {}

    /// A member's net revenue: its sum and its square (the capped and matured sums' only parts).
    init(revenue: Double) {
        values[GroupMoneySum.revenueSum.rawValue] = revenue
        values[GroupMoneySum.revenueSumSquares.rawValue] = revenue * revenue
    }

    public subscript(sum: GroupMoneySum) -> Double {
        get { values[sum.rawValue] }
        set { values[sum.rawValue] = newValue }
    }

    /// Whether every amount is 0: adding it changes no sum.
    var isZero: Bool { values == SIMD8() }
}

/// Sums of users' money, each kept exact (`ExactSum`) and rounded once: the double nearest to
/// the true total of the users' values. So a group's total is the same to the last bit however
/// its users were split between runs and threads, and a day's total, added up from each user's
/// changes (their new value added, the old one subtracted), is the night's total on its last day.
///
/// Its loops run over the slots, not over `GroupMoneySum.allCases`: that is an array made anew at
/// each use, and these run for every member.
struct ExactMoney: Sendable {
    private var sums = InlineArray<6, ExactSum>(repeating: ExactSum())

    mutating func add(_ money: GroupMoney) {
        for index in sums.indices { sums[index].add(money.values[index]) }
    }

    mutating func subtract(_ money: GroupMoney) {
        for index in sums.indices { sums[index].subtract(money.values[index]) }
    }

    mutating func add(_ other: ExactMoney) {
        for index in sums.indices { sums[index].add(other.sums[index]) }
    }

    var rounded: GroupMoney {
        var money = GroupMoney()
        for index in sums.indices { money.values[index] = sums[index].value }
        return money
    }
}
