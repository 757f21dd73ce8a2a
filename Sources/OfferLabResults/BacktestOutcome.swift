import OfferLabAnalysis
import OfferLabProjection
import OfferLabStatistics
import OfferLabSupport

/// One cohort of the app's own track record (docs/statistics.md#the-apps-own-track-record): what
/// the night's projection, run on the past as it stood at the cohort's read day, said its buyers
/// would pay by the horizon, and what they paid.
package struct BacktestOutcome: Sendable, Equatable {
    package var productID: String
    package var readDay: Int
    /// `YYYY-MM`.
    package var cohortMonth: String
    package var buyers: Int
    /// The projected revenue per buyer by the horizon and its (1 − alpha) interval; nil when the
    /// past then had seen no rate of what the horizon needs (the projection's `gap`).
    package var projected: Double?
    package var interval: ConfidenceInterval?
    package var realized: Double
    package var horizonDays: Int

    /// Draws per cohort, a fifth of a night's group's: `backtest.csv` reads a cohort's interval
    /// for whether it holds the paid amount and nothing more, which 200 draws tell (a 95 % end
    /// between the 5th and 6th of them), and a night with a year of past has about 65 cohorts
    /// against its few groups (docs/performance-history.md, "The decision of issue 77").
    package static let replicates = 200

    /// `cohort` projected by `projectOffering`, the night's own code path (its buyers the one group,
    /// the past as it stood at the cut), to the cohort's horizon, with `replicates` draws at the
    /// rates seen (its far ends are not drawn: `backtest.csv` has none) and a seed
    /// from the cut and the product alone (`OfferingStatistics.projectionSeed`).
    /// - Throws: `OfferLabError` (`.rejectedTotals`) when the projection rejects its inputs.
    package init(_ cohort: BacktestCohorts.Cohort, alpha: Double) throws {
        var generator = SplitMix64(state: OfferingStatistics.projectionSeed(asOf: cohort.readAt, offeringID: cohort.productID))
        let projection: OfferingProjection
        do {
            projection = try projectOffering(
                groups: [cohort.members], control: 0, products: cohort.products, past: cohort.past,
                configuration: ProjectionConfiguration(
                    asOf: cohort.readAt, alpha: alpha, replicates: Self.replicates,
                    horizonDays: Double(cohort.horizonDays), drawsFarEnds: false),
                using: &generator)
        } catch {
            throw OfferLabError(
                .rejectedTotals, "backtest of \(cohort.productID), \(cohort.monthText), day \(cohort.readDay): projection: \(error)",
                cause: error)
        }
        let group = projection.groups[0]
        productID = cohort.productID
        readDay = cohort.readDay
        cohortMonth = cohort.monthText
        buyers = cohort.buyers
        projected = group.projectedARPU365
        interval = group.interval
        realized = cohort.realizedRevenue / Double(cohort.buyers)
        horizonDays = cohort.horizonDays
    }
}
