import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Synchronization
import Testing

@testable import OfferLab
@testable import OfferLabAnalysis
@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabSupport
@testable import OfferLabTables

/// Log files are read while the assignment table is: files finished before it wait, unmerged,
/// and the files after them are read meanwhile.
///
/// The time limits only turn a deadlock into a failure: they are generous because these tests
/// share the cooperative pool's threads (one per core) with other suites' data generation.
@Suite struct LogIngestTests {
    /// The gate opens only once every file is done: with 12 files two at a time, an ingest that
    /// held the files up behind the gate would never get there.
    @Test(.timeLimit(.minutes(15)))
    func filesGoOnWhileTheGateIsClosed() async throws {
        let count = 12
        let gate = Self.gate(openingAfter: count, with: "open")
        var merged: [Int] = []
        try await InOrder.run(count: count, width: 2, gate: gate.open) { index in
            gate.workDone.yield(index)
            return index * 10
        } merge: { (result: Int, gate: String) in
            #expect(gate == "open")
            merged.append(result)
        }
        #expect(merged == (0..<count).map { $0 * 10 })
    }

    /// A merge that writes to a result's array writes to the array the work made: the result
    /// reaches it held once, not copied whole (a file's records are hundreds of megabytes in all).
    @Test func aMergeWritesToTheWorksArrayWithoutCopyingIt() async throws {
        var merged = 0
        try await InOrder.run(count: 6, width: 2) { index in
            let values = [Int](repeating: index, count: 1000)
            return (values: values, address: values.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) })
        } merge: { (result: consuming (values: [Int], address: Int)) in
            let address = result.address
            result.values.withUnsafeMutableBufferPointer { values in
                #expect(Int(bitPattern: values.baseAddress) == address)
                values[0] += 1
            }
            merged += result.values[0]
        }
        #expect(merged == (0..<6).reduce(6, +))
    }

    /// Results that finished before the gate opened are prepared side by side when it does: each
    /// `prepare` here waits for a second one to be under way (the files that waited for the
    /// assignment table have their users mapped on every core, not one after another).
    @Test(.timeLimit(.minutes(15)))
    func resultsThatWaitedForTheGateArePreparedSideBySide() async throws {
        let count = 4
        let gate = Self.gate(openingAfter: count, with: 1)
        let underWay = Mutex((now: 0, most: 0))
        var merged: [Int] = []
        try await InOrder.run(count: count, width: 2, gate: gate.open) { index in
            gate.workDone.yield(index)
            return index * 10
        } prepare: { (result: consuming Int, gate: Int) in
            underWay.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
            }
            // Long: the other suites' blocking work (their `offerlab run` processes on the larger
            // sample) can hold the cooperative pool's other thread for minutes when the whole suite
            // runs on two cores; prepared one after another, the test fails after this wait.
            let deadline = ContinuousClock.now + .seconds(300)
            while underWay.withLock({ $0.most }) < 2 && ContinuousClock.now < deadline { usleep(1000) }
            underWay.withLock { $0.now -= 1 }
            return result + gate
        } merge: { (result: Int, _: Int) in
            merged.append(result)
        }
        #expect(underWay.withLock { $0.most } >= 2)
        #expect(merged == (0..<count).map { $0 * 10 + 1 })
    }

    /// `prepare` writes to the array the work made, before the gate opens and after: the result
    /// reaches it held once, not copied whole.
    @Test(.timeLimit(.minutes(15)))
    func prepareWritesToTheWorksArrayWithoutCopyingIt() async throws {
        let count = 6
        let gate = Self.gate(openingAfter: count / 2, with: 1)
        var merged: [Int] = []
        try await InOrder.run(count: count, width: 2, gate: gate.open) { index in
            let values = [Int](repeating: index, count: 1000)
            gate.workDone.yield(index)
            return (values: values, address: values.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) })
        } prepare: { (result: consuming (values: [Int], address: Int), gate: Int) in
            let address = result.address
            result.values.withUnsafeMutableBufferPointer { values in
                #expect(Int(bitPattern: values.baseAddress) == address)
                values[0] += gate
            }
            return result
        } merge: { (result: (values: [Int], address: Int), _: Int) in
            merged.append(result.values[0])
        }
        #expect(merged == (0..<count).map { $0 + 1 })
    }

    /// A gate for `InOrder.run` that opens, with `value`, once `count` works have said they are
    /// done (`workDone`).
    static func gate<Value: Sendable>(openingAfter count: Int, with value: Value) -> (
        open: @Sendable () async -> Value, workDone: AsyncStream<Int>.Continuation
    ) {
        let (finished, finishing) = AsyncStream<Int>.makeStream()
        return (
            {
                var done = 0
                for await _ in finished {
                    done += 1
                    if done == count { break }
                }
                return value
            }, finishing
        )
    }

    /// Nothing to do is nothing done (an analysis whose offerings have no members has no runs).
    @Test func noIndicesMeansNoWork() async throws {
        var calls = 0
        try await InOrder.run(count: 0, width: 2) { index in
            Issue.record("work for index \(index)")
            return index
        } merge: { (_: Int) in
            calls += 1
        }
        #expect(calls == 0)
    }

    /// The same events whether the table is ready before the first file or after the last.
    @Test func aLateTableGivesTheSameEvents() async throws {
        let early = try await sampleEvents().store
        let late = try await sampleEvents { population in
            Task {
                try await Task.sleep(for: .milliseconds(300))
                return population
            }
        }.store
        #expect(early.count == late.count)
        #expect(early.count > 0)
        for (earlySegment, lateSegment) in zip(early.segments, late.segments) {
            #expect(
                earlySegment.records == lateSegment.records && earlySegment.shapes == lateSegment.shapes
                    && earlySegment.details == lateSegment.details)
        }
    }

    /// A record is 32 bytes; the fields few events have are kept apart. Every event of the
    /// sample with a price, a transaction, a product or a currency has details of its own, in
    /// line order, and no other event has any.
    @Test func onlyEventsWithMoneyTransactionsOrProductsHaveDetails() async throws {
        #expect(MemoryLayout<EventRecord>.stride == 32)
        let store = try await sampleEvents().store
        var withDetails = 0
        var purchases = 0
        store.forEachSegment { _, segment, _ in
            var next: Int32 = 0
            segment.forEachRecord { _, _, shape, details in
                guard shape.hasDetails else {
                    #expect(details == EventRecord.absent)
                    return
                }
                #expect(details == next)
                next += 1
                #expect(segment.details[Int(details)] != .none)
                if shape.eventType == .purchase {
                    purchases += 1
                    #expect(segment.storeDetails(segment.details[Int(details)]).transaction >= 0)
                }
            }
            #expect(Int(next) == segment.details.count)
            withDetails += Int(next)
        }
        #expect(purchases > 0)
        #expect(withDetails > purchases && withDetails < store.count / 2)
    }

    /// One JSON Lines file read in pieces by two parsers (every JSON log of the sample, one after
    /// the other: 33 MB, cut into pieces of a decompressed chunk, 1 MiB) gives the events, the counts and the rejects,
    /// line numbers included, of the file read whole, and clean-up makes the same events of them,
    /// whenever the assignment table is loaded.
    @Test func aFileReadInPiecesGivesTheEventsOfTheFileReadWhole() async throws {
        var job = try JobLoader.load(path: repositoryRoot.appendingPathComponent("jobs/sample.yaml").path)
        let folder = try TemporaryFolder()
        job.inputs.logFiles = [try Self.sampleJSONLogsInOneFile(of: job, at: folder.file("all.jsonl.gz"))]
        let population = try Self.population(of: job)
        var whole = try await LogIngest.read(settings: IngestSettings(job), population: Task { population }, progress: nil, width: 1)
        var inPieces = try await LogIngest.read(
            settings: IngestSettings(job), population: Task { population }, progress: nil, width: 2, pieceSize: 64 << 10)
        // The table loaded while the pieces are read: some are parsed before it, their users
        // resolved afterwards by the parsers or when the file is merged.
        let lateTable = try await LogIngest.read(
            settings: IngestSettings(job),
            population: Task {
                try await Task.sleep(for: .milliseconds(150))
                return population
            }, progress: nil, width: 2, pieceSize: 64 << 10)
        #expect(Self.events(of: lateTable) == Self.events(of: inPieces))
        #expect(whole.segments.count == 1)
        #expect(inPieces.segments.count > 5)
        #expect(whole.count > 30_000)
        #expect(Self.events(of: whole) == Self.events(of: inPieces))
        #expect(whole.counters.rejects.count > 3)
        #expect(whole.counters.rejects.map(\.line) == inPieces.counters.rejects.map(\.line))
        #expect(whole.counters.rejects == inPieces.counters.rejects)
        #expect(whole.counters.malformed == inPieces.counters.malformed)
        #expect(whole.counters.nonBlankLines == inPieces.counters.nonBlankLines)
        #expect(whole.counters.filesRead == 1 && inPieces.counters.filesRead == 1)
        #expect(whole.counters.compressedBytes == inPieces.counters.compressedBytes)
        #expect(whole.counters.uncompressedBytes == inPieces.counters.uncompressedBytes)
        let (wholeEvents, wholeCounters) = EventCleanup.run(store: &whole, userCount: population.users.count)
        let (piecesEvents, piecesCounters) = EventCleanup.run(store: &inPieces, userCount: population.users.count)
        #expect(wholeCounters == piecesCounters)
        #expect(wholeEvents.events == piecesEvents.events)
        #expect(wholeEvents.userStart == piecesEvents.userStart)
        #expect(wholeEvents.details == piecesEvents.details)
    }

    /// A damaged file read in pieces is skipped whole (`on_corrupt_file: skip`), the pieces
    /// parsed before the damage dropped with it, or fails the run naming it.
    @Test func aDamagedFileReadInPiecesIsSkippedWholeOrFails() async throws {
        var job = try JobLoader.load(path: repositoryRoot.appendingPathComponent("jobs/sample.yaml").path)
        let folder = try TemporaryFolder()
        let path = folder.file("damaged.jsonl.gz")
        let writer = try GzipWriter(path: path)
        for user in 0..<20_000 { try writer.write(#"{"ts":"2026-03-05T00:00:00Z","user_id":"u\#(user)","event":"paywall_view"}"# + "\n") }
        try writer.finish()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count - 8] ^= 0xFF  // the CRC-32
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        job.inputs.logFiles = [path]
        let population = try Self.population(of: job)
        job.inputs.onCorruptFile = .skip
        let skipped = try await LogIngest.read(
            settings: IngestSettings(job), population: Task { population }, progress: nil, width: 2, pieceSize: 4096)
        #expect(skipped.count == 0)
        #expect(skipped.counters.filesSkipped.map(\.path) == [path])
        #expect(skipped.counters.filesRead == 0 && skipped.counters.nonBlankLines == 0)
        job.inputs.onCorruptFile = .fail
        let error = await #expect(throws: OfferLabError.self) {
            _ = try await LogIngest.read(
                settings: IngestSettings(job), population: Task { population }, progress: nil, width: 2, pieceSize: 4096)
        }
        #expect(error?.code == .unreadableLog && error?.location.path == path)
        #expect((error?.cause as? IngestError)?.code == .corruptGzip)
    }

    /// A file says how far it has got while it is read, whenever nothing was said for the
    /// reporter's interval (here none, or an hour): read whole or in pieces, JSON Lines or CSV.
    @Test(arguments: [(format: "jsonl", width: 1), ("jsonl", 2), ("csv", 1), ("csv", 2)])
    func aFileBeingReadSaysHowFarItHasGot(format: String, width: Int) async throws {
        var job = try JobLoader.load(path: repositoryRoot.appendingPathComponent("jobs/sample.yaml").path)
        let folder = try TemporaryFolder()
        let path = folder.file("all.\(format).gz")
        if format == "csv" {
            let writer = try GzipWriter(path: path)
            try writer.write("ts,user_id,event\n")
            for user in 0..<30_000 { try writer.write("2026-03-05T00:00:00Z,u\(user),paywall_view\n") }
            try writer.finish()
        } else {
            _ = try Self.sampleJSONLogsInOneFile(of: job, at: path)
        }
        job.inputs.logFiles = [path]
        let population = try Self.population(of: job)
        func lines(quietInterval: TimeInterval) async throws -> [String] {
            let said = Mutex<[String]>([])
            let progress = ProgressReporter(quietInterval: quietInterval) { line in said.withLock { $0.append(line) } }
            _ = try await LogIngest.read(
                settings: IngestSettings(job), population: Task { population }, progress: progress, width: width, pieceSize: 64 << 10)
            return said.withLock { $0 }
        }
        let everyChunk = try await lines(quietInterval: 0)
        let percents = everyChunk.compactMap { line -> Int? in
            guard let match = line.firstMatch(of: /reading log file 1\/1 \(all\.\w+\.gz\): (\d+) % of \d+\.\d MB\n$/) else { return nil }
            return Int(match.1)
        }
        #expect(percents.count >= 3)
        #expect(percents == percents.sorted() && percents.allSatisfy { $0 <= 100 } && (percents.last ?? 0) >= 50)
        #expect(everyChunk.last?.contains("read 1/1 log files") == true)
        #expect(try await lines(quietInterval: 3600).allSatisfy { !$0.contains("reading") })
    }

    /// The cores shared out by the files' sizes: parsers for a file's pieces when its share of
    /// the bytes is worth two cores, rounded (at most four: one thread inflates for all of them), and
    /// decompression ahead of the parsing when there are fewer files than cores.
    @Test(arguments: [
        (cores: 2, sizes: [100], readAhead: true, parsers: [2]), (2, [100, 100], false, [1, 1]),
        (2, Array(repeating: 100, count: 60), false, Array(repeating: 1, count: 60)), (4, [100, 100, 100], true, [1, 1, 1]),
        (4, [100, 100], true, [2, 2]), (16, [100], true, [4]), (1, [100], false, [1]),
        // One large file beside a small one: the large one gets both cores (one-file layout).
        (2, [32, 158], false, [1, 2]), (2, [158, 32], false, [2, 1]), (4, [10, 10, 80], true, [1, 1, 3]),
        // Sizes unknown: shared out evenly.
        (2, [0, 0], false, [1, 1]), (2, [0], true, [2]),
    ])
    func spareCoresGoToParsersOrReadAhead(cores: Int, sizes: [Int], readAhead: Bool, parsers: [Int]) {
        let spare = LogIngest.SpareCores(cores: cores, fileSizes: sizes)
        #expect(spare.readAhead == readAhead)
        #expect(spare.parsers == parsers)
    }

    /// The job's JSON logs (the sample's: 33 MB of text), one after the other in one gzip file at
    /// `path`, which is returned.
    static func sampleJSONLogsInOneFile(of job: Job, at path: String) throws -> String {
        let writer = try GzipWriter(path: path)
        for file in job.inputs.logFiles where LogFileFormat(fileName: file) == .jsonLines {
            try InputFileReader(path: file).forEachChunk { try writer.write($0) }
        }
        try writer.finish()
        return path
    }

    /// The job's population, loaded before its logs are read.
    static func population(of job: Job) throws -> Population {
        let source = try TableSource(path: job.inputs.tablesPath)
        return try Population.load(from: source, catalog: try CatalogLoader.load(from: source), asOf: job.run.night.microseconds)
    }

    /// Every record of the store in order, with the store's ids.
    static func events(of store: EventStore) -> [String] {
        var events: [String] = []
        store.forEachSegment { _, segment, _ in
            segment.forEachRecord { _, record, shape, details in
                let details = details < 0 ? nil : segment.storeDetails(segment.details[Int(details)])
                events.append(
                    "\(record.timestamp) \(String(describing: record.user.populationIndex)) \(String(describing: segment.eventID(record, shape))) \(shape.loggedOffering) \(shape.loggedGroup) \(shape.kind) \(shape.isSandbox) \(String(describing: details))"
                )
            }
        }
        return events
    }
}
