/// The two metrics every treatment is compared on.
public enum Metric: String, Sendable, Hashable, CaseIterable {
    /// Conversion rate: converters/users.
    case conversion
    /// Average revenue per user: Σ net revenue/users.
    case arpu

    /// The name written in the `metric` column of `comparisons.csv`.
    public var csvName: String { rawValue }
}

/// One row of `comparisons.csv`: a treatment group against control on one metric (contract §2.5,
/// and the sequential values of §2.8).
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
    /// Lower end of the always-valid confidence sequence of `absLift` (contract §2.8).
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

    /// A row; every value defaults to nil ("no value"), the sequential ones set afterwards.
    public init(
        group: String, controlGroup: String, metric: Metric, controlValue: Double? = nil, value: Double? = nil,
        absLift: Double? = nil, absLiftCILow: Double? = nil, absLiftCIHigh: Double? = nil, relLift: Double? = nil,
        relLiftCILow: Double? = nil, relLiftCIHigh: Double? = nil, pValue: Double? = nil,
        pValueAdjusted: Double? = nil, significant: Bool? = nil, chanceToBeatControl: Double? = nil,
        mdeAbs: Double? = nil
    ) {
        self.group = group
        self.controlGroup = controlGroup
        self.metric = metric
        self.controlValue = controlValue
        self.value = value
        self.absLift = absLift
        self.absLiftCILow = absLiftCILow
        self.absLiftCIHigh = absLiftCIHigh
        self.relLift = relLift
        self.relLiftCILow = relLiftCILow
        self.relLiftCIHigh = relLiftCIHigh
        self.pValue = pValue
        self.pValueAdjusted = pValueAdjusted
        self.significant = significant
        self.chanceToBeatControl = chanceToBeatControl
        self.mdeAbs = mdeAbs
    }
}
