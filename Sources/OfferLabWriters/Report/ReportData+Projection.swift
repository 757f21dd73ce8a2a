/// One row of `projection.csv` (contract §2.14).
struct ProjectedGroup: Sendable, Equatable {
    var group: String
    var users: Int
    /// The members' mean of min(as_of − assigned_at, 365 days), in days.
    var observedDaysMean: Double?
    var realizedARPU: Double?
    var projectedARPU365: Double?
    /// Present without a projection when the renewals are bounded, not estimated.
    var low: Double?
    var high: Double?
    /// Why `projectedARPU365` is empty ("" when it has a value).
    var reason: String
}

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

extension ReportData {
    /// The projection of the offering `offeringID` from the `projection` rows and the
    /// `projected_arpu_365` rows of `comparisons` (none for a night stored without them).
    static func projection(offeringID: String, projection: [Row], comparisons: [Row]) -> (
        groups: [ProjectedGroup], comparisons: [ProjectedComparison]
    ) {
        let groups = projection.filter { $0.text(.offeringID) == offeringID }.map { row in
            ProjectedGroup(
                group: row.text(.group) ?? "", users: row.int(.users), observedDaysMean: row.double(.observedDaysMean),
                realizedARPU: row.double(.realizedARPU), projectedARPU365: row.double(.projectedARPU365),
                low: row.double(.projectedARPU365CILow), high: row.double(.projectedARPU365CIHigh), reason: row.text(.reason) ?? "")
        }
        let compared = comparisons.filter { $0.text(.offeringID) == offeringID && $0.text(.metric) == projectedMetric }.map { row in
            ProjectedComparison(
                group: row.text(.group) ?? "", difference: row.estimate(.absLift, low: .absLiftCILow, high: .absLiftCIHigh),
                differenceLow: row.double(.absLiftCILow), differenceHigh: row.double(.absLiftCIHigh),
                relative: row.estimate(.relLift, low: .relLiftCILow, high: .relLiftCIHigh), pValueAdjusted: row.double(.pValueAdjusted),
                significant: row.bool(.significant), chanceToBeatControl: row.double(.chanceToBeatControl))
        }
        return (groups, compared)
    }
}
