import OfferLabAnalysis
import OfferLabIngest
import OfferLabStatistics
import OfferLabVocabulary

/// The capped and matured sums and the slices (docs/analysis.md §4b, §4c, §7), after `analyse`.
extension ScriptBuilder {
    /// The sufficient statistics over the members `v` of a group (NULL when it has none): users,
    /// converters, Σ `revenue` and Σ `revenue`² (`revenue`: an expression of `v`), for the own,
    /// capped and matured rows alike.
    static func statisticSums(revenue: String) -> String {
        """
        count(v.user_id) AS users, coalesce(sum(v.converted), 0) AS converters,
          coalesce(sum(\(revenue)), 0) AS revenue_sum, coalesce(sum((\(revenue)) * (\(revenue))), 0) AS revenue_sum_squares
        """
    }

    /// The sums of summary.csv's columns over the members `v` of a group (rows of
    /// `member_values`, or NULL when the group has none), after `weight`.
    static let groupSums = """
        \(statisticSums(revenue: "v.net")),
          coalesce(sum(v.trial_started), 0) AS trial_starters, coalesce(sum(v.trial_converted), 0) AS trial_converters,
          coalesce(sum(v.viewed), 0) AS paywall_viewers, coalesce(sum(v.purchases), 0) AS purchases,
          coalesce(sum(v.renewals), 0) AS renewals, coalesce(sum(v.refunds), 0) AS refunds,
          coalesce(sum(v.gross), 0) AS gross_revenue, coalesce(sum(v.refunded), 0) AS refunded_revenue, coalesce(sum(v.net), 0) AS net_revenue,
          coalesce(sum(v.net_proceeds), 0) AS proceeds_sum, coalesce(sum(v.net_proceeds * v.net_proceeds), 0) AS proceeds_sum_squares,
          \(trialSums),
          coalesce(sum(v.charge_proceeds), 0) AS charge_proceeds_sum, coalesce(sum(v.exact_proceeds), 0) AS exact_proceeds_sum
        """

    /// docs/analysis.md §9's counts over the members `v` of a group.
    static let trialSums =
        (["converted", "pending", "lapsed", "unknown"].map {
            "coalesce(sum(CASE WHEN v.trial_state = '\($0)' THEN 1 ELSE 0 END), 0) AS trials_\($0)"
        } + [
            "coalesce(sum(v.active), 0) AS active_subscribers", "coalesce(sum(v.churned), 0) AS churned_subscribers",
            "coalesce(sum(CASE WHEN v.refunds > 0 THEN 1 ELSE 0 END), 0) AS refund_users",
        ]).joined(
            separator: ", ")

    /// The columns of `groupSums` after `revenue_sum_squares`: summary.csv's counts and money,
    /// NULL on the capped and matured rows (they are the group's own row's).
    static let summaryOnlyColumns =
        AggregateStatistics.summaryColumns + ["net_revenue"] + AggregateStatistics.sliceProceedsColumns
        + AggregateStatistics.chargeProceedsColumns

    /// Each member's money from the money events of `source` (with `money_currency`, `rate`,
    /// `money_micros`, `event` and the `keys`), per `keys`: exact micro-units per currency,
    /// converted once, as `run` converts a member's money (docs/analysis.md §3).
    func memberMoney(of source: String, per keys: [String]) -> String {
        let keyList = keys.joined(separator: ", ")
        return """
            SELECT \(keyList),
              sum(CAST(gross AS DOUBLE) / 1000000 * rate) AS gross, sum(CAST(refunded AS DOUBLE) / 1000000 * rate) AS refunded,
              sum(CAST(gross - refunded AS DOUBLE) / 1000000 * rate) AS net
            FROM (
              SELECT \(keyList), money_currency, rate,
                sum(CASE WHEN event IN \(chargeEvents) THEN money_micros ELSE 0 END) AS gross,
                sum(CASE WHEN event = \(eventName(.refund)) THEN money_micros ELSE 0 END) AS refunded
              FROM \(source) WHERE counted AND rate IS NOT NULL AND money_micros IS NOT NULL
              GROUP BY \(keyList), money_currency, rate) per_currency
            GROUP BY \(keyList)
            """
    }

    /// `revenue_caps(offering_key, cap)` (docs/analysis.md §4b): the job's value, or the percentile of the
    /// positive member revenues of the offering, all groups pooled, interpolated as
    /// `linearQuantile` does (NULL: no positive revenue, no cap).
    mutating func revenueCaps(_ rule: RevenueCapRule) {
        switch rule {
        case .value(let amount):
            add(dialect.view("revenue_caps", "SELECT offering_key, \(double(amount)) AS cap FROM analysed_offerings"))
        case .percentile(let p):
            add(
                dialect.view(
                    "revenue_caps",
                    """
                    SELECT a.offering_key, q.lower_value + (q.h - q.lower_rank) * (q.upper_value - q.lower_value) AS cap
                    FROM analysed_offerings a
                    LEFT JOIN (
                      SELECT offering_key, h, lower_rank,
                        max(CASE WHEN net_rank = lower_rank THEN net END) AS lower_value,
                        max(CASE WHEN net_rank = least(lower_rank + 1, paying - 1) THEN net END) AS upper_value
                      FROM (SELECT offering_key, net, net_rank, paying, h, CAST(floor(h) AS BIGINT) AS lower_rank
                        FROM (SELECT offering_key, net, row_number() OVER (PARTITION BY offering_key ORDER BY net) - 1 AS net_rank,
                            count(*) OVER (PARTITION BY offering_key) AS paying,
                            \(double(p)) * CAST(count(*) OVER (PARTITION BY offering_key) - 1 AS DOUBLE) AS h
                          FROM member_values WHERE net > 0) ranked) positioned
                      GROUP BY offering_key, h, lower_rank) q ON q.offering_key = a.offering_key
                    """))
        }
    }

    /// `maturities(days, micros, metric, metric_position)` and `matured_values` (docs/analysis.md §4c): per
    /// member and D, whether they have matured, their conversion and revenue before D days
    /// (a refund by its own time).
    mutating func maturedValues(_ days: [Int]) {
        let rows = days.enumerated().map { index, days in
            "(\(days), \(Int64(days) * Microseconds.perDay), \(t("d\(days)")), \(index + 2))"
        }
        add(
            dialect.view(
                "maturities", "SELECT * FROM (VALUES \(rows.joined(separator: ", "))) AS d(days, micros, metric, metric_position)"))
        let maturedEvents = """
            (SELECT x.offering_key, x.user_id, d.days, x.event, x.counted, x.money_currency, x.rate, x.money_micros
              FROM attributed x JOIN maturities d ON x.assigned_at + d.micros <= \(job.run.night.microseconds) AND x.ts < x.assigned_at + d.micros) matured_events
            """
        // A view: only the aggregates read it, once.
        add(
            dialect.view(
                "matured_values",
                """
                SELECT v.offering_key, v.group_key, v.user_id, d.days, coalesce(c.converted, 0) AS converted, coalesce(money.net, 0) AS net
                FROM member_values v
                JOIN maturities d ON v.assigned_at + d.micros <= \(job.run.night.microseconds)
                LEFT JOIN (SELECT DISTINCT offering_key, user_id, days, 1 AS converted FROM \(maturedEvents) WHERE counted AND event = \(eventName(.purchase))) c
                  ON c.offering_key = v.offering_key AND c.user_id = v.user_id AND c.days = d.days
                LEFT JOIN (\(memberMoney(of: maturedEvents, per: ["offering_key", "user_id", "days"]))) money
                  ON money.offering_key = v.offering_key AND money.user_id = v.user_id AND money.days = d.days
                """))
    }

    /// `slice_members` (each member once per slice field, with their `member_values` and level:
    /// the field on their earliest counted non-refund event that has it, NULL for `(none)`) and
    /// `slice_levels` (the levels ranked by members, those past `max_slice_levels` merged into
    /// `(other)`), docs/analysis.md §7.
    mutating func sliceLevels() {
        let perField = job.analysis.slices.enumerated().map { position, field in
            """
            SELECT v.*, \(t(field.rawValue)) AS dimension, \(position) AS dimension_position, l.level
            FROM member_values v
            LEFT JOIN (SELECT offering_key, user_id, \(field.rawValue) AS level,
                row_number() OVER (PARTITION BY offering_key, user_id ORDER BY ts, file_index, line_number) AS earliest
              FROM attributed WHERE counted AND event <> \(eventName(.refund)) AND \(field.rawValue) IS NOT NULL) l
              ON l.offering_key = v.offering_key AND l.user_id = v.user_id AND l.earliest = 1
            """
        }
        // Materialized: the slices result reads it twice (to rank the levels, and to sum them).
        add(dialect.materialize("slice_members", perField.joined(separator: "\nUNION ALL\n")))
        let kept = job.analysis.maxSliceLevels
        // The level `(none)` is NULL until it is named, so a logged value "(none)" stays its own level.
        add(
            dialect.view(
                "slice_levels",
                """
                SELECT offering_key, dimension, dimension_position, level,
                  CASE WHEN level_rank <= \(kept) THEN level_rank ELSE \(kept + 1) END AS level_position,
                  CASE WHEN level_rank > \(kept) THEN \(t(SliceResult.otherLevel)) ELSE coalesce(level, \(t(SliceResult.noneLevel))) END AS level_text
                FROM (SELECT offering_key, dimension, dimension_position, level,
                    row_number() OVER (PARTITION BY offering_key, dimension ORDER BY count(*) DESC, coalesce(level, \(t(SliceResult.noneLevel)))) AS level_rank
                  FROM slice_members GROUP BY offering_key, dimension, dimension_position, level) ranked
                """))
    }

    /// The aggregates: each group's own row (empty `metric`), then its `arpu_capped` row (with
    /// the offering's `revenue_cap` and the group's `capped_users`), then one row per D (`d7`),
    /// each block in group order.
    func aggregatesResult() -> String {
        let group = dialect.identifier("group")
        let nulls = Self.summaryOnlyColumns.map { "NULL AS \($0)" }.joined(separator: ", ")
        let groups = """
            FROM analysed_offerings a
            JOIN catalog_groups g ON g.offering_key = a.offering_key
            """
        let groupColumns = "a.offering_id, g.group_name AS \(group), g.position, g.is_control, g.weight"
        let groupKey = "a.offering_id, g.group_name, g.position, g.is_control, g.weight"
        var blocks = [
            """
            SELECT \(groupColumns), '' AS metric, 0 AS metric_position, \(Self.groupSums),
              CAST(NULL AS DOUBLE) AS revenue_cap, CAST(NULL AS BIGINT) AS capped_users
            \(groups)
            LEFT JOIN member_values v ON v.group_key = g.group_key
            GROUP BY \(groupKey)
            """
        ]
        if job.analysis.revenueCap != nil {
            let capped = "CASE WHEN v.net > c.cap THEN c.cap ELSE v.net END"
            blocks.append(
                """
                SELECT \(groupColumns), 'arpu_capped' AS metric, 1 AS metric_position,
                  \(Self.statisticSums(revenue: capped)), \(nulls),
                  c.cap AS revenue_cap, coalesce(sum(CASE WHEN v.net > c.cap THEN 1 ELSE 0 END), 0) AS capped_users
                \(groups)
                JOIN revenue_caps c ON c.offering_key = a.offering_key
                LEFT JOIN member_values v ON v.group_key = g.group_key
                GROUP BY \(groupKey), c.cap
                """)
        }
        if !job.analysis.maturityDays.isEmpty {
            blocks.append(
                """
                SELECT \(groupColumns), d.metric, d.metric_position,
                  \(Self.statisticSums(revenue: "v.net")), \(nulls),
                  NULL AS revenue_cap, NULL AS capped_users
                \(groups)
                CROSS JOIN maturities d
                LEFT JOIN matured_values v ON v.group_key = g.group_key AND v.days = d.days
                GROUP BY \(groupKey), d.metric, d.metric_position
                """)
        }
        // docs/analysis.md §8–§9 and the decision's guardrail: proceeds per user (compared as arpu),
        // completed trials and the refund user rate (as conversion), each a row per group of its members.
        func membersRow(_ metric: String, position: Int, sums: String) -> String {
            """
            SELECT \(groupColumns), '\(metric)' AS metric, \(position) AS metric_position,
              \(sums), \(nulls),
              NULL AS revenue_cap, NULL AS capped_users
            \(groups)
            LEFT JOIN member_values v ON v.group_key = g.group_key
            GROUP BY \(groupKey)
            """
        }
        let noRevenue = "\(double(0)) AS revenue_sum, \(double(0)) AS revenue_sum_squares"
        blocks += [
            membersRow(Metric.proceedsPerUser.csvName, position: 1_000_000, sums: Self.statisticSums(revenue: "v.net_proceeds")),
            membersRow(
                Metric.trialCompletedConversion.csvName, position: 1_000_001,
                sums: """
                    coalesce(sum(CASE WHEN v.trial_state IN ('converted', 'lapsed') THEN 1 ELSE 0 END), 0) AS users,
                      coalesce(sum(CASE WHEN v.trial_state = 'converted' THEN 1 ELSE 0 END), 0) AS converters, \(noRevenue)
                    """),
            membersRow(
                Metric.refundUserRate.csvName, position: 1_000_002,
                sums:
                    "count(v.user_id) AS users, coalesce(sum(CASE WHEN v.refunds > 0 THEN 1 ELSE 0 END), 0) AS converters, \(noRevenue)"
            ),
        ]
        let columns =
            ["offering_id", group, "metric"] + AggregateStatistics.columns[2...] + AggregateStatistics.summaryColumns + ["net_revenue"]
            + AggregateStatistics.cappedColumns + AggregateStatistics.trialColumns + AggregateStatistics.chargeProceedsColumns
        return """
            SELECT \(columns.map { "r.\($0)" }.joined(separator: ", ")), \(night) AS night FROM (
            \(blocks.joined(separator: "\nUNION ALL\n"))
            ) r CROSS JOIN line_check
            WHERE line_check.failure IS NULL
            ORDER BY r.offering_id, r.metric_position, r.position;
            """
    }

    /// One row per (offering, slice field, level, group), every group in every level: fields in
    /// the job's order, levels by rank, `(other)` last.
    func slicesResult() -> String {
        """
        SELECT a.offering_id, k.dimension, k.level_text AS level, g.group_name AS \(dialect.identifier("group")), g.is_control, g.weight,
          \(Self.groupSums), \(night) AS night
        FROM analysed_offerings a
        JOIN (SELECT DISTINCT offering_key, dimension, dimension_position, level_position, level_text FROM slice_levels) k ON k.offering_key = a.offering_key
        JOIN catalog_groups g ON g.offering_key = a.offering_key
        LEFT JOIN (
          SELECT s.*, l.level_position FROM slice_members s
          JOIN slice_levels l ON l.offering_key = s.offering_key AND l.dimension = s.dimension AND l.level IS NOT DISTINCT FROM s.level) v
          ON v.group_key = g.group_key AND v.dimension = k.dimension AND v.level_position = k.level_position
        CROSS JOIN line_check
        WHERE line_check.failure IS NULL
        GROUP BY a.offering_id, k.dimension, k.dimension_position, k.level_position, k.level_text, g.group_name, g.position, g.is_control, g.weight
        ORDER BY a.offering_id, k.dimension_position, k.level_position, g.position;
        """
    }
}
