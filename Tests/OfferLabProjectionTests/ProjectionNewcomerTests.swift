import OfferLabStatistics
import Testing

@testable import OfferLabProjection

/// The comparison targets what shipping does: a newcomer's expected revenue_365 in treatment
/// minus in control, with the members' sampling error (docs/statistics.md, "Each treatment
/// against control"); the groups' own rows keep targeting their members' realised mean.
@Suite("Projection: the comparison is about the next newcomers")
struct ProjectionNewcomerTests {
    /// `users` members assigned on day 0, the first `buyers` of them buying a pass at `price` an hour in.
    private func passGroup(_ name: String, users: Int, buyers: Int, price: Double) -> ProjectionGroupInput {
        var group = ProjectionGroupInput(name: name)
        for member in 0..<users {
            group.appendMember(assignedAt: 0, events: member < buyers ? [purchase(hour, FixtureProduct.pass, price, member: member)] : [])
        }
        return group
    }

    @Test("Members watched for their whole year: their rows are what they paid, the comparison keeps a newcomer's sampling error")
    func aYearObservedStillLeavesTheNewcomersUncertain() throws {
        // Read on day 400: nothing of the members' year is left, so each group's interval is its
        // realised mean, 1 000 · 10 / 2 000 = 5 and 800 · 10 / 2 000 = 4. A newcomer buys on day 0
        // with h = 0.5 (0.4): worth 5 (4), and the difference −1 has the binomials' standard error
        // 10 · √(0.5 · 0.5/2 000 + 0.4 · 0.6/2 000) = 0.1565 (no late buyer in 365 days: the latest
        // rate's draws, Gamma(½)/122 000 member-days, add under 0.01).
        let result = try project(
            [passGroup("control", users: 2000, buyers: 1000, price: 10), passGroup("fewer", users: 2000, buyers: 800, price: 10)],
            asOf: 400 * day, replicates: 2000)
        for (group, expected) in zip(result.groups, [5.0, 4.0]) {
            #expect(group.realizedARPU == expected && group.projectedARPU365 == expected)
            let interval = try #require(group.interval)
            #expect(interval.low == expected && interval.high == expected)
        }
        let row = try #require(result.comparisons.first)
        #expect(row.value == 4 && row.controlValue == 5 && row.difference == -1)
        let standardError = try #require(row.standardError)
        #expect(abs(standardError - 0.1565) < 0.0125)
        // −1 ± 1.96 · 0.1565: [−1.307, −0.693].
        let interval = try #require(row.differenceInterval)
        #expect(interval.low > -1.4 && interval.low < -1.22)
        #expect(interval.high > -0.78 && interval.high < -0.6)
        #expect(abs(try #require(row.relativeDifference) + 0.2) < 1e-12)
        #expect(try #require(row.pValue) < 0.01)
        #expect(try #require(row.chanceToBeatControl) < 0.01)
    }

    @Test("Two groups that behave alike: the newcomer difference is 0, its interval covers 0, its standard error the binomials'")
    func identicalGroupsDifferByNothing() throws {
        // 10 000 members, half buy a pass at 10 on day 0, read on day 30: a newcomer is worth
        // exactly 5 in both. Standard error: √2 · 10 · √(0.25/10 000) = 0.0707 from day 0's
        // binomial; the upper bound carries the latest rate's draws (Gamma(½)/50 000 a day) to
        // day 365 for the half that has not bought, 5 · 345 · Gamma(½)/50 000, so the standard
        // error is √((0.005 + 0.005 + 2 · 0.000595)/2) = 0.0748.
        let group = passGroup("a", users: 10000, buyers: 5000, price: 10)
        var twin = group
        twin.name = "b"
        let row = try #require(try project([group, twin], asOf: 30 * day, replicates: 2000).comparisons.first)
        #expect(row.value == 5 && row.controlValue == 5 && row.difference == 0)
        let standardError = try #require(row.standardError)
        #expect(standardError > 0.068 && standardError < 0.082)
        let interval = try #require(row.differenceInterval)
        #expect(interval.low > -0.25 && interval.low < -0.1)
        #expect(interval.high > 0.1 && interval.high < 0.25)
        #expect(try #require(row.pValue) > 0.5)
    }

    @Test("Members' year identified, a newcomer's not: 20 weekly chains leave its renewals unseen, so the comparison has far ends only")
    func aNewcomersYearCanBeUnseenWhenTheMembersIsNot() throws {
        // 1 000 members read on day 400; in control 20 bought a weekly plan at 5 and renewed 3
        // times, then stopped: the members paid 20 · 4 · 5 / 1 000 = 0.4, all observed. A
        // newcomer's 52 renewals rest on 20 chains (under the 30 a renewal needs): from none to 0.98.
        var control = ProjectionGroupInput(name: "control")
        for member in 0..<1000 {
            let events =
                member < 20
                ? (0..<4).map { charge in
                    charge == 0
                        ? purchase(hour, FixtureProduct.weekly, 5, member: member)
                        : renewal(Int64(charge) * 7 * day + hour, FixtureProduct.weekly, 5, member: member)
                } : []
            control.appendMember(assignedAt: 0, events: events)
        }
        let result = try project([control, passGroup("pass", users: 1000, buyers: 100, price: 4)], asOf: 400 * day)
        #expect(abs(try #require(result.groups[0].projectedARPU365) - 0.4) < 1e-12)
        let row = try #require(result.comparisons.first)
        #expect(row.value == nil && row.controlValue == nil)
        #expect(row.difference == nil && row.standardError == nil && row.pValue == nil && row.chanceToBeatControl == nil)
        #expect(row.differenceInterval == nil && row.boundInterval != nil)
        guard case .yearNotIdentified(let part) = try #require(row.gap) else {
            Issue.record("expected an unidentified year, got \(String(describing: row.gap))")
            return
        }
        #expect(part.product == FixtureProduct.weekly && part.renewalsIdentified == 0 && part.renewalsNeeded == 52)
    }
    /// 2 048 members assigned on day 0, half buying the weekly plan at 10 an hour in; of the chains
    /// due at each renewal exactly half renew (512 stop at the first charge, 256 after one renewal,
    /// …), so every rate seen is ½. A newcomer's revenue before tenure H (the growth the days left
    /// plan on) is 0.5 · 10 · Σ_{j ≤ n} 0.5^j with n = the renewals due before H: 5 through day 7,
    /// 7.5 through day 14, 8.75 through day 21; its second moment through day 14 is
    /// 0.25 · 10² + 0.25 · 20² = 125; and through day 365 it is the newcomer's year.
    @Test("A newcomer's revenue by tenure at the rates seen: worked by hand, and the year at its end")
    func newcomerGrowthByTenure() throws {
        var group = ProjectionGroupInput(name: "control")
        for member in 0..<2048 {
            guard member < 1024 else {
                group.appendMember(assignedAt: 0, events: [])
                continue
            }
            // Member m's chain renews r times, r the number of times 1 024 − m halves to 1 or more past 512.
            var renewals = 0
            while member >= 1024 - (1024 >> (renewals + 1)) && renewals < 10 { renewals += 1 }
            let events =
                [purchase(hour, FixtureProduct.weekly, 10, member: member)]
                + (0..<renewals).map { renewal(hour + Int64($0 + 1) * 7 * day, FixtureProduct.weekly, 10, member: member) }
            group.appendMember(assignedAt: 0, events: events)
        }
        var twin = group
        twin.name = "twin"
        let result = try project([group, twin], asOf: 60 * day, growthDays: 365)
        let growth = try #require(result.groups[0].newcomerGrowth)
        // Day by day through the fourth week, then week by week, and the year's end.
        #expect(!growth.isFloor && growth.tenures == Array(0...28) + Array(stride(from: 35, to: 365, by: 7)) + [365])
        for (tenure, expected) in [(1.0, 5.0), (7, 5), (8, 7.5), (14, 7.5), (15, 8.75)] {
            let first = growth.moments(atTenure: tenure).first
            #expect(abs(first - expected) < 1e-9, "tenure \(tenure): \(first)")
        }
        #expect(abs(growth.moments(atTenure: 8).second - 125) < 1e-9 && growth.first[0] == 0)
        #expect(try project([group, twin], asOf: 60 * day).groups[0].newcomerGrowth == nil, "none asked for")
        let year = try #require(result.comparisons.first?.controlValue)
        #expect(abs(growth.moments(atTenure: 365).first - year) < 1e-9, "\(growth.first.last ?? 0) against \(year)")
        // Monthly buyers read before any renewal is due: no rate is seen, the growth is a floor.
        var monthly = ProjectionGroupInput(name: "monthly")
        for member in 0..<200 {
            monthly.appendMember(assignedAt: 0, events: member < 100 ? [purchase(hour, FixtureProduct.monthly, 10, member: member)] : [])
        }
        let floor = try #require(try project([monthly], asOf: 20 * day, growthDays: 365).groups[0].newcomerGrowth)
        #expect(floor.isFloor && abs(floor.moments(atTenure: 365).first - 5) < 1e-9)
    }
}
