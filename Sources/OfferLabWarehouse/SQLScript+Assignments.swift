import OfferLabAnalysis
import OfferLabIngest
import OfferLabVocabulary

/// The night parts assignments, tenure, dailyTotals (contract §3.3): see `nightPartResult`.
extension ScriptBuilder {
    /// `assignments` (`AssignmentDays`): per group, its members who are not excluded by their
    /// `assigned_at`: the earliest, and the members by whole days before `as_of`, and of them those
    /// exactly so many days before it.
    func assignmentsResult() -> String {
        longFormResult([
            """
            \(longFormRow(offering: "v.offering_id", group: "v.group_name", statistic: t("first_assigned_at"), value: "min(v.assigned_at)"))
            \(nightMembers)
            GROUP BY v.offering_id, v.group_name
            """,
            """
            \(longFormRow(offering: "v.offering_id", group: "v.group_name", statistic: t("members_by_days_before"), keys: ["v.days_before"], value: "count(*)"))
            \(nightMembers)
            GROUP BY v.offering_id, v.group_name, v.days_before
            """,
            """
            \(longFormRow(offering: "v.offering_id", group: "v.group_name", statistic: t("members_exactly_days_before"), keys: ["v.days_before"], value: "sum(v.exactly_days_before)"))
            \(nightMembers)
            GROUP BY v.offering_id, v.group_name, v.days_before HAVING sum(v.exactly_days_before) > 0
            """,
        ])
    }

    /// `tenure` (`TenureProfile`): per group and whole day of tenure (the whole days before
    /// `as_of` it was assigned), its members who are not excluded and their goal: the night's net
    /// revenue.
    func tenureResult() -> String {
        let statistics = [
            ("members_by_tenure_day", "count(*)"), ("goal_sum_by_tenure_day", "sum(v.net)"),
            ("goal_squares_by_tenure_day", "sum(v.net * v.net)"),
        ]
        return longFormResult(
            statistics.map { statistic, value in
                """
                \(longFormRow(offering: "v.offering_id", group: "v.group_name", statistic: t(statistic), keys: ["v.days_before"], value: value))
                \(nightMembers)
                GROUP BY v.offering_id, v.group_name, v.days_before HAVING \(value) <> 0
                """
            })
    }

    /// The FROM of the members who are not excluded (`member_values`) as `v`, with their offering
    /// and group names, their night's net revenue, the whole days from their `assigned_at` to
    /// `as_of` and whether those days are exact (1 or 0).
    private var nightMembers: String {
        let asOf = job.run.night.microseconds
        return """
            FROM (SELECT a.offering_id, g.group_name, v.assigned_at, v.net, \(dialect.divide("\(asOf) - v.assigned_at", dayMicroseconds)) AS days_before,
                CASE WHEN (\(asOf) - v.assigned_at) % \(dayMicroseconds) = 0 THEN 1 ELSE 0 END AS exactly_days_before
              FROM member_values v JOIN analysed_offerings a ON a.offering_key = v.offering_key JOIN catalog_groups g ON g.group_key = v.group_key) v
            """
    }

    /// `daily_totals` (`DailySeries`): per offering its first day, then every group's totals as of
    /// the end of each day (the last one ends at `as_of`), each member evaluated by the rules of
    /// `member_values` with only the events before that end. A member counts from the day of their
    /// assignment; one excluded for naming several groups counts in their first group until the
    /// day of the row that excludes them. A member's values change only on the days of their
    /// assignment, their events and the `expires_at` those carry (`series_cutoffs`): they are
    /// evaluated on those days, and hold until the next one.
    func dailyTotalsResult() -> String {
        var statements = [
            seriesMembers(), seriesEvents(), seriesCutoffs(),
            // Each member's events that count at each of their cutoffs.
            dialect.materialize(
                "series_counted",
                """
                SELECT c.offering_key, c.user_id, c.day, c.cutoff, TRUE AS counted, e.event, e.money_micros, e.money_currency, e.rate, e.proceeds_amount,
                  e.stated_fees, e.expires_at, e.refunded_after, e.refunded_until
                FROM series_cutoffs c
                JOIN series_events e ON e.offering_key = c.offering_key AND e.user_id = c.user_id
                  AND e.counts_after < c.cutoff AND (e.counts_until IS NULL OR c.cutoff <= e.counts_until)
                """),
            seriesValues(),
        ]
        let days: String
        switch dialect {
        case .duckdb: days = "SELECT offering_key, unnest(generate_series(first_day, last_day)) AS day FROM series_bounds"
        case .spark: days = "SELECT offering_key, explode(sequence(first_day, last_day)) AS day FROM series_bounds"
        }
        let statistics = GroupCount.allCases.map(\.column) + GroupMoneySum.allCases.map(\.column)
        // Members whose values hold over the same days are summed first: the days then add up a
        // few sums each, not every member.
        statements.append(
            dialect.materialize(
                "series_totals",
                """
                SELECT a.offering_id, g.group_name, d.day, \(statistics.map { "sum(s.\($0)) AS \($0)" }.joined(separator: ", "))
                FROM (SELECT offering_key, group_key, day, next_day, \(statistics.map { "sum(\($0)) AS \($0)" }.joined(separator: ", "))
                  FROM series_values GROUP BY offering_key, group_key, day, next_day) s
                JOIN (\(days)) d ON d.offering_key = s.offering_key AND d.day >= s.day AND d.day < s.next_day
                JOIN analysed_offerings a ON a.offering_key = s.offering_key
                JOIN catalog_groups g ON g.group_key = s.group_key
                GROUP BY a.offering_id, g.group_name, d.day
                """))
        let firstDay = """
            \(longFormRow(offering: "a.offering_id", statistic: t("first_day"), value: "b.first_day"))
            FROM series_bounds b JOIN analysed_offerings a ON a.offering_key = b.offering_key
            """
        let totals = statistics.map { statistic in
            """
            \(longFormRow(offering: "s.offering_id", group: "s.group_name", statistic: t(statistic), keys: ["s.day"], value: "s.\(statistic)"))
            FROM series_totals s WHERE s.\(statistic) <> 0
            """
        }
        return statements.joined(separator: "\n") + "\n" + longFormResult([firstDay] + totals)
    }

    // MARK: The daily series' steps

    private var dayMicroseconds: String { String(Microseconds.perDay) }

    /// The number since 1970-01-01 of the UTC day of a time (µs), rounded down before 1970 too.
    private func dayNumber(_ time: String) -> String {
        dialect.divide("(\(time)) - (((\(time)) % \(dayMicroseconds)) + \(dayMicroseconds)) % \(dayMicroseconds)", dayMicroseconds)
    }

    /// The rows of a night part: `selects` (each a `longFormRow` with its FROM), once the night's
    /// checks pass.
    private func longFormResult(_ selects: [String]) -> String {
        """
        SELECT r.* FROM (
        \(selects.joined(separator: "\nUNION ALL\n"))
        ) r CROSS JOIN line_check
        WHERE line_check.failure IS NULL;
        """
    }

    /// `series_members` (each user with a valid row for an analysed offering) and `series_bounds`
    /// (each such offering's first and last day numbers). A member's group and `assigned_at` are
    /// those of the group of their earliest row (by its earliest time, then the group's order, as
    /// `Population` orders them); `conflicting_since` is the earliest time of the next group, NULL
    /// when the rows name one group.
    private func seriesMembers() -> String {
        dialect.materialize(
            "series_members",
            """
            SELECT offering_key, user_id, max(CASE WHEN group_order = 1 THEN group_key END) AS group_key,
              max(CASE WHEN group_order = 1 THEN assigned_at END) AS assigned_at,
              max(CASE WHEN group_order = 2 THEN assigned_at END) AS conflicting_since
            FROM (SELECT *, row_number() OVER (PARTITION BY offering_key, user_id ORDER BY assigned_at, position) AS group_order
              FROM (SELECT x.offering_key, x.user_id, x.group_key, g.position, min(x.assigned_at) AS assigned_at
                FROM assignments x
                JOIN analysed_offerings a ON a.offering_key = x.offering_key
                JOIN catalog_groups g ON g.group_key = x.group_key
                WHERE x.valid GROUP BY x.offering_key, x.user_id, x.group_key, g.position) group_times) ordered
            GROUP BY offering_key, user_id
            """)
            + "\n"
            + dialect.view(
                "series_bounds",
                """
                SELECT offering_key, \(dayNumber("min(assigned_at)")) AS first_day, \(dayNumber(String(job.run.night.microseconds - 1))) AS last_day
                FROM series_members GROUP BY offering_key
                """)
    }

    /// `series_events`: each event that counts for a series member once the cutoff is past
    /// `counts_after` and at most `counts_until` (NULL: from then on), with its money
    /// (`attributed`'s columns). A non-refund event in the member's window counts from its own
    /// time. A refund counts for the purchase of its `transaction_id` once that counts, else for
    /// its renewal (`AttributionRules.refundedTransaction`): a row per charge it can return money
    /// for, from when both it and the charge are past, to when the purchase takes over. A charge
    /// carries the span of cutoffs in which a refund counts for it (`refunded_after`,
    /// `refunded_until`), when it no longer makes its member active.
    private func seriesEvents() -> String {
        let window =
            job.analysis.conversionWindowDays.map { " AND e.ts < m.assigned_at + \(AttributionRules.windowMicroseconds(days: $0))" } ?? ""
        let refund = eventName(.refund)
        let purchase = eventName(.purchase)
        let reportAmount = "CAST(f.money_micros AS DOUBLE) / 1000000 * x.rate"
        return dialect.materialize(
            "series_events",
            """
            WITH member_events AS (
              SELECT m.offering_key, m.user_id, e.event, e.ts, e.file_index, e.line_number, e.transaction_id, e.original_transaction_id,
                e.product_id, e.price_micros, e.currency, e.expires_at,
                e.event <> \(refund) AND e.ts >= m.assigned_at\(window) AS in_window
              FROM series_members m JOIN clean_events e ON e.user_id = m.user_id),
            charges AS (
              SELECT w.*, p.proceeds, p.report_price, p.stated_fees
              FROM member_events w JOIN charge_proceeds p ON p.event = w.event AND p.transaction_id = w.transaction_id
              WHERE w.in_window AND w.event IN \(chargeEvents)),
            refund_targets AS (
              SELECT f.offering_key, f.user_id, f.ts, f.file_index, f.line_number, f.product_id, f.expires_at,
                greatest(f.ts, c.ts) AS counts_after, CASE WHEN c.event <> \(purchase) THEN p.ts END AS counts_until,
                c.event AS target_event, c.transaction_id, c.proceeds AS target_proceeds, c.report_price AS target_price,
                CASE WHEN f.price_micros IS NOT NULL THEN f.price_micros ELSE c.price_micros END AS money_micros,
                CASE WHEN f.price_micros IS NOT NULL THEN f.currency ELSE c.currency END AS money_currency
              FROM member_events f
              JOIN charges c ON c.offering_key = f.offering_key AND c.user_id = f.user_id AND c.transaction_id = f.transaction_id
              LEFT JOIN charges p ON c.event <> \(purchase) AND p.event = \(purchase) AND p.offering_key = f.offering_key AND p.user_id = f.user_id
                AND p.transaction_id = f.transaction_id
              WHERE f.event = \(refund) AND (p.ts IS NULL OR p.ts > greatest(f.ts, c.ts))),
            refund_spans AS (
              SELECT offering_key, user_id, target_event, transaction_id, min(counts_after) AS refunded_after, max(counts_until) AS refunded_until
              FROM refund_targets GROUP BY offering_key, user_id, target_event, transaction_id)
            SELECT w.offering_key, w.user_id, w.event, w.ts, w.file_index, w.line_number, w.original_transaction_id, w.product_id, w.expires_at,
              w.ts AS counts_after, CAST(NULL AS BIGINT) AS counts_until, w.price_micros AS money_micros, w.currency AS money_currency, x.rate,
              CASE WHEN x.rate IS NOT NULL THEN c.proceeds END AS proceeds_amount, c.stated_fees, s.refunded_after, s.refunded_until
            FROM member_events w
            LEFT JOIN charges c ON c.offering_key = w.offering_key AND c.user_id = w.user_id AND c.event = w.event AND c.transaction_id = w.transaction_id
            LEFT JOIN refund_spans s ON s.offering_key = w.offering_key AND s.user_id = w.user_id AND s.target_event = w.event AND s.transaction_id = w.transaction_id
            LEFT JOIN rates x ON x.currency = upper(w.currency) AND w.event IN \(chargeEvents)
            WHERE w.in_window
            UNION ALL
            SELECT f.offering_key, f.user_id, \(refund) AS event, f.ts, f.file_index, f.line_number, CAST(NULL AS STRING) AS original_transaction_id,
              f.product_id, f.expires_at, f.counts_after, f.counts_until, f.money_micros, f.money_currency, x.rate,
              CASE WHEN x.rate IS NOT NULL AND f.target_price <> 0 THEN -(f.target_proceeds * ((\(reportAmount)) / f.target_price)) END AS proceeds_amount,
              CAST(NULL AS BOOLEAN) AS stated_fees, CAST(NULL AS BIGINT) AS refunded_after, CAST(NULL AS BIGINT) AS refunded_until
            FROM refund_targets f
            LEFT JOIN rates x ON x.currency = upper(f.money_currency)
            """)
    }

    /// `series_cutoffs`: per member, each day (number since 1970-01-01) on which their values may
    /// change, its end (`as_of` on the last day) and the next such day (the day after the last
    /// day for the last one); the days from a member's exclusion on are left out (they count for
    /// nothing then).
    private func seriesCutoffs() -> String {
        let asOf = job.run.night.microseconds
        return dialect.materialize(
            "series_cutoffs",
            """
            SELECT offering_key, group_key, user_id, day, cutoff, next_day
            FROM (SELECT d.offering_key, m.group_key, d.user_id, d.day, m.conflicting_since,
                least((d.day + 1) * \(dayMicroseconds), \(asOf)) AS cutoff,
                coalesce(lead(d.day) OVER (PARTITION BY d.offering_key, d.user_id ORDER BY d.day), b.last_day + 1) AS next_day
              FROM (SELECT DISTINCT offering_key, user_id, \(dayNumber("changed_at")) AS day
                FROM (SELECT offering_key, user_id, assigned_at AS changed_at FROM series_members
                  UNION ALL SELECT offering_key, user_id, conflicting_since FROM series_members WHERE conflicting_since IS NOT NULL
                  UNION ALL SELECT m.offering_key, m.user_id, e.ts FROM series_members m JOIN clean_events e ON e.user_id = m.user_id WHERE e.ts >= m.assigned_at
                  UNION ALL SELECT m.offering_key, m.user_id, greatest(e.expires_at - 1, m.assigned_at)
                    FROM series_members m JOIN clean_events e ON e.user_id = m.user_id
                    WHERE e.ts >= m.assigned_at AND e.expires_at > e.ts AND e.expires_at <= \(asOf)) changes) d
              JOIN series_members m ON m.offering_key = d.offering_key AND m.user_id = d.user_id
              JOIN series_bounds b ON b.offering_key = d.offering_key) days
            WHERE conflicting_since IS NULL OR conflicting_since >= cutoff
            """)
    }

    /// `series_values`: each member's values at each of their cutoffs, in the columns of
    /// `GroupCount` and `GroupMoneySum`, as `member_values` has them at `as_of`.
    private func seriesValues() -> String {
        // docs/analysis.md §9: the earliest trial's state as of the cutoff.
        let trialState = """
            CASE WHEN t.converted_at < c.cutoff THEN 'converted' WHEN t.first_trial_at IS NULL OR t.first_trial_at >= c.cutoff THEN NULL
              WHEN t.first_trial_expires_at IS NULL THEN 'unknown' WHEN t.first_trial_expires_at > c.cutoff THEN 'pending' ELSE 'lapsed' END
            """
        let active = "coalesce(active, 0)"
        let converted = "coalesce(converted, 0)"
        let refunds = "coalesce(refunds, 0)"
        let net = "coalesce(net, 0)"
        let proceeds = "coalesce(net_proceeds, 0)"
        let columns =
            GroupCount.allCases.map { count -> String in
                let value: String
                switch count {
                case .users: value = "1"
                case .converters: value = converted
                case .trialStarters: value = "CASE WHEN first_trial_at < cutoff THEN 1 ELSE 0 END"
                case .trialConverters: value = "CASE WHEN converted_at < cutoff THEN 1 ELSE 0 END"
                case .paywallViewers: value = "coalesce(viewed, 0)"
                case .purchases: value = "coalesce(purchases, 0)"
                case .renewals: value = "coalesce(renewals, 0)"
                case .refunds: value = refunds
                case .trialsConverted: value = "CASE WHEN trial_state = 'converted' THEN 1 ELSE 0 END"
                case .trialsPending: value = "CASE WHEN trial_state = 'pending' THEN 1 ELSE 0 END"
                case .trialsLapsed: value = "CASE WHEN trial_state = 'lapsed' THEN 1 ELSE 0 END"
                case .trialsUnknown: value = "CASE WHEN trial_state = 'unknown' THEN 1 ELSE 0 END"
                case .activeSubscribers: value = active
                case .churnedSubscribers: value = "CASE WHEN \(active) = 0 AND \(converted) = 1 THEN 1 ELSE 0 END"
                case .refundUsers: value = "CASE WHEN \(refunds) > 0 THEN 1 ELSE 0 END"
                }
                return "\(value) AS \(count.column)"
            }
            + GroupMoneySum.allCases.map { sum -> String in
                let value: String
                switch sum {
                case .revenueSum: value = net
                case .revenueSumSquares: value = "\(net) * \(net)"
                case .grossRevenue: value = "coalesce(gross, 0)"
                case .refundedRevenue: value = "coalesce(refunded, 0)"
                case .proceedsSum: value = proceeds
                case .proceedsSumSquares: value = "\(proceeds) * \(proceeds)"
                case .chargeProceedsSum: value = "coalesce(charge_proceeds, 0)"
                case .exactProceedsSum: value = "coalesce(exact_proceeds, 0)"
                }
                return "\(value) AS \(sum.column)"
            }
        let purchase = eventName(.purchase)
        let trial = eventName(.trialStart)
        // A charge is active while it runs past the cutoff and no counted refund names it.
        let refunded = "coalesce(refunded_after < cutoff AND (refunded_until IS NULL OR cutoff <= refunded_until), FALSE)"
        // The earliest counted trial, and when a counted purchase first converts one (`trial_converters`).
        return dialect.view(
            "series_trials",
            """
            SELECT f.offering_key, f.user_id, f.ts AS first_trial_at, f.expires_at AS first_trial_expires_at, c.converted_at
            FROM (SELECT offering_key, user_id, ts, expires_at,
                row_number() OVER (PARTITION BY offering_key, user_id ORDER BY ts, file_index, line_number) AS trial_order
              FROM series_events WHERE event = \(trial)) f
            LEFT JOIN (
              SELECT t.offering_key, t.user_id, min(p.ts) AS converted_at
              FROM series_events t JOIN series_events p ON p.offering_key = t.offering_key AND p.user_id = t.user_id
              WHERE t.event = \(trial) AND p.event = \(purchase) AND p.ts >= t.ts
                AND CASE WHEN t.original_transaction_id IS NOT NULL THEN p.original_transaction_id = t.original_transaction_id ELSE p.product_id = t.product_id END
              GROUP BY t.offering_key, t.user_id) c ON c.offering_key = f.offering_key AND c.user_id = f.user_id
            WHERE f.trial_order = 1
            """)
            + "\n"
            + dialect.materialize(
                "series_values",
                """
                SELECT offering_key, group_key, user_id, day, next_day, \(columns.joined(separator: ",\n  "))
                FROM (SELECT c.offering_key, c.group_key, c.user_id, c.day, c.next_day, c.cutoff, t.converted_at, t.first_trial_at, \(trialState) AS trial_state,
                    e.converted, e.viewed, e.purchases, e.renewals, e.refunds, e.net_proceeds, e.charge_proceeds, e.exact_proceeds, e.active,
                    money.gross, money.refunded, money.net
                  FROM series_cutoffs c
                  LEFT JOIN series_trials t ON t.offering_key = c.offering_key AND t.user_id = c.user_id
                  LEFT JOIN (
                    SELECT offering_key, user_id, day,
                      max(CASE WHEN event = \(purchase) THEN 1 ELSE 0 END) AS converted,
                      max(CASE WHEN event = \(eventName(.paywallView)) THEN 1 ELSE 0 END) AS viewed,
                      sum(CASE WHEN event = \(purchase) THEN 1 ELSE 0 END) AS purchases,
                      sum(CASE WHEN event = \(eventName(.renewal)) THEN 1 ELSE 0 END) AS renewals,
                      sum(CASE WHEN event = \(eventName(.refund)) THEN 1 ELSE 0 END) AS refunds,
                      sum(proceeds_amount) AS net_proceeds,
                      sum(CASE WHEN event IN \(chargeEvents) THEN proceeds_amount END) AS charge_proceeds,
                      sum(CASE WHEN event IN \(chargeEvents) AND stated_fees THEN proceeds_amount END) AS exact_proceeds,
                      max(CASE WHEN event IN \(chargeEvents) AND expires_at > cutoff AND NOT \(refunded) THEN 1 ELSE 0 END) AS active
                    FROM series_counted GROUP BY offering_key, user_id, day) e
                    ON e.offering_key = c.offering_key AND e.user_id = c.user_id AND e.day = c.day
                  LEFT JOIN (\(memberMoney(of: "series_counted", per: ["offering_key", "user_id", "day"]))) money
                    ON money.offering_key = c.offering_key AND money.user_id = c.user_id AND money.day = c.day) v
                """)
    }
}
