import Foundation
import OfferLabStoreSources
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabSupport

/// The job's keys are listed once (`JobKey.all`): the README's table says the same.
@Suite struct JobKeyTests {
    /// The README's tables of job keys, one per section: the section's name, then per row its
    /// keys (`rates` / `rates_file` share one) and its default.
    static func readmeSections() throws -> [(name: String, rows: [(keys: [String], defaultValue: String)])] {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## The job file\n").dropFirst().first)
        let blocks = section.components(separatedBy: "\n## ")[0].components(separatedBy: "\n\n")
        return zip(blocks, blocks.dropFirst()).compactMap { intro, table in
            guard intro.hasPrefix("**"), table.hasPrefix("| key |") else { return nil }
            let name = String(intro.dropFirst(2).prefix { $0 != "*" })
            let rows = table.split(separator: "\n").dropFirst(2).map { line in
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                let keys = cells[1].split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces).filter { $0 != "`" } }
                return (keys, cells[cells.count - 2])
            }
            return (name, rows)
        }
    }

    static func readmeRows() throws -> [(keys: [String], defaultValue: String)] {
        try readmeSections().flatMap(\.rows)
    }

    @Test func theReadmeTablesListTheSectionsAndTheirKeysInTheirOrder() throws {
        let sections = try Self.readmeSections()
        #expect(sections.map(\.name) == Job.sections.map(\.name))
        for (readme, section) in zip(sections, Job.sections) {
            #expect(readme.rows.flatMap(\.keys) == section.keys.map(\.name), "\(section.name)")
        }
        #expect(try Self.readmeRows().flatMap(\.keys) == JobKey.all.map(\.name))
    }

    @Test func theReadmeTableGivesTheirDefaults() throws {
        let defaults = Dictionary(uniqueKeysWithValues: JobKey.all.map { ($0.name, $0.defaultValue) })
        for row in try Self.readmeRows() {
            for key in row.keys { #expect(defaults[key] == row.defaultValue, "\(key)") }
        }
    }

    /// The defaults the table states (for the README and the help) are the ones `JobLoader` gives a
    /// job without the key: every key whose default is a number or a value in backticks is checked.
    @Test func theLoaderAppliesTheStatedDefaults() throws {
        let fixture = try JobLoaderTests().job()
        let job = try JobLoader.load(path: fixture.path)
        let applied: [String: String] = [
            "alpha": "\(job.estimators.alpha)", "sequential_tuning": "\(job.estimators.sequentialTuning)",
            "decision": job.estimators.inference.rawValue,
            "max_slice_levels": "\(job.analysis.maxSliceLevels)", "max_bad_line_ratio": "\(job.inputs.maxBadLineRatio)",
            "on_corrupt_file": job.inputs.onCorruptFile.rawValue, "rejects_per_reason": "\(job.outputs.rejectsPerReason)",
            "lock_timeout_seconds": "\(job.run.lockTimeoutSeconds)", "max_volume_drop": "\(job.run.maxVolumeDrop)",
            "allow_empty_night": "\(job.run.allowEmptyNight)", "allow_stale_logs": "\(job.run.allowStaleLogs)",
            "allow_empty_offerings": "\(job.run.allowEmptyOfferings)", "max_days_after_last_event": "\(job.run.maxDaysAfterLastEvent)",
            "allow_future_as_of": "\(job.run.allowFutureAsOf)",
            "revenuecat": job.inputs.storeSettings[RevenueCatSettings.self].userIDField.rawValue,
            "default_store": job.analysis.proceeds.defaultStore,
            "app_store_small_business": "\(job.analysis.proceeds.appStoreSmallBusiness)",
            "goal_metric": job.decision.goalMetric.csvName, "target_mde": "\(job.decision.targetMDE)",
            "target_power": "\(job.decision.targetPower)", "min_runtime_days": "\(job.decision.minRuntimeDays)",
            "max_runtime_days": "\(job.decision.maxRuntimeDays)",
            "guardrail_metrics": "[" + job.decision.guardrailMetrics.map(\.csvName).joined(separator: ", ") + "]",
            "srm_concentration": "\(job.estimators.srmConcentration)", "alert_exit_code": "\(job.outputs.alertExitCode)",
        ]
        for key in JobKey.all {
            let stated = key.defaultValue.filter { $0 != "`" }
            let isValue = key.defaultValue.hasPrefix("`") && key.defaultValue.hasSuffix("`") && stated.count == key.defaultValue.count - 2
            guard Double(stated) != nil || isValue else { continue }
            let value = try #require(applied[key.name], "\(key.name): default '\(stated)' is not checked")
            #expect(value == stated || Double(value) == Double(stated), "\(key.name)")
        }
    }

    /// The production template shows every key, set or commented out (`# key:`), so a team
    /// copying it sees each setting there is.
    @Test func theProductionTemplateShowsEveryKey() throws {
        let template = try String(
            contentsOf: repositoryRoot.appendingPathComponent("jobs/production.example.yaml"), encoding: .utf8)
        let shown = Set(
            template.split(separator: "\n").compactMap { line -> String? in
                let text = line.drop { $0 == "#" || $0 == " " }
                guard let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isLetter || $0 == "_" }) else { return nil }
                return String(text[..<colon])
            })
        let missing = JobKey.all.map(\.name).filter { !shown.contains($0) }
        #expect(missing.isEmpty, "jobs/production.example.yaml does not show \(missing)")
    }

    @Test func anUnknownKeyIsAnsweredWithTheKeysInTheirOrder() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("job.yaml", "colour: blue\n")
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: path) }
        #expect(error.message.hasSuffix("(known: \(JobKey.all.map(\.name).joined(separator: ", ")))"))
    }

    @Test func theHelpListsEveryKeyUnderItsSectionInLinesThatDoNotWrap() {
        let lines = JobKey.helpText.split(separator: "\n")
        let names = lines.filter { !$0.hasPrefix("   ") }.map { String($0.split(separator: " ")[0]) }
        #expect(names == Job.sections.flatMap { ["[\($0.name)]"] + $0.keys.map(\.name) })
        #expect(lines.allSatisfy { $0.count <= 80 })
    }
}
