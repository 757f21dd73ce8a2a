import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabAnalysis
@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabTables

/// Event ids that are not UUIDs are keyed by a 64-bit hash of their text (`EventIDKey`): two
/// different ids that share a hash must stay two events. Here every such id gets the same hash
/// (`eventIDHashMask: 0`), so only the comparison of their texts can tell them apart.
@Suite struct EventIDCollisionTests {
    static let tables = TablesFixture(assignments: [("u1", "1", "10", "2026-03-01 00:00:00")])

    /// Two files of `paywall_view`s of one user, with the ids given, one event a minute.
    static let files: [[(id: String, ts: String)]] = [
        [("evt_1", "10:00"), ("evt_2", "10:01"), ("123", "10:02"), ("0123", "10:03")],
        // evt_1 again, earlier: it wins; 123 again; EVT_1 and evt_3 are other ids.
        [("evt_1", "09:00"), ("evt_3", "10:05"), ("123", "10:06"), ("EVT_1", "10:07")],
    ]

    /// The events clean-up keeps (their timestamps), its duplicate count, and whether every
    /// record's key was the same hash.
    static func cleanUp(eventIDHashMask: UInt64) throws -> (kept: [Int64], duplicates: Int, allKeysCollide: Bool) {
        let folder = try TemporaryFolder()
        let path = folder.file("tables.sqlite")
        try tables.write(to: path)
        let source = try TableSource(path: path)
        let catalog = try CatalogLoader.load(from: source)
        let asOf = try #require(UTCTime.parseAsOf("2026-03-20"))
        let population = try Population.load(from: source, catalog: catalog, asOf: asOf)
        var store = EventStore()
        for (index, file) in files.enumerated() {
            var batch = EventBatch(fileIndex: index, eventIDHashMask: eventIDHashMask)
            for event in file {
                let record = logRecord("paywall_view", user: "u1", ts: "2026-03-03T\(event.ts):00Z", id: event.id)
                withUnsafePointer(to: record) { batch.add($0, asOf: asOf) }
            }
            batch.resolveUsers(population.users)
            store.append(batch, keepRejects: 10)
        }
        let allKeysCollide = store.segments.allSatisfy { $0.records.allSatisfy { $0.eventIDHigh == 0 } }
        let (events, counters) = EventCleanup.run(store: &store, userCount: population.users.count)
        return (events.events.map(\.timestamp).sorted(), counters.duplicateEvents, allKeysCollide)
    }

    @Test func differentIdsWhoseHashesCollideStayApart() throws {
        let colliding = try Self.cleanUp(eventIDHashMask: 0)
        #expect(colliding.allKeysCollide)
        #expect(colliding.duplicates == 2)
        let minute: Int64 = 60_000_000
        let day = try #require(UTCTime.parseAsOf("2026-03-03T00:00:00Z"))
        // evt_1 at 09:00, evt_2, 123 at 10:02, 0123, evt_3, EVT_1.
        #expect(colliding.kept == [9 * 60, 10 * 60 + 1, 10 * 60 + 2, 10 * 60 + 3, 10 * 60 + 5, 10 * 60 + 7].map { day + $0 * minute })
        // The same as with the full hashes.
        let full = try Self.cleanUp(eventIDHashMask: .max)
        #expect(!full.allKeysCollide)
        #expect(full.kept == colliding.kept && full.duplicates == colliding.duplicates)
    }
}
