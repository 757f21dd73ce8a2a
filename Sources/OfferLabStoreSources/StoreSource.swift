import OfferLabIngest

/// A store's format (docs/input-formats.md#store-sources-in-a-job) as a night reads it: its
/// settings, the reading of one of its files, and how its files' readings become the source's
/// records. Each conformance lives in its store's folder; `SourceFormat.source` names it.
package protocol StoreSource: SendableMetatype {
    /// The job file's map the format is read with (`app_store:`, `revenuecat:`).
    associatedtype Settings: StoreSourceSettings
    /// What reads the night's files, made once from the settings (the signature verifier, the
    /// user id field).
    associatedtype FileReader: Sendable
    /// One file as read: its records before they meet the other files', its counters.
    associatedtype FileReading: StoreFileReading
    /// Collects the files' readings, in file order, into the source's records.
    associatedtype Collector: StoreRecordCollector<FileReading>

    static var format: SourceFormat { get }

    /// The reader of the night's files `paths`, which it may check before any is read (the
    /// export's headers).
    /// - Throws: `StoreSettingsProblem` when the settings cannot read the format; `IngestError`
    ///   for a file that is not of the format.
    static func reader(settings: Settings, paths: [String], inflater: Inflater) throws -> FileReader

    /// Reads the file at `path`; with a `cache`, a format whose readings it keeps
    /// (`CachedStoreFileReading`) reads back an earlier run's reading of the same bytes.
    /// - Throws: `IngestError` when the file cannot be opened or its gzip is corrupt.
    static func read(_ path: String, with reader: FileReader, cache: (any StoreFileCache)?) async throws -> FileReading
}

extension StoreSource {
    /// The type of its settings, for what holds every store's (`StoreSettings`).
    package static var settingsType: any StoreSourceSettings.Type { Settings.self }
}

/// One store file as read: its path and its counters (`StoreSourceIngest` keeps both per file).
public protocol StoreFileReading: Sendable {
    var path: String { get }
    var counts: StoreCounts { get }
}

/// Collects a source's file readings, each as soon as it is read and in file order (sorted paths),
/// into the source's records: only the records, not every reading, stay in memory.
package protocol StoreRecordCollector<FileReading> {
    associatedtype FileReading
    init()
    mutating func add(_ reading: consuming FileReading)
    /// The records of the files added, with their counters and notes.
    var records: StoreSourceRecords { get }
}

/// A store's settings cannot read its format: the job file's key, and the problem.
package struct StoreSettingsProblem: Error {
    package var key: String
    package var problem: String

    package init(key: String, _ problem: String) {
        self.key = key
        self.problem = problem
    }
}

/// A store file's reading that the parsed-log cache keeps (docs/input-formats.md#store-sources-in-a-job):
/// written to an entry and read back the same, whatever its path.
package protocol CachedStoreFileReading: StoreFileReading {
    /// Writes the reading to `entry`, without its path: the same bytes under another name are the
    /// same reading.
    func encode(into entry: inout CacheEntryWriter)
    /// The reading kept in `entry`, as the reading of the file at `path`.
    /// - Throws: `CacheEntryReader.Damaged` when the payload is not one `encode` wrote.
    init(entry: inout CacheEntryReader, path: String) throws
}

/// Where store files' readings are kept from run to run: the parsed-log cache (OfferLabEvents).
package protocol StoreFileCache: Sendable {
    /// The reading of the file at `path` with `settings` (what reading it depends on beside its
    /// bytes): the one kept for the same bytes and settings, else `read`'s, then kept.
    func reading<Reading: CachedStoreFileReading>(
        ofFileAt path: String, settings: [UInt8], read: () async throws -> Reading
    ) async throws -> Reading
}

/// A notification's records as a collector takes them out of it (`KeptNightCollector`).
package protocol StoreNotificationRecords {
    var id: String { get }
    var transaction: StoreTransaction? { get set }
    var statusChange: StoreStatusChange? { get set }
    var refundReversal: StoreRefundReversal? { get set }
}

/// A file's reading with the lines it rejected or noted.
package protocol NotedStoreFileReading: StoreFileReading {
    var notes: [StoreLineNote] { get }
}

/// A collector that can take a night's files after the kept files of an earlier night
/// (`KeptStoreNight`, in OfferLabEvents).
package protocol KeptNightCollector<FileReading>: StoreRecordCollector {
    associatedtype Notification: StoreNotificationRecords
    /// Adds a file as `add(_:)` does, each notification first given to `kept`, which takes out of
    /// it what the kept files hold already and says whether they counted its id as ignored.
    mutating func add(_ reading: consuming FileReading, after kept: (inout Notification) -> Bool)
    /// Merges a later delivery of a transaction into its record, as `add` does.
    static func merge(_ delivered: StoreTransaction, into record: inout StoreTransaction)
    /// The ids of the notifications counted in `ignored_store_records`.
    var ignoredNotificationIDs: Set<String> { get }
}

/// A store source whose nights the parsed-log cache keeps resolved (`KeptStoreNight`, in
/// OfferLabEvents): its readings are kept (`CachedStoreFileReading`) and its collector takes a
/// night's new files after the kept ones.
package protocol KeptNightSource: StoreSource
where FileReading: NotedStoreFileReading, Collector: KeptNightCollector, Collector.FileReading == FileReading {
    /// What reading a file depends on beside its bytes (`StoreFileCache.reading`'s `settings`).
    static func cacheSettings(of reader: FileReader) -> [UInt8]
}
