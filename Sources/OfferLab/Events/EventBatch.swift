import OfferLabIngest

/// A line rejected as malformed, kept for the rejects file.
public struct RejectedLine: Sendable, Equatable {
    public var file: String
    public var line: Int
    public var reason: MalformedReason
    /// The start of the line as text (invalid UTF-8 replaced).
    public var text: String
}

/// A log file left out whole because its gzip data is corrupt (`on_corrupt_file: skip`).
public struct SkippedFile: Sendable, Equatable {
    public var path: String
    /// What is wrong with it (the reader's message, with the compressed byte offset).
    public var error: String
}

/// Per-file counters and rejects: added up across files.
struct IngestCounters: Sendable {
    var filesRead = 0
    var filesSkipped: [SkippedFile] = []
    var nonBlankLines = 0
    var malformed = [Int](repeating: 0, count: MalformedReason.allCases.count)
    var rejects: [RejectedLine] = []
    var compressedBytes: Int64 = 0
    var uncompressedBytes: Int64 = 0

    var malformedLines: Int { malformed.reduce(0, +) }

    /// Counts a malformed line, keeping its text when fewer than `keep` of its reason are kept.
    mutating func reject(_ reason: MalformedReason, file: String, line: Int, bytes: UnsafeRawBufferPointer, keep: Int) {
        malformed[Int(reason.rawValue)] += 1
        guard malformed[Int(reason.rawValue)] <= keep else { return }
        let shown = UnsafeRawBufferPointer(rebasing: bytes.prefix(500))
        rejects.append(RejectedLine(file: file, line: line, reason: reason, text: String(decoding: shown, as: UTF8.self)))
    }

    /// Adds `other`, keeping at most `keep` rejects per reason (earlier files first).
    mutating func add(_ other: IngestCounters, keep: Int) {
        filesRead += other.filesRead
        filesSkipped += other.filesSkipped
        nonBlankLines += other.nonBlankLines
        compressedBytes += other.compressedBytes
        uncompressedBytes += other.uncompressedBytes
        for reject in other.rejects where rejects.count(where: { $0.reason == reject.reason }) < keep {
            rejects.append(reject)
        }
        for index in malformed.indices { malformed[index] += other.malformed[index] }
    }
}

/// The events of one log file, with interners of its own so that files can be read in
/// parallel and merged afterwards (`EventStore.append`).
struct EventBatch: Sendable {
    let fileIndex: Int
    var records: [EventRecord] = []
    var eventIDs = ByteStringInterner()
    var transactions = ByteStringInterner()
    /// Products, currencies, logged offering ids and group names.
    var labels = ByteStringInterner()
    var counters = IngestCounters()

    init(fileIndex: Int) { self.fileIndex = fileIndex }

    /// Keeps `record` unless it is at or after `asOf` (dropped without a counter).
    /// `users` is the population's user table, read-only while logs are read.
    mutating func add(_ record: LogRecord, line: Int, asOf: Int64, users: ByteStringInterner) {
        guard record.timestamp < asOf else { return }
        record.text.withUnsafeBytes { text in
            func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: text[range]) }
            func id(_ range: Range<Int>?, in interner: inout ByteStringInterner) -> Int32 {
                guard let range else { return EventRecord.absent }
                return interner.intern(slice(range))
            }
            records.append(
                EventRecord(
                    timestamp: record.timestamp,
                    sequence: Int64(fileIndex) << 32 | Int64(line),
                    price: record.price ?? EventRecord.noPrice,
                    user: users.lookup(slice(record.userID)) ?? EventRecord.absent,
                    eventID: id(record.eventID, in: &eventIDs),
                    transaction: id(record.transactionID, in: &transactions),
                    originalTransaction: id(record.originalTransactionID, in: &transactions),
                    product: id(record.productID, in: &labels),
                    currency: id(record.currency, in: &labels),
                    loggedOffering: id(record.offeringID, in: &labels),
                    loggedGroup: id(record.testGroupID, in: &labels),
                    kind: record.eventType?.rawValue ?? EventRecord.unknownKind,
                    isSandbox: record.isSandbox))
        }
    }
}

/// Every event of the run, in file order, with interners shared by all files.
struct EventStore: Sendable {
    var records: [EventRecord] = []
    var eventIDs = ByteStringInterner()
    var transactions = ByteStringInterner()
    var labels = ByteStringInterner()
    var counters = IngestCounters()

    /// Appends a file's batch, mapping its ids into the store's interners. Batches must be
    /// appended in file order.
    mutating func append(_ batch: EventBatch, keepRejects: Int) {
        let eventIDMap = Self.remap(batch.eventIDs, into: &eventIDs)
        let transactionMap = Self.remap(batch.transactions, into: &transactions)
        let labelMap = Self.remap(batch.labels, into: &labels)
        func mapped(_ id: Int32, _ map: [Int32]) -> Int32 { id < 0 ? id : map[Int(id)] }
        records.reserveCapacity(records.count + batch.records.count)
        for var record in batch.records {
            record.eventID = mapped(record.eventID, eventIDMap)
            record.transaction = mapped(record.transaction, transactionMap)
            record.originalTransaction = mapped(record.originalTransaction, transactionMap)
            record.product = mapped(record.product, labelMap)
            record.currency = mapped(record.currency, labelMap)
            record.loggedOffering = mapped(record.loggedOffering, labelMap)
            record.loggedGroup = mapped(record.loggedGroup, labelMap)
            records.append(record)
        }
        counters.add(batch.counters, keep: keepRejects)
    }

    private static func remap(_ local: ByteStringInterner, into global: inout ByteStringInterner) -> [Int32] {
        (0..<Int32(local.count)).map { id in local.withBytes(of: id) { global.intern($0) } }
    }
}
