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
    /// Σ of the counted charges' proceeds before refunds, and of those of them whose fees the
    /// record states (`FeeShares.areStated`): `exact_proceeds_share` is the second over the first.
    case chargeProceedsSum, exactProceedsSum

    /// Its column in the aggregates.
    public var column: String {
        switch self {
        case .revenueSum: "revenue_sum"
        case .revenueSumSquares: "revenue_sum_squares"
        case .grossRevenue: "gross_revenue"
        case .refundedRevenue: "refunded_revenue"
        case .proceedsSum: "proceeds_sum"
        case .proceedsSumSquares: "proceeds_sum_squares"
        case .chargeProceedsSum: "charge_proceeds_sum"
        case .exactProceedsSum: "exact_proceeds_sum"
        }
    }
}

/// One value per `GroupCount`, in a tuple of plain words: the optimizer keeps a member's day in
/// registers and drops the copies it does not need (an `InlineArray` it must copy whole), and
/// adds two as one vector (a loop over the slots, not unrolled, cost 1.5 % of a night's CPU).
public struct GroupCounts: Sendable, Equatable {
    /// At least `GroupCount.allCases.count`, each count's slot its raw value (a test holds them
    /// together); the slots past the last count stay 0.
    package static let slots = 16
    private typealias Storage = (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)
    private var storage: Storage = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// The slots as one vector (the same 16 words).
    private var vector: SIMD16<Int> {
        @inline(__always) get { unsafeBitCast(storage, to: SIMD16<Int>.self) }
        @inline(__always) set { storage = unsafeBitCast(newValue, to: Storage.self) }
    }

    @inline(__always) public init() {}

    public subscript(count: GroupCount) -> Int {
        @inline(__always) get {
            withUnsafeBytes(of: storage) { $0.load(fromByteOffset: count.rawValue * MemoryLayout<Int>.stride, as: Int.self) }
        }
        @inline(__always) set {
            withUnsafeMutableBytes(of: &storage) {
                $0.storeBytes(of: newValue, toByteOffset: count.rawValue * MemoryLayout<Int>.stride, as: Int.self)
            }
        }
    }

    /// Adds every count of `other`.
    @inline(__always)
    package mutating func add(_ other: GroupCounts) {
        vector &+= other.vector
    }

    /// Adds `new − old`, count by count: the change of a member's contribution.
    @inline(__always)
    package mutating func add(_ new: GroupCounts, subtracting old: GroupCounts) {
        vector &+= new.vector &- old.vector
    }

    public static func == (lhs: GroupCounts, rhs: GroupCounts) -> Bool {
        lhs.vector == rhs.vector
    }
}

/// One amount per `GroupMoneySum`, in a tuple of plain doubles as `GroupCounts` keeps its counts:
/// one member's values, or sums rounded from `ExactMoney`.
public struct GroupMoney: Sendable, Equatable {
    /// At least `GroupMoneySum.allCases.count`, each sum's slot its raw value (a test holds them
    /// together); the slots past the last sum stay 0.
    package static let slots = 8
    /// Two halves: Swift compares tuples of at most six elements.
    private typealias Half = (Double, Double, Double, Double)
    private var storage: (Half, Half) = ((0, 0, 0, 0), (0, 0, 0, 0))

    @inline(__always) public init() {}

    /// A member's net revenue: its sum and its square (the capped and matured sums' only parts).
    init(revenue: Double) {
        self[.revenueSum] = revenue
        self[.revenueSumSquares] = revenue * revenue
    }

    public subscript(sum: GroupMoneySum) -> Double {
        @inline(__always) get { self[slot: sum.rawValue] }
        @inline(__always) set { self[slot: sum.rawValue] = newValue }
    }

    /// The amount in `slot` (`ExactMoney` adds them slot by slot).
    fileprivate subscript(slot slot: Int) -> Double {
        @inline(__always) get { withUnsafeBytes(of: storage) { $0.load(fromByteOffset: slot * 8, as: Double.self) } }
        @inline(__always) set {
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: newValue, toByteOffset: slot * 8, as: Double.self) }
        }
    }

    /// Whether every amount is 0: adding it changes no sum.
    var isZero: Bool {
        @inline(__always) get { storage.0 == (0, 0, 0, 0) && storage.1 == (0, 0, 0, 0) }
    }

    public static func == (lhs: GroupMoney, rhs: GroupMoney) -> Bool {
        lhs.storage.0 == rhs.storage.0 && lhs.storage.1 == rhs.storage.1
    }
}

/// Sums of users' money, each kept exact (`ExactSum`) and rounded once: the double nearest to
/// the true total of the users' values. So a group's total is the same to the last bit however
/// its users were split between runs and threads, and a day's total, added up from each user's
/// changes (their new value added, the old one subtracted), is the night's total on its last day.
///
/// Its loops run over the slots, not over `GroupMoneySum.allCases`: that is an array made anew at
/// each use, and these run for every member.
struct ExactMoney: Sendable {
    private var sums = InlineArray<8, ExactSum>(repeating: ExactSum())

    mutating func add(_ money: GroupMoney) {
        for index in sums.indices { sums[index].add(money[slot: index]) }
    }

    mutating func subtract(_ money: GroupMoney) {
        for index in sums.indices { sums[index].subtract(money[slot: index]) }
    }

    mutating func add(_ other: ExactMoney) {
        for index in sums.indices { sums[index].add(other.sums[index]) }
    }

    var rounded: GroupMoney {
        var money = GroupMoney()
        for index in sums.indices { money[slot: index] = sums[index].value }
        return money
    }
}
