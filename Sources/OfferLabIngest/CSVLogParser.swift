#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parses the records of a CSV log into a reused `LogRecord`.
///
/// The header names the fields with the JSON keys (snake_case or camelCase; the snake_case
/// column wins when both have a value; a repeated column: its last non-empty cell counts). Every value is
/// text: an empty or NULL cell is absent; `ts` is epoch milliseconds when it is all digits, else
/// the timestamp grammar; `price` is a numeric string. The checks are those of
/// `JSONLineParser` (without `invalidJSON`), after two of their own: a record that is too long
/// is `lineTooLong`, one whose field count differs from the header's (or cut inside quotes)
/// is `invalidCSV`.
public struct CSVLogParser: Sendable {
    /// (column index, field slot) for every column that names a known field.
    private let columns: [(column: Int, slot: Int)]
    private let keepsSliceFields: Bool
    private var dayCaches = LogDayCaches()

    /// Maps the header's column names to the known fields; unknown columns are ignored, and so
    /// are `country` and `platform` unless `keepsSliceFields`.
    public init(header: [String], keepsSliceFields: Bool = false) {
        var columns: [(column: Int, slot: Int)] = []
        for (index, name) in header.enumerated() {
            let slot = LogFieldSlot.match(name, slicing: keepsSliceFields)
            if slot >= 0 { columns.append((index, slot)) }
        }
        self.columns = columns
        self.keepsSliceFields = keepsSliceFields
    }

    /// Parses `row` into `record`.
    ///
    /// - Returns: nil when the row is a valid event (the record is filled), otherwise the first
    ///   malformed reason (the record is then empty).
    /// Whether no column of the header is a log field (`ts`, `user_id`, `event`, …).
    public var readsNoField: Bool { columns.isEmpty }

    public mutating func parse(_ row: TableRow, into record: inout LogRecord) -> MalformedReason? {
        switch row.problem {
        case .tooLong: return .lineTooLong
        case .fieldCount, .unterminatedQuote: return .invalidCSV
        case nil: break
        }
        // The columns through a pointer: iterating the array itself retains and releases it,
        // twice per record.
        return columns.withUnsafeBufferPointer { columns in
            Self.parse(row, columns: columns, slicing: keepsSliceFields, dayCaches: &dayCaches, into: &record)
        }
    }

    private static func parse(
        _ row: TableRow, columns: UnsafeBufferPointer<(column: Int, slot: Int)>, slicing: Bool, dayCaches: inout LogDayCaches,
        into record: inout LogRecord
    ) -> MalformedReason? {
        var total = 0
        for (column, _) in columns where !row.isNull(column) { total += row.bytes(at: column).count }
        var text = record.takeTextBuffer()
        // One byte more than needed, so that the buffer always has an address.
        text.growWithZeros(to: total + 1)
        let reason: MalformedReason? = withUnsafeTemporaryAllocation(of: FieldValue.self, capacity: LogFieldSlot.count) {
            slots in
            guard let slotBase = slots.baseAddress else { return .invalidCSV }
            var values = LogFieldValues(slots: slotBase)
            return text.withUnsafeMutableBufferPointer { buffer -> MalformedReason? in
                guard let out = buffer.baseAddress else { return .invalidCSV }
                var written = 0
                for (column, slot) in columns where !row.isNull(column) {
                    let cell = row.bytes(at: column)
                    // An empty or NULL cell is absent: it does not hide an earlier column.
                    guard let source = cell.baseAddress, cell.count > 0 else { continue }
                    ShortBytes.copy(out + written, source, cell.count)
                    values.set(slot, FieldValue(kind: .string, start: written, end: written + cell.count))
                    written += cell.count
                }
                return values.resolve(text: UnsafePointer(out), csv: true, slicing: slicing, dayCaches: &dayCaches, into: &record)
            }
        }
        record.returnTextBuffer(&text, textCount: total)
        // A rejected line leaves an empty record, never ranges past its text.
        if reason != nil { record.reset() }
        return reason
    }
}
