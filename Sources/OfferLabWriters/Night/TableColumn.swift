/// A field of a typed row that a column holds: how it is written (`resultValue`) and how it is
/// read back from a value the database returns (0/1 for a bool, NULL as `.real(nil)`, a whole
/// `REAL` as an integer).
protocol ColumnValue: Sendable {
    var resultValue: ResultValue { get }
    /// The field of `value`; a value of another kind (or none) reads as the field's zero.
    init(resultValue value: ResultValue)
}

/// A field that is never empty; as `Optional` it is the field of a column that may be.
protocol ColumnScalar: ColumnValue {
    /// The field's value when the column is absent or empty: "", 0, false.
    static var zero: Self { get }
    /// What an empty column of this kind is written as.
    static var noValue: ResultValue { get }
    static func read(_ value: ResultValue) -> Self?
}

extension ColumnScalar {
    init(resultValue value: ResultValue) { self = Self.read(value) ?? .zero }
    static var noValue: ResultValue { .real(nil) }
}

extension String: ColumnScalar {
    var resultValue: ResultValue { .text(self) }
    static var zero: String { "" }
    static func read(_ value: ResultValue) -> String? { if case .text(let text) = value { text } else { nil } }
}

extension Int: ColumnScalar {
    var resultValue: ResultValue { .integer(self) }
    static var zero: Int { 0 }
    static func read(_ value: ResultValue) -> Int? { if case .integer(let integer) = value { integer } else { nil } }
}

extension Double: ColumnScalar {
    var resultValue: ResultValue { .real(self) }
    static var zero: Double { 0 }
    static func read(_ value: ResultValue) -> Double? {
        switch value {
        case .real(let real): real
        case .integer(let integer): Double(integer)
        default: nil
        }
    }
}

extension Bool: ColumnScalar {
    var resultValue: ResultValue { .bool(self) }
    static var zero: Bool { false }
    static var noValue: ResultValue { .bool(nil) }
    static func read(_ value: ResultValue) -> Bool? {
        switch value {
        case .bool(let bool): bool
        case .integer(let integer): integer != 0
        default: nil
        }
    }
}

extension Optional: ColumnValue where Wrapped: ColumnScalar {
    var resultValue: ResultValue { self?.resultValue ?? Wrapped.noValue }
    init(resultValue value: ResultValue) { self = Wrapped.read(value) }
}

/// A column of a typed table: its name and type (`ResultColumn`), and both directions between
/// a field of the row and the column's value, so that writing a row and reading it back from
/// the database go through the one declaration.
package struct TableColumn<Row>: Sendable {
    package var column: ResultColumn
    /// The row's value in this column.
    package let value: @Sendable (Row) -> ResultValue
    /// Sets the row's field from a value read back.
    let read: @Sendable (inout Row, ResultValue) -> Void

    init<Field: ColumnValue>(_ column: ResultColumn, _ field: WritableKeyPath<Row, Field> & Sendable) {
        self.column = column
        value = { $0[keyPath: field].resultValue }
        read = { $0[keyPath: field] = Field(resultValue: $1) }
    }

    private init(
        column: ResultColumn, value: @escaping @Sendable (Row) -> ResultValue, read: @escaping @Sendable (inout Row, ResultValue) -> Void
    ) {
        self.column = column
        self.value = value
        self.read = read
    }

    /// This column of the part `part` of a bigger row (a group's metrics in `summary`).
    func of<Outer>(_ part: WritableKeyPath<Outer, Row> & Sendable) -> TableColumn<Outer> {
        let value = self.value
        let read = self.read
        return TableColumn<Outer>(
            column: column, value: { value($0[keyPath: part]) }, read: { row, written in read(&row[keyPath: part], written) })
    }

    /// This field in another column (`daily`'s `conversion_rel_lift` for `rel_lift`).
    func named(_ column: ResultColumn) -> TableColumn<Row> {
        var renamed = self
        renamed.column = column
        return renamed
    }
}

/// A row of a typed table: every field has a value before it is read (its zero, or what the
/// report assumes of a night stored without the column).
protocol TypedRow: Sendable {
    init()
}

/// One output table of the night as typed rows: its name, key and columns, each column
/// declared once with both directions.
struct TypedTable<Row: TypedRow>: Sendable {
    var schema: ResultSchema
    var columns: [TableColumn<Row>]

    init(name: String, keys: [ResultColumn], columns: [TableColumn<Row>]) {
        self.columns = columns
        schema = ResultSchema(name: name, columns: columns.map(\.column), keys: keys)
    }

    /// `rows` as the CSV file and the SQLite table hold them.
    func table(_ rows: [Row]) -> ResultTable {
        var table = ResultTable(schema)
        table.rows = rows.map { row in columns.map { $0.value(row) } }
        return table
    }

    /// The rows of `table` (the database's), read by column name: the one place rows are read
    /// back. A column it lacks (a night stored by an earlier offerlab) leaves the fields at
    /// their zero and is told to `missing` as `"summary.arpu"`.
    func rows(_ table: ResultTable, missing: (String) -> Void) -> [Row] {
        let index = Dictionary(table.columnNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let present = columns.compactMap { column -> (TableColumn<Row>, Int)? in
            guard let position = index[column.column.name] else {
                missing("\(schema.name).\(column.column.name)")
                return nil
            }
            return (column, position)
        }
        return table.rows.map { values in
            var row = Row()
            for (column, position) in present where values.indices.contains(position) { column.read(&row, values[position]) }
            return row
        }
    }

    /// `rows` with each money amount as it is written (rounded to the micro-unit), so that the
    /// night's report reads the amounts the database gives back.
    func asWritten(_ rows: [Row]) -> [Row] {
        let money = columns.filter { $0.column.type == .money }
        guard !money.isEmpty else { return rows }
        return rows.map { row in
            var written = row
            for column in money { column.read(&written, column.column.type.written(column.value(row))) }
            return written
        }
    }
}
