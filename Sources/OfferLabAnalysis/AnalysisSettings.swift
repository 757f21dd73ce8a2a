import OfferLabIngest
import OfferLabJob
import OfferLabStatistics

/// What clean-up, attribution and the per-group sums read of a job (docs/analysis.md §2–§4c,
/// §7–§9): the analysis stage's settings, made from the job's analysis and run sections (`init(_:run:)`).
public struct AnalysisSettings: Sendable {
    /// Microseconds since the epoch; events and assignments at or after it are ignored.
    public var asOf: Int64
    /// 1 unit of the currency = rate units of the report currency.
    public var rates: [String: Double]
    public var windowDays: Double?
    /// The job's control group name; nil: each offering's own.
    public var control: String?
    public var revenueCap: RevenueCapRule?
    public var maturityDays: [Int] = []
    public var slices: [SliceField] = []
    public var maxSliceLevels = SliceField.defaultMaxLevels
    public var proceeds = ProceedsSettings()
    /// Threads for clean-up and attribution; nil: one per core.
    public var threads: Int?

    public init(asOf: Int64, rates: [String: Double], windowDays: Double? = nil, control: String? = nil) {
        self.asOf = asOf
        self.rates = rates
        self.windowDays = windowDays
        self.control = control
    }

    /// The job's analysis section, and the run section's night and threads.
    public init(_ analysis: JobAnalysis, run: JobRun) {
        self.init(asOf: run.night.microseconds, rates: analysis.rates, windowDays: analysis.conversionWindowDays, control: analysis.control)
        revenueCap = analysis.revenueCap
        maturityDays = analysis.maturityDays
        slices = analysis.slices
        maxSliceLevels = analysis.maxSliceLevels
        proceeds = analysis.proceeds
        threads = run.threads
    }
}
