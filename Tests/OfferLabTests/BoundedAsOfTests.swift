import Foundation
import Testing

/// Work bounded by the data, never by the calendar (docs/reliability.md, A broken night): an as_of
/// typo fails fast with the key that allows it; allowed, a far as_of costs what its days cost.
@Suite struct BoundedAsOfTests {
    @Test func anAsOfLongAfterTheLatestEventFailsNamingTheKey() throws {
        // The standard events end on 2026-03-04T10:00; 2026-04-05 is 31.6 days later.
        let night = try NightFixture(job: ["as_of": "2026-04-05T00:00:00Z"])
        let run = try night.run()
        #expect(run.status == 65, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "as_of 2026-04-05T00:00:00Z is 31.5 days after the latest event read (2026-03-04T10:00:00Z), more than "
                    + "max_days_after_last_event 31; a larger max_days_after_last_event allows it"), "\(run.standardError)")
        #expect(run.standardError.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: night.folder.file("out/2026-04-05")))

        try night.writeJob(["max_days_after_last_event": "40"])
        let allowed = try night.run()
        #expect(allowed.status == 0, "\(allowed.standardError)")
    }

    /// An `as_of` before the test's first member is named as that, with its key, not as a gap
    /// after the logs' latest event before it (here a stray line of the year before). An invalid
    /// row (a zero date, as the sample's table has) is no member.
    @Test func anAsOfBeforeEveryMemberIsNamedAsSuch() throws {
        let stray = event("paywall_view", user: "u9", ts: "2025-01-10T00:00:00Z")
        let tables = TablesFixture(assignments: NightFixture.standardTables.assignments + [("u5", "1", "10", "0000-00-00 00:00:00")])
        let night = try NightFixture(tables: tables, events: NightFixture.standardEvents + [stray], job: ["as_of": "2026-02-20T00:00:00Z"])
        let run = try night.run()
        #expect(run.status == 65 && run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "as_of 2026-02-20T00:00:00Z is before the first member of every offering (test, other): no valid assignment row is "
                    + "before it, so no test had begun"), "\(run.standardError)")
        #expect(!run.standardError.contains("max_days_after_last_event"))
        // Once the test has begun, a long gap back to the latest event is max_days_after_last_event's.
        try night.writeJob(["as_of": "2026-03-02T00:00:00Z", "max_days_after_last_event": "500"])
        #expect(try night.run().status == 0)
        try night.writeJob(["max_days_after_last_event": "31"])
        #expect(try night.run().standardError.contains("more than max_days_after_last_event 31"))
    }

    @Test func anAsOfInTheFutureFailsUnlessAllowed() throws {
        let night = try NightFixture(job: ["as_of": "2099-01-01T00:00:00Z", "max_days_after_last_event": "100000"])
        let run = try night.run()
        #expect(run.status == 65, "\(run.standardError)")
        #expect(run.standardError.contains("as_of 2099-01-01T00:00:00Z is more than a day after the current time"))
        #expect(run.standardError.contains("allow_future_as_of: true allows it"))
    }

    @Test func tenYearsOutWithTheKeysSetRunsInBoundedWork() throws {
        // Ten years after the events, allowed: daily.csv holds a row per day and group, no more.
        let night = try NightFixture(job: [
            "as_of": "2036-03-16T00:00:00Z", "allow_future_as_of": "true", "max_days_after_last_event": "4000",
        ])
        let run = try night.run()
        #expect(run.status == 0, "\(run.standardError)")
        let daily = try night.csv("daily", night: "2036-03-16")
        // Assigned on 2026-03-01: 3 668 days to 2036-03-16, for four groups in two offerings.
        #expect(daily.count - 1 == 3668 * 4, "\(daily.count)")
    }
}
