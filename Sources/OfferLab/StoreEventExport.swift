import Foundation
import OfferLabEvents
import OfferLabIngest
import OfferLabJob
import OfferLabStoreSources
import OfferLabSupport
import OfferLabTables

/// `offerlab events`: the verified, decoded events of a job's store sources written in the log
/// format (docs/input-formats.md#purchase-logs), so that SQL engines (`offerlab sql`), which
/// cannot verify a signature, and any other tool read them (docs/input-formats.md).
///
/// One gzip JSON Lines file per input file that gives events, `<folder>/<format>/<input
/// path>.jsonl.gz`, the input path relative to the job file's folder (an input outside it: its
/// absolute path without the leading `/`): a run again replaces its own files (and removes the
/// file of an input that no longer gives an event: an empty log would be a warning of `run`)
/// and leaves every other file of the folder alone. Each is written to a temporary file beside
/// it and renamed over it, so a reader sees the old file or the new one, never half of one. The
/// job's purchase logs (docs/input-formats.md#purchase-logs) are not copied.
package enum StoreEventExport {
    /// What was written.
    package struct Summary: Sendable {
        package var folder: String
        /// Per input file that gives events: the file written and its number of events, in the
        /// job's order.
        package var files: [(path: String, events: Int)]
        /// The input files read, those without events included.
        package var inputFiles: Int
        /// The store lines read and those rejected (malformed), over every source.
        package var linesRead: Int
        package var malformedLines: Int
        /// The other counters hit (ignored, unattributed, family-shared records, unpriced charges), summed over the formats.
        package var otherCounts: [(counter: StoreCounter, count: Int)]
        package var skippedFiles: [String]
        package var signaturesVerified: Bool
        /// What was done with the job's cache (App Store files read back or kept); nil without one.
        package var cache: CacheUsage?

        package var events: Int { files.reduce(0) { $0 + $1.events } }

        /// The line `offerlab events` prints.
        package var line: String {
            var text =
                "wrote \(events) events to \(files.count) file(s) in \(folder) from \(inputFiles) store file(s): \(linesRead) lines read, \(malformedLines) malformed"
            for (counter, count) in otherCounts { text += ", \(count) \(counter.rawValue)" }
            if !skippedFiles.isEmpty { text += ", \(skippedFiles.count) corrupt file(s) skipped" }
            if !signaturesVerified { text += "; App Store signatures not verified (app_store.verify: false)" }
            if let cache, cache.filesReused + cache.filesStored > 0 {
                text += "; cache \(cache.folder): \(cache.filesReused) store file(s) reused, \(cache.filesStored) read and kept"
            }
            return text
        }
    }

    /// Reads `job`'s store sources and writes their events into `folder`. With the job's `cache`,
    /// App Store files read before are read back from it, verified and decoded
    /// (`StoreSourceIngest`); the cache's other entries are left for `run`.
    /// - Throws: `OfferLabError`: `.badJob` for a job without a store source, or whose globs
    ///   would read the files written; what reading the sources throws (`StoreSourceIngest`);
    ///   `.tooManyMalformedLines` over `max_bad_line_ratio`; `.cannotWrite`.
    package static func run(job: Job, folder: String, width: Int? = nil) async throws -> Summary {
        guard !job.inputs.storeSources.isEmpty else {
            throw OfferLabError.job(
                job.jobPath, key: "logs",
                "names no store source (\(SourceFormat.allCases.filter { $0 != .offerlab }.map(\.rawValue).joined(separator: ", "))): its logs are in the log format already"
            )
        }
        let folder = JobLoader.resolve(folder, against: FileManager.default.currentDirectoryPath)
        let targets = job.inputs.storeSources.flatMap { source in
            source.files.map { outputPath(of: $0, format: source.format, job: job, folder: folder) }
        }
        // The job would read its own output at its next run.
        let patterns = job.inputs.logPatterns + job.inputs.storeSources.flatMap(\.patterns)
        for target in targets {
            if let pattern = patterns.first(where: { FileGlob.wouldMatch($0, target) }) {
                throw OfferLabError(
                    .badJob,
                    "--out \(folder): the job's glob \(pattern) would read \(target); write the events to a folder the job's logs do not reach",
                    location: .init(path: folder, jobKey: "logs"))
            }
        }
        let userTransactions = try UserTransactions.load(from: TableSource(path: job.inputs.tablesPath, inflater: job.run.inflater))
        let cache = try job.outputs.cachePath.map { try ParsedLogCache(folder: $0, rejectsPerReason: job.outputs.rejectsPerReason) }
        let night = try await StoreSourceIngest.read(
            settings: StoreReadingSettings(job), userTransactions: userTransactions, width: width, cache: cache)

        var total = StoreCounts()
        for counts in night.counts.values { total += counts }
        let malformedRatio = total[.linesRead] == 0 ? 0 : Double(total.malformedLines) / Double(total[.linesRead])
        if malformedRatio > job.inputs.maxBadLineRatio {
            let first =
                night.notes.first { $0.counter.isMalformed }.map {
                    "; the first: \($0.path) line \($0.line): \($0.counter.rawValue) (\($0.detail))"
                } ?? ""
            throw OfferLabError(
                .tooManyMalformedLines,
                "\(total.malformedLines) of \(total[.linesRead]) store lines are malformed, over max_bad_line_ratio \(job.inputs.maxBadLineRatio)\(first)"
            )
        }

        let files = night.files
        try await InOrder.run(count: files.count, width: width) { index in
            try write(files[index].events, to: targets[index])
        } merge: { _ in
        }
        return Summary(
            folder: folder, files: zip(targets, files).filter { !$1.events.isEmpty }.map { ($0, $1.events.count) },
            inputFiles: files.count, linesRead: total[.linesRead],
            malformedLines: total.malformedLines,
            otherCounts: total.nonZero.filter { $0.counter != .linesRead && !$0.counter.isMalformed },
            skippedFiles: night.skippedFiles.map(\.path), signaturesVerified: night.signaturesVerified, cache: cache?.usageSoFar)
    }

    /// Where the events of the input file `path` go.
    static func outputPath(of path: String, format: SourceFormat, job: Job, folder: String) -> String {
        let jobFolder = URL(fileURLWithPath: job.jobPath).deletingLastPathComponent().standardizedFileURL.path
        let relative = path.hasPrefix(jobFolder + "/") ? String(path.dropFirst(jobFolder.count + 1)) : String(path.drop { $0 == "/" })
        return "\(folder)/\(format.rawValue)/\(relative).jsonl.gz"
    }

    /// Writes `events` as gzip JSON Lines to `path`, through a temporary file renamed over it;
    /// without events, removes `path`.
    private static func write(_ events: [StoreEvent], to path: String) throws {
        guard !events.isEmpty else {
            guard unlink(path) == 0 || errno == ENOENT else {
                throw OfferLabError(
                    .cannotWrite, "offerlab events: cannot remove \(path): \(String(cString: strerror(errno)))", location: .init(path: path)
                )
            }
            return
        }
        try Folders.create((path as NSString).deletingLastPathComponent, context: "offerlab events")
        let temporary = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            let writer = try GzipWriter(path: temporary)
            try writer.write(StoreEventJSONLines.text(events))
            try writer.finish()
        } catch let error as IngestError {
            try? FileManager.default.removeItem(atPath: temporary)
            throw OfferLabError(.cannotWrite, context: "offerlab events: ", error)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw OfferLabError(
                .cannotWrite, "offerlab events: cannot rename \(temporary) to \(path): \(reason)", location: .init(path: path))
        }
    }
}
