import OfferLabResults

extension ResultColumn {
    // The app's own track record (docs/statistics.md#the-apps-own-track-record), in `backtest`.
    static let readDay = ResultColumn("read_day", .integer)
    static let cohortMonth = ResultColumn("cohort_month", .text)
    static let buyers = ResultColumn("buyers", .integer)
    static let projectedRevenuePerBuyer = ResultColumn("projected_revenue_per_buyer", .real)
    static let ciLow = ResultColumn("ci_low", .real)
    static let ciHigh = ResultColumn("ci_high", .real)
    static let realizedRevenuePerBuyer = ResultColumn("realized_revenue_per_buyer", .real)
    static let horizonDays = ResultColumn("horizon_days", .integer)
    static let covered = ResultColumn("covered", .bool)
}

extension ResultTables {
    /// `backtest.csv`: one row per cohort, by product, read day and month.
    static func backtest(_ outcomes: [BacktestOutcome]) -> [BacktestRow] {
        outcomes.map { outcome in
            BacktestRow(
                productID: outcome.productID, readDay: outcome.readDay, cohortMonth: outcome.cohortMonth, buyers: outcome.buyers,
                projectedRevenuePerBuyer: outcome.projected, low: outcome.interval?.low, high: outcome.interval?.high,
                realizedRevenuePerBuyer: outcome.realized, horizonDays: outcome.horizonDays, covered: outcome.covered)
        }
    }
}
