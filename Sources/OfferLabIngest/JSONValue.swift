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

    /// What `select` finds of an object's member.
    public enum Selection: Sendable, Equatable {
        /// The object has no such member.
        case absent
        /// The member is not an object: its value, whole.
        case value(JSONValue)
        /// The member is an object: the values of the keys asked for, in their order, nil for
        /// those it lacks.
        case object([JSONValue?])
    }

    /// The keys `select` looks for, as bytes, made once: each member's key is compared with them
    /// as it is read, no `String` made of it.
    public struct SelectionKeys: Sendable {
        let utf8: [[UInt8]]

        public init(_ keys: [String]) { utf8 = keys.map { Array($0.utf8) } }

        /// The position of `key` among the keys; nil when it is none of them.
        func index(of key: UnsafeRawBufferPointer) -> Int? {
            utf8.firstIndex { $0.count == key.count && $0.elementsEqual(key) }
        }
    }

    /// What `JSONValue(parsing: bytes)?[member]?[key]` gives for each of `keys`, without building
    /// the rest of the tree (a webhook body's other members and the rest of its event are only
    /// validated, not made into strings and dictionaries): nil when `bytes` is not a JSON object,
    /// with exactly the validation of `init(parsing:)`; a key written twice, the last counts.
    public static func select(_ keys: SelectionKeys, ofMember member: String, inObject bytes: UnsafeRawBufferPointer) -> Selection? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let reader = TreeReader(json: JSONScanner(base, count: bytes.count))
        var index = 0
        var selection = Selection.absent
        let members = reader.members(&index, depth: 0) { key, index in
            guard key.elementsEqual(member.utf8) else { return reader.skip(&index, depth: 1) }
            if reader.json.nextByte(&index) == 0x7B {
                var values = [JSONValue?](repeating: nil, count: keys.utf8.count)
                let read = reader.members(&index, depth: 1) { key, index in
                    guard let slot = keys.index(of: key) else { return reader.skip(&index, depth: 2) }
                    values[slot] = reader.value(&index, depth: 2)
                    return values[slot] != nil
                }
                selection = .object(values)
                return read
            }
            guard let value = reader.value(&index, depth: 1) else { return false }
            selection = .value(value)
            return true
        }
        guard members else { return nil }
        index = reader.json.skipWhitespace(index)
        return index == bytes.count ? selection : nil
    }

    private struct TreeReader {
        let json: JSONScanner

        /// The members of the object at `index` (whitespace before it skipped), at `depth`, each
        /// key's decoded bytes handed to `member` with the index of its value, which `member`
        /// moves past (false: the value is invalid); `index` moves past the object. False when
        /// the bytes there are not an object.
        func members(_ index: inout Int, depth: Int, _ member: (UnsafeRawBufferPointer, inout Int) -> Bool) -> Bool {
            guard json.nextByte(&index) == 0x7B, depth < JSONValue.maximumDepth else { return false }
            index += 1
            if json.nextByte(&index) == 0x7D {
                index += 1
                return true
            }
            while true {
                guard json.nextByte(&index) == 0x22 else { return false }
                var escaped = false
                let start = index + 1
                let end = json.scanString(start, &escaped)
                guard end >= 0 else { return false }
                index = end
                guard json.nextByte(&index) == 0x3A else { return false }
                index += 1
                let key = UnsafeRawBufferPointer(start: json.p + start, count: end - 1 - start)
                let valid =
                    escaped
                    ? [UInt8](unsafeUninitializedCapacity: key.count) { buffer, count in
                        count = json.decodeString(start, end - 1, into: buffer.baseAddress!)
                    }.withUnsafeBytes { member($0, &index) } : member(key, &index)
                guard valid else { return false }
                switch json.nextByte(&index) {
                case 0x2C: index += 1
                case 0x7D:
                    index += 1
                    return true
                default: return false
                }
            }
        }

        /// Validates the value at `index` as `value` does, without making it; `index` moves past
        /// it. False when it is not valid.
        func skip(_ index: inout Int, depth: Int) -> Bool {
            switch json.nextByte(&index) {
            case 0x22:
                var escaped = false
                let end = json.scanString(index + 1, &escaped)
                guard end >= 0 else { return false }
                index = end
                return true
            case 0x7B:
                return members(&index, depth: depth) { _, index in skip(&index, depth: depth + 1) }
            case 0x5B:  // [
                guard depth < JSONValue.maximumDepth else { return false }
                index += 1
                if json.nextByte(&index) == 0x5D {
                    index += 1
                    return true
                }
                while true {
                    guard skip(&index, depth: depth + 1) else { return false }
                    switch json.nextByte(&index) {
                    case 0x2C: index += 1
                    case 0x5D:
                        index += 1
                        return true
                    default: return false
                    }
                }
            case 0x74, 0x66, 0x6E:  // t f n
                let end = json.scanLiteral(index)
                guard end >= 0 else { return false }
                index = end
                return true
            default:
                var isInteger = false
                let end = json.scanNumber(index, &isInteger)
                guard end >= 0 else { return false }
                index = end
                return true
            }
        }

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
