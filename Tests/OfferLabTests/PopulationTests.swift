import OfferLabIngest
import Testing
@testable import OfferLab

@Suite struct PopulationTests {
    /// §2.1: the earliest row of a group counts; different groups exclude the user; invalid rows
    /// are counted per named offering (unknown offering: globally); rows at or after as_of are ignored.
    @Test func assignmentRulesApplyInOrder() async throws {
        var tables = TablesFixture()
        tables.assignments = [
            ("u1", "1", "10", "2026-03-02 10:00:00"), ("u1", "1", "10", "2026-03-01 09:00:00"),
            ("u2", "1", "10", "2026-03-01 00:00:00"), ("u2", "1", "11", "2026-03-02 00:00:00"),
            ("u3", "1", "11", "2026-03-05 00:00:00"), ("00123", "1", "11", "2026-03-05 00:00:00"),
            ("u4", "1", "20", "2026-03-01 00:00:00"),  // group of another offering
            ("u5", "1", "99", "2026-03-01 00:00:00"),  // unknown group
            ("u6", "7", "10", "2026-03-01 00:00:00"),  // unknown offering: global
            ("u7", "1", "10", "not a date"),  // unreadable
            (nil, "1", "10", "2026-03-01 00:00:00"),  // NULL user
            ("", "1", "10", "2026-03-01 00:00:00"),  // empty user
            ("u8", "1", "10", "2026-03-25 00:00:00"),  // after as_of: ignored
            ("u9", "2", "20", "2026-03-20 00:00:00"),  // exactly as_of: ignored
        ]
        let results = try await analyse(
            tables,
            [
                logRecord("paywall_view", user: "123", ts: "2026-03-06T00:00:00Z"),  // "123" is not "00123"
                logRecord("paywall_view", user: "u8", ts: "2026-03-06T00:00:00Z"),
                logRecord("paywall_view", user: "u2", ts: "2026-03-06T00:00:00Z"),  // multi-group: not unassigned
                logRecord("paywall_view", user: "u1", ts: "2026-03-01T08:59:59Z"),  // before 09:00: pre-assignment
            ])
        let test = try #require(results.offerings.first)
        #expect(test.groups.map(\.users) == [1, 2])
        #expect(test.quality.multiGroupUsers == 1)
        #expect(test.quality.invalidAssignments == 5)
        #expect(test.quality.preAssignmentEvents == 1)
        #expect(results.globalInvalidAssignments == 1)
        #expect(results.cleanup.unassignedEvents == 2)
    }

    /// A user is in the group of their earliest row until a row naming another group appears.
    @Test func conflictingRowsRecordWhenTheUserBecameExcluded() throws {
        let tables = TablesFixture(assignments: [
            ("a", "1", "10", "2026-03-05 00:00:00"), ("a", "1", "11", "2026-03-07 00:00:00"), ("a", "1", "10", "2026-03-03 00:00:00"),
            ("b", "1", "11", "2026-03-07 00:00:00"), ("b", "1", "10", "2026-03-05 00:00:00"), ("b", "1", "11", "2026-03-02 00:00:00"),
            ("c", "1", "11", "2026-03-04 00:00:00"), ("c", "1", "11", "2026-03-01 00:00:00"),
        ])
        let folder = try TemporaryFolder()
        try tables.write(to: folder.file("t.sqlite"))
        let source = try TableSource(path: folder.file("t.sqlite"))
        let population = try Population.load(
            from: source, catalog: try CatalogLoader.load(from: source), asOf: try #require(UTCTime.parseAsOf("2026-03-20")))
        func describe(_ user: String) throws -> String {
            let index = try #require(population.users.lookup(user))
            let membership = try #require(population.membership(offering: 0, user: index))
            return "\(membership.group) \(Timestamp.format(membership.assignedAt)) "
                + (membership.conflictingSince.map { Timestamp.format($0) } ?? "-")
        }
        #expect(try describe("a") == "0 2026-03-03T00:00:00Z 2026-03-07T00:00:00Z")
        #expect(try describe("b") == "1 2026-03-02T00:00:00Z 2026-03-05T00:00:00Z")
        #expect(try describe("c") == "1 2026-03-01T00:00:00Z -")
        #expect(population.multiGroupUsers(offering: 0) == 2)
    }

    @Test func controlGroupFollowsJobThenNameThenLowestID() async throws {
        let tables = TablesFixture()
        #expect(try await analyse(tables, [], control: "variant").offerings[0].controlGroup == 1)
        #expect(try await analyse(tables, [], control: "nonexistent").offerings[0].controlGroup == 0)
        #expect(try await analyse(tables, [], offerings: ["other"]).offerings[0].controlGroup == 0)
        #expect(try await analyse(tables, [], offerings: ["other"], control: "b").offerings[0].controlGroup == 1)
    }

    @Test func everyGroupHasARowEvenWithoutUsers() async throws {
        let results = try await analyse(TablesFixture(), [])
        #expect(results.offerings[0].groups.count == 2)
        #expect(results.offerings[0].groups.allSatisfy { $0.users == 0 })
    }
}
