import OfferLabProjection
import OfferLabStatistics
import Testing

@Suite("Projection: hand-worked edge cases (docs/statistics.md#projected-revenue-per-user-after-365-days)")
struct ProjectionEdgeCaseTests {
    @Test("What is unseen reads as clauses joined by '; ', never an empty first one")
    func unseenPartClauses() {
        let sizeOnly = UnseenPart(share: 0.5, product: nil, renewalsIdentified: 0, renewalsNeeded: 0, lastObservedDay: nil)
        #expect(
            sizeOnly.description(productName: { "p\($0)" })
                == "the part not seen is 50% of the projected year (no rate seen to continue: only its far ends, from none of it to the most the data allow)"
        )
        let both = UnseenPart(share: .infinity, product: 2, renewalsIdentified: 1, renewalsNeeded: 11, lastObservedDay: 29)
        #expect(
            both.description(productName: { "p\($0)" })
                == "p2 needs 11 renewals and the test has seen renewal 1 often enough; purchases after day 30 in the test have not been seen yet; "
                + "the part not seen is more than the projected year (no rate seen to continue: only its far ends, from none of it to the most the data allow)"
        )
        let fromPast = UnseenPart(
            share: 2, product: 1, renewalsIdentified: 3, renewalsNeeded: 11, renewalsFromPast: true, lastObservedDay: nil)
        #expect(
            fromPast.description(productName: { "p\($0)" })
                == "p1 needs 11 renewals and the app's past has seen renewals 1 to 3 often enough; "
                + "the part not seen is 200% of the projected year (no rate seen to continue: only its far ends, from none of it to the most the data allow)"
        )
        let awaiting = UnseenPart(
            share: 4.88, product: 1, renewalsIdentified: 0, renewalsNeeded: 12, pastAwaitingComparison: 10, lastObservedDay: nil)
        #expect(
            awaiting.description(productName: { "p\($0)" })
                == "p1 needs 12 renewals and the test has seen none of them often enough to compare its members with the app's past, "
                + "which has seen renewals 1 to 10; "
                + "the part not seen is 488% of the projected year (no rate seen to continue: only its far ends, from none of it to the most the data allow)"
        )
    }

    @Test("A group with no payers: realised 0, the days observed, no projection and why")
    func noPayers() throws {
        var group = ProjectionGroupInput(name: "control")
        group.appendMember(assignedAt: 0, events: [ProjectionEvent(time: hour, kind: .trialStart, product: 0, amount: 0)])
        group.appendMember(assignedAt: 10 * day, events: [])
        group.appendMember(assignedAt: 20 * day, events: [])
        let result = try project([group], asOf: 30 * day).groups[0]
        #expect(result.users == 3)
        #expect(result.realizedARPU == 0)
        #expect(result.observedDaysMean == 20)  // (30 + 20 + 10) / 3
        #expect(result.projectedARPU365 == nil)
        #expect(result.interval == nil)
        #expect(result.gap == .noPayers)
    }

    @Test("A group with no members: every value empty")
    func noMembers() throws {
        let result = try project([ProjectionGroupInput(name: "empty")], asOf: 30 * day).groups[0]
        #expect(result.users == 0)
        #expect(result.realizedARPU == nil)
        #expect(result.observedDaysMean == nil)
        #expect(result.projectedARPU365 == nil)
        #expect(result.gap == .noMembers)
    }

    @Test("An annual plan read on day 30: its renewal falls after day 365, so the year is what was paid, late buyers at the rate seen")
    func annualPlanOnDay30() throws {
        // 4 000 members assigned on day 0; 2 000 buy the yearly plan at 50 an hour later; nobody
        // else in 30 days. The renewal is due on day 365.25; 20 000 member-days without a late buyer
        // (days 20 … 29): the rate seen is 0, its draws (a Gamma(½) posterior) a few late buyers at most.
        var group = ProjectionGroupInput(name: "annual")
        for member in 0..<4000 {
            group.appendMember(assignedAt: 0, events: member < 2000 ? [purchase(hour, FixtureProduct.yearly, 50, member: member)] : [])
        }
        let result = try project([group], asOf: 30 * day).groups[0]
        #expect(result.realizedARPU == 25)
        #expect(result.observedDaysMean == 30)
        #expect(result.gap == nil)
        let projected = try #require(result.projectedARPU365)
        #expect(abs(projected - 25) < 1e-12)
        let interval = try #require(result.interval)
        #expect(abs(interval.low - 25) < 0.01)  // no late buyer, but for the members' own randomness around a draw
        #expect(interval.high > 25 && interval.high < 27.5)
        let bounds = try #require(result.bounds)
        #expect(abs(bounds.low - 25) < 1e-9)  // none of the unseen: what was paid
        #expect(bounds.high >= interval.high)
    }

    @Test("Four members read on day 30: no late buyer in 20 member-days is a rate seen of 0, its interval open to late buyers")
    func fewMembersCannotRuleOutLateBuyers() throws {
        var group = ProjectionGroupInput(name: "annual")
        for member in 0..<4 {
            group.appendMember(assignedAt: 0, events: member < 2 ? [purchase(hour, FixtureProduct.yearly, 50, member: member)] : [])
        }
        let result = try project([group], asOf: 30 * day).groups[0]
        #expect(result.realizedARPU == 25 && result.projectedARPU365 == 25 && result.gap == nil)
        // 20 member-days say little of the rate: its draws reach both others buying.
        let interval = try #require(result.interval)
        #expect(interval.high > 45)
        let bounds = try #require(result.bounds)
        #expect(abs(bounds.low - 25) < 1e-9)  // no late buyer: what was paid
        #expect(bounds.high > 45)
    }

    @Test("A monthly plan read on day 30: no renewal is due yet, so the value is empty and the far ends span 1 charge to the ceiling's 12")
    func monthlyPlanBeforeItsFirstRenewal() throws {
        var group = ProjectionGroupInput(name: "monthly")
        for member in 0..<2 {
            group.appendMember(assignedAt: 0, events: [purchase(hour, FixtureProduct.monthly, 10, member: member)])
        }
        let result = try project([group], asOf: 30 * day).groups[0]
        #expect(result.realizedARPU == 10)
        #expect(result.projectedARPU365 == nil)
        // Renewals due on days 30.4 … 334.8: 11, none observed.
        guard case .yearNotIdentified(let part) = try #require(result.gap) else {
            Issue.record("expected an unidentified year, got \(String(describing: result.gap))")
            return
        }
        #expect(part.product == FixtureProduct.monthly && part.renewalsIdentified == 0 && part.renewalsNeeded == 11)
        #expect(part.lastObservedDay == nil)  // nobody is left to convert
        #expect(result.interval == nil)  // no rate seen to continue
        let bounds = try #require(result.bounds)
        #expect(abs(bounds.low - 10) < 1e-9)  // none renews: the first charge only
        // Every renewal at the ceiling 0.98: 10 · Σ_{k<12} 0.98^k = 107.6 expected, the two chains' own randomness around it.
        #expect(bounds.high > 100)
    }

    /// 200 members assigned on day 0: 100 buy weekly at 10 an hour in; 50 renew on day 7, 25 of
    /// them on day 14.
    static func weeklyHalves() -> ProjectionGroupInput {
        var group = ProjectionGroupInput(name: "weekly")
        for member in 0..<200 {
            var events: [ProjectionEvent] = []
            if member < 100 { events.append(purchase(hour, FixtureProduct.weekly, 10, member: member)) }
            if member < 50 { events.append(renewal(7 * day + hour, FixtureProduct.weekly, 10, member: member)) }
            if member < 25 { events.append(renewal(14 * day + hour, FixtureProduct.weekly, 10, member: member)) }
            group.appendMember(assignedAt: 0, events: events)
        }
        return group
    }

    @Test("Weekly renewals 1/2 and 1/2 seen by day 15: fifty more continue at the rate seen, the far ends from none to the ceiling")
    func twoRenewalsDoNotDecideFifty() throws {
        // 200 members assigned on day 0, read on day 15. 100 buy weekly at 10 an hour in; 50 renew
        // on day 7, 25 of them on day 14. At the rate seen (1/2) each of the 25 running chains adds
        // 10 · Σ_{k≥1} 0.5^k ≈ 10 more: (1750 + 250) / 200 = 10. The far ends: nothing more (8.75
        // per user) or, at the ceiling, about 10 · Σ 0.98^k over 50 renewals each.
        let group = Self.weeklyHalves()
        let result = try project([group], asOf: 15 * day).groups[0]
        #expect(result.realizedARPU == 8.75)  // (1000 + 500 + 250) / 200
        #expect(result.observedDaysMean == 15)
        #expect(result.gap == nil)
        #expect(abs(try #require(result.projectedARPU365) - 10) < 1e-9)
        // The rate seen is 25 of 50: its draws and the chains' own randomness.
        let interval = try #require(result.interval)
        #expect(interval.low > 8.75 && interval.low < 10 && interval.high > 10 && interval.high < 20)
        let bounds = try #require(result.bounds)
        #expect(abs(bounds.low - 8.75) < 1e-9)
        #expect(bounds.high > 30)
    }

    @Test("A shorter horizon (the backtest's) counts and projects the charges before it alone")
    func aShorterHorizon() throws {
        // The weekly case above (200 members read on day 15, 100 bought 10 an hour in, 50 renewed
        // on day 7, 25 of them on day 14; no entry after day 0, a latest rate of 0) to other horizons:
        // 22 days: the 25 running chains' renewal 3 (due 21 days and an hour in) is the one charge
        // left, at the rate seen 1/2: (1750 + 25 · 0.5 · 10) / 200 = 9.375. 21 days: it falls after,
        // nothing is left: 8.75. 10 days: the day-14 renewals are after it, the year is
        // (1000 + 500) / 200 = 7.5, seen for 10 days a member.
        let projected = { (horizon: Double) in try Self.weeklyHalvesProjected(horizon: horizon) }
        #expect(abs(try #require(try projected(22).projectedARPU365) - 9.375) < 1e-9)
        #expect(try projected(21).projectedARPU365 == 8.75)
        let shorter = try projected(10)
        #expect(shorter.realizedARPU == 7.5 && shorter.projectedARPU365 == 7.5 && shorter.observedDaysMean == 10)
        #expect(throws: ProjectionInputError.horizonTooShort(0.5)) { try projected(0.5) }
    }

    /// `weeklyHalves` projected as of day 15 to `horizon` days, 400 draws from a fixed seed.
    static func weeklyHalvesProjected(horizon: Double, drawsFarEnds: Bool = true) throws -> GroupProjection {
        var generator = SplitMix64(state: 2026)
        return try projectOffering(
            groups: [weeklyHalves()], control: 0, products: FixtureProduct.all,
            configuration: ProjectionConfiguration(
                asOf: 15 * day, replicates: 400, horizonDays: horizon, drawsFarEnds: drawsFarEnds),
            using: &generator
        ).groups[0]
    }

    @Test("Without the far ends' draws (the backtest's): no bounds, the same value, an interval from the rates seen alone")
    func withoutFarEnds() throws {
        let full = try Self.weeklyHalvesProjected(horizon: 22)
        let seenOnly = try Self.weeklyHalvesProjected(horizon: 22, drawsFarEnds: false)
        #expect(full.bounds != nil && seenOnly.bounds == nil)
        #expect(seenOnly.projectedARPU365 == full.projectedARPU365)
        // The draws at the rates seen come first from the same seed: another stretch of it, an
        // interval of its own around the same value.
        let (interval, fullInterval) = (try #require(seenOnly.interval), try #require(full.interval))
        #expect(interval != fullInterval)
        #expect(interval.low < 9.375 && 9.375 < interval.high)
    }

    @Test("Refunds larger than their charges: the net goes below zero and the projection follows")
    func refundsLargerThanCharges() throws {
        // Two members buy the pass at 5; both are refunded 8. Nobody is left to convert.
        var group = ProjectionGroupInput(name: "refunded")
        for member in 0..<2 {
            group.appendMember(
                assignedAt: 0,
                events: [purchase(hour, FixtureProduct.pass, 5, member: member), refund(day, FixtureProduct.pass, 8, member: member)])
        }
        let result = try project([group], asOf: 30 * day).groups[0]
        #expect(result.realizedARPU == -3)
        #expect(result.projectedARPU365 == -3)
        #expect(result.interval == ConfidenceInterval(low: -3, high: -3))
    }

    @Test("A refund on or after day 365 does not reduce revenue_365; a charge after the horizon does not count")
    func horizonCutoffs() throws {
        var group = ProjectionGroupInput(name: "old")
        group.appendMember(
            assignedAt: 0,
            events: [
                purchase(hour, FixtureProduct.yearly, 40, member: 0), refund(365 * day, FixtureProduct.yearly, 40, member: 0),
                renewal(366 * day, FixtureProduct.yearly, 40, member: 0),
            ])
        let result = try project([group], asOf: 400 * day).groups[0]
        #expect(result.realizedARPU == 40)
        #expect(result.observedDaysMean == 365)
        #expect(result.projectedARPU365 == 40)
    }
}
