import Foundation
import OfferLabStoreSources
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabSupport

/// The job's keys are listed once (`JobKey.all`): the README's table says the same.
@Suite struct JobKeyTests {
    /// The README's table of job keys: per row, its keys (`rates` / `rates_file` share one) and
    /// its default.
    static func readmeRows() throws -> [(keys: [String], defaultValue: String)] {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## The job file\n").dropFirst().first)
        let table = section.components(separatedBy: "\n\n").first { $0.hasPrefix("| key |") } ?? ""
        return table.split(separator: "\n").dropFirst(2).map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let keys = cells[1].split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces).filter { $0 != "`" } }
            return (keys, cells[cells.count - 2])
        }
    }

    @Test func theReadmeTableListsTheKeysInTheirOrder() throws {
        let rows = try Self.readmeRows()
        #expect(rows.flatMap(\.keys) == JobKey.all.map(\.name))
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
            "alpha": "\(job.alpha)", "sequential_tuning": "\(job.sequentialTuning)", "decision": job.decision.rawValue,
            "max_slice_levels": "\(job.maxSliceLevels)", "max_bad_line_ratio": "\(job.maxBadLineRatio)",
            "on_corrupt_file": job.onCorruptFile.rawValue, "rejects_per_reason": "\(job.rejectsPerReason)",
            "lock_timeout_seconds": "\(job.lockTimeoutSeconds)", "max_volume_drop": "\(job.maxVolumeDrop)",
            "allow_empty_night": "\(job.allowEmptyNight)", "allow_stale_logs": "\(job.allowStaleLogs)",
            "allow_empty_offerings": "\(job.allowEmptyOfferings)", "max_days_after_last_event": "\(job.maxDaysAfterLastEvent)",
            "allow_future_as_of": "\(job.allowFutureAsOf)", "revenuecat": job.storeSettings[RevenueCatSettings.self].userIDField.rawValue,
            "default_store": job.proceeds.defaultStore, "app_store_small_business": "\(job.proceeds.appStoreSmallBusiness)",
            "goal_metric": job.decisionSettings.goalMetric.csvName, "target_mde": "\(job.decisionSettings.targetMDE)",
            "target_power": "\(job.decisionSettings.targetPower)", "min_runtime_days": "\(job.decisionSettings.minRuntimeDays)",
            "max_runtime_days": "\(job.decisionSettings.maxRuntimeDays)",
            "guardrail_metrics": "[" + job.decisionSettings.guardrailMetrics.map(\.csvName).joined(separator: ", ") + "]",
            "srm_concentration": "\(job.srmConcentration)", "alert_exit_code": "\(job.alertExitCode)",
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

    @Test func theHelpListsEveryKeyInOrderInLinesThatDoNotWrap() {
        let lines = JobKey.helpText.split(separator: "\n")
        let names = lines.filter { !$0.hasPrefix("   ") }.map { $0.split(separator: " ")[0] }
        #expect(names.map(String.init) == JobKey.all.map(\.name))
        #expect(lines.allSatisfy { $0.count <= 80 })
    }
}
