import Foundation
import OfferLabStatistics
import Testing

@testable import OfferLabProjection

/// A running chain whose renewal was turned off (a `cancel` after its latest charge) renews at
/// the rate turned-off chains renewed at, not the product's (contract §2.14, "What a member's
/// state says"; docs/statistics.md point 7).
@Suite("Projection: a chain's state tonight")
struct ProjectionTurnedOffTests {
    /// 200 members assigned on day 0 buy the monthly plan at 10 an hour in; renewal 1 falls due on
    /// day 30.4. Members 0–99 turn renewal off on day 20 and 10 of them (0–9) renew all the same
    /// (turned back on); 90 of members 100–199 renew. Of the renewed, members 100–119 turn renewal
    /// off again on day 35. Read on day 40: renewal 2 is not due yet.
    private func group(cancels: Bool) -> ProjectionGroupInput {
        var group = ProjectionGroupInput(name: "monthly")
        let monthly = FixtureProduct.monthly
        func cancel(_ time: Int64, member: Int) -> ProjectionEvent {
            ProjectionEvent(time: time, kind: .cancel, product: monthly, chain: Int64(member), amount: 0)
        }
        for member in 0..<200 {
            var events = [purchase(hour, monthly, 10, member: member)]
            if cancels && member < 100 { events.append(cancel(20 * day, member: member)) }
            if member < 10 || (member >= 100 && member < 190) { events.append(renewal(30 * day + 12 * hour, monthly, 10, member: member)) }
            if cancels && member >= 100 && member < 120 { events.append(cancel(35 * day, member: member)) }
            group.appendMember(assignedAt: 0, events: events)
        }
        return group
    }

    @Test("Renewals due turned off are counted apart, and running chains by their state tonight")
    func turnedOffChainsAreCountedApart() {
        let observation = GroupObservation(
            group(cancels: true), products: FixtureProduct.all, configuration: ProjectionConfiguration(asOf: 40 * day))
        let product = observation.products[FixtureProduct.monthly]
        #expect(product.renewals.due(1) == 200 && product.renewals.renewals(1) == 100)
        #expect(product.turnedOffRenewals.due(1) == 100 && product.turnedOffRenewals.renewals(1) == 10)
        // Renewal 2 is due on day 60.9 for the 100 renewed: 20 of them turned off.
        #expect(product.pendingTurnedOff.values.reduce(0, +) == 20 && product.pendingChains.values.reduce(0, +) == 80)
        #expect(Set(product.pendingTurnedOff.keys.map { $0 >> 16 }) == [2])
    }

    @Test("A cancel at its renewal's very time turns the chain off after that renewal, in whatever order the two came")
    func aCancelAtItsRenewalsTimeComesAfterIt() {
        // 10 members renew at day 30.5 and turn renewal off at that same microsecond, the cancel
        // given first; read on day 40: renewal 1 was due on, renewal 2 is pending turned off.
        var group = ProjectionGroupInput(name: "monthly")
        let renewed = 30 * day + 12 * hour
        for member in 0..<10 {
            let cancel = ProjectionEvent(time: renewed, kind: .cancel, product: FixtureProduct.monthly, chain: Int64(member), amount: 0)
            group.appendMember(
                assignedAt: 0,
                events: [
                    purchase(hour, FixtureProduct.monthly, 10, member: member), cancel,
                    renewal(renewed, FixtureProduct.monthly, 10, member: member),
                ])
        }
        let product = GroupObservation(group, products: FixtureProduct.all, configuration: ProjectionConfiguration(asOf: 40 * day))
            .products[FixtureProduct.monthly]
        #expect(product.renewals.due(1) == 10 && product.turnedOffRenewals.due(1) == 0)
        #expect(product.pendingTurnedOff.values.reduce(0, +) == 10 && product.pendingChains.isEmpty)
    }

    @Test("A turned-off chain's next renewal at the turned-off rate (1/10), the later ones as any chain's (1/2)")
    func aTurnedOffChainRenewsAtItsStatesRate() throws {
        // Renewals 2 … 11 fall due before day 365 (10 charges). An on chain: Σ_{j=1..10} 10·0.5^j;
        // a turned-off one: 0.1·(10 + Σ_{j=1..9} 10·0.5^j). Observed: 300 charges of 10.
        let later = { (count: Int) -> Double in (1...count).reduce(0.0) { $0 + 10 * pow(0.5, Double($1)) } }
        let on = later(10)
        let off: Double = 0.1 * (10 + later(9))
        let withState = try #require(try project([group(cancels: true)], asOf: 40 * day).groups[0].projectedARPU365)
        #expect(abs(withState - (3000 + 80 * on + 20 * off) / 200) < 1e-9)
        // The same members without their cancels: every running chain at the product's rates.
        let without = try #require(try project([group(cancels: false)], asOf: 40 * day).groups[0].projectedARPU365)
        #expect(abs(without - (3000 + 100 * on) / 200) < 1e-9)
    }

    @Test("The past's chains count their renewals due turned off by the members' rule")
    func thePastCountsTurnedOffRenewals() {
        var builder = ProductPastBuilder(products: FixtureProduct.all, asOf: 100 * day)
        // Turned off after charge 1 and renewed (back on), then off after charge 3, due and missed.
        builder.addChain(
            product: FixtureProduct.weekly, chargeCount: 3, lastChargeTime: 50 * day, lastExpiresAt: 57 * day, lastChargeRefunded: false,
            turnedOffAfterCharge: 0b101)
        // Off after its second charge, due after as_of: turned off tonight, nothing due yet.
        builder.addChain(
            product: FixtureProduct.weekly, chargeCount: 2, lastChargeTime: 98 * day, lastExpiresAt: nil, lastChargeRefunded: false,
            turnedOffAfterCharge: 0b10)
        let weekly = builder.past[FixtureProduct.weekly]
        #expect(weekly.turnedOffRenewals.atRisk == [0, 1, 0, 1] && weekly.turnedOffRenewals.renewed == [0, 1, 0, 0])
        #expect(weekly.renewals.atRisk == [0, 2, 1, 1] && weekly.renewals.renewed == [0, 2, 1, 0])
    }

    @Test("Members with no turned-off renewal due of their own take the past's turned-off rate")
    func thePastsTurnedOffChainsGiveTheRate() throws {
        // 200 members buy the monthly plan; 100 renew at day 30.5, 20 of them turn renewal off on
        // day 35; no member's renewal has fallen due turned off. The past: 100 chains turned off
        // after their first charge, 5 of them renewed (back on) and then lapsed.
        var group = ProjectionGroupInput(name: "monthly")
        for member in 0..<200 {
            var events = [purchase(hour, FixtureProduct.monthly, 10, member: member)]
            if member < 100 { events.append(renewal(30 * day + 12 * hour, FixtureProduct.monthly, 10, member: member)) }
            if member < 20 {
                events.append(
                    ProjectionEvent(time: 35 * day, kind: .cancel, product: FixtureProduct.monthly, chain: Int64(member), amount: 0))
            }
            group.appendMember(assignedAt: 0, events: events)
        }
        var builder = ProductPastBuilder(products: FixtureProduct.all, asOf: 40 * day)
        for chain in 0..<100 {
            builder.addChain(
                product: FixtureProduct.monthly, chargeCount: chain < 5 ? 2 : 1, lastChargeTime: -200 * day, lastExpiresAt: nil,
                lastChargeRefunded: false, turnedOffAfterCharge: 1)
        }
        func projected(_ past: [ProductPast]) throws -> Double {
            var generator = SplitMix64(state: 2026)
            return try #require(
                try projectOffering(
                    groups: [group], control: 0, products: FixtureProduct.all, past: past,
                    configuration: ProjectionConfiguration(asOf: 40 * day, replicates: 400), using: &generator
                ).groups[0].projectedARPU365)
        }
        // Renewals 2 … 11 before day 365 at the members' 1/2 (the past identifies renewal 1 only,
        // which the members identify too); a turned-off chain's next at 5/100.
        let later = { (count: Int) -> Double in (1...count).reduce(0.0) { $0 + 10 * pow(0.5, Double($1)) } }
        #expect(abs(try projected(builder.past) - (3000 + 80 * later(10) + 20 * 0.05 * (10 + later(9))) / 200) < 1e-9)
        // Without the past, nothing says how a turned-off chain renews: as any chain.
        #expect(abs(try projected([]) - (3000 + 100 * later(10)) / 200) < 1e-9)
    }

    @Test("A cancel without a chain, or before its chain's first charge, changes nothing")
    func aCancelWithoutAChainChangesNothing() throws {
        var plain = ProjectionGroupInput(name: "monthly")
        var stray = ProjectionGroupInput(name: "monthly")
        for member in 0..<100 {
            let events = [purchase(hour, FixtureProduct.monthly, 10, member: member)]
            plain.appendMember(assignedAt: 0, events: events)
            let before = ProjectionEvent(time: hour / 2, kind: .cancel, product: FixtureProduct.monthly, chain: Int64(member), amount: 0)
            let otherChain = ProjectionEvent(time: day, kind: .cancel, product: FixtureProduct.monthly, chain: 99_999, amount: 0)
            stray.appendMember(assignedAt: 0, events: [before] + events + [otherChain])
        }
        #expect(try project([plain], asOf: 40 * day).groups == project([stray], asOf: 40 * day).groups)
    }
}
