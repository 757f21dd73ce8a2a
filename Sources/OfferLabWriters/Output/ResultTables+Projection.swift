import OfferLabAnalysis
import OfferLabProjection
import OfferLabResults
import OfferLabStatistics

extension ResultColumn {
    // The 365-day projection (contract §2.14), in `projection`.
    static let observedDaysMean = ResultColumn("observed_days_mean", .real)
    static let realizedARPU = ResultColumn("realized_arpu", .real)
    static let projectedARPU365 = ResultColumn("projected_arpu_365", .real)
    static let projectedARPU365CILow = ResultColumn("projected_arpu_365_ci_low", .real)
    static let projectedARPU365CIHigh = ResultColumn("projected_arpu_365_ci_high", .real)
}

extension ResultSchema {
    /// Per (offering, group): the projection of contract §2.14, then `reason`: why
    /// `projected_arpu_365` is empty (empty when it has a value).
    static let projection = ResultSchema(
        name: "projection",
        columns: [
            .offeringID, .group, .users, .observedDaysMean, .realizedARPU, .projectedARPU365, .projectedARPU365CILow,
            .projectedARPU365CIHigh, .reason,
        ],
        keys: [.offeringID, .group])
}

/// The `comparisons.csv` metric of the projection's rows.
let projectedMetric = "projected_arpu_365"

extension ResultTables {
    /// `projection.csv`: one row per (offering, group) of the offerings whose members were read.
    static func projectionTable(_ offerings: [OfferingResult], statistics: [OfferingStatistics]) -> ResultTable {
        var table = ResultTable(.projection)
        for (result, statistics) in zip(offerings, statistics) {
            guard let projection = statistics.projection else { continue }
            for group in projection.groups {
                table.rows.append([
                    .text(result.offering.offeringID), .text(group.group), .integer(group.users), .real(group.observedDaysMean),
                    .real(group.realizedARPU), .real(group.projectedARPU365), .real(group.interval?.low), .real(group.interval?.high),
                    .text(group.gap.map { reason($0, productIDs: result.projection?.productIDs ?? []) } ?? ""),
                ])
            }
        }
        return table
    }

    /// Why a group's projection is empty, naming products by `product_id`.
    static func reason(_ gap: ProjectionGap, productIDs: [String]) -> String {
        guard case .renewalsNotObserved(let product, let observed, let needed) = gap else { return gap.description }
        let id =
            productIDs.indices.contains(product) && !productIDs[product].isEmpty
            ? productIDs[product] : "a product the catalog does not list"
        let renewals = needed == 1 ? "renewal 1 is" : "renewals 1 to \(needed) are"
        return "\(id): \(renewals) needed, the test has enough subscribers due for \(observed == 0 ? "none" : "the first \(observed)"); "
            + "the interval assumes anything from none to all renewing"
    }

    /// `comparisons` with each offering's `projected_arpu_365` rows after its own: the columns of
    /// an `arpu` row; `p_value_adjusted` is Holm's over the offering's treatments with a p-value,
    /// `significant` below alpha; `mde_abs`, the sequential and the `…_adjusted` columns are empty
    /// (docs/statistics.md, "The projection in a run").
    static func withProjectedRows(
        _ comparisons: ResultTable, offerings: [OfferingResult], statistics: [OfferingStatistics], alpha: Double
    ) -> ResultTable {
        var table = ResultTable(comparisons.schema)
        var remaining = comparisons.rows[...]
        for (result, statistics) in zip(offerings, statistics) {
            let offeringID = result.offering.offeringID
            let own = remaining.prefix { $0.first == .text(offeringID) }
            table.rows += own
            remaining = remaining.dropFirst(own.count)
            guard let projection = statistics.projection else { continue }
            let adjusted = holmBonferroni(projection.comparisons.compactMap(\.pValue))
            var next = adjusted.makeIterator()
            for comparison in projection.comparisons {
                let controlValue = projection.groups.first { $0.group == comparison.controlGroup }?.projectedARPU365
                let value = projection.groups.first { $0.group == comparison.group }?.projectedARPU365
                let pAdjusted = comparison.pValue == nil ? nil : next.next()
                let lift: [ResultValue] =
                    [
                        comparison.difference, comparison.differenceInterval?.low, comparison.differenceInterval?.high,
                        comparison.relativeDifference, comparison.relativeInterval?.low, comparison.relativeInterval?.high,
                        comparison.pValue,
                        pAdjusted,
                    ].map { .real($0) } + [.bool(pAdjusted.map { $0 < alpha }), .real(comparison.chanceToBeatControl)]
                table.rows.append(
                    [
                        .text(offeringID), .text(comparison.group), .text(comparison.controlGroup), .text(projectedMetric),
                        .real(controlValue),
                        .real(value),
                    ] + lift + [.real(nil)] + sequentialValues(nil) + ResultColumn.adjusted.map { _ in .real(nil) })
            }
        }
        table.rows += remaining
        return table
    }
}
