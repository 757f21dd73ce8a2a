import Testing

@testable import OfferLabStoreSources

/// The reader of the stores' JSON payloads: the project's `JSONValue`, with the field types of
/// Apple's models.
@Suite struct StoreJSONObjectTests {
    func object(_ text: String) throws(StoreLineRejection) -> StoreJSONObject {
        try StoreJSONObject(Array(text.utf8), what: "the payload")
    }

    @Test func fieldsOfTheirTypeAbsentAndNull() throws {
        let json = try object(#"{"id":"a","date":1700000000123.5,"price":10990,"gone":null,"data":{"bundleId":"b"}}"#)
        #expect(try json.string("id") == "a")
        #expect(try json.double("date") == 1_700_000_000_123.5)
        #expect(try json.int64("price") == 10990)
        #expect(try json.string("gone") == nil && json.int64("absent") == nil && json.object("gone") == nil)
        #expect(try json.object("data")?.string("bundleId") == "b")
    }

    @Test func aFieldOfAnotherTypeIsInvalidAndNamedByItsPath() throws {
        let json = try object(#"{"id":5,"price":109.9,"data":{"bundleId":["b"]},"text":"x"}"#)
        #expect(throws: StoreLineRejection(.malformedInvalidField, "the payload: id has the wrong type")) { try json.string("id") }
        #expect(throws: StoreLineRejection(.malformedInvalidField, "the payload: price has the wrong type")) { try json.int64("price") }
        #expect(throws: StoreLineRejection(.malformedInvalidField, "the payload: text has the wrong type")) { try json.double("text") }
        #expect(throws: StoreLineRejection(.malformedInvalidField, "the payload: data.bundleId has the wrong type")) {
            try json.object("data")?.string("bundleId")
        }
    }

    @Test func anythingButAnObjectIsInvalidJSON() {
        for text in ["[1]", "\"a\"", #"{"a":1"#, #"{"a":"\ud800"}"#] {
            #expect(throws: StoreLineRejection(.malformedInvalidJSON, "the payload is not a JSON object"), "\(text)") {
                try object(text)
            }
        }
    }
}
