/// A user's place in one offering. Laid out in 20 bytes (the conflict's absence a sentinel, not
/// an optional's extra byte) so that a `Member` is 24: the members of every offering are held
/// for the whole run, one per user, and every byte of them is fresh memory the run faults in.
struct Membership: Sendable {
    /// The earliest `assigned_at` of the user's rows for that group, in microseconds.
    var assignedAt: Int64
    /// `conflictingSince`, or `Int64.max` for none.
    private var conflictStart: Int64
    /// Index into the offering's `groups`: the group of the user's earliest valid row.
    var group: Int32

    init(group: Int32, assignedAt: Int64, conflictingSince: Int64? = nil) {
        self.assignedAt = assignedAt
        conflictStart = conflictingSince ?? .max
        self.group = group
    }

    /// When valid rows name different groups: the earliest `assigned_at` of a row naming
    /// another group. From then on the user is excluded (and counted in `multi_group_users`).
    /// (`Int64.max` is no time a membership can have: rows at or after `as_of` are left out.)
    var conflictingSince: Int64? { conflictStart == .max ? nil : conflictStart }

    var isExcluded: Bool { conflictStart != .max }
}

/// A member of one offering (24 bytes: the user in the membership's tail padding).
struct Member: Sendable {
    var membership: Membership
    /// Index in the population's user table.
    var user: Int32

    init(user: Int32, membership: Membership) {
        self.membership = membership
        self.user = user
    }
}

/// Who is in which group (docs/analysis.md §1), from `user_offering_assignments`.
struct Population: Sendable {
    /// Every user with at least one valid row before `as_of`, in order of first appearance;
    /// a user id not in it is unassigned.
    var users = ByteStringInterner()
    /// Per offering (catalog index): its members, sorted by user index.
    var members: [[Member]]
    /// Per offering: invalid rows naming it.
    var invalidAssignments: [Int]
    /// Invalid rows naming an unknown (or unreadable) offering.
    var globalInvalidAssignments = 0
    /// Per offering: whether any row before `as_of` names it (readable or not).
    var hasRowsBeforeAsOf: [Bool]

    init(offeringCount: Int) {
        members = Array(repeating: [], count: offeringCount)
        invalidAssignments = Array(repeating: 0, count: offeringCount)
        hasRowsBeforeAsOf = Array(repeating: false, count: offeringCount)
    }

    /// Users excluded from offering `offering` for naming several groups.
    func multiGroupUsers(offering: Int) -> Int {
        members[offering].count(where: \.membership.isExcluded)
    }

    /// The membership of user `user` in offering `offering`, if any (binary search).
    func membership(offering: Int, user: Int32) -> Membership? {
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
    /// A user's membership in the offering of their first row is kept in the user's own record,
    /// memberships in other offerings are chained after it: a row costs a user lookup and a
    /// comparison, never a dictionary per offering, and a new user one append.
    /// `progress`: how far the table has got, when it takes long.
    static func load(from source: TableSource, catalog: OfferingCatalog, asOf: Int64, progress: ProgressReporter? = nil) throws
        -> Population
    {
        let table = "user_offering_assignments"
        var rows = AssignmentRows(catalog: catalog, asOf: asOf, expectedSize: source.estimatedSize(of: table))
        try source.forEachRow(
            of: table, columns: ["user_id", "subscription_offering_id", "offering_group_id", "assigned_at"],
            progress: progress.map { ($0, "the assignment table") }
        ) { row in
            rows.add(row)
        }
        return rows.finished()
    }
}

/// The assignment rows read so far (`Population.load`), as memberships per user.
private struct AssignmentRows {
    /// A membership while rows are read.
    struct Entry {
        /// The earliest `assigned_at` of the rows naming `group`.
        var assignedAt: Int64
        /// Index into the offering's groups; `severalGroups` once rows name different groups.
        var group: Int32
        var offering: Int32
        /// The user's next membership, in `laterEntries`, or -1.
        var next: Int32
    }

    /// `Entry.group` of a membership whose rows name several groups: see `groupTimes`.
    static let severalGroups: Int32 = -1

    struct MembershipKey: Hashable {
        var user: Int32
        var offering: Int32
    }

    let asOf: Int64
    var population: Population
    var offeringByKey = SortedKeys<Int>()
    var groupByKey = SortedKeys<(offering: Int, group: Int32)>()
    /// Per user (index in `population.users`): the membership in the offering of their first row.
    var firstEntries: [Entry] = []
    /// Memberships in users' other offerings.
    var laterEntries: [Entry] = []
    /// Memberships whose rows name several groups: the earliest time of each group.
    var groupTimes: [MembershipKey: [Int32: Int64]] = [:]
    /// The user of the previous valid row: a user's rows often follow each other.
    var recentUser: Int32 = -1
    /// Valid rows not yet given to their user, in table order, with their users' ids in
    /// `pendingUserBytes`: their users' slots are prefetched as they arrive and interned a batch
    /// at a time (`addPending`), so that the cache misses of a table larger than the cache (a few
    /// million users) overlap instead of following each other.
    var pending: [PendingRow] = []
    var pendingUserBytes: [UInt8] = []
    static let pendingBatch = 16

    struct PendingRow {
        var entry: Entry
        var userBytes: Range<Int>
        var userHash: UInt64
    }

    init(catalog: OfferingCatalog, asOf: Int64, expectedSize: (rows: Int, bytes: Int)?) {
        self.asOf = asOf
        population = Population(offeringCount: catalog.offerings.count)
        for (offeringIndex, offering) in catalog.offerings.enumerated() {
            offeringByKey.insert(offering.id, offeringIndex)
            for (groupIndex, group) in offering.groups.enumerated() {
                groupByKey.insert(group.id, (offeringIndex, Int32(groupIndex)))
            }
        }
        if let expectedSize {
            // Room for every row, up front: a user id is part of its row, so the table's text
            // bounds the ids' bytes too. Room never used is never touched.
            population.users = ByteStringInterner(capacity: expectedSize.rows, bytes: expectedSize.bytes)
            firstEntries = Array(hugePageCapacity: expectedSize.rows)
        }
        pending.reserveCapacity(Self.pendingBatch)
    }

    mutating func add(_ row: TableRowValues) {
        let assignedAt = row.timestamp(3)
        if let assignedAt, assignedAt >= asOf { return }
        guard let offeringKey = row.integer(1), let offering = offeringByKey[offeringKey] else {
            population.globalInvalidAssignments += 1
            return
        }
        if !population.hasRowsBeforeAsOf[offering] { population.hasRowsBeforeAsOf[offering] = true }
        guard let assignedAt,
            let groupKey = row.integer(2), let group = groupByKey[groupKey], group.offering == offering,
            let userBytes = row.withBytes(
                0,
                { user -> Range<Int>? in
                    guard !user.isEmpty else { return nil }
                    let start = pendingUserBytes.count
                    pendingUserBytes.append(contentsOf: user)
                    return start..<pendingUserBytes.count
                }) ?? nil
        else {
            population.invalidAssignments[offering] += 1
            return
        }
        let entry = Entry(assignedAt: assignedAt, group: group.group, offering: Int32(offering), next: -1)
        let userHash = pendingUserBytes.withUnsafeBytes { ByteStringInterner.hash(UnsafeRawBufferPointer(rebasing: $0[userBytes])) }
        population.users.prefetchSlot(hash: userHash)
        pending.append(PendingRow(entry: entry, userBytes: userBytes, userHash: userHash))
        if pending.count == Self.pendingBatch { addPending() }
    }

    /// Gives the pending rows to their users, in table order.
    private mutating func addPending() {
        for row in pending {
            let user = pendingUserBytes.withUnsafeBytes {
                population.users.intern(UnsafeRawBufferPointer(rebasing: $0[row.userBytes]), hash: row.userHash, recent: &recentUser)
            }
            add(row.entry, user: user)
        }
        pending.removeAll(keepingCapacity: true)
        pendingUserBytes.removeAll(keepingCapacity: true)
    }

    /// A valid row's membership, to its user.
    private mutating func add(_ entry: Entry, user: Int32) {
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
    private mutating func merged(_ existing: Entry, _ row: Entry, user: Int32) -> Entry {
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

    /// The population, every offering's members sorted by user. Mutating, not consuming: `load`
    /// captures the rows in its closure, so a consumed copy would share the users' arrays with
    /// it, and the last pending rows would copy them whole (copy-on-write): 580 MiB more at the
    /// peak with 10M users (docs/performance.md, "The assignment table at 10M rows").
    mutating func finished() -> Population {
        addPending()
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

    private func membership(_ entry: Entry, user: Int32) -> Membership {
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

    mutating func insert(_ key: Int64, _ value: Value) {
        let position = lowerBound(key)
        if position < keys.count && keys[position] == key {
            values[position] = value
        } else {
            keys.insert(key, at: position)
            values.insert(value, at: position)
        }
    }

    subscript(key: Int64) -> Value? {
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
