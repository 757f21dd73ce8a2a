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

/// Who is in which group (contract §2.1), from `user_offering_assignments`.
struct Population: Sendable {
    /// Every user with at least one valid row before `as_of`, in order of first appearance;
    /// a user id not in it is unassigned.
    var users = ByteStringInterner()
    /// Per offering (catalog index): the members by user index.
    var members: [[Int32: Membership]]
    /// Per offering: invalid rows naming it.
    var invalidAssignments: [Int]
    /// Invalid rows naming an unknown (or unreadable) offering.
    var globalInvalidAssignments = 0
    /// Per offering: whether any row before `as_of` names it (readable or not).
    var hasRowsBeforeAsOf: [Bool]

    init(offeringCount: Int) {
        members = Array(repeating: [:], count: offeringCount)
        invalidAssignments = Array(repeating: 0, count: offeringCount)
        hasRowsBeforeAsOf = Array(repeating: false, count: offeringCount)
    }

    /// Users excluded from offering `offering` for naming several groups.
    func multiGroupUsers(offering: Int) -> Int {
        members[offering].values.count(where: \.isExcluded)
    }

    /// Reads the assignment table, applying the rules of §2.1 in order.
    static func load(from source: TableSource, catalog: OfferingCatalog, asOf: Int64) throws -> Population {
        var population = Population(offeringCount: catalog.offerings.count)
        var offeringByKey: [Int64: Int] = [:]
        var groupByKey: [Int64: (offering: Int, group: Int32)] = [:]
        for (offeringIndex, offering) in catalog.offerings.enumerated() {
            offeringByKey[offering.id] = offeringIndex
            for (groupIndex, group) in offering.groups.enumerated() {
                groupByKey[group.id] = (offeringIndex, Int32(groupIndex))
            }
        }
        // Users whose rows name several groups of an offering: the earliest time of each group.
        var groupTimes: [[Int32: [Int32: Int64]]] = Array(repeating: [:], count: catalog.offerings.count)
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
            if var times = groupTimes[offering][user] {
                times[group.group] = min(times[group.group] ?? .max, assignedAt)
                groupTimes[offering][user] = times
                return
            }
            guard let existing = population.members[offering][user] else {
                population.members[offering][user] = Membership(group: group.group, assignedAt: assignedAt)
                return
            }
            if existing.group == group.group {
                population.members[offering][user]?.assignedAt = min(existing.assignedAt, assignedAt)
            } else {
                groupTimes[offering][user] = [existing.group: existing.assignedAt, group.group: assignedAt]
            }
        }
        for offering in groupTimes.indices {
            for (user, times) in groupTimes[offering] {
                // The earliest row's group is the user's; the next group to appear excludes them.
                let ordered = times.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
                population.members[offering][user] = Membership(
                    group: ordered[0].key, assignedAt: ordered[0].value, conflictingSince: ordered.count > 1 ? ordered[1].value : nil)
            }
        }
        return population
    }
}
