import OfferLabVocabulary

/// One group of an offering, as the analysis needs it.
public struct AnalysisGroup: Sendable, Equatable {
    /// The group's name (`group_name`).
    public var name: String
    /// Whether this is the offering's control group (exactly one per offering).
    public var isControl: Bool
    /// The group's assignment weight (any non-negative scale; only the shares matter).
    public var weight: Double
    /// The group's sufficient statistics.
    public var statistics: GroupSufficientStatistics

    /// A group of the offering to analyse.
    public init(name: String, isControl: Bool, weight: Double, statistics: GroupSufficientStatistics) {
        self.name = name
        self.isControl = isControl
        self.weight = weight
        self.statistics = statistics
    }
}

/// Another set of per-group sufficient statistics of the same groups, compared like the
/// offering's own: the capped revenue of docs/analysis.md §4b (`arpu_capped`), or the members matured after D
/// days of docs/analysis.md §4c (`conversion_d<D>`, `arpu_d<D>`). Each metric is its own Holm family.
public struct ComparisonFamily: Sendable, Equatable {
    /// The metrics compared on these statistics, in row order.
    public var metrics: [Metric]
    /// Parallel to the offering's groups.
    public var statistics: [GroupSufficientStatistics]

    public init(metrics: [Metric], statistics: [GroupSufficientStatistics]) {
        self.metrics = metrics
        self.statistics = statistics
    }

    /// Per-user revenue capped at the offering's cap (`users` as the offering's; converters unused).
    public static func cappedRevenue(_ statistics: [GroupSufficientStatistics]) -> Self {
        Self(metrics: [.arpuCapped], statistics: statistics)
    }

    /// Per-user net proceeds (`users` as the offering's; converters unused).
    public static func proceedsPerUser(_ statistics: [GroupSufficientStatistics]) -> Self {
        Self(metrics: [.proceedsPerUser], statistics: statistics)
    }

    /// The members whose trial has ended (`users`) and those of them converted (`converters`).
    public static func trialCompletedConversion(_ statistics: [GroupSufficientStatistics]) -> Self {
        Self(metrics: [.trialCompletedConversion], statistics: statistics)
    }

    /// The members (`users`) and those with a counted refund (`converters`).
    public static func refundUserRate(_ statistics: [GroupSufficientStatistics]) -> Self {
        Self(metrics: [.refundUserRate], statistics: statistics)
    }

    /// The members assigned at least `days` days before `as_of`, with their conversion and
    /// revenue within `days` of assignment.
    public static func matured(days: Int, _ statistics: [GroupSufficientStatistics]) -> Self {
        Self(metrics: [.conversion(maturedDays: days), .arpu(maturedDays: days)], statistics: statistics)
    }
}

/// Everything the statistics layer computes for one offering.
public struct OfferingAnalysis: Sendable, Equatable {
    /// One summary per group, in input order (`summary.csv`'s statistical columns).
    public var summaries: [GroupSummary]
    /// Each non-control group × {conversion, arpu}, in group input order, conversion first;
    /// then each family's rows in the same order (group by group, its metrics in their order).
    public var comparisons: [ComparisonResult]
    /// The sample-ratio-mismatch check; nil when the offering has no users.
    public var sampleRatioMismatch: SampleRatioMismatchResult?
}

/// Why an offering's input cannot be analysed. Each case names the group at fault.
public enum AnalysisInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// alpha must lie strictly between 0 and 1.
    case invalidAlpha(Double)
    /// N* (`sequential_tuning`) must be a finite number > 0.
    case invalidSequentialTuning(Double)
    /// No group is marked as control.
    case noControl
    /// More than one group is marked as control.
    case multipleControls([String])
    /// users < 0, converters < 0 or converters > users.
    case invalidCounts(group: String, users: Int, converters: Int)
    /// Σx or Σx² is not finite, or Σx² < 0.
    case invalidRevenue(group: String)
    /// A weight that is negative, NaN or infinite.
    case invalidWeight(group: String, weight: Double)
    /// A family whose statistics are not one per group.
    case familyGroupCount(metric: String, expected: Int, got: Int)

    public var description: String {
        switch self {
        case .invalidAlpha(let alpha): "alpha must be between 0 and 1 (exclusive), got \(alpha)"
        case .invalidSequentialTuning(let tuning): "sequential_tuning must be a positive number, got \(tuning)"
        case .noControl: "no group is marked as control"
        case .multipleControls(let names): "more than one control group: \(names.joined(separator: ", "))"
        case .invalidCounts(let group, let users, let converters):
            "group \(group): users (\(users)) and converters (\(converters)) must satisfy 0 ≤ converters ≤ users"
        case .invalidRevenue(let group): "group \(group): revenue sums must be finite and the sum of squares ≥ 0"
        case .invalidWeight(let group, let weight): "group \(group): weight must be a finite number ≥ 0, got \(weight)"
        case .familyGroupCount(let metric, let expected, let got): "\(metric): \(got) groups of statistics for \(expected) groups"
        }
    }
}

/// Analyses one offering from per-group sufficient statistics: the per-group summaries, every
/// treatment against control on conversion and ARPU (and on each of `families`' metrics, the
/// same way) with its fixed-horizon and sequential (always-valid) values, Holm–Bonferroni per
/// metric for each, and the sample-ratio-mismatch check (docs/analysis.md §4, §4b, §4c;
/// docs/statistics.md has every formula).
///
/// Empty ("nil") values, beyond the per-group rules of ``GroupSummary``:
/// - `controlValue` and `value` are the groups' own rate or ARPU, nil only when that group has
///   no users;
/// - conversion: every other value is nil when either group has 0 users; `relLift` and its
///   interval are nil when the control rate is 0; se = 0 gives p = 1 and zero-width intervals;
/// - ARPU: every other value is nil when either group has fewer than 2 users; `relLift` and its
///   interval are nil when the control ARPU is 0; when both variances are 0 the p-value, the
///   absolute-lift interval and the chance to beat control are nil (the relative-lift interval,
///   which uses z, is then zero-width);
/// - `pValueAdjusted` is nil exactly when `pValue` is; `significant` is nil exactly when
///   `pValueAdjusted` is; `mdeAbs` is nil on ARPU rows;
/// - sequential: each value is nil where its fixed-horizon counterpart is, and also where its
///   standard error is 0 (the absolute interval and the p-value when v_t/n_t + v_c/n_c = 0, the
///   relative interval when its delta-method se is 0); `seqPValueAdjusted` and `seqSignificant`
///   follow `seqPValue` as their fixed counterparts follow `pValue`.
///
/// - Parameters:
///   - groups: the offering's groups in output order; exactly one has `isControl`.
///   - alpha: the significance level, 0 < alpha < 1 (intervals are at 1 − alpha).
///   - sequentialTuning: N* of the sequential intervals (docs/statistics.md, Sequential), the total users of two groups at which the sequential
///     interval is tightest; finite and > 0.
///   - families: further statistics of the same groups to compare on (capped, matured).
/// - Throws: ``AnalysisInputError`` for input that is not a valid set of sufficient statistics.
public func analyzeOffering(
    _ groups: [AnalysisGroup], alpha: Double, sequentialTuning: Double = SequentialInference.defaultTuning,
    families: [ComparisonFamily] = []
) throws(AnalysisInputError) -> OfferingAnalysis {
    guard alpha > 0, alpha < 1 else { throw .invalidAlpha(alpha) }
    guard sequentialTuning > 0, sequentialTuning.isFinite else { throw .invalidSequentialTuning(sequentialTuning) }
    for family in families where family.statistics.count != groups.count {
        throw .familyGroupCount(
            metric: family.metrics.map(\.csvName).joined(separator: ", "), expected: groups.count, got: family.statistics.count)
    }
    for (index, group) in groups.enumerated() {
        try validate(group.statistics, of: group)
        guard group.weight.isFinite, group.weight >= 0 else {
            throw .invalidWeight(group: group.name, weight: group.weight)
        }
        for family in families { try validate(family.statistics[index], of: group) }
    }
    let controls = groups.indices.filter { groups[$0].isControl }
    guard let controlIndex = controls.first else { throw .noControl }
    guard controls.count == 1 else { throw .multipleControls(controls.map { groups[$0].name }) }

    let z = twoSidedNormalQuantile(alpha: alpha)
    let rho = sequentialRho(alpha: alpha, tuning: sequentialTuning)
    var comparisons: [ComparisonResult] = []
    /// Parallel to `comparisons`: the moments each row was computed from (nil where a group lacks them).
    var moments: [(control: SampleMoments, treatment: SampleMoments)?] = []
    /// Every treatment against control on `metrics`, with the groups' statistics `statistics(index)`.
    func compare(_ metrics: [Metric], _ statistics: (Int) -> GroupSufficientStatistics) {
        var control = groups[controlIndex]
        control.statistics = statistics(controlIndex)
        for index in groups.indices where index != controlIndex {
            var treatment = groups[index]
            treatment.statistics = statistics(index)
            for metric in metrics {
                switch metric.kind {
                case .conversion:
                    comparisons.append(compareConversion(metric, control: control, treatment: treatment, alpha: alpha, z: z, rho: rho))
                    moments.append(
                        control.statistics.conversionMoments.flatMap { c in treatment.statistics.conversionMoments.map { (c, $0) } })
                case .revenue:
                    comparisons.append(compareRevenue(metric, control: control, treatment: treatment, alpha: alpha, z: z, rho: rho))
                    moments.append(control.statistics.revenueMoments.flatMap { c in treatment.statistics.revenueMoments.map { (c, $0) } })
                }
            }
        }
    }
    compare([.conversion, .arpu]) { groups[$0].statistics }
    for family in families { compare(family.metrics) { family.statistics[$0] } }
    var metrics: [Metric] = []
    for row in comparisons where !metrics.contains(row.metric) { metrics.append(row.metric) }
    for metric in metrics {
        let family = comparisons.indices.filter { comparisons[$0].metric == metric }
        adjustHolm(&comparisons, family, \.pValue, into: \.pValueAdjusted, \.significant, alpha: alpha)
        adjustHolm(&comparisons, family, \.seqPValue, into: \.seqPValueAdjusted, \.seqSignificant, alpha: alpha)
        let fixedFamily = family.filter { comparisons[$0].pValue != nil }.count
        let sequentialFamily = family.filter { comparisons[$0].seqPValue != nil }.count
        for index in family {
            guard let (control, treatment) = moments[index] else { continue }
            addAdjustedIntervals(
                to: &comparisons[index], control: control, treatment: treatment, alpha: alpha, rho: rho,
                familySizes: (fixedFamily, sequentialFamily))
        }
    }
    return OfferingAnalysis(
        summaries: groups.map { GroupSummary($0.statistics, alpha: alpha) },
        comparisons: comparisons,
        sampleRatioMismatch: sampleRatioMismatch(users: groups.map(\.statistics.users), weights: groups.map(\.weight)))
}

/// Holm–Bonferroni over the rows of `family` that have a p-value at `pValue`: the adjusted value
/// and whether it is below alpha.
private func adjustHolm(
    _ comparisons: inout [ComparisonResult], _ family: [Int], _ pValue: KeyPath<ComparisonResult, Double?>,
    into adjustedValue: WritableKeyPath<ComparisonResult, Double?>, _ significant: WritableKeyPath<ComparisonResult, Bool?>,
    alpha: Double
) {
    let tested = family.filter { comparisons[$0][keyPath: pValue] != nil }
    let adjusted = holmBonferroni(tested.compactMap { comparisons[$0][keyPath: pValue] })
    for (index, value) in zip(tested, adjusted) {
        comparisons[index][keyPath: adjustedValue] = value
        comparisons[index][keyPath: significant] = value < alpha
    }
}

/// Adds the sequential values (docs/statistics.md, Sequential) to a row whose fixed-horizon values are set, from the same
/// moments: each stays nil where its fixed counterpart is nil.
private func addSequentialValues(
    to row: inout ComparisonResult, control: SampleMoments, treatment: SampleMoments, alpha: Double, rho: Double
) {
    if row.absLiftCILow != nil,
        let interval = sequentialAbsoluteLiftInterval(control: control, treatment: treatment, rho: rho, alpha: alpha)
    {
        row.seqAbsLiftCILow = interval.low
        row.seqAbsLiftCIHigh = interval.high
    }
    if row.relLiftCILow != nil,
        let interval = sequentialRelativeLiftInterval(control: control, treatment: treatment, rho: rho, alpha: alpha)
    {
        row.seqRelLiftCILow = interval.low
        row.seqRelLiftCIHigh = interval.high
    }
    if row.pValue != nil {
        row.seqPValue = sequentialLiftPValue(control: control, treatment: treatment, rho: rho)
    }
}

/// Adds the intervals that agree with the row's verdicts (docs/statistics.md, Intervals that agree with the verdict),
/// once Holm–Bonferroni has set its adjusted p-values; each stays nil where its unadjusted
/// counterpart is, and the relative ones also where Fieller's set is unbounded.
private func addAdjustedIntervals(
    to row: inout ComparisonResult, control: SampleMoments, treatment: SampleMoments, alpha: Double, rho: Double,
    familySizes: (fixed: Int, sequential: Int)
) {
    // Within what can happen (docs/statistics.md, Intervals that agree with the verdict): a
    // difference of two proportions lies in [−1, 1], a relative lift at or above −100%.
    let isProportion = row.metric.kind == .conversion
    func absolute(_ end: Double) -> Double { isProportion ? min(1, max(-1, end)) : end }
    func relative(_ end: Double) -> Double { max(-1, end) }
    if row.absLiftCILow != nil, let adjustedPValue = row.pValueAdjusted,
        let intervals = adjustedFixedLiftIntervals(
            control: control, treatment: treatment,
            studentDegreesOfFreedom: row.metric.kind == .revenue
                ? welchVariance(control: control, treatment: treatment)?.degreesOfFreedom : nil,
            alpha: alpha, adjustedPValue: adjustedPValue, familySize: familySizes.fixed)
    {
        row.absLiftCILowAdjusted = absolute(intervals.absolute.low)
        row.absLiftCIHighAdjusted = absolute(intervals.absolute.high)
        if row.relLift != nil, let ratio = intervals.relative {
            row.relLiftCILowAdjusted = relative(ratio.low)
            row.relLiftCIHighAdjusted = relative(ratio.high)
        }
    }
    if row.seqAbsLiftCILow != nil, let adjustedPValue = row.seqPValueAdjusted,
        let intervals = adjustedSequentialLiftIntervals(
            control: control, treatment: treatment, rho: rho, alpha: alpha, adjustedPValue: adjustedPValue,
            familySize: familySizes.sequential)
    {
        row.seqAbsLiftCILowAdjusted = absolute(intervals.absolute.low)
        row.seqAbsLiftCIHighAdjusted = absolute(intervals.absolute.high)
        if row.relLift != nil, let ratio = intervals.relative {
            row.seqRelLiftCILowAdjusted = relative(ratio.low)
            row.seqRelLiftCIHighAdjusted = relative(ratio.high)
        }
    }
}

/// Checks that `s` can be the sufficient statistics of `group`'s users.
private func validate(_ s: GroupSufficientStatistics, of group: AnalysisGroup) throws(AnalysisInputError) {
    guard s.users >= 0, s.converters >= 0, s.converters <= s.users else {
        throw .invalidCounts(group: group.name, users: s.users, converters: s.converters)
    }
    guard s.revenueSum.isFinite, s.revenueSumSquares.isFinite, s.revenueSumSquares >= 0 else {
        throw .invalidRevenue(group: group.name)
    }
}

/// The conversion row of one treatment on `metric` (before Holm–Bonferroni).
private func compareConversion(_ metric: Metric, control: AnalysisGroup, treatment: AnalysisGroup, alpha: Double, z: Double, rho: Double)
    -> ComparisonResult
{
    let c = control.statistics
    let t = treatment.statistics
    var row = ComparisonResult(
        group: treatment.name, controlGroup: control.name, metric: metric,
        controlValue: c.conversionRate, value: t.conversionRate)
    guard let cm = c.conversionMoments, let tm = t.conversionMoments else { return row }
    let absolute = absoluteLiftInterval(control: cm, treatment: tm, quantile: z)
    row.absLift = tm.mean - cm.mean
    row.absLiftCILow = absolute.low
    row.absLiftCIHigh = absolute.high
    if let relative = relativeLiftInterval(control: cm, treatment: tm, z: z) {
        row.relLift = relativeLift(control: cm, treatment: tm)
        row.relLiftCILow = relative.low
        row.relLiftCIHigh = relative.high
    }
    row.pValue =
        pooledProportionTest(
            controlConverters: c.converters, controlUsers: c.users,
            treatmentConverters: t.converters, treatmentUsers: t.users)?.pValue
    row.chanceToBeatControl = conversionChanceToBeatControl(
        controlConverters: c.converters, controlUsers: c.users,
        treatmentConverters: t.converters, treatmentUsers: t.users)
    row.mdeAbs = minimumDetectableEffect(
        controlConverters: c.converters, controlUsers: c.users, treatmentUsers: t.users, alpha: alpha)
    addSequentialValues(to: &row, control: cm, treatment: tm, alpha: alpha, rho: rho)
    return row
}

/// The ARPU row of one treatment on `metric` (before Holm–Bonferroni).
private func compareRevenue(_ metric: Metric, control: AnalysisGroup, treatment: AnalysisGroup, alpha: Double, z: Double, rho: Double)
    -> ComparisonResult
{
    let c = control.statistics
    let t = treatment.statistics
    var row = ComparisonResult(
        group: treatment.name, controlGroup: control.name, metric: metric,
        controlValue: c.revenueMean, value: t.revenueMean)
    guard let cm = c.revenueMoments, let tm = t.revenueMoments else { return row }
    row.absLift = tm.mean - cm.mean
    if let relative = relativeLiftInterval(control: cm, treatment: tm, z: z) {
        row.relLift = relativeLift(control: cm, treatment: tm)
        row.relLiftCILow = relative.low
        row.relLiftCIHigh = relative.high
    }
    if let test = welchTest(control: cm, treatment: tm) {
        row.pValue = test.pValue
        let quantile = StudentT(degreesOfFreedom: test.degreesOfFreedom).upperQuantile(alpha / 2)
        let absolute = absoluteLiftInterval(control: cm, treatment: tm, quantile: quantile)
        row.absLiftCILow = absolute.low
        row.absLiftCIHigh = absolute.high
        row.chanceToBeatControl = meanChanceToBeatControl(control: cm, treatment: tm)
    }
    addSequentialValues(to: &row, control: cm, treatment: tm, alpha: alpha, rho: rho)
    return row
}
