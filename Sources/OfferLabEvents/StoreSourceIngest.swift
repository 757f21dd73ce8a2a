import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabStoreSources
import OfferLabSupport

/// The night's events of a job's store sources (docs/input-formats.md#store-sources-in-a-job),
/// before they meet the purchase logs (docs/input-formats.md#purchase-logs).
package struct StoreNight: Sendable {
    /// Every input file of the store sources, in the order of `Job.storeSources` (formats in
    /// `SourceFormat` order, paths sorted), each with the events made from the records it was the
    /// first to deliver; a file that gives no event (re-deliveries only, every line rejected,
    /// skipped) is listed with none.
    package var files: [(path: String, format: SourceFormat, events: [StoreEvent])] = []
    /// Per format: its files' counters (`lines_read`, malformed lines by reason, …) and what
    /// resolving its records counted (`unattributed_store_records`, `family_shared_records`,
    /// `unpriced_charges`).
    package var counts: [SourceFormat: StoreCounts] = [:]
    /// Per file path: the file's own counters (`lines_read`, its malformed lines by reason);
    /// what resolving the records counts is per format only.
    package var fileCounts: [String: StoreCounts] = [:]
    /// The lines rejected or noted, with their original file and line, in file order.
    package var notes: [StoreLineNote] = []
    /// The files skipped whole as corrupt gzip (`on_corrupt_file: skip`): listed in `files`
    /// without events, their lines uncounted, as a skipped purchase log
    /// (docs/input-formats.md#purchase-logs).
    package var skippedFiles: [SkippedFile] = []
    /// False when a source with signatures was read without checking them (`Job.signaturesVerified`).
    package var signaturesVerified = true
    /// The night kept resolved in the cache (`KeptStoreNight`, `KeptFeedsNight`): the files read
    /// back from it have no events in `files`, their batches are there.
    var kept: (any KeptNight)?

    /// The events of every file, in the order of `files`.
    package var events: [StoreEvent] { files.flatMap(\.events) }

    /// How many events the night has, kept ones included.
    package var eventCount: Int { files.reduce(kept?.keptEventCount ?? 0) { $0 + $1.events.count } }
}

/// A store night kept resolved in the parsed-log cache, so that a later night makes again only
/// what can have changed: its files come in runs of consecutive files, one batch each, read back
/// from the cache or made tonight (from the run's events in `StoreNight.files`) and kept.
protocol KeptNight: Sendable {
    /// The runs of consecutive files of `StoreNight.files`, in order, each one batch.
    var runs: [Range<Int>] { get }
    /// The events of the runs read back (none of them in `StoreNight.files`).
    var keptEventCount: Int { get }
    /// Run `run`'s batch as `fileIndex` of the run, its users those of the population (`users`):
    /// read back, or made from `events` (its files') and kept, and the name of its entry.
    func batch(
        ofRun run: Int, events: [[StoreEvent]], fileIndex: Int, users: ByteStringInterner, asOf: Int64, keptSliceFields: SliceFields
    ) -> (batch: EventBatch, rejected: [(format: SourceFormat, note: StoreLineNote)], entryName: String)
    /// Writes the night's index entry, its runs' entries named in their order.
    func keepIndex(runEntries: [String])
}

/// What reading the store sources (`StoreSourceIngest`) reads of a job: made from the job in one
/// place (`init(_:)`).
package struct StoreReadingSettings: Sendable {
    /// The files of each store format the job names, in the order of `SourceFormat`.
    package var sources: [StoreSourceFiles]
    /// Each store's own settings (its job key).
    package var storeSettings: StoreSettings
    /// Whether the sources' signatures are checked (nil: no source has any).
    package var signaturesVerified: Bool?
    package var inflater: Inflater
    /// What a corrupt or truncated gzip file does: fail the run, or be skipped whole.
    package var onCorruptFile: CorruptFilePolicy
    /// Microseconds since the epoch: the night the records are resolved as of.
    package var asOf: Int64
    /// The job file, which a store's settings error names.
    package var jobPath: String

    package init(_ job: Job) {
        sources = job.inputs.storeSources
        storeSettings = job.inputs.storeSettings
        signaturesVerified = job.inputs.signaturesVerified
        inflater = job.run.inflater
        onCorruptFile = job.inputs.onCorruptFile
        asOf = job.run.night.microseconds
        jobPath = job.jobPath
    }
}

/// Reads a job's store sources into the night's store events.
package enum StoreSourceIngest {
    /// Reads every file of the job's store sources (`settings.sources`), at most `width` (default: the cores) at a time,
    /// and resolves their records together (`StoreEventResolver`): a transaction delivered by
    /// several files or sources is one event.
    ///
    /// Each format's files are read after its `StoreSource.reader` is made (which may check them
    /// all first: a `revenuecat_export` file without a required column fails at once).
    ///
    /// With a `cache`, a file of a format whose readings it keeps (`CachedStoreFileReading`: the
    /// App Store's, verified and decoded; Google Play's, as read) read by an earlier run with the same settings is read
    /// back from it; a file read now is kept in it. With `keepsResolution` too (a run, which makes
    /// the events into batches: `LogIngest.appendStoreFiles`), a job whose only store source is
    /// the App Store's keeps the night resolved (`KeptStoreNight`), and so does one whose only
    /// store sources are one store's feeds (`KeptFeedsNight`: Google Play's), and each reads back what an earlier
    /// night kept of it.
    ///
    /// - Parameter userTransactions: the server's `user_transactions` table (`UserTransactions`).
    /// - Throws: `OfferLabError`: `.unreadableLog` for a file that cannot be read or (under
    ///   `on_corrupt_file: fail`) decompressed, or an export file without a required column;
    ///   `.badJob` when a store's settings cannot read its format (`StoreSettingsProblem`).
    package static func read(
        settings: StoreReadingSettings, userTransactions: [String: String], width: Int? = nil, cache: ParsedLogCache? = nil,
        keepsResolution: Bool = false
    ) async throws -> StoreNight {
        if keepsResolution, let cache, settings.sources.count == 1, !settings.sources[0].files.isEmpty,
            let source = settings.sources[0].format.source as? any KeptNightSource.Type,
            let night = try await keptNight(source, settings: settings, userTransactions: userTransactions, width: width, cache: cache)
        {
            return night
        }
        if keepsResolution, let cache, let feeds = SourceFormat.keptFeeds(settings.sources.map(\.format)),
            let night = try await KeptFeedsNight.read(
                feeds, settings: settings, userTransactions: userTransactions, width: width, cache: cache)
        {
            return night
        }
        var night = StoreNight()
        var sources: [StoreSourceRecords] = []
        for source in settings.sources {
            guard let store = source.format.source else { continue }
            let read = try await readSource(store, paths: source.files, settings: settings, width: width, cache: cache)
            sources.append(read.records)
            night.notes += read.records.notes
            night.skippedFiles += read.skippedFiles
            night.fileCounts.merge(read.fileCounts) { $1 }
        }
        night.signaturesVerified = settings.signaturesVerified ?? true
        var resolution = StoreEventResolver.resolve(sources: sources, userTransactions: userTransactions, asOf: settings.asOf)
        night.counts = resolution.counts

        var fileIndex: [String: Int] = [:]
        for source in settings.sources {
            for path in source.files {
                fileIndex[path] = night.files.count
                night.files.append((path, source.format, []))
            }
        }
        // Events come a file's at a time: its path, the same string, is hashed once a run of them.
        // Every record read from a file names it (`sourcePath`), and that file is one of the job's.
        // By index: `events.map` would copy each event, retaining and releasing its strings.
        var last: (path: String, index: Int)?
        let eventFiles = resolution.events.indices.map { event in
            let path = resolution.events[event].sourcePath!
            if last?.path != path { last = (path, fileIndex[path]!) }
            return last!.index
        }
        // Each file's events in an array of their size, not one regrown as they come.
        var eventCounts = [Int](repeating: 0, count: night.files.count)
        for file in eventFiles { eventCounts[file] += 1 }
        for (file, count) in eventCounts.enumerated() { night.files[file].events.reserveCapacity(count) }
        // Moved, not copied (a copy retains and releases each of an event's strings): `swap`
        // moves each out, leaving an event without strings in its place.
        resolution.events.withUnsafeMutableBufferPointer { events in
            for (index, file) in eventFiles.enumerated() {
                var event = StoreEvent(format: .offerlab, eventID: "", at: 0, userID: "", event: .purchase)
                swap(&event, &events[index])
                night.files[file].events.append(event)
            }
        }
        return night
    }

    /// One format's records, with what its files counted and which were skipped.
    private struct FormatReading {
        var records: StoreSourceRecords
        var fileCounts: [String: StoreCounts] = [:]
        var skippedFiles: [SkippedFile] = []
    }

    /// A file read whole, or skipped as corrupt.
    private enum FileOutcome<Reading: Sendable>: Sendable {
        case read(Reading)
        case skipped(SkippedFile)
    }

    /// The night of `settings`' only store source, a `Source`, read with the cache's kept night
    /// (`KeptStoreNight.read`).
    private static func keptNight<Source: KeptNightSource>(
        _: Source.Type, settings: StoreReadingSettings, userTransactions: [String: String], width: Int?, cache: ParsedLogCache
    ) async throws -> StoreNight? {
        try await KeptStoreNight.read(
            Source.self, settings: settings, reader: try reader(Source.self, paths: settings.sources[0].files, settings: settings),
            userTransactions: userTransactions, width: width, cache: cache)
    }

    /// The reader of a `Source`'s files `paths`.
    /// - Throws: `OfferLabError`: `.badJob` when the store's settings cannot read its format,
    ///   `.unreadableLog` for a file not of the format.
    private static func reader<Source: StoreSource>(_: Source.Type, paths: [String], settings: StoreReadingSettings) throws
        -> Source.FileReader
    {
        do {
            return try Source.reader(settings: settings.storeSettings[Source.Settings.self], paths: paths, inflater: settings.inflater)
        } catch let problem as StoreSettingsProblem {
            throw OfferLabError.job(settings.jobPath, key: problem.key, problem.problem)
        } catch let error as IngestError {
            throw OfferLabError(.unreadableLog, context: "\(Source.format.rawValue) file ", error)
        }
    }

    /// Reads `paths`, the files of a `Source`, at most `width` at a time, and collects the files
    /// read into its records in path order, as soon as each one's turn comes. A corrupt gzip file
    /// is skipped under `on_corrupt_file: skip`, else fails the night, as a purchase log
    /// (docs/input-formats.md#purchase-logs) does.
    private static func readSource<Source: StoreSource>(
        _: Source.Type, paths: [String], settings: StoreReadingSettings, width: Int?, cache: ParsedLogCache?
    ) async throws -> FormatReading {
        let format = Source.format
        let reader = try reader(Source.self, paths: paths, settings: settings)
        let policy = settings.onCorruptFile
        var reading = FormatReading(records: StoreSourceRecords(format: format))
        var collector = Source.Collector()
        try await InOrder.run(count: paths.count, width: width) { index -> FileOutcome<Source.FileReading> in
            do {
                return .read(try await Source.read(paths[index], with: reader, cache: cache))
            } catch let error as IngestError {
                let corrupt = error.code == .corruptGzip || error.code == .truncatedGzip
                if corrupt && policy == .skip { return .skipped(SkippedFile(path: paths[index], error: error.detail)) }
                let hint = corrupt ? " (on_corrupt_file: skip would skip it)" : ""
                throw OfferLabError(.unreadableLog, context: "\(format.rawValue) file ", error, hint: hint)
            }
        } merge: { outcome in
            switch consume outcome {
            case .read(let file):
                reading.fileCounts[file.path] = file.counts
                collector.add(consume file)
            case .skipped(let skipped): reading.skippedFiles.append(skipped)
            }
        }
        cache?.releaseBuffers()
        reading.records = collector.records
        return reading
    }
}
