/// Base64 decoding for JWS segments (base64url, unpadded) and `x5c` certificates (standard
/// alphabet, padded).
enum Base64 {
    /// The 6-bit value of each byte: 0x40 marks a byte of neither alphabet, 0x80 added marks
    /// a byte of the base64url alphabet only (`-`, `_`), 0x40 + 0x80 of the standard one only.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0x40, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        table[Int(UInt8(ascii: "+"))] = 62 | 0xC0
        table[Int(UInt8(ascii: "/"))] = 63 | 0xC0
        table[Int(UInt8(ascii: "-"))] = 62 | 0x80
        table[Int(UInt8(ascii: "_"))] = 63 | 0x80
        return table
    }()

    /// The decoded bytes, or nil when `text` is not base64 of the given alphabet (padding `=` is
    /// optional; a length of 4n+1 characters, or bits left over, is refused).
    static func decode(_ text: UnsafeBufferPointer<UInt8>, urlSafe: Bool) -> [UInt8]? {
        var count = text.count
        while count > 0, text[count - 1] == UInt8(ascii: "=") { count -= 1 }
        guard count % 4 != 1 else { return nil }
        // A byte of the other alphabet has this flag pattern in the table.
        let foreign: UInt8 = urlSafe ? 0xC0 : 0x80
        return values.withUnsafeBufferPointer { table -> [UInt8]? in
            var failed = false
            let output = [UInt8](unsafeUninitializedCapacity: count * 3 / 4) { buffer, written in
                var accumulator: UInt32 = 0
                var bits: UInt32 = 0
                var out = 0
                for index in 0..<count {
                    var value = table[Int(text[index])]
                    if value >= 0x40 {
                        guard value != 0x40, value & 0xC0 != foreign else {
                            failed = true
                            break
                        }
                        value &= 0x3F
                    }
                    accumulator = accumulator << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        buffer[out] = UInt8(truncatingIfNeeded: accumulator >> bits)
                        out += 1
                    }
                }
                // The bits after the last whole byte must be zero (canonical encoding).
                if accumulator & ((1 << bits) - 1) != 0 { failed = true }
                written = out
            }
            return failed ? nil : output
        }
    }

    static func decode(_ text: some StringProtocol, urlSafe: Bool) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode($0, urlSafe: urlSafe) }
    }
}
