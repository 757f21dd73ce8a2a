import Foundation
import OfferLabStatistics
import Testing

@testable import OfferLabProjection

@Suite("Projection: the app's past")
struct ProjectionPastTests {
    /// A monthly period in µs, as the model reckons it.
    private let month = Int64(365.25 / 12 * 86_400_000_000.0)
    private let asOf = 40 * day

    /// 200 members assigned on day 0 buy the monthly plan (10) an hour in; 150 renew at day 30.4:
    /// read at day 40 the test has seen renewal 1 (0.75) and nothing after.
    private func members() -> ProjectionGroupInput {
        var group = ProjectionGroupInput(name: "monthly")
        for member in 0..<200 {
            var events = [purchase(hour, FixtureProduct.monthly, 10, member: member)]
            if member < 150 { events.append(renewal(hour + month, FixtureProduct.monthly, 10, member: member)) }
            group.appendMember(assignedAt: 0, events: events)
        }
        return group
    }

    /// Earlier buyers of the monthly plan: `chains` chains, a share `first` of them renewing once,
    /// then `later` of those left at each later renewal (whole chains), through renewal 12; those
    /// left after it are still running at `asOf`. Returns the past and the survivors S_0 … S_12.
    /// `turnedOffAtRenewal2` of the chains that lapsed at renewal 2 had turned it off after their
    /// second charge.
    private func past(
        chains: Int, first: Double, later: Double, products: [ProjectionProduct] = FixtureProduct.all, turnedOffAtRenewal2: Int = 0
    ) -> (past: [ProductPast], survivors: [Int]) {
        var survivors = [chains, Int((Double(chains) * first).rounded())]
        for _ in 2...12 { survivors.append(Int((Double(survivors.last!) * later).rounded())) }
        var builder = ProductPastBuilder(products: products, asOf: asOf)
        for charges in 1...12 {
            for chain in 0..<(survivors[charges - 1] - survivors[charges]) {
                builder.addChain(
                    product: FixtureProduct.monthly, chargeCount: charges, lastChargeTime: asOf - 400 * day, lastExpiresAt: nil,
                    lastChargeRefunded: false, turnedOffAfterCharge: charges == 2 && chain < turnedOffAtRenewal2 ? 0b10 : 0)
            }
        }
        for _ in 0..<survivors[12] {
            builder.addChain(
                product: FixtureProduct.monthly, chargeCount: 13, lastChargeTime: asOf - day, lastExpiresAt: nil, lastChargeRefunded: false,
                turnedOffAfterCharge: 0)
        }
        return (builder.past, survivors)
    }

    private func projectGroup(
        _ group: ProjectionGroupInput, past: [ProductPast], replicates: Int = 400, products: [ProjectionProduct] = FixtureProduct.all,
        asOf: Int64? = nil, growthDays: Int? = nil
    ) throws -> GroupProjection {
        var generator = SplitMix64(state: 2026)
        return try projectOffering(
            groups: [group], control: 0, products: products, past: past,
            configuration: ProjectionConfiguration(asOf: asOf ?? self.asOf, replicates: replicates, growthDays: growthDays),
            using: &generator
        ).groups[0]
    }

    @Test("A new monthly price borrows the monthly plan's past once its members have seen their first renewal, never before")
    func aNewPriceBorrowsItsBillingPeriodsPast() throws {
        // The fixture's products and a new monthly price (index 4) no earlier buyer bought.
        let newPrice = FixtureProduct.all.count
        let products = FixtureProduct.all + [ProjectionProduct(renewalPeriodDays: 365.25 / 12)]
        var group = ProjectionGroupInput(name: "new price")
        for member in 0..<200 {
            var events = [purchase(hour, newPrice, 10, member: member)]
            if member < 150 { events.append(renewal(hour + month, newPrice, 10, member: member)) }
            group.appendMember(assignedAt: 0, events: events)
        }
        let (pastCounts, survivors) = past(chains: 1000, first: 0.75, later: 0.9, products: products)
        #expect(pastCounts[newPrice] == ProductPast(), "no earlier buyer")
        // Day 40: renewal 1 seen at 0.75 as the monthly plan's past renewed: its renewals 2 … 11
        // at the past's rates, exactly the year of the monthly plan's own members
        // (`pastIdentifiesTheYear`).
        let borrowed = try projectGroup(group, past: pastCounts, products: products)
        let later = (2...11).reduce(0.0) { $0 + Double(survivors[$1]) / Double(survivors[1]) }
        #expect(abs(try #require(borrowed.projectedARPU365) - (3500 + 1500 * later) / 200) < 1e-9)
        #expect(
            borrowed.pastUses == [
                PastUse(
                    product: newPrice, firstRenewal: 2, lastRenewal: 11, chains: 1000, adjustment: nil,
                    borrowedFrom: [FixtureProduct.monthly])
            ])
        #expect(
            borrowed.pastUses.first?.description { ["weekly", "monthly_1999", "yearly", "pass", "monthly_2499"][$0] }
                == "monthly_2499 renewals 2–11 from 1000 earlier buyers of monthly_1999 (a new price takes its billing period's)")
        // Day 20: no renewal seen yet: nothing borrowed, the year has its far ends only.
        let early = try projectGroup(group, past: pastCounts, products: products, asOf: 20 * day)
        #expect(early.projectedARPU365 == nil && early.pastUses.isEmpty, "\(early)")
        // A decision date plans on the billing period's past from the start (contract §2.15, "Days
        // left are a plan"): on day 20 a newcomer's revenue by tenure is the monthly plan's past as
        // it is, 10 for each of the 12 charges due in a year times the share of earlier buyers
        // still renewing, and no floor; the year itself still waits for the first renewal.
        let planned = try projectGroup(group, past: pastCounts, products: products, asOf: 20 * day, growthDays: 365)
        let growth = try #require(planned.newcomerGrowth)
        let pastYear = (0...11).reduce(0.0) { $0 + 10 * Double(survivors[$1]) / Double(survivors[0]) }
        #expect(
            !growth.isFloor && abs(growth.moments(atTenure: 365).first - pastYear) < 1e-9, "\(growth.first.last ?? 0) against \(pastYear)")
        // By day 56 (every newcomer has bought; renewal 2 is due on day 61) one renewal, at 0.75.
        #expect(abs(growth.moments(atTenure: 56).first - 17.5) < 1e-6, "\(growth.moments(atTenure: 56))")
        #expect(planned.growthPast == [FixtureProduct.monthly] && planned.projectedARPU365 == nil, "\(planned)")
    }

    @Test("A chain on tonight renews at a renewal the past gives at the past's rate with its turned-off chains taken out")
    func aChainOnTakesThePastsTurnedOffChainsOut() throws {
        // Renewal 2 from the past: 675 of 750 renewed; 50 of the 75 that lapsed had turned it off
        // (none renewed), so a chain on renews at 675/700. The members' 150 running chains are on;
        // after renewal 2 they renew at the past's rates (S_j / S_2 through renewal 11).
        let (pastCounts, survivors) = past(chains: 1000, first: 0.75, later: 0.9, turnedOffAtRenewal2: 50)
        let rateOn = Double(survivors[2]) / Double(survivors[1] - 50)
        let later = (3...11).reduce(0.0) { $0 + Double(survivors[$1]) / Double(survivors[2]) }
        let projected = try #require(try projectGroup(members(), past: pastCounts).projectedARPU365)
        #expect(abs(projected - (3500 + 150 * rateOn * 10 * (1 + later)) / 200) < 1e-9)
        // Without the turned-off chains, renewal 2 at the past's 675/750.
        let plain = try #require(try projectGroup(members(), past: past(chains: 1000, first: 0.75, later: 0.9).past).projectedARPU365)
        #expect(abs(plain - (3500 + 150 * 0.9 * 10 * (1 + later)) / 200) < 1e-9)
    }

    private func fitted(_ group: ProjectionGroupInput, past: [ProductPast]) -> FittedGroup {
        let configuration = ProjectionConfiguration(asOf: asOf)
        let observation = GroupObservation(group, products: FixtureProduct.all, configuration: configuration)
        return FittedGroup(observation, products: FixtureProduct.all, past: past, alpha: configuration.alpha)
    }

    @Test("The past's chains are counted by the members' rule: renewals made, the next at risk once due, a refund ends the chain")
    func builderCountsByTheMembersRule() {
        var builder = ProductPastBuilder(products: FixtureProduct.all, asOf: 100 * day)
        // 3 charges, the last due (its expires_at) before as_of: renewals 1 and 2 made, 3 at risk and missed.
        builder.addChain(
            product: FixtureProduct.weekly, chargeCount: 3, lastChargeTime: 50 * day, lastExpiresAt: 57 * day, lastChargeRefunded: false,
            turnedOffAfterCharge: 0)
        // 2 charges, the last refunded: renewal 1 made; a refund ends the chain, renewal 2 is not at risk.
        builder.addChain(
            product: FixtureProduct.weekly, chargeCount: 2, lastChargeTime: 50 * day, lastExpiresAt: nil, lastChargeRefunded: true,
            turnedOffAfterCharge: 0)
        // 1 charge still running at as_of (charge time + 7 days after it): nothing at risk.
        builder.addChain(
            product: FixtureProduct.weekly, chargeCount: 1, lastChargeTime: 95 * day, lastExpiresAt: nil, lastChargeRefunded: false,
            turnedOffAfterCharge: 0)
        // A pass never renews and is no chain of the past.
        builder.addChain(
            product: FixtureProduct.pass, chargeCount: 1, lastChargeTime: 0, lastExpiresAt: nil, lastChargeRefunded: false,
            turnedOffAfterCharge: 0)
        let weekly = builder.past[FixtureProduct.weekly]
        #expect(weekly.chains == 3)
        #expect(weekly.renewals.atRisk == [0, 2, 1, 1])
        #expect(weekly.renewals.renewed == [0, 2, 1, 0])
        #expect(builder.past[FixtureProduct.pass] == ProductPast())
    }

    @Test("A product whose members saw renewal 1 and whose past saw renewals 1–12 takes the past's renewals, not the continuation")
    func pastIdentifiesTheYear() throws {
        let group = members()
        let (pastCounts, survivors) = past(chains: 1000, first: 0.75, later: 0.9)
        // Without a past the members' renewal 1 (0.75) is the rate seen, continued.
        let without = try projectGroup(group, past: [])
        let continued = (1...10).reduce(0.0) { sum, power in sum + pow(0.75, Double(power)) }
        #expect(abs(try #require(without.projectedARPU365) - (3500 + 1500 * continued) / 200) < 1e-9)

        let with = try projectGroup(group, past: pastCounts)
        // Realised: 200 purchases and 150 renewals of 10. Still to come: the 150 chains' renewals 2
        // … 11 (charge 12 is at day 335, the 13th after day 365), renewal k at Π_{j=2..k} S_j/S_{j−1}
        // = S_k/S_1 of them.
        let later = (2...11).reduce(0.0) { $0 + Double(survivors[$1]) / Double(survivors[1]) }
        let expected = (3500 + 1500 * later) / 200
        let value = try #require(with.projectedARPU365)
        #expect(abs(value - expected) < 1e-9)
        #expect(with.gap == nil)
        #expect(
            with.pastUses == [PastUse(product: FixtureProduct.monthly, firstRenewal: 2, lastRenewal: 11, chains: 1000, adjustment: nil)])
        #expect(with.pastMissing.isEmpty)
        // What the year rests on: 17.5 realised, the rest the past's renewals, nothing bounded.
        #expect(abs(try #require(with.observedShare) - 17.5 / expected) < 1e-12)
        #expect(abs(try #require(with.pastShare) - (1 - 17.5 / expected)) < 1e-12)
        #expect(try #require(with.boundedShare) == 0)
        let interval = try #require(with.interval)
        #expect(interval.low < value && value < interval.high)
    }

    @Test("A past unlike the members is detected at renewal 1 and scaled by members/past with its uncertainty")
    func pastUnlikeTheMembersIsAdjusted() throws {
        let group = members()
        // Earlier buyers renewed at 0.95 where the members renewed at 0.75: 150 of 200 against 190
        // expected, z = −40/√(200·0.95·0.05 + 200²·0.95·0.05/1000) ≈ −9.
        let (loyal, loyalSurvivors) = past(chains: 1000, first: 0.95, later: 0.9)
        let model = fitted(group, past: loyal)
        let plan = model.plans[FixtureProduct.monthly]
        let check = try #require(plan.pastCheck)
        #expect(check.overlap == 1 && check.observed == 150 && abs(check.expected - 190) < 1e-9)
        #expect(check.differs && check.z < -8)
        #expect(plan.identifiedThrough == 1 && plan.pastThrough == 12)
        let point = model.pointParameters(renewals: nil, conversions: nil).renewal[FixtureProduct.monthly]
        #expect(point[1] == 0.75)
        for index in 2...12 {
            let pastRate = Double(loyalSurvivors[index]) / Double(loyalSurvivors[index - 1])
            #expect(abs(point[index] - pastRate * 150 / 190) < 1e-12)
        }
        let projection = try projectGroup(group, past: loyal)
        let use = try #require(projection.pastUses.first)
        #expect(abs(try #require(use.adjustment) - 150.0 / 190.0) < 1e-12)

        // The scaled rate carries the members' uncertainty at renewal 1: its draws spread several
        // times as widely as those of a past that agrees (whose rate of renewal 2 is drawn from
        // 750 chains alone).
        let (agreeing, _) = past(chains: 1000, first: 0.75, later: 0.9)
        func spreadOfRenewal2(_ past: [ProductPast]) -> Double {
            let model = fitted(group, past: past)
            var generator: SplitMix64? = SplitMix64(state: 7)
            let draws = (0..<400).map { _ in
                model.parameters(renewals: nil, conversions: nil, generator: &generator).renewal[FixtureProduct.monthly][2]
            }
            let mean = draws.reduce(0, +) / Double(draws.count)
            return (draws.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(draws.count - 1)).squareRoot()
        }
        #expect(fitted(group, past: agreeing).plans[FixtureProduct.monthly].pastCheck?.differs == false)
        #expect(spreadOfRenewal2(loyal) > 2 * spreadOfRenewal2(agreeing))
    }

    @Test("Renewals the past does not identify either continue at the latest rate seen, and the group names them")
    func renewalsBeyondThePastStayBounded() throws {
        // 100 earlier chains halving at each renewal: 100, 50, 25 due at renewals 1, 2, 3, so the
        // past identifies renewals 1 and 2 only. The members (150 of 200 at renewal 1, against 100
        // expected at the past's 0.5) differ: renewal 2 takes the past's 0.5 scaled by 1.5.
        let (short, _) = past(chains: 100, first: 0.5, later: 0.5)
        let projection = try projectGroup(members(), past: short)
        // Renewals 3 … 11 continue at renewal 2's scaled 0.75, the last rate seen.
        let continued = (2...11).reduce(0.0) { sum, power in sum + pow(0.75, Double(power - 1)) }
        #expect(abs(try #require(projection.projectedARPU365) - (3500 + 1500 * continued) / 200) < 1e-9)
        #expect(projection.gap == nil && projection.interval != nil)
        #expect(
            projection.pastUses == [PastUse(product: FixtureProduct.monthly, firstRenewal: 2, lastRenewal: 2, chains: 100, adjustment: 1.5)]
        )
        #expect(projection.pastMissing == [PastMissing(product: FixtureProduct.monthly, renewal: 3, chains: 100, dueAtRenewal: 25)])
        #expect(
            projection.pastMissing[0].description { _ in "monthly" }
                == "monthly renewals from 3 on: 25 of 100 earlier buyers were due, too few (30); they continue at the latest renewals' rate seen"
        )
        #expect(
            projection.pastUses[0].description { _ in "monthly" }
                == "monthly renewal 2 from 100 earlier buyers (scaled by 1.5: the members renew unlike them at the renewals both saw)")
        #expect(try #require(projection.boundedShare) > 0.25)  // the far ends: renewals 3 to 11 from none to the ceiling
        // The year's parts add up to it: 3 500 charged, renewal 2 of the 150 running chains from the
        // past (0.75 · 1 500), renewals 3 to 11 continued at 0.75; none at the members' own rates.
        let year = 3500 + 1500 * continued
        #expect(abs(try #require(projection.observedShare) - 3500 / year) < 1e-9)
        #expect(abs(try #require(projection.pastShare) - 1500 * 0.75 / year) < 1e-9)
        #expect(abs(try #require(projection.continuedShare) - 1500 * (continued - 0.75) / year) < 1e-9)
        #expect(abs(try #require(projection.ownRatesShare)) < 1e-9)
        #expect(abs(try #require(projection.followOnShare)) < 1e-9)
    }

    @Test("Members who cannot be compared with the past yet: the year takes its rates as they are, the far ends leave it out")
    func uncomparedMembersDoWithoutThePast() throws {
        // Read at day 20: the 200 members' renewal 1 (day 30.4) is not yet due. Nothing says
        // whether they renew like the far more loyal earlier buyers: the year at the rates seen
        // takes the past as it is, the far ends are those without it.
        var group = ProjectionGroupInput(name: "monthly")
        for member in 0..<200 { group.appendMember(assignedAt: 0, events: [purchase(hour, FixtureProduct.monthly, 10, member: member)]) }
        let (loyal, survivors) = past(chains: 1000, first: 0.95, later: 0.95)
        func project(_ past: [ProductPast]) throws -> GroupProjection {
            var generator = SplitMix64(state: 2026)
            return try projectOffering(
                groups: [group], control: 0, products: FixtureProduct.all, past: past,
                configuration: ProjectionConfiguration(asOf: 20 * day, replicates: 400), using: &generator
            ).groups[0]
        }
        let withPast = try project(loyal)
        let without = try project([])
        // Each chain: its first charge, then renewals 1 … 11 as the past's survivors went.
        let renewals = (1...11).reduce(0.0) { $0 + Double(survivors[$1]) / Double(survivors[0]) }
        #expect(abs(try #require(withPast.projectedARPU365) - 10 * (1 + renewals)) < 1e-9)
        #expect(withPast.gap == nil && withPast.pastUses.isEmpty)
        #expect(withPast.bounds == without.bounds)
        // Without a past no rate of renewal is seen: far ends only.
        guard case .yearNotIdentified(let part) = without.gap else {
            Issue.record("without a past the year has no rate seen: \(String(describing: without.gap))")
            return
        }
        #expect(without.projectedARPU365 == nil && without.interval == nil)
        #expect(part.renewalsIdentified == 0 && part.pastAwaitingComparison == 0)
        #expect(
            withPast.pastMissing == [
                PastMissing(product: FixtureProduct.monthly, renewal: 1, chains: 1000, dueAtRenewal: 1000, membersDue: 0)
            ])
        #expect(
            withPast.pastMissing[0].description { _ in "monthly" }
                == "monthly renewals from 1 on: 0 members were due at renewal 1, too few (30) to compare them with 1000 earlier buyers; "
                + "they take the past's rates as they are")
        // Once 30 have been due the past is compared and taken (`pastIdentifiesTheYear`).
        #expect(fitted(members(), past: loyal).plans[FixtureProduct.monthly].pastThrough == 12)
    }

    @Test("A product without a past continues its members' own renewal rate, as without any past")
    func productWithoutPastStaysBounded() throws {
        let group = members()
        // A past of the weekly plan only: the monthly plan has none.
        var builder = ProductPastBuilder(products: FixtureProduct.all, asOf: asOf)
        for _ in 0..<500 {
            builder.addChain(
                product: FixtureProduct.weekly, chargeCount: 3, lastChargeTime: 0, lastExpiresAt: nil, lastChargeRefunded: false,
                turnedOffAfterCharge: 0)
        }
        let withOtherPast = try projectGroup(group, past: builder.past)
        let without = try projectGroup(group, past: [])
        #expect(withOtherPast.projectedARPU365 == without.projectedARPU365 && withOtherPast.pastUses.isEmpty)
        #expect(withOtherPast.pastMissing == [PastMissing(product: FixtureProduct.monthly, renewal: 2, chains: 0, dueAtRenewal: 0)])
        #expect(withOtherPast.interval == without.interval && withOtherPast.bounds == without.bounds && withOtherPast.gap == nil)
        #expect(try #require(withOtherPast.pastShare) == 0)
        #expect(try #require(withOtherPast.boundedShare) > 0.25)
    }

    @Test("A past not parallel to the products is refused")
    func pastMustBeParallel() {
        var generator = SplitMix64(state: 1)
        #expect(throws: ProjectionInputError.pastNotParallel(count: 1, products: 4)) {
            try projectOffering(
                groups: [members()], control: 0, products: FixtureProduct.all, past: [ProductPast()],
                configuration: ProjectionConfiguration(asOf: asOf), using: &generator)
        }
    }
}
