/// A value of an output table.
package enum ResultValue: Sendable, Equatable {
    case text(String)
    case integer(Int)
    /// nil: no value (undefined), written as an empty field / SQL NULL.
    case real(Double?)
    case bool(Bool?)
}

/// The SQL type of an output column.
package enum ResultColumnType: Sendable {
    case text
    case integer
    case real
    /// A money amount (revenue, refunds, a cap): a `real` written, to the CSV files and the
    /// database alike, rounded to the micro-unit (`microUnits`), so that no float noise of its
    /// sum shows (`22.98`, not `22.979999999999997`). Per-user means (`arpu`) and every statistic
    /// keep full precision.
    case money
    /// Stored as 0/1 in SQLite, `true`/`false` in CSV.
    case bool

    var sqlType: String {
        switch self {
        case .text: "TEXT"
        case .integer, .bool: "INTEGER"
        case .real, .money: "REAL"
        }
    }

    /// `value` as written to a column of this type: a money amount rounded to the micro-unit.
    func written(_ value: ResultValue) -> ResultValue {
        guard self == .money, case .real(let amount?) = value else { return value }
        return .real(Self.microUnits(amount))
    }

    /// `amount` rounded to 6 decimals: the double nearest to a decimal of at most 6 decimals,
    /// whose shortest text is that decimal (for amounts below 10⁹).
    static func microUnits(_ amount: Double) -> Double {
        guard amount.isFinite else { return amount }
        return (amount * 1_000_000).rounded() / 1_000_000
    }
}

/// A column of an output table: its name (the CSV header, the SQLite column) and its type. The
/// columns of the night's tables are named once (`ResultSchema+Night.swift`) and bound to the
/// typed rows' fields in their tables' declarations (`TypedTable`, `NightTables`).
package struct ResultColumn: Sendable, Hashable {
    package var name: String
    package var type: ResultColumnType
    /// How the report's "All numbers by group" shows a group's value (nil: it does not).
    package var shown: ShownColumn?

    package init(_ name: String, _ type: ResultColumnType) {
        self.name = name
        self.type = type
    }

    init(_ name: String, _ type: ResultColumnType, shown label: String, as unit: ShownColumn.Unit) {
        self.init(name, type)
        shown = ShownColumn(label: label, unit: unit)
    }

    /// A column is its name and type; how the report shows it is not part of what is stored.
    package static func == (lhs: ResultColumn, rhs: ResultColumn) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(type)
    }
}

/// A column as the report shows it: its label, and its value as a count, a share or money.
package struct ShownColumn: Sendable, Hashable {
    package enum Unit: Sendable, Hashable {
        case count
        /// A ratio, shown as a percent.
        case share
        /// In the report currency.
        case money
    }

    package var label: String
    package var unit: Unit
}

/// The name, columns and key of an output table.
package struct ResultSchema: Sendable {
    /// The table name; the CSV file is `<name>.csv`.
    package var name: String
    package var columns: [ResultColumn]
    /// The columns that, with the night, identify a row.
    package var keys: [ResultColumn]

    package init(name: String, columns: [ResultColumn], keys: [ResultColumn]) {
        self.name = name
        self.columns = columns
        self.keys = keys
    }
}

/// One output table as the CSV file and the SQLite table hold it: its schema and its rows, each
/// a value per column in the schema's order (encoded from the typed night, or read from the
/// database).
package struct ResultTable: Sendable {
    package var schema: ResultSchema
    package var rows: [[ResultValue]] = []

    package init(_ schema: ResultSchema) {
        self.schema = schema
    }

    package var name: String { schema.name }
    package var columns: [ResultColumn] { schema.columns }
    package var columnNames: [String] { schema.columns.map(\.name) }
}
