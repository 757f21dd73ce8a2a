import Foundation
import OfferLabIngest

/// Reads every log file of a job into one `EventStore`.
///
/// Files are parsed concurrently, at most `width` at a time, each task owning its file's
/// `EventBatch`; batches are merged strictly in file order, so the store (and every number
/// after it) is the same whatever order the files finish in.
enum LogIngest {
    static func read(job: Job, users: ByteStringInterner, progress: ProgressReporter?, width: Int? = nil) async throws -> EventStore {
        let files = job.logFiles
        let width = max(1, min(width ?? ProcessInfo.processInfo.activeProcessorCount, files.count))
        var store = EventStore()
        var finished: [Int: EventBatch] = [:]
        var nextToMerge = 0
        try await withThrowingTaskGroup(of: EventBatch.self) { group in
            var nextToStart = 0
            func startNext() {
                let index = nextToStart
                group.addTask { try readFile(index: index, path: files[index], job: job, users: users) }
                nextToStart += 1
            }
            while nextToStart < width { startNext() }
            while let batch = try await group.next() {
                finished[batch.fileIndex] = batch
                while let ready = finished.removeValue(forKey: nextToMerge) {
                    store.append(ready, keepRejects: job.rejectsPerReason)
                    nextToMerge += 1
                    if nextToMerge == 1 { TestPause.at(.readingLogs) }
                    progress?.say("read \(nextToMerge)/\(files.count) log files, \(store.counters.nonBlankLines) lines, \(store.records.count) events")
                }
                if nextToStart < files.count { startNext() }
            }
        }
        return store
    }

    /// One file's events; a corrupt gzip file is skipped whole when the job says so.
    static func readFile(index: Int, path: String, job: Job, users: ByteStringInterner) throws -> EventBatch {
        var batch = EventBatch(fileIndex: index)
        do {
            let summary = try LogFileScanner(path: path).scan(
                record: { record, line in batch.add(record, line: line, asOf: job.asOf, users: users) },
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
