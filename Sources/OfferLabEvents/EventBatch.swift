import OfferLabIngest
import OfferLabJob
import OfferLabStoreSources
import OfferLabSupport

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
public struct IngestCounters: Sendable {
    public var filesRead = 0
    public var filesSkipped: [SkippedFile] = []
    public var nonBlankLines = 0
    public var malformed = [Int](repeating: 0, count: MalformedReason.allCases.count)
    public var rejects: [RejectedLine] = []
    /// Each file with malformed lines, in file order, and how many it has (`LogIngest` fills it
    /// in as files are merged: a file's batches do not know its path).
    public var malformedFiles: [(path: String, lines: Int)] = []
    /// Each file read whole that yielded no valid line, in file order, and its non-blank lines
    /// (all malformed; 0: the file is empty). Filled in by `LogIngest` as `malformedFiles`.
    public var filesWithoutValidLines: [(path: String, lines: Int)] = []
    public var compressedBytes: Int64 = 0
    public var uncompressedBytes: Int64 = 0
    /// What the malformed lines that named money named.
    package var rejectedMoney = RejectedMoney()
    /// Per store source format the job reads (docs/analysis.md §5): the lines of its own files, its
    /// malformed lines by reason and its own counters. Its lines and malformed lines are in the
    /// totals above as well (`addStoreSources`); the events made from its records are no lines.
    public var storeCounts: [SourceFormat: StoreCounts] = [:]
    /// The store sources' rejected or noted lines, at their original file and line: the first
    /// `keep` of each counter (`addStoreSources`).
    public var storeNotes: [StoreLineNote] = []

    public init() {}

    /// Every malformed line: those of the reasons of docs/input-formats.md#malformed-lines (any
    /// source) and the store's own (`malformed_bad_signature`, `malformed_other_app`).
    public var malformedLines: Int { malformed.reduce(0, +) + storeOwnMalformedLines }

    /// The store sources' malformed lines of a reason docs/input-formats.md#malformed-lines does
    /// not have.
    var storeOwnMalformedLines: Int {
        storeCounts.values.reduce(0) { total, counts in
            total + counts.nonZero.reduce(0) { $0 + ($1.counter.isMalformed && $1.counter.malformedReason == nil ? $1.count : 0) }
        }
    }

    /// Counts a malformed line, keeping its text when fewer than `keep` of its reason are kept.
    public mutating func reject(_ reason: MalformedReason, file: String, line: Int, bytes: UnsafeRawBufferPointer, keep: Int) {
        malformed[Int(reason.rawValue)] += 1
        rejectedMoney.count(bytes)
        guard malformed[Int(reason.rawValue)] <= keep else { return }
        let shown = UnsafeRawBufferPointer(rebasing: bytes.prefix(500))
        rejects.append(RejectedLine(file: file, line: line, reason: reason, text: String(decoding: shown, as: UTF8.self)))
    }

    /// Notes the file at `path`, whose batches together have `malformedLines` of `nonBlankLines`:
    /// among `malformedFiles` when it has malformed lines, among `filesWithoutValidLines` when
    /// all its lines are, unless it was `skipped` (its counters are added on their own).
    public mutating func noteFile(_ path: String, malformedLines: Int, nonBlankLines: Int, skipped: Bool) {
        if malformedLines > 0 { malformedFiles.append((path, malformedLines)) }
        if nonBlankLines == malformedLines && !skipped { filesWithoutValidLines.append((path, nonBlankLines)) }
    }

    /// Adds `other`, keeping at most `keep` rejects per reason (earlier files first).
    public mutating func add(_ other: IngestCounters, keep: Int) {
        filesRead += other.filesRead
        filesSkipped += other.filesSkipped
        nonBlankLines += other.nonBlankLines
        compressedBytes += other.compressedBytes
        uncompressedBytes += other.uncompressedBytes
        rejectedMoney.add(other.rejectedMoney)
        for reject in other.rejects where rejects.count(where: { $0.reason == reject.reason }) < keep {
            rejects.append(reject)
        }
        for index in malformed.indices { malformed[index] += other.malformed[index] }
        for (format, counts) in other.storeCounts { storeCounts[format, default: StoreCounts()] += counts }
        for note in other.storeNotes where storeNotes.count(where: { $0.counter == note.counter }) < keep { storeNotes.append(note) }
    }
}

/// The events of one log file, with interners of its own so that files can be read in
/// parallel and merged afterwards (`EventStore.append`).
///
/// Users too are interned per file, so that a file can be read before the assignment table is:
/// `resolveUsers` then maps them to the population's users. A file read once the table is loaded
/// looks its events' users up in the population's as it goes instead (`init(fileIndex:
/// lookingUpUsersIn:)`), never interning them on its own. `UserResolver` does either.
public struct EventBatch: Sendable {
    /// Settable for a batch read back from the cache before its place in the run is known.
    public internal(set) var fileIndex: Int
    public var records: [EventRecord] = []
    /// The records' shapes (`EventRecord.shape`).
    public var shapes = EventShapes()
    /// The details of the records that have any, in their order (`EventShape.hasDetails`).
    public var details: [EventDetails] = []
    /// How the records get their users, and the file's own users until they are resolved.
    var users: UserResolver
    /// Whether the records hold the population's users: `resolveUsers`, or
    /// `finishLookingUpUsers`, has run.
    var usersResolved: Bool { users.isResolved }
    /// Whether each event's user is looked up in the population's as the file is read.
    public var looksUpUsers: Bool { users.looksUp }
    /// Event ids that have no exact key (see `EventIDKey`).
    public var eventIDs = EventIDTexts()
    /// The bits kept of those ids' hashes: all, but for tests that make different ids share
    /// one, to show that deduplication still tells them apart.
    public let eventIDHashMask: UInt64
    public var transactions = ByteStringInterner()
    /// Products, currencies, logged offering ids and group names.
    public var labels = ByteStringInterner()
    public var counters = IngestCounters()
    /// Valid events dropped for being at or after `as_of` (no counter reports them; the
    /// parsed-log cache keeps no file that had any).
    public var eventsAtOrAfterAsOf = 0
    /// The slice fields whose values the events keep (none unless the job slices by them).
    public var keptSliceFields = SliceFields()
    /// Per field, the id the previous line got (see `ByteStringInterner.intern(_:recent:)`).
    private var recent = (
        product: Int32(-1), currency: Int32(-1), offering: Int32(-1), group: Int32(-1), country: Int32(-1), platform: Int32(-1),
        store: Int32(-1)
    )

    /// A batch that interns its events' users on its own, in a table with room for about
    /// `userCapacity` of them (when given), until `resolveUsers`.
    public init(fileIndex: Int, eventIDHashMask: UInt64 = .max, userCapacity: Int? = nil) {
        self.fileIndex = fileIndex
        users = userCapacity.map { UserResolver(capacity: $0) } ?? UserResolver()
        self.eventIDHashMask = eventIDHashMask
    }

    /// A batch whose events' users are looked up in `populationUsers` (the population's) as the
    /// file is read, a group at a time, their probes overlapped (`UserResolver`).
    /// `finishLookingUpUsers` looks up the last ones, once the file is read.
    public init(fileIndex: Int, lookingUpUsersIn populationUsers: ByteStringInterner) {
        self.fileIndex = fileIndex
        users = UserResolver(lookingUpIn: populationUsers)
        eventIDHashMask = .max
    }

    /// Keeps the record unless it is at or after `asOf` (dropped, only counted for the cache).
    /// The record is read through its pointer, not copied (see `LogFileScanner.scan`).
    public mutating func add(_ record: UnsafePointer<LogRecord>, asOf: Int64) {
        guard record.pointee.timestamp < asOf else {
            eventsAtOrAfterAsOf += 1
            return
        }
        record.pointee.withTextBytes { text in
            func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: text[range]) }
            func id(_ range: Range<Int>?, in interner: inout ByteStringInterner) -> Int32 {
                guard let range else { return EventRecord.absent }
                return interner.intern(slice(range))
            }
            func label(_ range: Range<Int>?, _ recent: inout Int32) -> Int32 {
                guard let range else { return EventRecord.absent }
                return labels.intern(slice(range), recent: &recent)
            }
            // The user's probe is started first, and finished once the rest of the event is built.
            let user = slice(record.pointee.userID)
            let startedUser = users.start(user, records: &records)
            let loggedOffering = label(record.pointee.offeringID, &recent.offering)
            let loggedGroup = label(record.pointee.testGroupID, &recent.group)
            var country = EventRecord.absent
            var platform = EventRecord.absent
            if !keptSliceFields.isEmpty {
                if keptSliceFields.contains(.country) { country = label(record.pointee.country, &recent.country) }
                if keptSliceFields.contains(.platform) { platform = label(record.pointee.platform, &recent.platform) }
            }
            let hasDetails =
                record.pointee.price != nil || record.pointee.transactionID != nil || record.pointee.originalTransactionID != nil
                || record.pointee.productID != nil || record.pointee.currency != nil || record.pointee.expiresAt != nil
                || record.pointee.store != nil || record.pointee.taxShare != nil || record.pointee.commissionShare != nil
            if hasDetails {
                details.append(
                    EventDetails(
                        price: record.pointee.price ?? EventRecord.noPrice,
                        transaction: id(record.pointee.transactionID, in: &transactions),
                        originalTransaction: id(record.pointee.originalTransactionID, in: &transactions),
                        product: label(record.pointee.productID, &recent.product),
                        currency: label(record.pointee.currency, &recent.currency),
                        expiresAt: record.pointee.expiresAt ?? EventRecord.noTime, store: label(record.pointee.store, &recent.store),
                        fees: FeeShares(
                            tax: record.pointee.taxShare ?? EventRecord.absent,
                            commission: record.pointee.commissionShare ?? EventRecord.absent)))
            }
            var eventID = EventIDKey(high: 0, low: 0, form: .absent)
            if let range = record.pointee.eventID {
                let bytes = slice(range)
                if let exact = EventIDKey.exact(bytes) {
                    eventID = exact
                } else {
                    let hash = ByteStringInterner.hash(bytes)
                    // Room for as many texts as the records have, each as long as the first.
                    if eventIDs.isEmpty { eventIDs.reserveCapacity(texts: records.capacity, length: bytes.count) }
                    eventID = EventIDKey(
                        high: hash & eventIDHashMask, low: UInt64(eventIDs.append(bytes)), form: .interned)
                }
            }
            let shape = shapes.id(
                of: EventShape(
                    loggedOffering: loggedOffering, loggedGroup: loggedGroup, country: country, platform: platform,
                    kind: record.pointee.eventType?.rawValue ?? EventRecord.unknownKind, isSandbox: record.pointee.isSandbox,
                    eventIDForm: eventID.form, hasDetails: hasDetails))
            records.append(
                EventRecord(
                    timestamp: record.pointee.timestamp, eventIDHigh: eventID.high, eventIDLow: eventID.low,
                    user: users.finish(user, startedUser), shape: shape))
        }
    }

    /// Looks up the users still pending once the file is read (a batch made with
    /// `init(fileIndex:lookingUpUsersIn:)`): the records then hold the population's users.
    public mutating func finishLookingUpUsers() {
        users.finishLookingUp(&records)
    }

    /// Replaces the file's own users in the records by the population's (`population`'s
    /// users), `UserReference.unassigned` for users it does not hold: one lookup per distinct
    /// user of the file. Once only.
    public mutating func resolveUsers(_ population: ByteStringInterner) {
        users.resolve(&records, in: population)
    }
}

/// Every event of the run, in file order, with interners shared by all files.
///
/// Each file's records stay as they were read, in their own array with their file's ids
/// (`Segment`): merging a file copies nothing and rewrites nothing; its ids are translated
/// into the store's when clean-up reads them. Record `i` of the run is found through
/// `segmentStarts`.
public struct EventStore: Sendable {
    /// One file's records, their shapes (with the store's label ids once merged), the maps
    /// from its interners' other ids to the store's, and its own event id texts.
    public struct Segment: Sendable {
        public var records: [EventRecord]
        public var shapes: [EventShape]
        /// The store's id of each of `shapes` (`EventStore.shapes`).
        public var shapeMap: [Int32]
        public var details: [EventDetails]
        /// The file's event ids that have no exact key (`EventIDKey.Form.interned`), kept per file:
        /// clean-up compares two of them only when their hashes agree.
        public var eventIDs: EventIDTexts
        public var transactionMap: [Int32]
        public var labelMap: [Int32]

        public init(
            records: [EventRecord], shapes: [EventShape], shapeMap: [Int32], details: [EventDetails], eventIDs: EventIDTexts,
            transactionMap: [Int32], labelMap: [Int32]
        ) {
            self.records = records
            self.shapes = shapes
            self.shapeMap = shapeMap
            self.details = details
            self.eventIDs = eventIDs
            self.transactionMap = transactionMap
            self.labelMap = labelMap
        }

        /// Replaces the file's label ids in `shapes` by the store's (once, as the file is merged).
        public mutating func labelShapesWithStoreIDs() {
            shapes = shapes.map { shape in
                var shape = shape
                shape.loggedOffering = label(shape.loggedOffering)
                shape.loggedGroup = label(shape.loggedGroup)
                shape.country = label(shape.country)
                shape.platform = label(shape.platform)
                return shape
            }
        }

        /// Calls `body` with every record in order, its shape, and the index of its details in
        /// `details` (-1 when it has none): a record finds its details by its order. Inlinable, so
        /// that clean-up's per-record closures are inlined into its loops, not called per record.
        @inlinable @inline(__always)
        public func forEachRecord(_ body: (_ index: Int, _ record: EventRecord, _ shape: EventShape, _ details: Int32) throws -> Void)
            rethrows
        {
            try records.withUnsafeBufferPointer { records in
                try shapes.withUnsafeBufferPointer { shapes in
                    var nextDetails: Int32 = 0
                    for index in records.indices {
                        let record = records[index]
                        let shape = shapes[Int(record.shape)]
                        var details = EventRecord.absent
                        if shape.hasDetails {
                            details = nextDetails
                            nextDetails += 1
                        }
                        try body(index, record, shape, details)
                    }
                }
            }
        }

        /// The record's `event_id` key as compared across files: for an `interned` id, its hash
        /// alone (equal keys of that form are then told apart by `withEventIDText`).
        @inline(__always)
        public func eventID(_ record: EventRecord, _ shape: EventShape) -> EventIDKey? {
            Self.eventID(record, form: shape.eventIDForm)
        }

        /// The `event_id` key, as compared across files, of a record whose id has `form`.
        @inline(__always)
        public static func eventID(_ record: EventRecord, form: EventIDKey.Form) -> EventIDKey? {
            switch form {
            case .absent: return nil
            case .interned: return EventIDKey(high: record.eventIDHigh, low: 0, form: .interned)
            case .lowercaseUUID, .uppercaseUUID, .lowercaseHex32, .uppercaseHex32, .decimal, .ulid:
                return EventIDKey(high: record.eventIDHigh, low: record.eventIDLow, form: form)
            }
        }

        /// Calls `body` with the text of a record's `interned` event id.
        public func withEventIDText<T>(_ record: EventRecord, _ body: (UnsafeRawBufferPointer) -> T) -> T {
            eventIDs.withText(at: Int(truncatingIfNeeded: record.eventIDLow), body)
        }

        /// The store's id of a transaction of the file, -1 when absent.
        @inline(__always)
        public func transaction(_ id: Int32) -> Int32 {
            id < 0 ? id : transactionMap[Int(id)]
        }

        /// Details with the store's ids.
        @inline(__always)
        public func storeDetails(_ details: EventDetails) -> EventDetails {
            EventDetails(
                price: details.price, transaction: transaction(details.transaction),
                originalTransaction: transaction(details.originalTransaction), product: label(details.product),
                currency: label(details.currency), expiresAt: details.expiresAt, store: label(details.store), fees: details.fees)
        }

        /// The store's id of a label of the file, -1 when absent.
        @inline(__always)
        private func label(_ id: Int32) -> Int32 { id < 0 ? id : labelMap[Int(id)] }
    }

    public var segments: [Segment] = []
    /// `segmentStarts[s]` is the run-wide position of `segments[s].records[0]`; one more entry
    /// holds the number of records.
    public var segmentStarts: [Int] = [0]
    public var transactions = ByteStringInterner()
    public var labels = ByteStringInterner()
    /// Every file's shapes, with the store's label ids.
    public var shapes = EventShapes()
    public var counters = IngestCounters()

    /// The number of records.
    public var count: Int { segmentStarts[segmentStarts.count - 1] }

    /// The latest event's time; nil without events. A pass over every record (once a night).
    public var latestTimestamp: Int64? {
        guard count > 0 else { return nil }
        var latest = Int64.min
        for segment in segments {
            segment.records.withUnsafeBufferPointer { records in
                for record in records { latest = max(latest, record.timestamp) }
            }
        }
        return latest
    }

    /// Appends a file's batch, adding its transactions and labels to the store's interners. Batches must be
    /// appended in file order, their users resolved.
    public mutating func append(_ batch: consuming EventBatch, keepRejects: Int) {
        precondition(batch.usersResolved, "a batch's users are resolved before it is stored")
        var segment = Segment(
            records: batch.records, shapes: batch.shapes.all, shapeMap: [], details: batch.details,
            eventIDs: batch.eventIDs, transactionMap: Self.remap(batch.transactions, into: &transactions),
            labelMap: Self.remap(batch.labels, into: &labels))
        segment.labelShapesWithStoreIDs()
        segment.shapeMap = segment.shapes.map { shapes.id(of: $0) }
        segmentStarts.append(count + segment.records.count)
        segments.append(segment)
        counters.add(batch.counters, keep: keepRejects)
    }

    /// Calls `body` with every segment of `range` (all by default), its records and the
    /// run-wide position of its first record, in file order.
    public func forEachSegment(
        in range: Range<Int>? = nil, _ body: (_ start: Int, _ segment: Segment, _ records: UnsafeBufferPointer<EventRecord>) throws -> Void
    ) rethrows {
        for index in range ?? segments.indices {
            try segments[index].records.withUnsafeBufferPointer { try body(segmentStarts[index], segments[index], $0) }
        }
    }

    private static func remap(_ local: ByteStringInterner, into global: inout ByteStringInterner) -> [Int32] {
        (0..<Int32(local.count)).map { id in local.withBytes(of: id) { global.intern($0) } }
    }
}
