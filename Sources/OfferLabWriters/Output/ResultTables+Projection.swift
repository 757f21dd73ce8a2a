import OfferLabAnalysis
import OfferLabProjection
import OfferLabResults
import OfferLabStatistics
import OfferLabVocabulary

extension ResultColumn {
    // The 365-day projection (docs/statistics.md#the-projection-in-a-run), in `projection`.
    static let observedDaysMean = ResultColumn("observed_days_mean", .real)
    static let realizedARPU = ResultColumn("realized_arpu", .real)
    static let projectedARPU365 = ResultColumn("projected_arpu_365", .real)
    static let projectedARPU365CILow = ResultColumn("projected_arpu_365_ci_low", .real)
    static let projectedARPU365CIHigh = ResultColumn("projected_arpu_365_ci_high", .real)
    static let projectedARPU365BoundLow = ResultColumn("projected_arpu_365_bound_low", .real)
    static let projectedARPU365BoundHigh = ResultColumn("projected_arpu_365_bound_high", .real)
    // The far ends of a `projected_arpu_365` comparison, in `comparisons`.
    static let absLiftBoundLow = ResultColumn("abs_lift_bound_low", .real)
    static let absLiftBoundHigh = ResultColumn("abs_lift_bound_high", .real)
    // What the year rests on (docs/statistics.md#what-the-year-rests-on).
    static let observedShare = ResultColumn("observed_share", .real)
    static let ownRatesShare = ResultColumn("own_rates_share", .real)
    static let followOnShare = ResultColumn("follow_on_share", .real)
    static let pastShare = ResultColumn("past_share", .real)
    static let continuedShare = ResultColumn("continued_share", .real)
    static let boundedShare = ResultColumn("bounded_share", .real)
    static let pastDetail = ResultColumn("past_detail", .text)
    static let pastMissing = ResultColumn("past_missing", .text)
}

extension ResultTables {
    /// `projection.csv`: one row per (offering, group) of the offerings whose members were read.
    static func projection(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> [ProjectionRow] {
        zip(offerings, statistics).flatMap { result, statistics in
            (statistics.projection?.groups ?? []).map { group in
                ProjectionRow(
                    offeringID: result.offering.offeringID, group: group.group, users: group.users,
                    observedDaysMean: group.observedDaysMean, realizedARPU: group.realizedARPU, projectedARPU365: group.projectedARPU365,
                    low: group.interval?.low, high: group.interval?.high, boundLow: group.bounds?.low,
                    boundHigh: group.bounds?.high,
                    reason: group.gap.map { reason($0, productIDs: result.projection?.productIDs ?? []) } ?? "",
                    observedShare: group.observedShare, ownRatesShare: group.ownRatesShare, followOnShare: group.followOnShare,
                    pastShare: group.pastShare, continuedShare: group.continuedShare, boundedShare: group.boundedShare,
                    pastDetail: group.pastUses.map { $0.description(productName: productName(result)) }.joined(separator: "; "),
                    pastMissing: group.pastMissing.map { $0.description(productName: productName(result)) }.joined(separator: "; "))
            }
        }
    }

    /// Why a group's projection is empty, naming products by `product_id`.
    static func reason(_ gap: ProjectionGap, productIDs: [String]) -> String {
        guard case .yearNotIdentified(let part) = gap else { return gap.description }
        return part.description(productName: productName(productIDs))
    }

    /// A product's name as the projection's texts give it: its `product_id`.
    private static func productName(_ productIDs: [String]) -> (Int) -> String {
        { product in
            productIDs.indices.contains(product) && !productIDs[product].isEmpty
                ? productIDs[product] : "a product the catalog does not list"
        }
    }

    private static func productName(_ result: OfferingResult) -> (Int) -> String {
        productName(result.projection?.productIDs ?? [])
    }

    /// `comparisons` with each offering's `projected_arpu_365` rows after its own: the columns of
    /// an `arpu` row, for a newcomer's expected revenue_365 (`control_value`, `value`: not the
    /// groups' `projection.csv` values, which are their own members'); `p_value_adjusted` is Holm's over the offering's treatments with a p-value,
    /// `significant` below alpha; `mde_abs`, the sequential and the `…_adjusted` columns are empty
    /// (docs/statistics.md, "The projection in a run").
    static func withProjectedRows(
        _ comparisons: [ComparisonRow], offerings: [OfferingResult], statistics: [OfferingStatistics], alpha: Double
    ) -> [ComparisonRow] {
        var rows: [ComparisonRow] = []
        var remaining = comparisons[...]
        for (result, statistics) in zip(offerings, statistics) {
            let offeringID = result.offering.offeringID
            let own = remaining.prefix { $0.offeringID == offeringID }
            rows += own
            remaining = remaining.dropFirst(own.count)
            guard let projection = statistics.projection else { continue }
            let adjusted = holmBonferroni(projection.comparisons.compactMap(\.pValue))
            var next = adjusted.makeIterator()
            for comparison in projection.comparisons {
                let pAdjusted = comparison.pValue == nil ? nil : next.next()
                let lift = LiftValues(
                    absLift: comparison.difference, absLiftCILow: comparison.differenceInterval?.low,
                    absLiftCIHigh: comparison.differenceInterval?.high, relLift: comparison.relativeDifference,
                    relLiftCILow: comparison.relativeInterval?.low, relLiftCIHigh: comparison.relativeInterval?.high,
                    pValue: comparison.pValue, pValueAdjusted: pAdjusted, significant: pAdjusted.map { $0 < alpha },
                    chanceToBeatControl: comparison.chanceToBeatControl)
                rows.append(
                    ComparisonRow(
                        offeringID: offeringID,
                        comparison: ComparisonValues(
                            group: comparison.group, controlGroup: comparison.controlGroup, metric: Metric.projectedARPU365.csvName,
                            controlValue: comparison.controlValue, value: comparison.value, lift: lift),
                        absLiftBoundLow: comparison.boundInterval?.low, absLiftBoundHigh: comparison.boundInterval?.high))
            }
        }
        return rows + remaining
    }
}
