import OfferLabIngest

/// A line rejected as malformed, kept for the rejects file.
public struct RejectedLine: Sendable, Equatable {
    public var file: String
    public var line: Int
    public var reason: MalformedReason
    /// The start of the line as text (invalid UTF-8 replaced).
    public var text: String
}

/// Per-file counters and rejects: added up across files.
struct IngestCounters: Sendable {
    var filesRead = 0
    var filesSkipped: [String] = []
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
///
/// Users too are interned per file, so that a file can be read before the assignment table is:
/// `resolveUsers` then maps them to the population's users.
struct EventBatch: Sendable {
    let fileIndex: Int
    var records: [EventRecord] = []
    /// The file's user ids, until `resolveUsers`.
    var users = ByteStringInterner()
    /// Event ids that are not canonical UUIDs (see `EventIDKey`).
    var eventIDs = ByteStringInterner()
    var transactions = ByteStringInterner()
    /// Products, currencies, logged offering ids and group names.
    var labels = ByteStringInterner()
    var counters = IngestCounters()
    /// Per field, the id the previous line got (see `ByteStringInterner.intern(_:recent:)`).
    private var recent = (user: Int32(-1), product: Int32(-1), currency: Int32(-1), offering: Int32(-1), group: Int32(-1))

    init(fileIndex: Int) { self.fileIndex = fileIndex }

    /// Keeps `record` unless it is at or after `asOf` (dropped without a counter).
    mutating func add(_ record: LogRecord, asOf: Int64) {
        guard record.timestamp < asOf else { return }
        record.text.withUnsafeBytes { text in
            func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: text[range]) }
            func id(_ range: Range<Int>?, in interner: inout ByteStringInterner) -> Int32 {
                guard let range else { return EventRecord.absent }
                return interner.intern(slice(range))
            }
            func label(_ range: Range<Int>?, _ recent: inout Int32) -> Int32 {
                guard let range else { return EventRecord.absent }
                return labels.intern(slice(range), recent: &recent)
            }
            var event = EventRecord(
                timestamp: record.timestamp,
                price: record.price ?? EventRecord.noPrice,
                eventIDHigh: 0, eventIDLow: 0,
                user: users.intern(slice(record.userID), recent: &recent.user),
                transaction: id(record.transactionID, in: &transactions),
                originalTransaction: id(record.originalTransactionID, in: &transactions),
                product: label(record.productID, &recent.product),
                currency: label(record.currency, &recent.currency),
                loggedOffering: label(record.offeringID, &recent.offering),
                loggedGroup: label(record.testGroupID, &recent.group),
                kind: record.eventType?.rawValue ?? EventRecord.unknownKind,
                isSandbox: record.isSandbox,
                eventIDForm: .absent)
            if let range = record.eventID {
                let bytes = slice(range)
                event.eventID = EventIDKey.uuid(bytes) ?? EventIDKey(high: 0, low: UInt64(eventIDs.intern(bytes)), form: .interned)
            }
            records.append(event)
        }
    }

    /// Replaces the file's user ids by indices in the population's user table (`population`),
    /// -1 for users it does not hold: one lookup per distinct user of the file.
    mutating func resolveUsers(_ population: ByteStringInterner) {
        let map = (0..<Int32(users.count)).map { id in users.withBytes(of: id) { population.lookup($0) ?? EventRecord.absent } }
        records.withUnsafeMutableBufferPointer { records in
            for index in records.indices { records[index].user = map[Int(records[index].user)] }
        }
        users = ByteStringInterner()
    }
}

/// Every event of the run, in file order, with interners shared by all files.
///
/// Each file's records stay in their own array (`segments`), so that merging a file neither
/// copies its records nor regrows one large array; record `i` of the run is found through
/// `segmentStarts`.
struct EventStore: Sendable {
    var segments: [[EventRecord]] = []
    /// `segmentStarts[s]` is the run-wide position of `segments[s][0]`; one more entry holds
    /// the number of records.
    var segmentStarts: [Int] = [0]
    var eventIDs = ByteStringInterner()
    var transactions = ByteStringInterner()
    var labels = ByteStringInterner()
    var counters = IngestCounters()

    /// The number of records.
    var count: Int { segmentStarts[segmentStarts.count - 1] }

    /// Appends a file's batch, mapping its ids into the store's interners. Batches must be
    /// appended in file order.
    mutating func append(_ batch: consuming EventBatch, keepRejects: Int) {
        let eventIDMap = Self.remap(batch.eventIDs, into: &eventIDs)
        let transactionMap = Self.remap(batch.transactions, into: &transactions)
        let labelMap = Self.remap(batch.labels, into: &labels)
        var records: [EventRecord] = []
        swap(&records, &batch.records)
        records.withUnsafeMutableBufferPointer { records in
            @inline(__always) func mapped(_ id: Int32, _ map: [Int32]) -> Int32 { id < 0 ? id : map[Int(id)] }
            for index in records.indices {
                records[index].transaction = mapped(records[index].transaction, transactionMap)
                records[index].originalTransaction = mapped(records[index].originalTransaction, transactionMap)
                records[index].product = mapped(records[index].product, labelMap)
                records[index].currency = mapped(records[index].currency, labelMap)
                records[index].loggedOffering = mapped(records[index].loggedOffering, labelMap)
                records[index].loggedGroup = mapped(records[index].loggedGroup, labelMap)
                if records[index].eventIDForm == .interned {
                    records[index].eventIDLow = UInt64(eventIDMap[Int(records[index].eventIDLow)])
                }
            }
        }
        segmentStarts.append(count + records.count)
        segments.append(records)
        counters.add(batch.counters, keep: keepRejects)
    }

    /// Calls `body` with every record and its run-wide position, in file order.
    func forEach(_ body: (_ position: Int, _ record: EventRecord) throws -> Void) rethrows {
        for (segment, records) in segments.enumerated() {
            let start = segmentStarts[segment]
            try records.withUnsafeBufferPointer { records in
                for index in records.indices { try body(start + index, records[index]) }
            }
        }
    }

    private static func remap(_ local: ByteStringInterner, into global: inout ByteStringInterner) -> [Int32] {
        (0..<Int32(local.count)).map { id in local.withBytes(of: id) { global.intern($0) } }
    }
}
