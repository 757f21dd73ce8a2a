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
    package init(_ cohort: ObservedCohort, alpha: Double) throws {
        var generator = SplitMix64(state: OfferingStatistics.projectionSeed(asOf: cohort.readAt, offeringID: cohort.productID))
        let projection: OfferingProjection
        do {
            projection = try projectOffering(
                observed: [cohort.observation], control: 0, products: cohort.products, past: cohort.past,
                configuration: ObservedCohort.configuration(readAt: cohort.readAt, horizonDays: cohort.horizonDays, alpha: alpha),
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

/// A cohort of the track record reduced to what its projection reads (its buyers' observation,
/// the past at its cut) and what `backtest.csv` says of it: made from `run`'s cohorts, or read
/// from the night's `backtest` part.
package struct ObservedCohort: Sendable, Equatable {
    /// What names the cohort and what `backtest.csv` says of it beside the projection.
    package struct Facts: Sendable, Equatable {
        package var productID: String
        /// An index into the cohort's products.
        package var product: Int
        /// Months since year 0 (year · 12 + month − 1) of the buyers' first charges.
        package var month: Int
        package var readDay: Int
        package var buyers: Int
        package var horizonDays: Int
        /// The cut: the projection's `as_of`.
        package var readAt: Int64
        /// Σ over the buyers of what each paid before its first charge + `horizonDays`.
        package var realizedRevenue: Double

        package init(
            productID: String, product: Int, month: Int, readDay: Int, buyers: Int, horizonDays: Int, readAt: Int64, realizedRevenue: Double
        ) {
            self.productID = productID
            self.product = product
            self.month = month
            self.readDay = readDay
            self.buyers = buyers
            self.horizonDays = horizonDays
            self.readAt = readAt
            self.realizedRevenue = realizedRevenue
        }
    }

    package var facts: Facts
    package var products: [ProjectionProduct]
    /// Parallel to `products`.
    package var productIDs: [String]
    package var past: [ProductPast]
    package var observation: GroupObservation

    package init(facts: Facts, products: [ProjectionProduct], productIDs: [String], past: [ProductPast], observation: GroupObservation) {
        self.facts = facts
        self.products = products
        self.productIDs = productIDs
        self.past = past
        self.observation = observation
    }

    package var productID: String { facts.productID }
    package var product: Int { facts.product }
    package var month: Int { facts.month }
    package var readDay: Int { facts.readDay }
    package var buyers: Int { facts.buyers }
    package var horizonDays: Int { facts.horizonDays }
    package var readAt: Int64 { facts.readAt }
    package var realizedRevenue: Double { facts.realizedRevenue }

    /// `cohort`'s buyers observed at its cut and horizon.
    /// - Throws: `OfferLabError` (`.rejectedTotals`) when the projection cannot read its buyers.
    package init(_ cohort: BacktestCohorts.Cohort) throws {
        let observed: [GroupObservation]
        do {
            observed = try observeGroups(
                [cohort.members], products: cohort.products,
                configuration: Self.configuration(readAt: cohort.readAt, horizonDays: cohort.horizonDays, alpha: 0.05))
        } catch {
            throw OfferLabError(
                .rejectedTotals, "backtest of \(cohort.productID), \(cohort.monthText), day \(cohort.readDay): projection: \(error)",
                cause: error)
        }
        self.init(
            facts: Facts(
                productID: cohort.productID, product: cohort.product, month: cohort.month, readDay: cohort.readDay, buyers: cohort.buyers,
                horizonDays: cohort.horizonDays, readAt: cohort.readAt, realizedRevenue: cohort.realizedRevenue),
            products: cohort.products, productIDs: cohort.productIDs, past: cohort.past, observation: observed[0])
    }

    /// The projection's settings for a cohort: its cut, its horizon, `BacktestOutcome.replicates`
    /// draws at the rates seen.
    package static func configuration(readAt: Int64, horizonDays: Int, alpha: Double) -> ProjectionConfiguration {
        ProjectionConfiguration(
            asOf: readAt, alpha: alpha, replicates: BacktestOutcome.replicates, horizonDays: Double(horizonDays), drawsFarEnds: false)
    }

    /// The month as `YYYY-MM`.
    package var monthText: String { BacktestCohorts.monthText(month) }
}
