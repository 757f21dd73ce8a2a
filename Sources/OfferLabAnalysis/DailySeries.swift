import OfferLabEvents
import OfferLabIngest
import OfferLabStatistics
import OfferLabTables
import OfferLabVocabulary

/// One day of the lift-over-time series: every group's totals as of the end of `date`.
public struct DailyTotals: Sendable, Equatable {
    /// `YYYY-MM-DD` (UTC).
    public var date: String
    /// Parallel to the offering's groups.
    public var groups: [GroupTotals]

    package init(date: String, groups: [GroupTotals]) {
        self.date = date
        self.groups = groups
    }
}

/// The series of one offering (docs/analysis.md, "4a. Over time"), built member by member in
/// one pass over their events.
///
/// A member's contribution changes only on the days of their assignment, of their events, and
/// of a row that excludes them (another group). On each such day the member is evaluated as of
/// the end of the day (the run's `as_of` on the last day), and the change of their contribution
/// is added to that day; running sums over the days then give each day's totals. The night's
/// totals are evaluated first (`Attribution.evaluate`), and are the member's on their last day.
/// Counts are exact, and so are the money sums until each day's is rounded (`ExactMoney`): every
/// day's revenue is the double nearest to its users' total, and the last day's is the night's.
///
/// Members are evaluated (`evaluate`, any number at once) apart from the adding up (`add`).
package struct DailySeries: Sendable {
    private let firstDay: Int64
    private let dayCount: Int
    private let groupCount: Int
    private let asOf: Int64
    /// Day by day, then group by group (`[day * groupCount + group]`): the changes of the counts
    /// (their money left at 0), and of the money.
    private var counts: [GroupTotals]
    private var money: [ExactMoney]

    /// A member's money on one day their contribution changes (`money[index]`): their new
    /// values, to add, and their old ones, to subtract.
    package struct MoneyChange: Sendable {
        package var index: Int32
        var added: GroupMoney
        var removed: GroupMoney
    }

    /// Members' changes, as `evaluate` finds them: the counts summed, laid out as the series'
    /// own; the money change by change (few members have any, and a grid of exact sums per run
    /// would grow with the offering's days).
    package struct Changes: Sendable {
        package var counts: [GroupTotals]
        package var money: [MoneyChange] = []
    }

    /// An empty series for `members` (from the first one's assignment to `asOf`).
    package init(members: [Member], groupCount: Int, asOf: Int64) {
        // Lazily: an array of every member's time (8 MB at 1M members) was fresh memory each night.
        if let firstAssignment = members.lazy.map(\.membership.assignedAt).min() {
            firstDay = Timestamp.startOfDay(firstAssignment)
            dayCount = Int((asOf - 1 - firstDay) / Microseconds.perDay) + 1
        } else {
            firstDay = 0
            dayCount = 0
        }
        self.groupCount = groupCount
        self.asOf = asOf
        counts = Array(repeating: GroupTotals(), count: dayCount * groupCount)
        money = Array(repeating: ExactMoney(), count: dayCount * groupCount)
    }

    /// Empty changes, for `evaluate`.
    package func noChanges() -> Changes {
        Changes(counts: Array(repeating: GroupTotals(), count: counts.count))
    }

    /// The storage `evaluate` borrows from one member to the next: nothing is allocated per
    /// member once it has grown.
    struct Scratch {
        var evaluation = EvaluationScratch()
        var outcome = UserOutcome()
        var days: [Int] = []
    }

    /// Adds one member's changes, day by day, to `found`.
    ///
    /// - Parameter night: the member's totals as of `as_of`, not read for an excluded member (who
    ///   counts in no total of the night). They are the last day's: that day ends after every
    ///   event of the member, so the member is not evaluated again for it: the night costs no
    ///   evaluation beyond the series' own. Not optional: an optional of the totals (176 bytes)
    ///   was copied whole, by a `memcpy` call, several times per member.
    func evaluate(
        _ member: Member, events: MemberEvents, labels: OfferingLabels, context: AttributionContext, night: borrowing GroupTotals,
        scratch: inout Scratch, into found: inout Changes
    ) throws {
        let membership = member.membership
        Self.dayIndices(
            assignedAt: membership.assignedAt, events: events.events, details: events.details,
            conflictingSince: membership.conflictingSince, firstDay: firstDay, asOf: asOf, into: &scratch.days)
        let days = scratch.days
        let lastDay = days.last { $0 < dayCount }
        var previous = GroupTotals()
        var cutoff = Int64.min
        // Whether `scratch` holds the evaluation at the previous day's cutoff, and the first event
        // at or after it.
        var evaluatedBefore = false
        var nextEvent = 0
        for index in days where index < dayCount {
            let previousCutoff = cutoff
            cutoff = min(firstDay + Int64(index + 1) * Microseconds.perDay, asOf)
            while nextEvent < events.events.count && events.events[nextEvent].timestamp < previousCutoff { nextEvent += 1 }
            // A day with no event, only an `expires_at` passing, counts the same events as the
            // day before: only the trial's and the subscription's state move.
            let sameEvents =
                evaluatedBefore && (nextEvent == events.events.count || events.events[nextEvent].timestamp >= cutoff)
            evaluatedBefore = false
            var current = GroupTotals()
            if index == lastDay && !membership.isExcluded {
                current = copy night
            } else if membership.conflictingSince.map({ $0 >= cutoff }) ?? true {
                if sameEvents {
                    Attribution.stateAsOf(cutoff, scratch: scratch.evaluation, into: &scratch.outcome)
                } else {
                    try Attribution.evaluate(
                        member, events: events, labels: labels, context: context, cutoff: cutoff, scratch: &scratch.evaluation,
                        into: &scratch.outcome)
                }
                evaluatedBefore = true
                current.add(scratch.outcome)
            }
            let change = index * groupCount + Int(membership.group)
            found.counts[change].counts.add(current.counts, subtracting: previous.counts)
            if !current.money.isZero || !previous.money.isZero {
                found.money.append(MoneyChange(index: Int32(change), added: current.money, removed: previous.money))
            }
            previous = current
        }
        assert(
            membership.isExcluded || events.events.allSatisfy { $0.timestamp < cutoff },
            "the last day counts every event, as the night does")
    }

    /// Adds members' changes (`evaluate`).
    package mutating func add(_ found: Changes) {
        for index in counts.indices { counts[index].counts.add(found.counts[index].counts) }
        for change in found.money {
            money[Int(change.index)].add(change.added)
            money[Int(change.index)].subtract(change.removed)
        }
    }

    /// Every group's totals as of the end of each day.
    package func days() -> [DailyTotals] {
        var running = Array(repeating: GroupTotals(), count: groupCount)
        var runningMoney = Array(repeating: ExactMoney(), count: groupCount)
        return (0..<dayCount).map { day in
            for group in running.indices {
                running[group].counts.add(counts[day * groupCount + group].counts)
                runningMoney[group].add(money[day * groupCount + group])
                running[group].money = runningMoney[group].rounded
            }
            return DailyTotals(date: Timestamp.formatDate(firstDay + Int64(day) * Microseconds.perDay), groups: running)
        }
    }

    /// The days (from `firstDay`) on which a member's contribution may change, ascending and
    /// distinct: their assignment, each of their events from it on, the day each `expires_at`
    /// up to `asOf` passes (a trial lapses, a subscription ends: docs/analysis.md §9; the night's values, given
    /// for the last of these days, hold from it on), and the row that
    /// excludes them. `events` are sorted by time, so their days come in order.
    private static func dayIndices(
        assignedAt: Int64, events: UnsafeBufferPointer<UserEvent>, details: UnsafeBufferPointer<EventDetails>, conflictingSince: Int64?,
        firstDay: Int64, asOf: Int64, into days: inout [Int]
    ) {
        @inline(__always) func dayIndex(_ time: Int64) -> Int {
            Int((Timestamp.startOfDay(time) - firstDay) / Microseconds.perDay)
        }
        days.removeAll(keepingCapacity: true)
        let assignmentDay = dayIndex(assignedAt)
        days.append(assignmentDay)
        var expiryDays = false
        for event in events where event.timestamp >= assignedAt {
            let index = dayIndex(event.timestamp)
            if index != days[days.count - 1] { days.append(index) }
            // `expires_at > cutoff` turns false on the day that ends at or after it.
            if event.details >= 0 {
                let expiresAt = details[Int(event.details)].expiresAt
                if expiresAt != EventRecord.noTime && expiresAt > event.timestamp && expiresAt <= asOf {
                    days.append(max(dayIndex(expiresAt - 1), assignmentDay))
                    expiryDays = true
                }
            }
        }
        if expiryDays {
            days.sort()
            var previous = -1
            days.removeAll { day in
                defer { previous = day }
                return day == previous
            }
        }
        guard let conflictingSince else { return }
        let index = dayIndex(conflictingSince)
        let position = days.firstIndex { $0 >= index } ?? days.count
        if position == days.count || days[position] != index { days.insert(index, at: position) }
    }
}
