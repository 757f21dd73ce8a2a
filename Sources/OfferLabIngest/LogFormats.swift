/// One format of purchase log: a type per format, each reading a file's lines into `LogRecord`s,
/// the one shape every format's events take. A new format is a type in a file of its own and a
/// case of `LogFileFormat`, the one place formats are chosen (docs/architecture.md).
public protocol LogFormatReader {
    /// Streams `file` as `LogFileScanner.scan` says: `record` for every valid event with its
    /// 1-based line number, `malformed` for every malformed line, both in file order.
    static func scan(
        _ file: LogFileScanner, record: (_ record: UnsafePointer<LogRecord>, _ lineNumber: Int) throws -> Void,
        malformed: (_ line: MalformedLine) throws -> Void
    ) throws -> LogFileSummary
}

/// How a log file is encoded, by its name. The raw value is the format's number in the
/// parsed-log cache's keys: a new format takes a new number.
public enum LogFileFormat: UInt8, Sendable, Equatable {
    case jsonLines = 0
    case csv = 1

    /// Strips one final `.gz`, then `.csv` → CSV; every other name is JSON Lines (any case).
    public init(fileName: String) {
        var name = fileName.lowercased()[...]
        if name.hasSuffix(".gz") { name = name.dropLast(3) }
        self = name.hasSuffix(".csv") ? .csv : .jsonLines
    }

    /// The type that reads the format.
    public var reader: any LogFormatReader.Type {
        switch self {
        case .jsonLines: JSONLinesLog.self
        case .csv: CSVLog.self
        }
    }
}
