/// A failure of a run that a person or a cron job can act on: one line of text and a category
/// that maps to the process exit code.
public struct OfferLabError: Error, CustomStringConvertible, Sendable {
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
    public var message: String

    public init(_ category: Category, _ message: String) {
        self.category = category
        self.message = message
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
