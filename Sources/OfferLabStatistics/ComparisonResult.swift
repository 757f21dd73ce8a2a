import OfferLabVocabulary

/// One row of `comparisons.csv`: a treatment group against control on one metric (docs/statistics.md, Each treatment
/// against control, and Sequential).
///
/// Every number is optional: nil is "no value" (an empty CSV field), per the rules of
/// ``analyzeOffering(_:alpha:sequentialTuning:)``.
public struct ComparisonResult: Sendable, Equatable {
    /// The treatment group's name.
    public var group: String
    /// The control group's name.
    public var controlGroup: String
    /// The metric compared.
    public var metric: Metric
    /// m_c: the control's conversion rate or ARPU (as in `summary.csv`).
    public var controlValue: Double?
    /// m_t: the treatment's conversion rate or ARPU.
    public var value: Double?
    /// m_t − m_c.
    public var absLift: Double?
    /// Lower end of the (1 − alpha) interval of `absLift`.
    public var absLiftCILow: Double?
    /// Upper end of the (1 − alpha) interval of `absLift`.
    public var absLiftCIHigh: Double?
    /// m_t/m_c − 1.
    public var relLift: Double?
    /// Lower end of the (1 − alpha) delta-method interval of `relLift`.
    public var relLiftCILow: Double?
    /// Upper end of the (1 − alpha) delta-method interval of `relLift`.
    public var relLiftCIHigh: Double?
    /// Two-sided p-value: pooled z-test (conversion) or Welch t-test (ARPU).
    public var pValue: Double?
    /// Holm–Bonferroni adjusted p-value over the offering's treatments on this metric.
    public var pValueAdjusted: Double?
    /// pValueAdjusted < alpha.
    public var significant: Bool?
    /// P(treatment beats control): Beta posteriors (conversion) or normal (ARPU).
    public var chanceToBeatControl: Double?
    /// Minimum detectable absolute effect at 80% power (conversion rows only).
    public var mdeAbs: Double?
    /// Lower end of the always-valid confidence sequence of `absLift` (docs/statistics.md, Sequential).
    public var seqAbsLiftCILow: Double?
    /// Upper end of the always-valid confidence sequence of `absLift`.
    public var seqAbsLiftCIHigh: Double?
    /// Lower end of the always-valid confidence sequence of `relLift`.
    public var seqRelLiftCILow: Double?
    /// Upper end of the always-valid confidence sequence of `relLift`.
    public var seqRelLiftCIHigh: Double?
    /// The always-valid p-value of `absLift`.
    public var seqPValue: Double?
    /// Holm–Bonferroni adjusted `seqPValue` over the same family as `pValueAdjusted`.
    public var seqPValueAdjusted: Double?
    /// seqPValueAdjusted < alpha.
    public var seqSignificant: Bool?
    /// Lower end of the interval of `absLift` that agrees with `significant`: 0 is outside it
    /// exactly when pValueAdjusted < alpha (docs/statistics.md, Intervals that agree with the verdict).
    public var absLiftCILowAdjusted: Double?
    /// Upper end of the interval of `absLift` that agrees with `significant`.
    public var absLiftCIHighAdjusted: Double?
    /// Lower end of Fieller's interval of `relLift` at the adjusted absolute interval's quantile (≥ −1).
    public var relLiftCILowAdjusted: Double?
    /// Upper end of Fieller's interval of `relLift` at the adjusted absolute interval's quantile.
    public var relLiftCIHighAdjusted: Double?
    /// Lower end of the confidence sequence of `absLift` that agrees with `seqSignificant`.
    public var seqAbsLiftCILowAdjusted: Double?
    /// Upper end of the confidence sequence of `absLift` that agrees with `seqSignificant`.
    public var seqAbsLiftCIHighAdjusted: Double?
    /// Lower end of Fieller's interval of `relLift` at the adjusted sequence's multiplier (≥ −1).
    public var seqRelLiftCILowAdjusted: Double?
    /// Upper end of Fieller's interval of `relLift` at the adjusted sequence's multiplier.
    public var seqRelLiftCIHighAdjusted: Double?

    /// A row of `group` against `controlGroup` on `metric`: the two values compared, every other
    /// value nil ("no value") until the comparison sets it.
    public init(group: String, controlGroup: String, metric: Metric, controlValue: Double?, value: Double?) {
        self.group = group
        self.controlGroup = controlGroup
        self.metric = metric
        self.controlValue = controlValue
        self.value = value
    }
}
