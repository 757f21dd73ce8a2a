import Testing

@testable import OfferLabEvents
@testable import OfferLabSupport

/// `UserResolver` on its own: what a record's user holds before and after its batch's users are
/// resolved, either way of resolving them.
@Suite struct UserResolverTests {
    /// The population's users: `user-0` … `user-199`, at indices 0 … 199.
    static let population: ByteStringInterner = {
        var users = ByteStringInterner()
        for index in 0..<200 { _ = users.intern("user-\(index)") }
        return users
    }()

    static let groupCapacity = ByteStringInterner.LookupGroup.capacity

    /// Records of `users`, in order, whose users `resolver` gives, as `EventBatch.add` does.
    struct Records {
        var resolver: UserResolver
        var records: [EventRecord] = []

        mutating func add(_ users: [String]) {
            for user in users {
                var user = user
                user.withUTF8 { bytes in
                    let user = UnsafeRawBufferPointer(bytes)
                    let started = resolver.start(user, records: &records)
                    records.append(
                        EventRecord(timestamp: 0, eventIDHigh: 0, eventIDLow: 0, user: resolver.finish(user, started), shape: 0))
                }
            }
        }

        var populationIndices: [Int32?] { records.map(\.user.populationIndex) }
    }

    @Test func pendingUsersGetThePopulationsIndicesWhenTheirGroupIsLookedUp() {
        var made = Records(resolver: UserResolver(lookingUpIn: Self.population))
        // A full group of distinct users (two events for the first): none looked up yet.
        made.add(["user-5", "user-5"] + (1..<Self.groupCapacity).map { "user-\(100 + $0)" })
        #expect(made.records.count == Self.groupCapacity + 1)
        #expect(made.populationIndices.allSatisfy { $0 == nil })
        #expect(made.records.allSatisfy { $0.user != .unassigned })
        // One more user: the full group is looked up first, and its records hold the indices.
        made.add(["user-7"])
        let groupIndices: [Int32?] = [5, 5] + (1..<Self.groupCapacity).map { Int32(100 + $0) }
        #expect(made.populationIndices == groupIndices + [nil])
        #expect(!made.resolver.isResolved)
        made.resolver.finishLookingUp(&made.records)
        #expect(made.resolver.isResolved)
        #expect(made.populationIndices == groupIndices + [7])
    }

    /// A user the population does not hold is `unassigned`, in a group with users it holds and
    /// alone, looked up as the file is read or resolved after it.
    @Test func usersThePopulationDoesNotHoldAreUnassigned() {
        let users = ["user-3", "someone-else", "someone-else", "user-3", "user-199", "nobody"]
        let expected: [Int32?] = [3, nil, nil, 3, 199, nil]
        var lookedUp = Records(resolver: UserResolver(lookingUpIn: Self.population))
        lookedUp.add(users)
        lookedUp.resolver.finishLookingUp(&lookedUp.records)
        var resolvedAfter = Records(resolver: UserResolver())
        resolvedAfter.add(users)
        resolvedAfter.resolver.resolve(&resolvedAfter.records, in: Self.population)
        for made in [lookedUp, resolvedAfter] {
            #expect(made.populationIndices == expected)
            #expect(made.records.map { $0.user == .unassigned } == expected.map { $0 == nil })
        }
        var alone = Records(resolver: UserResolver(lookingUpIn: Self.population))
        alone.add(["nobody"])
        alone.resolver.finishLookingUp(&alone.records)
        #expect(alone.records.map(\.user) == [.unassigned])
    }

    /// Without a population to look users up in, a file's users are interned once each in its own
    /// table; its records claim no population user until `resolve` maps them, one lookup per
    /// distinct user, and drops the table.
    @Test func aFileReadWithoutLookingUpWaitsForResolve() {
        var made = Records(resolver: UserResolver(capacity: 16))
        let users = (0..<3 * Self.groupCapacity).map { "user-\($0 % 150)" } + ["nobody", "user-0"]
        made.add(users)
        #expect(!made.resolver.looksUp && !made.resolver.isResolved)
        #expect(made.resolver.fileUsers.count == 151)
        #expect(made.populationIndices.allSatisfy { $0 == nil })
        #expect(made.records.allSatisfy { $0.user != .unassigned })
        made.resolver.resolve(&made.records, in: Self.population)
        #expect(made.resolver.isResolved && made.resolver.fileUsers.count == 0)
        #expect(made.populationIndices == users.map { Self.population.lookup($0) })
        #expect(made.populationIndices.last == 0 && made.populationIndices[made.records.count - 2] == nil)
    }
}
