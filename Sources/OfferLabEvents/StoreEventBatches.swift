import OfferLabIngest
import OfferLabJob
import OfferLabStoreSources
import OfferLabSupport

/// The events of the job's store sources (docs/input-formats.md#store-sources-in-a-job) inside a
/// run: each made into the record the purchase-log parser (docs/input-formats.md#purchase-logs)
/// would read from its line (`StoreEvent.fillLogRecord`, without the line's text), in batches of
/// consecutive store files after the purchase-log files, so that every rule after the reading of
/// the purchase logs (de-duplication, clean-up, attribution: docs/analysis.md §2) applies to them
/// as to log lines.
package enum StoreEventBatches {
    /// The events of consecutive store files (`files`, each file's in its order) as one batch of
    /// `fileIndex`, its users looked up in the population's (`users`), or, without, interned on
    /// its own (`EventBatch.resolveUsers`). The records are the tool's own, not the files' lines:
    /// they count in no counter (the files' lines are counted by
    /// `IngestCounters.addStoreSources`). An event the parser would reject is a defect of the
    /// reader that made it, but still never silently dropped: it is returned as a note of its file
    /// (its `sourcePath`, else `path`; line 0: it is no line of the file) under the parser's
    /// reason, with its purchase-log line (docs/input-formats.md#purchase-logs), for the caller to
    /// count.
    package static func batch(
        _ files: [[StoreEvent]], fileIndex: Int, path: String, users: ByteStringInterner?, asOf: Int64, keptSliceFields: SliceFields
    ) -> (batch: EventBatch, rejected: [(format: SourceFormat, note: StoreLineNote)]) {
        var batch = users.map { EventBatch(fileIndex: fileIndex, lookingUpUsersIn: $0) } ?? EventBatch(fileIndex: fileIndex)
        batch.keptSliceFields = keptSliceFields
        batch.records.reserveCapacity(files.reduce(0) { $0 + $1.count })
        let keepsSliceFields = !keptSliceFields.isEmpty
        var record = LogRecord()
        var rejected: [(SourceFormat, StoreLineNote)] = []
        for events in files {
            // Each event borrowed in place (`pointee`): `for event in events` would copy it,
            // retaining and releasing each of its strings.
            events.withUnsafeBufferPointer { events in
                for event in events.indices.lazy.map({ events.baseAddress! + $0 }) {
                    if let reason = event.pointee.fillLogRecord(&record, keepsSliceFields: keepsSliceFields) {
                        let event = event.pointee
                        let line = StoreEventJSONLines.line(event)
                        let detail =
                            "the event \(event.eventID) made from this file is not a valid log line (\(reason.counterName)): \(line)"
                        let note = StoreLineNote(path: event.sourcePath ?? path, line: 0, counter: StoreCounter(reason), detail: detail)
                        rejected.append((event.format, note))
                        continue
                    }
                    withUnsafePointer(to: &record) { batch.add($0, asOf: asOf) }
                }
            }
        }
        if batch.looksUpUsers { batch.finishLookingUpUsers() }
        return (batch, rejected)
    }

    /// The store files (by their events' counts) cut into runs of consecutive files of at least
    /// `minimumEvents` events each (the last: what is left), one batch each. Each batch is a
    /// segment of the run's events, with tables of its own and its freed pages handed back as
    /// the events are grouped by user (`EventCleanup`): a month of Google Play's files is hundreds
    /// of files of a few hundred events, which as a batch each cost a later night more than
    /// reading them.
    static func runs(eventCounts: [Int], minimumEvents: Int) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        var events = 0
        for (index, count) in eventCounts.enumerated() {
            events += count
            if events >= minimumEvents {
                runs.append(start..<index + 1)
                start = index + 1
                events = 0
            }
        }
        if start < eventCounts.count { runs.append(start..<eventCounts.count) }
        return runs
    }

    /// Events a batch of consecutive store files gathers before the next begins: about the lines
    /// of a purchase-log batch (a piece of `LogFileScanner.defaultPieceSize`, 4 MiB, of lines of
    /// about 240 bytes), so that a large store source is still batched on every core.
    static let minimumBatchEvents = 1 << 14
}

extension IngestCounters {
    /// Adds what the store sources read (`night`): each format's counters (its lines to
    /// `lines_read`, its malformed lines to their reason of docs/input-formats.md#malformed-lines,
    /// or to its own), its files read or skipped, each file with malformed lines (or none valid) as
    /// a purchase-log file's (docs/input-formats.md#purchase-logs), and the first
    /// `keep` notes of each counter (the rejects, at their original file and line). `formats`:
    /// every store format the job reads, so that one with nothing to count is still listed.
    package mutating func addStoreSources(_ night: StoreNight, formats: [SourceFormat], keep: Int) {
        for format in formats where storeCounts[format] == nil { storeCounts[format] = StoreCounts() }
        for (format, formatCounts) in night.counts {
            storeCounts[format, default: StoreCounts()] += formatCounts
            nonBlankLines += formatCounts[.linesRead]
            for (counter, count) in formatCounts.nonZero {
                if let reason = counter.malformedReason { malformed[Int(reason.rawValue)] += count }
            }
        }
        let skipped = Set(night.skippedFiles.map(\.path))
        filesSkipped += night.skippedFiles
        for file in night.files where !skipped.contains(file.path) {
            filesRead += 1
            let counts = night.fileCounts[file.path] ?? StoreCounts()
            if counts.malformedLines > 0 { malformedFiles.append((file.path, counts.malformedLines)) }
            if counts.malformedLines == counts[.linesRead] { filesWithoutValidLines.append((file.path, counts[.linesRead])) }
        }
        for note in night.notes where storeNotes.count(where: { $0.counter == note.counter }) < keep { storeNotes.append(note) }
    }

    /// Per source format read, its counters: the purchase logs'
    /// (docs/input-formats.md#purchase-logs; `offerlab`, when the job has any) first, then each
    /// store format's, in the order of `SourceFormat`.
    package func sourceCounts(hasLogFiles: Bool) -> [(format: SourceFormat, counts: StoreCounts)] {
        var offerlab = StoreCounts()
        offerlab[.linesRead] = nonBlankLines - storeCounts.values.reduce(0) { $0 + $1[.linesRead] }
        for reason in MalformedReason.allCases {
            let counter = StoreCounter(reason)
            offerlab[counter] = malformed[Int(reason.rawValue)] - storeCounts.values.reduce(0) { $0 + $1[counter] }
        }
        let stores = SourceFormat.allCases.compactMap { format in storeCounts[format].map { (format, $0) } }
        return (hasLogFiles ? [(.offerlab, offerlab)] : []) + stores
    }
}

extension LogIngest {
    /// Appends the store files' events to `store` after the purchase-log files
    /// (docs/input-formats.md#purchase-logs; in the order of `night.files`: the ties of the
    /// de-duplication of docs/analysis.md §2 fall to the app's logs), a batch per run of
    /// consecutive files (`StoreEventBatches.runs`), or per run of a night kept resolved
    /// (`KeptNight`: its entries are per run), their users looked up in
    /// `users` (the population's), on up to `width` tasks; and adds the store sources' counters
    /// and notes (`IngestCounters.addStoreSources`).
    package static func appendStoreFiles(
        _ night: StoreNight, to store: inout EventStore, users: ByteStringInterner, settings: IngestSettings, width: Int?
    )
        async throws
    {
        var night = night
        let files = night.files
        let kept = night.kept
        let firstIndex = settings.logFiles.count
        let runs =
            kept?.runs
            ?? StoreEventBatches.runs(eventCounts: files.map(\.events.count), minimumEvents: StoreEventBatches.minimumBatchEvents)
        var keptEntries: [String] = []
        try await InOrder.run(count: runs.count, width: width) { index in
            let run = runs[index]
            guard let kept else {
                let made = StoreEventBatches.batch(
                    files[run].map(\.events), fileIndex: firstIndex + run.lowerBound, path: files[run.lowerBound].path, users: users,
                    asOf: settings.asOf, keptSliceFields: settings.keptSliceFields)
                return (made.batch, made.rejected, "")
            }
            return kept.batch(
                ofRun: index, events: files[run].map(\.events), fileIndex: firstIndex + run.lowerBound, users: users,
                asOf: settings.asOf, keptSliceFields: settings.keptSliceFields)
        } merge: { (made: (batch: EventBatch, rejected: [(format: SourceFormat, note: StoreLineNote)], entryName: String)) in
            for (format, note) in made.rejected {
                night.counts[format, default: StoreCounts()][note.counter] += 1
                night.notes.append(note)
            }
            store.append(made.batch, keepRejects: settings.rejectsPerReason)
            keptEntries.append(made.entryName)
        }
        kept?.keepIndex(runEntries: keptEntries)
        store.counters.addStoreSources(night, formats: settings.storeFormats, keep: settings.rejectsPerReason)
    }
}
