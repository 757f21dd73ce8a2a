/// Streams the records of a CSV or TSV file (gzip detected by magic bytes), header first.
///
/// CSV (RFC 4180): `,` separated; a field may be quoted with `"`, and a quoted field may hold
/// `,`, `""` (one quote) and line breaks; records end with `\n` or `\r\n`. NULL is an unquoted
/// empty field or an unquoted `\N`; a quoted `""` is the empty string. Leniencies: a `"` inside
/// an unquoted field is kept as it is, and so are characters after a closing quote.
///
/// TSV (`mysql --batch`): tab separated, records end with `\n` (or `\r\n`); `\t` `\n` `\r` `\\`
/// `\0` are escapes and any other `\x` is `x`. NULL is the bare word `NULL` (unescaped).
///
/// Both: the first non-blank record is the header; a UTF-8 byte order mark at the start of the
/// file is dropped; blank lines (only spaces, tabs and `\r`) are skipped. A record whose field
/// count differs from the header's, that is longer than `maxRecordLength`, or that is cut by the
/// end of the file inside quotes is still handed out, with its `problem`: the caller decides.
///
/// Memory: the read buffers plus the longest record (bounded by `maxRecordLength`).
/// Not thread-safe: one reader per task.
public final class TableFileReader {
    public let path: String
    public let format: TableFormat
    /// Column names, decoded, in file order (empty when the file has no header).
    public let header: [String]
    /// 1-based line of the header row (0 when the file has none).
    public let headerLineNumber: Int
    public let maxRecordLength: Int

    /// Whether the file is gzip (by its magic bytes).
    public var isGzip: Bool { input.isGzip }
    /// Bytes read from the file so far.
    public var compressedBytesRead: Int64 { input.compressedBytesRead }
    /// Decompressed bytes so far.
    public var uncompressedBytes: Int64 { input.uncompressedBytes }

    private let input: InputFileReader
    /// Unchecked: only `nextRow` modifies it, and a reader is used by one task; a checked
    /// access would cost a call into the runtime per row.
    @exclusivity(unchecked) private var parser: DelimitedParser
    private var endOfInput = false
    private var done = false

    /// Opens `path` and reads its header row.
    ///
    /// - Parameters:
    ///   - maxRecordLength: the longest record, in bytes without its line ending, whose fields
    ///     are kept (1 MiB by default).
    ///   - keepRawBytes: keep each record's bytes as in the file (`TableRow.rawBytes`), for
    ///     rejects files.
    ///   - inflater: the library for gzip members (see `InputFileReader`).
    ///   - readAhead: decompress on a thread of its own (see `InputFileReader`).
    /// - Throws: `IngestError`: the file cannot be read or decompressed, or its header row is
    ///   too long or cut inside quotes (`invalidHeader`).
    public init(
        path: String, format: TableFormat, maxRecordLength: Int = LineSplitter.defaultMaxLineLength,
        keepRawBytes: Bool = false, bufferSize: Int = 1 << 20, inflater: Inflater = .fastestAvailable, readAhead: Bool = false
    ) throws {
        self.path = path
        self.format = format
        self.maxRecordLength = min(max(maxRecordLength, 1), Int.max / 4)
        input = try InputFileReader(path: path, bufferSize: bufferSize, inflater: inflater, readAhead: readAhead)
        var parser = DelimitedParser(format: format, maxRecordLength: maxRecordLength, keepRawBytes: keepRawBytes)
        var header: [String]?
        var headerLine = 0
        var headerProblem: TableRowProblem?
        while header == nil {
            let row: TableRow
            if let next = parser.nextRecord() {
                row = next
            } else if let chunk = try input.nextChunk() {
                parser.start(chunk)
                continue
            } else {
                // The file ends: its last record, if any, is the header.
                endOfInput = true
                done = true
                guard let last = parser.finish() else { break }
                row = last
            }
            headerLine = row.lineNumber
            headerProblem = row.problem
            header = (0..<row.spanCount).map { String(decoding: row.decodedBytes(at: $0), as: UTF8.self) }
        }
        switch headerProblem {
        case .tooLong:
            throw IngestError(
                code: .invalidHeader, path: path, message: "the header row is longer than \(maxRecordLength) bytes",
                line: headerLine)
        case .unterminatedQuote:
            throw IngestError(
                code: .invalidHeader, path: path, message: "the header row has a quote that is never closed",
                line: headerLine)
        default:
            break
        }
        // A column named twice would be read from its first copy without a word.
        if let header {
            var seen: [String: Int] = [:]
            for (index, name) in header.enumerated() {
                if let first = seen[name] {
                    throw IngestError(
                        code: .invalidHeader, path: path,
                        message: "column '\(name)' appears twice in the header (columns \(first + 1) and \(index + 1))", line: headerLine)
                }
                seen[name] = index
            }
        }
        parser.expectedFieldCount = header?.count
        self.parser = parser
        self.header = header ?? []
        headerLineNumber = headerLine
    }

    /// The index of the first column named `name` (exact bytes), or nil.
    public func columnIndex(_ name: String) -> Int? {
        header.firstIndex(of: name)
    }

    /// The index of each named column, in the order of `names`.
    ///
    /// - Throws: `IngestError` (`missingColumn`) naming the file and the first missing column.
    public func requireColumns(_ names: [String]) throws -> [Int] {
        try names.map { name in
            guard let index = columnIndex(name) else {
                throw IngestError(
                    code: .missingColumn, path: path, message: "missing required column '\(name)'",
                    line: headerLineNumber > 0 ? headerLineNumber : nil)
            }
            return index
        }
    }

    /// The next record after the header, in file order, or nil at the end of the file (and
    /// on every call after it). The row is only valid until the next call.
    ///
    /// - Throws: `IngestError` when the file cannot be read or decompressed (rows before the
    ///   problem have been handed out).
    public func nextRow() throws -> TableRow? {
        while !done {
            if let row = parser.nextRecord() { return row }
            if endOfInput {
                done = true
                return parser.finish()
            }
            if let chunk = try input.nextChunk() {
                parser.start(chunk)
            } else {
                endOfInput = true
            }
        }
        return nil
    }

    /// Calls `body` with every record after the header, in file order. The row is only valid
    /// during the call. Calling it again after the end does nothing.
    ///
    /// - Throws: `IngestError` when the file cannot be read or decompressed (rows before the
    ///   problem have been handed out), or what `body` throws.
    public func forEachRow(_ body: (TableRow) throws -> Void) throws {
        while let row = try nextRow() { try body(row) }
    }
}
