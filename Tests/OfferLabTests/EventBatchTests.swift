import OfferLabIngest
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabSupport

/// A file's users, looked up in the population's as the file is read (a group at a time), or
/// interned on their own and resolved afterwards: the same records either way.
@Suite struct EventBatchTests {
    /// Users of 1 to 30 characters, 200 of them held by the population: more than three groups
    /// of lookups.
    static let population: ByteStringInterner = {
        var users = ByteStringInterner()
        for index in 0..<200 { _ = users.intern("user-\(String(repeating: "x", count: index % 25))\(index)") }
        return users
    }()

    /// The users of 500 events: runs of the same user (the previous event's, not looked up
    /// again), users coming back after others, users the population does not hold, alone and in
    /// runs, and a run that goes on across the end of a group of lookups.
    static let eventUsers: [String] = {
        var users: [String] = []
        var state: UInt64 = 7
        while users.count < 500 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let pick = Int(state >> 33)
            let user =
                pick % 9 == 0 ? "unknown-\(pick % 5)" : "user-\(String(repeating: "x", count: pick % 200 % 25))\(pick % 200)"
            users += Array(repeating: user, count: 1 + pick % 4)
        }
        return users
    }()

    static func batch(_ batch: EventBatch, adding users: [String]) -> EventBatch {
        var batch = batch
        for (index, user) in users.enumerated() {
            let record = logRecord("paywall_view", user: user, ts: "2026-03-0\(1 + index % 9)T10:00:00Z")
            withUnsafePointer(to: record) { batch.add($0, asOf: Int64.max) }
        }
        return batch
    }

    @Test func usersLookedUpAsTheFileIsReadAreTheUsersResolvedAfterIt() {
        var resolvedAfter = Self.batch(EventBatch(fileIndex: 0), adding: Self.eventUsers)
        resolvedAfter.resolveUsers(Self.population)
        var lookedUp = Self.batch(EventBatch(fileIndex: 0, lookingUpUsersIn: Self.population), adding: Self.eventUsers)
        #expect(lookedUp.looksUpUsers && !lookedUp.usersResolved)
        lookedUp.finishLookingUpUsers()
        #expect(lookedUp.usersResolved)
        #expect(lookedUp.users.fileUsers.count == 0)
        let expected = Self.eventUsers.map { Self.population.lookup($0) }
        #expect(resolvedAfter.records.map(\.user.populationIndex) == expected)
        #expect(lookedUp.records.map(\.user.populationIndex) == expected)
        #expect(lookedUp.records == resolvedAfter.records)
        // What the test relies on: a run that crosses a group's end, and both kinds of users.
        #expect(Set(expected).count > 3 * ByteStringInterner.LookupGroup.capacity / 2)
        #expect(expected.contains(nil))
    }

    /// A file with a single event, and one whose events all have the same user: the group is
    /// looked up when the file is done, never full.
    @Test func theLastUsersAreLookedUpWhenTheFileIsDone() {
        #expect(Self.population.lookup("user-xxxxxxx7") == 7 && Self.population.lookup("user-xxx28") == 28)
        for users in [["user-xxxxxxx7"], Array(repeating: "user-xxx28", count: 300), ["unknown"]] {
            var batch = Self.batch(EventBatch(fileIndex: 0, lookingUpUsersIn: Self.population), adding: users)
            batch.finishLookingUpUsers()
            #expect(batch.records.map(\.user.populationIndex) == users.map { Self.population.lookup($0) })
        }
    }
}
