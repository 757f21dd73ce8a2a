/// The encoding of a table file or CSV log, chosen by the caller from the file name.
public enum TableFormat: Sendable, Equatable {
    /// RFC 4180: `,` separated, `"` quoting; NULL is an unquoted empty field or unquoted `\N`.
    case csv
    /// `mysql --batch`: tab separated, backslash escapes; NULL is the bare word `NULL`.
    case tsv

    /// `.csv` / `.csv.gz` → CSV, `.tsv` / `.tsv.gz` → TSV (any case); nil otherwise.
    public init?(fileName: String) {
        var name = fileName.lowercased()[...]
        if name.hasSuffix(".gz") { name = name.dropLast(3) }
        if name.hasSuffix(".csv") {
            self = .csv
        } else if name.hasSuffix(".tsv") {
            self = .tsv
        } else {
            return nil
        }
    }
}

/// Why a record cannot be used as it is.
public enum TableRowProblem: Sendable, Equatable, BitwiseCopyable {
    /// The record has a different number of fields from the header (see `TableRow.count`).
    case fieldCount
    /// The record is longer than the record length limit: its fields were not kept (it reads
    /// as having no field).
    case tooLong
    /// The file ends inside a quoted field (CSV).
    case unterminatedQuote
}

/// What a `TableRow` says about its record besides its fields (see `TableRow`).
struct TableRowHeader {
    var lineNumber: Int
    var count: Int
    var spanCount: Int
    var raw: UnsafeRawBufferPointer
    var problem: TableRowProblem?
}

/// One record of a table file, borrowed: only valid during the callback that receives it.
///
/// Fields are decoded bytes (quotes and escapes resolved) addressed by column index; NULL is
/// distinguishable from the empty string. An index at or beyond `count` reads as NULL.
///
/// Three pointers, so that it is returned in registers: what describes the record besides its
/// fields (`TableRowHeader`) is kept by the parser. (A row holding it all was returned through
/// memory and copied there with wider loads than the stores that had just written it, which
/// then waited for the stores to reach the cache: a fifth of the time spent parsing a table.)
public struct TableRow {
    let header: UnsafePointer<TableRowHeader>
    let bytes: UnsafePointer<UInt8>
    let spans: UnsafePointer<FieldSpan>

    /// 1-based physical line on which the record starts (a quoted field may span lines).
    @inline(__always) public var lineNumber: Int { header.pointee.lineNumber }
    /// Fields in this record (may differ from the header's count, see `problem`).
    @inline(__always) public var count: Int { header.pointee.count }
    /// Nil for a record that can be used; otherwise the first problem that applies
    /// (`unterminatedQuote`, then `tooLong`, then `fieldCount`).
    @inline(__always) public var problem: TableRowProblem? { header.pointee.problem }
    /// Fields whose bytes were kept (0 for a record that is too long).
    @inline(__always) var spanCount: Int { header.pointee.spanCount }
    @inline(__always) var raw: UnsafeRawBufferPointer { header.pointee.raw }

    /// The decoded bytes of a field that was kept, NULL or not (a NULL field's text: `\N`,
    /// `NULL`, or nothing).
    @inline(__always)
    func decodedBytes(at index: Int) -> UnsafeRawBufferPointer {
        let span = spans[index]
        return UnsafeRawBufferPointer(start: bytes + span.start, count: span.end - span.start)
    }

    /// Whether field `index` is NULL (or beyond the record's fields).
    @inline(__always)
    public func isNull(_ index: Int) -> Bool {
        index < 0 || index >= spanCount || spans[index].isNull
    }

    /// The field as a `String` (invalid UTF-8 repaired), nil when NULL. For the edges: the hot
    /// path uses `withBytes`.
    public func string(at index: Int) -> String? {
        guard !isNull(index) else { return nil }
        return withBytes(at: index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the field's decoded bytes (empty for NULL: check `isNull`).
    @inline(__always)
    public func withBytes<R>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(bytes(at: index))
    }

    /// The field's decoded bytes (empty for NULL), valid only during the callback.
    @inline(__always)
    public func bytes(at index: Int) -> UnsafeRawBufferPointer {
        guard index >= 0, index < spanCount, !spans[index].isNull else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return decodedBytes(at: index)
    }

    /// A decimal integer (`-?digits`), nil when NULL or not that (see `TableValue.int64`).
    public func int64(at index: Int) -> Int64? {
        isNull(index) ? nil : TableValue.int64(bytes(at: index))
    }

    /// `1`/`0` or `true`/`false` in any case, nil when NULL or anything else.
    public func bool(at index: Int) -> Bool? {
        isNull(index) ? nil : TableValue.bool(bytes(at: index))
    }

    /// A finite decimal number, nil when NULL or anything else (see `TableValue.double`).
    public func double(at index: Int) -> Double? {
        isNull(index) ? nil : TableValue.double(bytes(at: index))
    }

    /// A timestamp in the grammar of `Timestamp.parse` (microseconds since the epoch), nil when
    /// NULL or not that grammar.
    public func timestamp(at index: Int) -> Int64? {
        guard !isNull(index) else { return nil }
        return Timestamp.parse(bytes(at: index))
    }

    /// The record as it is in the file, without its final line ending. For a record that is
    /// too long: its first bytes, up to the limit.
    public var rawBytes: UnsafeRawBufferPointer { raw }
}

/// Internal machinery: where a decoded field is in a record's byte buffer.
struct FieldSpan {
    var start: Int
    var end: Int
    var isNull: Bool
}

/// How table cells are read as typed values, whatever the table's source (file or SQLite).
public enum TableValue {
    /// A decimal integer (`-?digits`, nothing else), nil when empty, not that, or out of range.
    public static func int64(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        var position = 0
        let negative = bytes[0] == 0x2D
        if negative { position = 1 }
        guard position < bytes.count else { return nil }
        var value: Int64 = 0
        while position < bytes.count {
            let digit = bytes[position] &- 0x30
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) =
                negative ? times10.subtractingReportingOverflow(Int64(digit)) : times10.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            position += 1
        }
        return value
    }

    /// `1`/`0` or `true`/`false` in any case; nil for anything else.
    public static func bool(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        func matches(_ word: StaticString) -> Bool {
            guard bytes.count == word.utf8CodeUnitCount else { return false }
            for position in 0..<bytes.count where bytes[position] | 0x20 != word.utf8Start[position] { return false }
            return true
        }
        if bytes.count == 1 {
            if bytes[0] == 0x31 { return true }
            if bytes[0] == 0x30 { return false }
            return nil
        }
        if matches("true") { return true }
        if matches("false") { return false }
        return nil
    }

    /// A finite decimal number (the JSON number grammar, leading zeros allowed); nil for
    /// anything else (no `inf`, `nan`, hex or spaces).
    public static func double(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard Price.isNumber(bytes) else { return nil }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }
}
