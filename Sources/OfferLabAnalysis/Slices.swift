import OfferLabEvents
import OfferLabIngest
import OfferLabJob
import OfferLabSupport
import OfferLabTables

/// One member's level of each slice field (docs/analysis.md §7): the field's value on the member's earliest
/// counted non-refund event for the offering that has it (events are in time order, ties in
/// file order), as a label id; `SliceSums.none` when no such event has it.
package enum SliceLevels {
    /// Writes the levels of `fields` (in order) into `levels`, which has one entry per field.
    /// Only events that count are looked at: a known type other than refund, placed as
    /// `AttributionRules.placement` says.
    static func find(
        _ fields: [SliceField], events: UnsafeBufferPointer<UserEvent>, shapes: UnsafeBufferPointer<EventShape>, membership: Membership,
        windowMicroseconds: Int64?, into levels: inout [Int32]
    ) {
        for index in levels.indices { levels[index] = SliceSums.none }
        var missing = fields.count
        for event in events where missing > 0 {
            guard let type = event.eventType, type != .refund else { continue }
            switch AttributionRules.placement(of: event.timestamp, assignedAt: membership.assignedAt, window: windowMicroseconds) {
            case .beforeAssignment: continue
            // Events are in time order: none after this one counts.
            case .afterWindow: return
            case .counted: break
            }
            let shape = shapes[Int(event.shape)]
            for (index, field) in fields.enumerated() where levels[index] == SliceSums.none {
                let value = field == .country ? shape.country : shape.platform
                if value >= 0 {
                    levels[index] = value
                    missing -= 1
                }
            }
        }
    }
}

/// The per-group totals of one offering's members, per slice field and level: added up from
/// member runs like `OfferingSums` (counts are integers, money exact until rounded).
package struct SliceSums: Sendable {
    /// The level of a member whose events never carry the field: `(none)`.
    package static let none: Int32 = -1

    /// The counts and money of one level's members, per group.
    package struct Level: Sendable {
        package var counts: [GroupTotals]
        var money: [ExactMoney]

        package init(groupCount: Int) {
            counts = Array(repeating: GroupTotals(), count: groupCount)
            money = Array(repeating: ExactMoney(), count: groupCount)
        }

        package mutating func add(_ other: Level) {
            for group in counts.indices {
                counts[group].counts.add(other.counts[group].counts)
                money[group].add(other.money[group])
            }
        }

        package var users: Int { counts.reduce(0) { $0 + $1.users } }
    }

    package let fields: [SliceField]
    private let groupCount: Int
    /// Per field (in `fields` order): its levels by label id.
    private var levels: [[Int32: Level]]
    /// The member being added's levels (`SliceLevels.find` writes them; no allocation per member).
    package var memberLevels: [Int32]

    package init(fields: [SliceField], groupCount: Int) {
        self.fields = fields
        self.groupCount = groupCount
        levels = Array(repeating: [:], count: fields.count)
        memberLevels = Array(repeating: Self.none, count: fields.count)
    }

    /// Adds one member of `group`, of the levels in `memberLevels`, with their totals.
    package mutating func addMember(group: Int, totals: GroupTotals) {
        for field in fields.indices {
            let level = memberLevels[field]
            if levels[field][level] == nil { levels[field][level] = Level(groupCount: groupCount) }
            levels[field][level]!.counts[group].counts.add(totals.counts)
            levels[field][level]!.money[group].add(totals.money)
        }
    }

    package mutating func add(_ other: SliceSums) {
        for field in fields.indices {
            for (level, sums) in other.levels[field] {
                if levels[field][level] == nil { levels[field][level] = Level(groupCount: groupCount) }
                levels[field][level]!.add(sums)
            }
        }
    }

    /// The levels of each field, ranked by users (all groups) descending, ties by level text in
    /// byte order; past `maxLevels`, the rest merged into one level `(other)`, last.
    package func results(labels: ByteStringInterner, maxLevels: Int) -> [SliceResult] {
        fields.indices.flatMap { field -> [SliceResult] in
            let named = levels[field].map { level, sums in
                (text: level == Self.none ? SliceResult.noneLevel : labels.string(of: level), sums: sums)
            }
            let ranked = named.sorted { left, right in
                let (leftUsers, rightUsers) = (left.sums.users, right.sums.users)
                if leftUsers != rightUsers { return leftUsers > rightUsers }
                return left.text.utf8.lexicographicallyPrecedes(right.text.utf8)
            }
            var kept = ranked.prefix(maxLevels).map { (text: $0.text, sums: $0.sums) }
            if ranked.count > maxLevels {
                var other = Level(groupCount: groupCount)
                for level in ranked.dropFirst(maxLevels) { other.add(level.sums) }
                kept.append((SliceResult.otherLevel, other))
            }
            return kept.map { level in
                var groups = level.sums.counts
                for group in groups.indices { groups[group].money = level.sums.money[group].rounded }
                return SliceResult(field: fields[field], level: level.text, groups: groups)
            }
        }
    }
}

/// The per-group totals of one level of a slice field within an offering: a sub-population
/// analysed as the whole offering is.
public struct SliceResult: Sendable {
    /// The level of members whose events never carry the field.
    public static let noneLevel = "(none)"
    /// The level the levels past `max_slice_levels` are merged into.
    public static let otherLevel = "(other)"

    public var field: SliceField
    public var level: String
    /// Parallel to the offering's groups.
    public var groups: [GroupTotals]
    /// As `OfferingResult.hasProceedsAndTrials`, for the level.
    public var hasProceedsAndTrials = true

    package init(field: SliceField, level: String, groups: [GroupTotals], hasProceedsAndTrials: Bool = true) {
        self.field = field
        self.level = level
        self.groups = groups
        self.hasProceedsAndTrials = hasProceedsAndTrials
    }
}
