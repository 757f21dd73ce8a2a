import OfferLabJob
import OfferLabStatistics

/// What the statistics stage reads of a job (docs/statistics.md): made from its estimators and
/// run sections (`init(_:run:)`), and what `OfferingStatistics` and `NightlyRun.statistics(of:settings:)` take.
package struct StatisticsSettings: Sendable {
    /// The two-sided level of every interval and test.
    package var alpha: Double
    /// N*, the users at which the always-valid intervals are tightest (docs/statistics.md, Sequential).
    package var sequentialTuning: Double
    /// Offerings analysed side by side; nil: one per core.
    package var threads: Int?

    package init(alpha: Double, sequentialTuning: Double = SequentialInference.defaultTuning, threads: Int? = nil) {
        self.alpha = alpha
        self.sequentialTuning = sequentialTuning
        self.threads = threads
    }

    package init(_ estimators: JobEstimators, run: JobRun) {
        self.init(alpha: estimators.alpha, sequentialTuning: estimators.sequentialTuning, threads: run.threads)
    }
}
