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

public enum TenurePower {
    /// The longest wait searched: a test that needs more than this is one no traffic saves.
    public static let longestWait = 36_500

    /// The smallest whole d ≥ 0 (to within a day) at which the goal's power reaches
    /// `targetPower`, with the members as old as they will be on day d: today's members each d
    /// days older, and `perDay` newcomers a day to each group, of tenures 0 … d − 1. Each member's
    /// expected value and second moment are its tenure's (`TenureProfile.weeklyMoments`); the
    /// relative lift's variance is the unpooled delta method's of the future groups, and the power
    /// `PowerPlanning`'s at s = 0 for their size. nil when no d up to `longestWait` reaches it
    /// (or a group is empty, or control's mean is 0 on every day searched).
    ///
    /// - Parameters:
    ///   - perDay: the newcomers a day to control and to the treatment (their recent enrolment).
    public static func daysToTarget(
        control: TenureProfile, treatment: TenureProfile, perDay: (control: Double, treatment: Double), treatments: Int, alpha: Double,
        targetMDE: Double, targetPower: Double, sequentialTuning: Double?
    ) -> Int? {
        let groups = [FutureGroup(control, perDay: perDay.control), FutureGroup(treatment, perDay: perDay.treatment)]
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
    /// Per tenure day, the week's mean and second moment (`weeklyMoments`); the last held beyond.
    let byTenure: [(mean: Double, second: Double)]

    init(_ profile: TenureProfile, perDay: Double) {
        self.profile = profile
        self.perDay = perDay
        byTenure = profile.weeklyMoments()
    }

    func moments(atTenure day: Int) -> (mean: Double, second: Double) { byTenure[min(day, byTenure.count - 1)] }

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
            // Newcomers of tenures 0 … day − 1; past the oldest tenure seen, all alike.
            let seen = min(day, byTenure.count)
            for tenure in 0..<seen {
                sum += perDay * byTenure[tenure].mean
                second += perDay * byTenure[tenure].second
            }
            let oldest = byTenure[byTenure.count - 1]
            let beyond = Double(day - seen)
            sum += perDay * beyond * oldest.mean
            second += perDay * beyond * oldest.second
            count += perDay * Double(day)
        }
        let mean = sum / count
        return (count, mean, max(0, second / count - mean * mean))
    }
}
