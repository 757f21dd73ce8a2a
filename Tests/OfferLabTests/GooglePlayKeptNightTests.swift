import Foundation
import OfferLabGenerate
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabTables

/// A job whose only store sources are Google Play's two feeds keeps its night resolved in the
/// cache (`KeptFeedsNight`, `GooglePlayKeptNight`): a later night joins its new files after the
/// kept ones and makes again only the groups of files whose events change. Every night's outputs
/// are those of the same night without the cache, byte for byte, and the plan (which groups are
/// read back, which made) is the one the rules of `GooglePlayKeptNight` give.
@Suite struct GooglePlayKeptNightTests {
    typealias Play = GooglePlayRunTests
    typealias Fixture = GooglePlayCacheTests.Fixture

    /// What the store reading of the night as of `day` does with each group of files, in file
    /// order: `kept` (its batch read back) or `made`; empty when the night is not kept.
    static func plan(_ fixture: Fixture, asOf day: Int) async throws -> [String] {
        try await plan(try fixture.job(asOf: day, cache: true, run: 0))
    }

    static func plan(_ job: Job) async throws -> [String] {
        let cache = try ParsedLogCache(folder: try #require(job.outputs.cachePath), rejectsPerReason: job.outputs.rejectsPerReason)
        let night = try await StoreSourceIngest.read(
            settings: StoreReadingSettings(job),
            userTransactions: try UserTransactions.load(from: TableSource(path: job.inputs.tablesPath, inflater: job.run.inflater)),
            cache: cache, keepsResolution: true)
        guard let kept = night.kept as? KeptFeedsNight else { return [] }
        return kept.fileOrder.map {
            switch kept.groups[$0].content {
            case .kept: "kept"
            case .made: "made"
            }
        }
    }

    /// Day 5 brings u1's late Order (its charge of day 2 repriced), u2's Order listed again with a
    /// partial refund and a voided purchase of u3's charge of day 2: the notifications of day 2
    /// are made again (u1's charge changes), the Orders of day 2 are read back (none of their
    /// refunds moves), and the files of day 5 are tonight's groups (in file order: notifications
    /// of days 2 and 5, Orders of days 2 and 5).
    @Test func aLaterNightMakesAgainOnlyTheGroupsItChanges() async throws {
        var fixture = try Fixture(apple: false)
        try fixture.firstDays()
        try await fixture.night(asOf: 4)
        #expect(try await Self.plan(fixture, asOf: 4) == ["kept", "kept"])

        try fixture.laterDays()
        let plan6 = try await Self.plan(fixture, asOf: 6)
        #expect(plan6 == ["made", "made", "kept", "made"])
        try await fixture.night(asOf: 6)
        let night6 = try fixture.summary(run: 2, asOf: 6)
        // u1's charge at its Order's 7.99, u3's 9.99 refunded by the voided purchase of day 5.
        #expect(try night6("control", "gross_revenue") == "17.98" && night6("control", "refunded_revenue") == "9.99")
        #expect(try night6("variant", "refunded_revenue") == "1")

        // The night again: every group read back. Then the earlier night again, after the later one.
        #expect(try await Self.plan(fixture, asOf: 6) == ["kept", "kept", "kept", "kept"])
        try await fixture.night(asOf: 6)
        try await fixture.night(asOf: 4)
    }

    /// A notification that gives a kept token another buyer changes records the kept files made
    /// (a cancel without a state takes its token's buyer): the night is read whole.
    @Test func aKeptTokenGivenAnotherBuyerReadsTheNightWhole() async throws {
        var fixture = try Fixture(apple: false)
        try fixture.firstDays()
        try await fixture.night(asOf: 4)
        try fixture.write(
            "play/notifications", day: 5,
            [
                Play.line(
                    Play.notification(2, token: "tA", at: KeptStoreNightTests.time(5)), messageID: "m9",
                    state: Play.state(user: "u3", orderID: "GPA.1..0", phase: "basePrice", start: "2026-03-02T10:00:00Z"))
            ])
        // Read whole: the whole night's groups, each made.
        #expect(try await Self.plan(fixture, asOf: 6) == ["made", "made"])
        try await fixture.night(asOf: 6)
    }

    /// A kept group's entry or a segment of the state damaged (the groups' two; the segments of
    /// notifications, tokens, charges, their chains and Order listings), or a kept file changed:
    /// the night is read whole, the same as without the cache.
    @Test(arguments: [(ParsedLogCache.keptFeedsGroupMagic, 2), (ParsedLogCache.keptFeedsSegmentMagic, 5)])
    func aDamagedEntryOrAChangedFileReadsTheNightWhole(magic: [UInt8], entries: Int) async throws {
        var fixture = try Fixture(apple: false)
        try fixture.firstDays()
        try await fixture.night(asOf: 4)
        #expect(try fixture.damageEntries(startingWith: magic) == entries)
        try fixture.laterDays()
        #expect(try await Self.plan(fixture, asOf: 6) == ["made", "made"])
        try await fixture.night(asOf: 6)

        try fixture.write(
            "play/orders", day: 2,
            [
                Play.order("GPA.2", total: "9.99", revenue: "8.00", created: "2026-03-02T10:00:01Z"),
                Play.order("GPA.3", total: "9.99", revenue: "7.00", created: "2026-03-02T10:00:01Z"),
            ])
        #expect(try await Self.plan(fixture, asOf: 6) == ["made", "made"])
        try await fixture.night(asOf: 6)
    }

    /// A generated Android app (`--play-users all`: grace periods, holds, recoveries, plan
    /// changes, late Orders, partial refunds, test purchases) fed to the cache five days at a
    /// time: every night is the night without the cache, and the later nights read groups back.
    @Test func aGeneratedMonthFedDayByDay() async throws {
        let generated = try TemporaryFolder()
        let report = try await DataSetGenerator.generate(
            GeneratorConfiguration(
                outputDirectory: generated.path, users: 600, seed: 3, days: 30, jobs: 1,
                shape: DataSetShape(playUsers: .all, sourceFormat: .googlePlay)))
        let fed = try TemporaryFolder()
        let files = FileManager.default
        for folder in ["tables", "logs", "showcase"] {
            try files.copyItem(atPath: generated.file(folder), toPath: fed.file(folder))
        }
        let job = try String(contentsOfFile: report.jobFile, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("as_of") && !$0.hasPrefix("output") && !$0.hasPrefix("database") }.joined(separator: "\n")
        try fed.write("job.yaml", job + "\noutput: out/\ndatabase: out/results.sqlite\ncache: cache/\n")
        var keptGroups = 0
        for day in stride(from: 4, through: 31, by: 5) {
            for feed in ["notifications", "orders"] {
                for fedDay in day - 5..<day {
                    let source = generated.file(String(format: "googleplay/\(feed)/2026/03/%02d", fedDay))
                    guard files.fileExists(atPath: source) else { continue }
                    let target = fed.file(String(format: "googleplay/\(feed)/2026/03/%02d", fedDay))
                    try files.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try files.copyItem(atPath: source, toPath: target)
                }
            }
            let plan = try await Self.plan(try fed.job(asOf: day, cache: true, run: 0))
            #expect(!plan.isEmpty)
            keptGroups += plan.count(where: { $0 == "kept" })
            let cached = try await NightlyRun.run(try fed.job(asOf: day, cache: true, run: day))
            let fresh = try await NightlyRun.run(try fed.job(asOf: day, cache: false, run: day))
            let names = try files.contentsOfDirectory(atPath: cached.outputFolder).filter { $0.hasSuffix(".csv") }.sorted()
            #expect(names.count > 10)
            for name in names {
                #expect(
                    try fileBytes(cached.outputFolder + "/" + name) == (try fileBytes(fresh.outputFolder + "/" + name)),
                    "day \(day) \(name)")
            }
        }
        #expect(keptGroups > 10)
    }
}
