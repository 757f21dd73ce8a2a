/// The oracle of the `json-line` target: a deliberately plain JSON reader (recursive descent over
/// an array, no speed tricks) with the rules `JSONLineParser` documents: RFC 8259, valid UTF-8,
/// `\uD800`–`\uDFFF` only as a surrogate pair.
enum ReferenceJSON {
    enum Value: Equatable {
        /// Decoded UTF-8.
        case string([UInt8])
        /// The number's text.
        case number([UInt8], isInteger: Bool)
        case null
        /// `true`, `false`, an object or an array.
        case other
    }

    /// The members of the top-level object, in order; nil when `bytes` is not one JSON object.
    static func members(_ bytes: [UInt8]) -> [(key: [UInt8], value: Value)]? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var reader = Reader(bytes: bytes)
        reader.whitespace()
        guard reader.peek() == UInt8(ascii: "{") else { return nil }
        var members: [(key: [UInt8], value: Value)] = []
        guard reader.object(members: &members) else { return nil }
        reader.whitespace()
        return reader.index == bytes.count ? members : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func whitespace() {
            while let c = peek(), c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { index += 1 }
        }

        mutating func expect(_ c: UInt8) -> Bool {
            guard peek() == c else { return false }
            index += 1
            return true
        }

        /// At `{`. Collects the members when `members` is given.
        mutating func object(members: inout [(key: [UInt8], value: Value)]) -> Bool {
            guard expect(UInt8(ascii: "{")) else { return false }
            whitespace()
            if expect(UInt8(ascii: "}")) { return true }
            while true {
                whitespace()
                guard let key = string() else { return false }
                whitespace()
                guard expect(UInt8(ascii: ":")) else { return false }
                whitespace()
                guard let value = value() else { return false }
                members.append((key, value))
                whitespace()
                if expect(UInt8(ascii: "}")) { return true }
                guard expect(UInt8(ascii: ",")) else { return false }
            }
        }

        mutating func array() -> Bool {
            guard expect(UInt8(ascii: "[")) else { return false }
            whitespace()
            if expect(UInt8(ascii: "]")) { return true }
            while true {
                whitespace()
                guard value() != nil else { return false }
                whitespace()
                if expect(UInt8(ascii: "]")) { return true }
                guard expect(UInt8(ascii: ",")) else { return false }
            }
        }

        mutating func value() -> Value? {
            switch peek() {
            case UInt8(ascii: "\""):
                return string().map { .string($0) }
            case UInt8(ascii: "{"):
                var ignored: [(key: [UInt8], value: Value)] = []
                return object(members: &ignored) ? .other : nil
            case UInt8(ascii: "["):
                return array() ? .other : nil
            case UInt8(ascii: "t"):
                return literal("true") ? .other : nil
            case UInt8(ascii: "f"):
                return literal("false") ? .other : nil
            case UInt8(ascii: "n"):
                return literal("null") ? .null : nil
            default:
                return number()
            }
        }

        mutating func literal(_ word: String) -> Bool {
            let word = Array(word.utf8)
            guard index + word.count <= bytes.count, Array(bytes[index..<index + word.count]) == word else { return false }
            index += word.count
            return true
        }

        mutating func digits() -> Int {
            let start = index
            while let c = peek(), c >= 0x30, c <= 0x39 { index += 1 }
            return index - start
        }

        mutating func number() -> Value? {
            let start = index
            _ = expect(UInt8(ascii: "-"))
            if expect(UInt8(ascii: "0")) {
                // A leading zero stands alone.
            } else if let c = peek(), c >= 0x31, c <= 0x39 {
                _ = digits()
            } else {
                return nil
            }
            var isInteger = true
            if expect(UInt8(ascii: ".")) {
                guard digits() > 0 else { return nil }
                isInteger = false
            }
            if expect(UInt8(ascii: "e")) || expect(UInt8(ascii: "E")) {
                if !expect(UInt8(ascii: "+")) { _ = expect(UInt8(ascii: "-")) }
                guard digits() > 0 else { return nil }
                isInteger = false
            }
            return .number(Array(bytes[start..<index]), isInteger: isInteger)
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for c in bytes[index..<index + 4] {
                guard let digit = Int(String(UnicodeScalar(c)), radix: 16) else { return nil }
                value = value * 16 + UInt32(digit)
            }
            index += 4
            return value
        }

        /// At `"`: the decoded string.
        mutating func string() -> [UInt8]? {
            guard expect(UInt8(ascii: "\"")) else { return nil }
            var decoded: [UInt8] = []
            while let c = peek() {
                index += 1
                switch c {
                case UInt8(ascii: "\""):
                    return decoded
                case UInt8(ascii: "\\"):
                    guard let escape = peek() else { return nil }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                    case UInt8(ascii: "b"): decoded.append(0x08)
                    case UInt8(ascii: "f"): decoded.append(0x0C)
                    case UInt8(ascii: "n"): decoded.append(0x0A)
                    case UInt8(ascii: "r"): decoded.append(0x0D)
                    case UInt8(ascii: "t"): decoded.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let unit = hex4() else { return nil }
                        var scalar = unit
                        if (0xD800...0xDBFF).contains(unit) {
                            guard expect(UInt8(ascii: "\\")), expect(UInt8(ascii: "u")), let low = hex4(),
                                (0xDC00...0xDFFF).contains(low)
                            else { return nil }
                            scalar = 0x10000 + (unit - 0xD800) << 10 + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(unit) {
                            return nil
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        decoded.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default:
                        return nil
                    }
                default:
                    guard c >= 0x20 else { return nil }
                    decoded.append(c)
                }
            }
            return nil
        }
    }
}
