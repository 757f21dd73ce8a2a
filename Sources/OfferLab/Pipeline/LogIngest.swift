import Foundation
import OfferLabIngest

/// Reads every log file of a job into one `EventStore`.
///
/// Files are parsed concurrently, at most `width` at a time, each task owning its file's
/// `EventBatch`; batches are merged strictly in file order, so the store (and every number
/// after it) is the same whatever order the files finish in.
///
/// Files do not wait for the assignment table: a file's users are interned on their own and
/// mapped to the population's when it is ready (`population`, loaded alongside), so the table
/// and the first log files are read at the same time. Files read before it is ready wait
/// unmerged, without holding up the files after them.
///
/// With fewer files than cores, each file is decompressed on a thread of its own, ahead of its
/// parsing (`readAhead`), so that even a single file keeps two cores busy.
enum LogIngest {
    static func read(
        job: Job, population: Task<Population, Error>, progress: ProgressReporter?, width: Int? = nil
    ) async throws -> EventStore {
        let files = job.logFiles
        let readAhead = files.count < (width ?? ProcessInfo.processInfo.activeProcessorCount)
        var store = EventStore()
        try await InOrder.run(count: files.count, width: width) {
            try await population.value.users
        } work: { index in
            try readFile(index: index, path: files[index], job: job, readAhead: readAhead)
        } merge: { (batch: consuming EventBatch, users: ByteStringInterner) in
            let file = batch.fileIndex
            batch.resolveUsers(users)
            store.append(batch, keepRejects: job.rejectsPerReason)
            if file == 0 { TestPause.at(.readingLogs) }
            progress?.say("read \(file + 1)/\(files.count) log files, \(store.counters.nonBlankLines) lines, \(store.count) events")
        }
        return store
    }

    /// One file's events, its users not yet resolved; a corrupt gzip file is skipped whole
    /// when the job says so.
    static func readFile(index: Int, path: String, job: Job, readAhead: Bool) throws -> EventBatch {
        var batch = EventBatch(fileIndex: index)
        // Room for the file's events up front (about one per 32 bytes of a gzipped log), so that
        // the array is not regrown and copied (room never used is never touched), and for its
        // users (one per 50 bytes or so: a few events each). Not huge pages: written once in
        // order, the events gain little from them, and a run after a pause paid for them.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber {
            batch.records.reserveCapacity(size.intValue / 32)
            batch.users = ByteStringInterner(capacity: size.intValue / 48)
        }
        do {
            var scanner = LogFileScanner(path: path, inflater: job.inflater)
            scanner.readAhead = readAhead
            let summary = try scanner.scan(
                record: { record, _ in batch.add(record, asOf: job.asOf) },
                malformed: { line in
                    batch.counters.reject(line.reason, file: path, line: line.lineNumber, bytes: line.bytes, keep: job.rejectsPerReason)
                })
            batch.counters.filesRead = 1
            batch.counters.nonBlankLines = summary.nonBlankLines
            batch.counters.compressedBytes = summary.compressedBytes
            batch.counters.uncompressedBytes = summary.uncompressedBytes
            return batch
        } catch let error as IngestError {
            if job.onCorruptFile == .skip && (error.code == .corruptGzip || error.code == .truncatedGzip) {
                // Lines read before the damage are dropped with the rest of the file.
                var skipped = EventBatch(fileIndex: index)
                skipped.counters.filesSkipped = [SkippedFile(path: path, error: error.detail)]
                return skipped
            }
            let hint = error.code == .corruptGzip || error.code == .truncatedGzip ? " (on_corrupt_file: skip would skip it)" : ""
            throw OfferLabError(.data, "log file \(error)\(hint)")
        }
    }
}
