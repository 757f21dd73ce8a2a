/// Appending text to byte buffers without creating `String`s: the hot path of the generator.
extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendASCII(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// `value` in decimal, left-padded with zeros to `width` digits.
    mutating func appendDigits(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<Swift.max(width, 1) { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            append(UInt8(truncatingIfNeeded: 48 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    mutating func appendDecimal(_ value: UInt64) {
        if value < 10 {
            append(UInt8(truncatingIfNeeded: 48 + value))
            return
        }
        let start = count
        var rest = value
        while rest > 0 {
            append(UInt8(truncatingIfNeeded: 48 + rest % 10))
            rest /= 10
        }
        self[start..<count].reverse()
    }

    mutating func appendDecimal(_ value: Int64) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            appendDecimal(value.magnitude)
        } else {
            appendDecimal(UInt64(value))
        }
    }

    mutating func appendDecimal(_ value: Int) {
        appendDecimal(Int64(value))
    }

    /// A money amount given in minor units (`799` with exponent 2 is `7.99`; JPY has exponent 0).
    mutating func appendMoney(minorUnits: Int64, exponent: Int) {
        if minorUnits < 0 { append(UInt8(ascii: "-")) }
        let magnitude = minorUnits.magnitude
        guard exponent > 0 else {
            appendDecimal(magnitude)
            return
        }
        var scale: UInt64 = 1
        for _ in 0..<exponent { scale *= 10 }
        appendDecimal(magnitude / scale)
        append(UInt8(ascii: "."))
        appendDigits(Int(magnitude % scale), width: exponent)
    }

    /// A 128-bit value as a version-4 UUID (`xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`).
    mutating func appendUUID(high: UInt64, low: UInt64) {
        let (high, low) = Self.uuidV4Bits(high: high, low: low)
        appendHex(high >> 32, digits: 8)
        append(UInt8(ascii: "-"))
        appendHex(high >> 16, digits: 4)
        append(UInt8(ascii: "-"))
        appendHex(high, digits: 4)
        append(UInt8(ascii: "-"))
        appendHex(low >> 48, digits: 4)
        append(UInt8(ascii: "-"))
        appendHex(low, digits: 12)
    }

    /// 128 random bits with a version-4 UUID's version and variant bits set (122 stay random).
    static func uuidV4Bits(high: UInt64, low: UInt64) -> (high: UInt64, low: UInt64) {
        ((high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000, (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
    }

    /// The low `digits` hex digits of `value`, lowercase.
    mutating func appendHex(_ value: UInt64, digits: Int) {
        var shift = (digits - 1) * 4
        while shift >= 0 {
            let nibble = UInt8(truncatingIfNeeded: (value >> UInt64(shift)) & 0xF)
            append(nibble < 10 ? 48 + nibble : 87 + nibble)
            shift -= 4
        }
    }
}

extension String {
    /// The UTF-8 bytes of the string, for the catalogue's precomputed names.
    var bytes: [UInt8] { Array(utf8) }
}
