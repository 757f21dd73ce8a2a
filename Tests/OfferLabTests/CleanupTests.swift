import Testing

@testable import OfferLab
@testable import OfferLabAnalysis

@Suite struct CleanupTests {
    static let tables = TablesFixture(assignments: [
        ("u1", "1", "10", "2026-03-01 00:00:00"), ("u3", "1", "11", "2026-03-01 00:00:00"),
    ])

    /// docs/analysis.md §2: as_of first (no counter), then event_id duplicates, then (event, transaction_id)
    /// duplicates, earliest ts winning and file order breaking ties; then unknown types,
    /// sandbox and unassigned events, each counted after deduplication.
    @Test func duplicatesAreRemovedBeforeTheOtherCounters() async throws {
        let results = try await analyse(
            Self.tables,
            [
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-03T10:00:00Z", id: "a", transaction: "t1", product: "late", price: "10",
                    currency: "USD"),
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-03T09:00:00Z", id: "a", transaction: "t1", product: "weekly", price: "10",
                    currency: "USD"),
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-03T11:00:00Z", id: "b", transaction: "t1", product: "resent", price: "10",
                    currency: "USD"),
                logRecord("upgrade", user: "u1", ts: "2026-03-03T11:00:00Z", id: "c"),
                logRecord("upgrade", user: "u1", ts: "2026-03-03T11:00:00Z", id: "c"),
                logRecord(
                    "purchase", user: "u3", ts: "2026-03-03T11:00:00Z", transaction: "t9", product: "weekly", price: "3", currency: "USD",
                    sandbox: true),
                logRecord(
                    "renewal", user: "u3", ts: "2026-03-06T00:00:00Z", id: "t", transaction: "r1", product: "p1", price: "5",
                    currency: "EUR"),
                logRecord(
                    "renewal", user: "u3", ts: "2026-03-06T00:00:00Z", id: "t", transaction: "r2", product: "p2", price: "5",
                    currency: "EUR"),
                logRecord("paywall_view", user: "nobody", ts: "2026-03-06T00:00:00Z"),
                logRecord(
                    "purchase", user: "u1", ts: "2026-03-20T00:00:00Z", id: "a", transaction: "t7", product: "x", price: "1",
                    currency: "USD"),
            ])
        #expect(results.cleanup == CleanupCounters(duplicateEvents: 4, unknownEventTypes: 1, sandboxEvents: 1, unassignedEvents: 1))
        let test = results.offerings[0]
        #expect(test.products.map(\.productID) == ["weekly", "p1"])
        #expect(test.groups[0].purchases == 1)
        #expect(test.groups[0].netRevenue == 10)
        #expect(test.groups[1].renewals == 1)
        #expect(test.groups[1].netRevenue == 10)  // 5 EUR at 2
    }
}

/// Clean-up shares its passes among threads by runs of files: any number of threads gives the
/// same events and counters (here on the sample data set's 60 files).
@Suite struct ParallelCleanupTests {
    @Test(arguments: [2, 3, 7])
    func anyWidthGivesTheSameEvents(width: Int) async throws {
        let (population, store) = try await sampleEvents()
        var one = store
        var many = store
        let (oneEvents, oneCounters) = EventCleanup.run(store: &one, userCount: population.users.count, width: 1)
        let (manyEvents, manyCounters) = EventCleanup.run(store: &many, userCount: population.users.count, width: width)
        #expect(oneCounters == manyCounters)
        #expect(oneCounters.duplicateEvents > 0)
        #expect(oneEvents.userStart == manyEvents.userStart)
        #expect(oneEvents.events.count == manyEvents.events.count)
        #expect(zip(oneEvents.events, manyEvents.events).allSatisfy { $0 == $1 })
        #expect(oneEvents.details == manyEvents.details)
    }
}

/// How clean-up shares out its work changes nothing: many small partitions or a single one,
/// hashes so short that most ids that differ share one (told apart by their exact keys), blocks
/// of one user or of all.
@Suite struct CleanupTuningTests {
    @Test(arguments: [
        EventCleanup.Tuning(eventIDsPerPartition: 64, userBlocks: 1, hashMask: 0xFF),
        EventCleanup.Tuning(eventIDsPerPartition: 1 << 30, userBlocks: 1 << 30, hashMask: 0xFFFF),
    ])
    func anyTuningGivesTheSameEvents(tuning: EventCleanup.Tuning) async throws {
        let (population, store) = try await sampleEvents()
        var usual = store
        var tuned = store
        let (usualEvents, usualCounters) = EventCleanup.run(store: &usual, userCount: population.users.count, width: 1)
        let (tunedEvents, tunedCounters) = EventCleanup.run(store: &tuned, userCount: population.users.count, width: 2, tuning: tuning)
        #expect(usualCounters == tunedCounters)
        #expect(usualEvents.userStart == tunedEvents.userStart)
        #expect(usualEvents.events.count == tunedEvents.events.count)
        #expect(zip(usualEvents.events, tunedEvents.events).allSatisfy { $0 == $1 })
        #expect(usualEvents.details == tunedEvents.details)
    }
}
