import OfferLabEvents
import OfferLabJob
import OfferLabVocabulary
import OfferLabWriters

/// Everything a night's report shows, and nothing else: rendering takes only this value, so a
/// report built by `offerlab run` and one rebuilt by `offerlab report --db` are the same bytes.
///
/// It is made from the typed night (`NightTables`), as the run made it or as the database gave
/// it back (`ReportData+Tables.swift`); it never reads a table's rows by column name.
package struct ReportData: Sendable, Equatable {
    var run: RunFacts
    /// The run-wide counters (`quality.csv` rows with an empty `offering_id`), in output order.
    var quality: [QualityRow]
    /// In output order (byte order of `offering_id`).
    var offerings: [OfferingReport]
    /// Per slice field of the job (docs/analysis.md §7), in its order; empty when the job did not slice.
    var slices: [SliceFieldReport] = []
    /// The money malformed lines named (`rejected_money`; none for a night stored without it).
    var rejectedMoney = RejectedMoney()
    /// `sources.csv`'s rows: per source format read, its counters (none for a night stored
    /// without them).
    var sources: [SourceRow] = []
    /// The app's own track record (docs/statistics.md#the-apps-own-track-record), a line per
    /// product of `backtest`'s rows (none without a past).
    var trackRecord: [String] = []
}

/// When and from what the night's results were computed (the `runs` and `run_inputs` tables).
struct RunFacts: Sendable, Equatable {
    var job: String
    /// `as_of`.
    var night: Night
    var startedAt: String
    var finishedAt: String
    var toolVersion: String
    var inputFiles: [InputFile]
    /// `RunRecord.signaturesVerified`: false when `app_store.verify: false` skipped the App Store
    /// signatures; nil without an App Store source.
    var signaturesVerified: Bool? = nil
    /// `RunRecord.missingPast`: the line naming the `history_logs` globs that matched no file.
    var missingPast: String? = nil
}

struct InputFile: Sendable, Equatable {
    var path: String
    var bytes: Int64
}

/// One analysed offering.
struct OfferingReport: Sendable, Equatable {
    var offeringID: String
    /// The offering's name in `subscription_offerings`.
    var name: String
    var isActive: Bool
    var controlGroup: String
    /// The currency of every money amount.
    var currency: String
    var alpha: Double
    var conversionWindowDays: Double?
    /// In output order (by group id); the control group is one of them.
    var groups: [GroupReport]
    /// Per treatment, `conversion` before `arpu`.
    var comparisons: [Comparison]
    /// `srm`'s row (its values nil when the offering has no users); nil for a night stored without it.
    var sampleRatio: SampleRatioValues?
    var products: [ProductRow]
    var quality: [QualityRow]
    /// The cumulative series per (day, group), oldest first; empty when the run has none.
    var daily: [DailyPoint]
    /// The job's `decision` (docs/statistics.md, Sequential); nil for a night stored by an offerlab without the sequential
    /// values, whose verdicts fall back to the fixed-horizon ones.
    var decision: Decision? = nil
    /// The comparisons of the capped and matured metrics (`arpu_capped`, `conversion_d7`, …),
    /// in `comparisons.csv`'s order.
    var familyComparisons: [Comparison] = []
    /// `maturity.csv`'s rows: D ascending, groups in output order; empty without `maturity_days`.
    var matured: [MaturityRow] = []
    /// `projection.csv`'s rows, groups in output order
    /// (docs/statistics.md#the-projection-in-a-run); empty for a night stored without them.
    var projection: [ProjectionRow] = []
    /// The `projected_arpu_365` comparisons, per treatment, with their far ends.
    var projectedComparisons: [ComparisonRow] = []
    /// `decisions.csv`'s rows, per treatment; empty for a night stored without them.
    var decisions: [DecisionRow] = []
    /// `srm`'s always-valid p-value and flag (`chi2` unused); nil for a night stored without them.
    var sequentialSampleRatio: SampleRatioValues? = nil

    /// The sample-ratio check the verdicts rest on: the always-valid one with `decision:
    /// sequential` (when stored), else the night's χ².
    var decisiveSampleRatio: SampleRatioValues? {
        verdictInference == .sequential ? (sequentialSampleRatio ?? sampleRatio) : sampleRatio
    }

    var control: GroupReport? { groups.first(where: \.isControl) }

    /// The inference the verdicts, headlines and "significant" marks use.
    var verdictInference: Decision { decision ?? .fixed }

    /// The comparison of `group` with control on `metric`, as the verdicts use it: its intervals,
    /// p-values and significance are the sequential ones when `verdictInference` is sequential.
    func comparison(_ group: String, _ metric: OwnMetric) -> Comparison? {
        comparisons.first { $0.group == group && $0.metric == metric }?.decided(by: verdictInference)
    }

    /// The comparison of `group` with control on the capped or matured metric named `metric`,
    /// as the verdicts use it (like ``comparison(_:_:)``).
    func comparison(_ group: String, named metric: String) -> Comparison? {
        familyComparisons.first { $0.familyMetric == metric && $0.group == group }?.decided(by: verdictInference)
    }

    /// The count of a per-offering counter (0 when absent).
    func counter(_ name: String) -> Int { quality.first { $0.counter == name }?.count ?? 0 }
}

/// A group as the report shows it: its `summary` row, whose fields and metrics read through
/// (`group.users`, `group.revenueCap`), and what it was shown.
@dynamicMemberLookup
struct GroupReport: Sendable, Equatable {
    var summary: SummaryRow
    /// In display order.
    var shownProducts: [ShownProductRow] = []
    var shownCopy: ShownCopyRow?

    var name: String {
        get { summary.group }
        set { summary.group = newValue }
    }

    subscript<Value>(dynamicMember field: WritableKeyPath<SummaryRow, Value>) -> Value {
        get { summary[keyPath: field] }
        set { summary[keyPath: field] = newValue }
    }

    subscript<Value>(dynamicMember field: WritableKeyPath<GroupMetrics, Value>) -> Value {
        get { summary.metrics[keyPath: field] }
        set { summary.metrics[keyPath: field] = newValue }
    }
}

/// An estimate with its interval; the interval may be undefined when the estimate is not.
struct Estimate: Sendable, Equatable {
    var value: Double
    var low: Double?
    var high: Double?
}

extension LiftValues {
    /// The absolute lift with its interval, nil without one.
    var absolute: Estimate? { absLift.map { Estimate(value: $0, low: absLiftCILow, high: absLiftCIHigh) } }
    /// The relative lift with its interval, nil without one.
    var relative: Estimate? { relLift.map { Estimate(value: $0, low: relLiftCILow, high: relLiftCIHigh) } }
}

/// One row of `comparisons.csv`.
struct Comparison: Sendable, Equatable {
    var group: String
    var metric: OwnMetric
    var controlValue: Double?
    var value: Double?
    var absoluteLift: Estimate?
    var relativeLift: Estimate?
    var pValue: Double?
    var pValueAdjusted: Double?
    var significant: Bool?
    var chanceToBeatControl: Double?
    /// Conversion only: the absolute difference detectable with 80% power.
    var minimumDetectableEffect: Double?
    /// The always-valid values of the same comparison (all nil on a night stored without them).
    var sequential = SequentialValues()
    /// The intervals that agree with `significant` and `sequential.significant` (the `…_adjusted`
    /// columns; all nil on a night stored without them).
    var adjusted = AdjustedIntervals()
    /// The `comparisons.csv` metric of a capped or matured row (`arpu_capped`, `conversion_d7`),
    /// of which `metric` is the kind; nil on the offering's own rows.
    var familyMetric: String? = nil

    /// This comparison as the verdicts read it with the inference `decision` names: the
    /// fixed-horizon or the sequential p-values and significance, and with them the intervals
    /// that agree with that significance (docs/statistics.md, Intervals that agree with the verdict): 0 is outside
    /// them exactly when it says significant. A night stored without those intervals quotes none.
    func decided(by decision: Decision) -> Comparison {
        var decided = self
        let intervals = decision == .sequential ? adjusted.sequential : adjusted.fixed
        decided.absoluteLift = absoluteLift.map { Estimate(value: $0.value, low: intervals.absoluteLow, high: intervals.absoluteHigh) }
        decided.relativeLift = relativeLift.map { Estimate(value: $0.value, low: intervals.relativeLow, high: intervals.relativeHigh) }
        guard decision == .sequential else { return decided }
        decided.pValue = sequential.pValue
        decided.pValueAdjusted = sequential.pValueAdjusted
        decided.significant = sequential.significant
        return decided
    }

    /// The change the report quotes: the relative one when control's value is not 0 and its
    /// interval is bounded (or neither has an interval), otherwise the absolute one.
    var quotedLift: (estimate: Estimate, isRelative: Bool)? {
        if let relative = relativeLift, relative.low != nil || absoluteLift?.low == nil { return (relative, true) }
        return absoluteLift.map { ($0, false) }
    }
}

/// One row of the daily series (docs/analysis.md §4a): a group as of the end of `date`.
struct DailyPoint: Sendable, Equatable {
    /// `YYYY-MM-DD`.
    var date: String
    var group: String
    var isControl: Bool
    var users: Int
    /// Relative lift over control with its fixed-horizon interval; nil on control rows and where undefined.
    var conversionLift: Estimate?
    var arpuLift: Estimate?
    /// The same relative lift with its sequential interval (docs/statistics.md, Sequential), valid at every day at once.
    var conversionSequentialLift: Estimate? = nil
    var arpuSequentialLift: Estimate? = nil

    /// The relative lift of `metric` with its sequential interval, or its fixed-horizon one.
    func lift(_ metric: OwnMetric, sequential: Bool) -> Estimate? {
        switch (metric, sequential) {
        case (.conversion, false): conversionLift
        case (.arpu, false): arpuLift
        case (.conversion, true): conversionSequentialLift
        case (.arpu, true): arpuSequentialLift
        }
    }
}
