import OfferLabIngest
import OfferLabStatistics

/// One day of the lift-over-time series: every group's totals as of the end of `date`.
public struct DailyTotals: Sendable {
    /// `YYYY-MM-DD` (UTC).
    public var date: String
    /// Parallel to the offering's groups.
    public var groups: [GroupTotals]
}

/// The §2.7 series for one offering, in one pass over its members' events.
///
/// A member's contribution changes only on the days of their assignment, of their events, and
/// of a row that excludes them (another group). On each such day the member is evaluated as of
/// the end of the day (the run's `as_of` on the last day), and the change of their contribution
/// is added to that day; running sums over the days then give each day's totals. Counts are
/// exact; revenue sums are sums of per-user changes, so a day's revenue may differ from the
/// same total added in one go in the last bits.
enum DailySeries {
    static func compute(
        offeringIndex: Int, catalog: OfferingCatalog, population: Population, events: UserEvents, context: AttributionContext, asOf: Int64
    ) throws -> [DailyTotals] {
        let offering = catalog.offerings[offeringIndex]
        let members = population.members[offeringIndex]
        guard let firstAssignment = members.map(\.membership.assignedAt).min() else { return [] }
        let day = Timestamp.microsecondsPerDay
        let firstDay = Timestamp.startOfDay(firstAssignment)
        let dayCount = Int((asOf - 1 - firstDay) / day) + 1
        // Day by day, then group by group, in one array: `changes[day * groupCount + group]`.
        let groupCount = offering.groups.count
        var changes = [GroupTotals](repeating: GroupTotals(), count: dayCount * groupCount)
        let labels = OfferingLabels(offering, labels: context.labels)

        // The buffers live inside the closure: captured, they would be copied for every member.
        try events.withView { events in
            var scratch = EvaluationScratch()
            var outcome = UserOutcome()
            var checkpoints: [Int] = []
            for member in members {
                let membership = member.membership
                let userEvents = events.events(of: member.user)
                dayIndices(
                    assignedAt: membership.assignedAt, events: userEvents, conflictingSince: membership.conflictingSince,
                    firstDay: firstDay, into: &checkpoints)
                var previous = GroupTotals()
                for index in checkpoints where index < dayCount {
                    let cutoff = min(firstDay + Int64(index + 1) * day, asOf)
                    var current = GroupTotals()
                    if membership.conflictingSince.map({ $0 >= cutoff }) ?? true {
                        try Attribution.evaluate(
                            events: userEvents, membership: membership, labels: labels, context: context, cutoff: cutoff,
                            scratch: &scratch, into: &outcome)
                        current.add(outcome, context: context)
                    }
                    changes[index * groupCount + Int(membership.group)].add(current, subtracting: previous)
                    previous = current
                }
            }
        }

        var running = Array(repeating: GroupTotals(), count: offering.groups.count)
        return (0..<dayCount).map { index in
            for group in running.indices { running[group].add(changes[index * groupCount + group], subtracting: GroupTotals()) }
            return DailyTotals(date: Timestamp.formatDate(firstDay + Int64(index) * day), groups: running)
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
    /// Adds `new − old`, field by field.
    mutating func add(_ new: GroupTotals, subtracting old: GroupTotals) {
        statistics.users += new.statistics.users - old.statistics.users
        statistics.converters += new.statistics.converters - old.statistics.converters
        statistics.revenueSum += new.statistics.revenueSum - old.statistics.revenueSum
        statistics.revenueSumSquares += new.statistics.revenueSumSquares - old.statistics.revenueSumSquares
        trialStarters += new.trialStarters - old.trialStarters
        trialConverters += new.trialConverters - old.trialConverters
        paywallViewers += new.paywallViewers - old.paywallViewers
        purchases += new.purchases - old.purchases
        renewals += new.renewals - old.renewals
        refunds += new.refunds - old.refunds
        grossRevenue += new.grossRevenue - old.grossRevenue
        refundedRevenue += new.refundedRevenue - old.refundedRevenue
    }
}

