import Foundation
import OfferLabAnalysis
import OfferLabIngest
import OfferLabStatistics
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabResults
@testable import OfferLabSupport
@testable import OfferLabWriters

/// Slices (docs/analysis.md §7), hand-worked: which level a member gets, the ranking and `(other)`, and the
/// slice tables a run writes.
@Suite struct SliceTests {
    /// `control`: c1…c3, `variant`: v1…v3, all assigned 2026-03-01 09:00.
    static let tables = TablesFixture(
        assignments: ["c1", "c2", "c3"].map { ($0, "1", "10", "2026-03-01 09:00:00") }
            + ["v1", "v2", "v3"].map { ($0, "1", "11", "2026-03-01 09:00:00") })

    static func levels(_ results: NightResults, _ field: SliceField) -> [String: [Int]] {
        Dictionary(
            uniqueKeysWithValues: results.offerings[0].slices.filter { $0.field == field }.map { ($0.level, $0.groups.map(\.users)) })
    }

    @Test func aMembersLevelIsTheFieldOnTheirEarliestCountedEventThatCarriesIt() async throws {
        let events = [
            // c1: the first counted event has no country, the second has JP.
            logRecord("paywall_view", user: "c1", ts: "2026-03-02T00:00:00Z", platform: "ios"),
            logRecord("paywall_view", user: "c1", ts: "2026-03-02T01:00:00Z", country: "JP", platform: "android"),
            // c2: a pre-assignment event and a refund carry a country; neither counts; the cancel does.
            logRecord("paywall_view", user: "c2", ts: "2026-02-28T00:00:00Z", country: "US"),
            logRecord("refund", user: "c2", ts: "2026-03-02T00:00:00Z", transaction: "t0", product: "weekly", country: "FR"),
            logRecord("cancel", user: "c2", ts: "2026-03-03T00:00:00Z", country: "BR"),
            // v1: two events at the same time: the first in file order decides.
            logRecord("paywall_view", user: "v1", ts: "2026-03-02T00:00:00Z", country: "DE"),
            logRecord("paywall_view", user: "v1", ts: "2026-03-02T00:00:00Z", country: "AT"),
            // v2: a later event in file order, earlier in time, decides.
            logRecord("paywall_view", user: "v2", ts: "2026-03-04T00:00:00Z", country: "DE"),
            logRecord("paywall_view", user: "v2", ts: "2026-03-03T00:00:00Z", country: "JP"),
            // v3: only after the window of 7 days: (none).
            logRecord("paywall_view", user: "v3", ts: "2026-03-09T00:00:00Z", country: "JP"),
        ]
        let results = try await analyse(Self.tables, events, window: 7, slices: [.country, .platform])
        #expect(Self.levels(results, .country) == ["JP": [1, 1], "BR": [1, 0], "DE": [0, 1], "(none)": [1, 1]])
        #expect(Self.levels(results, .platform) == ["ios": [1, 0], "(none)": [2, 3]])
        // Ranked by users, ties by text; fields in the job's order.
        #expect(
            results.offerings[0].slices.map { "\($0.field.rawValue)=\($0.level)" } == [
                "country=(none)", "country=JP", "country=BR", "country=DE", "platform=(none)", "platform=ios",
            ])
    }

    @Test func levelsPastTheLimitAreMergedIntoOther() async throws {
        // 22 variant members: two in ZZ, one each in A01…A20; the limit keeps 20 levels.
        let names = (1...20).map { String(format: "A%02d", $0) }
        var assignments = [("c1", "1", "10", "2026-03-01 09:00:00")]
        var events = [
            logRecord(
                "purchase", user: "c1", ts: "2026-03-02T00:00:00Z", transaction: "tc", product: "weekly", price: "5", currency: "USD",
                country: "A20")
        ]
        for (index, name) in (names + ["ZZ", "ZZ"]).enumerated() {
            assignments.append(("v\(index)", "1", "11", "2026-03-01 09:00:00"))
            events.append(
                logRecord(
                    "purchase", user: "v\(index)", ts: "2026-03-02T00:00:00Z", transaction: "t\(index)", product: "weekly",
                    price: "\(index + 1)", currency: "USD", country: name))
        }
        let results = try await analyse(TablesFixture(assignments: assignments), events, slices: [.country])
        let slices = results.offerings[0].slices
        // ZZ (2 users), A20 (2 users), then A01… by text; A19 is the 21st level.
        #expect(slices.map(\.level) == ["A20", "ZZ"] + names.prefix(18) + ["(other)"])
        let other = try #require(slices.last)
        #expect(other.groups.map(\.users) == [0, 1])
        #expect(other.groups[1].netRevenue == 19)
        #expect(other.groups[1].converters == 1)
        // The levels add up to the offering.
        #expect(
            slices.reduce(0) { $0 + $1.groups[1].statistics.revenueSumSquares }
                == results.offerings[0].groups[1].statistics.revenueSumSquares)
    }

    @Test func aLevelWithoutControlUsersHasRowsButNoComparison() async throws {
        let events = [
            logRecord(
                "purchase", user: "c1", ts: "2026-03-02T00:00:00Z", transaction: "a", product: "weekly", price: "5", currency: "USD",
                country: "US"),
            logRecord("paywall_view", user: "v1", ts: "2026-03-02T00:00:00Z", country: "US"),
            logRecord(
                "purchase", user: "v2", ts: "2026-03-02T00:00:00Z", transaction: "b", product: "weekly", price: "5", currency: "USD",
                country: "JP"),
            logRecord("paywall_view", user: "v3", ts: "2026-03-02T00:00:00Z", country: "JP"),
        ]
        let job = try sliceJob()
        let results = try await analyse(Self.tables, events, slices: [.country])
        let tables = ResultTables.sliceTables(
            results.offerings,
            statistics: try await NightlyRun.statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run)))
        let summary = tables[0].rows.filter { $0[2] == .text("JP") }
        #expect(summary.map { [$0[3], $0[6]] } == [[.text("control"), .integer(0)], [.text("variant"), .integer(2)]])
        // conversion, arpu, proceeds_per_user, trial_completed_conversion, refund_user_rate.
        let comparisons = tables[1].rows.filter { $0[2] == .text("JP") }.prefix(2)
        #expect(tables[1].rows.filter { $0[2] == .text("JP") }.count == 5)
        // control_value, value, abs_lift: the control has no users.
        #expect(comparisons.map { Array($0[6...8]) } == [[.real(nil), .real(0.5), .real(nil)], [.real(nil), .real(2.5), .real(nil)]])
        // US: one user per group, the same values as `analyzeOffering` on the level's totals.
        let us = try #require(results.offerings[0].slices.first { $0.level == "US" })
        let direct = try analyzeOffering(
            [
                AnalysisGroup(name: "control", isControl: true, weight: 2, statistics: us.groups[0].statistics),
                AnalysisGroup(name: "variant", isControl: false, weight: 1, statistics: us.groups[1].statistics),
            ], alpha: 0.05, families: OfferingResult.ownFamilies(us.groups))
        #expect(
            tables[1].rows.filter { $0[2] == .text("US") }.map { Array($0[3...]) }
                == direct.comparisons.map { result in ComparisonValues.columns.map { $0.value(ComparisonValues(result)) } })
        let srm = try #require(tables[2].rows.first { $0[2] == .text("US") })
        #expect(srm[3] == .real(direct.sampleRatioMismatch?.chiSquared))
        // US: 1 and 1 users against weights 2:1: χ² = (1 − 4/3)²/(4/3) + (1 − 2/3)²/(2/3) = 0.25.
        #expect(abs((direct.sampleRatioMismatch?.chiSquared ?? 0) - 0.25) < 1e-12)
    }

    /// A job with the defaults, for building tables.
    private func sliceJob() throws -> Job {
        let night = try NightFixture()
        return try JobLoader.load(path: night.jobPath)
    }

    @Test func aRunWritesTheSliceFilesFromJSONAndCSVLogs() throws {
        let night = try NightFixture(
            events: [
                #"{"ts":"2026-03-02T10:00:00Z","user_id":"u1","event":"paywall_view","country":"C\u00f4te d\u2019Ivoire","platform":"ios"}"#,
                #"{"ts":"2026-03-02T10:00:00Z","user_id":"u3","event":"paywall_view","country":"Côte d’Ivoire","platform":null}"#,
                #"{"ts":"2026-03-02T10:00:00Z","user_id":"u4","event":"paywall_view","country":null,"platform":""}"#,
            ], job: ["slices": "[country, platform]", "offerings": "[test]"])
        try night.writeLog(
            "b.csv",
            [
                "ts,user_id,event,country,platform", "2026-03-03T10:00:00Z,u2,paywall_view,Côte d’Ivoire,android",
                "2026-03-03T11:00:00Z,u4,paywall_view,,ipad",
            ])
        let result = try night.run()
        #expect(result.status == 0, "\(result.standardError)")
        let summary = try night.csv("slice_summary")
        #expect(summary[0].prefix(6) == ["offering_id", "dimension", "level", "group", "is_control", "weight"])
        #expect(
            summary.dropFirst().filter { $0.count > 6 }.map { $0[1...3].joined(separator: "/") + "=" + $0[6] } == [
                "country/Côte d’Ivoire/control=2", "country/Côte d’Ivoire/variant=1", "country/(none)/control=0",
                "country/(none)/variant=1",
                // One user each: in byte order, `(` before letters.
                "platform/(none)/control=0", "platform/(none)/variant=1", "platform/android/control=1", "platform/android/variant=0",
                "platform/ios/control=1", "platform/ios/variant=0", "platform/ipad/control=0", "platform/ipad/variant=1",
            ])
        #expect(try night.csv("slice_comparisons")[0].prefix(5) == ["offering_id", "dimension", "level", "group", "control_group"])
        #expect(try night.csv("slice_srm").count == 7)
        let stored = try night.databaseRows()
        #expect(stored["slice_summary"]?.count == 12)
        // 6 levels × 5 metrics (conversion, arpu, proceeds_per_user, trial_completed_conversion, refund_user_rate).
        #expect(stored["slice_comparisons"]?.count == 30)
        #expect(stored["slice_srm"]?.count == 6)
    }

    /// The job's `max_slice_levels` reaches the run: with 1, the most common country is kept and
    /// the others are merged into `(other)` (with the default, all three are rows).
    @Test func aRunKeepsTheJobsNumberOfLevels() throws {
        let countries = [("u1", "US"), ("u2", "US"), ("u3", "JP"), ("u4", "DE")]
        let night = try NightFixture(
            events: countries.map { #"{"ts":"2026-03-02T10:00:00Z","user_id":"\#($0.0)","event":"paywall_view","country":"\#($0.1)"}"# },
            job: ["slices": "[country]", "offerings": "[test]"])
        func levels() throws -> Set<String> {
            let result = try night.run()
            #expect(result.status == 0, "\(result.standardError)")
            return Set(try night.csv("slice_summary").dropFirst().filter { $0.count > 2 }.map { $0[2] })
        }
        #expect(try levels() == ["US", "JP", "DE"])
        try night.writeJob(["max_slice_levels": "1"])
        #expect(try levels() == ["US", "(other)"])
    }

    @Test func aRunWithoutSlicesWritesNoSliceFiles() throws {
        let night = try NightFixture()
        #expect(try night.run().status == 0)
        #expect(!FileManager.default.fileExists(atPath: night.folder.file("out/2026-03-16/slice_summary.csv")))
    }

    @Test func theCacheKeepsEntriesApartWithAndWithoutSlices() throws {
        let night = try NightFixture(
            events: [#"{"ts":"2026-03-02T10:00:00Z","user_id":"u1","event":"paywall_view","country":"JP"}"#],
            job: ["cache": "cache/", "offerings": "[test]"])
        #expect(try night.run().status == 0)
        try night.writeJob(["slices": "[country]"])
        #expect(try night.run().status == 0)
        let summary = try night.csv("slice_summary").dropFirst().filter { $0.count > 6 }.map { $0[2] + "=" + $0[6] }
        #expect(summary == ["(none)=1", "(none)=2", "JP=1", "JP=0"])
        // The night again without slices: its slice rows go, as every row of a re-run night.
        try night.writeJob(["slices": "[]"])
        #expect(try night.run().status == 0)
        #expect(try night.databaseRows()["slice_summary"] == [])
        #expect(!FileManager.default.fileExists(atPath: night.folder.file("out/2026-03-16/slice_summary.csv")))
    }

    /// A field results cannot be sliced by, and a field named twice.
    @Test(arguments: ["[country, region]", "[country, country]"])
    func badSlicesAreABadJobFile(slices: String) throws {
        let night = try NightFixture(job: ["slices": slices])
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: night.jobPath) }
        #expect(error.code == .badJob && error.location == .init(path: night.jobPath, jobKey: "slices"), "\(error)")
    }

    @Test(arguments: ["0", "2.5", "-1", "many"])
    func maxSliceLevelsIsAWholeNumberOfAtLeastOne(value: String) throws {
        let night = try NightFixture(job: ["max_slice_levels": value])
        #expect(throws: OfferLabError.self) { try JobLoader.load(path: night.jobPath) }
    }

    @Test func sliceKeysHaveDefaults() throws {
        let night = try NightFixture()
        let job = try JobLoader.load(path: night.jobPath)
        #expect(job.analysis.slices.isEmpty)
        #expect(job.analysis.maxSliceLevels == 20)
        try night.writeJob(["slices": "platform", "max_slice_levels": "3"])
        let sliced = try JobLoader.load(path: night.jobPath)
        #expect(sliced.analysis.slices == [.platform])
        #expect(sliced.analysis.maxSliceLevels == 3)
    }
}
