/// Base64 decoding for JWS segments (base64url, unpadded) and `x5c` certificates (standard
/// alphabet, padded).
enum Base64 {
    /// The 6-bit value of each byte, 0xFF where the byte is not in either alphabet. `-`/`_`
    /// (base64url) and `+`/`/` (standard) are both accepted; the caller says which it expects.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// The decoded bytes, or nil when `text` is not base64 of the given alphabet (padding `=` is
    /// optional; a length of 4n+1 characters, or bits left over, is refused).
    static func decode<Text: Collection<UInt8>>(_ text: Text, urlSafe: Bool) -> [UInt8]? {
        var text = Array(text)
        while text.last == UInt8(ascii: "=") { text.removeLast() }
        guard text.count % 4 != 1 else { return nil }
        let (wrong62, wrong63) = urlSafe ? (UInt8(ascii: "+"), UInt8(ascii: "/")) : (UInt8(ascii: "-"), UInt8(ascii: "_"))
        var output = [UInt8]()
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            let value = values[Int(byte)]
            guard value != 0xFF, byte != wrong62, byte != wrong63 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // The bits after the last whole byte must be zero (canonical encoding).
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }
}
