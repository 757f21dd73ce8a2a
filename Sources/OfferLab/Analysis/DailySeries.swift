import OfferLabIngest
import OfferLabStatistics

/// One day of the lift-over-time series: every group's totals as of the end of `date`.
public struct DailyTotals: Sendable {
    /// `YYYY-MM-DD` (UTC).
    public var date: String
    /// Parallel to the offering's groups.
    public var groups: [GroupTotals]
}

/// The §2.7 series for one offering, built member by member in one pass over their events.
///
/// A member's contribution changes only on the days of their assignment, of their events, and
/// of a row that excludes them (another group). On each such day the member is evaluated as of
/// the end of the day (the run's `as_of` on the last day), and the change of their contribution
/// is added to that day; running sums over the days then give each day's totals. Counts are
/// exact; revenue sums are sums of per-user changes, so a day's revenue may differ from the
/// same total added in one go in the last bits.
///
/// Members are evaluated (`evaluate`, any number at once) apart from the adding up (`add`, in
/// user order), so that the sums, and their last bits, do not depend on the threads.
struct DailySeries: Sendable {
    private let firstDay: Int64
    private let dayCount: Int
    private let groupCount: Int
    private let asOf: Int64
    /// Day by day, then group by group: `changes[day * groupCount + group]`.
    private var changes: [GroupTotals]

    /// The change of a member's money sums on one day (`changes[index]`), apart from the
    /// counts: added up in user order, as the last bits of the sums depend on it.
    struct MoneyChange: Sendable {
        var index: Int32
        var change: GroupTotals.Money
    }

    /// Members' changes, as `evaluate` finds them: the counts summed, the money in order (but
    /// the changes of nothing, `Money.isZero`).
    struct Changes: Sendable {
        var counts: [GroupTotals] = []
        var money: [MoneyChange] = []
    }

    /// An empty series for `members` (from the first one's assignment to `asOf`).
    init(members: [Member], groupCount: Int, asOf: Int64) {
        if let firstAssignment = members.map(\.membership.assignedAt).min() {
            firstDay = Timestamp.startOfDay(firstAssignment)
            dayCount = Int((asOf - 1 - firstDay) / Timestamp.microsecondsPerDay) + 1
        } else {
            firstDay = 0
            dayCount = 0
        }
        self.groupCount = groupCount
        self.asOf = asOf
        changes = Array(repeating: GroupTotals(), count: dayCount * groupCount)
    }

    /// Empty changes, for `evaluate`.
    func noChanges() -> Changes {
        Changes(counts: Array(repeating: GroupTotals(), count: changes.count))
    }

    /// Adds one member's changes, day by day, to `found`. Leaves in `outcome` (and in
    /// `scratch.products`) their last evaluation: for a member who is not excluded, as of the
    /// end of the day of their last event (or of their assignment), so it counts all their
    /// events. `days` only lends its storage.
    func evaluate(
        _ membership: Membership, events: UnsafeBufferPointer<UserEvent>, details: UnsafeBufferPointer<EventDetails>,
        shapes: UnsafeBufferPointer<EventShape>, labels: OfferingLabels, context: AttributionContext, scratch: inout EvaluationScratch,
        outcome: inout UserOutcome, days: inout [Int], into found: inout Changes
    ) throws {
        Self.dayIndices(
            assignedAt: membership.assignedAt, events: events, conflictingSince: membership.conflictingSince, firstDay: firstDay,
            into: &days)
        var previous = GroupTotals()
        var cutoff = Int64.min
        for index in days where index < dayCount {
            cutoff = min(firstDay + Int64(index + 1) * Timestamp.microsecondsPerDay, asOf)
            var current = GroupTotals()
            if membership.conflictingSince.map({ $0 >= cutoff }) ?? true {
                try Attribution.evaluate(
                    events: events, details: details, shapes: shapes, membership: membership, labels: labels, context: context,
                    cutoff: cutoff, scratch: &scratch, into: &outcome)
                current.add(outcome)
            }
            let change = index * groupCount + Int(membership.group)
            found.counts[change].addCounts(current, subtracting: previous)
            let money = current.money - previous.money
            if !money.isZero { found.money.append(MoneyChange(index: Int32(change), change: money)) }
            previous = current
        }
        assert(membership.isExcluded || events.allSatisfy { $0.timestamp < cutoff }, "the last evaluation counts every event")
    }

    /// Adds members' changes (`evaluate`): the money in the order found.
    mutating func add(_ found: Changes) {
        for index in changes.indices { changes[index].addCounts(found.counts[index], subtracting: GroupTotals()) }
        for change in found.money { changes[Int(change.index)].money += change.change }
    }

    /// Every group's totals as of the end of each day.
    func days() -> [DailyTotals] {
        var running = Array(repeating: GroupTotals(), count: groupCount)
        return (0..<dayCount).map { index in
            for group in running.indices { running[group].add(changes[index * groupCount + group], subtracting: GroupTotals()) }
            return DailyTotals(date: Timestamp.formatDate(firstDay + Int64(index) * Timestamp.microsecondsPerDay), groups: running)
        }
    }

    /// The days (from `firstDay`) on which a member's contribution may change, ascending and
    /// distinct: their assignment, each of their events from it on, and the row that excludes
    /// them. `events` are sorted by time, so their days come in order.
    private static func dayIndices(
        assignedAt: Int64, events: UnsafeBufferPointer<UserEvent>, conflictingSince: Int64?, firstDay: Int64, into days: inout [Int]
    ) {
        @inline(__always) func dayIndex(_ time: Int64) -> Int { Int((Timestamp.startOfDay(time) - firstDay) / Timestamp.microsecondsPerDay) }
        days.removeAll(keepingCapacity: true)
        days.append(dayIndex(assignedAt))
        for event in events where event.timestamp >= assignedAt {
            let index = dayIndex(event.timestamp)
            if index != days[days.count - 1] { days.append(index) }
        }
        guard let conflictingSince else { return }
        let index = dayIndex(conflictingSince)
        let position = days.firstIndex { $0 >= index } ?? days.count
        if position == days.count || days[position] != index { days.insert(index, at: position) }
    }
}

extension GroupTotals {
    /// The sums of money, whose last bits depend on the order they are added in.
    struct Money: Sendable {
        var revenueSum = 0.0
        var revenueSumSquares = 0.0
        var grossRevenue = 0.0
        var refundedRevenue = 0.0

        static func - (left: Money, right: Money) -> Money {
            Money(
                revenueSum: left.revenueSum - right.revenueSum, revenueSumSquares: left.revenueSumSquares - right.revenueSumSquares,
                grossRevenue: left.grossRevenue - right.grossRevenue, refundedRevenue: left.refundedRevenue - right.refundedRevenue)
        }

        /// Whether every sum is 0: adding it changes no sum (a sum that starts at +0 is never
        /// −0, the only value that adding a zero changes), so it can be left out.
        var isZero: Bool { revenueSum == 0 && revenueSumSquares == 0 && grossRevenue == 0 && refundedRevenue == 0 }

        static func += (sums: inout Money, change: Money) {
            sums.revenueSum += change.revenueSum
            sums.revenueSumSquares += change.revenueSumSquares
            sums.grossRevenue += change.grossRevenue
            sums.refundedRevenue += change.refundedRevenue
        }
    }

    var money: Money {
        get {
            Money(
                revenueSum: statistics.revenueSum, revenueSumSquares: statistics.revenueSumSquares, grossRevenue: grossRevenue,
                refundedRevenue: refundedRevenue)
        }
        set {
            statistics.revenueSum = newValue.revenueSum
            statistics.revenueSumSquares = newValue.revenueSumSquares
            grossRevenue = newValue.grossRevenue
            refundedRevenue = newValue.refundedRevenue
        }
    }

    /// Adds `new − old`, field by field.
    mutating func add(_ new: GroupTotals, subtracting old: GroupTotals) {
        addCounts(new, subtracting: old)
        money += new.money - old.money
    }

    /// Adds `new − old`'s counts (the money is left as it is).
    mutating func addCounts(_ new: GroupTotals, subtracting old: GroupTotals) {
        statistics.users += new.statistics.users - old.statistics.users
        statistics.converters += new.statistics.converters - old.statistics.converters
        trialStarters += new.trialStarters - old.trialStarters
        trialConverters += new.trialConverters - old.trialConverters
        paywallViewers += new.paywallViewers - old.paywallViewers
        purchases += new.purchases - old.purchases
        renewals += new.renewals - old.renewals
        refunds += new.refunds - old.refunds
    }
}
