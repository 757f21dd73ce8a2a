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
    /// False when an App Store source was read with `app_store.verify: false`: its signatures
    /// were not checked.
    package var signaturesVerified = true

    /// The events of every file, in the order of `files`.
    package var events: [StoreEvent] { files.flatMap(\.events) }
}

/// Reads a job's store sources into the night's store events.
package enum StoreSourceIngest {
    /// Reads every file of `job.storeSources`, at most `width` (default: the cores) at a time,
    /// and resolves their records together (`StoreEventResolver`): a transaction delivered by
    /// several files or sources is one event.
    ///
    /// Every `revenuecat_export` file's header is checked before any file is read, so that a
    /// missing column fails at once.
    ///
    /// With a `cache`, an App Store file read by an earlier run with the same settings is read
    /// back from it, verified and decoded, instead of being verified again (its signatures are
    /// most of a night's work); a file read now is kept in it.
    ///
    /// - Parameter userTransactions: the server's `user_transactions` table (`UserTransactions`).
    /// - Throws: `OfferLabError`: `.unreadableLog` for a file that cannot be read or (under
    ///   `on_corrupt_file: fail`) decompressed, or an export file without a required column.
    package static func read(
        job: Job, userTransactions: [String: String], width: Int? = nil, cache: ParsedLogCache? = nil
    ) async throws -> StoreNight {
        var night = StoreNight()
        var sources: [StoreSourceRecords] = []
        for source in job.storeSources {
            let read: FormatReading
            switch source.format {
            case .offerlab: continue
            case .appStoreNotifications:
                read = try await readAppStore(source.files, job: job, width: width, cache: cache)
                night.signaturesVerified = job.appStore.verify
            case .revenueCatExport: read = try await readRevenueCatExport(source.files, job: job, width: width)
            case .revenueCatWebhooks: read = try await readRevenueCatWebhooks(source.files, job: job, width: width)
            }
            sources.append(read.records)
            night.notes += read.records.notes
            night.skippedFiles += read.skippedFiles
            night.fileCounts.merge(read.fileCounts) { $1 }
        }
        let resolution = StoreEventResolver.resolve(sources: sources, userTransactions: userTransactions, asOf: job.night.microseconds)
        night.counts = resolution.counts

        var fileIndex: [String: Int] = [:]
        for source in job.storeSources {
            for path in source.files {
                fileIndex[path] = night.files.count
                night.files.append((path, source.format, []))
            }
        }
        // Events come a file's at a time: its path, the same string, is hashed once a run of them.
        // Every record read from a file names it (`sourcePath`), and that file is one of the job's.
        var last: (path: String, index: Int)?
        let eventFiles = resolution.events.map { event in
            let path = event.sourcePath!
            if last?.path != path { last = (path, fileIndex[path]!) }
            return last!.index
        }
        // Each file's events in an array of their size, not one regrown as they come.
        var eventCounts = [Int](repeating: 0, count: night.files.count)
        for file in eventFiles { eventCounts[file] += 1 }
        for (file, count) in eventCounts.enumerated() { night.files[file].events.reserveCapacity(count) }
        for (event, file) in zip(resolution.events, eventFiles) { night.files[file].events.append(event) }
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

    /// Reads `paths` with `read`, at most `width` at a time, and gives the files read to `collect`
    /// in path order, as soon as each one's turn comes; their counts and the skipped ones are kept
    /// in `reading`. A corrupt gzip file is skipped under `on_corrupt_file: skip`, else fails the
    /// night, as a purchase log (docs/input-formats.md#purchase-logs) does.
    private static func readFiles<Reading: StoreFileReading>(
        _ paths: [String], format: SourceFormat, job: Job, width: Int?, into reading: inout FormatReading,
        read: @escaping @Sendable (String) async throws -> Reading, collect: (Reading) -> Void
    ) async throws {
        let policy = job.onCorruptFile
        try await InOrder.run(count: paths.count, width: width) { index -> FileOutcome<Reading> in
            do {
                return .read(try await read(paths[index]))
            } catch let error as IngestError {
                let corrupt = error.code == .corruptGzip || error.code == .truncatedGzip
                if corrupt && policy == .skip { return .skipped(SkippedFile(path: paths[index], error: error.detail)) }
                let hint = corrupt ? " (on_corrupt_file: skip would skip it)" : ""
                throw OfferLabError(.unreadableLog, context: "\(format.rawValue) file ", error, hint: hint)
            }
        } merge: { outcome in
            switch outcome {
            case .read(let file):
                reading.fileCounts[file.path] = file.counts
                collect(file)
            case .skipped(let skipped): reading.skippedFiles.append(skipped)
            }
        }
    }

    private static func readAppStore(_ paths: [String], job: Job, width: Int?, cache: ParsedLogCache?) async throws -> FormatReading {
        guard let bundleID = job.appStore.bundleID else {
            throw OfferLabError.job(job.jobPath, key: "app_store.bundle_id", "required with a logs item of format app_store_notifications")
        }
        var verifier: AppStoreSignatureVerifier?
        if job.appStore.verify {
            do {
                verifier = try AppStoreSignatureVerifier(rootCertificates: job.appStore.rootCertificates)
            } catch {
                throw OfferLabError.job(job.jobPath, key: "app_store.root_certificates", "certificate \(error.index + 1): \(error.reason)")
            }
        }
        let decoder = AppStoreNotificationDecoder(bundleID: bundleID, verifier: verifier)
        var reading = FormatReading(records: StoreSourceRecords(format: .appStoreNotifications))
        let settings = cacheSettings(job.appStore)
        var collector = AppStoreRecordCollector()
        try await readFiles(paths, format: .appStoreNotifications, job: job, width: width, into: &reading) { path in
            guard let cache, let key = cache.key(forStoreFileAt: path, settings: settings) else {
                return try await AppStoreNotificationFile.read(path: path, decoder: decoder)
            }
            if let kept = cache.load(
                key,
                decode: { (entry: inout ParsedLogCache.EntryReader) in
                    try AppStoreFileReading(entry: &entry, path: path)
                })
            {
                return kept
            }
            let reading = try await AppStoreNotificationFile.read(path: path, decoder: decoder)
            cache.store(key, path: path) { reading.encode(into: &$0) }
            return reading
        } collect: {
            collector.add($0)
        }
        cache?.releaseBuffers()
        reading.records = collector.records
        return reading
    }

    /// What reading an App Store file depends on beside its bytes: the job's bundle id, whether
    /// it verifies, and the roots it trusts.
    private static func cacheSettings(_ settings: AppStoreSettings) -> [UInt8] {
        var bytes = Array("\(SourceFormat.appStoreNotifications.rawValue)\n\(settings.bundleID ?? "")\n\(settings.verify)\n".utf8)
        for root in settings.rootCertificates {
            bytes += Array("\(root.count)\n".utf8) + root
        }
        return bytes
    }

    private static func readRevenueCatExport(_ paths: [String], job: Job, width: Int?) async throws -> FormatReading {
        let userIDField = job.revenueCat.userIDField
        let inflater = job.inflater
        for path in paths {
            do {
                try RevenueCatExportFile.checkColumns(path: path, userIDField: userIDField, inflater: inflater)
            } catch let error as IngestError where error.code == .missingColumn || error.code == .invalidHeader {
                throw OfferLabError(.unreadableLog, context: "revenuecat_export file ", error)
            } catch {
                // A file that cannot be opened or inflated fails (or is skipped) when it is read.
            }
        }
        var reading = FormatReading(records: StoreSourceRecords(format: .revenueCatExport))
        var files: [RevenueCatExportFile] = []
        try await readFiles(paths, format: .revenueCatExport, job: job, width: width, into: &reading) { path in
            try RevenueCatExportFile(path: path, userIDField: userIDField, inflater: inflater)
        } collect: {
            files.append($0)
        }
        reading.records = RevenueCatExport.records(files)
        return reading
    }

    private static func readRevenueCatWebhooks(_ paths: [String], job: Job, width: Int?) async throws -> FormatReading {
        let userIDField = job.revenueCat.userIDField
        let inflater = job.inflater
        var reading = FormatReading(records: StoreSourceRecords(format: .revenueCatWebhooks))
        var files: [RevenueCatWebhookFile] = []
        try await readFiles(paths, format: .revenueCatWebhooks, job: job, width: width, into: &reading) { path in
            try RevenueCatWebhookFile(path: path, userIDField: userIDField, inflater: inflater)
        } collect: {
            files.append($0)
        }
        reading.records = RevenueCatWebhooks.records(files)
        return reading
    }
}
