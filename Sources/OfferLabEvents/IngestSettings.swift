import OfferLabIngest
import OfferLabJob
import OfferLabStoreSources

/// What reading the purchase logs and appending the store sources' events (`LogIngest`) read of
/// a job: made from the job in one place (`init(_:)`).
package struct IngestSettings: Sendable {
    /// The purchase-log files, in the order their batches are merged.
    package var logFiles: [String]
    /// Microseconds since the epoch; events at or after it are not kept.
    package var asOf: Int64
    package var inflater: Inflater
    /// What a corrupt or truncated gzip file does: fail the run, or be skipped whole.
    package var onCorruptFile: CorruptFilePolicy
    /// The slice fields whose values the events keep (`Job.keptSliceFields`).
    package var keptSliceFields: SliceFields
    /// Rejected lines kept per reason for `rejects.csv`.
    package var rejectsPerReason: Int
    /// The formats of the job's store sources, whose counters `sources.csv` has.
    package var storeFormats: [SourceFormat]

    /// `history`: the settings that read the job's `history_logs` files (docs/statistics.md#the-apps-past) instead of its logs.
    package init(_ job: Job, history: Bool = false) {
        logFiles = history ? job.history.files : job.inputs.logFiles
        asOf = job.run.night.microseconds
        inflater = job.run.inflater
        onCorruptFile = job.inputs.onCorruptFile
        keptSliceFields = job.analysis.keptSliceFields
        rejectsPerReason = job.outputs.rejectsPerReason
        storeFormats = history ? [] : job.inputs.storeSources.map(\.format)
    }
}
