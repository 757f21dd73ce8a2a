import OfferLabStatistics

/// The fixed-horizon values of a comparison, from `abs_lift` to `chance_to_beat_control`: in
/// `comparisons`, and once per compared metric in `daily`.
package struct LiftValues: Sendable, Equatable {
    package var absLift: Double?
    package var absLiftCILow: Double?
    package var absLiftCIHigh: Double?
    package var relLift: Double?
    package var relLiftCILow: Double?
    package var relLiftCIHigh: Double?
    package var pValue: Double?
    package var pValueAdjusted: Double?
    package var significant: Bool?
    package var chanceToBeatControl: Double?

    static let columns: [TableColumn<LiftValues>] = [
        .init(.absLift, \.absLift), .init(.absLiftCILow, \.absLiftCILow), .init(.absLiftCIHigh, \.absLiftCIHigh),
        .init(.relLift, \.relLift), .init(.relLiftCILow, \.relLiftCILow), .init(.relLiftCIHigh, \.relLiftCIHigh),
        .init(.pValue, \.pValue), .init(.pValueAdjusted, \.pValueAdjusted), .init(.significant, \.significant),
        .init(.chanceToBeatControl, \.chanceToBeatControl),
    ]
}

extension LiftValues {
    init(_ result: ComparisonResult) {
        (absLift, absLiftCILow, absLiftCIHigh) = (result.absLift, result.absLiftCILow, result.absLiftCIHigh)
        (relLift, relLiftCILow, relLiftCIHigh) = (result.relLift, result.relLiftCILow, result.relLiftCIHigh)
        (pValue, pValueAdjusted, significant) = (result.pValue, result.pValueAdjusted, result.significant)
        chanceToBeatControl = result.chanceToBeatControl
    }
}

/// The `seq_…` values of a comparison (docs/statistics.md, Sequential): after `mde_abs` in
/// `comparisons` and after every other column of `daily` (once per metric there). All nil on a
/// night stored without them.
package struct SequentialValues: Sendable, Equatable {
    package var absoluteLow: Double?
    package var absoluteHigh: Double?
    package var relativeLow: Double?
    package var relativeHigh: Double?
    package var pValue: Double?
    package var pValueAdjusted: Double?
    package var significant: Bool?

    static let columns: [TableColumn<SequentialValues>] = [
        .init(.seqAbsLiftCILow, \.absoluteLow), .init(.seqAbsLiftCIHigh, \.absoluteHigh), .init(.seqRelLiftCILow, \.relativeLow),
        .init(.seqRelLiftCIHigh, \.relativeHigh), .init(.seqPValue, \.pValue), .init(.seqPValueAdjusted, \.pValueAdjusted),
        .init(.seqSignificant, \.significant),
    ]

    package init(
        absoluteLow: Double? = nil, absoluteHigh: Double? = nil, relativeLow: Double? = nil, relativeHigh: Double? = nil,
        pValue: Double? = nil, pValueAdjusted: Double? = nil, significant: Bool? = nil
    ) {
        self.absoluteLow = absoluteLow
        self.absoluteHigh = absoluteHigh
        self.relativeLow = relativeLow
        self.relativeHigh = relativeHigh
        self.pValue = pValue
        self.pValueAdjusted = pValueAdjusted
        self.significant = significant
    }
}

extension SequentialValues {
    init(_ result: ComparisonResult) {
        self.init(
            absoluteLow: result.seqAbsLiftCILow, absoluteHigh: result.seqAbsLiftCIHigh, relativeLow: result.seqRelLiftCILow,
            relativeHigh: result.seqRelLiftCIHigh, pValue: result.seqPValue, pValueAdjusted: result.seqPValueAdjusted,
            significant: result.seqSignificant)
    }
}

/// The `…_adjusted` values of a comparison (docs/statistics.md, "Intervals that agree with the
/// verdict"): the intervals the report quotes, after the sequential columns in `comparisons`
/// and `slice_comparisons`. All nil on a night stored without them.
package struct AdjustedIntervals: Sendable, Equatable {
    package struct Ends: Sendable, Equatable {
        package var absoluteLow: Double?
        package var absoluteHigh: Double?
        package var relativeLow: Double?
        package var relativeHigh: Double?
    }

    /// `abs_lift_ci_*_adjusted`, `rel_lift_ci_*_adjusted`: agree with `significant`.
    package var fixed = Ends()
    /// `seq_abs_lift_ci_*_adjusted`, `seq_rel_lift_ci_*_adjusted`: agree with `seq_significant`.
    package var sequential = Ends()

    static let columns: [TableColumn<AdjustedIntervals>] = [
        .init(.absLiftCILowAdjusted, \.fixed.absoluteLow), .init(.absLiftCIHighAdjusted, \.fixed.absoluteHigh),
        .init(.relLiftCILowAdjusted, \.fixed.relativeLow), .init(.relLiftCIHighAdjusted, \.fixed.relativeHigh),
        .init(.seqAbsLiftCILowAdjusted, \.sequential.absoluteLow), .init(.seqAbsLiftCIHighAdjusted, \.sequential.absoluteHigh),
        .init(.seqRelLiftCILowAdjusted, \.sequential.relativeLow), .init(.seqRelLiftCIHighAdjusted, \.sequential.relativeHigh),
    ]

    package init(
        fixed: Ends = Ends(), sequential: Ends = Ends()
    ) {
        self.fixed = fixed
        self.sequential = sequential
    }
}

extension AdjustedIntervals {
    init(_ result: ComparisonResult) {
        self.init(
            fixed: Ends(
                absoluteLow: result.absLiftCILowAdjusted, absoluteHigh: result.absLiftCIHighAdjusted,
                relativeLow: result.relLiftCILowAdjusted, relativeHigh: result.relLiftCIHighAdjusted),
            sequential: Ends(
                absoluteLow: result.seqAbsLiftCILowAdjusted, absoluteHigh: result.seqAbsLiftCIHighAdjusted,
                relativeLow: result.seqRelLiftCILowAdjusted, relativeHigh: result.seqRelLiftCIHighAdjusted))
    }
}

/// A comparison of a treatment with the control on one metric: the columns after
/// `offering_id` (and the slice's level) in `comparisons` and `slice_comparisons`.
package struct ComparisonValues: Sendable, Equatable {
    package var group = ""
    package var controlGroup = ""
    /// The `comparisons.csv` metric name (`conversion`, `arpu_capped`, `projected_arpu_365`).
    package var metric = ""
    package var controlValue: Double?
    package var value: Double?
    package var lift = LiftValues()
    /// The absolute difference detectable with 80% power (conversion only).
    package var mdeAbs: Double?
    package var sequential = SequentialValues()
    package var adjusted = AdjustedIntervals()

    static let columns: [TableColumn<ComparisonValues>] =
        [
            .init(.group, \.group), .init(.controlGroup, \.controlGroup), .init(.metric, \.metric),
            .init(.controlValue, \.controlValue), .init(.value, \.value),
        ] + LiftValues.columns.map { $0.of(\.lift) } + [.init(.mdeAbs, \.mdeAbs)]
        + SequentialValues.columns.map { $0.of(\.sequential) } + AdjustedIntervals.columns.map { $0.of(\.adjusted) }
}

extension ComparisonValues {
    init(_ result: ComparisonResult) {
        self.init(
            group: result.group, controlGroup: result.controlGroup, metric: result.metric.csvName, controlValue: result.controlValue,
            value: result.value, lift: LiftValues(result))
        (mdeAbs, sequential, adjusted) = (result.mdeAbs, SequentialValues(result), AdjustedIntervals(result))
    }
}

/// A row of `comparisons`.
package struct ComparisonRow: TypedRow, Equatable {
    package var offeringID = ""
    package var comparison = ComparisonValues()
    /// `projected_arpu_365` rows only: the far ends of the absolute difference, from none of what
    /// the data cannot identify to the most they allow (docs/statistics.md, "The year at the rates
    /// seen"); empty on every other metric.
    package var absLiftBoundLow: Double?
    package var absLiftBoundHigh: Double?

    static let table = TypedTable<ComparisonRow>(
        name: "comparisons", keys: [.offeringID, .group, .metric],
        columns: [.init(.offeringID, \.offeringID)] + ComparisonValues.columns.map { $0.of(\.comparison) } + [
            .init(.absLiftBoundLow, \.absLiftBoundLow), .init(.absLiftBoundHigh, \.absLiftBoundHigh),
        ])
}

/// The sample-ratio check of an offering or a slice level; all nil when it has no users.
package struct SampleRatioValues: Sendable, Equatable {
    package var chi2: Double?
    package var pValue: Double?
    package var flagged: Bool?

    static let columns: [TableColumn<SampleRatioValues>] = [
        .init(.chi2, \.chi2), .init(.srmPValue, \.pValue), .init(.srmFlag, \.flagged),
    ]

    package init(
        chi2: Double? = nil, pValue: Double? = nil, flagged: Bool? = nil
    ) {
        self.chi2 = chi2
        self.pValue = pValue
        self.flagged = flagged
    }
}

extension SampleRatioValues {
    init(_ result: SampleRatioMismatchResult?) {
        self.init(chi2: result?.chiSquared, pValue: result?.pValue, flagged: result?.isFlagged)
    }
}

/// A row of `srm`: the night's χ² check, then the always-valid one.
package struct SampleRatioRow: TypedRow, Equatable {
    package var offeringID = ""
    package var check = SampleRatioValues()
    /// ln BF of the Dirichlet mixture against the weights; nil without users.
    package var seqLogBayesFactor: Double?
    /// The least min(1, 1/BF) of this night and the job's earlier successful nights.
    package var seqPValue: Double?
    /// `seqPValue` < 0.001.
    package var seqFlagged: Bool?

    static let table = TypedTable<SampleRatioRow>(
        name: "srm", keys: [.offeringID],
        columns: [.init(.offeringID, \.offeringID)] + SampleRatioValues.columns.map { $0.of(\.check) } + [
            .init(.seqSRMLogBayesFactor, \.seqLogBayesFactor), .init(.seqSRMPValue, \.seqPValue), .init(.seqSRMFlag, \.seqFlagged),
        ])
}

/// The columns before a slice level's values: `offering_id`, `dimension`, `level`.
package struct SliceKey: Sendable, Equatable {
    package var offeringID = ""
    /// The slice field (`country`, `platform`).
    package var dimension = ""
    package var level = ""

    static let columns: [TableColumn<SliceKey>] = [
        .init(.offeringID, \.offeringID), .init(.dimension, \.dimension), .init(.level, \.level),
    ]

    package init(
        offeringID: String = "", dimension: String = "", level: String = ""
    ) {
        self.offeringID = offeringID
        self.dimension = dimension
        self.level = level
    }
}

/// A row of `slice_summary` (docs/analysis.md §7): `summary`'s first columns and a group's
/// metrics, per slice level.
package struct SliceSummaryRow: TypedRow, Equatable {
    package var slice = SliceKey()
    package var group = ""
    package var isControl = false
    package var weight = 0.0
    package var metrics = GroupMetrics()

    static let table = TypedTable<SliceSummaryRow>(
        name: "slice_summary", keys: SliceKey.columns.map(\.column) + [.group],
        columns: SliceKey.columns.map { $0.of(\.slice) }
            + [.init(.group, \.group), .init(.isControl, \.isControl), .init(.weight, \.weight)]
            + GroupMetrics.columns.map { $0.of(\.metrics) })
}

/// A row of `slice_comparisons`.
package struct SliceComparisonRow: TypedRow, Equatable {
    package var slice = SliceKey()
    package var comparison = ComparisonValues()

    static let table = TypedTable<SliceComparisonRow>(
        name: "slice_comparisons", keys: SliceKey.columns.map(\.column) + [.group, .metric],
        columns: SliceKey.columns.map { $0.of(\.slice) } + ComparisonValues.columns.map { $0.of(\.comparison) })
}

/// A row of `slice_srm`.
package struct SliceSampleRatioRow: TypedRow, Equatable {
    package var slice = SliceKey()
    package var check = SampleRatioValues()

    static let table = TypedTable<SliceSampleRatioRow>(
        name: "slice_srm", keys: SliceKey.columns.map(\.column),
        columns: SliceKey.columns.map { $0.of(\.slice) } + SampleRatioValues.columns.map { $0.of(\.check) })
}
