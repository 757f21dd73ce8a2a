/// A `comparisons.csv` row of metric `projected_arpu_365`.
struct ProjectedComparison: Sendable, Equatable {
    var group: String
    var difference: Estimate?
    /// Its interval without a difference: the bound one (renewals not observed).
    var differenceLow: Double?
    var differenceHigh: Double?
    var relative: Estimate?
    var pValueAdjusted: Double?
    var significant: Bool?
    var chanceToBeatControl: Double?
}

extension ProjectedComparison {
    /// A `projected_arpu_365` comparison.
    init(_ values: ComparisonValues) {
        self.init(
            group: values.group, difference: values.lift.absolute, differenceLow: values.lift.absLiftCILow,
            differenceHigh: values.lift.absLiftCIHigh, relative: values.lift.relative, pValueAdjusted: values.lift.pValueAdjusted,
            significant: values.lift.significant, chanceToBeatControl: values.lift.chanceToBeatControl)
    }
}
