import Testing

@testable import OfferLab
@testable import OfferLabAnalysis

/// One test per rule of clean-up (docs/analysis.md, "2. Events"): the rules alone, then each
/// rule through the whole clean-up, so that a broken rule names itself.
@Suite struct CleanupRulesTests {
    static let tables = TablesFixture(assignments: [
        ("u1", "1", "10", "2026-03-01 00:00:00"), ("u3", "1", "11", "2026-03-01 00:00:00"),
    ])

    @Test func theEarlierTimestampSurvivesAndATieKeepsTheFirstInFileOrder() {
        #expect(CleanupRules.laterCopySurvives(laterTimestamp: 1, earlierTimestamp: 2))
        #expect(!CleanupRules.laterCopySurvives(laterTimestamp: 2, earlierTimestamp: 1))
        #expect(!CleanupRules.laterCopySurvives(laterTimestamp: 2, earlierTimestamp: 2))
    }

    @Test func anUnknownTypeIsTriedBeforeSandboxAndSandboxBeforeUnassigned() {
        #expect(CleanupRules.drop(isKnownType: false, isSandbox: true, isAssigned: false) == .unknownEventType)
        #expect(CleanupRules.drop(isKnownType: true, isSandbox: true, isAssigned: false) == .sandbox)
        #expect(CleanupRules.drop(isKnownType: true, isSandbox: false, isAssigned: false) == .unassigned)
        #expect(CleanupRules.drop(isKnownType: true, isSandbox: false, isAssigned: true) == nil)
    }

    @Test func theSameEventIDTwiceKeepsTheEarlierCopyWhereverItIs() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-03T10:00:00Z", id: "a", transaction: "t1", product: "later", price: "10",
                    currency: "USD"),
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-03T09:00:00Z", id: "a", transaction: "t2", product: "earlier", price: "10",
                    currency: "USD"),
            ])
        #expect(results.cleanup.duplicateEvents == 1)
        #expect(results.offerings[0].products.map(\.productID) == ["earlier"])
    }

    @Test func aTieInTimeKeepsTheFirstCopyInFileOrder() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-03T10:00:00Z", id: "a", transaction: "t1", product: "first", price: "10",
                    currency: "USD"),
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-03T10:00:00Z", id: "a", transaction: "t2", product: "second", price: "10",
                    currency: "USD"),
            ])
        #expect(results.cleanup.duplicateEvents == 1)
        #expect(results.offerings[0].products.map(\.productID) == ["first"])
    }

    @Test func transactionDuplicatesAreRemovedForMoneyAndTrialEventsOnly() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-03T11:00:00Z", id: "b", transaction: "t1", product: "resent", price: "10",
                    currency: "USD"),
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-03T10:00:00Z", id: "a", transaction: "t1", product: "weekly", price: "10",
                    currency: "USD"),
                logRecord("trial_start", user: "u1", ts: "2026-03-02T10:00:00Z", id: "c", transaction: "t0", product: "weekly"),
                logRecord("trial_start", user: "u1", ts: "2026-03-02T11:00:00Z", id: "d", transaction: "t0", product: "weekly"),
                // The same transaction on a type that is not de-duplicated by it: both stay.
                logRecord("cancel", user: "u1", ts: "2026-03-04T10:00:00Z", id: "e", transaction: "t1"),
                logRecord("cancel", user: "u1", ts: "2026-03-04T11:00:00Z", id: "f", transaction: "t1"),
            ])
        #expect(results.cleanup.duplicateEvents == 2)
        #expect(results.offerings[0].products.map(\.productID) == ["weekly"])
        #expect(results.offerings[0].groups[0].purchases == 1)
    }

    @Test func aDuplicateCountsOnlyAsADuplicate() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord("upgrade", user: "u1", ts: "2026-03-03T11:00:00Z", id: "c"),
                logRecord("upgrade", user: "u1", ts: "2026-03-03T11:00:00Z", id: "c"),
                logRecord("paywall_view", user: "u1", ts: "2026-03-03T11:00:00Z", id: "s", sandbox: true),
                logRecord("paywall_view", user: "u1", ts: "2026-03-03T12:00:00Z", id: "s", sandbox: true),
            ])
        #expect(results.cleanup == CleanupCounters(duplicateEvents: 2, unknownEventTypes: 1, sandboxEvents: 1, unassignedEvents: 0))
    }

    @Test func eachDroppedEventCountsForItsFirstReasonOnly() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord("upgrade", user: "nobody", ts: "2026-03-03T11:00:00Z", sandbox: true),
                logRecord("paywall_view", user: "nobody", ts: "2026-03-03T11:00:00Z", sandbox: true),
                logRecord("paywall_view", user: "nobody", ts: "2026-03-03T11:00:00Z"),
                logRecord("paywall_view", user: "u3", ts: "2026-03-03T11:00:00Z"),
            ])
        #expect(results.cleanup == CleanupCounters(duplicateEvents: 0, unknownEventTypes: 1, sandboxEvents: 1, unassignedEvents: 1))
        #expect(results.offerings[0].groups[1].paywallViewers == 1)
    }

    @Test func eventsAtOrAfterAsOfAreDroppedUncounted() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-20T00:00:00Z", id: "x", transaction: "t7", product: "x", price: "1",
                    currency: "USD"),
                logRecord("upgrade", user: "nobody", ts: "2026-03-21T00:00:00Z", sandbox: true),
            ])
        #expect(results.cleanup == CleanupCounters())
        #expect(results.offerings[0].groups[0].purchases == 0)
    }
}
