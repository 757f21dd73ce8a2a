import Testing

@testable import OfferLabProjection

/// A member's year is not one chain: the chains started after a one-time purchase (a pass
/// buyer who subscribes after it) are projected for the members who have not started one yet and
/// for a newcomer (contract §2.14, "Follow-on purchases"; docs/statistics.md, "Follow-on chains").
@Suite("Projection: follow-on chains after a pass")
struct ProjectionFollowOnTests {
    /// Two cohorts of 1 000 members read on day 30: the first assigned on day 0, the second on day
    /// 27. Every member buys the pass at 5 an hour in; half the first cohort buys the yearly plan
    /// at 50 three days later (its renewal falls after day 365). The second cohort's purchases are
    /// two whole days old: none has reached day 3.
    private func passThenYearly() -> ProjectionGroupInput {
        var group = ProjectionGroupInput(name: "pass")
        for member in 0..<2000 {
            let assignedAt = member < 1000 ? 0 : 27 * day
            var events = [purchase(assignedAt + hour, FixtureProduct.pass, 5, member: member)]
            if member < 500 {
                events.append(
                    ProjectionEvent(
                        time: assignedAt + 3 * day + hour, kind: .purchase, product: FixtureProduct.yearly, chain: Int64(10_000 + member),
                        amount: 50))
            }
            group.appendMember(assignedAt: assignedAt, events: events)
        }
        return group
    }

    @Test("The follow-on hazard by day since the purchase, its product, and the purchases still waiting")
    func followOnsAreCounted() {
        let observation = GroupObservation(
            passThenYearly(), products: FixtureProduct.all, configuration: ProjectionConfiguration(asOf: 30 * day))
        let followOn = observation.followOns[FixtureProduct.pass]
        // Every purchase at risk through day 1; the second cohort's leave after day 1 (two whole
        // days watched), so 1 000 are at risk on day 3, of whom 500 start the yearly plan.
        #expect(followOn.atRiskByDay[0] == 2000 && followOn.atRiskByDay[1] == 2000 && followOn.atRiskByDay[2] == 1000)
        #expect(followOn.atRiskByDay[3] == 1000 && followOn.startedByDay[3] == 500 && followOn.atRiskByDay[4] == 500)
        #expect(followOn.startedByProduct == [0, 0, 500, 0])
        // The first cohort's purchases are watched through day 28 (29 whole days, an hour short of 30).
        #expect(followOn.lastObservedDay == 28)
        // Waiting: the second cohort two whole days after its purchase, the first cohort's 500
        // who did not follow on 29 days after theirs.
        #expect(followOn.waiting == [0 << 16 | 2: 1000, 0 << 16 | 29: 500])
        // A renewing product starts no follow-on of its own.
        #expect(observation.followOns[FixtureProduct.yearly].atRiskByDay.isEmpty)
    }

    @Test("A pass whose buyers take the yearly plan three days later half the time: a newcomer is worth 5 + ½·50")
    func aNewcomerIsWorthThePassAndWhatFollowsIt() throws {
        let result = try project([passThenYearly(), passThenYearly()], asOf: 30 * day)
        // The members: the first cohort paid 5 + 500·50/1 000 = 30 each on average; the second
        // cohort paid 5 and is expected to follow on as the first did, 25 more. No one followed
        // on after day 3 in 26 days watched: the latest rate is 0.
        let members = try #require(result.groups[0].projectedARPU365)
        #expect(abs(members - 30) < 1e-9)
        #expect(abs(try #require(result.groups[0].realizedARPU) - 17.5) < 1e-12)
        // The year's parts: 17.5 charged, the second cohort's yearly plans (12.5 a member) from
        // follow-on chains on the days seen; nothing else to come, from a past or continued.
        let group = result.groups[0]
        #expect(abs(try #require(group.observedShare) - 17.5 / 30) < 1e-9)
        #expect(abs(try #require(group.followOnShare) - 12.5 / 30) < 1e-9)
        for share in [group.ownRatesShare, group.pastShare, group.continuedShare] { #expect(abs(try #require(share)) < 1e-9) }
        // A newcomer: the pass on day 0 (every member bought it), then the yearly plan on day 3 with 1/2.
        let comparison = try #require(result.comparisons.first)
        #expect(abs(try #require(comparison.controlValue) - 30) < 1e-9)
        #expect(abs(try #require(comparison.value) - 30) < 1e-9)
        // The waiting purchases' follow-on is drawn with the hazard: the interval holds 30 and
        // is wider than the first cohort's realised year alone would allow.
        let interval = try #require(result.groups[0].interval)
        #expect(interval.low < 30 && interval.high > 30 && interval.high - interval.low > 0.5)
    }

    @Test("Without follow-ons a pass is worth its charge: the same members with no yearly plan bought")
    func withoutFollowOnsAPassIsItsCharge() throws {
        var group = ProjectionGroupInput(name: "pass")
        for member in 0..<1000 { group.appendMember(assignedAt: 0, events: [purchase(hour, FixtureProduct.pass, 5, member: member)]) }
        let result = try project([group, group], asOf: 30 * day)
        #expect(try #require(result.comparisons.first?.value) == 5)
        #expect(try #require(result.groups[0].projectedARPU365) == 5)
    }
}
