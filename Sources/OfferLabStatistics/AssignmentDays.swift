import OfferLabVocabulary

/// When a group's members were assigned, as the decision reads it (docs/statistics.md, "The
/// decision"): the first `assigned_at`, and the members by whole days before `as_of`. Their size
/// grows with the days a test has run, never with its members, and the counts of two sets of
/// members add up to those of both (contract §3.3: what the decision rests on, by assignment day).
public struct AssignmentDays: Sendable, Equatable {
    /// `as_of`, µs since the epoch: every member was assigned before it.
    public let asOf: Int64
    /// The earliest `assigned_at` (µs); nil without members.
    public private(set) var first: Int64?
    /// `byDaysBefore[k]`: the members with k days ≤ `as_of` − `assigned_at` < k + 1 days.
    public private(set) var byDaysBefore: [Int] = []
    /// `exactlyDaysBefore[k]`: of them, those assigned exactly k days before `as_of` (whose
    /// `assigned_at` + k days is `as_of` itself: in "the last k days", not in the last k − 1).
    public private(set) var exactlyDaysBefore: [Int] = []

    public init(asOf: Int64) {
        self.asOf = asOf
    }

    /// The counts as they were kept elsewhere (an engine's `assignments` part): `byDaysBefore`
    /// and `exactlyDaysBefore` by whole days before `as_of`, trailing days without members
    /// dropped; nil when they cannot be (a negative count, more exactly k days before than k to
    /// k + 1 days, a `first` that is no member's, or members without one).
    public init?(asOf: Int64, first: Int64?, byDaysBefore: [Int], exactlyDaysBefore: [Int]) {
        guard byDaysBefore.count == exactlyDaysBefore.count,
            zip(byDaysBefore, exactlyDaysBefore).allSatisfy({ $1 >= 0 && $0 >= $1 })
        else { return nil }
        let days = (byDaysBefore.lastIndex { $0 > 0 } ?? -1) + 1
        self.asOf = asOf
        self.first = first
        self.byDaysBefore = Array(byDaysBefore.prefix(days))
        self.exactlyDaysBefore = Array(exactlyDaysBefore.prefix(days))
        guard let first else {
            if days > 0 { return nil }
            return
        }
        // The earliest member is `first`: in the last day held, and exactly that many days
        // before as_of when it is counted so.
        let before = asOf - first
        guard before > 0, Int(before / Microseconds.perDay) == days - 1 else { return nil }
    }

    /// Adds a member assigned at `assignedAt` (before `as_of`).
    public mutating func add(assignedAt: Int64) {
        precondition(assignedAt < asOf, "a member is assigned before as_of")
        first = min(first ?? assignedAt, assignedAt)
        let before = asOf - assignedAt
        let days = Int(before / Microseconds.perDay)
        grow(to: days)
        byDaysBefore[days] += 1
        if before % Microseconds.perDay == 0 { exactlyDaysBefore[days] += 1 }
    }

    /// Adds `other`'s members (of the same `as_of`).
    public mutating func add(_ other: AssignmentDays) {
        precondition(other.asOf == asOf, "assignment days of one as_of")
        if let earliest = other.first { first = min(first ?? earliest, earliest) }
        grow(to: other.byDaysBefore.count - 1)
        for days in other.byDaysBefore.indices {
            byDaysBefore[days] += other.byDaysBefore[days]
            exactlyDaysBefore[days] += other.exactlyDaysBefore[days]
        }
    }

    private mutating func grow(to days: Int) {
        guard byDaysBefore.count <= days else { return }
        byDaysBefore += Array(repeating: 0, count: days + 1 - byDaysBefore.count)
        exactlyDaysBefore += Array(repeating: 0, count: days + 1 - exactlyDaysBefore.count)
    }

    public var members: Int { byDaysBefore.reduce(0, +) }

    /// The members assigned at least `days` whole days before `as_of` (`assigned_at` ≤ `as_of` −
    /// `days` days): every member for `days` ≤ 0.
    public func assigned(atLeastDaysBefore days: Int) -> Int {
        byDaysBefore.dropFirst(max(0, days)).reduce(0, +)
    }

    /// The members assigned in [`as_of` − `days` days, `as_of`): those less than `days` days
    /// before it and those exactly `days` days before.
    public func assigned(withinDaysBefore days: Int) -> Int {
        guard days > 0 else { return 0 }
        let within = byDaysBefore.prefix(days).reduce(0, +)
        return within + (exactlyDaysBefore.indices.contains(days) ? exactlyDaysBefore[days] : 0)
    }
}
