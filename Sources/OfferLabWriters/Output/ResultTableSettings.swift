import OfferLabJob
import OfferLabVocabulary

/// What `ResultTables.make` reads of a job: the settings the `offerings` table records, the
/// decision's (docs/statistics.md, "The decision"), the always-valid sample ratio check's, and
/// which files the night has. Made from the job in one place (`init(_:)`).
package struct ResultTableSettings: Sendable {
    /// Microseconds since the epoch: the night's instant, from which the decision counts the days run.
    package var asOf: Int64
    package var reportCurrency: String
    package var alpha: Double
    package var sequentialTuning: Double
    /// The inference the decision reads (docs/statistics.md, Sequential).
    package var decision: Decision
    package var decisionSettings: DecisionSettings
    package var conversionWindowDays: Double?
    /// The always-valid sample ratio check's concentration (docs/statistics.md, "Sequential sample ratio").
    package var srmConcentration: Double
    /// Whether the job reads purchase logs (`sources.csv` then has their rows).
    package var hasLogFiles: Bool
    /// Whether the job slices: only then are the slice tables written as CSV files.
    package var writesSliceFiles: Bool

    package init(_ job: Job) {
        asOf = job.run.night.microseconds
        reportCurrency = job.analysis.reportCurrency
        alpha = job.estimators.alpha
        sequentialTuning = job.estimators.sequentialTuning
        decision = job.estimators.inference
        decisionSettings = job.decision
        conversionWindowDays = job.analysis.conversionWindowDays
        srmConcentration = job.estimators.srmConcentration
        hasLogFiles = !job.inputs.logPatterns.isEmpty
        writesSliceFiles = !job.analysis.slices.isEmpty
    }
}
