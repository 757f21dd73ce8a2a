import Foundation
import OfferLabAnalysis
import OfferLabGenerate
import OfferLabProjection
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabResults
@testable import OfferLabSupport
@testable import OfferLabTables
@testable import OfferLabWarehouse
@testable import OfferLabWriters

/// The night's own parts (contract §3.3, docs/warehouse.md "The night's parts"): `run`'s layer
/// written as parts and read back is the same layer, and a part that is not this night's, or that
/// a statistic cannot hold, is refused naming its file and line.
@Suite struct NightPartsTests {
    /// A generated month with the app's past (trials, a pass, refunds, renewals), as `run` computes it.
    static func generatedNight() async throws -> (folder: TemporaryFolder, job: Job, results: NightResults) {
        let folder = try TemporaryFolder()
        let report = try await DataSetGenerator.generate(
            GeneratorConfiguration(outputDirectory: folder.path, users: 3000, seed: 5, days: 30))
        let jobText = try String(contentsOfFile: report.jobFile, encoding: .utf8)
        try (jobText + "history_logs: [\"history/*/*/*.jsonl.gz\"]\n").write(toFile: report.jobFile, atomically: true, encoding: .utf8)
        let job = try JobLoader.load(path: report.jobFile)
        return (folder, job, try await NightlyRun.compute(job, progress: nil))
    }

    /// Writes every night part of `results` into `folder` and reads them back into a copy of
    /// `results` whose parts' values were cleared.
    static func roundTrip(_ results: [OfferingResult], job: Job, folder: String) throws -> [OfferingResult] {
        let identity = try NightPartsIdentity(job: job)
        var rows: [NightPart: [NightPartRow]] = [:]
        var paths: [NightPart: String] = [:]
        for part in NightParts.parts(of: job) {
            let path = (folder as NSString).appendingPathComponent("\(part.rawValue).csv")
            try NightParts.csv(NightParts.rows(of: results, part: part), identity: identity).write(
                toFile: path, atomically: true, encoding: .utf8)
            rows[part] = try NightParts.read(part, path: path, identity: identity)
            paths[part] = path
        }
        var cleared = results
        for index in cleared.indices {
            cleared[index].projection = nil
            cleared[index].assignments = nil
            cleared[index].revenueByTenure = []
            cleared[index].daily = []
        }
        let catalog = try CatalogLoader.load(from: TableSource(path: job.inputs.tablesPath))
        try NightParts.apply(
            rows, paths: paths, to: &cleared, catalog: ProjectionCatalog(catalog), asOf: job.run.night.microseconds,
            windowMicroseconds: job.analysis.conversionWindowDays.map(AttributionRules.windowMicroseconds(days:)))
        return cleared
    }

    @Test func runsLayerReadsBackTheSame() async throws {
        let (folder, job, results) = try await Self.generatedNight()
        let read = try Self.roundTrip(results.offerings, job: job, folder: folder.path)
        for (original, back) in zip(results.offerings, read) {
            let (before, after) = (try #require(original.projection), try #require(back.projection))
            #expect(before.groups.map(\.users).reduce(0, +) > 1000)
            #expect(after.groups == before.groups)
            #expect(after.products == before.products)
            #expect(after.productIDs == before.productIDs)
            #expect(after.renewalsWithoutPeriod == before.renewalsWithoutPeriod)
            #expect(after.past == before.past)
            #expect(before.past.contains { $0.chains > 0 })
            #expect(back.assignments == original.assignments)
            #expect(back.revenueByTenure == original.revenueByTenure)
            #expect(back.daily == original.daily)
            #expect(!original.daily.isEmpty)
        }
    }

    /// Every kind of statistic has rows: a part that left one out would read back as zeros.
    @Test func everyStatisticHasRowsOnAGeneratedNight() async throws {
        let (_, _, results) = try await Self.generatedNight()
        let written = Set(NightParts.rows(of: results.offerings, part: .observations).map(\.statistic))
        let missing = ObservationStatistic.allCases.filter { $0 != .chains && !written.contains($0.rawValue) }.map(\.rawValue)
        // A generated night has no trial without an end and no cancel before a renewal is due.
        #expect(
            Set(missing).isSubset(of: ["open_trials_without_end", "turned_off_due", "turned_off_renewed", "pending_turned_off"]),
            "\(missing)")
    }

    /// `night` of another as_of, version or job; a NULL value; a count that is not whole; an
    /// unknown statistic, group or product: each refused naming the file and the line.
    @Test(
        arguments: [
            ("2026-01-01T00:00:00Z parts-1 JOB,o,c,users,,,,,,10", "was computed for as_of 2026-01-01T00:00:00Z", "line 2"),
            ("AS_OF parts-0 JOB,o,c,users,,,,,,10", "is of version parts-0", "line 2"),
            ("AS_OF parts-1 job-0000000000000000,o,c,users,,,,,,10", "was computed for another job file", "line 2"),
            ("AS_OF parts-1 JOB,o,c,users,,,,,,", "value is empty (NULL)", "line 2"),
            ("AS_OF parts-1 JOB,o,c,users,,,-1,,,3", "key_1 '-1' is not a whole number", "line 2"),
        ])
    func aRowOfAnotherNightOrANullIsRefused(row: String, problem: String, line: String) throws {
        let folder = try TemporaryFolder()
        let jobPath = folder.file("job.yaml")
        try "tables: t\nlogs: [l]\nas_of: 2026-03-01\n".write(toFile: jobPath, atomically: true, encoding: .utf8)
        let identity = NightPartsIdentity(
            asOf: "2026-03-01T00:00:00Z", version: NightPart.version, job: try NightPartsIdentity.fingerprint(ofJobFile: jobPath))
        let path = folder.file("observations.csv")
        let text = row.replacingOccurrences(of: "AS_OF", with: identity.asOf).replacingOccurrences(of: "JOB", with: identity.job)
        try (NightPart.columns.joined(separator: ",") + "\n" + text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let error = try #require(throws: OfferLabError.self) { try NightParts.read(.observations, path: path, identity: identity) }
        #expect(error.exitCode == 65)
        #expect(error.message.contains(problem), "\(error.message)")
        #expect(error.message.contains("observations.csv \(line)"), "\(error.message)")
    }

    /// Rows the layer cannot hold: refused naming the line, never read as something else.
    @Test(
        arguments: [
            ("GROUP,users,,,,,,2.5", "is not a count"),
            ("GROUP,no_such_statistic,,,,,,1", "statistic no_such_statistic is not one of the observation's"),
            ("nobody,users,,,,,,1", "group nobody is not a group of"),
            ("GROUP,first_purchases,no_such_product,,,,,1", "product no_such_product is not in the catalog"),
            ("GROUP,at_risk_by_day,,,400,,,1", "key 400 is not below 365"),
            ("GROUP,renewals_renewed,PRODUCT,,1,,,5", "more renewed than due at renewal 1"),
            (",users,,,,,,1", "is not an offering's"),
        ])
    func aRowTheObservationCannotHoldIsRefused(row: String, problem: String) async throws {
        let (folder, job, results) = try await Self.generatedNight()
        let offering = try #require(results.offerings.first)
        let identity = try NightPartsIdentity(job: job)
        let product = try #require(offering.projection?.productIDs.first)
        let text = row.replacingOccurrences(of: "GROUP", with: offering.offering.groups[0].name).replacingOccurrences(
            of: "PRODUCT", with: product)
        let path = folder.file("observations.csv")
        try (NightPart.columns.joined(separator: ",") + "\n\(identity.text),\(offering.offering.offeringID),\(text)\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        var cleared = results.offerings
        let catalog = try CatalogLoader.load(from: TableSource(path: job.inputs.tablesPath))
        let error = try #require(throws: OfferLabError.self) {
            try NightParts.apply(
                [.observations: try NightParts.read(.observations, path: path, identity: identity)], paths: [.observations: path],
                to: &cleared, catalog: ProjectionCatalog(catalog), asOf: job.run.night.microseconds, windowMicroseconds: nil)
        }
        #expect(error.exitCode == 65)
        #expect(error.message.contains(problem), "\(error.message)")
        #expect(error.message.contains("observations.csv line 2"), "\(error.message)")
    }

    /// `job` with its output and database in `folder`'s `name`.
    static func job(_ job: Job, writingTo name: String, in folder: TemporaryFolder) -> Job {
        var job = job
        job.outputs.outputPath = folder.file(name)
        job.outputs.databasePath = folder.file("\(name)/results.sqlite")
        job.outputs.cachePath = nil
        return job
    }

    /// The whole night from its parts (contract §3.3): every file `run` writes but the rejects,
    /// byte for byte, and `status` reading the same lines from the database.
    @Test func theWholeNightFromItsPartsIsRunsNight() async throws {
        let (folder, job, _) = try await Self.generatedNight()
        let parts = folder.file("parts")
        let byRun = Self.job(job, writingTo: "run", in: folder)
        let fromParts = Self.job(job, writingTo: "stats", in: folder)
        let runReport = try await NightlyRun.run(byRun, parts: parts)
        let partsReport = try await PartsNight.run(fromParts, parts: parts)
        #expect(partsReport.decisions == runReport.decisions)
        #expect(!runReport.decisions.isEmpty)
        #expect(partsReport.alerts == runReport.alerts)
        let runFiles = try FileManager.default.contentsOfDirectory(atPath: runReport.outputFolder).sorted()
        let partsFiles = try FileManager.default.contentsOfDirectory(atPath: partsReport.outputFolder).sorted()
        #expect(partsFiles == runFiles)
        #expect(runFiles.contains("backtest.csv"))
        for file in partsFiles where file.hasSuffix(".csv") && file != "rejects.csv" {
            let expected = try String(contentsOfFile: (runReport.outputFolder as NSString).appendingPathComponent(file), encoding: .utf8)
            let actual = try String(contentsOfFile: (partsReport.outputFolder as NSString).appendingPathComponent(file), encoding: .utf8)
            #expect(actual == expected, "\(file)")
        }
        for reader in [NightStatus.Reader.person, .program] {
            let expected = try NightStatus.rows(databasePath: byRun.outputs.databasePath, night: nil, for: reader)
            let actual = try NightStatus.rows(databasePath: fromParts.outputs.databasePath, night: nil, for: reader)
            #expect(actual.rows == expected.rows)
            #expect(actual.night == expected.night)
        }
    }

    /// A part missing, or of another as_of: refused naming it (exit 65), and neither the night's
    /// folder nor the database is written.
    @Test func aMissingPartOrAnotherNightsWritesNothing() async throws {
        let (folder, job, _) = try await Self.generatedNight()
        let parts = folder.file("parts")
        _ = try await NightlyRun.run(Self.job(job, writingTo: "run", in: folder), parts: parts)
        let fromParts = Self.job(job, writingTo: "stats", in: folder)
        try FileManager.default.removeItem(atPath: folder.file("parts/tenure.csv"))
        let missing = await #expect(throws: OfferLabError.self) { try await PartsNight.run(fromParts, parts: parts) }
        #expect(missing?.exitCode == 65)
        #expect(missing?.message.contains("part tenure: \(parts)/tenure.csv is missing") == true, "\(missing?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: fromParts.outputs.databasePath))
        #expect(!FileManager.default.fileExists(atPath: folder.file("stats/\(job.run.night.date)")))

        _ = try await NightlyRun.run(Self.job(job, writingTo: "run", in: folder), parts: parts)
        var later = fromParts
        later.run.night = try #require(Night(parsing: "2026-03-30"))
        let another = await #expect(throws: OfferLabError.self) { try await PartsNight.run(later, parts: parts) }
        #expect(another?.exitCode == 65)
        #expect(
            another?.message.contains("was computed for as_of \(job.run.night.isoText), the night is 2026-03-30T00:00:00Z") == true,
            "\(another?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: fromParts.outputs.databasePath))
    }

    /// A warehouse's machine has the job and its catalog tables, not the logs: `stats --job
    /// --parts` loads the job without them (`inputsReadElsewhere`) and writes the same night.
    @Test func theLogsNeedNotBeWhereThePartsAreRead() async throws {
        let (folder, job, _) = try await Self.generatedNight()
        let parts = folder.file("parts")
        let runReport = try await NightlyRun.run(Self.job(job, writingTo: "run", in: folder), parts: parts)
        for logs in ["logs", "showcase", "history"] { try FileManager.default.removeItem(atPath: folder.file(logs)) }
        #expect(throws: OfferLabError.self) { try JobLoader.load(path: job.jobPath) }
        var overrides = JobOverrides(output: folder.file("stats"), database: folder.file("stats/results.sqlite"))
        overrides.inputsReadElsewhere = true
        let elsewhere = try JobLoader.load(path: job.jobPath, overriding: overrides)
        #expect(elsewhere.history.globsWithoutFiles.isEmpty)
        let partsReport = try await PartsNight.run(elsewhere, parts: parts)
        for file in ["summary.csv", "sources.csv", "decisions.csv", "projection.csv"] {
            let expected = try String(contentsOfFile: (runReport.outputFolder as NSString).appendingPathComponent(file), encoding: .utf8)
            let actual = try String(contentsOfFile: (partsReport.outputFolder as NSString).appendingPathComponent(file), encoding: .utf8)
            #expect(actual == expected, "\(file)")
        }
    }

    /// An offering with no members (its one assignment row invalid, `allow_empty_offerings`):
    /// its night parts have no row, and from them (a part with a header only included) the night
    /// is run's, through the command line: `offerlab run --parts`, `offerlab stats --job --parts`.
    @Test func anOfferingWithoutMembersHasNoRowsAndTheSameNight() throws {
        var tables = NightFixture.standardTables
        tables.assignments = Array(tables.assignments.prefix(4)) + [("o1", "2", "10", "2026-03-01 00:00:00")]
        let night = try NightFixture(tables: tables)
        try night.writeJob(["allow_empty_offerings": "true"])
        let parts = night.folder.file("parts")
        #expect(try night.run(["--parts", parts]).status == 0)
        for part in ["observations", "assignments", "tenure", "daily_totals"] {
            let text = try String(contentsOfFile: night.folder.file("parts/\(part).csv"), encoding: .utf8)
            #expect(text.hasPrefix(NightPart.columns.joined(separator: ",") + "\n"))
            #expect(!text.contains(",other,"), "\(part)")
        }
        let stats = try runOfferLab([
            "stats", "--job", night.jobPath, "--parts", parts, "--output", night.folder.file("stats"), "--db",
            night.folder.file("stats/results.sqlite"),
        ])
        #expect(stats.status == 0, "\(stats.standardError)")
        for file in ["summary.csv", "decisions.csv", "projection.csv", "daily.csv", "quality.csv"] {
            let expected = try String(contentsOfFile: night.folder.file("out/2026-03-16/\(file)"), encoding: .utf8)
            let actual = try String(contentsOfFile: night.folder.file("stats/2026-03-16/\(file)"), encoding: .utf8)
            #expect(actual == expected, "\(file)")
        }
        #expect(try String(contentsOfFile: night.folder.file("stats/2026-03-16/summary.csv"), encoding: .utf8).contains("other,"))
    }
}
