/// Maps byte strings to dense ids `0, 1, 2, …` in order of first appearance, without creating
/// a `String` per lookup.
///
/// Open addressing over a byte arena. `intern` and `lookup` are O(length) expected time;
/// memory is the bytes themselves plus about 16 bytes per distinct string.
struct ByteStringInterner: Sendable {
    private var arena: [UInt8] = []
    /// `ends[id]` is where string `id` ends in `arena`; it starts at `ends[id - 1]` (or 0).
    private var ends: [Int] = []
    private var hashes: [UInt32] = []
    /// Power-of-two table of `id + 1` (0 = empty slot).
    private var slots: [Int32] = Array(repeating: 0, count: 64)

    init() {}

    var count: Int { ends.count }

    /// The id of `bytes`, adding it when new.
    mutating func intern(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        let hash = Self.hash(bytes)
        var slot = Int(hash) & (slots.count - 1)
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            let id = Int(entry - 1)
            if hashes[id] == hash && equals(id, bytes) { return Int32(id) }
            slot = (slot + 1) & (slots.count - 1)
        }
        let id = ends.count
        arena.append(contentsOf: bytes)
        ends.append(arena.count)
        hashes.append(hash)
        slots[slot] = Int32(id + 1)
        if ends.count * 4 > slots.count * 3 { grow() }
        return Int32(id)
    }

    mutating func intern(_ bytes: ArraySlice<UInt8>) -> Int32 {
        bytes.withUnsafeBytes { intern($0) }
    }

    mutating func intern(_ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { intern(UnsafeRawBufferPointer($0)) }
    }

    /// The id of `bytes`, or nil when it was never interned.
    func lookup(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        let hash = Self.hash(bytes)
        var slot = Int(hash) & (slots.count - 1)
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            let id = Int(entry - 1)
            if hashes[id] == hash && equals(id, bytes) { return Int32(id) }
            slot = (slot + 1) & (slots.count - 1)
        }
    }

    func lookup(_ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { lookup(UnsafeRawBufferPointer($0)) }
    }

    /// Calls `body` with the bytes of string `id`.
    func withBytes<T>(of id: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let index = Int(id)
        let start = index == 0 ? 0 : ends[index - 1]
        return try arena.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<ends[index]])) }
    }

    func string(of id: Int32) -> String {
        withBytes(of: id) { String(decoding: $0, as: UTF8.self) }
    }

    private func equals(_ id: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = id == 0 ? 0 : ends[id - 1]
        let length = ends[id] - start
        guard length == bytes.count else { return false }
        if length == 0 { return true }
        return arena.withUnsafeBytes { arenaBytes in
            memcmp(arenaBytes.baseAddress! + start, bytes.baseAddress!, length) == 0
        }
    }

    private mutating func grow() {
        var newSlots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = newSlots.count - 1
        for id in 0..<ends.count {
            var slot = Int(hashes[id]) & mask
            while newSlots[slot] != 0 { slot = (slot + 1) & mask }
            newSlots[slot] = Int32(id + 1)
        }
        slots = newSlots
    }

    /// A fast non-cryptographic hash (64-bit multiply-mix over 8-byte words), folded to 32 bits.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            state = (state ^ word) &* 0xBF58_476D_1CE4_E5B9
            state ^= state >> 31
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for index in offset..<bytes.count { tail = (tail << 8) | UInt64(bytes[index]) }
            state = (state ^ tail) &* 0x94D0_49BB_1331_11EB
        }
        state ^= state >> 29
        state = state &* 0xBF58_476D_1CE4_E5B9
        state ^= state >> 32
        return UInt32(truncatingIfNeeded: state)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
