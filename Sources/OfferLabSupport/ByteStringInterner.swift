import COfferLabSystem
import OfferLabIngest

/// Maps byte strings to dense ids `0, 1, 2, …` in order of first appearance, without creating
/// a `String` per lookup.
///
/// Open addressing over a byte arena. The arena holds each string as an entry `[length][id]
/// [bytes]`, and a slot holds 24 bits of the string's hash beside its entry's offset, so a
/// lookup reads one slot and one entry: two cache misses in a table larger than the cache (the
/// population's users), where a separate id and end table would cost a third.
/// `intern` and `lookup` are O(length) expected time; memory is the bytes plus about 32 bytes
/// per distinct string.
public struct ByteStringInterner: Sendable {
    /// Entries back to back: length (UInt32), id (UInt32), then the bytes.
    @usableFromInline var arena: [UInt8] = []
    /// `starts[id]`: where entry `id` begins in `arena`.
    @usableFromInline var starts: [Int] = []
    /// Power-of-two table: `tag << 40 | (offset + 1)`, 0 = empty slot.
    private var slots: [UInt64] = Array(repeating: 0, count: 64)

    @inlinable static var headerSize: Int { 8 }
    private static let offsetMask: UInt64 = (1 << 40) - 1

    public init() {}

    /// An empty interner sized for about `capacity` strings, so that it does not rehash as it
    /// fills (a guess too small only costs the usual regrowth).
    public init(capacity: Int) {
        var slotCount = 64
        while slotCount * 3 < capacity * 4 { slotCount *= 2 }
        // Huge pages (`Array+HugePages`) for the tables of millions of strings, such as the
        // population's users.
        slots = Array(hugePageRepeating: 0, count: slotCount)
        starts = Array(hugePageCapacity: capacity)
    }

    /// An empty interner sized for about `capacity` strings of `bytes` bytes in all, so that
    /// neither its table nor its bytes are regrown and copied as it fills.
    public init(capacity: Int, bytes: Int) {
        self.init(capacity: capacity)
        arena = Array(hugePageCapacity: bytes + capacity * Self.headerSize)
    }

    public var count: Int { starts.count }

    /// Its tables as they are in memory, for `init(tables:)`: the parsed-log cache keeps the
    /// past's interners of hundreds of thousands of ids this way and reads them back without
    /// hashing a string again (docs/performance.md).
    public var tables: (arena: [UInt8], starts: [Int], slots: [UInt64]) { (arena, starts, slots) }

    /// The interner whose `tables` these are (as written by the same build: the cache checks its
    /// entries whole); nil when they cannot be an interner's.
    public init?(tables: (arena: [UInt8], starts: [Int], slots: [UInt64])) {
        let (arena, starts, slots) = tables
        guard slots.count >= 64, slots.count & (slots.count - 1) == 0, starts.count * 4 <= slots.count * 3,
            starts.allSatisfy({ $0 >= 0 && $0 + Self.headerSize <= arena.count })
        else { return nil }
        self.arena = arena
        self.starts = starts
        self.slots = slots
    }

    /// The id of `bytes`, adding it when new.
    public mutating func intern(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        intern(bytes, hash: Self.hash(bytes))
    }

    /// Starts loading the slot where the probe for a string of hash `hash` (`hash(_:)`) begins:
    /// a caller that knows its next strings ahead interns them with `intern(_:hash:)` after
    /// their slots have arrived (in a table larger than the cache, most of an insertion is that
    /// wait).
    public func prefetchSlot(hash: UInt64) {
        slots.withUnsafeBufferPointer { table in
            offerlab_prefetch(table.baseAddress.map { $0 + (Int(truncatingIfNeeded: hash) & (table.count - 1)) })
        }
    }

    /// `intern(_:)` of `bytes` whose hash (`hash(_:)`) is `hash`.
    public mutating func intern(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> Int32 {
        let (found, slot) = probe(bytes, hash: hash)
        if let found { return found }
        let id = starts.count
        let offset = arena.count
        // The entry is put together on the stack and appended at once: one append instead of
        // three, each with its own uniqueness check and copy.
        withUnsafeTemporaryAllocation(byteCount: Self.headerSize + bytes.count, alignment: 8) { entry in
            entry.storeBytes(of: UInt32(truncatingIfNeeded: bytes.count).littleEndian, toByteOffset: 0, as: UInt32.self)
            entry.storeBytes(of: UInt32(truncatingIfNeeded: id).littleEndian, toByteOffset: 4, as: UInt32.self)
            if let source = bytes.baseAddress, let base = entry.baseAddress {
                (base + Self.headerSize).copyMemory(from: source, byteCount: bytes.count)
            }
            arena.append(contentsOf: UnsafeRawBufferPointer(entry))
        }
        starts.append(offset)
        slots[slot] = Self.slotValue(hash: hash, offset: offset)
        if starts.count * 4 > slots.count * 3 { grow() }
        return Int32(id)
    }

    public mutating func intern(_ bytes: ArraySlice<UInt8>) -> Int32 {
        bytes.withUnsafeBytes { intern($0) }
    }

    public mutating func intern(_ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { intern(UnsafeRawBufferPointer($0)) }
    }

    /// The id of `bytes`, or nil when it was never interned.
    public func lookup(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        probe(bytes, hash: Self.hash(bytes)).id
    }

    /// The ids of the strings of `other`, in `other`'s id order, -1 for those this interner does
    /// not hold. Equivalent to `lookup` of each, but the probes of a few strings are started
    /// together (prefetched) so that their cache misses overlap: for a table larger than the
    /// cache, such as the population's users, most of a lookup is waiting for memory.
    public func lookupAll(of other: ByteStringInterner) -> [Int32] {
        var ids = [Int32](repeating: -1, count: other.count)
        var hashes = [UInt64](repeating: 0, count: LookupGroup.capacity)
        other.arena.withUnsafeBytes { otherArena in
            var first = 0
            while first < other.count {
                let count = min(LookupGroup.capacity, other.count - first)
                for index in 0..<count { hashes[index] = Self.hash(Self.entryBytes(otherArena, at: other.starts[first + index])) }
                lookUp(count, hashes: hashes, into: &ids, at: first) { Self.entryBytes(otherArena, at: other.starts[first + $0]) }
                first += count
            }
        }
        return ids
    }

    /// Strings met one at a time, looked up a group at a time (`lookUp(_:into:at:)`) so that
    /// their probes' cache misses overlap: for a caller that need not know a string's id at
    /// once, such as each event's user as a log file is read. Each string is copied in.
    public struct LookupGroup: Sendable {
        public static let capacity = 64
        /// The strings back to back.
        @usableFromInline var bytes: [UInt8] = []
        @usableFromInline var ends: [Int] = []
        private(set) var hashes: [UInt64] = []

        public init() {}

        public var count: Int { ends.count }
        public var isEmpty: Bool { ends.isEmpty }
        public var isFull: Bool { ends.count == Self.capacity }

        /// Adds `string`, whose hash (`hash(_:)`) is `hash`, at index `count`; the group must not
        /// be full.
        public mutating func add(_ string: UnsafeRawBufferPointer, hash: UInt64) {
            bytes.append(contentsOf: string)
            ends.append(bytes.count)
            hashes.append(hash)
        }

        /// Whether the last string added is `string`. Inlinable: asked for every event's user.
        @inlinable @inline(__always)
        public func lastIs(_ string: UnsafeRawBufferPointer) -> Bool {
            guard let end = ends.last else { return false }
            let start = ends.count > 1 ? ends[ends.count - 2] : 0
            return bytes.withUnsafeBytes { ByteStringInterner.equal(UnsafeRawBufferPointer(rebasing: $0[start..<end]), string) }
        }

        public mutating func removeAll() {
            bytes.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            hashes.removeAll(keepingCapacity: true)
        }

        /// Calls `body` with a function that gives the `i`th string.
        fileprivate func withStrings<T>(_ body: ((Int) -> UnsafeRawBufferPointer) -> T) -> T {
            bytes.withUnsafeBytes { bytes in
                body { index in UnsafeRawBufferPointer(rebasing: bytes[(index > 0 ? ends[index - 1] : 0)..<ends[index]]) }
            }
        }
    }

    /// Writes the id of each string of `group` to `ids[first + index]`, -1 for those this
    /// interner does not hold.
    public func lookUp(_ group: LookupGroup, into ids: inout [Int32], at first: Int) {
        group.withStrings { string in lookUp(group.count, hashes: group.hashes, into: &ids, at: first, string: string) }
    }

    /// Writes the id of `string(i)`, whose hash is `hashes[i]`, to `ids[first + i]` for each `i`
    /// below `count`, -1 for those this interner does not hold. The probes' first slots are
    /// loaded together, then the entries they point to, before any is compared.
    @inline(__always)
    private func lookUp(
        _ count: Int, hashes: [UInt64], into ids: inout [Int32], at first: Int, string: (Int) -> UnsafeRawBufferPointer
    ) {
        slots.withUnsafeBufferPointer { table in
            arena.withUnsafeBytes { arena in
                let mask = table.count - 1
                for index in 0..<count { offerlab_prefetch(table.baseAddress.map { $0 + (Int(truncatingIfNeeded: hashes[index]) & mask) }) }
                for index in 0..<count {
                    let hash = hashes[index]
                    let entry = table[Int(truncatingIfNeeded: hash) & mask]
                    if entry != 0 && entry >> 40 == hash >> 40, let base = arena.baseAddress {
                        offerlab_prefetch(base + Int(entry & Self.offsetMask) - 1)
                    }
                }
            }
        }
        for index in 0..<count { ids[first + index] = probe(string(index), hash: hashes[index]).id ?? -1 }
    }

    public func lookup(_ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { lookup(UnsafeRawBufferPointer($0)) }
    }

    /// The id of `bytes` when it is string `recent` (a caller's guess: the id it got last time),
    /// else what `intern` gives; `recent` becomes that id. Consecutive log lines mostly repeat
    /// their user, offering, group and product: one comparison instead of a hash and a probe.
    /// `hash`, when given, is the string's `hash(_:)`. Inlinable: asked for several fields of
    /// every line, mostly answered by the one comparison.
    @inlinable @inline(__always)
    public mutating func intern(_ bytes: UnsafeRawBufferPointer, hash: UInt64? = nil, recent: inout Int32) -> Int32 {
        if isString(recent, bytes) { return recent }
        recent = intern(bytes, hash: hash ?? Self.hash(bytes))
        return recent
    }

    /// Prepares a lookup of `bytes` guessed to be string `recent`: nil when the guess is right
    /// (nothing to look up), else their hash for `intern(_:hash:)`, the probe's slot already
    /// being loaded (`prefetchSlot`) while the caller does other work. (It changes nothing, but is mutating
    /// so that a caller that holds the interner inout lends it without a copy: a copy of a
    /// stored interner retains and releases its arrays, for every line.)
    @inlinable @inline(__always)
    public mutating func prefetch(_ bytes: UnsafeRawBufferPointer, unlessRecent recent: Int32) -> UInt64? {
        if isString(recent, bytes) { return nil }
        let hash = Self.hash(bytes)
        prefetchSlot(hash: hash)
        return hash
    }

    /// Whether `id` is a valid id whose string is `bytes`.
    @inlinable @inline(__always)
    func isString(_ id: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard id >= 0 && id < starts.count else { return false }
        return arena.withUnsafeBytes { arena in Self.equal(Self.entryBytes(arena, at: starts[Int(id)]), bytes) }
    }

    /// Calls `body` with the bytes of string `id`.
    public func withBytes<T>(of id: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try arena.withUnsafeBytes { arena in try body(Self.entryBytes(arena, at: starts[Int(id)])) }
    }

    public func string(of id: Int32) -> String {
        withBytes(of: id) { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: - Internal machinery

    @inline(__always)
    private static func slotValue(hash: UInt64, offset: Int) -> UInt64 {
        (hash >> 40) << 40 | (UInt64(offset) + 1)
    }

    @inlinable @inline(__always)
    static func entryBytes(_ arena: UnsafeRawBufferPointer, at offset: Int) -> UnsafeRawBufferPointer {
        let length = Int(UInt32(littleEndian: arena.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        return UnsafeRawBufferPointer(rebasing: arena[offset + headerSize..<offset + headerSize + length])
    }

    /// The id of `bytes` when present; otherwise the empty slot where it belongs.
    @inline(__always)
    private func probe(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> (id: Int32?, slot: Int) {
        let tag = hash >> 40
        return slots.withUnsafeBufferPointer { table in
            arena.withUnsafeBytes { arena in
                let mask = table.count - 1
                var slot = Int(truncatingIfNeeded: hash) & mask
                while true {
                    let entry = table[slot]
                    if entry == 0 { return (nil, slot) }
                    if entry >> 40 == tag {
                        let offset = Int(entry & Self.offsetMask) - 1
                        if Self.equal(Self.entryBytes(arena, at: offset), bytes) {
                            let id = UInt32(littleEndian: arena.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                            return (Int32(id), slot)
                        }
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
    }

    /// Whether two byte strings are equal, inline (`ShortBytes`: the strings are short ids,
    /// where a call to `memcmp` costs more than the comparison).
    @inlinable @inline(__always)
    static func equal(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        guard left.count == right.count else { return false }
        guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
        return ShortBytes.equal(leftBase, rightBase, left.count)
    }

    /// Doubles the table, hashing every string again (the slots keep only part of the hash).
    private mutating func grow() {
        var newSlots = [UInt64](repeating: 0, count: slots.count * 2)
        let mask = newSlots.count - 1
        arena.withUnsafeBytes { arena in
            for offset in starts {
                let hash = Self.hash(Self.entryBytes(arena, at: offset))
                var slot = Int(truncatingIfNeeded: hash) & mask
                while newSlots[slot] != 0 { slot = (slot + 1) & mask }
                newSlots[slot] = Self.slotValue(hash: hash, offset: offset)
            }
        }
        slots = newSlots
    }

    /// A fast non-cryptographic hash (64-bit multiply-mix over 8-byte words). A string's last
    /// bytes are read as one overlapping word (or, below 8 bytes, two overlapping halves, or its
    /// first, middle and last byte), never byte by byte.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(count)
        guard let base = bytes.baseAddress, count > 0 else { return finish(state) }
        @inline(__always) func word(_ offset: Int) -> UInt64 { base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        @inline(__always) func half(_ offset: Int) -> UInt64 { UInt64(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        @inline(__always) func byte(_ offset: Int) -> UInt64 { UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) }
        let tail: UInt64
        if count >= 8 {
            var offset = 0
            while offset + 8 <= count {
                state = (state ^ word(offset)) &* 0xBF58_476D_1CE4_E5B9
                state ^= state >> 31
                offset += 8
            }
            guard offset < count else { return finish(state) }
            tail = word(count - 8)
        } else if count >= 4 {
            tail = half(0) | half(count - 4) << 32
        } else {
            tail = byte(0) | byte(count / 2) << 8 | byte(count - 1) << 16
        }
        state = (state ^ tail) &* 0x94D0_49BB_1331_11EB
        return finish(state)
    }

    @inline(__always)
    private static func finish(_ state: UInt64) -> UInt64 {
        var state = state ^ state >> 29
        state = state &* 0xBF58_476D_1CE4_E5B9
        return state ^ state >> 32
    }
}
