import OfferLabIngest

/// A failure of a run that a person or a cron job can act on: one line of text, a category that
/// maps to the process exit code, and, as values, where it happened and what caused it.
public struct OfferLabError: Error, CustomStringConvertible, Sendable {
    /// Where in an input file the failure was seen.
    public struct Location: Sendable, Equatable {
        /// The file, as the job or command named it.
        public var path: String
        /// 1-based line of the (decompressed) text, when known.
        public var line: Int?
        /// Offset in the file's bytes (compressed bytes for gzip), when known.
        public var byteOffset: Int64?

        public init(path: String, line: Int? = nil, byteOffset: Int64? = nil) {
            self.path = path
            self.line = line
            self.byteOffset = byteOffset
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
    }

    public var category: Category
    /// The whole line for stderr, location included.
    public var message: String
    /// Where the failure was seen, when it concerns a place in an input file.
    public var location: Location?
    /// The lower-level error it comes from (an `IngestError`, a `SQLiteError`), when there is one.
    public var cause: (any Error & Sendable)?

    public init(_ category: Category, _ message: String, location: Location? = nil, cause: (any Error & Sendable)? = nil) {
        self.category = category
        self.message = message
        self.location = location
        self.cause = cause
    }

    /// A failure caused by `error`, reading "`context``error`", located where `error` was seen.
    public init(_ category: Category, context: String, _ error: IngestError, hint: String = "") {
        self.init(
            category, "\(context)\(error)\(hint)",
            location: Location(path: error.path, line: error.line, byteOffset: error.byteOffset), cause: error)
    }

    public var description: String { message }

    /// The exit code for this failure (sysexits.h values, so cron wrappers can tell them apart).
    public var exitCode: Int32 {
        switch category {
        case .configuration: 78  // EX_CONFIG
        case .data: 65  // EX_DATAERR
        case .output: 73  // EX_CANTCREAT
        case .busy: 75  // EX_TEMPFAIL
        }
    }
}
