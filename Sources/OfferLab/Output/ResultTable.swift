/// A value of an output table.
public enum ResultValue: Sendable, Equatable {
    case text(String)
    case integer(Int)
    /// nil: no value (undefined), written as an empty field / SQL NULL.
    case real(Double?)
    case bool(Bool?)

    static func optionalInteger(_ value: Int?) -> ResultValue { value.map { .integer($0) } ?? .real(nil) }
    static func optionalText(_ value: String?) -> ResultValue { value.map { .text($0) } ?? .real(nil) }
}

/// The SQL type of an output column.
public enum ResultColumnType: Sendable {
    case text
    case integer
    case real
    /// Stored as 0/1 in SQLite, `true`/`false` in CSV.
    case bool

    var sqlType: String {
        switch self {
        case .text: "TEXT"
        case .integer, .bool: "INTEGER"
        case .real: "REAL"
        }
    }
}

/// One output table, described once for both the CSV file and the SQLite table.
public struct ResultTable: Sendable {
    /// The table name; the CSV file is `<name>.csv`.
    public var name: String
    public var columns: [(name: String, type: ResultColumnType)]
    /// The columns that, with the night, identify a row.
    public var keys: [String]
    public var rows: [[ResultValue]] = []

    public init(name: String, columns: [(String, ResultColumnType)], keys: [String]) {
        self.name = name
        self.columns = columns.map { (name: $0.0, type: $0.1) }
        self.keys = keys
    }

    public var columnNames: [String] { columns.map(\.name) }
}
