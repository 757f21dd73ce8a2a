import OfferLabIngest
import OfferLabSupport

/// A user's place in one offering. Laid out in 20 bytes (the conflict's absence a sentinel, not
/// an optional's extra byte) so that a `Member` is 24: the members of every offering are held
/// for the whole run, one per user, and every byte of them is fresh memory the run faults in.
public struct Membership: Sendable, BitwiseCopyable {
    /// The earliest `assigned_at` of the user's rows for that group, in microseconds.
    public var assignedAt: Int64
    /// `conflictingSince`, or `Int64.max` for none.
    private var conflictStart: Int64
    /// Index into the offering's `groups`: the group of the user's earliest valid row.
    public var group: Int32

    public init(group: Int32, assignedAt: Int64, conflictingSince: Int64? = nil) {
        self.assignedAt = assignedAt
        conflictStart = conflictingSince ?? .max
        self.group = group
    }

    /// When valid rows name different groups: the earliest `assigned_at` of a row naming
    /// another group. From then on the user is excluded (and counted in `multi_group_users`).
    /// (`Int64.max` is no time a membership can have: rows at or after `as_of` are left out.)
    public var conflictingSince: Int64? { conflictStart == .max ? nil : conflictStart }

    public var isExcluded: Bool { conflictStart != .max }
}

/// A member of one offering (24 bytes: the user in the membership's tail padding).
public struct Member: Sendable, BitwiseCopyable {
    public var membership: Membership
    /// Index in the population's user table.
    public var user: Int32

    public init(user: Int32, membership: Membership) {
        self.membership = membership
        self.user = user
    }
}

/// Who is in which group (docs/analysis.md §1), from `user_offering_assignments`.
public struct Population: Sendable {
    /// Every user with at least one valid row before `as_of`, in order of first appearance;
    /// a user id not in it is unassigned.
    public var users = ByteStringInterner()
    /// Per offering (catalog index): its members, sorted by user index.
    public var members: [[Member]]
    /// Per offering: invalid rows naming it.
    public var invalidAssignments: [Int]
    /// Invalid rows naming an unknown (or unreadable) offering.
    public var globalInvalidAssignments = 0
    /// Per offering: whether any row before `as_of` names it (readable or not).
    public var hasRowsBeforeAsOf: [Bool]

    public init(offeringCount: Int) {
        members = Array(repeating: [], count: offeringCount)
        invalidAssignments = Array(repeating: 0, count: offeringCount)
        hasRowsBeforeAsOf = Array(repeating: false, count: offeringCount)
    }

    /// Users excluded from offering `offering` for naming several groups.
    public func multiGroupUsers(offering: Int) -> Int {
        members[offering].count(where: \.membership.isExcluded)
    }

    /// The membership of user `user` in offering `offering`, if any (binary search). Inlinable:
    /// attribution asks it for events logged under another test, and a call across the targets
    /// cost more than the search.
    @inlinable
    public func membership(offering: Int, user: Int32) -> Membership? {
        let list = members[offering]
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].user < user { low = middle + 1 } else { high = middle }
        }
        return low < list.count && list[low].user == user ? list[low].membership : nil
    }

    /// Reads the assignment table, applying the rules of docs/analysis.md §1 in order.
    ///
    /// Two threads share the work: one reads the rows and checks them (`AssignmentRowChecks`),
    /// this one gives the valid rows to their users in table order (`AssignmentRows`). The rows
    /// cannot be cut into pieces read side by side: a quoted CSV field or an escaped TSV one may
    /// hold a line break (docs/concurrency.md).
    /// `progress`: how far the table has got, when it takes long.
    package static func load(from source: TableSource, catalog: OfferingCatalog, asOf: Int64, progress: ProgressReporter? = nil) throws
        -> Population
    {
        let table = "user_offering_assignments"
        let checked = BlockingQueue<CheckedAssignments>(capacity: 4)
        // The batches given their users, back to be refilled: so that 10M rows reuse a few
        // buffers instead of faulting in fresh memory for each.
        let used = BlockingQueue<CheckedAssignments>(capacity: 6)
        let reading = try ConcurrentWork {
            defer { checked.close() }
            let checks = AssignmentRowChecks(catalog: catalog, asOf: asOf)
            var batch = CheckedAssignments(offeringCount: catalog.offerings.count)
            try source.forEachRow(
                of: table, columns: ["user_id", "subscription_offering_id", "offering_group_id", "assigned_at"],
                progress: progress.map { ($0, "the assignment table") }
            ) { row in
                checks.check(row, into: &batch)
                if batch.entries.count == CheckedAssignments.rowsPerBatch {
                    checked.put(batch)
                    batch = used.poll() ?? CheckedAssignments(offeringCount: catalog.offerings.count)
                    batch.removeAll()
                }
            }
            checked.put(batch)
        }
        var rows = AssignmentRows(offeringCount: catalog.offerings.count, expectedSize: source.estimatedSize(of: table))
        while let batch = checked.take() {
            rows.add(batch)
            _ = used.offer(batch)
        }
        try reading.wait()
        return rows.finished()
    }
}

/// A membership while the assignment rows are read.
private struct AssignmentEntry {
    /// The earliest `assigned_at` of the rows naming `group`.
    public var assignedAt: Int64
    /// Index into the offering's groups; `AssignmentRows.severalGroups` once rows name different
    /// groups.
    public var group: Int32
    public var offering: Int32
    /// The user's next membership, in `AssignmentRows.laterEntries`, or -1.
    public var next: Int32
}

/// Consecutive rows of the assignment table, checked: the valid ones in table order, and how
/// many invalid ones there were among them.
private struct CheckedAssignments {
    public static let rowsPerBatch = 4096

    public var entries: [AssignmentEntry] = []
    /// The valid rows' user ids, back to back: row `i`'s ends at `userEnds[i]`.
    public var userBytes: [UInt8] = []
    public var userEnds: [Int] = []
    public var userHashes: [UInt64] = []
    /// Per offering: invalid rows naming it.
    public var invalidAssignments: [Int]
    /// Invalid rows naming an unknown (or unreadable) offering.
    public var globalInvalidAssignments = 0
    /// Per offering: whether a row before `as_of` names it (readable or not).
    public var hasRowsBeforeAsOf: [Bool]

    public init(offeringCount: Int) {
        invalidAssignments = Array(repeating: 0, count: offeringCount)
        hasRowsBeforeAsOf = Array(repeating: false, count: offeringCount)
        entries.reserveCapacity(Self.rowsPerBatch)
        userEnds.reserveCapacity(Self.rowsPerBatch)
        userHashes.reserveCapacity(Self.rowsPerBatch)
    }

    public mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        userBytes.removeAll(keepingCapacity: true)
        userEnds.removeAll(keepingCapacity: true)
        userHashes.removeAll(keepingCapacity: true)
        for offering in invalidAssignments.indices {
            invalidAssignments[offering] = 0
            hasRowsBeforeAsOf[offering] = false
        }
        globalInvalidAssignments = 0
    }
}

/// The rules of docs/analysis.md §1 that a row meets alone: before `as_of`, a known offering, a
/// group of that offering, a time and a user.
private struct AssignmentRowChecks {
    public let asOf: Int64
    public var offeringByKey = SortedKeys<Int>()
    public var groupByKey = SortedKeys<(offering: Int, group: Int32)>()

    public init(catalog: OfferingCatalog, asOf: Int64) {
        self.asOf = asOf
        for (offeringIndex, offering) in catalog.offerings.enumerated() {
            offeringByKey.insert(offering.id, offeringIndex)
            for (groupIndex, group) in offering.groups.enumerated() {
                groupByKey.insert(group.id, (offeringIndex, Int32(groupIndex)))
            }
        }
    }

    /// Adds `row` to `batch`: to its valid rows, or to its counts.
    public func check(_ row: TableRowValues, into batch: inout CheckedAssignments) {
        let assignedAt = row.timestamp(3)
        if let assignedAt, assignedAt >= asOf { return }
        guard let offeringKey = row.integer(1), let offering = offeringByKey[offeringKey] else {
            batch.globalInvalidAssignments += 1
            return
        }
        batch.hasRowsBeforeAsOf[offering] = true
        guard let assignedAt,
            let groupKey = row.integer(2), let group = groupByKey[groupKey], group.offering == offering,
            row.withBytes(
                0,
                { user -> Bool in
                    guard !user.isEmpty else { return false }
                    batch.userBytes.append(contentsOf: user)
                    batch.userEnds.append(batch.userBytes.count)
                    batch.userHashes.append(ByteStringInterner.hash(user))
                    return true
                }) == true
        else {
            batch.invalidAssignments[offering] += 1
            return
        }
        batch.entries.append(AssignmentEntry(assignedAt: assignedAt, group: group.group, offering: Int32(offering), next: -1))
    }
}

/// The assignment rows given to their users so far (`Population.load`), as memberships per user.
private struct AssignmentRows {
    /// `AssignmentEntry.group` of a membership whose rows name several groups: see `groupTimes`.
    public static let severalGroups: Int32 = -1

    public struct MembershipKey: Hashable {
        public var user: Int32
        public var offering: Int32
    }

    public var population: Population
    /// Per user (index in `population.users`): the membership in the offering of their first row.
    public var firstEntries: [AssignmentEntry] = []
    /// Memberships in users' other offerings.
    public var laterEntries: [AssignmentEntry] = []
    /// Memberships whose rows name several groups: the earliest time of each group.
    public var groupTimes: [MembershipKey: [Int32: Int64]] = [:]
    /// The user of the previous valid row: a user's rows often follow each other.
    public var recentUser: Int32 = -1
    /// How many rows ahead a user's slot is loaded (`prefetchSlot`) before it is interned, so
    /// that the cache misses of a table larger than the cache (a few million users) overlap
    /// instead of following each other.
    public static let prefetchDistance = 16

    public init(offeringCount: Int, expectedSize: (rows: Int, bytes: Int)?) {
        population = Population(offeringCount: offeringCount)
        if let expectedSize {
            // Room for every row, up front: a user id is part of its row, so the table's text
            // bounds the ids' bytes too. Room never used is never touched.
            population.users = ByteStringInterner(capacity: expectedSize.rows, bytes: expectedSize.bytes)
            firstEntries = Array(hugePageCapacity: expectedSize.rows)
        }
    }

    /// Gives a batch's valid rows to their users, in table order, and adds up its counts.
    public mutating func add(_ batch: CheckedAssignments) {
        for offering in batch.invalidAssignments.indices {
            population.invalidAssignments[offering] += batch.invalidAssignments[offering]
            if batch.hasRowsBeforeAsOf[offering] { population.hasRowsBeforeAsOf[offering] = true }
        }
        population.globalInvalidAssignments += batch.globalInvalidAssignments
        let count = batch.entries.count
        for row in 0..<min(count, Self.prefetchDistance) { population.users.prefetchSlot(hash: batch.userHashes[row]) }
        batch.userBytes.withUnsafeBytes { userBytes in
            for row in 0..<count {
                if row + Self.prefetchDistance < count {
                    population.users.prefetchSlot(hash: batch.userHashes[row + Self.prefetchDistance])
                }
                let start = row == 0 ? 0 : batch.userEnds[row - 1]
                let user = population.users.intern(
                    UnsafeRawBufferPointer(rebasing: userBytes[start..<batch.userEnds[row]]), hash: batch.userHashes[row],
                    recent: &recentUser)
                add(batch.entries[row], user: user)
            }
        }
    }

    /// A valid row's membership, to its user.
    private mutating func add(_ entry: AssignmentEntry, user: Int32) {
        let first = Int(user)
        guard first < firstEntries.count else { return firstEntries.append(entry) }
        if firstEntries[first].offering == entry.offering {
            firstEntries[first] = merged(firstEntries[first], entry, user: user)
            return
        }
        var index = firstEntries[first].next
        while index >= 0 && laterEntries[Int(index)].offering != entry.offering { index = laterEntries[Int(index)].next }
        if index >= 0 {
            laterEntries[Int(index)] = merged(laterEntries[Int(index)], entry, user: user)
        } else {
            var later = entry
            later.next = firstEntries[first].next
            laterEntries.append(later)
            firstEntries[first].next = Int32(laterEntries.count - 1)
        }
    }

    /// `existing` with another valid row of the same user and offering: the earliest row of a
    /// group counts; a second group makes the membership one of several groups.
    private mutating func merged(_ existing: AssignmentEntry, _ row: AssignmentEntry, user: Int32) -> AssignmentEntry {
        var entry = existing
        if entry.group == Self.severalGroups {
            let key = MembershipKey(user: user, offering: row.offering)
            var times = groupTimes[key] ?? [:]
            times[row.group] = min(times[row.group] ?? .max, row.assignedAt)
            groupTimes[key] = times
        } else if entry.group == row.group {
            entry.assignedAt = min(entry.assignedAt, row.assignedAt)
        } else {
            groupTimes[MembershipKey(user: user, offering: row.offering)] = [entry.group: entry.assignedAt, row.group: row.assignedAt]
            entry.group = Self.severalGroups
        }
        return entry
    }

    /// The population, every offering's members sorted by user. In place: the members are
    /// built beside the users, which must not be copied (a copy would double the table's peak).
    public mutating func finished() -> Population {
        var memberCounts = [Int](repeating: 0, count: population.members.count)
        for entry in firstEntries { memberCounts[Int(entry.offering)] += 1 }
        for entry in laterEntries { memberCounts[Int(entry.offering)] += 1 }
        for (offering, count) in memberCounts.enumerated() { population.members[offering] = Array(hugePageCapacity: count) }
        // Users in index order, so every offering's list comes out sorted by user.
        for (user, first) in firstEntries.enumerated() {
            var entry = first
            while true {
                population.members[Int(entry.offering)].append(Member(user: Int32(user), membership: membership(entry, user: Int32(user))))
                guard entry.next >= 0 else { break }
                entry = laterEntries[Int(entry.next)]
            }
        }
        return population
    }

    private func membership(_ entry: AssignmentEntry, user: Int32) -> Membership {
        guard entry.group == Self.severalGroups else { return Membership(group: entry.group, assignedAt: entry.assignedAt) }
        // The earliest row's group is the user's; the next group to appear excludes them.
        let ordered = (groupTimes[MembershipKey(user: user, offering: entry.offering)] ?? [:]).sorted {
            ($0.value, $0.key) < ($1.value, $1.key)
        }
        return Membership(group: ordered[0].key, assignedAt: ordered[0].value, conflictingSince: ordered[1].value)
    }
}

/// Table ids to values for the assignment rows' lookups: a sorted array searched by halves,
/// cheaper than hashing for the few offerings and groups a catalog has. A repeated key keeps
/// its last value, as a dictionary assignment would.
private struct SortedKeys<Value> {
    private var keys: [Int64] = []
    private var values: [Value] = []

    public mutating func insert(_ key: Int64, _ value: Value) {
        let position = lowerBound(key)
        if position < keys.count && keys[position] == key {
            values[position] = value
        } else {
            keys.insert(key, at: position)
            values.insert(value, at: position)
        }
    }

    package subscript(key: Int64) -> Value? {
        let position = lowerBound(key)
        return position < keys.count && keys[position] == key ? values[position] : nil
    }

    private func lowerBound(_ key: Int64) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
