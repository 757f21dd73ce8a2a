import Foundation
import Testing

/// The database keeps every night: re-running a night through the binary replaces exactly that
/// night (for the offerings it analyses) and leaves every other night alone.
@Suite struct NightHistoryTests {
    @Test func rerunningANightReplacesThatNightOnly() throws {
        let night = try NightFixture()
        for asOf in ["2026-03-15", "2026-03-16", "2026-03-17"] {
            let result = try night.run(["--as-of", asOf])
            try #require(result.status == 0, "\(result.standardError)")
        }
        let otherNights = "as_of <> '2026-03-16'"
        let before = try night.resultRows(where: otherNights)
        #expect(before["summary"]?.count == 8)

        // New events change the night of 2026-03-16 when it is run again.
        try night.writeLog(
            "b.jsonl.gz",
            [event("purchase", user: "u4", ts: "2026-03-15T12:00:00Z", product: "monthly", transaction: "t8", price: "19.99")])
        let rerun = try night.run(["--as-of", "2026-03-16"])
        #expect(rerun.status == 0, "\(rerun.standardError)")
        #expect(try night.resultRows(where: otherNights) == before)
        #expect(try night.databaseRows()["runs"]?.count == 4)

        // The night's rows are exactly those of a first run of that night on a fresh database.
        let fresh = night.folder.file("fresh.sqlite")
        #expect(try night.run(["--as-of", "2026-03-16", "--database", fresh]).status == 0)
        let thisNight = "as_of = '2026-03-16'"
        #expect(try night.resultRows(where: thisNight) == night.resultRows(where: thisNight, in: fresh))
        // … which hold the new purchase: the variant has 2 purchases now.
        let variant = try #require(night.csv("summary").first { $0.count > 13 && $0[1] == "variant" })
        #expect(variant[13] == "2")
    }

    @Test func rerunningOneOfferingLeavesTheOtherOfferingsOfTheNight() throws {
        let night = try NightFixture()
        #expect(try night.run().status == 0)
        let before = try night.resultRows(where: "offering_id = 'other'")
        try night.writeLog(
            "b.jsonl.gz", [event("purchase", user: "o2", ts: "2026-03-05T00:00:00Z", product: "weekly", transaction: "t7", price: "1")])
        try night.writeJob(["offerings": "[test]"])
        #expect(try night.run().status == 0)
        let after = try night.resultRows(where: "offering_id = 'other'")
        #expect(after == before)
        #expect(try night.csv("summary").dropFirst().allSatisfy { $0[0] == "test" })
    }
}
