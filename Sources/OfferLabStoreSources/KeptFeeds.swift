import OfferLabIngest

/// A store whose feeds (files of several formats that join across files and nights, as Google
/// Play's notifications and Orders) a night keeps resolved in the parsed-log cache together, when
/// they are a job's only store sources (`KeptFeedsNight`, in OfferLabEvents, keeps the entries and
/// the batches; the store keeps what its join needs, as bytes of its own).
package protocol KeptFeedsSource: SendableMetatype {
    /// A file of a feed, read (or read back from its reading's entry).
    associatedtype Reading: Sendable
    /// Its feeds' formats, in `SourceFormat` order.
    static var formats: [SourceFormat] { get }
    /// Per feed, what reading a file depends on beside its bytes (`StoreFileCache.reading`).
    static func cacheSettings(_ settings: StoreSettings) -> [[UInt8]]
    /// The file at `path` of feed `feed` (its index in `formats`).
    /// - Throws: `IngestError`: the file cannot be read or decompressed.
    static func read(_ path: String, feed: Int, input: KeptFeedsInput) async throws -> Reading
    /// The night of `input.paths`, after what an earlier night kept of each feed's first files
    /// (`input.kept`; nil: the whole night), `readings` each feed's files after those; nil when
    /// what the kept files made changes in a way only the whole night tells.
    static func night(_ input: KeptFeedsInput, readings: [[Reading]]) async throws -> KeptFeedsOutcome?
}

/// What a store's kept night is made from.
package struct KeptFeedsInput: Sendable {
    /// Each feed's files, sorted.
    package var paths: [[String]]
    package var kept: KeptFeeds?
    package var storeSettings: StoreSettings
    package var inflater: Inflater
    package var cache: any StoreFileCache
    /// The server's `user_transactions` table.
    package var userTransactions: [String: String]
    /// Microseconds since the epoch: the night's `as_of`.
    package var asOf: Int64
    package var width: Int?

    package init(
        paths: [[String]], kept: KeptFeeds?, storeSettings: StoreSettings, inflater: Inflater, cache: any StoreFileCache,
        userTransactions: [String: String], asOf: Int64, width: Int?
    ) {
        self.paths = paths
        self.kept = kept
        self.storeSettings = storeSettings
        self.inflater = inflater
        self.cache = cache
        self.userTransactions = userTransactions
        self.asOf = asOf
        self.width = width
    }
}

/// What an earlier night kept: the store's state, the segments it names (`KeptRecords`), and each
/// of its groups of files.
package struct KeptFeeds: Sendable {
    package var state: [UInt8]
    package var segments: [KeptSegment]
    package var groups: [Group]

    package struct Group: Sendable {
        /// The store's part of the group's entry.
        package var records: [UInt8]
        /// Of the group's batch: its events at or after its night's `as_of`, and its latest time.
        package var eventsAtOrAfterAsOf: Int
        package var latestTimestamp: Int64

        package init(records: [UInt8], eventsAtOrAfterAsOf: Int, latestTimestamp: Int64) {
            self.records = records
            self.eventsAtOrAfterAsOf = eventsAtOrAfterAsOf
            self.latestTimestamp = latestTimestamp
        }
    }

    package init(state: [UInt8], segments: [KeptSegment], groups: [Group]) {
        self.state = state
        self.segments = segments
        self.groups = groups
    }
}

/// A store's night of its feeds.
package struct KeptFeedsOutcome: Sendable {
    /// Every file of the feeds, feed after feed, each with the events of the groups made tonight.
    package var files: [(path: String, format: SourceFormat, events: [StoreEvent])] = []
    package var counts: [SourceFormat: StoreCounts] = [:]
    package var fileCounts: [String: StoreCounts] = [:]
    package var notes: [StoreLineNote] = []
    /// The groups in the order of the store's state, each a run of `files`: read back (the kept
    /// group's position) or made, with the store's part of its entry.
    package var groups: [(files: Range<Int>, kept: Int?, records: [UInt8])] = []
    /// What the store keeps for a later night, and the segments it names, in its order.
    package var state: [UInt8] = []
    package var segments: [KeptSegmentSource] = []

    package init() {}
}

/// Values by the hash of their id, in an array sorted by hash and searched by bisection: a later
/// night reads the table back as it was written, without making a dictionary of it.
package struct KeptTable<Value: BitwiseCopyable & Sendable>: Sendable {
    package var keys: [IDHash] = []
    package var values: [Value] = []

    package init() {}

    package func position(of key: IDHash) -> Int? {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }

    package func value(_ key: IDHash) -> Value? { position(of: key).map { values[$0] } }

    /// Sets the value of each key of `changes`: in place for a key the table has, inserted in
    /// order for the others.
    package mutating func set(_ changes: [IDHash: Value]) {
        var added: [(key: IDHash, value: Value)] = []
        for (key, value) in changes {
            if let position = position(of: key) { values[position] = value } else { added.append((key, value)) }
        }
        guard !added.isEmpty else { return }
        added.sort { $0.key < $1.key }
        var mergedKeys: [IDHash] = []
        var mergedValues: [Value] = []
        mergedKeys.reserveCapacity(keys.count + added.count)
        mergedValues.reserveCapacity(keys.count + added.count)
        var next = 0
        for (key, value) in zip(keys, values) {
            while next < added.count, added[next].key < key {
                mergedKeys.append(added[next].key)
                mergedValues.append(added[next].value)
                next += 1
            }
            mergedKeys.append(key)
            mergedValues.append(value)
        }
        for (key, value) in added[next...] {
            mergedKeys.append(key)
            mergedValues.append(value)
        }
        keys = mergedKeys
        values = mergedValues
    }

    package func encode(into entry: inout CacheEntryWriter) {
        entry.appendArray(keys)
        entry.appendArray(values)
    }

    package init(entry: inout CacheEntryReader) throws {
        keys = try entry.readArray()
        values = try entry.readArray()
        guard keys.count == values.count, zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) else { throw CacheEntryReader.Damaged() }
    }
}

/// The segments a kept structure's earlier nights left (`KeptRecords`, `KeptColumn`,
/// `KeptHashSet`: an entry each, read back in place), one after the other.
struct KeptSegmentList: Sendable {
    private(set) var segments: [(segment: KeptSegment, start: Int)] = []
    /// Their bytes together.
    private(set) var length = 0

    /// Segments a state may name before a night joins them into one (a year of nights reads back
    /// a few entries a structure, not one a night).
    static let atMost = 16

    init() {}

    /// The segments of `kept` at the positions `encode` wrote, each a whole number of `unit` bytes.
    init(entry: inout CacheEntryReader, kept: [KeptSegment], unit: Int) throws {
        for position in try entry.readArray() as [Int64] {
            guard position >= 0, position < kept.count, kept[Int(position)].bytes.count % unit == 0 else {
                throw CacheEntryReader.Damaged()
            }
            segments.append((kept[Int(position)], length))
            length += kept[Int(position)].bytes.count
        }
    }

    /// The segment holding byte `offset` of them together, and the offset in it.
    func locate(_ offset: Int) -> (bytes: UnsafeRawBufferPointer, offset: Int) {
        var low = 0
        var high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if segments[middle].start <= offset { low = middle } else { high = middle - 1 }
        }
        return (segments[low].segment.bytes, offset - segments[low].start)
    }

    /// Their bytes one after the other, then `added`'s.
    private func joined(with added: [UInt8]) -> [UInt8] {
        var joined: [UInt8] = []
        joined.reserveCapacity(length + added.count)
        for (segment, _) in segments { joined.append(contentsOf: segment.bytes) }
        joined.append(contentsOf: added)
        return joined
    }

    /// Writes the positions in `segmentSources` of these segments and of `added` (tonight's bytes,
    /// when there are any); past `atMost`, of one segment of them all, one after the other, as
    /// `joining` leaves them.
    func encode(
        into entry: inout CacheEntryWriter, added: [UInt8], segmentSources: inout [KeptSegmentSource],
        joining: ([UInt8]) -> [UInt8] = { $0 }
    ) {
        var positions: [Int64] = []
        func name(_ source: KeptSegmentSource) {
            positions.append(Int64(segmentSources.count))
            segmentSources.append(source)
        }
        if segments.count + (added.isEmpty ? 0 : 1) > Self.atMost {
            name(.made(joining(joined(with: added))))
        } else {
            for (segment, _) in segments { name(.kept(segment)) }
            if !added.isEmpty { name(.made(added)) }
        }
        entry.appendArray(positions)
    }
}

/// Records each encoded on its own, read one at a time by index: of a month's records, a later
/// night decodes the few it needs. A record replaced is written again at the end. The records
/// earlier nights kept stay in their segments, so a night writes only the records it adds;
/// offsets count through the segments and on into `bytes`.
package struct KeptRecords: Sendable {
    private var segments = KeptSegmentList()
    /// The records added since they were kept.
    private var bytes: [UInt8] = []
    private var offsets: [Int64] = []

    package init() {}

    package var count: Int { offsets.count }

    /// Appends a record; its index.
    @discardableResult
    package mutating func append(_ encode: (inout CacheEntryWriter) -> Void) -> Int {
        var writer = CacheEntryWriter(bytes: [])
        swap(&writer.bytes, &bytes)
        offsets.append(Int64(segments.length + writer.bytes.count))
        encode(&writer)
        swap(&writer.bytes, &bytes)
        return offsets.count - 1
    }

    /// Writes record `index` again.
    package mutating func replace(_ index: Int, _ encode: (inout CacheEntryWriter) -> Void) {
        let offset = Int64(segments.length + bytes.count)
        append(encode)
        offsets.removeLast()
        offsets[index] = offset
    }

    /// Record `index`; nil when it is not one `decode` reads (a damaged entry).
    package func record<Record>(_ index: Int, _ decode: (inout CacheEntryReader) throws -> Record) -> Record? {
        guard offsets.indices.contains(index) else { return nil }
        func decoded(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Record? {
            var reader = CacheEntryReader(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            return try? decode(&reader)
        }
        let offset = Int(offsets[index])
        if offset >= segments.length { return bytes.withUnsafeBytes { decoded($0, at: offset - segments.length) } }
        let (segment, offsetInSegment) = segments.locate(offset)
        return decoded(segment, at: offsetInSegment)
    }

    /// Writes the offsets and the segments the records are in (joined, the offsets stay as they
    /// are: a segment's records start where the previous one's end).
    package func encode(into entry: inout CacheEntryWriter, segmentSources: inout [KeptSegmentSource]) {
        entry.appendArray(offsets)
        segments.encode(into: &entry, added: bytes, segmentSources: &segmentSources)
    }

    /// - Parameter segments: the segments the state names, in its order.
    package init(entry: inout CacheEntryReader, segments kept: [KeptSegment]) throws {
        offsets = try entry.readArray()
        segments = try KeptSegmentList(entry: &entry, kept: kept, unit: 1)
        guard offsets.allSatisfy({ $0 >= 0 && $0 < segments.length }) else { throw CacheEntryReader.Damaged() }
    }
}

/// Values appended night after night, read by index: the earlier nights' stay in their segments.
package struct KeptColumn<Element: BitwiseCopyable & Sendable>: Sendable {
    private var segments = KeptSegmentList()
    private var keptCount = 0
    private var added: [Element] = []

    package init() {}

    package var count: Int { keptCount + added.count }

    package mutating func append(_ element: Element) { added.append(element) }

    package subscript(index: Int) -> Element {
        if index >= keptCount { return added[index - keptCount] }
        let (bytes, offset) = segments.locate(index * MemoryLayout<Element>.stride)
        return bytes.loadUnaligned(fromByteOffset: offset, as: Element.self)
    }

    /// The indices of the values `matches` accepts.
    package func indices(where matches: (Element) -> Bool) -> [Int] { (0..<count).filter { matches(self[$0]) } }

    package func encode(into entry: inout CacheEntryWriter, segmentSources: inout [KeptSegmentSource]) {
        segments.encode(into: &entry, added: added.withUnsafeBytes { Array($0) }, segmentSources: &segmentSources)
    }

    package init(entry: inout CacheEntryReader, segments kept: [KeptSegment]) throws {
        segments = try KeptSegmentList(entry: &entry, kept: kept, unit: MemoryLayout<Element>.stride)
        keptCount = segments.length / MemoryLayout<Element>.stride
    }
}

/// Hashes kept night after night: each night's sorted in a segment of its own, searched by
/// bisection; those added since, in a set.
package struct KeptHashSet: Sendable {
    private var segments = KeptSegmentList()
    private var added = Set<IDHash>()

    package init() {}

    private static func hashes(in bytes: UnsafeRawBufferPointer) -> Int { bytes.count / MemoryLayout<IDHash>.stride }

    private static func hash(_ index: Int, in bytes: UnsafeRawBufferPointer) -> IDHash {
        bytes.loadUnaligned(fromByteOffset: index * MemoryLayout<IDHash>.stride, as: IDHash.self)
    }

    package func contains(_ key: IDHash) -> Bool {
        if added.contains(key) { return true }
        for (segment, _) in segments.segments {
            let bytes = segment.bytes
            var low = 0
            var high = Self.hashes(in: bytes)
            while low < high {
                let middle = (low + high) / 2
                if Self.hash(middle, in: bytes) < key { low = middle + 1 } else { high = middle }
            }
            if low < Self.hashes(in: bytes), Self.hash(low, in: bytes) == key { return true }
        }
        return false
    }

    /// Adds the keys it does not hold yet (a segment holds each key once).
    package mutating func insert(contentsOf keys: some Sequence<IDHash>) {
        for key in keys where !contains(key) { added.insert(key) }
    }

    package func encode(into entry: inout CacheEntryWriter, segmentSources: inout [KeptSegmentSource]) {
        // Each night's hashes are sorted; joined, they are sorted again as one run.
        segments.encode(into: &entry, added: added.sorted().withUnsafeBytes { Array($0) }, segmentSources: &segmentSources) { all in
            all.withUnsafeBytes { all in (0..<Self.hashes(in: all)).map { Self.hash($0, in: all) } }.sorted().withUnsafeBytes { Array($0) }
        }
    }

    /// - Throws: `CacheEntryReader.Damaged` when a segment is not sorted.
    package init(entry: inout CacheEntryReader, segments kept: [KeptSegment]) throws {
        segments = try KeptSegmentList(entry: &entry, kept: kept, unit: MemoryLayout<IDHash>.stride)
        for (segment, _) in segments.segments {
            for index in 1..<max(Self.hashes(in: segment.bytes), 1) {
                guard Self.hash(index - 1, in: segment.bytes) < Self.hash(index, in: segment.bytes) else {
                    throw CacheEntryReader.Damaged()
                }
            }
        }
    }
}

/// Records an earlier night kept in an entry of its own (`KeptRecords`), read back in place: the
/// entry's bytes mapped, never copied, and unmapped when the segment is released.
package typealias KeptSegment = SharedMemory

/// A segment a state names: one an earlier night kept, or records made tonight, to be kept.
package enum KeptSegmentSource: Sendable {
    case kept(KeptSegment)
    case made([UInt8])
}

// MARK: - Records with their strings in place

extension CacheEntryWriter {
    /// A string or none: its length (`UInt32.max`: none), then its bytes.
    package mutating func append(text: String?) {
        guard var utf8 = text else { return append(UInt32.max) }
        utf8.withUTF8 { bytes in
            append(UInt32(bytes.count))
            self.bytes.append(contentsOf: bytes)
        }
    }

    package mutating func append(_ buyer: StoreBuyer) {
        append(UInt8((buyer.isSandbox ? 1 : 0) | (buyer.isFamilyShared ? 2 : 0)))
        for text in [buyer.userID, buyer.country, buyer.platform, buyer.store] { append(text: text) }
    }

    package mutating func append(optional value: Int64?) {
        append(UInt8(value == nil ? 0 : 1))
        if let value { append(value) }
    }
}

extension CacheEntryReader {
    package mutating func text() throws -> String? {
        let count = try read(UInt32.self)
        if count == UInt32.max { return nil }
        return String(decoding: try bytes(count: Int(count)), as: UTF8.self)
    }

    package mutating func requiredText() throws -> String {
        guard let text = try text() else { throw Damaged() }
        return text
    }

    package mutating func buyer() throws -> StoreBuyer {
        let flags = try read(UInt8.self)
        guard flags < 4 else { throw Damaged() }
        return StoreBuyer(
            userID: try text(), isSandbox: flags & 1 != 0, isFamilyShared: flags & 2 != 0, country: try text(), platform: try text(),
            store: try text())
    }

    package mutating func sourceFormat() throws -> SourceFormat {
        let index = Int(try read(UInt8.self))
        guard index < SourceFormat.allCases.count else { throw Damaged() }
        return SourceFormat.allCases[index]
    }

    package mutating func optionalInt64() throws -> Int64? {
        switch try read(UInt8.self) {
        case 0: return nil
        case 1: return try read(Int64.self)
        default: throw Damaged()
        }
    }
}

extension CacheEntryWriter {
    /// The counters hit, each its index in `StoreCounter.allCases` and its count.
    package mutating func append(_ counts: StoreCounts) {
        let counts = counts.nonZero
        append(Int64(counts.count))
        for (counter, count) in counts {
            append(UInt8(StoreCounter.allCases.firstIndex(of: counter)!))
            append(Int64(count))
        }
    }

    /// Notes without their path (their file's).
    package mutating func append(_ notes: [StoreLineNote]) {
        append(Int64(notes.count))
        for note in notes {
            append(Int64(note.line))
            append(UInt8(StoreCounter.allCases.firstIndex(of: note.counter)!))
            append(bytesOf: note.detail.utf8)
        }
    }
}

extension CacheEntryReader {
    package mutating func string() throws -> String { String(decoding: try bytesWithLength(), as: UTF8.self) }

    package mutating func storeCounter() throws -> StoreCounter {
        let index = Int(try read(UInt8.self))
        guard index < StoreCounter.allCases.count else { throw Damaged() }
        return StoreCounter.allCases[index]
    }

    package mutating func storeCounts() throws -> StoreCounts {
        var counts = StoreCounts()
        for _ in 0..<(try count()) {
            let counter = try storeCounter()
            counts[counter] = Int(try read(Int64.self))
        }
        return counts
    }

    package mutating func notes(path: String) throws -> [StoreLineNote] {
        var notes: [StoreLineNote] = []
        for _ in 0..<(try count()) {
            let line = Int(try read(Int64.self))
            notes.append(StoreLineNote(path: path, line: line, counter: try storeCounter(), detail: try string()))
        }
        return notes
    }
}
