import Testing

@testable import OfferLabStatistics

@Suite("Days to the target power with members as old as they will be, worked by hand")
struct TenurePowerTests {
    /// `perDay` members of each tenure day 0 ..< `days`, every tenth paying `value(tenure)`.
    static func profile(days: Int, perDay: Int = 100, value: (Int) -> Double) -> TenureProfile {
        var profile = TenureProfile()
        for tenure in 0..<days {
            for member in 0..<perDay { profile.add(tenureDay: tenure, value: member % 10 == 0 ? value(tenure) : 0) }
        }
        return profile
    }

    static func days(
        _ control: TenureProfile, _ treatment: TenureProfile, perDay: Double = 100, tuning: Double? = nil,
        growth: (control: TenureGrowth?, treatment: TenureGrowth?) = (nil, nil)
    ) -> Int? {
        TenurePower.daysToTarget(
            control: .init(control, perDay: perDay, growth: growth.control),
            treatment: .init(treatment, perDay: perDay, growth: growth.treatment), treatments: 1, alpha: 0.05, targetMDE: 0.1,
            targetPower: 0.8, sequentialTuning: tuning)
    }

    /// A newcomer's moments before tenure k = 0 … `days` when a tenth pays `value(k)`.
    static func growth(days: Int = 60, value: (Int) -> Double) throws -> TenureGrowth {
        let values = (0...days).map(value)
        return try #require(
            TenureGrowth(tenures: Array(0...days), first: values.map { 0.1 * $0 }, second: values.map { 0.1 * $0 * $0 }, isFloor: false))
    }

    @Test("A newcomer's growth is read at its tenures, linearly between them and as the last beyond")
    func growthInterpolates() throws {
        let growth = try #require(TenureGrowth(tenures: [0, 1, 2], first: [0, 1, 3], second: [0, 2, 10], isFloor: false))
        #expect(growth.moments(atTenure: 0.5) == (0.5, 1))
        #expect(growth.moments(atTenure: 1.25) == (1.5, 4))
        #expect(growth.moments(atTenure: 7) == (3, 10) && growth.moments(atTenure: -1) == (0, 0))
        // Tenures a week apart: linear between them.
        let weekly = try #require(TenureGrowth(tenures: [0, 1, 8], first: [0, 1, 8], second: [0, 1, 15], isFloor: false))
        #expect(weekly.moments(atTenure: 4.5) == (4.5, 8))
        #expect(TenureGrowth(tenures: [0], first: [0], second: [0], isFloor: false) == nil)
        #expect(TenureGrowth(tenures: [0, 1], first: [0, .nan], second: [0, 1], isFloor: false) == nil)
        #expect(TenureGrowth(tenures: [1, 2], first: [0, 1], second: [0, 1], isFloor: false) == nil)
        #expect(TenureGrowth(tenures: [0, 0], first: [0, 1], second: [0, 1], isFloor: false) == nil)
    }

    /// Payers pay 10 on joining and 10 more each week until their fourth week. Seen for two weeks
    /// only, the members' revenue to date still grows past the oldest tenure: with the growth the
    /// rates give, the plan two weeks from now is the plan of the same test seen four weeks (all
    /// its growth seen), two weeks nearer (149 against 135 + 14); holding revenue flat past the
    /// oldest tenure plans too early (144).
    @Test("Past the oldest tenure the members grow as a newcomer would at the rates seen")
    func growthContinuesPastTheOldestTenure() throws {
        let charges = { (tenure: Int) in 10 * Double(1 + min(3, tenure / 7)) }
        let lifted = { (tenure: Int) in 1.05 * charges(tenure) }
        let growth = (try Self.growth(value: charges), try Self.growth(value: lifted))
        let seen = try #require(Self.days(Self.profile(days: 14, value: charges), Self.profile(days: 14, value: lifted), growth: growth))
        let later = try #require(Self.days(Self.profile(days: 28, value: charges), Self.profile(days: 28, value: lifted)))
        #expect(later > 30 && abs(seen - (later + 14)) <= 2, "\(seen) against \(later) + 14")
        let flat = try #require(Self.days(Self.profile(days: 14, value: charges), Self.profile(days: 14, value: lifted)))
        #expect(flat < seen, "\(flat) against \(seen)")
        // A growth that has stopped by the oldest tenure changes nothing.
        let seenAll = Self.days(Self.profile(days: 28, value: charges), Self.profile(days: 28, value: lifted), growth: growth)
        #expect(seenAll == later)
    }

    @Test("Weeks are counted back from the oldest tenure; past it, the oldest week's values hold")
    func weeklyMoments() {
        // Tenures 0 … 9, one member each, worth its tenure: the oldest week is days 3 … 9 (mean 6,
        // second moment (9 + 16 + … + 81)/7 = 40), the rest days 0 … 2 (mean 1, (0 + 1 + 4)/3).
        var profile = TenureProfile()
        for tenure in 0..<10 { profile.add(tenureDay: tenure, value: Double(tenure)) }
        let moments = profile.weeklyMoments()
        #expect(moments.count == 10)
        #expect(moments[0...2].allSatisfy { $0.mean == 1 && abs($0.second - 5.0 / 3) < 1e-12 })
        #expect(moments[3...9].allSatisfy { $0.mean == 6 && $0.second == 40 })
    }

    @Test("A value final from a tenure on: those tenures are one bin, the weeks counted back from the day before it")
    func finalTenuresAreOneBin() {
        // Tenures 0 … 9, one member each, worth its tenure, final from day 4: days 4 … 9 are one bin
        // (mean 6.5, second moment (16 + 25 + … + 81)/6 = 271/6), days 0 … 3 a week (1.5, 14/4).
        var profile = TenureProfile(finalFrom: 4)
        for tenure in 0..<10 { profile.add(tenureDay: tenure, value: Double(tenure)) }
        let moments = profile.weeklyMoments()
        #expect(moments[0...3].allSatisfy { $0.mean == 1.5 && $0.second == 3.5 })
        #expect(moments[4...9].allSatisfy { $0.mean == 6.5 && abs($0.second - 271.0 / 6) < 1e-12 })
        // Final beyond the oldest tenure: the weeks as without it.
        var growing = profile
        growing.finalFrom = nil
        profile.finalFrom = 14
        #expect(profile.weeklyMoments().map(\.mean) == growing.weeklyMoments().map(\.mean))
        #expect(growing.weeklyMoments()[3...9].allSatisfy { $0.mean == 6 })
    }

    @Test("A group's runs of members added up are the group")
    func runsAddUp() {
        var whole = TenureProfile()
        var runs = [TenureProfile(), TenureProfile()]
        for member in 0..<30 {
            let (tenure, value) = (member % 11, Double(member % 4))
            whole.add(tenureDay: tenure, value: value)
            runs[tenure < 5 ? 0 : 1].add(tenureDay: tenure, value: value)
        }
        var added = runs[0]
        added.add(runs[1])
        #expect(added == whole)
        var other = runs[1]
        other.add(runs[0])
        #expect(other == whole)
    }

    /// A goal that does not grow with tenure: the answer is the power plan's users over the
    /// enrolment, ⌈users_needed / r⌉ (to within a day: the plan rounds users, this days).
    @Test("With values that do not grow, the days are the power plan's users over the enrolment", arguments: [nil, 5000.0])
    func flatValuesAgreeWithThePowerPlan(tuning: Double?) throws {
        let control = Self.profile(days: 14) { _ in 10 }
        let treatment = Self.profile(days: 14) { _ in 10.5 }
        // Population moments of 1,400 members, a tenth paying: mean p·x, variance p·x² − (p·x)².
        func moments(_ x: Double) -> SampleMoments {
            SampleMoments(count: 1400, mean: 0.1 * x, variance: 0.1 * x * x - 0.01 * x * x)
        }
        let plan = try PowerPlanning.plan(
            control: moments(10), treatment: moments(10.5), treatments: 1, alpha: 0.05, targetMDE: 0.1, targetPower: 0.8,
            sequentialTuning: tuning
        ).get()
        let expected = Int((Double(plan.usersNeeded) / 200).rounded(.up))
        let days = try #require(Self.days(control, treatment, tuning: tuning))
        #expect(abs(days - expected) <= 1, "\(days) against \(expected)")
        #expect(expected > 30, "a test that needs time: \(expected)")
    }

    /// Payers pay 10 on joining and 10 more each week until their fourth week: revenue to date
    /// grows with tenure and stops at day 21. Tonight (day 28) the growth is all seen; a week
    /// later the same enrolment gives a decision date a week nearer.
    @Test("A goal that grows with tenure: the days count down from one week to the next")
    func growingValuesCountDown() throws {
        let charges = { (tenure: Int) in 10 * Double(1 + min(3, tenure / 7)) }
        let tonight = Self.profile(days: 28, value: charges)
        let nextWeek = Self.profile(days: 35, value: charges)
        let lifted = { (tenure: Int) in 1.05 * charges(tenure) }
        let first = try #require(Self.days(tonight, Self.profile(days: 28, value: lifted)))
        let second = try #require(Self.days(nextWeek, Self.profile(days: 35, value: lifted)))
        #expect(first > 30 && abs((first - second) - 7) <= 1, "\(first) then \(second)")
    }

    @Test("No enrolment and too few members: the target is never reached")
    func unreachable() {
        let control = Self.profile(days: 14, perDay: 10) { _ in 10 }
        let treatment = Self.profile(days: 14, perDay: 10) { _ in 10.2 }
        #expect(Self.days(control, treatment, perDay: 0) == nil)
        #expect(Self.days(TenureProfile(), treatment) == nil)
        // Already powered: 0 days.
        let big = Self.profile(days: 14, perDay: 20_000) { _ in 10 }
        #expect(Self.days(big, Self.profile(days: 14, perDay: 20_000) { _ in 10 }) == 0)
    }
}
