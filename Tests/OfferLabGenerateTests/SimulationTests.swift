import OfferLabStatistics
import Testing

@testable import OfferLabGenerate

/// The behaviour built into the simulation, measured on the simulated events directly.
@Suite struct SimulationTests {
    struct GroupOutcome {
        var users = 0
        var buyers = 0
        var paid: Int64 = 0
        var rate: Double { Double(buyers) / Double(max(users, 1)) }
    }

    /// Users with at least one purchase, per spring group and per copy group (no file written).
    static func outcomes(users: Int, seed: UInt64) -> [String: GroupOutcome] {
        let configuration = GeneratorConfiguration(outputDirectory: "/unused", users: users, seed: seed)
        var simulator = UserSimulator(configuration: configuration)
        var outcomes: [String: GroupOutcome] = [:]
        for index in 0..<users {
            var random = SplitMix64(seed: seed, stream: UInt64(index))
            let user = UserProfile(index: index, configuration: configuration, random: &random)
            guard !user.isSandboxTester, !user.isLateArrival else { continue }
            simulator.simulate(user, random: &random)
            let bought = simulator.events.contains { $0.kind == .purchase && $0.delivery == .original }
            let paid = simulator.events.filter { $0.kind.isCharge && $0.delivery == .original && $0.currency == 0 }
                .reduce(Int64(0)) { $0 + $1.amount }
            for assignment in [user.spring, user.copy].compactMap({ $0 }) {
                let group = Catalog.groups[assignment.group]
                let key = Catalog.offerings[group.offering].offeringID + "/" + group.name
                outcomes[key, default: GroupOutcome()].users += 1
                if bought { outcomes[key, default: GroupOutcome()].buyers += 1 }
                outcomes[key, default: GroupOutcome()].paid += paid
            }
        }
        return outcomes
    }

    @Test func treatmentEffectsShowInConversion() {
        let outcomes = Self.outcomes(users: 60000, seed: 11)
        let control = outcomes["spring_2026_price_test/control"]?.rate ?? 0
        let higherPrice = outcomes["spring_2026_price_test/variant_a"]?.rate ?? 0
        let pass = outcomes["spring_2026_price_test/variant_b"]?.rate ?? 0
        #expect(control > 0.04 && control < 0.12)
        #expect(pass > control * 1.05)
        #expect(higherPrice < control * 0.95)
        let copyControl = outcomes["onboarding_copy_test/control"]?.rate ?? 0
        let socialProof = outcomes["onboarding_copy_test/social_proof"]?.rate ?? 0
        #expect(socialProof > copyControl)
    }

    @Test func eventsOfAUserAreOrderedAndChained() {
        let configuration = GeneratorConfiguration(outputDirectory: "/unused", users: 5000, seed: 4)
        var simulator = UserSimulator(configuration: configuration)
        var chains = 0
        for index in 0..<5000 {
            var random = SplitMix64(seed: 4, stream: UInt64(index))
            let user = UserProfile(index: index, configuration: configuration, random: &random)
            simulator.simulate(user, random: &random)
            let events = simulator.events
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
            #expect(events.allSatisfy { $0.time < configuration.horizonMicros })
            for event in events where event.kind == .renewal {
                // A renewal follows a purchase of the same chain and product.
                #expect(
                    events.contains {
                        $0.kind == .purchase && $0.original == event.original && $0.product == event.product && $0.time < event.time
                    })
                chains += 1
            }
            for event in events where event.kind == .purchase && Catalog.products[Int(event.product)].isOneTime {
                #expect(!events.contains { $0.kind == .renewal && $0.original == event.transaction && event.transaction != 0 })
            }
        }
        #expect(chains > 20)
    }

    @Test func quirkUsersAreChosenByIndex() {
        let configuration = GeneratorConfiguration(outputDirectory: "/unused", users: 2000, seed: 8)
        func profile(_ index: Int) -> UserProfile {
            var random = SplitMix64(seed: 8, stream: UInt64(index))
            return UserProfile(index: index, configuration: configuration, random: &random)
        }
        var id: [UInt8] = []
        profile(1007).appendID(to: &id)
        var partner: [UInt8] = []
        profile(1006).appendID(to: &partner)
        #expect(id == [48, 48] + partner)
        #expect(profile(11).secondSpringRow != nil)
        #expect(profile(23).isSandboxTester)
        #expect(profile(113).isLateArrival)
        #expect((profile(113).primary?.assignedAt ?? 0) >= configuration.asOfMicros)
        #expect(profile(3).duplicateRow != nil)
        #expect(profile(41).invalidRowKind == 0)
        #expect(profile(44).invalidRowKind == 3)
    }
}
