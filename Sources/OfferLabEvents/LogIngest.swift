import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabSupport
import OfferLabTables
import Synchronization

/// Reads every log file of a job into one `EventStore`.
///
/// Files are parsed concurrently, at most `width` at a time, each task owning its file's
/// `EventBatch`es; batches are merged strictly in file order, so the store (and every number
/// after it) is the same whatever order the files finish in.
///
/// Files do not wait for the assignment table: a file's users are interned on their own and
/// mapped to the population's when it is ready (`population`, loaded alongside), so the table
/// and the first log files are read at the same time. Files read before it is ready wait
/// unmerged, without holding up the files after them; when it is, their users are mapped on
/// every core, a file per task (`InOrder.run`'s `prepare`). A file (or piece) started once it is
/// ready looks its users up in the population's as it is read instead (`EventBatch.init(fileIndex:
/// lookingUpUsersIn:)`).
///
/// Cores are shared out by the files' sizes (`SpareCores`): a JSON Lines file whose share of the
/// bytes is worth two cores or more (rounded: one and a half do) has its text cut into pieces of whole lines that several parsers
/// read side by side, each piece a batch of its own, merged in order (`readInPieces`); with fewer
/// files than cores, the other files, and a CSV file, whose quoted fields may span lines, are
/// decompressed on a thread of their own, ahead of their parsing (`readAhead`). So even a single
/// file, or one large file beside small ones, keeps every core busy.
///
/// With a `cache`, a file parsed by an earlier run is read back from it instead, and a file
/// parsed now is kept in it (`ParsedLogCache`).
package enum LogIngest {
    /// `storeNight`: the events of the job's store sources (`StoreSourceIngest`), appended after
    /// the purchase-log files (docs/input-formats.md#purchase-logs; `appendStoreFiles`).
    package static func read(
        settings: IngestSettings, population: Task<Population, Error>, progress: ProgressReporter?, width: Int? = nil,
        pieceSize: Int = LogFileScanner.defaultPieceSize, cache: ParsedLogCache? = nil, storeNight: StoreNight? = nil
    ) async throws -> EventStore {
        let files = settings.logFiles
        let cores = width ?? ProcessInfo.processInfo.activeProcessorCount
        let spareCores = SpareCores(cores: cores, fileSizes: files.map { fileSize(atPath: $0) ?? 0 })
        var store = EventStore()
        let readyUsers = ReadyUsers()
        try await InOrder.run(count: files.count, width: width) {
            let users = try await population.value.users
            readyUsers.set(users)
            return users
        } work: { index in
            let onBytesRead = progress?.readingFile(files[index], named: "log file \(index + 1)/\(files.count)")
            guard let cache, let key = cache.key(forLogAt: files[index]) else {
                return try readFile(
                    index: index, path: files[index], settings: settings, parsers: spareCores.parsers[index],
                    readAhead: spareCores.readAhead,
                    pieceSize: pieceSize, readyUsers: readyUsers,
                    onBytesRead: onBytesRead)
            }
            if let batches = cache.load(key, fileIndex: index, path: files[index], asOf: settings.asOf) { return batches }
            // Kept before their users are resolved: the entry must not depend on tonight's table.
            let batches = try readFile(
                index: index, path: files[index], settings: settings, parsers: spareCores.parsers[index], readAhead: spareCores.readAhead,
                pieceSize: pieceSize, readyUsers: ReadyUsers(),
                onBytesRead: onBytesRead)
            if batches[0].counters.filesSkipped.isEmpty { cache.store(batches, key: key, path: files[index]) }
            return batches
        } prepare: { (batches: consuming [EventBatch], users: ByteStringInterner) in
            for index in batches.indices where !batches[index].usersResolved { batches[index].resolveUsers(users) }
            return batches
        } merge: { (batches: consuming [EventBatch], _: ByteStringInterner) in
            let file = batches[0].fileIndex
            store.counters.noteFile(
                files[file], malformedLines: batches.reduce(0) { $0 + $1.counters.malformedLines },
                nonBlankLines: batches.reduce(0) { $0 + $1.counters.nonBlankLines }, skipped: !batches[0].counters.filesSkipped.isEmpty)
            for batch in batches { store.append(batch, keepRejects: settings.rejectsPerReason) }
            if file == 0 { TestPause.at(.readingLogs) }
            progress?.say("read \(file + 1)/\(files.count) log files, \(store.counters.nonBlankLines) lines, \(store.count) events")
        }
        cache?.releaseBuffers()
        if let storeNight {
            try await appendStoreFiles(storeNight, to: &store, users: try await population.value.users, settings: settings, width: width)
            progress?.say("read \(storeNight.files.count) store files, \(store.counters.nonBlankLines) lines, \(store.count) events")
        }
        return store
    }

    /// The app's past as `readPast` gives it.
    package enum PastReading: Sendable {
        /// The files' chains (`PastChains`), read back from the cache or read from the files and kept.
        case chains(PastChains)
        /// The files themselves: without a cache, when a file cannot be kept, or when asked for.
        case files([PastFile])

        /// The files, when read as such.
        package var files: [PastFile]? {
            if case .files(let files) = self { files } else { nil }
        }

        /// The files' charges and refunds.
        package var eventCount: Int {
            switch self {
            case .chains(let chains): chains.eventCount
            case .files(let files): files.reduce(0) { $0 + $1.events.count }
            }
        }
    }

    /// Reads the `history_logs` files (`settings`: `IngestSettings(job, history: true)`) as the
    /// app's past (docs/statistics.md#the-apps-past): each file reduced to its charges and refunds
    /// (`PastFile`), kept so in the `cache`, and their counters added up in file order as `read`
    /// adds the logs'. The files' users are their own: `AppPast` looks up those it needs. With a
    /// cache that keeps every file, the files are read on into their chains (`PastChains`), kept
    /// too, so that a later night reads only those back; `chains: false`: the files themselves.
    package static func readPast(
        settings: IngestSettings, progress: ProgressReporter?, width: Int? = nil, cache: ParsedLogCache? = nil, chains: Bool = true
    ) async throws -> (past: PastReading, counters: IngestCounters) {
        let files = settings.logFiles
        let keys = files.map { cache?.key(forLogAt: $0, past: true) }
        var counters = IngestCounters()
        func count(_ fileCounters: IngestCounters, of path: String) {
            counters.noteFile(
                path, malformedLines: fileCounters.malformedLines, nonBlankLines: fileCounters.nonBlankLines,
                skipped: !fileCounters.filesSkipped.isEmpty)
            counters.add(fileCounters, keep: settings.rejectsPerReason)
        }
        let allKeys = keys.compactMap { $0 }
        let keepsEveryFile = chains && !files.isEmpty && allKeys.count == files.count
        if let cache, keepsEveryFile, let kept = cache.loadPastChains(allKeys, paths: files, asOf: settings.asOf) {
            for (fileCounters, path) in zip(kept.fileCounters, files) { count(fileCounters, of: path) }
            return (.chains(kept), counters)
        }
        let cores = width ?? ProcessInfo.processInfo.activeProcessorCount
        let spareCores = SpareCores(cores: cores, fileSizes: files.map { fileSize(atPath: $0) ?? 0 })
        var past: [PastFile] = []
        var everyFileKept = keepsEveryFile
        try await InOrder.run(count: files.count, width: width) { index in
            if let cache, let key = keys[index], let kept = cache.loadPast(key, path: files[index], asOf: settings.asOf) { return kept }
            let batches = try readFile(
                index: index, path: files[index], settings: settings, parsers: spareCores.parsers[index], readAhead: spareCores.readAhead,
                pieceSize: LogFileScanner.defaultPieceSize, readyUsers: ReadyUsers(),
                onBytesRead: progress?.readingFile(files[index], named: "history file \(index + 1)/\(files.count)"))
            let file = PastFile(batches, keepRejects: settings.rejectsPerReason)
            if let cache, let key = keys[index], file.counters.filesSkipped.isEmpty { cache.storePast(file, key: key, path: files[index]) }
            return file
        } merge: { (file: consuming PastFile) in
            let index = past.count
            count(file.counters, of: files[index])
            // Kept as `storePast` keeps a file: read whole, nothing at or after `as_of`, unchanged since hashed.
            if everyFileKept
                && (!file.counters.filesSkipped.isEmpty || file.eventsAtOrAfterAsOf > 0
                    || ParsedLogCache.FileIdentity(path: files[index]) != keys[index]?.file)
            {
                everyFileKept = false
            }
            past.append(file)
        }
        cache?.releaseBuffers()
        if let cache, everyFileKept {
            let read = PastChains(past)
            cache.storePastChains(read, keys: allKeys)
            return (.chains(read), counters)
        }
        return (.files(past), counters)
    }

    /// What the cores are used for beside reading one file each.
    struct SpareCores: Sendable {
        /// Whether a file read whole is decompressed on a thread of its own (`readAhead`).
        var readAhead = false
        /// Per file: how many threads parse a JSON Lines file's pieces; 1: the file is read whole.
        var parsers: [Int]

        /// `fileSizes`: the files' sizes on disk (0 when unknown). A file's share of the cores is
        /// its share of the bytes, rounded: with one file of 1 GB beside a small one, the large
        /// one is read in pieces on two cores, where one core each would leave the second core
        /// idle once the small file is read.
        init(cores: Int, fileSizes: [Int]) {
            readAhead = fileSizes.count < cores
            let total = fileSizes.reduce(0, +)
            parsers = fileSizes.map { size in
                let share = total > 0 ? Double(size) / Double(total) : 1 / Double(fileSizes.count)
                // One thread inflates and cuts: about as fast as four parsers, and more would wait.
                return min(4, max(1, Int((Double(cores) * share).rounded())))
            }
        }
    }

    /// One file's events, in one batch or, read in pieces, in one batch per piece (in order),
    /// its users not yet resolved; a corrupt gzip file is skipped whole when the job says so.
    /// With more than one of `parsers`, a JSON Lines file is read in pieces of `pieceSize` bytes;
    /// else, with `readAhead`, decompressed ahead of its parsing. `onBytesRead`: the scanner's (for
    /// progress).
    static func readFile(
        index: Int, path: String, settings: IngestSettings, parsers: Int, readAhead: Bool, pieceSize: Int, readyUsers: ReadyUsers,
        onBytesRead: (@Sendable (Int64) -> Void)?
    ) throws -> [EventBatch] {
        var scanner = LogFileScanner(path: path, inflater: settings.inflater)
        scanner.onBytesRead = onBytesRead
        scanner.keepsSliceFields = !settings.keptSliceFields.isEmpty
        do {
            if parsers > 1 && scanner.format == .jsonLines {
                return try readInPieces(
                    index: index, scanner: scanner, settings: settings, parsers: parsers, pieceSize: pieceSize, readyUsers: readyUsers)
            }
            scanner.readAhead = readAhead
            return [try readWhole(index: index, scanner: scanner, settings: settings, readyUsers: readyUsers)]
        } catch let error as IngestError {
            if settings.onCorruptFile == .skip && (error.code == .corruptGzip || error.code == .truncatedGzip) {
                // Lines read before the damage are dropped with the rest of the file.
                var skipped = EventBatch(fileIndex: index)
                skipped.counters.filesSkipped = [SkippedFile(path: path, error: error.detail)]
                return [skipped]
            }
            let hint = error.code == .corruptGzip || error.code == .truncatedGzip ? " (on_corrupt_file: skip would skip it)" : ""
            throw OfferLabError(.unreadableLog, context: "log file ", error, hint: hint)
        }
    }

    private static func readWhole(index: Int, scanner: LogFileScanner, settings: IngestSettings, readyUsers: ReadyUsers) throws
        -> EventBatch
    {
        // Room for the file's events up front (about one per 32 bytes of a gzipped log), so that
        // the array is not regrown and copied (room never used is never touched), and for its
        // users (one per 50 bytes or so: a few events each). Not huge pages: written once in
        // order, the events gain little from them, and a run after a pause paid for them.
        let size = fileSize(atPath: scanner.path) ?? 0
        var batch = newBatch(fileIndex: index, readyUsers: readyUsers, userCapacity: size / 48, keeping: settings.keptSliceFields)
        batch.records.reserveCapacity(size / 32)
        let summary = try scan(into: &batch, path: scanner.path, settings: settings) { try scanner.scan(record: $0, malformed: $1) }
        if batch.looksUpUsers { batch.finishLookingUpUsers() }
        batch.counters.filesRead = 1
        batch.counters.nonBlankLines = summary.lines.nonBlankLines
        batch.counters.compressedBytes = summary.compressedBytes
        batch.counters.uncompressedBytes = summary.uncompressedBytes
        return batch
    }

    /// A JSON Lines file whose text is cut into pieces as it is decompressed (on the calling
    /// thread), the pieces parsed by `parsers` threads, the calling one included, one batch each.
    /// The batches, in file order, hold the same records, counts and rejects as `readWhole`'s one.
    private static func readInPieces(
        index: Int, scanner: LogFileScanner, settings: IngestSettings, parsers: Int, pieceSize: Int, readyUsers: ReadyUsers
    ) throws -> [EventBatch] {
        // The thread that cuts parses a piece itself whenever two per other parser wait: so that
        // `parsers` threads share as many cores, each always busy. With a thread more, the one that
        // cuts got a third of the two cores, and the parsers waited for it a tenth of the time.
        let pieces = BlockingQueue<LogTextPiece>(capacity: 2 * (parsers - 1))
        let outcomes = PieceOutcomes()
        let parse: @Sendable (inout LogTextPiece) -> Void = { piece in
            parseAndResolve(&piece, into: outcomes, fileIndex: index, scanner: scanner, settings: settings, readyUsers: readyUsers)
        }
        // Threads of their own: a parser queued on Swift's task pool waited for the table's
        // loading and this very task, which keep it busy. Those the system does not start
        // (`ThreadUnavailable`) are not waited for: this thread parses what they would have.
        let running = (1..<parsers).compactMap { _ in
            try? ConcurrentWork {
                while var piece = pieces.take() { parse(&piece) }
            }
        }
        let summary: LogFileSummary
        do {
            // A piece parsed here is scanned in place: its text then goes back to the cutter
            // held once, to be written again without a copy.
            summary = try scanner.splitJSONLines(pieceSize: pieceSize) { piece in
                if !pieces.offer(piece) { parse(&piece) }
            }
        } catch {
            pieces.close(droppingWaiting: true)
            for parser in running { parser.wait() }
            throw error
        }
        pieces.close()
        for parser in running { parser.wait() }
        while var piece = pieces.poll() { parse(&piece) }
        var batches: [EventBatch] = []
        var linesBefore = 0
        for outcome in outcomes.inOrder() {
            var (batch, lines) = try outcome.get()
            // Rejects were numbered from the piece's first line.
            for reject in batch.counters.rejects.indices { batch.counters.rejects[reject].line += linesBefore }
            linesBefore += lines.physicalLines
            batch.counters.nonBlankLines = lines.nonBlankLines
            batches.append(batch)
        }
        batches[0].counters.filesRead = 1
        batches[0].counters.compressedBytes = summary.compressedBytes
        batches[0].counters.uncompressedBytes = summary.uncompressedBytes
        return batches
    }

    /// Parses a piece into `outcomes`, then resolves the users of pieces parsed before the
    /// assignment table was loaded (while the file is read, rather than one after another when
    /// it is merged).
    private static func parseAndResolve(
        _ piece: inout LogTextPiece, into outcomes: PieceOutcomes, fileIndex: Int, scanner: LogFileScanner, settings: IngestSettings,
        readyUsers: ReadyUsers
    ) {
        outcomes.add(
            piece.index, Result { try parse(&piece, fileIndex: fileIndex, scanner: scanner, settings: settings, readyUsers: readyUsers) })
        while let users = readyUsers.users, var earlier = outcomes.takeUnresolved() {
            earlier.batch.resolveUsers(users)
            outcomes.add(earlier.index, .success((earlier.batch, earlier.lines)))
        }
    }

    private static func parse(
        _ piece: inout LogTextPiece, fileIndex: Int, scanner: LogFileScanner, settings: IngestSettings, readyUsers: ReadyUsers
    )
        throws -> (EventBatch, LineCounts)
    {
        // Room as in `readWhole`, from the text's size: lines of about 240 bytes, a few per user.
        var batch = newBatch(
            fileIndex: fileIndex, readyUsers: readyUsers, userCapacity: piece.count / 256, keeping: settings.keptSliceFields)
        batch.records.reserveCapacity(piece.count / 128)
        let lines = try scan(into: &batch, path: scanner.path, settings: settings) {
            try scanner.scanPiece(&piece, record: $0, malformed: $1)
        }
        // Here, on the piece's thread, rather than one piece after another when the file is merged.
        if batch.looksUpUsers {
            batch.finishLookingUpUsers()
        } else if let users = readyUsers.users {
            batch.resolveUsers(users)
        }
        return (batch, lines)
    }

    /// `scan` (a file's or a piece's) with what every line does: each record added to `batch`, each
    /// malformed line counted in its counters (and kept, up to the job's `rejects_per_reason`).
    private static func scan<Lines>(
        into batch: inout EventBatch, path: String, settings: IngestSettings,
        _ scan: (
            _ record: (_ record: UnsafePointer<LogRecord>, _ lineNumber: Int) throws -> Void,
            _ malformed: (_ line: MalformedLine) throws -> Void
        ) throws -> Lines
    ) throws -> Lines {
        try scan({ record, _ in batch.add(record, asOf: settings.asOf) }) { line in
            batch.counters.reject(line.reason, file: path, line: line.lineNumber, bytes: line.bytes, keep: settings.rejectsPerReason)
        }
    }

    /// A batch that looks its events' users up in the population's as it goes when the table is
    /// loaded already, else one that interns them on its own, in a table with room for about
    /// `userCapacity` of them. Its events keep the values of the slice fields `keeping`.
    private static func newBatch(fileIndex: Int, readyUsers: ReadyUsers, userCapacity: Int, keeping sliceFields: SliceFields) -> EventBatch
    {
        var batch: EventBatch
        if let users = readyUsers.users {
            batch = EventBatch(fileIndex: fileIndex, lookingUpUsersIn: users)
        } else {
            batch = EventBatch(fileIndex: fileIndex, userCapacity: userCapacity)
        }
        batch.keptSliceFields = sliceFields
        return batch
    }

    /// The population's users once its table is loaded (nil before): a file or piece started after
    /// that looks its users up in them as it is read, and one parsed before resolves its users
    /// as soon as it is parsed, when it can.
    final class ReadyUsers: Sendable {
        private let loaded = Mutex<ByteStringInterner?>(nil)

        var users: ByteStringInterner? { loaded.withLock { $0 } }

        func set(_ users: ByteStringInterner) { loaded.withLock { $0 = users } }
    }

    /// What the parsers made of a file's pieces (in any order), and which of them still wait for
    /// their users.
    private final class PieceOutcomes: Sendable {
        typealias Outcome = Result<(EventBatch, LineCounts), Error>
        private let state = Mutex<(outcomes: [Int: Outcome], unresolved: [Int])>(([:], []))

        func add(_ index: Int, _ outcome: Outcome) {
            state.withLock { state in
                if case .success(let (batch, _)) = outcome, !batch.usersResolved { state.unresolved.append(index) }
                state.outcomes[index] = outcome
            }
        }

        /// A parsed piece whose users are not resolved yet, taken out (until it is added back).
        func takeUnresolved() -> (index: Int, batch: EventBatch, lines: LineCounts)? {
            state.withLock { state in
                guard let index = state.unresolved.popLast(), case .success(let (batch, lines)) = state.outcomes.removeValue(forKey: index)
                else { return nil }
                return (index, batch, lines)
            }
        }

        /// Every piece's outcome in file order (once the parsers are done).
        func inOrder() -> [Outcome] {
            state.withLock { state in (0..<state.outcomes.count).compactMap { state.outcomes.removeValue(forKey: $0) } }
        }
    }
}
