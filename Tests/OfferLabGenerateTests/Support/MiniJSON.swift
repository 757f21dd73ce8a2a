/// A small, strict JSON parser for the tests: an independent reading of the generated lines,
/// which keeps the exact type of every value (integer or not, string, boolean…).
enum JSONValue: Equatable {
    case string(String)
    /// A number without fraction or exponent, as written.
    case integer(String)
    /// A number with a fraction or an exponent, as written.
    case float(String)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The value of `key` in an object (the first one), nil when absent.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }
}

struct MiniJSON {
    private let bytes: [UInt8]
    private var position = 0

    /// Parses one complete JSON text; nil when it is not valid JSON.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        var parser = MiniJSON(bytes: bytes)
        guard let value = parser.value() else { return nil }
        parser.skipSpace()
        return parser.position == bytes.count ? value : nil
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func value() -> JSONValue? {
        skipSpace()
        guard position < bytes.count else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ text: String, _ value: JSONValue) -> JSONValue? {
        let word = Array(text.utf8)
        guard position + word.count <= bytes.count, Array(bytes[position..<(position + word.count)]) == word else {
            return nil
        }
        position += word.count
        return value
    }

    private mutating func object() -> JSONValue? {
        position += 1
        var members: [(String, JSONValue)] = []
        skipSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
            position += 1
            guard let member = value() else { return nil }
            members.append((key, member))
            skipSpace()
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "}") else { return nil }
            position += 1
            return .object(members)
        }
    }

    private mutating func array() -> JSONValue? {
        position += 1
        var elements: [JSONValue] = []
        skipSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            guard let element = value() else { return nil }
            elements.append(element)
            skipSpace()
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "]") else { return nil }
            position += 1
            return .array(elements)
        }
    }

    private mutating func hex4() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[position..<(position + 4)] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
            value = value * 16 + UInt32(digit)
        }
        position += 4
        return value
    }

    private mutating func string() -> String? {
        position += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flushRaw() -> Bool {
            guard !raw.isEmpty else { return true }
            guard let text = String(validating: raw, as: UTF8.self) else { return false }
            scalars.append(contentsOf: text.unicodeScalars)
            raw.removeAll()
            return true
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                guard flushRaw() else { return nil }
                return String(scalars)
            }
            if byte < 0x20 { return nil }
            if byte != UInt8(ascii: "\\") {
                raw.append(byte)
                position += 1
                continue
            }
            guard flushRaw(), position + 1 < bytes.count else { return nil }
            let escape = bytes[position + 1]
            position += 2
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                guard let unit = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(unit) {
                    guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else { return nil }
                    position += 2
                    guard let low = hex4(), (0xDC00..<0xE000).contains(low),
                        let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                    else { return nil }
                    scalars.append(scalar)
                } else {
                    guard let scalar = Unicode.Scalar(unit) else { return nil }
                    scalars.append(scalar)
                }
            default: return nil
            }
        }
        return nil
    }

    private mutating func number() -> JSONValue? {
        let start = position
        func digits() -> Int {
            let begin = position
            while position < bytes.count, (48...57).contains(bytes[position]) { position += 1 }
            return position - begin
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let intStart = position
        let count = digits()
        guard count > 0, !(count > 1 && bytes[intStart] == 48) else { return nil }
        var isFloat = false
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { return nil }
            isFloat = true
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { return nil }
            isFloat = true
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        return isFloat ? .float(text) : .integer(text)
    }
}
