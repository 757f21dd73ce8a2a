import OfferLabAnalysis
import OfferLabJob
import OfferLabProjection
import OfferLabTables
import OfferLabVocabulary

/// The night part observations (contract §3.3): each group's `GroupObservation` (the 365-day
/// projection's counts, `ObservationStatistic`) as `run --parts` writes it, and the offering's
/// products renewed without a catalog period (`ProjectionMembers.inputs`).
extension ScriptBuilder {
    /// The projection's horizon and refund lag (`ProjectionConfiguration`'s defaults), in days.
    static let horizonDays = 365
    static let refundLagDays = 14

    /// A day in µs, as a DOUBLE: tenures and ages are fractional days, divided as Swift divides.
    var day: String { "CAST(\(Microseconds.perDay) AS DOUBLE)" }

    /// `(later − earlier)` µs in fractional days.
    func days(_ later: String, _ earlier: String) -> String { "(CAST(\(later) - \(earlier) AS DOUBLE) / \(day))" }

    /// Whole days toward zero, as `Int(_:)` makes them.
    func whole(_ value: String) -> String { dialect.truncate(value) }

    /// The views the rows are made from, then the rows that are not 0, named (`run` writes no other).
    func observationsResult() -> String {
        var script = projectionEvents()
        script += projectionChains()
        script += projectionMemberFacts()
        script += observationRows()
        let group = "coalesce(g.group_name, '')"
        let row = longFormRow(
            offering: "a.offering_id", group: group, statistic: "r.statistic", product: "r.product_id", nextProduct: "r.next_product_id",
            keys: ["r.key_1", "r.key_2", "r.key_3"], value: "r.value")
        return script + """

            SELECT o.* FROM (
            \(row)
            FROM observation_rows r
            JOIN analysed_offerings a ON a.offering_key = r.offering_key
            LEFT JOIN catalog_groups g ON g.group_key = r.group_key
            WHERE r.value <> 0
            ) o CROSS JOIN line_check
            WHERE line_check.failure IS NULL;
            """
    }

    /// `projection_catalog` (each product of `ProjectionCatalog`: its `product_id`, empty for
    /// the unlisted ones, its period in days, NULL when one-time or untyped, and whether the
    /// catalog types it), `projection_events` (each
    /// member's events as `ProjectionMembers.addMember` hands them, in the order
    /// `GroupObservation` reads them), the offering's products renewed without a period and
    /// `projection_periods` (every product's period, the members' median span where the catalog
    /// gives none).
    func projectionEvents() -> String {
        let projectionCatalog = ProjectionCatalog(catalog)
        // `typed`: the catalog gives the product a type the projection knows (one-time is one).
        let rows = projectionCatalog.productIDs.indices.map { index in
            let id = projectionCatalog.productIDs[index]
            let period = projectionCatalog.products[index].renewalPeriodDays.map(double) ?? "CAST(NULL AS DOUBLE)"
            return "(\(t(id)), \(period), \(projectionCatalog.hasPeriod[index]), \(!id.isEmpty))"
        }
        let year = Int64(Self.horizonDays) * Microseconds.perDay
        let window = job.analysis.conversionWindowDays.map { String(AttributionRules.windowMicroseconds(days: $0)) }
        let amount =
            "CASE WHEN x.rate IS NULL OR x.money_micros IS NULL THEN \(double(0)) ELSE CAST(x.money_micros AS DOUBLE) / 1000000 * x.rate END"
        let columns = "x.offering_key, x.group_key, x.user_id, x.assigned_at, x.ts, x.file_index, x.line_number"
        // The year after the window: charges and cancels there, and the refunds of those charges.
        let beyond = window.map { window in
            let inYear = { (ts: String) in "\(ts) >= x.assigned_at + \(window) AND \(ts) < x.assigned_at + \(year)" }
            return """
                UNION ALL
                SELECT \(columns), 1 AS phase, CASE x.event WHEN \(eventName(.purchase)) THEN 1 WHEN \(eventName(.renewal)) THEN 2 ELSE 4 END AS kind,
                  x.product_id AS event_product, x.original_transaction_id AS chain_id, \(amount) AS amount, x.expires_at
                FROM attributed x WHERE x.event IN (\(eventName(.purchase)), \(eventName(.renewal)), \(eventName(.cancel))) AND \(inYear("x.ts"))
                UNION ALL
                SELECT \(columns), 1 AS phase, 3 AS kind, c.product_id AS event_product, c.original_transaction_id AS chain_id, \(amount) AS amount, CAST(NULL AS BIGINT) AS expires_at
                FROM attributed x JOIN attributed c ON c.offering_key = x.offering_key AND c.user_id = x.user_id AND c.event = x.target_event AND c.transaction_id = x.transaction_id
                WHERE x.event = \(eventName(.refund)) AND NOT x.counted AND \(inYear("c.ts"))
                """
        }
        let beyondTrials = window.map { window in
            """
            UNION ALL
            SELECT \(columns), 1 AS phase, x.product_id, x.expires_at FROM attributed x
            WHERE x.event = \(eventName(.trialStart)) AND x.ts >= x.assigned_at + \(window) AND x.ts < x.assigned_at + \(year)
            """
        }
        var script = dialect.view(
            "projection_catalog",
            "SELECT * FROM (VALUES \(rows.joined(separator: ", "))) AS p(product_id, catalog_period, typed, listed)")
        // The earliest counted trial, else the earliest one after the window; the counted charges,
        // refunds (the refunded charge's chain and product) and cancels that have a chain.
        script += dialect.materialize(
            "projection_sources",
            """
            SELECT offering_key, group_key, user_id, assigned_at, ts, file_index, line_number, phase, 0 AS kind, product_id AS event_product,
              CAST(NULL AS STRING) AS chain_id, \(double(0)) AS amount, expires_at
            FROM (SELECT t.*, row_number() OVER (PARTITION BY t.offering_key, t.user_id ORDER BY t.phase, t.ts, t.file_index, t.line_number) AS trial_order
              FROM (SELECT \(columns), 0 AS phase, x.product_id, x.expires_at FROM attributed x WHERE x.counted AND x.event = \(eventName(.trialStart))
                \(beyondTrials ?? "")) t) trials
            WHERE trial_order = 1
            UNION ALL
            SELECT \(columns), 0 AS phase, CASE x.event WHEN \(eventName(.purchase)) THEN 1 WHEN \(eventName(.renewal)) THEN 2 ELSE 4 END AS kind,
              x.product_id AS event_product, x.original_transaction_id AS chain_id, \(amount) AS amount, x.expires_at
            FROM attributed x
            WHERE x.counted AND (x.event IN (\(eventName(.purchase)), \(eventName(.renewal))) OR (x.event = \(eventName(.cancel)) AND NOT x.chainless_cancel))
            UNION ALL
            SELECT \(columns), 0 AS phase, 3 AS kind, c.product_id AS event_product, c.original_transaction_id AS chain_id, \(amount) AS amount, CAST(NULL AS BIGINT) AS expires_at
            FROM attributed x JOIN attributed c ON c.offering_key = x.offering_key AND c.user_id = x.user_id AND c.event = x.target_event AND c.transaction_id = x.transaction_id
            WHERE x.counted AND x.event = \(eventName(.refund))
            \(beyond ?? "")
            """)
        // A product the catalog does not list is the one unlisted product; a chain is its
        // original_transaction_id, else its product. Read in time, then kind, order (a charge
        // before a refund or a cancel at the same time), then in the order they were handed.
        script += dialect.materialize(
            "projection_events",
            """
            SELECT s.offering_key, s.group_key, s.user_id, s.assigned_at, s.ts, s.kind, s.amount, s.expires_at, s.phase, s.file_index, s.line_number,
              s.chain_id, coalesce(p.product_id, '') AS product_id,
              CASE WHEN s.chain_id IS NOT NULL THEN concat('t', s.chain_id) ELSE concat('p', coalesce(p.product_id, '')) END AS chain_key,
              row_number() OVER (PARTITION BY s.offering_key, s.user_id ORDER BY s.ts, s.kind, s.phase, s.file_index, s.line_number) AS position
            FROM projection_sources s LEFT JOIN projection_catalog p ON p.product_id = s.event_product AND p.listed
            """)
        // The days each charge of a listed product without a period bought: to its expires_at,
        // else (a renewal) since the previous charge of its chain, of any product, as handed.
        script += dialect.view(
            "charge_spans",
            """
            SELECT c.offering_key, c.product_id,
              CASE WHEN c.expires_at > c.ts THEN \(days("c.expires_at", "c.ts")) WHEN c.kind = 2 AND c.chain_id IS NOT NULL AND c.previous_ts < c.ts THEN \(days("c.ts", "c.previous_ts")) END AS span
            FROM (SELECT *, lag(ts) OVER (PARTITION BY offering_key, user_id, chain_id ORDER BY phase, ts, file_index, line_number) AS previous_ts
              FROM projection_events WHERE kind IN (1, 2)) c
            JOIN projection_catalog p ON p.product_id = c.product_id AND p.listed AND NOT p.typed
            """)
        script += dialect.materialize(
            "renewed_without_period",
            """
            SELECT r.offering_key, r.product_id, r.renewals, m.period_days
            FROM (SELECT e.offering_key, e.product_id, count(*) AS renewals FROM projection_events e
                JOIN projection_catalog p ON p.product_id = e.product_id AND NOT p.typed
              WHERE e.kind = 2 GROUP BY e.offering_key, e.product_id) r
            LEFT JOIN (SELECT offering_key, product_id,
                (max(CASE WHEN span_rank = \(dialect.divide("span_count - 1", "2")) THEN span END) + max(CASE WHEN span_rank = \(dialect.divide("span_count", "2")) THEN span END)) / 2 AS period_days
              FROM (SELECT offering_key, product_id, span, row_number() OVER (PARTITION BY offering_key, product_id ORDER BY span) - 1 AS span_rank,
                  count(*) OVER (PARTITION BY offering_key, product_id) AS span_count
                FROM charge_spans WHERE span IS NOT NULL) ranked
              GROUP BY offering_key, product_id) m ON m.offering_key = r.offering_key AND m.product_id = r.product_id
            """)
        script += dialect.view(
            "projection_periods",
            """
            SELECT a.offering_key, p.product_id, CASE WHEN p.typed THEN p.catalog_period ELSE w.period_days END AS period_days
            FROM analysed_offerings a CROSS JOIN projection_catalog p
            LEFT JOIN renewed_without_period w ON w.offering_key = a.offering_key AND w.product_id = p.product_id
            """)
        return script
    }

    /// `projection_charges` (each charge before the member's horizon, numbered in its chain,
    /// with what the refunds took back: a refund takes from its chain's latest charge read
    /// before it) and `projection_chains` (each chain: its first charge's product, charges, last
    /// charge, when its next renewal is due, and the charges after which its renewal was turned
    /// off, as `GroupObservation` reads them).
    func projectionChains() -> String {
        let year = Int64(Self.horizonDays) * Microseconds.perDay
        let member = "offering_key, user_id"
        var script = dialect.materialize(
            "projection_charges",
            """
            WITH charges AS (
              SELECT e.*, row_number() OVER (PARTITION BY e.offering_key, e.user_id, e.chain_key ORDER BY e.position) AS charge_number,
                count(*) OVER (PARTITION BY e.offering_key, e.user_id, e.chain_key) AS chain_charges
              FROM projection_events e WHERE e.kind IN (1, 2) AND e.ts < e.assigned_at + \(year)),
            refunds AS (
              SELECT r.offering_key, r.user_id, r.ts, r.amount, max(c.position) AS charge_position
              FROM projection_events r JOIN charges c ON c.offering_key = r.offering_key AND c.user_id = r.user_id AND c.chain_key = r.chain_key AND c.position < r.position
              WHERE r.kind = 3 GROUP BY r.offering_key, r.user_id, r.position, r.ts, r.amount)
            SELECT c.*, coalesce(f.refunded, \(double(0))) AS refunded, f.first_refund_ts
            FROM charges c LEFT JOIN (SELECT \(member), charge_position, sum(amount) AS refunded, min(ts) AS first_refund_ts FROM refunds GROUP BY \(member), charge_position) f
              ON f.offering_key = c.offering_key AND f.user_id = c.user_id AND f.charge_position = c.position
            """)
        // A cancel turns off the renewal after the chain's charges read before it (up to 64).
        script += dialect.view(
            "turned_off_marks",
            """
            SELECT DISTINCT offering_key, user_id, chain_key, after_charge FROM (
              SELECT x.offering_key, x.user_id, x.chain_key, count(*) AS after_charge
              FROM projection_events x JOIN projection_charges c ON c.offering_key = x.offering_key AND c.user_id = x.user_id AND c.chain_key = x.chain_key AND c.position < x.position
              WHERE x.kind = 4 GROUP BY x.offering_key, x.user_id, x.chain_key, x.position) marks
            WHERE after_charge <= 64
            """)
        script += dialect.materialize(
            "projection_chains",
            """
            SELECT c.*, p.period_days,
              CASE WHEN p.period_days IS NOT NULL THEN coalesce(c.last_expires_at, c.last_ts + \(whole("p.period_days * \(day)"))) END AS due,
              c.assigned_at + \(year) AS horizon_end,
              EXISTS (SELECT 1 FROM turned_off_marks m WHERE m.offering_key = c.offering_key AND m.user_id = c.user_id AND m.chain_key = c.chain_key AND m.after_charge = c.charge_count) AS turned_off_now
            FROM (SELECT offering_key, group_key, user_id, assigned_at, chain_key,
                max(CASE WHEN charge_number = 1 THEN product_id END) AS product_id, min(ts) AS first_ts, min(position) AS first_position,
                count(*) AS charge_count, max(CASE WHEN charge_number = chain_charges THEN ts END) AS last_ts,
                max(CASE WHEN charge_number = chain_charges THEN expires_at END) AS last_expires_at,
                max(CASE WHEN charge_number = chain_charges AND first_refund_ts IS NULL THEN 1 ELSE 0 END) = 1 AS last_kept
              FROM projection_charges GROUP BY offering_key, group_key, user_id, assigned_at, chain_key) c
            JOIN projection_periods p ON p.offering_key = c.offering_key AND p.product_id = c.product_id
            """)
        return script
    }

    /// `projection_members`: each member's tenure, revenue so far, first purchase, the trial
    /// read before it, and entry (the trial's start, else the first purchase).
    func projectionMemberFacts() -> String {
        let asOf = job.run.night.microseconds
        let year = Int64(Self.horizonDays) * Microseconds.perDay
        return dialect.materialize(
            "projection_members",
            """
            SELECT f.*,
              CASE WHEN f.trial_ts IS NOT NULL THEN \(whole(days("f.trial_ts", "f.assigned_at"))) ELSE \(whole(days("f.first_purchase_ts", "f.assigned_at"))) END AS entry_day,
              coalesce(f.trial_ts, f.first_purchase_ts) AS entry_ts,
              \(whole("floor(f.tenure_days)")) AS full_days
            FROM (SELECT v.offering_key, v.group_key, v.user_id, v.assigned_at,
                least(\(days(String(asOf), "v.assigned_at")), \(double(Double(Self.horizonDays)))) AS tenure_days,
                \(days(String(asOf), "v.assigned_at")) AS at_as_of,
                coalesce(e.revenue, \(double(0))) AS revenue, e.first_purchase_ts, e.first_purchase_product,
                CASE WHEN e.first_purchase_position IS NULL OR e.trial_position < e.first_purchase_position THEN e.trial_ts END AS trial_ts,
                CASE WHEN e.first_purchase_position IS NULL OR e.trial_position < e.first_purchase_position THEN e.trial_expires_at END AS trial_expires_at
              FROM member_values v
              LEFT JOIN (SELECT offering_key, user_id,
                  sum(CASE WHEN ts >= assigned_at + \(year) THEN \(double(0)) WHEN kind IN (1, 2) THEN amount WHEN kind = 3 THEN -amount ELSE \(double(0)) END) AS revenue,
                  max(CASE WHEN kind = 0 THEN ts END) AS trial_ts, max(CASE WHEN kind = 0 THEN position END) AS trial_position,
                  max(CASE WHEN kind = 0 THEN expires_at END) AS trial_expires_at,
                  max(CASE WHEN purchase_order = 1 THEN ts END) AS first_purchase_ts, max(CASE WHEN purchase_order = 1 THEN position END) AS first_purchase_position,
                  max(CASE WHEN purchase_order = 1 THEN product_id END) AS first_purchase_product
                FROM (SELECT *, CASE WHEN kind = 1 AND ts < assigned_at + \(year) THEN row_number() OVER (PARTITION BY offering_key, user_id, kind, ts < assigned_at + \(year) ORDER BY position) END AS purchase_order
                  FROM projection_events) ordered
                GROUP BY offering_key, user_id) e ON e.offering_key = v.offering_key AND e.user_id = v.user_id) f
            """)
    }

    /// One statistic's rows: `value` (an aggregate) over the rows of `source` that meet
    /// `condition`, per offering, group, `product`, `nextProduct` and `keys` (expressions of `source`).
    func statisticRows(
        _ statistic: ObservationStatistic, product: String = "''", nextProduct: String = "''", keys: [String] = [], value: String,
        from source: String, where condition: String = "TRUE"
    ) -> String {
        statisticRows(
            statistic.rawValue, product: product, nextProduct: nextProduct, keys: keys, value: value, from: source, where: condition)
    }

    /// `statisticRows` of a statistic named `statistic`, per `group` (NULL: the offering's own rows).
    func statisticRows(
        _ statistic: String, product: String = "''", nextProduct: String = "''", keys: [String] = [], value: String, from source: String,
        where condition: String = "TRUE", group: String = "s.group_key"
    ) -> String {
        let keyColumns = (0..<3).map { $0 < keys.count ? "CAST(\(keys[$0]) AS BIGINT)" : "CAST(NULL AS BIGINT)" }
        let named = ["row_product", "row_next_product", "row_key_1", "row_key_2", "row_key_3"]
        let expressions = [product, nextProduct] + keyColumns
        return """
            SELECT offering_key, row_group AS group_key, \(t(statistic)) AS statistic, row_product AS product_id, row_next_product AS next_product_id,
              row_key_1 AS key_1, row_key_2 AS key_2, row_key_3 AS key_3, CAST(\(value) AS DOUBLE) AS value
            FROM (SELECT s.*, \(group) AS row_group, \(zip(expressions, named).map { "\($0) AS \($1)" }.joined(separator: ", ")) FROM \(source) s WHERE \(condition)) s
            GROUP BY offering_key, row_group, \(named.joined(separator: ", "))
            """
    }

    /// `observation_rows`: every statistic's rows (those of value 0 too).
    func observationRows() -> String {
        let asOf = String(job.run.night.microseconds)
        let horizon = Self.horizonDays
        let members = "projection_members"
        let count = "count(*)"
        // Members with a trial and no purchase: open while its end and a day of grace are after as_of.
        let trialOnly = "s.trial_ts IS NOT NULL AND s.first_purchase_ts IS NULL"
        let trialEnd = days("s.trial_expires_at", "s.assigned_at")
        let waiting = "s.entry_ts IS NULL AND s.full_days < \(horizon) AND s.tenure_days < \(double(Double(horizon)))"
        let remaining = "(1 - (s.tenure_days - CAST(s.full_days AS DOUBLE)))"
        let minute = { (days: String) in "least(greatest(\(self.whole("\(days) * CAST(1440 AS DOUBLE)")), 0), 1439)" }
        let dayTable = "(\(dialect.integers(horizon))) d"
        /// Those of `exits` (offering_key, group_key, product_id, exit_day, exits) at risk on
        /// each day before their exit: the exits are counted first, so that the days are joined
        /// to a few rows a group, not to every member.
        func atRisk(_ exits: String) -> String {
            "(SELECT e.offering_key, e.group_key, e.product_id, e.exits, d.n FROM (\(exits)) e JOIN \(dayTable) ON d.n < e.exit_day)"
        }
        // At risk through the day of the entry, or through the last full day observed.
        let exitDay = "CASE WHEN entry_day IS NOT NULL AND entry_day < full_days THEN entry_day + 1 ELSE full_days END"
        var blocks = [
            statisticRows(.users, value: count, from: members),
            statisticRows(.observedRevenue, value: "sum(s.revenue)", from: members),
            statisticRows(.observedDays, value: "sum(s.tenure_days)", from: members),
            statisticRows(.payers, value: "count(s.first_purchase_ts)", from: members),
            statisticRows(.trialEntries, value: "count(s.trial_ts)", from: members),
            statisticRows(.purchaseEntries, value: count, from: members, where: "s.trial_ts IS NULL AND s.first_purchase_ts IS NOT NULL"),
            statisticRows(
                .trialsConverted, value: count, from: members, where: "s.trial_ts IS NOT NULL AND s.first_purchase_ts IS NOT NULL"),
            statisticRows(
                .trialsLapsedWithEnd, value: count, from: members,
                where: "\(trialOnly) AND s.trial_expires_at IS NOT NULL AND NOT (\(trialEnd) + 1 > s.at_as_of)"),
            statisticRows(.conversionsByDay, keys: ["s.entry_day"], value: count, from: members, where: "s.entry_day < s.full_days"),
            statisticRows(
                .atRiskByDay, keys: ["s.n"], value: "sum(s.exits)",
                from: atRisk(
                    "SELECT offering_key, group_key, '' AS product_id, \(exitDay) AS exit_day, count(*) AS exits FROM \(members) GROUP BY offering_key, group_key, \(exitDay)"
                )),
            statisticRows(.waitingByDay, keys: ["s.full_days"], value: count, from: members, where: waiting),
            statisticRows(.waitingRemainingByDay, keys: ["s.full_days"], value: "sum(\(remaining))", from: members, where: waiting),
            statisticRows(
                .waitingRemainingSquaredByDay, keys: ["s.full_days"], value: "sum(\(remaining) * \(remaining))", from: members,
                where: waiting),
            statisticRows(
                .pendingTrialsWithEndByDay, keys: ["greatest(\(whole(trialEnd)), \(whole("s.at_as_of")))"], value: count,
                from: members,
                where:
                    "\(trialOnly) AND s.trial_expires_at IS NOT NULL AND \(trialEnd) + 1 > s.at_as_of AND greatest(\(whole(trialEnd)), \(whole("s.at_as_of"))) < \(horizon)"
            ),
            statisticRows(
                .dayZeroEntriesByMinute, keys: [minute(days("s.entry_ts", "s.assigned_at"))], value: count, from: members,
                where: "s.entry_day = 0 AND s.full_days > 0"),
            statisticRows(
                .dayZeroWaitingByMinute, keys: [minute("s.tenure_days")], value: count, from: members,
                where: "\(waiting) AND s.full_days = 0"),
            statisticRows(
                .trialLengthsByDays, keys: ["round(\(days("s.trial_expires_at", "s.trial_ts")))"], value: count, from: members,
                where: "s.trial_ts IS NOT NULL AND s.trial_expires_at > s.trial_ts"),
            statisticRows(
                .trialConversionDelaysByDays, keys: ["round(\(days("s.first_purchase_ts", "s.trial_ts")))"], value: count,
                from: members,
                where: "s.trial_ts IS NOT NULL AND s.first_purchase_ts IS NOT NULL"),
            statisticRows(
                .openTrialsWithoutEnd,
                keys: [
                    whole(days("s.trial_ts", "s.assigned_at")), whole("s.at_as_of"),
                    whole("floor(s.at_as_of - \(days("s.trial_ts", "s.assigned_at")))"),
                ], value: count, from: members, where: "\(trialOnly) AND s.trial_expires_at IS NULL"),
            statisticRows(
                .firstPurchases, product: "s.first_purchase_product", value: count, from: members,
                where: "s.first_purchase_ts IS NOT NULL"),
        ]
        // Each charge counts for its chain's product.
        let charges = """
            (SELECT c.*, h.product_id AS chain_product, \(days(asOf, "c.ts")) AS age_days, c.amount - c.refunded AS net, c.first_refund_ts IS NOT NULL AS was_refunded
              FROM projection_charges c JOIN projection_chains h ON h.offering_key = c.offering_key AND h.user_id = c.user_id AND h.chain_key = c.chain_key)
            """
        let mature = "s.age_days >= \(double(Double(Self.refundLagDays)))"
        // ChargeValues' six sums, of the mature charges and of all: kept and refunded apart.
        let chargeSums: [(ObservationStatistic, value: String, refunded: Bool, mature: Bool)] = [
            (.matureKept, count, false, true), (.matureKeptNet, "sum(s.net)", false, true),
            (.matureKeptNetSquared, "sum(s.net * s.net)", false, true), (.matureRefunded, count, true, true),
            (.matureRefundedNet, "sum(s.net)", true, true), (.matureRefundedNetSquared, "sum(s.net * s.net)", true, true),
            (.allKept, count, false, false), (.allKeptNet, "sum(s.net)", false, false),
            (.allKeptNetSquared, "sum(s.net * s.net)", false, false), (.allRefunded, count, true, false),
            (.allRefundedNet, "sum(s.net)", true, false), (.allRefundedNetSquared, "sum(s.net * s.net)", true, false),
        ]
        for (statistic, value, refunded, isMature) in chargeSums {
            let selected = "\(isMature ? mature : "TRUE") AND \(refunded ? "" : "NOT ")s.was_refunded"
            blocks.append(statisticRows(statistic, product: "s.chain_product", value: value, from: charges, where: selected))
        }
        let young = "NOT (\(mature)) AND NOT s.was_refunded"
        let youngSlot = "least(\(whole("s.age_days")), \(Self.refundLagDays))"
        blocks += [
            statisticRows(
                .matureRefundedShare, product: "s.chain_product", value: "sum(s.refunded / s.amount)", from: charges,
                where: "\(mature) AND s.was_refunded AND s.amount > 0"),
            statisticRows(
                .refundsByDelayDay, product: "s.chain_product",
                keys: ["greatest(0, \(whole("ceil(\(days("s.first_refund_ts", "s.ts")) - 0.5)")))"], value: count, from: charges,
                where: "\(mature) AND s.was_refunded"),
            statisticRows(
                .youngPriceByAge, product: "s.chain_product", keys: [youngSlot], value: "sum(s.amount)", from: charges, where: young),
            statisticRows(
                .youngPriceSquaredByAge, product: "s.chain_product", keys: [youngSlot], value: "sum(s.amount * s.amount)",
                from: charges,
                where: young),
        ]
        blocks += renewalRows(asOf: asOf) + followOnRows(asOf: asOf, atRisk: atRisk)
        blocks += [
            statisticRows(
                "renewals_without_period", product: "s.product_id", value: "sum(s.renewals)", from: "renewed_without_period",
                group: "CAST(NULL AS BIGINT)"),
            statisticRows(
                "period_days", product: "s.product_id", value: "max(s.period_days)", from: "renewed_without_period",
                where: "s.period_days IS NOT NULL", group: "CAST(NULL AS BIGINT)"),
        ]
        return dialect.materialize("observation_rows", blocks.joined(separator: "\nUNION ALL\n"))
    }

    /// The renewals of the chains of products with a period, by `RenewalCounts.countChain` and
    /// `countTurnedOff`, and the chains still running.
    func renewalRows(asOf: String) -> [String] {
        let chains = "(SELECT * FROM projection_chains WHERE period_days IS NOT NULL)"
        let renewed = """
            (SELECT c.offering_key, c.group_key, h.product_id, c.charge_number - 1 AS renewal FROM projection_charges c
              JOIN projection_chains h ON h.offering_key = c.offering_key AND h.user_id = c.user_id AND h.chain_key = c.chain_key
              WHERE h.period_days IS NOT NULL AND c.charge_number >= 2)
            """
        let lapsed = "s.last_kept AND s.due < s.horizon_end AND s.due <= \(asOf)"
        let running = "s.last_kept AND s.due < s.horizon_end AND s.due > \(asOf)"
        let turnedOff = """
            (SELECT h.offering_key, h.group_key, h.product_id, m.after_charge AS renewal FROM turned_off_marks m
              JOIN projection_chains h ON h.offering_key = m.offering_key AND h.user_id = m.user_id AND h.chain_key = m.chain_key
              WHERE h.period_days IS NOT NULL AND m.after_charge < h.charge_count)
            """
        let due = { (source: String, lapsedSource: String) in
            """
            (SELECT offering_key, group_key, product_id, renewal FROM \(source) r
              UNION ALL SELECT offering_key, group_key, product_id, charge_count AS renewal FROM \(chains) s WHERE \(lapsedSource))
            """
        }
        let remaining = "ceil(CAST(s.horizon_end - s.due AS DOUBLE) / (s.period_days * \(day)))"
        return [
            statisticRows(.renewalsDue, product: "s.product_id", keys: ["s.renewal"], value: "count(*)", from: due(renewed, lapsed)),
            statisticRows(.renewalsRenewed, product: "s.product_id", keys: ["s.renewal"], value: "count(*)", from: renewed),
            statisticRows(
                .turnedOffDue, product: "s.product_id", keys: ["s.renewal"], value: "count(*)",
                from: due(turnedOff, "s.turned_off_now AND \(lapsed)")),
            statisticRows(.turnedOffRenewed, product: "s.product_id", keys: ["s.renewal"], value: "count(*)", from: turnedOff),
            statisticRows(
                .pendingChains, product: "s.product_id", keys: ["s.charge_count", remaining], value: "count(*)", from: chains,
                where: "\(running) AND NOT s.turned_off_now"),
            statisticRows(
                .pendingTurnedOff, product: "s.product_id", keys: ["s.charge_count", remaining], value: "count(*)", from: chains,
                where: "\(running) AND s.turned_off_now"),
        ]
    }

    /// The chains started after each one-time purchase (`FollowOnObservation`): the member's
    /// next chain in first-charge order, or the purchase watched until as_of or its horizon.
    func followOnRows(asOf: String, atRisk: (String) -> String) -> [String] {
        let horizon = Self.horizonDays
        let purchases = """
            (SELECT p.*, \(whole(days("p.next_first_ts", "p.first_ts"))) AS started_day,
                greatest(0, \(whole(days("least(\(asOf), p.horizon_end)", "p.first_ts")))) AS watched_days
              FROM (SELECT h.*, lead(h.first_ts) OVER (PARTITION BY h.offering_key, h.user_id ORDER BY h.first_position) AS next_first_ts,
                  lead(h.product_id) OVER (PARTITION BY h.offering_key, h.user_id ORDER BY h.first_position) AS next_product
                FROM projection_chains h) p
              WHERE p.period_days IS NULL)
            """
        let exitDay = "CASE WHEN next_first_ts IS NOT NULL THEN started_day + 1 ELSE least(watched_days, \(horizon)) END"
        return [
            statisticRows(
                .followOnAtRiskByDay, product: "s.product_id", keys: ["s.n"], value: "sum(s.exits)",
                from: atRisk(
                    "SELECT offering_key, group_key, product_id, \(exitDay) AS exit_day, count(*) AS exits FROM \(purchases) p GROUP BY offering_key, group_key, product_id, \(exitDay)"
                )),
            statisticRows(
                .followOnStartedByDay, product: "s.product_id", keys: ["s.started_day"], value: "count(*)", from: purchases,
                where: "s.next_first_ts IS NOT NULL"),
            statisticRows(
                .followOnProducts, product: "s.product_id", nextProduct: "s.next_product", value: "count(*)", from: purchases,
                where: "s.next_first_ts IS NOT NULL"),
            statisticRows(
                .followOnWaiting, product: "s.product_id", keys: [whole(days("s.first_ts", "s.assigned_at")), "s.watched_days"],
                value: "count(*)", from: purchases, where: "s.next_first_ts IS NULL AND \(asOf) < s.horizon_end"),
        ]
    }
}
