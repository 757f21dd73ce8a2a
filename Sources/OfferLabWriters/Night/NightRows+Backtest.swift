/// A row of `backtest` (docs/statistics.md#the-apps-own-track-record): one cohort of the app's
/// past (a renewing product's buyers whose first charge is in `cohortMonth`) read `readDay` days
/// after each first charge, its projection to `horizonDays` against what it paid by then.
package struct BacktestRow: TypedRow, Equatable {
    package var productID = ""
    package var readDay = 0
    /// `YYYY-MM`.
    package var cohortMonth = ""
    package var buyers = 0
    /// Empty when the past then had seen no rate of what the horizon needs.
    package var projectedRevenuePerBuyer: Double?
    package var low: Double?
    package var high: Double?
    package var realizedRevenuePerBuyer: Double?
    package var horizonDays = 0
    /// Whether [`low`, `high`] held the paid amount; empty without an interval.
    package var covered: Bool?

    static let table = TypedTable<BacktestRow>(
        name: "backtest", keys: [.productID, .readDay, .cohortMonth],
        columns: [
            .init(.productID, \.productID), .init(.readDay, \.readDay), .init(.cohortMonth, \.cohortMonth), .init(.buyers, \.buyers),
            .init(.projectedRevenuePerBuyer, \.projectedRevenuePerBuyer), .init(.ciLow, \.low), .init(.ciHigh, \.high),
            .init(.realizedRevenuePerBuyer, \.realizedRevenuePerBuyer), .init(.horizonDays, \.horizonDays), .init(.covered, \.covered),
        ])
}
