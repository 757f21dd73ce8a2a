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
        let members = population.members[offeringIndex].sorted { $0.key < $1.key }
        guard let firstAssignment = members.map(\.value.assignedAt).min() else { return [] }
        let day = Timestamp.microsecondsPerDay
        let firstDay = Timestamp.startOfDay(firstAssignment)
        let dayCount = Int((asOf - 1 - firstDay) / day) + 1
        var changes = [[GroupTotals]](repeating: Array(repeating: GroupTotals(), count: offering.groups.count), count: dayCount)
        let labels = OfferingLabels(offering, store: context.store)

        for (user, membership) in members {
            let userEvents = events.events(of: user)
            var times = [membership.assignedAt]
            for index in userEvents where context.store.records[Int(index)].timestamp >= membership.assignedAt {
                times.append(context.store.records[Int(index)].timestamp)
            }
            if let conflictingSince = membership.conflictingSince { times.append(conflictingSince) }
            let checkpoints = Set(times.map { Int((Timestamp.startOfDay($0) - firstDay) / day) }).sorted()
            var previous = GroupTotals()
            for index in checkpoints where index < dayCount {
                let cutoff = min(firstDay + Int64(index + 1) * day, asOf)
                var current = GroupTotals()
                if membership.conflictingSince.map({ $0 >= cutoff }) ?? true {
                    let outcome = try Attribution.evaluate(
                        events: userEvents, membership: membership, labels: labels, context: context, cutoff: cutoff)
                    current.add(outcome, context: context)
                }
                changes[index][Int(membership.group)].add(current, subtracting: previous)
                previous = current
            }
        }

        var running = Array(repeating: GroupTotals(), count: offering.groups.count)
        return changes.enumerated().map { index, dayChanges in
            for group in running.indices { running[group].add(dayChanges[group], subtracting: GroupTotals()) }
            return DailyTotals(date: Timestamp.formatDate(firstDay + Int64(index) * day), groups: running)
        }
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

