import OfferLabResults

extension ResultColumn {
    // The app's own track record (docs/statistics.md#the-apps-own-track-record), in `backtest`.
    static let readDay = ResultColumn("read_day", .integer)
    static let cohortMonth = ResultColumn("cohort_month", .text)
    static let buyers = ResultColumn("buyers", .integer)
    static let projectedRevenuePerBuyer = ResultColumn("projected_revenue_per_buyer", .money)
    static let ciLow = ResultColumn("ci_low", .money)
    static let ciHigh = ResultColumn("ci_high", .money)
    static let realizedRevenuePerBuyer = ResultColumn("realized_revenue_per_buyer", .money)
    static let horizonDays = ResultColumn("horizon_days", .integer)
    static let covered = ResultColumn("covered", .bool)
}

extension ResultTables {
    /// `backtest.csv`: one row per cohort, by product, read day and month; `covered` compares the
    /// amounts as written (to the micro-unit), so that a paid amount equal to an interval's end
    /// (a year with nothing left to project) is held by it whatever the float noise of its sums.
    static func backtest(_ outcomes: [BacktestOutcome]) -> [BacktestRow] {
        outcomes.map { outcome in
            let written = ResultColumnType.microUnits
            return BacktestRow(
                productID: outcome.productID, readDay: outcome.readDay, cohortMonth: outcome.cohortMonth, buyers: outcome.buyers,
                projectedRevenuePerBuyer: outcome.projected, low: outcome.interval?.low, high: outcome.interval?.high,
                realizedRevenuePerBuyer: outcome.realized, horizonDays: outcome.horizonDays,
                covered: outcome.interval.map {
                    written($0.low) <= written(outcome.realized) && written(outcome.realized) <= written($0.high)
                })
        }
    }
}
