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

/// Reads one purchase log file, in the format its name says (`LogFileFormat`, whose `LogFormatReader`
/// reads it), gzip or not by its bytes.
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
        try format.reader.scan(self, record: record, malformed: malformed)
    }
}
