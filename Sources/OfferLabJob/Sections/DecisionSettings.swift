import Foundation
import OfferLabStatistics
import OfferLabVocabulary

/// The job keys of the nightly decision (docs/statistics.md, "The decision"): the metric a
/// test is decided on, those that must not get worse, and what a test must be able to find.
public struct DecisionSettings: Sendable, Equatable {
    /// `goal_metric`: the metric whose win ships a treatment.
    public var goalMetric = Metric.arpu
    /// Whether the job names `goal_metric`: a goal the user chose is kept in a period test
    /// (docs/statistics.md, "Period tests"), whose default goal is `projected_arpu_365`.
    public var goalMetricIsChosen = false
    /// `guardrail_metrics`: metrics whose loss rolls a treatment back.
    public var guardrailMetrics = [Metric.refundUserRate]
    /// Whether the job names `guardrail_metrics`: guardrails the user chose hold in a period test
    /// too, which by default has none (docs/statistics.md, "Period tests").
    public var guardrailMetricsAreChosen = false
    /// `target_mde`: the smallest relative lift of the goal worth finding.
    public var targetMDE = 0.10
    /// `target_power`: the chance of finding a lift of `targetMDE` the test is run for.
    public var targetPower = 0.8
    /// `min_runtime_days`: no ship or stop before this many days (a weekly cycle, by default).
    public var minRuntimeDays = 7.0
    /// `max_runtime_days`: the longest a test may run; one that needs longer is `futile`.
    public var maxRuntimeDays = 90.0

    public init() {}

    /// The goal of a treatment: the job's, or `projected_arpu_365` when the treatment and its
    /// control bill on different periods (`isPeriodTest`) and the job names no goal.
    public func goal(isPeriodTest: Bool) -> Metric {
        isPeriodTest && !goalMetricIsChosen ? .projectedARPU365 : goalMetric
    }

    /// The guardrails of a treatment: the job's, or none when the treatment and its control bill
    /// on different periods (`isPeriodTest`) and the job names none: the year that decides such a
    /// test nets every refund, and a default refund guardrail rolled back passes that won their
    /// year by a third (docs/projection-calibration.md).
    public func guardrails(isPeriodTest: Bool) -> [Metric] {
        isPeriodTest && !guardrailMetricsAreChosen ? [] : guardrailMetrics
    }

}

extension DecisionSettings {
    static let keys = [
        JobKey(
            name: "goal_metric", defaultValue: "`arpu` (`projected_arpu_365` in a period test)",
            help: "the metric a test is decided on (ship when it wins)"),
        JobKey(
            name: "guardrail_metrics", defaultValue: "`[refund_user_rate]` (none in a period test)",
            help: "metrics that must not get worse (roll back when one loses)"),
        JobKey(name: "target_mde", defaultValue: "0.10", help: "smallest lift of the goal worth finding: 0.10 for 10%"),
        JobKey(name: "target_power", defaultValue: "0.8", help: "chance of finding target_mde the test runs for"),
        JobKey(name: "min_runtime_days", defaultValue: "7", help: "no ship or stop before this many days"),
        JobKey(name: "max_runtime_days", defaultValue: "90", help: "the longest a test may run: futile when it needs longer"),
    ]

    /// The job's decision section: a metric is one with comparison rows in this job
    /// (`Metric.compared`, from the analysis section's `maturityDays` and revenue cap).
    init(_ reader: JobValues, maturityDays: [Int], hasRevenueCap: Bool) throws {
        self.init()
        let compared = Metric.compared(maturityDays: maturityDays, hasRevenueCap: hasRevenueCap)
        func metric(_ name: String, key: String, allowed: [Metric] = []) throws -> Metric {
            if let metric = (compared + allowed).first(where: { $0.csvName == name }) { return metric }
            var problem = "'\(name)' is not a metric this job compares"
            if name == Metric.arpuCapped.csvName {
                problem += " (arpu_capped needs revenue_cap)"
            } else if let days = Metric.maturedDays(of: name) {
                problem += " (\(name) needs \(days) in maturity_days)"
            }
            throw reader.fail(key, problem + "; known: " + (compared + allowed).map(\.csvName).joined(separator: ", "))
        }
        // Every night compares the groups' projected year, so any job may be decided by it.
        if let goal = try reader.optionalText("goal_metric") {
            goalMetric = try metric(goal, key: "goal_metric", allowed: [.projectedARPU365])
            goalMetricIsChosen = true
        }
        if reader.has("guardrail_metrics") {
            guardrailMetrics = []
            guardrailMetricsAreChosen = true
            for name in try reader.textList("guardrail_metrics") {
                let guardrail = try metric(name, key: "guardrail_metrics")
                guard !guardrailMetrics.contains(guardrail) else { throw reader.fail("guardrail_metrics", "'\(name)' is named twice") }
                guardrailMetrics.append(guardrail)
            }
        }
        targetMDE = try reader.number("target_mde", default: targetMDE)
        guard targetMDE > 0, targetMDE.isFinite else {
            throw reader.fail("target_mde", "\(targetMDE) must be a positive relative lift, like 0.10 for 10%")
        }
        // A lift of 100% or more is no smallest lift worth finding: `10` was meant as 10%, and
        // taken as 1,000% it would make every test inconclusive within days.
        guard targetMDE < 1 else {
            let written = String(format: "%g", targetMDE)
            throw reader.fail(
                "target_mde",
                "\(written) is a lift of \(String(format: "%g", targetMDE * 100))%; the lift is a share, like 0.10 for 10%: "
                    + "did you mean \(String(format: "%g", targetMDE / 100)) (\(written)%)?")
        }
        targetPower = try reader.number("target_power", default: targetPower)
        guard targetPower > 0 && targetPower < 1 else {
            throw reader.fail("target_power", "\(targetPower) must be greater than 0 and less than 1, like 0.8")
        }
        minRuntimeDays = try reader.number("min_runtime_days", default: minRuntimeDays)
        guard minRuntimeDays >= 0, minRuntimeDays <= 36_500 else {
            throw reader.fail("min_runtime_days", "\(minRuntimeDays) must be a number of days from 0 to 36500")
        }
        maxRuntimeDays = try reader.number("max_runtime_days", default: maxRuntimeDays)
        guard maxRuntimeDays >= minRuntimeDays, maxRuntimeDays <= 36_500 else {
            throw reader.fail(
                "max_runtime_days",
                "\(maxRuntimeDays) must be a number of days from min_runtime_days (\(minRuntimeDays)) to 36500")
        }
    }
}
