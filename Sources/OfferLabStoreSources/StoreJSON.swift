import OfferLabIngest

/// A JSON object of a store's payload, read with the project's `JSONValue` (the validation the
/// logs get: escapes, surrogates, UTF-8, the number grammar). An absent or `null` member is nil;
/// a member of another JSON type than the field's is `malformed_invalid_field`, except a field
/// that only describes a record (`descriptiveString`).
struct StoreJSONObject {
    private let members: [String: JSONValue]
    /// What the document is, for a rejection's detail (`the signedPayload payload`).
    private let what: String
    /// Where the object is in its document (`data.` for a nested one), for a rejection's detail.
    private let path: String

    /// The object `bytes` hold; anything else is `malformed_invalid_json`.
    init(_ bytes: [UInt8], what: String) throws(StoreLineRejection) {
        guard let members = Self.members(bytes) else { throw .init(.malformedInvalidJSON, "\(what) is not a JSON object") }
        self.init(members: members, what: what, path: "")
    }

    private init(members: [String: JSONValue], what: String, path: String) {
        self.members = members
        self.what = what
        self.path = path
    }

    /// The members of the JSON object `bytes` hold; nil for anything else.
    static func members(_ bytes: [UInt8]) -> [String: JSONValue]? {
        guard case .object(let members)? = bytes.withUnsafeBytes({ JSONValue(parsing: $0) }) else { return nil }
        return members
    }

    func string(_ key: String) throws(StoreLineRejection) -> String? {
        guard let value = member(key) else { return nil }
        guard let text = value.string else { throw wrongType(key) }
        return text
    }

    /// A field that only describes a record (`storefront`), as the purchase logs' `country`
    /// (docs/input-formats.md#json-lines): a value of another JSON type is absent and the line
    /// stays valid.
    func descriptiveString(_ key: String) -> String? {
        member(key)?.string
    }

    /// A number of any form (Xcode writes dates with a fraction).
    func double(_ key: String) throws(StoreLineRejection) -> Double? {
        guard let value = member(key) else { return nil }
        guard let number = value.numberText.flatMap({ Double($0) }) else { throw wrongType(key) }
        return number
    }

    /// A whole number written without fraction or exponent, within `Int64`.
    func int64(_ key: String) throws(StoreLineRejection) -> Int64? {
        guard let value = member(key) else { return nil }
        guard let number = value.numberText.flatMap({ Int64($0) }) else { throw wrongType(key) }
        return number
    }

    func object(_ key: String) throws(StoreLineRejection) -> StoreJSONObject? {
        guard let value = member(key) else { return nil }
        guard case .object(let members) = value else { throw wrongType(key) }
        return StoreJSONObject(members: members, what: what, path: "\(path)\(key).")
    }

    /// An integer written as a JSON integer or as a string of one (Google's JSON writes `int64`
    /// fields as strings), within `Int64`.
    func int64OrIntegerString(_ key: String) throws(StoreLineRejection) -> Int64? {
        guard let value = member(key) else { return nil }
        guard let number = (value.string ?? value.numberText).flatMap({ Int64($0) }) else { throw wrongType(key) }
        return number
    }

    /// An array of objects; an empty array is nil, as an absent one.
    func objects(_ key: String) throws(StoreLineRejection) -> [StoreJSONObject]? {
        guard let value = member(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key) }
        var objects: [StoreJSONObject] = []
        for (index, element) in elements.enumerated() {
            guard case .object(let members) = element else { throw wrongType("\(key)[\(index)]") }
            objects.append(StoreJSONObject(members: members, what: what, path: "\(path)\(key)[\(index)]."))
        }
        return objects.isEmpty ? nil : objects
    }

    /// Whether the member is present and not `null` (an empty object marks a phase: `freeTrial: {}`).
    func has(_ key: String) -> Bool { member(key) != nil }

    private func member(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    private func wrongType(_ key: String) -> StoreLineRejection {
        .init(.malformedInvalidField, "\(what): \(path)\(key) has the wrong type")
    }
}
