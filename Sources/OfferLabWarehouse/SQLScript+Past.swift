import OfferLabAnalysis
import OfferLabIngest

/// The night part past (contract §3.3): see `nightPartResult`.
extension ScriptBuilder {
    /// `past`: per analysed offering and product, the subscription chains of the logs and the
    /// `history_logs` files whose users are not its members, counted renewal by renewal as `run`
    /// counts them (`AppPast.past(ofMembers:)`, `ProductPastBuilder.addChain`): the views it
    /// reads, then the result.
    func pastResult() -> String {
        var statements = pastChainStatements()
        let asOf = job.run.night.microseconds
        // Each offering counts the chains of a renewing product whose user is not its member; the
        // next renewal fell due at the last charge's `expires_at`, else a period after it.
        statements.append(
            dialect.view(
                "past_counted_chains",
                """
                SELECT o.offering_id, c.chain, c.product_id, c.charge_count,
                  NOT c.refunded AND coalesce(c.last_expires_at, c.last_charge_at + p.period) <= \(asOf) AS last_due
                FROM past_chains c JOIN renewing_products p ON p.product_id = c.product_id
                CROSS JOIN analysed_offerings o
                LEFT JOIN memberships m ON m.user_id = c.user_id AND m.offering_key = o.offering_key
                WHERE m.user_id IS NULL
                """))
        // `RenewalCounts.countChain` and `countTurnedOff`: renewal k < the charges renewed; renewal
        // k = the charges lapsed when the last charge was kept and fell due by as_of.
        statements.append(
            dialect.view(
                "past_renewals",
                """
                SELECT c.offering_id, c.product_id, 'renewals' AS kind, p.ordinal - 1 AS renewal, TRUE AS renewed
                FROM past_counted_chains c JOIN past_charges p ON p.chain = c.chain WHERE p.ordinal >= 2
                UNION ALL
                SELECT offering_id, product_id, 'renewals', charge_count, FALSE FROM past_counted_chains WHERE last_due
                UNION ALL
                SELECT c.offering_id, c.product_id, 'turned_off', t.renewal, t.renewal < c.charge_count
                FROM past_counted_chains c JOIN past_turned_off t ON t.chain = c.chain
                WHERE t.renewal < c.charge_count OR (t.renewal = c.charge_count AND c.last_due)
                """))
        let renewedCount = "sum(CASE WHEN renewed THEN 1 ELSE 0 END)"
        let perRenewal = "FROM past_renewals GROUP BY offering_id, product_id, kind, renewal"
        return statements.joined(separator: "\n") + """

            SELECT r.* FROM (
            \(longFormRow(offering: "offering_id", statistic: t("chains"), product: "product_id", value: "count(*)")) FROM past_counted_chains GROUP BY offering_id, product_id
            UNION ALL
            \(longFormRow(offering: "offering_id", statistic: "concat(kind, '_due')", product: "product_id", keys: ["renewal"], value: "count(*)")) \(perRenewal)
            UNION ALL
            \(longFormRow(offering: "offering_id", statistic: "concat(kind, '_renewed')", product: "product_id", keys: ["renewal"], value: renewedCount)) \(perRenewal) HAVING \(renewedCount) > 0
            ) r CROSS JOIN line_check
            WHERE line_check.failure IS NULL;
            """
    }

    /// The views and tables of the past's chains, shared by `past` and `backtest`: the renewing
    /// products, every counted charge, refund and cancel before as_of (`past_events`), the charges
    /// of each chain (`past_charges`), each chain as it ended (`past_chains`) and the renewals a
    /// cancel turned off (`past_turned_off`).
    func pastChainStatements() -> [String] {
        var statements: [String] = []
        let asOf = job.run.night.microseconds
        let charges = "(\(eventName(.purchase)), \(eventName(.renewal)))"
        // The products that renew, with their period: a chain of any other product is not counted.
        let projection = ProjectionCatalog(catalog)
        let periods = zip(projection.productIDs, projection.products).compactMap { id, product in
            product.renewalDue(lastChargeTime: 0, lastExpiresAt: nil).map { "(\(t(id)), CAST(\($0) AS BIGINT))" }
        }
        statements.append(
            dialect.view(
                "renewing_products",
                periods.isEmpty
                    ? "SELECT CAST(NULL AS STRING) AS product_id, CAST(NULL AS BIGINT) AS period WHERE FALSE"
                    : "SELECT * FROM (VALUES \(periods.joined(separator: ", "))) AS p(product_id, period)"))
        // `PastFile`, `AppPast.moneyEvents`: the valid paid charges (kind 0), refunds (1) and
        // cancels (2) before as_of with details, outside the sandbox, of the logs and the files
        // alike, as read (not de-duplicated: `past_charges` tells a charge read twice). A chain is
        // its `original_transaction_id`, else its user and product (a user of the assignment
        // table: another cannot be told), written as one text that no two keys share.
        let details = [
            "price_micros", "transaction_id", "original_transaction_id", "product_id", "currency", "expires_at", "store",
            "tax_billionths", "commission_billionths",
        ].map { "\($0) IS NOT NULL" }.joined(separator: " OR ")
        statements.append(
            dialect.materialize(
                "past_events",
                """
                SELECT file_index, line_number, ts, user_id, product_id, transaction_id, expires_at, price_micros, currency,
                  CASE WHEN event IN \(charges) THEN 0 WHEN event = \(eventName(.refund)) THEN 1 ELSE 2 END AS kind,
                  CASE WHEN original_transaction_id IS NOT NULL THEN concat('t', original_transaction_id)
                    ELSE concat('u', CAST(length(user_id) AS STRING), ':', user_id, CASE WHEN product_id IS NULL THEN '' ELSE concat('p', product_id) END) END AS chain
                FROM line_events
                WHERE reason IS NULL AND ts < \(asOf) AND (event IN \(charges) OR event IN (\(eventName(.refund)), \(eventName(.cancel))))
                  AND lower(coalesce(environment, '')) <> 'sandbox' AND (\(details))
                  AND (original_transaction_id IS NOT NULL OR user_id IN (SELECT user_id FROM memberships))
                """))
        // `PastChain.read`: a chain's charges in time order (ties in file order); a charge at the
        // time of the one before it with the same `transaction_id` (both absent alike) is that
        // charge again. Each counted charge's ordinal, and the chain's count of them.
        let chainOrder = "PARTITION BY chain ORDER BY ts, file_index, line_number"
        statements.append(
            dialect.materialize(
                "past_charges",
                """
                SELECT chain, ts, user_id, product_id, expires_at, price_micros, currency, row_number() OVER (\(chainOrder)) AS ordinal,
                  count(*) OVER (PARTITION BY chain) AS charge_count
                FROM (SELECT *, lag(ts) OVER (\(chainOrder)) AS previous_ts, lag(transaction_id) OVER (\(chainOrder)) AS previous_transaction
                  FROM past_events WHERE kind = 0) charges
                WHERE previous_ts IS NULL OR previous_ts <> ts OR NOT (transaction_id IS NOT DISTINCT FROM previous_transaction)
                """))
        // A chain's user and product are its first charge's; a refund at or after its last charge
        // (a refund sorts after a charge at its time) took that charge back.
        statements.append(
            dialect.view(
                "past_chains",
                """
                SELECT c.*, r.last_refund_at IS NOT NULL AND r.last_refund_at >= c.last_charge_at AS refunded
                FROM (SELECT chain, charge_count, max(CASE WHEN ordinal = 1 THEN user_id END) AS user_id,
                    max(CASE WHEN ordinal = 1 THEN product_id END) AS product_id,
                    max(CASE WHEN ordinal = charge_count THEN ts END) AS last_charge_at,
                    max(CASE WHEN ordinal = charge_count THEN expires_at END) AS last_expires_at
                  FROM past_charges GROUP BY chain, charge_count) c
                LEFT JOIN (SELECT chain, max(ts) AS last_refund_at FROM past_events WHERE kind = 1 GROUP BY chain) r ON r.chain = c.chain
                """))
        // A cancel after the chain's k-th charge (a cancel sorts after a charge at its time) and
        // before the next turned its renewal k off; charges past the 64th keep no such state.
        statements.append(
            dialect.view(
                "past_turned_off",
                """
                SELECT DISTINCT chain, renewal FROM (
                  SELECT c.chain, max(p.ordinal) AS renewal
                  FROM past_events c JOIN past_charges p ON p.chain = c.chain AND p.ts <= c.ts
                  WHERE c.kind = 2 GROUP BY c.chain, c.file_index, c.line_number) cancels
                WHERE renewal <= 64
                """))
        return statements
    }
}
