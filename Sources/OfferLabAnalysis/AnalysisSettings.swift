import OfferLabIngest
import OfferLabJob
import OfferLabStatistics

/// What clean-up, attribution and the per-group sums read of a job (docs/analysis.md §2–§4c,
/// §7–§9): the analysis stage's settings, made from the job in one place (`init(_:)`).
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

    public init(_ job: Job) {
        self.init(asOf: job.night.microseconds, rates: job.rates, windowDays: job.conversionWindowDays, control: job.control)
        revenueCap = job.revenueCap
        maturityDays = job.maturityDays
        slices = job.slices
        maxSliceLevels = job.maxSliceLevels
        proceeds = job.proceeds
        threads = job.threads
    }
}
