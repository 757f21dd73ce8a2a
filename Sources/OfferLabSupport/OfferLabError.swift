import OfferLabIngest

/// A failure of a run that a person or a cron job can act on.
///
/// Like NIO's `FileSystemError`: a ``Code`` from a small closed set says what kind of failure it
/// is (its category and the process exit code follow from it), ``message`` is the one line for
/// stderr, ``location`` says where it was seen as values (file, line, byte offset, job key), and
/// ``cause`` keeps the lower-level error it comes from. Programs and tests read the code and the
/// fields; only people read the message.
public struct OfferLabError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure it is.
    public enum Code: Sendable, CaseIterable {
        /// The job file cannot be read, or a key of it (or a file it names for settings, such as
        /// `rates_file`) holds a wrong value.
        case badJob
        /// A file or folder the job or the command names does not exist or cannot be opened, or a
        /// log glob matches nothing.
        case missingInput
        /// A command-line value the library checks is out of range, or asks for what the job
        /// lacks.
        case badArgument
        /// The offering tables or the assignment table cannot be read or contradict themselves.
        case badTables
        /// A log file cannot be read or decompressed (a corrupt or truncated gzip file).
        case unreadableLog
        /// More log lines are malformed than `max_bad_line_ratio` allows.
        case tooManyMalformedLines
        /// More money is in currencies without a rate than `max_unconvertible_money_share` allows.
        case unconvertibleMoney
        /// An offering's totals are outside what the statistics accept (a money sum overflows,
        /// counts contradict each other).
        case rejectedTotals
        /// The night's inputs look broken (no log line, stale logs, an offering without users, a
        /// drop in volume against the previous night): docs/reliability.md#a-broken-night; the
        /// location names the job key that allows it.
        case brokenNight
        /// The aggregates or products file given to `offerlab stats` is unusable.
        case badAggregates
        /// A SQL engine would read an input file differently from `offerlab run`.
        case engineCannotRead
        /// A results database is not one, or cannot be read.
        case badResultsDatabase
        /// The results database holds no usable run of the night asked for.
        case nightNotFound
        /// The results database holds no successful night at all.
        case noNights
        /// An output (folder, file, database, cache, lock file) cannot be written.
        case cannotWrite
        /// Another run of the same job holds the lock.
        case locked

        /// The category, which gives the exit code.
        public var category: Category {
            switch self {
            case .badJob, .missingInput, .badArgument: .configuration
            case .badTables, .unreadableLog, .tooManyMalformedLines, .unconvertibleMoney, .rejectedTotals, .brokenNight, .badAggregates,
                .engineCannotRead, .badResultsDatabase, .nightNotFound:
                .data
            case .cannotWrite: .output
            case .locked: .busy
            case .noNights: .noInput
            }
        }
    }

    public enum Category: Sendable {
        /// The job file or the command line is wrong (names, keys, values, missing paths).
        case configuration
        /// The input data is unusable (too many malformed lines, corrupt gzip, bad tables).
        case data
        /// Outputs could not be written (unwritable folder, disk full, database error).
        case output
        /// Another run of the same job holds the lock.
        case busy
        /// There is nothing to read yet (a results database without a night).
        case noInput

        /// The process exit code (sysexits.h values, so cron wrappers can tell them apart).
        public var exitCode: Int32 {
            switch self {
            case .configuration: 78  // EX_CONFIG
            case .data: 65  // EX_DATAERR
            case .output: 73  // EX_CANTCREAT
            case .busy: 75  // EX_TEMPFAIL
            case .noInput: 66  // EX_NOINPUT
            }
        }
    }

    /// Where the failure was seen; each part only when known.
    public struct Location: Sendable, Equatable {
        /// The file (or folder) it concerns, as the job or command named it.
        public var path: String?
        /// 1-based line of the (decompressed) text.
        public var line: Int?
        /// Offset in the file's bytes (compressed bytes for gzip).
        public var byteOffset: Int64?
        /// The job file's key whose value is wrong, or that named the file.
        public var jobKey: String?

        public init(path: String? = nil, line: Int? = nil, byteOffset: Int64? = nil, jobKey: String? = nil) {
            self.path = path
            self.line = line
            self.byteOffset = byteOffset
            self.jobKey = jobKey
        }
    }

    public var code: Code
    /// The whole line for stderr, location included.
    public var message: String
    /// Where the failure was seen.
    public var location: Location
    /// The lower-level error it comes from (an `IngestError`, a `SQLiteError`), when there is one.
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, location: Location = Location(), cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.location = location
        self.cause = cause
    }

    /// A failure caused by `error`, reading "`context``error``hint`", located where `error` was
    /// seen.
    public init(_ code: Code, context: String, _ error: IngestError, hint: String = "", jobKey: String? = nil) {
        self.init(
            code, "\(context)\(error)\(hint)",
            location: Location(path: error.path, line: error.line, byteOffset: error.byteOffset, jobKey: jobKey), cause: error)
    }

    /// A problem with `key` of the job file at `path` (or with the file as a whole, without a
    /// key): "job file `path`: `key`: `problem`".
    package static func job(_ path: String, key: String? = nil, _ problem: String, code: Code = .badJob) -> OfferLabError {
        OfferLabError(
            code, "job file \(path): \(key.map { "\($0): " } ?? "")\(problem)", location: Location(path: path, jobKey: key))
    }

    public var category: Category { code.category }

    public var exitCode: Int32 { category.exitCode }

    public var description: String { message }
}
