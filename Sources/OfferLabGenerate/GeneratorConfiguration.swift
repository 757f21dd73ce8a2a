import OfferLabStoreSources

/// What `DataSetGenerator.generate` makes: how many users, which seed, which period, where.
package struct GeneratorConfiguration: Sendable {
    /// The folder that receives `tables/`, `logs/` and `job.yaml`.
    package var outputDirectory: String
    /// Number of simulated users (each gets a seeded random stream of its own).
    package var users: Int
    /// The same seed (and the same other settings) gives byte-identical files.
    package var seed: UInt64
    /// The first UTC day of the period.
    package var start: CivilDate
    /// Length of the period in days; `as_of` is `start + days` at 00:00 UTC.
    package var days: Int
    /// Worker threads (log shards are written in parallel; the output does not depend on it).
    package var jobs: Int
    /// zlib level of every gzip file, 1 (fast) to 9 (small).
    package var compressionLevel: Int32 = 6
    /// Replace `tables/`, `logs/` and `job.yaml` of an earlier run in `outputDirectory`.
    package var overwrite: Bool
    /// How the files are shaped: the same seed gives the same users, events and quirks in every shape.
    package var shape: DataSetShape

    package static let defaultStart = CivilDate(checkedYear: 2026, month: 3, day: 1)

    package init(
        outputDirectory: String, users: Int, seed: UInt64, start: CivilDate = defaultStart, days: Int = 14, jobs: Int = 2,
        overwrite: Bool = false, shape: DataSetShape = DataSetShape()
    ) {
        self.outputDirectory = outputDirectory
        self.users = users
        self.seed = seed
        self.start = start
        self.days = days
        self.jobs = jobs
        self.overwrite = overwrite
        self.shape = shape
    }

    /// Checks the values; throws a `GeneratorError` a user can act on.
    package func validate() throws {
        guard users >= 1, users <= 1_000_000_000 else {
            throw GeneratorError("--users must be between 1 and 1000000000 (got \(users))")
        }
        guard days >= 1, days <= 3660 else { throw GeneratorError("--days must be between 1 and 3660 (got \(days))") }
        guard jobs >= 1, jobs <= 256 else { throw GeneratorError("--jobs must be between 1 and 256 (got \(jobs))") }
        guard (1...9).contains(compressionLevel) else {
            throw GeneratorError("the compression level must be between 1 and 9 (got \(compressionLevel))")
        }
        guard !outputDirectory.isEmpty else { throw GeneratorError("the output folder must not be empty") }
    }

    /// Microseconds since the epoch of `start` 00:00 UTC.
    var startMicros: Int64 { start.daysSinceEpoch * Micros.day }
    /// Microseconds since the epoch of `as_of` (the end of the period, excluded).
    var asOfMicros: Int64 { startMicros + Int64(days) * Micros.day }
    /// Events are simulated up to this instant: the log folder of the `as_of` day holds the
    /// first hours after the end, as a nightly export that ran late would.
    var horizonMicros: Int64 { asOfMicros + 12 * Micros.hour }
    /// The `as_of` instant as written in the job file.
    package var asOfText: String { formatTimestamp(asOfMicros, style: .iso) }
}

/// How a data set's files are shaped: its `event_id`s, its `user_id`s, its log files, and the
/// form of the store's facts.
package struct DataSetShape: Sendable {
    package var eventIDs: EventIDShape
    package var userIDs: UserIDShape
    package var layout: LogLayout
    package var playUsers: PlayUsers
    /// The purchase logs (docs/input-formats.md#purchase-logs), or RevenueCat's export or webhooks.
    package var sourceFormat: SourceFormat

    package init(
        eventIDs: EventIDShape = .uuid, userIDs: UserIDShape = .numeric, layout: LogLayout = .dailyShards,
        playUsers: PlayUsers = .oneInFive, sourceFormat: SourceFormat = .offerlab
    ) {
        self.eventIDs = eventIDs
        self.userIDs = userIDs
        self.layout = layout
        self.playUsers = playUsers
        self.sourceFormat = sourceFormat
    }
}

/// A generation that cannot go on: a bad setting or a file that cannot be written.
package struct GeneratorError: Error, CustomStringConvertible, Sendable {
    package var message: String
    package var path: String?

    package init(_ message: String, path: String? = nil) {
        self.message = message
        self.path = path
    }

    package var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}
