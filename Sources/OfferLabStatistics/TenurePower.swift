/// One group's goal values by tenure (whole days since `assigned_at`): for a goal that grows with
/// tenure (revenue to date, renewals), how its mean and second moment depend on how long a member
/// has been in the test (docs/statistics.md, "Days left").
public struct TenureProfile: Sendable, Equatable {
    /// Per tenure day (index 0 = the first day): members, Σx and Σx².
    public private(set) var members: [Double] = []
    public private(set) var sums: [Double] = []
    public private(set) var squares: [Double] = []
    /// The whole tenure day from which a member's value no longer changes (a conversion window's
    /// end, rounded up); nil when it grows for as long as members stay.
    public var finalFrom: Int?

    public init(finalFrom: Int? = nil) {
        self.finalFrom = finalFrom
    }

    /// The sums as they were kept elsewhere (an engine's `tenure` part), per tenure day: members,
    /// Σx and Σx² (trailing days without members dropped); nil when they cannot be (arrays of
    /// different lengths, a count that is not a whole number ≥ 0, a sum that is not finite, a
    /// day with values but no member).
    public init?(members: [Double], sums: [Double], squares: [Double], finalFrom: Int?) {
        guard members.count == sums.count, sums.count == squares.count,
            members.allSatisfy({ $0 >= 0 && $0 == $0.rounded() && $0.isFinite }), sums.allSatisfy(\.isFinite),
            squares.allSatisfy({ $0.isFinite && $0 >= 0 }),
            members.indices.allSatisfy({ members[$0] > 0 || (sums[$0] == 0 && squares[$0] == 0) })
        else { return nil }
        let days = (members.lastIndex { $0 > 0 } ?? -1) + 1
        self.members = Array(members.prefix(days))
        self.sums = Array(sums.prefix(days))
        self.squares = Array(squares.prefix(days))
        self.finalFrom = finalFrom
    }

    /// Adds a member `tenureDay` whole days old (negatives count as 0) whose goal value is `value`.
    public mutating func add(tenureDay: Int, value: Double) {
        let day = max(0, tenureDay)
        holdTenures(through: day)
        members[day] += 1
        sums[day] += value
        squares[day] += value * value
    }

    /// Adds the members of `other` (the same group's next run of members).
    public mutating func add(_ other: TenureProfile) {
        holdTenures(through: other.oldestDay)
        for day in other.members.indices {
            members[day] += other.members[day]
            sums[day] += other.sums[day]
            squares[day] += other.squares[day]
        }
    }

    /// Extends the days held to tenure `day`, the new ones empty.
    private mutating func holdTenures(through day: Int) {
        guard day >= members.count else { return }
        let grown = day + 1 - members.count
        members += repeatElement(0, count: grown)
        sums += repeatElement(0, count: grown)
        squares += repeatElement(0, count: grown)
    }

    /// The oldest tenure day held; −1 with no member.
    var oldestDay: Int { members.count - 1 }

    /// The tenure in days through which its members' values may still grow past the oldest held
    /// (`finalFrom`, else `horizon`); nil when they are all final already.
    public func growthDays(horizon: Int) -> Int? {
        let through = min(horizon, finalFrom ?? horizon)
        return oldestDay < through ? through : nil
    }

    /// Per tenure day 0 … `oldestDay`, then the same beyond: the mean and second moment of the
    /// week of tenures the day falls in, weeks counted back from the oldest tenure (so the oldest
    /// week is a full one), and past the oldest tenure the oldest week's: members are taken to
    /// earn no more beyond the oldest tenure seen. With `finalFrom`, the tenures from it on are one
    /// bin, all of its members alike, and the weeks are counted back from the day before it.
    func weeklyMoments() -> [(mean: Double, second: Double)] {
        guard oldestDay >= 0 else { return [] }
        var moments = [(mean: Double, second: Double)](repeating: (0, 0), count: members.count)
        var end = oldestDay
        var pooled = (mean: 0.0, second: 0.0)
        while end >= 0 {
            let start = if let finalFrom, end >= finalFrom { max(0, finalFrom) } else { max(0, end - 6) }
            let count = members[start...end].reduce(0, +)
            // A week without members takes the older week's values.
            if count > 0 { pooled = (sums[start...end].reduce(0, +) / count, squares[start...end].reduce(0, +) / count) }
            for day in start...end { moments[day] = pooled }
            end = start - 1
        }
        return moments
    }
}

/// How a newcomer's goal value grows with tenure at the rates seen: the first and second
/// moments of its revenue before each of `tenures` (whole days, rising from 0), from the
/// projection's model (`newcomerGrowth`); linear between them and as the last beyond. The days
/// left of `arpu` continue each group's members past the oldest tenure seen by its increments
/// (docs/statistics.md, "Days left").
public struct TenureGrowth: Sendable, Equatable {
    public let tenures: [Int]
    /// Per tenure of `tenures`: E V and E V² of a newcomer's value by then.
    public let first: [Double]
    public let second: [Double]
    /// Whether the growth is a floor: a product bought has no rate of renewal seen, and its
    /// renewals count as none (the days left are then "at least").
    public let isFloor: Bool

    /// nil unless `tenures` rise from 0 (at least 2 of them) and `first` and `second` hold a
    /// finite moment for each.
    public init?(tenures: [Int], first: [Double], second: [Double], isFloor: Bool) {
        guard tenures.count >= 2, tenures[0] == 0, zip(tenures, tenures.dropFirst()).allSatisfy({ $0 < $1 }),
            first.count == tenures.count, second.count == tenures.count, (first + second).allSatisfy(\.isFinite)
        else { return nil }
        self.tenures = tenures
        self.first = first
        self.second = second
        self.isFloor = isFloor
    }

    /// The moments at `tenure` days (≥ 0), interpolated.
    public func moments(atTenure tenure: Double) -> (first: Double, second: Double) {
        let position = max(0, tenure)
        // The first held tenure above it (binary search: read for every tenure of every day planned).
        var (low, high) = (0, tenures.count)
        while low < high {
            let middle = (low + high) / 2
            if Double(tenures[middle]) <= position { low = middle + 1 } else { high = middle }
        }
        guard low < tenures.count else { return (first[first.count - 1], second[second.count - 1]) }
        let (start, end) = (low - 1, low)
        let fraction = (position - Double(tenures[start])) / Double(tenures[end] - tenures[start])
        return (
            first[start] + fraction * (first[end] - first[start]), second[start] + fraction * (second[end] - second[start])
        )
    }

    /// The last tenure held: no growth beyond it.
    var lastTenure: Int { tenures[tenures.count - 1] }
}

public enum TenurePower {
    /// A group as the plan reads it: its members by tenure, the newcomers a day (its recent
    /// enrolment), and how its values grow with tenure at the rates seen (past the oldest tenure
    /// the oldest week's moments go on by its increments; nil: they stay as they are).
    public struct Group: Sendable {
        public var profile: TenureProfile
        public var perDay: Double
        public var growth: TenureGrowth?

        public init(_ profile: TenureProfile, perDay: Double, growth: TenureGrowth? = nil) {
            self.profile = profile
            self.perDay = perDay
            self.growth = growth
        }
    }

    /// The longest wait searched: a test that needs more than this is one no traffic saves.
    public static let longestWait = 36_500

    /// The smallest whole d ≥ 0 (to within a day) at which the goal's power reaches
    /// `targetPower`, with the members as old as they will be on day d: today's members each d
    /// days older, and `perDay` newcomers a day to each group, of tenures 0 … d − 1. Each member's
    /// expected value and second moment are its tenure's (`TenureProfile.weeklyMoments`); the
    /// relative lift's variance is the unpooled delta method's of the future groups, and the power
    /// `PowerPlanning`'s at s = 0 for their size. nil when no d up to `longestWait` reaches it
    /// (or a group is empty, or control's mean is 0 on every day searched).
    public static func daysToTarget(
        control: Group, treatment: Group, treatments: Int, alpha: Double, targetMDE: Double, targetPower: Double, sequentialTuning: Double?
    ) -> Int? {
        let groups = [FutureGroup(control), FutureGroup(treatment)]
        guard groups.allSatisfy({ !$0.byTenure.isEmpty }) else { return nil }
        func power(_ day: Int) -> Double {
            let (c, t) = (groups[0].moments(after: day), groups[1].moments(after: day))
            guard c.mean != 0, c.variance > 0, t.variance > 0 else { return 0 }
            let varianceOfLift =
                t.variance / (t.count * c.mean * c.mean) + t.mean * t.mean * c.variance / (c.count * c.mean * c.mean * c.mean * c.mean)
            return PowerCurve(
                varianceOfLift: varianceOfLift, users: c.count + t.count, alpha: alpha / Double(max(1, treatments)),
                targetMDE: targetMDE, sequentialTuning: sequentialTuning
            ).power(0)
        }
        if power(0) >= targetPower { return 0 }
        // Double until the target is reached, then bisect between the last two days.
        var low = 0
        var high = 1
        while power(high) < targetPower {
            guard high < longestWait else { return nil }
            low = high
            high = min(2 * high, longestWait)
        }
        while high - low > 1 {
            let middle = (low + high) / 2
            if power(middle) < targetPower { low = middle } else { high = middle }
        }
        return high
    }
}

/// A group on a later day: its members aged and its newcomers added.
private struct FutureGroup {
    let profile: TenureProfile
    let perDay: Double
    /// Per tenure day, the week's mean and second moment (`weeklyMoments`).
    let byTenure: [(mean: Double, second: Double)]
    /// Past the oldest tenure: the growth the oldest week's moments go on by, from the tenure its
    /// members stand at on average to the tenure asked (capped at the day values turn final);
    /// nil: they stay as they are.
    let growth: TenureGrowth?
    let anchor: (first: Double, second: Double)
    /// The tenure past which nothing grows: the day values turn final, or the growth's last.
    let grownThrough: Double
    /// The first tenure day from which the moments no longer change.
    let flatFrom: Int

    init(_ group: TenurePower.Group) {
        let (profile, growth) = (group.profile, group.growth)
        self.profile = profile
        perDay = group.perDay
        byTenure = profile.weeklyMoments()
        let oldest = profile.oldestDay
        // A member's value is final from `finalFrom` on: none grows past it.
        let finalTenure = profile.finalFrom.map(Double.init) ?? .infinity
        let start = max(0, oldest - 6)
        let members = oldest >= 0 ? profile.members[start...oldest].reduce(0, +) : 0
        let anchorTenure = members > 0 ? (start...oldest).reduce(0.0) { $0 + profile.members[$1] * (Double($1) + 0.5) } / members : 0
        if let growth, oldest >= 0, members > 0, anchorTenure < finalTenure {
            self.growth = growth
            anchor = growth.moments(atTenure: anchorTenure)
            grownThrough = min(finalTenure, Double(growth.lastTenure))
            flatFrom = max(oldest + 1, Int(grownThrough.rounded(.up)))
        } else {
            self.growth = nil
            anchor = (0, 0)
            grownThrough = 0
            flatFrom = oldest + 1
        }
    }

    func moments(atTenure day: Int) -> (mean: Double, second: Double) {
        if day < byTenure.count { return byTenure[day] }
        let oldest = byTenure[byTenure.count - 1]
        guard let growth else { return oldest }
        // A member of tenure day t has been in the test t + ½ days on average.
        let grown = growth.moments(atTenure: min(Double(day) + 0.5, grownThrough))
        return (oldest.mean + grown.first - anchor.first, oldest.second + grown.second - anchor.second)
    }

    /// Members, mean and (population) variance of the goal on day `day` from now.
    func moments(after day: Int) -> (count: Double, mean: Double, variance: Double) {
        var count = 0.0
        var sum = 0.0
        var second = 0.0
        for tenure in profile.members.indices where profile.members[tenure] > 0 {
            let aged = moments(atTenure: tenure + day)
            count += profile.members[tenure]
            sum += profile.members[tenure] * aged.mean
            second += profile.members[tenure] * aged.second
        }
        if perDay > 0 && day > 0 {
            // Newcomers of tenures 0 … day − 1; from `flatFrom` on, all alike.
            let changing = min(day, flatFrom)
            for tenure in 0..<changing {
                let moments = moments(atTenure: tenure)
                sum += perDay * moments.mean
                second += perDay * moments.second
            }
            let last = moments(atTenure: flatFrom)
            let beyond = Double(day - changing)
            sum += perDay * beyond * last.mean
            second += perDay * beyond * last.second
            count += perDay * Double(day)
        }
        let mean = sum / count
        return (count, mean, max(0, second / count - mean * mean))
    }
}
