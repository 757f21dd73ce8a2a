/// A user's place in one offering.
struct Membership: Sendable {
    /// Index into the offering's `groups`: the group of the user's earliest valid row.
    var group: Int32
    /// The earliest `assigned_at` of the user's rows for that group, in microseconds.
    var assignedAt: Int64
    /// When valid rows name different groups: the earliest `assigned_at` of a row naming
    /// another group. From then on the user is excluded (and counted in `multi_group_users`).
    var conflictingSince: Int64?

    var isExcluded: Bool { conflictingSince != nil }
}

/// A member of one offering.
struct Member: Sendable {
    /// Index in the population's user table.
    var user: Int32
    var membership: Membership
}

/// Who is in which group (contract §2.1), from `user_offering_assignments`.
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

    /// Reads the assignment table, applying the rules of §2.1 in order.
    ///
    /// Memberships are kept in flat arrays, chained per user (almost every user has one), so
    /// a row costs a user lookup and a short walk, never a dictionary per offering.
    static func load(from source: TableSource, catalog: OfferingCatalog, asOf: Int64) throws -> Population {
        var population = Population(offeringCount: catalog.offerings.count)
        if let size = source.estimatedSize(of: "user_offering_assignments") {
            // A user id is part of its row, so the table's text bounds the ids' bytes; room never
            // used is never touched.
            population.users = ByteStringInterner(capacity: size.rows, bytes: size.bytes)
        }
        var offeringByKey = SortedKeys<Int>()
        var groupByKey = SortedKeys<(offering: Int, group: Int32)>()
        for (offeringIndex, offering) in catalog.offerings.enumerated() {
            offeringByKey.insert(offering.id, offeringIndex)
            for (groupIndex, group) in offering.groups.enumerated() {
                groupByKey.insert(group.id, (offeringIndex, Int32(groupIndex)))
            }
        }
        var memberships: [Membership] = []
        var membershipOffering: [Int32] = []
        /// The next membership of the same user, or -1.
        var nextOfUser: [Int32] = []
        /// Per user: their first membership.
        var firstOfUser: [Int32] = []
        /// Memberships whose rows name several groups: the earliest time of each group.
        var groupTimes: [Int32: [Int32: Int64]] = [:]
        try source.forEachRow(
            of: "user_offering_assignments", columns: ["user_id", "subscription_offering_id", "offering_group_id", "assigned_at"]
        ) { row in
            let assignedAt = row.timestamp(3)
            if let assignedAt, assignedAt >= asOf { return }
            guard let offeringKey = row.integer(1), let offering = offeringByKey[offeringKey] else {
                population.globalInvalidAssignments += 1
                return
            }
            population.hasRowsBeforeAsOf[offering] = true
            guard let assignedAt,
                let groupKey = row.integer(2), let group = groupByKey[groupKey], group.offering == offering,
                let user = row.withBytes(0, { $0.isEmpty ? nil : population.users.intern($0) }) ?? nil
            else {
                population.invalidAssignments[offering] += 1
                return
            }
            if Int(user) == firstOfUser.count { firstOfUser.append(-1) }
            var index = firstOfUser[Int(user)]
            while index >= 0 && membershipOffering[Int(index)] != Int32(offering) { index = nextOfUser[Int(index)] }
            guard index >= 0 else {
                memberships.append(Membership(group: group.group, assignedAt: assignedAt))
                membershipOffering.append(Int32(offering))
                nextOfUser.append(firstOfUser[Int(user)])
                firstOfUser[Int(user)] = Int32(memberships.count - 1)
                return
            }
            if var times = groupTimes[index] {
                times[group.group] = min(times[group.group] ?? .max, assignedAt)
                groupTimes[index] = times
                return
            }
            let existing = memberships[Int(index)]
            if existing.group == group.group {
                memberships[Int(index)].assignedAt = min(existing.assignedAt, assignedAt)
            } else {
                groupTimes[index] = [existing.group: existing.assignedAt, group.group: assignedAt]
            }
        }
        for (index, times) in groupTimes {
            // The earliest row's group is the user's; the next group to appear excludes them.
            let ordered = times.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
            memberships[Int(index)] = Membership(
                group: ordered[0].key, assignedAt: ordered[0].value, conflictingSince: ordered.count > 1 ? ordered[1].value : nil)
        }
        // Users in index order, so every offering's list comes out sorted by user.
        for (user, first) in firstOfUser.enumerated() {
            var index = first
            while index >= 0 {
                population.members[Int(membershipOffering[Int(index)])].append(Member(user: Int32(user), membership: memberships[Int(index)]))
                index = nextOfUser[Int(index)]
            }
        }
        return population
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
