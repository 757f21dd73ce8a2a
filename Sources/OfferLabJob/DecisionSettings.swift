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

extension JobValues {
    /// `goal_metric`, `guardrail_metrics`, `target_mde`, `target_power`, `min_runtime_days`,
    /// `max_runtime_days`; a
    /// metric is one with comparison rows in this job (`Metric.compared`).
    func decisionSettings(maturityDays: [Int], hasRevenueCap: Bool) throws -> DecisionSettings {
        let compared = Metric.compared(maturityDays: maturityDays, hasRevenueCap: hasRevenueCap)
        func metric(_ name: String, key: String, allowed: [Metric] = []) throws -> Metric {
            if let metric = (compared + allowed).first(where: { $0.csvName == name }) { return metric }
            var problem = "'\(name)' is not a metric this job compares"
            if name == Metric.arpuCapped.csvName {
                problem += " (arpu_capped needs revenue_cap)"
            } else if let days = Metric.maturedDays(of: name) {
                problem += " (\(name) needs \(days) in maturity_days)"
            }
            throw fail(key, problem + "; known: " + (compared + allowed).map(\.csvName).joined(separator: ", "))
        }
        var settings = DecisionSettings()
        // Every night compares the groups' projected year, so any job may be decided by it.
        if let goal = try optionalText("goal_metric") {
            settings.goalMetric = try metric(goal, key: "goal_metric", allowed: [.projectedARPU365])
            settings.goalMetricIsChosen = true
        }
        if values["guardrail_metrics"] != nil {
            settings.guardrailMetrics = []
            settings.guardrailMetricsAreChosen = true
            for name in try textList("guardrail_metrics") {
                let guardrail = try metric(name, key: "guardrail_metrics")
                guard !settings.guardrailMetrics.contains(guardrail) else { throw fail("guardrail_metrics", "'\(name)' is named twice") }
                settings.guardrailMetrics.append(guardrail)
            }
        }
        settings.targetMDE = try number("target_mde", default: settings.targetMDE)
        guard settings.targetMDE > 0, settings.targetMDE.isFinite else {
            throw fail("target_mde", "\(settings.targetMDE) must be a positive relative lift, like 0.10 for 10%")
        }
        // A lift of 100% or more is no smallest lift worth finding: `10` was meant as 10%, and
        // taken as 1,000% it would make every test inconclusive within days.
        guard settings.targetMDE < 1 else {
            let written = String(format: "%g", settings.targetMDE)
            throw fail(
                "target_mde",
                "\(written) is a lift of \(String(format: "%g", settings.targetMDE * 100))%; the lift is a share, like 0.10 for 10%: "
                    + "did you mean \(String(format: "%g", settings.targetMDE / 100)) (\(written)%)?")
        }
        settings.targetPower = try number("target_power", default: settings.targetPower)
        guard settings.targetPower > 0 && settings.targetPower < 1 else {
            throw fail("target_power", "\(settings.targetPower) must be greater than 0 and less than 1, like 0.8")
        }
        settings.minRuntimeDays = try number("min_runtime_days", default: settings.minRuntimeDays)
        guard settings.minRuntimeDays >= 0, settings.minRuntimeDays <= 36_500 else {
            throw fail("min_runtime_days", "\(settings.minRuntimeDays) must be a number of days from 0 to 36500")
        }
        settings.maxRuntimeDays = try number("max_runtime_days", default: settings.maxRuntimeDays)
        guard settings.maxRuntimeDays >= settings.minRuntimeDays, settings.maxRuntimeDays <= 36_500 else {
            throw fail(
                "max_runtime_days",
                "\(settings.maxRuntimeDays) must be a number of days from min_runtime_days (\(settings.minRuntimeDays)) to 36500")
        }
        return settings
    }
}
