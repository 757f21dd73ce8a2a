import OfferLabIngest
import Testing

@Suite struct JSONValueTests {
    @Test func aDocumentBecomesItsTree() throws {
        let value = try #require(
            JSONValue(parsing: #" {"a": [1, -2.50e1, true, false, null], "b": {"c": "x\"\u00e9\ud83d\ude00"}, "a2": {}, "e": []} "#))
        #expect(
            value
                == .object([
                    "a": .array([.number("1"), .number("-2.50e1"), .bool(true), .bool(false), .null]),
                    "b": .object(["c": .string("x\"é😀")]), "a2": .object([:]), "e": .array([]),
                ]))
        #expect(value["b"]?["c"]?.string == "x\"é😀")
        #expect(value["a"]?.string == nil && value["missing"] == nil && JSONValue.null["a"] == nil)
    }

    @Test func numbersKeepTheirText() throws {
        let value = try #require(JSONValue(parsing: #"{"price": 7.99, "ms": 1658726374000}"#))
        #expect(value["price"]?.numberText == "7.99")
        #expect(value["ms"]?.numberText == "1658726374000")
        #expect(value["price"]?.bool == nil)
    }

    @Test func theLastOfARepeatedKeyCounts() {
        #expect(JSONValue(parsing: #"{"k": 1, "k": 2}"#)?["k"] == .number("2"))
    }

    @Test(arguments: [
        "", " ", "{", "{\"a\":}", "{\"a\":1,}", "[1,]", "[1 2]", "{\"a\" 1}", "{1:2}", "01", "1.", "tru", "nul", "\"\\x\"", "\"a",
        "{} {}", "\"\u{01}\"", "\"\\ud800\"", "[--1]",
    ])
    func invalidJSONIsRejected(_ text: String) {
        #expect(JSONValue(parsing: text) == nil)
    }

    @Test func invalidUTF8IsRejected() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(bytes.withUnsafeBytes { JSONValue(parsing: $0) } == nil)
    }

    @Test func nestingDeeperThanTheLimitIsRejected() {
        let depth = JSONValue.maximumDepth
        #expect(JSONValue(parsing: String(repeating: "[", count: depth) + String(repeating: "]", count: depth)) != nil)
        #expect(JSONValue(parsing: String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)) == nil)
    }

    /// `select` gives what the whole tree gives, for valid and invalid documents alike.
    @Test(arguments: [
        #"{"api_version": "1.0", "event": {"id": "e1", "type": "RENEWAL", "price": 7.99, "aliases": [[1, {"a": null}]], "attributes": {"x": {"y": true}}}}"#,
        #"{"event": {"id": 1, "id": null, "type": "A", "type": "B"}}"#,
        #"{"event": {"i\u0064": "escaped key", "type": {"nested": []}, "id": [1, 2]}}"#,
        #"{"event": {"id": "first"}, "event": {"type": "second"}}"#,
        #"{"event": {"id": "x"}, "event": null}"#, #"{"event": "text"}"#, #"{"event": [1]}"#, #"{"other": 1}"#, #"{}"#,
        #" {"event": {}} "#, #"[{"event": {}}]"#, #""event""#, #"{"event": {"id": "x"}} {}"#, #"{"event": {"id": "x",}}"#,
        #"{"event": {"id": "x"}, "other": [1,]}"#, #"{"event": {"other": tru, "id": "x"}}"#, "{\"event\": {\"id\": \"\u{01}\"}}",
        "", " ",
    ])
    func selectingMembersGivesWhatTheTreeGives(_ text: String) {
        let keys = ["id", "type", "price"]
        let tree = JSONValue(parsing: text)
        let selection = Self.select(keys, in: text)
        guard let tree, case .object = tree else {
            #expect(selection == nil)
            return
        }
        switch tree["event"] {
        case nil: #expect(selection == .absent)
        case .object(let members)?: #expect(selection == .object(keys.map { members[$0] }))
        case let value?: #expect(selection == .value(value))
        }
    }

    @Test func selectingKeepsTheDepthLimit() {
        // The containers around "deep"'s arrays: the body and the event.
        func document(nesting: Int) -> String {
            #"{"event": {"id": "x", "deep": "# + String(repeating: "[", count: nesting - 2) + String(repeating: "]", count: nesting - 2)
                + "}}"
        }
        let depth = JSONValue.maximumDepth
        #expect(JSONValue(parsing: document(nesting: depth)) != nil && JSONValue(parsing: document(nesting: depth + 1)) == nil)
        #expect(Self.select(["id"], in: document(nesting: depth)) == .object([.string("x")]))
        #expect(Self.select(["id"], in: document(nesting: depth + 1)) == nil)
        #expect(Self.select(["deep"], in: document(nesting: depth + 1)) == nil)
    }

    private static func select(_ keys: [String], in text: String) -> JSONValue.Selection? {
        var text = text
        return text.withUTF8 { JSONValue.select(.init(keys), ofMember: "event", inObject: UnsafeRawBufferPointer($0)) }
    }
}
