/// The SQL engines `offerlab sql` writes for, and the few places where their SQL differs.
package enum SQLDialect: String, Sendable, CaseIterable {
    case duckdb
    case spark

    /// A text literal (single quotes doubled; backslashes are literal in both engines' settings).
    func text(_ value: String) -> String {
        switch self {
        case .duckdb: "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        // Spark reads `\` in a literal as an escape unless it is doubled.
        case .spark: "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        }
    }

    /// A column name that is also a keyword.
    func identifier(_ name: String) -> String {
        switch self {
        case .duckdb: "\"\(name)\""
        case .spark: "`\(name)`"
        }
    }

    /// Integer division of two non-negative integers.
    func divide(_ a: String, _ b: String) -> String {
        switch self {
        case .duckdb: "(\(a)) // (\(b))"
        case .spark: "(\(a)) DIV (\(b))"
        }
    }

    /// Whether `value` matches the regular expression `pattern` as a whole.
    func fullMatch(_ value: String, _ pattern: String) -> String {
        switch self {
        case .duckdb: "regexp_full_match(\(value), \(text(pattern)))"
        case .spark: "(\(value) RLIKE \(text("^(?:" + pattern + ")$")))"
        }
    }

    /// The 1-based element of a list, NULL when the position is 0 or past the end.
    func element(_ list: String, _ position: String) -> String {
        switch self {
        case .duckdb: "list_extract(\(list), \(position))"
        case .spark: "CASE WHEN \(position) > 0 THEN try_element_at(\(list), \(position)) END"
        }
    }

    /// The 1-based position of `value` in a list, 0 when absent.
    func position(_ list: String, _ value: String) -> String {
        switch self {
        case .duckdb: "coalesce(list_position(\(list), \(value)), 0)"
        case .spark: "CAST(array_position(\(list), \(value)) AS INT)"
        }
    }

    func length(_ list: String) -> String {
        switch self {
        case .duckdb: "len(\(list))"
        case .spark: "size(\(list))"
        }
    }

    /// The number of UTF-8 bytes of a text.
    func byteLength(_ value: String) -> String {
        switch self {
        case .duckdb: "strlen(\(value))"
        case .spark: "octet_length(\(value))"
        }
    }

    /// A failed query with `message` when `condition` holds, else NULL.
    func failWhen(_ condition: String, _ message: String) -> String {
        switch self {
        case .duckdb: "CASE WHEN \(condition) THEN error(\(message)) END"
        case .spark: "CASE WHEN \(condition) THEN raise_error(\(message)) END"
        }
    }

    /// A DOUBLE truncated toward zero to a BIGINT, as Swift's `Int(_:)` does (DuckDB's cast rounds).
    func truncate(_ value: String) -> String {
        switch self {
        case .duckdb: "CAST(trunc(\(value)) AS BIGINT)"
        case .spark: "CAST(\(value) AS BIGINT)"
        }
    }

    /// A table of the integers 0 ..< `count`, in a column `n`.
    func integers(_ count: Int) -> String {
        switch self {
        case .duckdb: "SELECT range AS n FROM range(0, \(count))"
        case .spark: "SELECT id AS n FROM range(0, \(count))"
        }
    }

    /// Text concatenation.
    func concat(_ parts: [String]) -> String { "concat(" + parts.joined(separator: ", ") + ")" }

    /// Rounds a decimal half to even, to a whole number.
    func roundHalfEven(_ value: String) -> String {
        switch self {
        case .duckdb: "round_even(\(value), 0)"
        case .spark: "bround(\(value), 0)"
        }
    }

    /// A result reused by later statements: a temporary table in DuckDB; in Spark a working
    /// table (Parquet, in the current database), which also keeps later plans small: a view is
    /// planned again, with everything under it, wherever it is used.
    func materialize(_ name: String, _ query: String) -> String {
        switch self {
        case .duckdb: "CREATE OR REPLACE TEMP TABLE \(name) AS\n\(query);\n"
        case .spark: "DROP TABLE IF EXISTS \(name);\nCREATE TABLE \(name) USING parquet AS\n\(query);\n"
        }
    }

    func view(_ name: String, _ query: String) -> String {
        "CREATE OR REPLACE TEMP VIEW \(name) AS\n\(query);\n"
    }
}

/// Which result (docs/warehouse.md, What each part returns) the script ends with.
package enum SQLPart: String, Sendable, CaseIterable {
    /// One row per (offering, group, metric): the `stats` input columns and every count and
    /// money column of `summary.csv` (on the group's own row), with the capped and matured rows
    /// the job asks for.
    case aggregates
    /// `quality.csv`'s counters.
    case quality
    /// `products.csv`'s rows.
    case products
    /// One row per (offering, slice field, level, group): what `stats` turns into the slice files.
    case slices
    /// The night's own parts (contract §3.3, `NightPart`): in the long form of `NightPart.columns`.
    case observations, past, assignments, tenure
    case dailyTotals = "daily_totals"
    case events, backtest

    /// The night part it is; nil for §3.2's.
    var nightPart: NightPart? { NightPart(rawValue: rawValue) }
}
