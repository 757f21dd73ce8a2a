import OfferLabJob
import OfferLabSupport

/// The night's own parts (contract §3.3, `NightPart`), each a result in the long form of
/// `NightPart.columns`: the rows `offerlab run --parts` writes for the same job, value for value
/// (docs/warehouse.md "The night's parts").
extension ScriptBuilder {
    /// The last statement of a night part's script (a part may add statements of its own first).
    func nightPartResult(_ part: NightPart) -> String {
        switch part {
        case .events: eventsResult()
        case .assignments: assignmentsResult()
        case .tenure: tenureResult()
        case .dailyTotals: dailyTotalsResult()
        case .observations: observationsResult()
        case .past: pastResult()
        case .backtest: backtestResult()
        }
    }

    /// A row of the long form: `night`, the offering, group, statistic, products and keys given
    /// (the rest NULL, as an engine writes them), and the value.
    func longFormRow(
        offering: String = "''", group: String = "''", statistic: String, product: String = "''", nextProduct: String = "''",
        keys: [String] = [], value: String
    ) -> String {
        let keyColumns = (0..<3).map { $0 < keys.count ? "CAST(\(keys[$0]) AS BIGINT)" : "CAST(NULL AS BIGINT)" }
        let columns = [night, offering, group, statistic, product, nextProduct] + keyColumns + [value]
        return "SELECT " + zip(columns, NightPart.columns).map { "\($0) AS \(dialect.identifier($1))" }.joined(separator: ", ")
    }

    /// `events`: the valid log events before `as_of` and the latest one's time, as `run` counts
    /// the events it keeps (`NightResults.eventsBeforeAsOf`, `.latestEvent`); with `history_logs`,
    /// their files' lines read and malformed by reason (`NightParts.eventRows`).
    func eventsResult() -> String {
        let valid = "FROM log_events WHERE reason IS NULL AND ts < \(job.run.night.microseconds)"
        let history =
            job.history.patterns.isEmpty
            ? ""
            : """

            UNION ALL
            \(longFormRow(statistic: t("history_lines_read"), value: "count(*)")) FROM history_events HAVING count(*) > 0
            UNION ALL
            \(longFormRow(statistic: "concat('history_', reason)", value: "count(*)")) FROM history_events WHERE reason IS NOT NULL GROUP BY reason
            """
        return """
            SELECT r.* FROM (
            \(longFormRow(statistic: t("valid_before_as_of"), value: "count(*)")) \(valid)
            UNION ALL
            \(longFormRow(statistic: t("latest_at"), value: "max(ts)")) \(valid) HAVING max(ts) IS NOT NULL\(history)
            ) r CROSS JOIN line_check
            WHERE line_check.failure IS NULL;
            """
    }
}
