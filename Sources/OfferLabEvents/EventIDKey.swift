/// An `event_id`, exactly, in 17 bytes instead of its text.
///
/// Event ids are usually UUIDs: 36 bytes of text per event, the largest part of what a run would
/// otherwise keep. A canonical UUID (`8-4-4-4-12` hex digits) whose letters are all lowercase,
/// or all uppercase, is its 128 bits plus that case: the text can be written back from the key,
/// so two ids have the same key exactly when they are the same text. So are 32 hex digits
/// without dashes (the same 128 bits, in one case), a canonical ULID (26 uppercase Crockford
/// base-32 digits, the first at most 7: 128 bits), and a decimal integer of up to 19 digits
/// without a leading zero (Snowflake-style ids; a JSON number is its text). Any other id (another
/// shape, mixed case, an integer) is kept as text in its file's `EventIDTexts` and keyed by a
/// 64-bit hash of it: two such keys are equal when the hashes are, so deduplication compares
/// their texts too (`EventCleanup`), and two different ids are never merged.
public struct EventIDKey: Hashable, Sendable {
    public enum Form: UInt8, Sendable {
        case absent = 0
        /// A UUID with no uppercase letter (digits only included).
        case lowercaseUUID = 1
        /// A UUID with an uppercase letter and no lowercase one.
        case uppercaseUUID = 2
        /// `high` is a hash of the text (`ByteStringInterner.hash`); in a record, `low` is where
        /// the text is in its file's `EventIDTexts`; in a key compared across files, 0.
        case interned = 3
        /// 32 hex digits without dashes, no uppercase letter / no lowercase one.
        case lowercaseHex32 = 4
        case uppercaseHex32 = 5
        /// `low` is the value of 1 to 19 decimal digits, the first not 0 unless it is the only one.
        case decimal = 6
        /// A ULID in uppercase Crockford base 32 (`0`–`9`, `A`–`Z` without `I`, `L`, `O`, `U`).
        case ulid = 7
    }

    public var high: UInt64
    public var low: UInt64
    public var form: Form

    /// The exact key of a UUID, 32 hex digits, a ULID or a decimal integer (above), or nil for
    /// any other text. Each takes texts of its own length, so equal keys are equal texts.
    @inline(__always)
    public static func exact(_ bytes: UnsafeRawBufferPointer) -> EventIDKey? {
        switch bytes.count {
        case 36: return uuid(bytes)
        case 32: return hex32(bytes)
        case 26: return ulid(bytes)
        case 1...19: return decimal(bytes)
        default: return nil
        }
    }

    /// The key of a canonical UUID's text, or nil for any other text.
    ///
    /// Eight characters at a time (SWAR): a per-byte range check and nibble packing in 64-bit
    /// words, with no branch per character.
    @inline(__always)
    public static func uuid(_ bytes: UnsafeRawBufferPointer) -> EventIDKey? {
        guard bytes.count == 36, bytes[8] == 0x2D, bytes[13] == 0x2D, bytes[18] == 0x2D, bytes[23] == 0x2D else { return nil }
        @inline(__always) func word(_ offset: Int) -> UInt64 { bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        @inline(__always) func half(_ offset: Int) -> UInt64 { UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        // The 32 hex digits as four words of eight characters, in text order.
        let words = (word(0), half(9) | half(14) << 32, half(19) | half(24) << 32, word(28))
        return hexDigits(words, lowercase: .lowercaseUUID, uppercase: .uppercaseUUID)
    }

    /// The key of 32 hex digits given as four words of eight characters, in text order: `lowercase`
    /// or `uppercase` by their letters' case, nil for a non-digit or both cases.
    @inline(__always)
    private static func hexDigits(_ words: (UInt64, UInt64, UInt64, UInt64), lowercase: Form, uppercase: Form) -> EventIDKey? {
        var digits = HexDigits()
        let high = digits.decode(words.0) << 32 | digits.decode(words.1)
        let low = digits.decode(words.2) << 32 | digits.decode(words.3)
        guard digits.allValid else { return nil }
        switch (digits.sawLowercase, digits.sawUppercase) {
        case (_, false): return EventIDKey(high: high, low: low, form: lowercase)
        case (false, true): return EventIDKey(high: high, low: low, form: uppercase)
        case (true, true): return nil
        }
    }
}

extension EventIDKey {
    /// The key of 32 hex digits in one case, or nil for any other text.
    @inline(__always)
    public static func hex32(_ bytes: UnsafeRawBufferPointer) -> EventIDKey? {
        guard bytes.count == 32 else { return nil }
        @inline(__always) func word(_ offset: Int) -> UInt64 { bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        return hexDigits((word(0), word(8), word(16), word(24)), lowercase: .lowercaseHex32, uppercase: .uppercaseHex32)
    }

    /// The key of a canonical ULID, or nil for any other text: lowercase letters and the
    /// letters Crockford reads as digits (`I`, `L`, `O`) are other texts of the same value.
    @inline(__always)
    public static func ulid(_ bytes: UnsafeRawBufferPointer) -> EventIDKey? {
        guard bytes.count == 26, (0x30...0x37).contains(bytes[0]) else { return nil }
        // The table borrowed once: read by name in the loop, its lazy initialization was checked
        // for every character (`swift_once`, 5 % of a run on ULIDs).
        return crockfordValues.withUnsafeBufferPointer { values in
            var high: UInt64 = 0
            var low: UInt64 = 0
            for byte in bytes {
                let value = values[Int(byte)]
                guard value < 32 else { return nil }
                high = high << 5 | low >> 59
                low = low << 5 | UInt64(value)
            }
            return EventIDKey(high: high, low: low, form: .ulid)
        }
    }

    /// Each byte's Crockford base-32 value, 255 for a byte that is no canonical digit.
    private static let crockfordValues: [UInt8] = {
        var values = [UInt8](repeating: 255, count: 256)
        for (value, digit) in "0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8.enumerated() { values[Int(digit)] = UInt8(value) }
        return values
    }()

    /// The key of 1 to 19 decimal digits without a leading zero (`0` itself included), or nil.
    @inline(__always)
    public static func decimal(_ bytes: UnsafeRawBufferPointer) -> EventIDKey? {
        guard (1...19).contains(bytes.count), bytes[0] != 0x30 || bytes.count == 1 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            let digit = byte &- 0x30
            guard digit < 10 else { return nil }
            // 19 digits stay below 2^64.
            value = value &* 10 &+ UInt64(digit)
        }
        return EventIDKey(high: 0, low: value, form: .decimal)
    }
}

/// Decodes eight ASCII hex digits held in a little-endian word, remembering whether every
/// byte was a digit and which letter cases appeared.
private struct HexDigits {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080
    private var invalid: UInt64 = 0
    private var lowercase: UInt64 = 0
    private var uppercase: UInt64 = 0

    public var allValid: Bool { invalid == 0 }
    public var sawLowercase: Bool { lowercase != 0 }
    public var sawUppercase: Bool { uppercase != 0 }

    /// The high bit of each byte of `word` (all below 0x80) set when the byte is at least `bound`.
    @inline(__always)
    private static func atLeast(_ word: UInt64, _ bound: UInt8) -> UInt64 {
        (word &+ ones &* UInt64(0x80 - bound)) & highBits
    }

    /// The 32-bit value of the eight digits, the first character most significant.
    @inline(__always)
    public mutating func decode(_ word: UInt64) -> UInt64 {
        let ascii = word & Self.highBits == 0
        let folded = word | Self.ones &* 0x20
        let digit = Self.atLeast(word, 0x30) & ~Self.atLeast(word, 0x3A)
        let letter = Self.atLeast(folded, 0x61) & ~Self.atLeast(folded, 0x67)
        invalid |= ascii ? (digit | letter) ^ Self.highBits : Self.highBits
        // Bit 0x20 (moved to the high bit) is what tells a lowercase letter from an uppercase one.
        let lowerBit = (word << 2) & Self.highBits
        lowercase |= letter & lowerBit
        uppercase |= letter & ~lowerBit
        // Digits are their low nibble; letters their low nibble plus 9 (`a`/`A` is 1 + 9).
        var nibbles = (word & (Self.ones &* 0x0F)) &+ (letter >> 7) &* 9
        // Text order is byte order: swap so the first character is the most significant byte,
        // then pack the nibbles pairwise.
        nibbles = nibbles.byteSwapped
        nibbles = (nibbles | nibbles >> 4) & 0x00FF_00FF_00FF_00FF
        nibbles = (nibbles | nibbles >> 8) & 0x0000_FFFF_0000_FFFF
        return (nibbles | nibbles >> 16) & 0xFFFF_FFFF
    }
}

/// The texts of a file's event ids that have no exact key (`EventIDKey.Form.interned`), back to
/// back, each after its length (4 bytes): about the text's size per event, nothing to look up
/// while the file is read. Clean-up reads two of them only when their hashes agree.
public struct EventIDTexts: Sendable, Equatable {
    private(set) var bytes: [UInt8] = []

    public init() {}

    /// Texts as `bytes` gave them (the parsed-log cache); nil when they do not end where a text does.
    public init?(bytes: [UInt8]) {
        self.bytes = bytes
        var offset = 0
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { return nil }
            offset += 4 + length(at: offset)
        }
        guard offset == bytes.count else { return nil }
    }

    public var isEmpty: Bool { bytes.isEmpty }

    /// Room for `count` texts of `length` bytes: a file's texts grown by doubling were copied and
    /// their fresh pages zeroed about twice over (a tenth of a run whose ids are all text). Room
    /// never used is never touched.
    public mutating func reserveCapacity(texts count: Int, length: Int) {
        bytes.reserveCapacity(count * (4 + length))
    }

    /// Adds `text`; returns where it is.
    public mutating func append(_ text: UnsafeRawBufferPointer) -> Int {
        let offset = bytes.count
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: text.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: text)
        return offset
    }

    /// Calls `body` with the text at `offset` (a value `append` returned).
    public func withText<T>(at offset: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let length = length(at: offset)
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset + 4..<offset + 4 + length])) }
    }

    private func length(at offset: Int) -> Int {
        Int(UInt32(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }))
    }
}
