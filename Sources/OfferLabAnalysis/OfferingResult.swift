import OfferLabStatistics
import OfferLabTables

/// Per-group totals of docs/analysis.md §4 (before the statistics are derived from them): the
/// counts and money sums declared in `GroupCount` and `GroupMoneySum`, read by name below.
public struct GroupTotals: Sendable, Equatable {
    public var counts = GroupCounts()
    public var money = GroupMoney()

    // Made for every member and day: a call each, out of line, cost 0.6 % of a night's CPU.
    @inline(__always) public init() {}

    /// Users, converters, Σ net revenue and Σ net revenue² (report currency).
    public var statistics: GroupSufficientStatistics {
        get {
            GroupSufficientStatistics(
                users: counts[.users], converters: counts[.converters], revenueSum: money[.revenueSum],
                revenueSumSquares: money[.revenueSumSquares])
        }
        set {
            (counts[.users], counts[.converters]) = (newValue.users, newValue.converters)
            (money[.revenueSum], money[.revenueSumSquares]) = (newValue.revenueSum, newValue.revenueSumSquares)
        }
    }

    /// Users, converters, Σ and Σ² of per-user net proceeds: the `proceeds_per_user` statistics.
    public var proceedsStatistics: GroupSufficientStatistics {
        GroupSufficientStatistics(users: users, converters: converters, revenueSum: proceedsSum, revenueSumSquares: proceedsSumSquares)
    }

    /// The members whose trial has ended (converted or lapsed), and those converted: the
    /// `trial_completed_conversion` statistics.
    public var trialCompletedStatistics: GroupSufficientStatistics {
        GroupSufficientStatistics(users: trialsConverted + trialsLapsed, converters: trialsConverted, revenueSum: 0, revenueSumSquares: 0)
    }

    /// The members and those with a counted refund: the `refund_user_rate` statistics.
    public var refundUserStatistics: GroupSufficientStatistics {
        GroupSufficientStatistics(users: users, converters: refundUsers, revenueSum: 0, revenueSumSquares: 0)
    }

    /// docs/analysis.md §8: of the counted charges' proceeds before refunds, the share whose fees
    /// the record states; nil when the charges have no proceeds (0 of 0). At most 1: an engine's
    /// two sums of the same charges may differ in their last bits (`offerlab stats`).
    public var exactProceedsShare: Double? {
        let charges = money[.chargeProceedsSum]
        return charges > 0 ? min(1, money[.exactProceedsSum] / charges) : nil
    }

    /// converted / (converted + lapsed); nil when no trial has ended.
    public var trialCompletedConversionRate: Double? {
        let ended = trialsConverted + trialsLapsed
        return ended == 0 ? nil : Double(trialsConverted) / Double(ended)
    }

    // The sums by name.
    public var users: Int {
        get { counts[.users] }
        set { counts[.users] = newValue }
    }
    public var converters: Int {
        get { counts[.converters] }
        set { counts[.converters] = newValue }
    }
    public var trialStarters: Int {
        get { counts[.trialStarters] }
        set { counts[.trialStarters] = newValue }
    }
    public var trialConverters: Int {
        get { counts[.trialConverters] }
        set { counts[.trialConverters] = newValue }
    }
    public var paywallViewers: Int {
        get { counts[.paywallViewers] }
        set { counts[.paywallViewers] = newValue }
    }
    public var purchases: Int {
        get { counts[.purchases] }
        set { counts[.purchases] = newValue }
    }
    public var renewals: Int {
        get { counts[.renewals] }
        set { counts[.renewals] = newValue }
    }
    public var refunds: Int {
        get { counts[.refunds] }
        set { counts[.refunds] = newValue }
    }
    public var refundUsers: Int {
        get { counts[.refundUsers] }
        set { counts[.refundUsers] = newValue }
    }
    public var trialsConverted: Int {
        get { counts[.trialsConverted] }
        set { counts[.trialsConverted] = newValue }
    }
    public var trialsPending: Int {
        get { counts[.trialsPending] }
        set { counts[.trialsPending] = newValue }
    }
    public var trialsLapsed: Int {
        get { counts[.trialsLapsed] }
        set { counts[.trialsLapsed] = newValue }
    }
    public var trialsUnknown: Int {
        get { counts[.trialsUnknown] }
        set { counts[.trialsUnknown] = newValue }
    }
    public var activeSubscribers: Int {
        get { counts[.activeSubscribers] }
        set { counts[.activeSubscribers] = newValue }
    }
    public var churnedSubscribers: Int {
        get { counts[.churnedSubscribers] }
        set { counts[.churnedSubscribers] = newValue }
    }
    public var grossRevenue: Double {
        get { money[.grossRevenue] }
        set { money[.grossRevenue] = newValue }
    }
    public var refundedRevenue: Double {
        get { money[.refundedRevenue] }
        set { money[.refundedRevenue] = newValue }
    }
    public var proceedsSum: Double {
        get { money[.proceedsSum] }
        set { money[.proceedsSum] = newValue }
    }
    public var proceedsSumSquares: Double {
        get { money[.proceedsSumSquares] }
        set { money[.proceedsSumSquares] = newValue }
    }
    public var netRevenue: Double { money[.revenueSum] }
}

/// One row of `products.csv`.
public struct ProductTotals: Sendable, Equatable {
    /// Index into the offering's groups.
    public var group: Int
    public var productID: String
    public var purchases = 0
    public var renewals = 0
    public var refunds = 0
    /// Report currency, known currencies only.
    public var netRevenue = 0.0
    /// docs/analysis.md §8: what the app keeps of the product's charges, less what its refunds take back
    /// (nil: not computed, for `stats` given products without it).
    public var netProceeds: Double? = 0.0
    /// The currencies its counted charges were paid in (those with a rate), in code order: what
    /// the report writes beside the catalog's fallback price, which has none. Not a column of
    /// `products.csv`.
    public var chargeCurrencies: [String] = []

    package init(
        group: Int, productID: String, purchases: Int = 0, renewals: Int = 0, refunds: Int = 0, netRevenue: Double = 0.0,
        netProceeds: Double? = 0.0
    ) {
        self.group = group
        self.productID = productID
        self.purchases = purchases
        self.renewals = renewals
        self.refunds = refunds
        self.netRevenue = netRevenue
        self.netProceeds = netProceeds
    }
}

/// The per-offering counters of `quality.csv`.
public struct OfferingQuality: Sendable, Equatable {
    public var invalidAssignments = 0
    public var multiGroupUsers = 0
    public var preAssignmentEvents = 0
    public var orphanRefunds = 0
    /// Counted `cancel`s whose chain has no counted trial start or charge at or before them
    /// (`AttributionRules.isChainless(_:charges:trials:)`).
    public var chainlessCancels = 0
    public var attributionMismatches = 0
    /// Members with at least one counted event that disagrees (the share the report's limit is on).
    public var attributionMismatchUsers = 0
    public var unknownCurrencyEvents = 0

    public init(
        invalidAssignments: Int = 0, multiGroupUsers: Int = 0, preAssignmentEvents: Int = 0, orphanRefunds: Int = 0,
        chainlessCancels: Int = 0, attributionMismatches: Int = 0, attributionMismatchUsers: Int = 0, unknownCurrencyEvents: Int = 0
    ) {
        self.invalidAssignments = invalidAssignments
        self.multiGroupUsers = multiGroupUsers
        self.preAssignmentEvents = preAssignmentEvents
        self.orphanRefunds = orphanRefunds
        self.chainlessCancels = chainlessCancels
        self.attributionMismatches = attributionMismatches
        self.attributionMismatchUsers = attributionMismatchUsers
        self.unknownCurrencyEvents = unknownCurrencyEvents
    }

    /// Adds the event counters of a run of users (the assignment counters are per offering).
    package mutating func add(_ other: OfferingQuality) {
        preAssignmentEvents += other.preAssignmentEvents
        orphanRefunds += other.orphanRefunds
        chainlessCancels += other.chainlessCancels
        attributionMismatches += other.attributionMismatches
        attributionMismatchUsers += other.attributionMismatchUsers
        unknownCurrencyEvents += other.unknownCurrencyEvents
    }

    /// Adds one user's event counters, and the user to `attributionMismatchUsers` when any of
    /// its events disagrees.
    package mutating func addUser(_ user: OfferingQuality) {
        add(user)
        if user.attributionMismatches > 0 { attributionMismatchUsers += 1 }
    }

    /// Counter names and values, in the order of `quality.csv`.
    public var counters: [(String, Int)] {
        [
            ("invalid_assignments", invalidAssignments), ("multi_group_users", multiGroupUsers),
            ("pre_assignment_events", preAssignmentEvents), ("orphan_refunds", orphanRefunds),
            ("chainless_cancels", chainlessCancels),
            ("attribution_mismatches", attributionMismatches), ("attribution_mismatch_users", attributionMismatchUsers),
            ("unknown_currency_events", unknownCurrencyEvents),
        ]
    }
}

/// Everything computed for one analysed offering.
public struct OfferingResult: Sendable {
    public var offering: Offering
    /// Index into `offering.groups`.
    public var controlGroup: Int
    /// Parallel to `offering.groups`.
    public var groups: [GroupTotals]
    /// Sorted by group, then product id.
    public var products: [ProductTotals]
    public var quality: OfferingQuality
    /// Per currency without a rate, in code order: its counted money events, whose money is
    /// left out (they add up to `quality.unknownCurrencyEvents`).
    public var unconvertibleEvents: [(currency: String, events: Int)] = []
    /// Cumulative totals as of the end of each day, from the first assignment to `as_of`.
    public var daily: [DailyTotals] = []
    /// docs/analysis.md §4b; nil when the job sets no `revenue_cap`.
    public var cappedRevenue: CappedRevenue?
    /// docs/analysis.md §4c, one per `maturity_days` entry, ascending.
    public var matured: [MaturedGroups] = []
    /// Per slice field (in the job's order), its levels in output order (docs/analysis.md §7).
    public var slices: [SliceResult] = []
    /// Whether the groups' proceeds and trial counts were computed (docs/analysis.md §8–§9): always by
    /// `run`; by `stats` only from aggregates that carry them (otherwise their columns are empty).
    public var hasProceedsAndTrials = true
    /// The members as the 365-day projection reads them
    /// (docs/statistics.md#the-projection-in-a-run); nil when the members are not known (`offerlab
    /// stats` on sums).
    public var projection: ProjectionInputs?
    /// Per group: each member's net revenue (the `arpu` goal's value, within the conversion
    /// window) by tenure, for the days left (docs/statistics.md, "Days left"); empty when the
    /// members are not known.
    public var revenueByTenure: [TenureProfile] = []
    /// Per group: when its members were assigned, by the days before `as_of` (what the decision
    /// reads of them: docs/statistics.md, "The decision"); nil when the members are not known.
    public var assignments: [AssignmentDays]?

    /// An offering's groups and products; the daily series, the capped and matured sums, the
    /// slices and the projection's members are set afterwards by what computes them.
    package init(offering: Offering, controlGroup: Int, groups: [GroupTotals], products: [ProductTotals], quality: OfferingQuality) {
        self.offering = offering
        self.controlGroup = controlGroup
        self.groups = groups
        self.products = products
        self.quality = quality
    }

    /// The further comparisons of the night (docs/analysis.md §4b, §4c, §8, §9): capped revenue, each
    /// maturity, then proceeds and completed trials.
    public var comparisonFamilies: [ComparisonFamily] {
        (cappedRevenue.map { [.cappedRevenue($0.groups)] } ?? []) + matured.map { .matured(days: $0.days, $0.groups) }
            + (hasProceedsAndTrials ? Self.ownFamilies(groups) : [])
    }

    /// The comparisons every set of groups gets beside conversion and ARPU (the night's, each
    /// slice level's): proceeds per user, completed trials' conversion and the refund user rate.
    public static func ownFamilies(_ groups: [GroupTotals]) -> [ComparisonFamily] {
        [
            .proceedsPerUser(groups.map(\.proceedsStatistics)), .trialCompletedConversion(groups.map(\.trialCompletedStatistics)),
            .refundUserRate(groups.map(\.refundUserStatistics)),
        ]
    }
}

/// An offering's revenue capped at its cap (docs/analysis.md §4b).
public struct CappedRevenue: Sendable, Equatable {
    /// nil: no cap (a percentile with no positive revenue): the values are the uncapped ones.
    public var cap: Double?
    /// Parallel to the offering's groups: users, converters, Σ and Σ² of capped net revenue.
    public var groups: [GroupSufficientStatistics]
    /// Parallel to the offering's groups: members whose revenue the cap lowered.
    public var cappedUsers: [Int]

    package init(cap: Double? = nil, groups: [GroupSufficientStatistics], cappedUsers: [Int]) {
        self.cap = cap
        self.groups = groups
        self.cappedUsers = cappedUsers
    }
}

/// An offering's members matured after `days` days (docs/analysis.md §4c), per group: matured users,
/// converters within the days, Σ and Σ² of revenue within the days.
public struct MaturedGroups: Sendable, Equatable {
    public var days: Int
    public var groups: [GroupSufficientStatistics]

    package init(days: Int, groups: [GroupSufficientStatistics]) {
        self.days = days
        self.groups = groups
    }
}
