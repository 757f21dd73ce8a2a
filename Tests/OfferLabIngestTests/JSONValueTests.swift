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
}
