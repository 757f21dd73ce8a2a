import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLabJob
@testable import OfferLabSupport

/// Each section of the job file reads its own keys alone (`Sources/OfferLabJob/Sections/`), and
/// `JobLoader.load` only orders them and checks what spans them.
@Suite struct JobSectionTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// A job file holding `yaml` alone, as its values.
    func values(_ yaml: String) throws -> JobValues {
        try JobValues(readingFileAt: try folder.write("job.yaml", yaml))
    }

    /// The error a section's reader throws for `yaml`.
    func refusal(_ read: (JobValues) throws -> Void, _ yaml: String) throws -> OfferLabError {
        let values = try values(yaml)
        return try #require(throws: OfferLabError.self) { try read(values) }
    }

    @Test func everyKeyBelongsToOneSection() {
        let names = Job.sections.flatMap(\.keys).map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(Job.sections.map(\.name)) == ["inputs", "history", "analysis", "estimators", "decision", "outputs", "run"])
    }

    @Test func theInputsSectionReadsItsKeysAlone() throws {
        _ = try folder.write("tables/offerings.csv", "")
        _ = try folder.write("logs/a.jsonl", "")
        let inputs = try JobInputs(
            values("tables: tables\nlogs: logs/*.jsonl\nmax_bad_line_ratio: 0.2\non_corrupt_file: skip\n"), filesMayBeMissing: false)
        #expect(inputs.tablesPath == folder.file("tables") && inputs.logFiles == [folder.file("logs/a.jsonl")])
        #expect(inputs.maxBadLineRatio == 0.2 && inputs.onCorruptFile == .skip && inputs.storeSources.isEmpty)
        let error = try refusal({ _ = try JobInputs($0, filesMayBeMissing: false) }, "tables: tables\nlogs: none/*.gz\n")
        #expect(error.code == .missingInput && error.location.jobKey == "logs")
        #expect(try JobInputs(values("tables: tables\nlogs: none/*.gz\n"), filesMayBeMissing: true).logFiles.isEmpty)
    }

    @Test func theHistorySectionLeavesOutWhatIsReadAsLogs() throws {
        let (read, past) = (try folder.write("logs/a.jsonl", ""), try folder.write("past/b.jsonl", ""))
        let history = try JobHistory(
            values("history_logs: [logs/*.jsonl, past/*.jsonl, none/*]\n"), readAsLogs: [read], filesMayBeMissing: false)
        #expect(history.files == [past] && history.patterns.count == 3 && history.globsWithoutFiles == [folder.file("none/*")])
        #expect(try JobHistory(values("output: out\n"), readAsLogs: [], filesMayBeMissing: false).patterns.isEmpty)
    }

    @Test func theAnalysisSectionReadsItsKeysAlone() throws {
        let analysis = try JobAnalysis(
            values("report_currency: EUR\nrates: {USD: 0.9}\ncontrol: base\nslices: [country]\nmaturity_days: [14, 7]\n"))
        #expect(analysis.reportCurrency == "EUR" && analysis.rates == ["USD": 0.9, "EUR": 1] && analysis.control == "base")
        #expect(analysis.slices == [.country] && analysis.maturityDays == [7, 14] && analysis.revenueCap == nil)
        let error = try refusal({ _ = try JobAnalysis($0) }, "report_currency: EUR\nconversion_window_days: 0\n")
        #expect(error.code == .badJob && error.location.jobKey == "conversion_window_days")
    }

    @Test func theEstimatorsSectionReadsItsKeysAlone() throws {
        let defaults = try JobEstimators(values("output: out\n"))
        #expect(defaults.alpha == 0.05 && defaults.inference == .sequential && defaults.srmConcentration == 100)
        let set = try JobEstimators(values("alpha: 0.01\nsequential_tuning: 800\ndecision: fixed\nsrm_concentration: 50\n"))
        #expect(set.alpha == 0.01 && set.sequentialTuning == 800 && set.inference == .fixed && set.srmConcentration == 50)
        #expect(try refusal({ _ = try JobEstimators($0) }, "alpha: 1\n").location.jobKey == "alpha")
    }

    /// The decision section's metrics are the ones the analysis section makes: its reader is
    /// given them.
    @Test func theDecisionSectionKnowsTheMetricsTheAnalysisMakes() throws {
        let goal = "goal_metric: arpu_d7\ntarget_mde: 0.2\n"
        let decided = try DecisionSettings(values(goal), maturityDays: [7], hasRevenueCap: false)
        #expect(decided.goalMetric.csvName == "arpu_d7" && decided.targetMDE == 0.2)
        let error = try refusal({ _ = try DecisionSettings($0, maturityDays: [], hasRevenueCap: false) }, goal)
        #expect(error.code == .badJob && error.location.jobKey == "goal_metric")
    }

    @Test func theOutputsAndRunSectionsTakeTheCommandLinesValues() throws {
        let yaml = "output: out\ndatabase: r.sqlite\nas_of: 2026-03-16\nthreads: 2\nmax_volume_drop: 1\n"
        let outputs = try JobOutputs(values(yaml), overrides: JobOverrides())
        #expect(outputs.outputPath == folder.file("out") && outputs.databasePath == folder.file("r.sqlite") && outputs.cachePath == nil)
        let run = try JobRun(values(yaml), overrides: JobOverrides(), now: Date())
        #expect(run.night.date == "2026-03-16" && run.threads == 2 && run.maxVolumeDrop == 1)
        let overrides = JobOverrides(asOf: Night(parsing: "2026-04-01"), output: "/tmp/elsewhere", threads: 1)
        #expect(try JobOutputs(values(yaml), overrides: overrides).outputPath == "/tmp/elsewhere")
        let overridden = try JobRun(values(yaml), overrides: overrides, now: Date())
        #expect(overridden.night.date == "2026-04-01" && overridden.threads == 1)
        let error = try refusal({ _ = try JobRun($0, overrides: JobOverrides(), now: Date()) }, "threads: 1.5\n")
        #expect(error.code == .badJob && error.location.jobKey == "threads")
    }

    /// What spans sections is the loader's: a night's outputs that a log glob would read back.
    @Test func theLoaderChecksWhatSpansSections() throws {
        _ = try folder.write("tables/offerings.csv", "")
        _ = try folder.write("logs/a.jsonl", "")
        let path = try folder.write(
            "job.yaml", "tables: tables\nlogs: logs/**/*\nreport_currency: USD\noutput: logs/out\ndatabase: r.sqlite\nas_of: 2026-03-16\n")
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: path) }
        #expect(error.code == .badJob && error.location.jobKey == "output")
    }

    /// `JobLoader.load` orders the sections and checks what spans them, nothing more: under 60
    /// lines (issue 79), so that a new key goes to its section's reader.
    @Test func theLoaderOnlySequencesTheSections() throws {
        let source = try String(contentsOf: repositoryRoot.appending(path: "Sources/OfferLabJob/Job.swift"), encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.contains("public static func load(") })
        let end = try #require(lines[start...].firstIndex { $0 == "    }" })
        #expect(end - start < 60)
    }
}
