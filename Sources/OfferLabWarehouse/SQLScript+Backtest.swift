import OfferLabAnalysis
import OfferLabIngest
import OfferLabResults
import OfferLabVocabulary

/// The night part backtest (contract §3.3): see `nightPartResult`.
extension ScriptBuilder {
    /// `backtest`: the app's own track record (`BacktestCohorts`, `NightParts.backtestRows`), read
    /// from the past's chains (`pastChainStatements`): per cohort (a renewing product's chains
    /// whose first charge is in one month, read 30 and 60 days after it) its facts and the past
    /// at its cut, every chain but the month's as known then.
    func backtestResult() -> String {
        var statements = pastChainStatements()
        let asOf = job.run.night.microseconds
        let day = Microseconds.perDay
        let readDays = BacktestCohorts.readDays.map { "(\($0))" }.joined(separator: ", ")
        // A chain of a renewing product is a buyer of the cohort of its first charge's month (its
        // first day, as a day number since 1970-01-01, and `YYYY-MM`).
        let firstDay = dialect.divide("c.ts", "\(day)")
        statements.append(
            dialect.materialize(
                "backtest_buyers",
                """
                SELECT chain, product_id, first_at, first_day, first_day - dayofmonth(first_date) + 1 AS month_start_day,
                  concat(CAST(year(first_date) AS STRING), '-', lpad(CAST(month(first_date) AS STRING), 2, '0')) AS month_text
                FROM (SELECT c.chain, c.product_id, c.ts AS first_at, \(firstDay) AS first_day, \(date(ofDay: firstDay)) AS first_date
                  FROM past_charges c JOIN renewing_products p ON p.product_id = c.product_id WHERE c.ordinal = 1) firsts
                """))
        // The horizon runs from the cohort's last first charge to as_of, a year at most; a cohort
        // is read on a read day its horizon reaches past, at the month's first instant + that day.
        statements.append(
            dialect.materialize(
                "backtest_cohorts",
                """
                SELECT k.month_start_day, k.month_text, k.product_id, k.buyers, k.horizon_days, r.read_day,
                  (k.month_start_day + r.read_day) * \(day) AS read_at
                FROM (SELECT month_start_day, month_text, product_id, count(*) AS buyers,
                    least(\(BacktestCohorts.maxHorizonDays), \(dialect.divide("\(asOf) - max(first_at)", "\(day)"))) AS horizon_days
                  FROM backtest_buyers GROUP BY month_start_day, month_text, product_id) k
                CROSS JOIN (SELECT * FROM (VALUES \(readDays)) AS d(read_day)) r
                WHERE k.horizon_days > r.read_day
                """))
        // A buyer's charges and refunds in the report currency: a charge's price (0 without a price
        // or a rate), a refund's amount, else that of the charge it takes back, the latest at or
        // before it (docs/analysis.md §2).
        let amount = "CASE WHEN e.price_micros IS NULL THEN NULL ELSE CAST(e.price_micros AS DOUBLE) / 1000000 * coalesce(x.rate, 0) END"
        statements.append(
            dialect.materialize(
                "backtest_charges",
                """
                SELECT b.chain, b.month_start_day, b.product_id, b.first_at, e.ordinal, e.ts, e.expires_at, coalesce(\(amount), 0) AS amount
                FROM backtest_buyers b JOIN past_charges e ON e.chain = b.chain
                LEFT JOIN rates x ON x.currency = upper(e.currency)
                """))
        statements.append(
            dialect.materialize(
                "backtest_refunds",
                """
                SELECT r.chain, r.ts, r.charge_ordinal, coalesce(r.own_amount, c.amount) AS amount
                FROM (SELECT e.chain, e.ts, \(amount) AS own_amount, max(p.ordinal) AS charge_ordinal
                  FROM past_events e JOIN backtest_charges p ON p.chain = e.chain AND p.ts <= e.ts
                  LEFT JOIN rates x ON x.currency = upper(e.currency)
                  WHERE e.kind = 1
                  GROUP BY e.chain, e.file_index, e.line_number, e.ts, e.price_micros, x.rate) r
                JOIN backtest_charges c ON c.chain = r.chain AND c.ordinal = r.charge_ordinal
                """))
        // What the cohort paid, by whole days since each buyer's first charge.
        let daysSinceFirst = dialect.divide("ts - first_at", "\(day)")
        statements.append(
            dialect.view(
                "backtest_paid",
                """
                SELECT month_start_day, product_id, \(daysSinceFirst) AS day, amount FROM backtest_charges
                UNION ALL
                SELECT c.month_start_day, c.product_id, \(dialect.divide("r.ts - c.first_at", "\(day)")), -r.amount
                FROM backtest_refunds r JOIN backtest_charges c ON c.chain = r.chain AND c.ordinal = 1
                """))
        // `BacktestCohorts.Cohort.realizedRevenue`: the days' sums added in day order, as `run`
        // adds them, so that a cohort's paid amount is the same number to the last bit
        // (`backtest.csv` tells whether the projection's interval holds it).
        statements.append(
            dialect.view(
                "backtest_realized",
                """
                SELECT k.month_start_day, k.product_id, \(sumInOrder("m.paid", by: "m.day")) AS realized
                FROM (SELECT DISTINCT month_start_day, product_id, horizon_days FROM backtest_cohorts) k
                JOIN (SELECT month_start_day, product_id, day, sum(amount) AS paid FROM backtest_paid GROUP BY month_start_day, product_id, day) m
                  ON m.month_start_day = k.month_start_day AND m.product_id = k.product_id AND m.day < k.horizon_days
                GROUP BY k.month_start_day, k.product_id
                """))
        statements.append(contentsOf: cutPastStatements())
        statements.append(contentsOf: readStatements())
        let group = "concat(k.month_text, ' ', CAST(k.read_day AS STRING), ' ', k.product_id)"
        let factRows = zip(NightParts.cohortFacts, ["k.buyers", "k.horizon_days", "k.read_at", "m.realized"]).map { statistic, value in
            """
            \(longFormRow(group: group, statistic: t(statistic), value: value))
            FROM backtest_cohorts k JOIN backtest_realized m ON m.month_start_day = k.month_start_day AND m.product_id = k.product_id
            """
        }
        let perRenewal = """
            FROM backtest_cohorts k JOIN backtest_cut_renewals c ON c.month_start_day = k.month_start_day AND c.read_day = k.read_day
            GROUP BY k.month_text, k.read_day, k.product_id, c.product_id, c.kind, c.renewal
            """
        let pastRows = [
            """
            \(longFormRow(group: group, statistic: t("past_chains"), product: "c.product_id", value: "count(*)"))
            FROM backtest_cohorts k JOIN backtest_cut_chains c ON c.month_start_day = k.month_start_day AND c.read_day = k.read_day
            GROUP BY k.month_text, k.read_day, k.product_id, c.product_id
            """,
            """
            \(longFormRow(group: group, statistic: "concat('past_', c.kind, '_due')", product: "c.product_id", keys: ["c.renewal"], value: "count(*)"))
            \(perRenewal)
            """,
            """
            \(longFormRow(group: group, statistic: "concat('past_', c.kind, '_renewed')", product: "c.product_id", keys: ["c.renewal"], value: "sum(CASE WHEN c.renewed THEN 1 ELSE 0 END)"))
            \(perRenewal)
            """,
        ]
        // Rows only for values that are not 0, but a cohort's facts always.
        let (statistic, value) = (dialect.identifier("statistic"), dialect.identifier("value"))
        let facts = NightParts.cohortFacts.map { t($0) }.joined(separator: ", ")
        return statements.joined(separator: "\n") + """

            SELECT r.* FROM (
            \((factRows + observationRows(group: group) + pastRows).joined(separator: "\nUNION ALL\n"))
            ) r CROSS JOIN line_check
            WHERE line_check.failure IS NULL AND (r.\(statistic) IN (\(facts)) OR r.\(value) <> 0);
            """
    }

    /// The past at each cohort's cut (`BacktestCohorts.cuts`), counted as `pastResult` counts the
    /// past at as_of: every chain whose first charge is before the cut and not in the cohort's
    /// month, read only to the cut.
    private func cutPastStatements() -> [String] {
        var statements = [dialect.view("backtest_cuts", "SELECT DISTINCT month_start_day, read_day, read_at FROM backtest_cohorts")]
        statements.append(
            dialect.materialize(
                "backtest_cut_charges",
                """
                SELECT t.month_start_day, t.read_day, t.read_at, b.chain, b.product_id, c.ordinal, c.ts, c.expires_at,
                  max(c.ordinal) OVER (PARTITION BY t.month_start_day, t.read_day, b.chain) AS charge_count
                FROM backtest_cuts t
                JOIN backtest_buyers b ON b.first_at < t.read_at AND b.month_start_day <> t.month_start_day
                JOIN past_charges c ON c.chain = b.chain AND c.ts < t.read_at
                """))
        // A refund before the cut, at or after the last charge then, took that charge back; the
        // next renewal fell due as in `past_counted_chains`, by the cut.
        statements.append(
            dialect.materialize(
                "backtest_cut_chains",
                """
                SELECT c.month_start_day, c.read_day, c.chain, c.product_id, c.charge_count,
                  NOT coalesce(r.last_refund_at >= c.last_charge_at, FALSE) AND coalesce(c.last_expires_at, c.last_charge_at + p.period) <= c.read_at AS last_due
                FROM (SELECT month_start_day, read_day, read_at, chain, product_id, charge_count,
                    max(CASE WHEN ordinal = charge_count THEN ts END) AS last_charge_at,
                    max(CASE WHEN ordinal = charge_count THEN expires_at END) AS last_expires_at
                  FROM backtest_cut_charges GROUP BY month_start_day, read_day, read_at, chain, product_id, charge_count) c
                JOIN renewing_products p ON p.product_id = c.product_id
                LEFT JOIN (SELECT t.month_start_day, t.read_day, e.chain, max(e.ts) AS last_refund_at
                  FROM backtest_cuts t JOIN past_events e ON e.kind = 1 AND e.ts < t.read_at GROUP BY t.month_start_day, t.read_day, e.chain) r
                  ON r.month_start_day = c.month_start_day AND r.read_day = c.read_day AND r.chain = c.chain
                """))
        // As `past_turned_off` and `past_renewals`, with the cancels before the cut.
        statements.append(
            dialect.view(
                "backtest_cut_renewals",
                """
                SELECT month_start_day, read_day, product_id, 'renewals' AS kind, ordinal - 1 AS renewal, TRUE AS renewed
                FROM backtest_cut_charges WHERE ordinal >= 2
                UNION ALL
                SELECT month_start_day, read_day, product_id, 'renewals', charge_count, FALSE FROM backtest_cut_chains WHERE last_due
                UNION ALL
                SELECT c.month_start_day, c.read_day, c.product_id, 'turned_off', t.renewal, t.renewal < c.charge_count
                FROM backtest_cut_chains c
                JOIN (SELECT DISTINCT month_start_day, read_day, chain, renewal FROM (
                    SELECT p.month_start_day, p.read_day, p.chain, max(p.ordinal) AS renewal
                    FROM past_events e JOIN backtest_cut_charges p ON p.chain = e.chain AND p.ts <= e.ts
                    WHERE e.kind = 2 AND e.ts < p.read_at
                    GROUP BY p.month_start_day, p.read_day, p.chain, e.file_index, e.line_number) cancels
                  WHERE renewal <= 64) t
                  ON t.month_start_day = c.month_start_day AND t.read_day = c.read_day AND t.chain = c.chain
                WHERE t.renewal < c.charge_count OR (t.renewal = c.charge_count AND c.last_due)
                """))
        return statements
    }

    /// The buyers as the projection reads them at each cohort's cut (`BacktestCohorts.Cohort.members`):
    /// each moved by whole days to the month's first day, so that the cut is, in a buyer's own
    /// time, `read_end` (its first charge's day + the read day); its horizon ends at `charge_end`.
    /// Its charges before then, each with the refunds of it before then (`backtest_read_charges`);
    /// its chain as it stood (`backtest_read_chains`); its renewals (`backtest_read_renewals`).
    private func readStatements() -> [String] {
        let day = Microseconds.perDay
        var statements: [String] = []
        statements.append(
            dialect.materialize(
                "backtest_reads",
                """
                SELECT k.month_start_day, k.month_text, k.product_id, k.read_day, b.chain, b.first_at,
                  (b.first_day + k.read_day) * \(day) AS read_end, b.first_at + k.horizon_days * \(day) AS charge_end
                FROM backtest_cohorts k JOIN backtest_buyers b ON b.month_start_day = k.month_start_day AND b.product_id = k.product_id
                """))
        statements.append(
            dialect.materialize(
                "backtest_read_charges",
                """
                SELECT r.month_start_day, r.month_text, r.product_id, r.read_day, r.chain, r.read_end, r.charge_end,
                  c.ordinal, c.ts, c.expires_at, c.amount, CAST(r.read_end - c.ts AS DOUBLE) / \(double(Double(day))) AS age_days,
                  max(c.ordinal) OVER (PARTITION BY r.chain, r.read_day) AS charge_count,
                  coalesce(f.refunded, 0) AS refunded, f.first_refund_at
                FROM backtest_reads r JOIN backtest_charges c ON c.chain = r.chain AND c.ts < r.read_end
                LEFT JOIN (SELECT t.read_day, f.chain, f.charge_ordinal, sum(f.amount) AS refunded, min(f.ts) AS first_refund_at
                    FROM backtest_reads t JOIN backtest_refunds f ON f.chain = t.chain AND f.ts < t.read_end
                    GROUP BY t.read_day, f.chain, f.charge_ordinal) f
                  ON f.chain = r.chain AND f.read_day = r.read_day AND f.charge_ordinal = c.ordinal
                """))
        // `countChain`: the last charge kept, due before the horizon, lapsed by the cut or running.
        statements.append(
            dialect.materialize(
                "backtest_read_chains",
                """
                SELECT c.month_start_day, c.month_text, c.product_id, c.read_day, c.chain, c.charge_count, c.read_end, c.charge_end,
                  c.last_kept AND c.due < c.charge_end AND c.due <= c.read_end AS last_due,
                  c.last_kept AND c.due < c.charge_end AND c.due > c.read_end AS running, c.due, c.period
                FROM (SELECT r.month_start_day, r.month_text, r.product_id, r.read_day, r.chain, r.charge_count, r.read_end, r.charge_end, p.period,
                    max(CASE WHEN r.ordinal = r.charge_count AND r.first_refund_at IS NOT NULL THEN 1 ELSE 0 END) = 0 AS last_kept,
                    max(CASE WHEN r.ordinal = r.charge_count THEN coalesce(r.expires_at, r.ts + p.period) END) AS due
                  FROM backtest_read_charges r JOIN renewing_products p ON p.product_id = r.product_id
                  GROUP BY r.month_start_day, r.month_text, r.product_id, r.read_day, r.chain, r.charge_count, r.read_end, r.charge_end, p.period) c
                """))
        // A cancel before the cut turned off the renewal after the charge before it, as in
        // `past_turned_off`.
        statements.append(
            dialect.view(
                "backtest_read_turned_off",
                """
                SELECT DISTINCT read_day, chain, renewal FROM (
                  SELECT p.read_day, p.chain, max(p.ordinal) AS renewal
                  FROM past_events e JOIN backtest_read_charges p ON p.chain = e.chain AND p.ts <= e.ts
                  WHERE e.kind = 2 AND e.ts < p.read_end
                  GROUP BY p.read_day, p.chain, e.file_index, e.line_number) cancels
                WHERE renewal <= 64
                """))
        statements.append(
            dialect.view(
                "backtest_read_renewals",
                """
                SELECT month_start_day, month_text, product_id, read_day, 'renewals' AS kind, ordinal - 1 AS renewal, TRUE AS renewed
                FROM backtest_read_charges WHERE ordinal >= 2
                UNION ALL
                SELECT month_start_day, month_text, product_id, read_day, 'renewals', charge_count, FALSE FROM backtest_read_chains WHERE last_due
                UNION ALL
                SELECT c.month_start_day, c.month_text, c.product_id, c.read_day, 'turned_off', t.renewal, t.renewal < c.charge_count
                FROM backtest_read_chains c JOIN backtest_read_turned_off t ON t.chain = c.chain AND t.read_day = c.read_day
                WHERE t.renewal < c.charge_count OR (t.renewal = c.charge_count AND c.last_due)
                """))
        return statements
    }

    /// The buyers' observation rows (`GroupObservation.init(_:products:configuration:)`), each
    /// under `group` and, for a product's statistic, the cohort's product: every buyer paid at
    /// its assignment, so each is a payer and a purchase entry on day 0, minute 0.
    private func observationRows(group: String) -> [String] {
        let perRead = "GROUP BY k.month_text, k.read_day, k.product_id"
        func row(_ statistic: String, product: Bool = false, keys: [String] = [], value: String, from: String) -> String {
            "\(longFormRow(group: group, statistic: t(statistic), product: product ? "k.product_id" : "''", keys: keys, value: value)) \(from)"
        }
        let reads = "FROM backtest_reads k \(perRead)"
        var rows = [
            row("users", value: "count(*)", from: reads),
            row(
                "observed_days", value: "sum(CAST(k.read_end - k.first_at AS DOUBLE) / \(double(Double(Microseconds.perDay))))",
                from: reads),
            row("payers", value: "count(*)", from: reads),
            row("purchase_entries", value: "count(*)", from: reads),
            row("at_risk_by_day", keys: ["0"], value: "count(*)", from: reads),
            row("conversions_by_day", keys: ["0"], value: "count(*)", from: reads),
            row("day_zero_entries_by_minute", keys: ["0"], value: "count(*)", from: reads),
            row("first_purchases", product: true, value: "count(*)", from: reads),
            row(
                "observed_revenue", value: "sum(k.amount)",
                from: """
                    FROM (SELECT month_text, read_day, product_id, amount FROM backtest_read_charges
                      UNION ALL
                      SELECT r.month_text, r.read_day, r.product_id, -f.amount FROM backtest_reads r JOIN backtest_refunds f ON f.chain = r.chain AND f.ts < r.read_end) k
                    \(perRead)
                    """),
        ]
        // Every charge's net value, kept and refunded apart; those at least the refund lag old
        // (mature) again, with their refunds' delays; the younger ones kept by age.
        let lagDays = ObservedCohort.configuration(readAt: 0, horizonDays: 1, alpha: 0.05).refundLagDays
        let mature = "k.age_days >= \(double(lagDays))"
        let charges = "FROM backtest_read_charges k"
        for (prefix, condition) in [("all", "TRUE"), ("mature", mature)] {
            for (state, refunded) in [("kept", "k.first_refund_at IS NULL"), ("refunded", "k.first_refund_at IS NOT NULL")] {
                let from = "\(charges) WHERE \(condition) AND \(refunded) \(perRead)"
                let net = "(k.amount - k.refunded)"
                rows += [
                    row("\(prefix)_\(state)", product: true, value: "count(*)", from: from),
                    row("\(prefix)_\(state)_net", product: true, value: "sum\(net)", from: from),
                    row("\(prefix)_\(state)_net_squared", product: true, value: "sum(\(net) * \(net))", from: from),
                ]
            }
        }
        let matureRefunded = "\(charges) WHERE \(mature) AND k.first_refund_at IS NOT NULL"
        let delayBin =
            "greatest(0, CAST(ceil(CAST(k.first_refund_at - k.ts AS DOUBLE) / \(double(Double(Microseconds.perDay))) - 0.5) AS BIGINT))"
        let youngSlot = "least(CAST(floor(k.age_days) AS BIGINT), \(Int(lagDays.rounded(.up))))"
        let young = "\(charges) WHERE NOT (\(mature)) AND k.first_refund_at IS NULL"
        rows += [
            row(
                "mature_refunded_share", product: true, value: "sum(CASE WHEN k.amount > 0 THEN k.refunded / k.amount ELSE 0 END)",
                from: "\(matureRefunded) \(perRead)"),
            row(
                "refunds_by_delay_day", product: true, keys: [delayBin], value: "count(*)",
                from: "\(matureRefunded) \(perRead), \(delayBin)"),
            row("young_price_by_age", product: true, keys: [youngSlot], value: "sum(k.amount)", from: "\(young) \(perRead), \(youngSlot)"),
            row(
                "young_price_squared_by_age", product: true, keys: [youngSlot], value: "sum(k.amount * k.amount)",
                from: "\(young) \(perRead), \(youngSlot)"),
        ]
        // Renewals, and the chains still running at the cut by (next renewal, charges still due
        // before the horizon), those turned off tonight apart.
        let renewedCount = "sum(CASE WHEN k.renewed THEN 1 ELSE 0 END)"
        let perRenewal = "FROM backtest_read_renewals k \(perRead), k.kind, k.renewal"
        rows += [
            "\(longFormRow(group: group, statistic: "concat(k.kind, '_due')", product: "k.product_id", keys: ["k.renewal"], value: "count(*)")) \(perRenewal)",
            "\(longFormRow(group: group, statistic: "concat(k.kind, '_renewed')", product: "k.product_id", keys: ["k.renewal"], value: renewedCount)) \(perRenewal)",
        ]
        let remaining = "CAST(ceil(CAST(k.charge_end - k.due AS DOUBLE) / CAST(k.period AS DOUBLE)) AS BIGINT)"
        let pendingStatistic = "CASE WHEN t.chain IS NULL THEN \(t("pending_chains")) ELSE \(t("pending_turned_off")) END"
        rows.append(
            """
            \(longFormRow(group: group, statistic: pendingStatistic, product: "k.product_id", keys: ["k.charge_count", remaining], value: "count(*)"))
            FROM backtest_read_chains k
            LEFT JOIN backtest_read_turned_off t ON t.chain = k.chain AND t.read_day = k.read_day AND t.renewal = k.charge_count
            WHERE k.running \(perRead), \(pendingStatistic), k.charge_count, \(remaining)
            """)
        return rows
    }

    /// The aggregate sum of `value` added one by one in the order of `order`, from the first.
    private func sumInOrder(_ value: String, by order: String) -> String {
        switch dialect {
        case .duckdb: "list_reduce(list(\(value) ORDER BY \(order)), lambda total, next: total + next)"
        case .spark:
            "aggregate(transform(array_sort(collect_list(named_struct('o', \(order), 'v', \(value)))), e -> e.v), CAST(0 AS DOUBLE), (total, next) -> total + next)"
        }
    }

    /// The DATE of a day number since 1970-01-01.
    private func date(ofDay day: String) -> String {
        switch dialect {
        case .duckdb: "(DATE '1970-01-01' + CAST(\(day) AS INTEGER))"
        case .spark: "date_from_unix_date(CAST(\(day) AS INT))"
        }
    }
}
