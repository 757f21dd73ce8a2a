/// A JSON document (RFC 8259) as a tree, for inputs whose bodies are read whole rather than
/// streamed into a `LogRecord` (a store's webhook body, a decoded notification payload).
///
/// Validation is `JSONScanner`'s, as for the logs: escapes, surrogate pairs, UTF-8, the number
/// grammar. Numbers keep their text, so that a price is read exactly (`Price.parseMicros`) and
/// an integer of any size as written. A key written twice in an object: the last counts, as in
/// the logs.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number as written (`-9.99`, `1658726374000`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Containers nested deeper than this are rejected (the reader recurses once per level).
    public static let maximumDepth = 64

    /// Parses one JSON value, with optional whitespace around it; nil when the bytes are not
    /// exactly that (or nest deeper than `maximumDepth`).
    public init?(parsing bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let reader = TreeReader(json: JSONScanner(base, count: bytes.count))
        var index = 0
        guard let value = reader.value(&index, depth: 0) else { return nil }
        index = reader.json.skipWhitespace(index)
        guard index == bytes.count else { return nil }
        self = value
    }

    /// Parses the UTF-8 of `text` (see `init(parsing:)`).
    public init?(parsing text: String) {
        var text = text
        guard let value = text.withUTF8({ JSONValue(parsing: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = value
    }

    /// The member `key` of an object; nil for an absent key and for anything but an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The text of a string.
    public var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The text of a number, as written.
    public var numberText: String? {
        guard case .number(let text) = self else { return nil }
        return text
    }

    /// The value of `true` or `false`.
    public var bool: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    private struct TreeReader {
        let json: JSONScanner

        /// The value at `index` (whitespace before it skipped); `index` moves past it.
        func value(_ index: inout Int, depth: Int) -> JSONValue? {
            switch json.nextByte(&index) {
            case 0x22:
                return string(&index).map(JSONValue.string)
            case 0x7B:  // {
                guard depth < JSONValue.maximumDepth else { return nil }
                index += 1
                var members: [String: JSONValue] = [:]
                if json.nextByte(&index) == 0x7D {
                    index += 1
                    return .object(members)
                }
                while true {
                    guard json.nextByte(&index) == 0x22, let key = string(&index), json.nextByte(&index) == 0x3A else { return nil }
                    index += 1
                    guard let member = value(&index, depth: depth + 1) else { return nil }
                    members[key] = member
                    switch json.nextByte(&index) {
                    case 0x2C: index += 1
                    case 0x7D:
                        index += 1
                        return .object(members)
                    default: return nil
                    }
                }
            case 0x5B:  // [
                guard depth < JSONValue.maximumDepth else { return nil }
                index += 1
                var elements: [JSONValue] = []
                if json.nextByte(&index) == 0x5D {
                    index += 1
                    return .array(elements)
                }
                while true {
                    guard let element = value(&index, depth: depth + 1) else { return nil }
                    elements.append(element)
                    switch json.nextByte(&index) {
                    case 0x2C: index += 1
                    case 0x5D:
                        index += 1
                        return .array(elements)
                    default: return nil
                    }
                }
            case 0x74, 0x66, 0x6E:  // t f n
                let first = json.p[index]
                let end = json.scanLiteral(index)
                guard end >= 0 else { return nil }
                index = end
                return first == 0x6E ? .null : .bool(first == 0x74)
            default:
                var isInteger = false
                let start = index
                let end = json.scanNumber(index, &isInteger)
                guard end >= 0 else { return nil }
                index = end
                return .number(String(decoding: UnsafeRawBufferPointer(start: json.p + start, count: end - start), as: UTF8.self))
            }
        }

        /// The string whose opening quote is at `index`, decoded; `index` moves past its closing quote.
        private func string(_ index: inout Int) -> String? {
            var escaped = false
            let start = index + 1
            let end = json.scanString(start, &escaped)
            guard end >= 0 else { return nil }
            index = end
            let contentCount = end - 1 - start
            guard escaped else {
                return String(decoding: UnsafeRawBufferPointer(start: json.p + start, count: contentCount), as: UTF8.self)
            }
            return String(unsafeUninitializedCapacity: contentCount) { buffer in
                guard let out = buffer.baseAddress else { return 0 }
                return json.decodeString(start, end - 1, into: out)
            }
        }
    }
}
