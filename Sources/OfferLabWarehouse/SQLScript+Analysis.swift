import OfferLabAnalysis
import OfferLabIngest
import OfferLabJob
import OfferLabTables
import OfferLabVocabulary
import OfferLabWriters

/// An event type's log name as a SQL string literal: `'refund'`. The scripts take the taxonomy from
/// `EventType`, as `run` does.
func eventName(_ type: EventType) -> String { "'\(type.logName)'" }

/// The log names of the event types `includes` selects, in `EventType` order, as a SQL list:
/// `('purchase', 'renewal')`.
private func eventList(_ includes: (EventType) -> Bool) -> String {
    "(" + EventType.allCases.filter(includes).map(eventName).joined(separator: ", ") + ")"
}

/// Every event type of the taxonomy; any other `event` is dropped as unknown.
private let knownEvents = eventList { _ in true }
/// The event types whose copies are also recognised by (`event`, `transaction_id`).
private let transactionEvents = eventList(\.isTransaction)
/// The paid charges, which must carry a price.
let chargeEvents = eventList(\.requiresPrice)
/// The events a refund can return money for.
private let refundableEvents = eventList(\.isRefundable)
/// The events whose money counts: the charges and their refunds.
let moneyEvents = eventList(\.carriesMoney)

extension ScriptBuilder {
    /// SQL that is true when `text` follows the timestamp grammar (docs/analysis.md, Log fields: a real date and
    /// time), and its microseconds since the epoch.
    func timestamp(_ text: String) -> (valid: String, micros: String) {
        let pattern = #"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})?"#
        func part(_ start: Int, _ length: Int) -> String { "TRY_CAST(substr(\(text), \(start), \(length)) AS BIGINT)" }
        let (year, month, day, hour, minute, second) = (part(1, 4), part(6, 2), part(9, 2), part(12, 2), part(15, 2), part(18, 2))
        let zone = "regexp_extract(\(text), \(t("([+-][0-9]{2}:[0-9]{2})$")), 1)"
        let zoneHours = "coalesce(TRY_CAST(substr(\(zone), 2, 2) AS BIGINT), 0)"
        let zoneMinutes = "coalesce(TRY_CAST(substr(\(zone), 5, 2) AS BIGINT), 0)"
        let zoneSign = "CASE substr(\(zone), 1, 1) WHEN '+' THEN 1 WHEN '-' THEN -1 ELSE 0 END"
        let fraction = "coalesce(TRY_CAST(rpad(substr(regexp_extract(\(text), \(t(#"\.([0-9]+)"#)), 1), 1, 6), 6, '0') AS BIGINT), 0)"
        let leap = "((\(year)) % 4 = 0 AND ((\(year)) % 100 <> 0 OR (\(year)) % 400 = 0))"
        let monthDays =
            "CASE \(month) WHEN 2 THEN CASE WHEN \(leap) THEN 29 ELSE 28 END WHEN 4 THEN 30 WHEN 6 THEN 30 WHEN 9 THEN 30 WHEN 11 THEN 30 ELSE 31 END"
        let valid =
            "(coalesce(\(dialect.fullMatch(text, pattern)), FALSE) AND \(month) BETWEEN 1 AND 12 AND \(day) BETWEEN 1 AND \(monthDays) AND \(hour) <= 23 AND \(minute) <= 59 AND \(second) <= 59 AND \(zoneHours) <= 23 AND \(zoneMinutes) <= 59)"
        // Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil),
        // shifted by 400 years so that every division is of non-negative numbers.
        let shiftedYear = "(\(year) - CASE WHEN \(month) <= 2 THEN 1 ELSE 0 END + 400)"
        let era = dialect.divide(shiftedYear, "400")
        let yearOfEra = "(\(shiftedYear) - \(era) * 400)"
        let dayOfYear = "(\(dialect.divide("153 * ((\(month) + 9) % 12) + 2", "5")) + \(day) - 1)"
        let dayOfEra = "(\(yearOfEra) * 365 + \(dialect.divide(yearOfEra, "4")) - \(dialect.divide(yearOfEra, "100")) + \(dayOfYear))"
        let days = "(\(era) * 146097 + \(dayOfEra) - 719468 - 146097)"
        let micros =
            "((\(days) * 86400 + \(hour) * 3600 + \(minute) * 60 + \(second) - \(zoneSign) * (\(zoneHours) * 3600 + \(zoneMinutes) * 60)) * 1000000 + \(fraction))"
        return (valid, micros)
    }

    /// `line_events`: every non-blank line with its malformed reason (NULL: a valid event) and
    /// its fields as the analysis uses them; `log_events` those of the logs, `history_events`
    /// those of the `history_logs` files (`readLogs`).
    mutating func classifyLines() {
        let optional = [
            "event_id", "product_id", "transaction_id", "original_transaction_id", "currency", "offering_id", "test_group_id",
            "environment",
        ]
        // An empty optional text is absent.
        let present = { (field: String) in "(k_\(field) IS NOT NULL AND NOT (k_\(field) = 's' AND v_\(field) = ''))" }
        let pricePattern = #"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?"#
        let priceMicros = "TRY_CAST(\(dialect.roundHalfEven("TRY_CAST(v_price AS DECIMAL(38, 12)) * 1000000")) AS BIGINT)"
        let text = timestamp("v_ts")
        let epochMillis = "TRY_CAST(v_ts AS BIGINT)"
        let idsInvalid = optional.map { "coalesce(k_\($0) NOT IN ('s', 'i'), FALSE)" }.joined(separator: " OR ")
        // docs/analysis.md §8: RevenueCat's fee shares, in billionths: each a number in [0, 1), together below 1.
        let shares = ["tax_percentage", "commission_percentage"]
        let dialect = self.dialect
        let shareBillionths = { (field: String) in
            "CASE WHEN \(present(field)) THEN TRY_CAST(\(dialect.roundHalfEven("TRY_CAST(v_\(field) AS DECIMAL(38, 12)) * 1000000000")) AS BIGINT) END"
        }
        let shareInvalid =
            shares.map { field in
                let numeric =
                    "(k_\(field) IN ('i', 'd') OR (k_\(field) = 's' AND coalesce(\(dialect.fullMatch("v_\(field)", pricePattern)), FALSE)))"
                return "(\(present(field)) AND NOT (\(numeric) AND coalesce(\(field)_billionths BETWEEN 0 AND 999999999, FALSE)))"
            }.joined(separator: " OR ") + " OR coalesce(tax_percentage_billionths + commission_percentage_billionths >= 1000000000, FALSE)"
        // docs/analysis.md §9: `expires_at` in the grammar of `ts`; any other value is absent.
        let expiresText = timestamp("v_expires_at")
        let expiresMillis = "TRY_CAST(v_expires_at AS BIGINT)"
        let expiresIsMillis = "(k_expires_at = 'i' OR (from_csv AND coalesce(\(dialect.fullMatch("v_expires_at", "[0-9]+")), FALSE)))"
        let expiresAt = """
            CASE WHEN \(expiresIsMillis) THEN CASE WHEN \(expiresMillis) BETWEEN \(Timestamp.earliestEpochMilliseconds / 1000) AND 9223372036854775 THEN \(expiresMillis) * 1000 END
              WHEN k_expires_at = 's' AND \(expiresText.valid) THEN \(expiresText.micros) END
            """
        let reason = """
            CASE
              WHEN \(dialect.byteLength("line")) > 1048576 THEN 'malformed_line_too_long'
              WHEN invalid_csv THEN 'malformed_invalid_csv'
              WHEN invalid_json THEN 'malformed_invalid_json'
              WHEN k_ts IS NULL OR k_user_id IS NULL OR k_event IS NULL THEN 'malformed_missing_field'
              WHEN NOT (k_user_id = 'i' OR (k_user_id = 's' AND v_user_id <> '')) OR k_event <> 's'
                OR (k_price IS NOT NULL AND NOT coalesce(price_valid, FALSE)) OR \(idsInvalid) OR \(shareInvalid) THEN 'malformed_invalid_field'
              WHEN NOT coalesce(ts_valid, FALSE) THEN 'malformed_bad_timestamp'
              WHEN (v_event IN \(transactionEvents) AND NOT (\(present("product_id")) AND \(present("transaction_id"))))
                OR (v_event IN \(chargeEvents) AND k_price IS NULL)
                OR (k_price IS NOT NULL AND NOT \(present("currency"))) THEN 'malformed_missing_field'
              WHEN price_value < 0 THEN 'malformed_negative_price'
            END
            """
        // A slice field is a string or an integer's digits; another type is no level, not a malformed line.
        let fields =
            (optional.map { "CASE WHEN \(present($0)) THEN v_\($0) END AS \($0)" }
            + (keptColumns + ["store"]).map { "CASE WHEN \(present($0)) AND k_\($0) IN ('s', 'i') THEN v_\($0) END AS \($0)" })
            .joined(separator: ", ")
        // In layers, so that each long expression is written (and planned) once.
        add(
            dialect.materialize(
                "line_events",
                """
                SELECT file_index, line_number, reason, CASE WHEN reason IS NULL THEN ts_value END AS ts,
                  v_user_id AS user_id, v_event AS event, CASE WHEN reason IS NULL THEN price_value END AS price_micros, \(fields),
                  CASE WHEN reason IS NULL THEN \(expiresAt) END AS expires_at,
                  CASE WHEN reason IS NULL THEN tax_percentage_billionths END AS tax_billionths,
                  CASE WHEN reason IS NULL THEN commission_percentage_billionths END AS commission_billionths
                FROM (SELECT *, \(reason) AS reason
                  FROM (SELECT *,
                      CASE WHEN ts_is_millis THEN \(epochMillis) BETWEEN \(Timestamp.earliestEpochMilliseconds / 1000) AND 9223372036854775 WHEN k_ts = 's' THEN \(text.valid) ELSE FALSE END AS ts_valid,
                      CASE WHEN ts_is_millis THEN \(epochMillis) * 1000 WHEN k_ts = 's' AND \(text.valid) THEN \(text.micros) END AS ts_value,
                      (k_price IN ('i', 'd') OR (k_price = 's' AND coalesce(\(dialect.fullMatch("v_price", pricePattern)), FALSE))) AND abs(price_value) <= 1000000000000000000 AS price_valid
                    FROM (SELECT *, \(priceMicros) AS price_value, (k_ts = 'i' OR (from_csv AND \(dialect.fullMatch("v_ts", "[0-9]+")))) AS ts_is_millis,
                        \(shares.map { "\(shareBillionths($0)) AS \($0)_billionths" }.joined(separator: ", "))
                      FROM (\(strictJSON()) UNION ALL SELECT * FROM csv_fields) lines) prepared) checked) classified
                """))
        let logFileCount = job.inputs.logFiles.count
        add(dialect.view("log_events", "SELECT * FROM line_events WHERE file_index < \(logFileCount)"))
        add(dialect.view("history_events", "SELECT * FROM line_events WHERE file_index >= \(logFileCount)"))
    }

    /// `json_fields` with the lines DuckDB's lenient JSON reader accepts but JSON forbids
    /// (trailing commas, `NaN`, comments) marked invalid, and a line with a repeated key, whose
    /// value `run` takes from the last one and DuckDB from the first, failing the script.
    func strictJSON() -> String {
        guard dialect == .duckdb else { return "SELECT * FROM json_fields" }
        let outsideStrings = #"regexp_replace(line, '"(?:[^"\\]|\\.)*"', '""', 'g')"#
        let forbidden =
            #"regexp_matches(regexp_replace(\#(outsideStrings), '\b(true|false|null)\b', '0', 'g'), '(,\s*[}\]])|([\[{]\s*,)|(,\s*,)|[A-DF-Za-df-z/'']')"#
        let repeated = dialect.failWhen(
            "len(keys) <> len(list_distinct(keys))",
            "'offerlab sql: ' || path || ': a line repeats a key; DuckDB reads its first value where offerlab run reads the last: remove the repetition or use --dialect spark: ' || substr(line, 1, 80)"
        )
        return """
            SELECT file_index, line_number, line, from_csv, invalid_json OR \(forbidden) OR coalesce(\(repeated), FALSE) AS invalid_json, invalid_csv,
              \(fieldColumns.joined(separator: ", "))
            FROM (SELECT j.*, f.path, CASE WHEN NOT invalid_json THEN json_keys(line) END AS keys FROM json_fields j JOIN input_files f USING (file_index)) with_keys
            """
    }

    /// `assignment_rows(user_id, offering_text, group_text, assigned_text)`: the assignment
    /// table as text, read by the engine (CSV or `mysql --batch` TSV, gzipped or not).
    mutating func readAssignments(path: String, format: TableFormat) throws {
        let gzip = try isGzipFile(path)
        let columns = ["user_id", "subscription_offering_id", "offering_group_id", "assigned_at"]
        let read: String
        switch (dialect, format) {
        case (.duckdb, .csv):
            read =
                "read_csv(\(t(path)), header = true, all_varchar = true, delim = ',', quote = '\"', escape = '\"', allow_quoted_nulls = false, nullstr = ['', '\\N'], compression = '\(gzip ? "gzip" : "none")')"
        case (.duckdb, .tsv):
            read =
                "read_csv(\(t(path)), header = true, all_varchar = true, delim = '\t', quote = '', escape = '', allow_quoted_nulls = false, nullstr = 'NULL', compression = '\(gzip ? "gzip" : "none")')"
        case (.spark, _):
            try Self.checkSparkReads(path, gzip: gzip)
            let options =
                format == .csv
                ? "header 'true', sep ',', quote '\"', escape '\"', multiLine 'true', nullValue '\\\\N', emptyValue ''"
                : "header 'true', sep '\\t', quote '', escape '', nullValue 'NULL', emptyValue ''"
            add("CREATE OR REPLACE TEMP VIEW assignment_file USING csv OPTIONS (path \(t(path)), \(options));\n")
            read = "assignment_file"
        }
        let values = columns.map { column -> String in
            let quoted = dialect == .duckdb ? "\"\(column)\"" : "`\(column)`"
            return format == .tsv ? unescapeTSV(quoted) : quoted
        }
        add(
            dialect.view(
                "assignment_rows",
                "SELECT \(values[0]) AS user_id, \(values[1]) AS offering_text, \(values[2]) AS group_text, \(values[3]) AS assigned_text FROM \(read)"
            ))
    }

    /// A `mysql --batch` field's text: `\t` `\n` `\r` `\\` `\0` decoded, any other `\x` is `x`.
    func unescapeTSV(_ column: String) -> String {
        let backslash = "chr(1)"
        let reference = dialect == .duckdb ? "\\1" : "$1"
        var value = "replace(\(column), \(t("\\\\")), \(backslash))"
        for (escape, character) in [("t", "chr(9)"), ("n", "chr(10)"), ("r", "chr(13)"), ("0", "chr(0)")] {
            value = "replace(\(value), \(t("\\" + escape)), \(character))"
        }
        value = "regexp_replace(\(value), \(t("\\\\(.)")), \(t(reference)))"
        return "replace(\(value), \(backslash), \(t("\\")))"
    }

    /// Every view from the clean-up (docs/analysis.md §1–§2) to the group, quality and product results.
    mutating func analyse(analysed: [String]?) {
        classifyLines()
        let asOf = String(job.run.night.microseconds)
        let window = job.analysis.conversionWindowDays.map { String(AttributionRules.windowMicroseconds(days: $0)) } ?? "NULL"
        let dialect = self.dialect
        let names = Set(analysed ?? [])
        var offeringRows: [String] = []
        var groupRows: [String] = []
        for offering in catalog.offerings {
            offeringRows.append("(\(offering.id), \(t(offering.offeringID)), \(names.contains(offering.offeringID)))")
            let control = offering.controlGroupIndex(preferred: job.analysis.control)
            for (index, group) in offering.groups.enumerated() {
                groupRows.append("(\(group.id), \(offering.id), \(t(group.name)), \(double(group.weight)), \(index == control), \(index))")
            }
        }
        add(
            dialect.view(
                "catalog_offerings",
                "SELECT * FROM (VALUES \(offeringRows.joined(separator: ", "))) AS o(offering_key, offering_id, named_by_job)"))
        add(
            dialect.view(
                "catalog_groups",
                groupRows.isEmpty
                    ? "SELECT CAST(NULL AS BIGINT) AS group_key, CAST(NULL AS BIGINT) AS offering_key, CAST(NULL AS STRING) AS group_name, CAST(NULL AS DOUBLE) AS weight, FALSE AS is_control, 0 AS position WHERE FALSE"
                    : "SELECT * FROM (VALUES \(groupRows.joined(separator: ", "))) AS g(group_key, offering_key, group_name, weight, is_control, position)"
            ))
        let rates = job.analysis.rates.sorted { $0.key < $1.key }.map { "(\(t($0.key)), \(double($0.value)))" }
        add(dialect.view("rates", "SELECT * FROM (VALUES \(rates.joined(separator: ", "))) AS r(currency, rate)"))

        // docs/analysis.md §1: rows at or after as_of go first; then a row is valid when every value reads and
        // its group belongs to its offering.
        let assigned = timestamp("assigned_text")
        let integer = { (column: String) in
            "CASE WHEN coalesce(\(dialect.fullMatch(column, "-?[0-9]+")), FALSE) THEN TRY_CAST(\(column) AS BIGINT) END"
        }
        add(
            dialect.materialize(
                "assignments",
                """
                SELECT a.user_id, o.offering_key, a.assigned_at,
                  coalesce(a.assigned_at IS NOT NULL AND a.user_id IS NOT NULL AND a.user_id <> '' AND g.offering_key = o.offering_key, FALSE) AS valid, g.group_key
                FROM (SELECT user_id, \(integer("offering_text")) AS offering_number, \(integer("group_text")) AS group_number,
                    CASE WHEN \(assigned.valid) THEN \(assigned.micros) END AS assigned_at
                  FROM assignment_rows) a
                LEFT JOIN catalog_offerings o ON o.offering_key = a.offering_number
                LEFT JOIN catalog_groups g ON g.group_key = a.group_number
                WHERE a.assigned_at IS NULL OR a.assigned_at < \(asOf)
                """))
        let namedByJob =
            analysed == nil ? "o.offering_key IN (SELECT offering_key FROM assignments WHERE offering_key IS NOT NULL)" : "o.named_by_job"
        add(dialect.view("analysed_offerings", "SELECT o.offering_key, o.offering_id FROM catalog_offerings o WHERE \(namedByJob)"))
        add(
            dialect.materialize(
                "memberships",
                """
                SELECT user_id, offering_key, count(DISTINCT group_key) AS group_count, min(group_key) AS group_key, min(assigned_at) AS assigned_at
                FROM assignments WHERE valid GROUP BY user_id, offering_key
                """))

        // docs/analysis.md §2, steps 1–2: events at or after as_of go, then copies by event_id, then by
        // (event, transaction_id): the earliest wins, ties in file order.
        add(
            dialect.materialize(
                "deduplicated",
                """
                WITH by_id AS (
                  SELECT *, CASE WHEN event_id IS NULL THEN 1 ELSE row_number() OVER (PARTITION BY event_id ORDER BY ts, file_index, line_number) END AS id_copy
                  FROM log_events WHERE reason IS NULL AND ts < \(asOf)),
                by_transaction AS (
                  SELECT *, CASE WHEN event IN \(transactionEvents) THEN row_number() OVER (PARTITION BY event, transaction_id ORDER BY ts, file_index, line_number) ELSE 1 END AS transaction_copy
                  FROM by_id WHERE id_copy = 1)
                SELECT file_index, line_number, ts, user_id, event, price_micros, event_id, product_id, transaction_id, original_transaction_id, currency, offering_id, test_group_id, environment,
                  expires_at, store, tax_billionths, commission_billionths\(keptColumns.map { ", " + $0 }.joined())
                FROM by_transaction WHERE transaction_copy = 1
                """))
        // Steps 3–5.
        add(
            dialect.view(
                "cleanup_steps",
                """
                SELECT d.*,
                  CASE WHEN event NOT IN \(knownEvents) THEN 'unknown_event_types'
                    WHEN lower(coalesce(environment, '')) = 'sandbox' THEN 'sandbox_events'
                    WHEN NOT EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = d.user_id) THEN 'unassigned_events' END AS dropped_as
                FROM deduplicated d
                """))
        add(dialect.materialize("clean_events", "SELECT * FROM cleanup_steps WHERE dropped_as IS NULL"))
        chargeProceeds()

        // Attribution (docs/analysis.md §2): every event of a member of an analysed offering, looked at for it.
        // An event at `ts` counts as `AttributionRules.placement` says: from the assignment, before its end.
        let counts = { (ts: String) in "(\(ts) >= m.assigned_at AND (\(window) IS NULL OR \(ts) < m.assigned_at + \(window)))" }
        // A counted cancel is chainless (`AttributionRules.isChainless`) when nothing of its chain started at or before it: a counted
        // charge of its chain (its `original_transaction_id`, without one its `product_id` among the charges that have none), or a
        // counted trial its chain's purchase would convert (the trial's `original_transaction_id`, without one its `product_id`).
        let chargeStart = """
            min(CASE WHEN j.counted AND j.event IN \(chargeEvents) THEN j.ts END) OVER (PARTITION BY j.offering_key, j.user_id,
                j.original_transaction_id, CASE WHEN j.original_transaction_id IS NULL THEN j.product_id END)
            """
        let trialStart = { (key: String) in
            """
            min(CASE WHEN j.counted AND j.event = \(eventName(.trialStart)) AND \(key == "original_transaction_id" ? "j.original_transaction_id IS NOT NULL" : "j.original_transaction_id IS NULL") THEN j.ts END)
                OVER (PARTITION BY j.offering_key, j.user_id, j.\(key))
            """
        }
        let chainStart =
            "least(coalesce(\(chargeStart), 9223372036854775807), coalesce(\(trialStart("original_transaction_id")), 9223372036854775807), coalesce(\(trialStart("product_id")), 9223372036854775807))"
        add(
            dialect.materialize(
                "attributed",
                """
                WITH members AS (
                  SELECT m.user_id, m.offering_key, m.group_key, m.assigned_at, a.offering_id, g.group_name
                  FROM memberships m JOIN analysed_offerings a ON a.offering_key = m.offering_key JOIN catalog_groups g ON g.group_key = m.group_key
                  WHERE m.group_count = 1),
                charges AS (SELECT user_id, event, transaction_id, ts, price_micros, currency FROM clean_events WHERE event IN \(refundableEvents)),
                user_offerings AS (
                  SELECT DISTINCT m.user_id, o.offering_id FROM memberships m JOIN catalog_offerings o ON o.offering_key = m.offering_key WHERE m.group_count = 1),
                user_groups AS (
                  SELECT DISTINCT m.user_id, g.group_name FROM memberships m JOIN catalog_groups g ON g.group_key = m.group_key WHERE m.group_count = 1),
                looked_at AS (
                  SELECT m.offering_key, m.group_key, m.offering_id AS offering_id_of_group, m.group_name, m.assigned_at, e.*,
                    uo.user_id IS NOT NULL AS in_logged_offering, ug.user_id IS NOT NULL AS in_logged_group,
                    coalesce(p.ts, r.ts) AS target_ts, CASE WHEN p.ts IS NOT NULL THEN \(eventName(.purchase)) WHEN r.ts IS NOT NULL THEN \(eventName(.renewal)) END AS target_event,
                    CASE WHEN e.price_micros IS NOT NULL THEN e.price_micros ELSE coalesce(p.price_micros, r.price_micros) END AS refund_micros,
                    CASE WHEN e.price_micros IS NOT NULL THEN e.currency ELSE coalesce(p.currency, r.currency) END AS refund_currency
                  FROM members m JOIN clean_events e ON e.user_id = m.user_id
                  LEFT JOIN charges p ON e.event = \(eventName(.refund)) AND p.event = \(eventName(.purchase)) AND p.user_id = e.user_id AND p.transaction_id = e.transaction_id
                  LEFT JOIN charges r ON e.event = \(eventName(.refund)) AND r.event = \(eventName(.renewal)) AND r.user_id = e.user_id AND r.transaction_id = e.transaction_id
                  LEFT JOIN user_offerings uo ON uo.user_id = e.user_id AND uo.offering_id = e.offering_id
                  LEFT JOIN user_groups ug ON ug.user_id = e.user_id AND ug.group_name = e.test_group_id),
                judged AS (
                  SELECT *,
                    CASE WHEN event = \(eventName(.refund)) THEN target_ts IS NOT NULL AND \(counts("target_ts")) ELSE \(counts("ts")) END AS counted,
                    CASE WHEN event = \(eventName(.refund)) THEN refund_micros ELSE price_micros END AS money_micros,
                    CASE WHEN event = \(eventName(.refund)) THEN refund_currency ELSE currency END AS money_currency
                  FROM looked_at m)
                SELECT j.offering_key, j.group_key, j.user_id, j.assigned_at, j.event, j.ts, j.file_index, j.line_number, j.product_id, j.original_transaction_id, j.counted,
                  j.event <> \(eventName(.refund)) AND j.ts < j.assigned_at AS pre_assignment,
                  j.event = \(eventName(.refund)) AND NOT j.counted AS orphan_refund,
                  j.event = \(eventName(.cancel)) AND j.counted AND j.ts < \(chainStart) AS chainless_cancel,
                  j.counted AND (CASE
                    WHEN j.offering_id IS NULL THEN j.test_group_id IS NOT NULL AND j.test_group_id <> j.group_name AND NOT j.in_logged_group
                    WHEN j.offering_id = j.offering_id_of_group THEN j.test_group_id IS NOT NULL AND j.test_group_id <> j.group_name
                    ELSE NOT j.in_logged_offering END) AS mismatch,
                  j.money_micros, j.money_currency, x.rate\(keptColumns.map { ", j." + $0 }.joined()),
                  j.transaction_id, j.target_event, j.expires_at, own.stated_fees,
                  CASE WHEN NOT j.counted OR x.rate IS NULL THEN NULL
                    WHEN j.event IN \(chargeEvents) THEN own.proceeds
                    WHEN target.report_price <> 0 THEN -(target.proceeds * ((CAST(j.money_micros AS DOUBLE) / 1000000 * x.rate) / target.report_price)) END AS proceeds_amount
                FROM judged j
                LEFT JOIN rates x ON x.currency = upper(j.money_currency) AND j.event IN \(moneyEvents)
                LEFT JOIN charge_proceeds own ON j.event IN \(chargeEvents) AND own.event = j.event AND own.transaction_id = j.transaction_id
                LEFT JOIN charge_proceeds target ON j.event = \(eventName(.refund)) AND target.event = j.target_event AND target.transaction_id = j.transaction_id
                """))

        // docs/analysis.md §3: per member.
        memberSubscriptions()
        add(
            dialect.view(
                "member_money", memberMoney(of: "attributed", per: ["offering_key", "user_id"])))
        add(
            dialect.view(
                "trial_converters",
                """
                SELECT DISTINCT t.offering_key, t.user_id
                FROM attributed t JOIN attributed p ON p.offering_key = t.offering_key AND p.user_id = t.user_id
                WHERE t.counted AND t.event = \(eventName(.trialStart)) AND p.counted AND p.event = \(eventName(.purchase)) AND p.ts >= t.ts
                  AND CASE WHEN t.original_transaction_id IS NOT NULL THEN p.original_transaction_id = t.original_transaction_id ELSE p.product_id = t.product_id END
                """))
        add(
            dialect.materialize(
                "member_values",
                """
                SELECT m.offering_key, m.group_key, m.user_id, m.assigned_at,
                  coalesce(f.converted, 0) AS converted, coalesce(f.trial_started, 0) AS trial_started, coalesce(f.viewed, 0) AS viewed,
                  CASE WHEN c.user_id IS NULL THEN 0 ELSE 1 END AS trial_converted,
                  coalesce(f.purchases, 0) AS purchases, coalesce(f.renewals, 0) AS renewals, coalesce(f.refunds, 0) AS refunds,
                  coalesce(money.gross, 0) AS gross, coalesce(money.refunded, 0) AS refunded, coalesce(money.net, 0) AS net,
                  coalesce(s.net_proceeds, 0) AS net_proceeds, coalesce(s.charge_proceeds, 0) AS charge_proceeds,
                  coalesce(s.exact_proceeds, 0) AS exact_proceeds,
                  CASE WHEN c.user_id IS NOT NULL THEN 'converted' WHEN coalesce(s.has_trial, 0) = 0 THEN NULL
                    WHEN s.trial_expires_at IS NULL THEN 'unknown' WHEN s.trial_expires_at > \(asOf) THEN 'pending' ELSE 'lapsed' END AS trial_state,
                  coalesce(s.active, 0) AS active,
                  CASE WHEN coalesce(s.active, 0) = 0 AND coalesce(f.converted, 0) = 1 THEN 1 ELSE 0 END AS churned
                FROM memberships m
                JOIN analysed_offerings a ON a.offering_key = m.offering_key
                LEFT JOIN (
                  SELECT offering_key, user_id,
                    max(CASE WHEN event = \(eventName(.purchase)) THEN 1 ELSE 0 END) AS converted, max(CASE WHEN event = \(eventName(.trialStart)) THEN 1 ELSE 0 END) AS trial_started,
                    max(CASE WHEN event = \(eventName(.paywallView)) THEN 1 ELSE 0 END) AS viewed,
                    sum(CASE WHEN event = \(eventName(.purchase)) THEN 1 ELSE 0 END) AS purchases, sum(CASE WHEN event = \(eventName(.renewal)) THEN 1 ELSE 0 END) AS renewals,
                    sum(CASE WHEN event = \(eventName(.refund)) THEN 1 ELSE 0 END) AS refunds
                  FROM attributed WHERE counted GROUP BY offering_key, user_id) f ON f.offering_key = m.offering_key AND f.user_id = m.user_id
                LEFT JOIN trial_converters c ON c.offering_key = m.offering_key AND c.user_id = m.user_id
                LEFT JOIN member_money money ON money.offering_key = m.offering_key AND money.user_id = m.user_id
                LEFT JOIN member_subscriptions s ON s.offering_key = m.offering_key AND s.user_id = m.user_id
                WHERE m.group_count = 1
                """))

        if let rule = job.analysis.revenueCap { revenueCaps(rule) }
        if !job.analysis.maturityDays.isEmpty { maturedValues(job.analysis.maturityDays) }
        if !job.analysis.slices.isEmpty { sliceLevels() }

        // docs/reliability.md, Broken log lines: the run fails when too many lines are malformed.
        let ratio = "CAST(malformed AS DOUBLE) / CAST(lines AS DOUBLE)"
        let message = dialect.concat([
            "CAST(malformed AS STRING)", "' of '", "CAST(lines AS STRING)",
            t(" log lines are malformed, over max_bad_line_ratio \(job.inputs.maxBadLineRatio)"),
        ])
        let linesOver = "lines > 0 AND \(ratio) > \(double(job.inputs.maxBadLineRatio))"
        let lineFailure = dialect.failWhen(linesOver, message)
        // Then, as `run` checks after the analysis (so only when the lines pass): an offering whose
        // counted money events without a rate are over max_unconvertible_money_share of them fails
        // every part, naming the first such offering as `run` does. In `failure` itself, which every
        // part reads (a column no part reads is not computed).
        let moneyCheck = job.analysis.maxUnconvertibleMoneyShare.map { maxShare in
            let message = dialect.concat([
                t("offering "), "offering_id", t(": the money of "), "CAST(left_out AS STRING)", t(" of "), "CAST(money_events AS STRING)",
                t(
                    " money events is left out, for want of a rate to \(job.analysis.reportCurrency); over max_unconvertible_money_share \(CSVWriter.number(maxShare))"
                ),
            ])
            let failure = dialect.failWhen("NOT (\(linesOver)) AND offering_id = first_over", message)
            let over = "left_out > 0 AND CAST(left_out AS DOUBLE) / CAST(money_events AS DOUBLE) > \(double(maxShare))"
            return """
                ,
                money AS (
                  SELECT bool_or(coalesce(\(failure), FALSE)) AS failed
                  FROM (SELECT *, min(CASE WHEN \(over) THEN offering_id END) OVER () AS first_over
                    FROM (SELECT a.offering_id, count(*) - count(x.rate) AS left_out, count(*) AS money_events
                      FROM analysed_offerings a
                      JOIN attributed x ON x.offering_key = a.offering_key AND x.counted AND x.event IN \(moneyEvents)
                      GROUP BY a.offering_id) per_offering CROSS JOIN counted) judged)
                """
        }
        add(
            dialect.view(
                "line_check",
                """
                WITH counted AS (SELECT count(*) AS lines, count(reason) AS malformed FROM log_events)\(moneyCheck ?? "")
                SELECT lines, malformed, \(moneyCheck == nil ? lineFailure : "coalesce(\(lineFailure), CASE WHEN money.failed THEN 'failed' END)") AS failure
                FROM counted\(moneyCheck == nil ? "" : " CROSS JOIN money")
                """))
    }

    /// The last statement: the result `part` asks for.
    mutating func finish(_ part: SQLPart) {
        switch part {
        case .observations, .past, .assignments, .tenure, .dailyTotals, .events, .backtest:
            if let nightPart = part.nightPart { add(nightPartResult(nightPart)) }
        case .aggregates: add(aggregatesResult())
        case .slices: add(slicesResult())
        case .quality:
            let reasons = MalformedReason.allCases.map(\.counterName)
            var global: [(String, String)] = [
                ("files_read", "(SELECT count(*) FROM log_files)"), ("files_skipped_corrupt", "0"),
                ("lines_read", "(SELECT count(*) FROM log_events)"), ("malformed_lines", "(SELECT count(reason) FROM log_events)"),
            ]
            global += reasons.map { ($0, "(SELECT count(*) FROM log_events WHERE reason = '\($0)')") }
            global += [
                (
                    "duplicate_events",
                    "(SELECT count(*) FROM log_events WHERE reason IS NULL AND ts < \(job.run.night.microseconds)) - (SELECT count(*) FROM deduplicated)"
                )
            ]
            global += ["unknown_event_types", "sandbox_events", "unassigned_events"].map {
                ($0, "(SELECT count(*) FROM cleanup_steps WHERE dropped_as = '\($0)')")
            }
            global.append(("invalid_assignments", "(SELECT count(*) FROM assignments WHERE offering_key IS NULL)"))
            let rows = global.enumerated().map {
                "SELECT '' AS offering_id, \(t($0.element.0)) AS counter, \($0.element.1) AS count, \($0.offset) AS position"
            }
            let perOffering: [(String, String)] = [
                ("invalid_assignments", "(SELECT count(*) FROM assignments x WHERE x.offering_key = a.offering_key AND NOT x.valid)"),
                ("multi_group_users", "(SELECT count(*) FROM memberships x WHERE x.offering_key = a.offering_key AND x.group_count > 1)"),
                ("pre_assignment_events", "(SELECT count(*) FROM attributed x WHERE x.offering_key = a.offering_key AND x.pre_assignment)"),
                ("orphan_refunds", "(SELECT count(*) FROM attributed x WHERE x.offering_key = a.offering_key AND x.orphan_refund)"),
                ("chainless_cancels", "(SELECT count(*) FROM attributed x WHERE x.offering_key = a.offering_key AND x.chainless_cancel)"),
                ("attribution_mismatches", "(SELECT count(*) FROM attributed x WHERE x.offering_key = a.offering_key AND x.mismatch)"),
                (
                    "attribution_mismatch_users",
                    "(SELECT count(DISTINCT x.user_id) FROM attributed x WHERE x.offering_key = a.offering_key AND x.mismatch)"
                ),
                (
                    "unknown_currency_events",
                    "(SELECT count(*) FROM attributed x WHERE x.offering_key = a.offering_key AND x.counted AND x.event IN \(moneyEvents) AND x.rate IS NULL)"
                ),
            ]
            let offeringRows = perOffering.enumerated().map {
                "SELECT a.offering_id, \(t($0.element.0)) AS counter, \($0.element.1) AS count, \(100 + $0.offset) AS position FROM analysed_offerings a"
            }
            add(
                """
                SELECT q.offering_id, q.counter, q.count, \(night) AS night FROM (
                \((rows + offeringRows).joined(separator: "\nUNION ALL\n"))
                ) q CROSS JOIN line_check
                WHERE line_check.failure IS NULL
                ORDER BY CASE WHEN q.offering_id = '' THEN 0 ELSE 1 END, q.offering_id, q.position;
                """)
        case .products:
            // The currencies its counted charges with a rate were paid in, as logged, those whose
            // amounts add up to more than 0 (`ProductTotals.chargeCurrencies`), in byte order.
            let currencyList =
                switch dialect {
                case .duckdb: "string_agg(money_currency, ';' ORDER BY money_currency)"
                case .spark: "array_join(array_sort(collect_list(money_currency)), ';')"
                }
            add(
                """
                SELECT a.offering_id, g.group_name AS \(dialect.identifier("group")), x.product_id,
                  sum(CASE WHEN x.event = \(eventName(.purchase)) THEN 1 ELSE 0 END) AS purchases, sum(CASE WHEN x.event = \(eventName(.renewal)) THEN 1 ELSE 0 END) AS renewals,
                  sum(CASE WHEN x.event = \(eventName(.refund)) THEN 1 ELSE 0 END) AS refunds,
                  coalesce(sum(CASE WHEN x.rate IS NOT NULL AND x.money_micros IS NOT NULL THEN (CASE WHEN x.event = \(eventName(.refund)) THEN -1 ELSE 1 END) * CAST(x.money_micros AS DOUBLE) / 1000000 * x.rate END), 0) AS net_revenue,
                  coalesce(sum(x.proceeds_amount), 0) AS net_proceeds, coalesce(max(c.charge_currencies), '') AS charge_currencies, \(night) AS night
                FROM attributed x
                JOIN analysed_offerings a ON a.offering_key = x.offering_key
                JOIN catalog_groups g ON g.group_key = x.group_key
                LEFT JOIN (
                  SELECT group_key, product_id, \(currencyList) AS charge_currencies
                  FROM (SELECT group_key, product_id, money_currency FROM attributed
                    WHERE counted AND event IN \(chargeEvents) AND rate IS NOT NULL AND money_micros IS NOT NULL
                    GROUP BY group_key, product_id, money_currency HAVING sum(money_micros) > 0) paid
                  GROUP BY group_key, product_id) c ON c.group_key = x.group_key AND c.product_id = x.product_id
                CROSS JOIN line_check
                WHERE x.counted AND x.event IN \(moneyEvents) AND line_check.failure IS NULL
                GROUP BY a.offering_id, g.group_name, g.position, x.product_id
                ORDER BY a.offering_id, g.position, x.product_id;
                """)
        }
        script += "\n"
    }
}

extension ScriptBuilder {
    /// `charge_proceeds(event, transaction_id, report_price, proceeds, stated_fees)` (docs/analysis.md §8):
    /// each clean purchase and renewal, its price in the report currency, what the app keeps of it
    /// (NULL without a rate), computed as `AttributionContext.proceeds` computes it, and whether
    /// its record states both fee shares (those proceeds are exact).
    mutating func chargeProceeds() {
        let settings = job.analysis.proceeds
        let taxRows = settings.taxRates.sorted { $0.key < $1.key }.map { "(\(t($0.key)), \(double($0.value)))" }
        add(
            dialect.view(
                "vat_rates",
                taxRows.isEmpty
                    ? "SELECT CAST(NULL AS STRING) AS vat_area, CAST(NULL AS DOUBLE) AS rate WHERE FALSE"
                    : "SELECT * FROM (VALUES \(taxRows.joined(separator: ", "))) AS r(vat_area, rate)"))
        let commissionRows = settings.commissions.sorted { $0.key < $1.key }.map { "(\(t($0.key)), \(double($0.value)))" }
        add(
            dialect.view(
                "store_commissions",
                commissionRows.isEmpty
                    ? "SELECT CAST(NULL AS STRING) AS store, CAST(NULL AS DOUBLE) AS commission WHERE FALSE"
                    : "SELECT * FROM (VALUES \(commissionRows.joined(separator: ", "))) AS c(store, commission)"))
        // The chain's first paid charge: every clean purchase and renewal, counted for a test or not.
        add(
            dialect.view(
                "chain_starts",
                """
                SELECT original_transaction_id, min(ts) AS first_charge FROM clean_events
                WHERE event IN \(chargeEvents) AND original_transaction_id IS NOT NULL GROUP BY original_transaction_id
                """))
        let year = 365 * Microseconds.perDay
        // Stores are matched in any case (docs/analysis.md §8); the job's names are lower-case.
        let store = "coalesce(lower(e.store), \(t(settings.defaultStore)))"
        let reduced =
            settings.appStoreSmallBusiness
            ? "TRUE" : "(e.event = \(eventName(.renewal)) AND s.first_charge IS NOT NULL AND e.ts - s.first_charge >= \(year))"
        let commission = """
            CASE \(store) WHEN \(t(ProceedsSettings.appStore)) THEN CASE WHEN \(reduced) THEN \(double(ProceedsSettings.reducedCommission)) ELSE \(double(ProceedsSettings.appStoreCommission)) END
              WHEN \(t(ProceedsSettings.playStore)) THEN \(double(ProceedsSettings.playStoreCommission)) ELSE coalesce(c.commission, \(double(0))) END
            """
        let area = keptColumns.contains("country") ? "e.country" : "CAST(NULL AS STRING)"
        add(
            dialect.materialize(
                "charge_proceeds",
                """
                SELECT event, transaction_id, report_price,
                  tax_billionths IS NOT NULL AND commission_billionths IS NOT NULL AS stated_fees,
                  CASE WHEN report_price IS NULL THEN NULL
                    WHEN tax_billionths IS NOT NULL AND commission_billionths IS NOT NULL THEN report_price * (1 - CAST(tax_billionths + commission_billionths AS DOUBLE) / 1000000000)
                    ELSE report_price * (1 - tax_share) * (1 - commission) END AS proceeds
                FROM (SELECT e.event, e.transaction_id, e.tax_billionths, e.commission_billionths,
                    CAST(e.price_micros AS DOUBLE) / 1000000 * x.rate AS report_price,
                    coalesce(t.rate / (1 + t.rate), \(double(0))) AS tax_share, \(commission) AS commission
                  FROM clean_events e
                  LEFT JOIN rates x ON x.currency = upper(e.currency)
                  LEFT JOIN chain_starts s ON s.original_transaction_id = e.original_transaction_id
                  LEFT JOIN vat_rates t ON t.vat_area = \(area)
                  LEFT JOIN store_commissions c ON c.store = \(store)
                  WHERE e.event IN \(chargeEvents)) priced
                """))
    }

    /// `member_subscriptions` (docs/analysis.md §8–§9), per member of an analysed offering with counted
    /// events: net proceeds, the charges' proceeds before refunds and their exact part, whether they have a counted trial and its earliest one's `expires_at`,
    /// and whether a counted charge no counted refund names runs past `as_of` (active).
    mutating func memberSubscriptions() {
        add(
            dialect.view(
                "member_subscriptions",
                """
                SELECT a.offering_key, a.user_id, sum(a.proceeds_amount) AS net_proceeds,
                  sum(CASE WHEN a.event IN \(chargeEvents) THEN a.proceeds_amount END) AS charge_proceeds,
                  sum(CASE WHEN a.event IN \(chargeEvents) AND a.stated_fees THEN a.proceeds_amount END) AS exact_proceeds,
                  max(CASE WHEN a.event = \(eventName(.trialStart)) THEN 1 ELSE 0 END) AS has_trial,
                  max(CASE WHEN a.trial_order = 1 THEN a.expires_at END) AS trial_expires_at,
                  max(CASE WHEN a.event IN \(chargeEvents) AND a.expires_at > \(job.run.night.microseconds) AND f.transaction_id IS NULL THEN 1 ELSE 0 END) AS active
                FROM (SELECT *, CASE WHEN event = \(eventName(.trialStart)) THEN row_number() OVER (PARTITION BY offering_key, user_id, event ORDER BY ts, file_index, line_number) END AS trial_order
                  FROM attributed WHERE counted) a
                LEFT JOIN (SELECT DISTINCT offering_key, user_id, target_event, transaction_id FROM attributed WHERE counted AND event = \(eventName(.refund))) f
                  ON f.offering_key = a.offering_key AND f.user_id = a.user_id AND f.target_event = a.event AND f.transaction_id = a.transaction_id
                GROUP BY a.offering_key, a.user_id
                """))
    }
}
