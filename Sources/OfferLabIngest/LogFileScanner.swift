/// How a log file is encoded, by its name.
public enum LogFileFormat: Sendable, Equatable {
    case jsonLines
    case csv

    /// Strips one final `.gz`, then `.csv` → CSV; every other name is JSON Lines (any case).
    public init(fileName: String) {
        var name = fileName.lowercased()[...]
        if name.hasSuffix(".gz") { name = name.dropLast(3) }
        self = name.hasSuffix(".csv") ? .csv : .jsonLines
    }
}

/// A malformed line handed out by `LogFileScanner`: borrowed, only valid during the callback.
public struct MalformedLine {
    public let reason: MalformedReason
    /// 1-based physical line (for a CSV record, the line on which it starts).
    public let lineNumber: Int
    /// The line as in the file, without its line ending (for a line that is too long: its
    /// first bytes, up to the limit).
    public let bytes: UnsafeRawBufferPointer
}

/// Counts per malformed reason.
public struct MalformedCounts: Sendable, Equatable {
    private var counts = [Int](repeating: 0, count: MalformedReason.allCases.count)

    public init() {}

    public subscript(reason: MalformedReason) -> Int {
        get { counts[Int(reason.rawValue)] }
        set { counts[Int(reason.rawValue)] = newValue }
    }

    /// Every malformed line (`malformed_lines`).
    public var total: Int { counts.reduce(0, +) }

    /// Adds another file's counts.
    public static func += (lhs: inout MalformedCounts, rhs: MalformedCounts) {
        for index in lhs.counts.indices { lhs.counts[index] += rhs.counts[index] }
    }
}

/// What a scan of one log file saw.
public struct LogFileSummary: Sendable, Equatable {
    public var path: String
    public var format: LogFileFormat
    public var isGzip: Bool
    /// The file's lines: counted by its scan, or its pieces' counts added up.
    public var lines = LineCounts()
    /// Bytes of the file (compressed when gzip).
    public var compressedBytes: Int64 = 0
    /// Bytes after decompression.
    public var uncompressedBytes: Int64 = 0

    public init(path: String, format: LogFileFormat, isGzip: Bool = false) {
        self.path = path
        self.format = format
        self.isGzip = isGzip
    }
}

/// Reads one purchase log file, JSON Lines or CSV by its name, gzip or not by its bytes.
///
/// A value: scanners of different files can run in parallel, each `scan` owning its reader,
/// parser and record. The callbacks run on the calling task.
public struct LogFileScanner: Sendable {
    public let path: String
    public var format: LogFileFormat
    /// The longest line, in bytes without its line ending, that is parsed; a longer one is
    /// `lineTooLong`.
    public var maxLineLength: Int
    /// Read (and decompression) buffer size.
    public var bufferSize: Int
    /// The library for gzip members.
    public var inflater: Inflater
    /// Decompress on a thread of its own, ahead of the parsing (see `InputFileReader`): for a
    /// file that would otherwise have a core to itself while others sit idle.
    public var readAhead = false
    /// Called as the file is read, on the reading thread, with the bytes read from the file so
    /// far (compressed when gzip): about once per megabyte of text, for a progress display.
    public var onBytesRead: (@Sendable (_ fileBytes: Int64) -> Void)?
    /// Whether the records carry `country` and `platform` (read only for a job that slices).
    public var keepsSliceFields = false

    public init(
        path: String, maxLineLength: Int = LineSplitter.defaultMaxLineLength, bufferSize: Int = 1 << 20,
        inflater: Inflater = .fastestAvailable
    ) {
        self.path = path
        format = LogFileFormat(fileName: path)
        self.maxLineLength = maxLineLength
        self.bufferSize = bufferSize
        self.inflater = inflater
    }

    /// Streams the file: `record` is called for every valid event with its 1-based line
    /// number, `malformed` for every malformed line; both in file order, blank lines skipped.
    ///
    /// The record (and a malformed line's bytes) are only valid during the call: a plain JSON
    /// line's record reads its strings from the line itself, which is not copied
    /// (`JSONLineParser(borrowsPlainLines:)`). The record is lent by pointer: a record passed by
    /// value would be copied whole (about 250 bytes) for every line, right after the parser wrote
    /// it field by field.
    ///
    /// - Throws: `IngestError` when the file cannot be opened, read or decompressed (lines
    ///   before the problem have already been handed out: a caller that skips corrupt files
    ///   must discard them), or what a callback throws.
    public func scan(
        record: (_ record: UnsafePointer<LogRecord>, _ lineNumber: Int) throws -> Void,
        malformed: (_ line: MalformedLine) throws -> Void
    ) throws -> LogFileSummary {
        switch format {
        case .jsonLines: try scanJSONLines(record: record, malformed: malformed)
        case .csv: try scanCSV(record: record, malformed: malformed)
        }
    }

    private func scanJSONLines(
        record onRecord: (UnsafePointer<LogRecord>, Int) throws -> Void, malformed onMalformed: (MalformedLine) throws -> Void
    ) throws -> LogFileSummary {
        let reader = try InputFileReader(path: path, bufferSize: bufferSize, inflater: inflater, readAhead: readAhead)
        var summary = LogFileSummary(path: path, format: .jsonLines, isGzip: reader.isGzip)
        let lines = try Self.scanJSONLines(
            maxLineLength: maxLineLength, keepsSliceFields: keepsSliceFields, record: onRecord, malformed: onMalformed
        ) { feed in
            try reader.forEachTextChunk { text in
                try feed(text)
                onBytesRead?(reader.compressedBytesRead)
            }
        }
        summary.lines = lines
        summary.compressedBytes = reader.compressedBytesRead
        summary.uncompressedBytes = reader.uncompressedBytes
        return summary
    }

    /// Splits the bytes that `text` feeds into lines and parses them; lines are numbered from 1.
    static func scanJSONLines(
        maxLineLength: Int, keepsSliceFields: Bool, record onRecord: (UnsafePointer<LogRecord>, Int) throws -> Void,
        malformed onMalformed: (MalformedLine) throws -> Void,
        text: (_ feed: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> LineCounts {
        var splitter = LineSplitter(maxLineLength: maxLineLength)
        // The record is handed on only while its line is in memory: it borrows plain lines.
        var parser = JSONLineParser(borrowsPlainLines: true, keepsSliceFields: keepsSliceFields)
        var record = LogRecord()
        var lines = LineCounts()
        // The record is passed in and out, not captured: a captured record would be copied (its
        // text retained and released) for every callback.
        func handle(_ line: Line, _ record: inout LogRecord) throws {
            let reason: MalformedReason?
            if line.isTooLong {
                reason = .lineTooLong
            } else {
                reason = parser.parse(line.bytes, into: &record)
            }
            if let reason {
                lines.malformed[reason] += 1
                try onMalformed(MalformedLine(reason: reason, lineNumber: line.number, bytes: line.bytes))
            } else {
                lines.validRecords += 1
                try withUnsafePointer(to: &record) { try onRecord($0, line.number) }
            }
        }
        func handle(_ line: Line) throws { try handle(line, &record) }
        // `handle` does not escape: `text` reaches it only through `feed`, while it runs.
        try withoutActuallyEscaping(handle) { handle in
            try text { try splitter.feed($0, handle) }
        }
        try splitter.finish(handle)
        lines.nonBlankLines = splitter.nonBlankLineCount
        lines.physicalLines = splitter.lineCount
        return lines
    }

    private func scanCSV(
        record onRecord: (UnsafePointer<LogRecord>, Int) throws -> Void, malformed onMalformed: (MalformedLine) throws -> Void
    ) throws -> LogFileSummary {
        let reader: TableFileReader
        do {
            reader = try TableFileReader(
                path: path, format: .csv, maxRecordLength: maxLineLength, keepRawBytes: true, bufferSize: bufferSize,
                inflater: inflater, readAhead: readAhead)
        } catch let error as IngestError where error.code == .invalidHeader {
            // How much an inflater hands out before it reports damage depends on its buffers, so a
            // damaged gzip file could fail here or in the inflater. Damage is what the file has:
            // report it, so that `on_corrupt_file: skip` treats the file the same way every time.
            try InputFileReader(path: path, bufferSize: bufferSize, inflater: inflater).forEachChunk { _ in }
            throw error
        }
        var summary = LogFileSummary(path: path, format: .csv, isGzip: reader.isGzip)
        var parser = CSVLogParser(header: reader.header, keepsSliceFields: keepsSliceFields)
        var record = LogRecord()
        var lines = LineCounts()
        // Rows are pulled, not pushed to a closure: a closure's captured state would be retained
        // and released around every row.
        while let row = try reader.nextRow() {
            lines.nonBlankLines += 1
            // Every 4096 rows: about a megabyte of text.
            if lines.nonBlankLines & 4095 == 0, let onBytesRead { onBytesRead(reader.compressedBytesRead) }
            if let reason = parser.parse(row, into: &record) {
                lines.malformed[reason] += 1
                try onMalformed(MalformedLine(reason: reason, lineNumber: row.lineNumber, bytes: row.rawBytes))
            } else {
                lines.validRecords += 1
                try withUnsafePointer(to: &record) { try onRecord($0, row.lineNumber) }
            }
        }
        summary.lines = lines
        summary.compressedBytes = reader.compressedBytesRead
        summary.uncompressedBytes = reader.uncompressedBytes
        return summary
    }
}
