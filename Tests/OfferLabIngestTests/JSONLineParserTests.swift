import Testing

@testable import OfferLabIngest

/// Parses one line with a fresh parser and record.
func parseJSON(_ line: String) -> (reason: MalformedReason?, record: LogRecord) {
    parseJSON(Array(line.utf8))
}

func parseJSON(_ bytes: [UInt8]) -> (reason: MalformedReason?, record: LogRecord) {
    var parser = JSONLineParser()
    var record = LogRecord()
    let reason = bytes.withUnsafeBytes { parser.parse($0, into: &record) }
    return (reason, record)
}

/// 2026-03-01T12:00:00Z in microseconds.
let march1Noon: Int64 = 1_772_366_400_000_000

@Suite struct JSONLineParserTests {
    static let full = """
        {"event_id":"e1","ts":"2026-03-01T12:00:00Z","user_id":"u1","event":"purchase","product_id":"p.monthly",\
        "transaction_id":"t1","original_transaction_id":"o1","price":7.99,"currency":"USD","offering_id":"spring",\
        "test_group_id":"treatment_a","environment":"Production","platform":"ios","country":"US"}
        """

    @Test func everyFieldOfAFullLine() {
        let (reason, record) = parseJSON(Self.full)
        #expect(reason == nil)
        #expect(record.string(record.eventID) == "e1")
        #expect(record.timestamp == march1Noon)
        #expect(record.string(record.userID) == "u1")
        #expect(record.string(record.eventName) == "purchase")
        #expect(record.eventType == .purchase)
        #expect(record.string(record.productID) == "p.monthly")
        #expect(record.string(record.transactionID) == "t1")
        #expect(record.string(record.originalTransactionID) == "o1")
        #expect(record.price == 7_990_000)
        #expect(record.string(record.currency) == "USD")
        #expect(record.string(record.offeringID) == "spring")
        #expect(record.string(record.testGroupID) == "treatment_a")
        #expect(!record.isSandbox)
    }

    @Test func camelCaseKeys() {
        let (reason, record) = parseJSON(
            """
            {"eventId":"e1","ts":1772366400000,"userId":"u1","event":"renewal","productId":"p","transactionId":"t2",\
            "originalTransactionId":"o1","price":"7.99","currency":"EUR","offeringId":"off","testGroupId":"g"}
            """)
        #expect(reason == nil)
        #expect(record.string(record.eventID) == "e1")
        #expect(record.timestamp == march1Noon)
        #expect(record.string(record.userID) == "u1")
        #expect(record.eventType == .renewal)
        #expect(record.string(record.productID) == "p")
        #expect(record.string(record.transactionID) == "t2")
        #expect(record.string(record.originalTransactionID) == "o1")
        #expect(record.price == 7_990_000)
        #expect(record.string(record.currency) == "EUR")
        #expect(record.string(record.offeringID) == "off")
        #expect(record.string(record.testGroupID) == "g")
    }

    @Test(arguments: [
        #"{"ts":1772366400000,"event":"cancel","userId":"camel","user_id":"snake"}"#,
        #"{"ts":1772366400000,"event":"cancel","user_id":"snake","userId":"camel"}"#,
    ])
    func snakeCaseWinsWhateverTheOrder(line: String) {
        let (reason, record) = parseJSON(line)
        #expect(reason == nil)
        #expect(record.string(record.userID) == "snake")
    }

    @Test func snakeCaseWinsForEveryPairedKey() {
        let pairs = [
            ("event_id", "eventId"), ("offering_id", "offeringId"), ("test_group_id", "testGroupId"),
            ("product_id", "productId"), ("transaction_id", "transactionId"),
            ("original_transaction_id", "originalTransactionId"),
        ]
        for (snake, camel) in pairs {
            let line = #"{"ts":1772366400000,"user_id":"u","event":"x","\#(camel)":"camel","\#(snake)":"snake","\#(camel)":"camel2"}"#
            let (reason, record) = parseJSON(line)
            #expect(reason == nil)
            let values = [
                record.eventID, record.offeringID, record.testGroupID, record.productID, record.transactionID, record.originalTransactionID,
            ]
            .compactMap { record.string($0) }
            #expect(values == ["snake"], "\(snake)")
        }
    }

    @Test func nullIsAbsentSoTheOtherSpellingCounts() {
        let (reason, record) = parseJSON(
            #"{"ts":1772366400000,"event":"x","user_id":null,"userId":"camel","offering_id":null,"offeringId":"o"}"#)
        #expect(reason == nil)
        #expect(record.string(record.userID) == "camel")
        #expect(record.string(record.offeringID) == "o")
    }

    @Test func theLastOfARepeatedKeyWins() {
        #expect(
            parseJSON(#"{"ts":1772366400000,"event":"x","user_id":"a","user_id":"b"}"#).record.string(
                parseJSON(#"{"ts":1772366400000,"event":"x","user_id":"a","user_id":"b"}"#).record.userID) == "b")
        let (reason, record) = parseJSON(
            #"{"ts":1772366400000,"event":"x","user_id":"a","offering_id":"o1","offering_id":"o2","ts":1772366401000}"#)
        #expect(reason == nil)
        #expect(record.string(record.offeringID) == "o2")
        #expect(record.timestamp == march1Noon + 1_000_000)
        // The last is null: absent.
        #expect(parseJSON(#"{"ts":1772366400000,"event":"x","user_id":"a","user_id":null}"#).reason == .missingField)
    }

    @Test func integerIdsAreTheirDecimalText() {
        let (reason, record) = parseJSON(
            #"{"ts":1772366400000,"user_id":123,"event":"refund","product_id":7,"transaction_id":1000000123456789012345,"event_id":-5,"currency":978,"price":1}"#
        )
        #expect(reason == nil)
        #expect(record.string(record.userID) == "123")
        #expect(record.string(record.productID) == "7")
        #expect(record.string(record.transactionID) == "1000000123456789012345")
        #expect(record.string(record.eventID) == "-5")
        #expect(record.string(record.currency) == "978")
        #expect(record.price == 1_000_000)
    }

    @Test func stringEscapesAreDecoded() {
        let (reason, record) = parseJSON(#"{"ts":1772366400000,"event":"x","user_id":"a\"b\\c\/d\u00e9\ud83d\ude00\n\t\b\f\r\u0041"}"#)
        #expect(reason == nil)
        #expect(record.string(record.userID) == "a\"b\\c/d\u{e9}\u{1F600}\n\t\u{8}\u{c}\rA")
        // Raw UTF-8 is kept as it is.
        let raw = parseJSON(#"{"ts":1772366400000,"event":"x","user_id":"ü€😀"}"#)
        #expect(raw.reason == nil)
        #expect(raw.record.string(raw.record.userID) == "ü€😀")
    }

    @Test func escapedKeysAreMatchedOnTheirDecodedText() {
        let (reason, record) = parseJSON(
            #"{"t\u0073":1772366400000,"\u0065vent":"purchase","user\u005fid":"u","product_id":"p","transaction_id":"t","price":1,"currency":"USD"}"#
        )
        #expect(reason == nil)
        #expect(record.string(record.userID) == "u")
        #expect(record.eventType == .purchase)
    }

    @Test func unknownKeysAreIgnoredWhateverTheirValue() {
        let line = """
            {"a":{"b":[1,2.5e-3,{"c":null,"d":[[],{}]}],"e":"\\u00e9"},"ts":1772366400000,"platform":{},"country":[true,false],\
            "x":-0,"y":"","z":null,"user_id":"u","event":"expire","w":1E+2}
            """
        let (reason, record) = parseJSON(line)
        #expect(reason == nil)
        #expect(record.eventType == .expire)
    }

    @Test func whitespaceAroundTokens() {
        let (reason, record) = parseJSON(" \t{ \"ts\" : 1772366400000 ,\r\"user_id\":\t\"u\" , \"event\" : \"cancel\" } \t")
        #expect(reason == nil)
        #expect(record.eventType == .cancel)
    }

    @Test func unknownEventNameIsNotMalformed() {
        let (reason, record) = parseJSON(#"{"ts":1772366400000,"user_id":"u","event":"Purchase"}"#)
        #expect(reason == nil)
        #expect(record.eventType == nil)
        #expect(record.string(record.eventName) == "Purchase")
        #expect(parseJSON(#"{"ts":1772366400000,"user_id":"u","event":""}"#).record.eventType == nil)
    }

    @Test func everyEventName() {
        for type in EventType.allCases {
            let (reason, record) = parseJSON(
                #"{"ts":1772366400000,"user_id":"u","event":"\#(type.logName)","product_id":"p","transaction_id":"t","price":1,"currency":"USD"}"#
            )
            #expect(reason == nil)
            #expect(record.eventType == type)
        }
    }

    @Test(arguments: [
        ("sandbox", true), ("Sandbox", true), ("SANDBOX", true), ("sAnDbOx", true), ("Production", false), ("sandboxed", false),
        ("", false), ("sandbo", false),
    ])
    func sandboxInAnyCase(environment: String, isSandbox: Bool) {
        let (reason, record) = parseJSON(#"{"ts":1772366400000,"user_id":"u","event":"x","environment":"\#(environment)"}"#)
        #expect(reason == nil)
        #expect(record.isSandbox == isSandbox)
        #expect(!parseJSON(#"{"ts":1772366400000,"user_id":"u","event":"x"}"#).record.isSandbox)
    }

    @Test(arguments: [
        "", "{", "}", "{\"ts\":0", "[1]", "\"x\"", "42", "null", "true", "{}{}", "{} x", "{\"a\":}", "{\"a\":1,}",
        "{,}", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{a:1}", "{'a':1}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}",
        "{\"a\":-}", "{\"a\":+1}", "{\"a\":1e}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":True}", "{\"a\":NaN}",
        #"{"a":"\x"}"#, #"{"a":"\u12"}"#, #"{"a":"\u12G4"}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00"}"#,
        #"{"a":"\ud800\u0041"}"#, #"{"a":"\ud800x"}"#, "{\"a\":\"tab\there\"}", "{\"a\":\"unterminated}",
        "{\"a\":[1,2}", "{\"a\":[}]}", "{\"a\":{\"b\"}}", "{\"a\":{\"b\":1,}}", "{\"a\":[1,]}", "{\"a\":[,1]}",
        "{\"a\":{1:2}}", "{\"a\":[[[]]}", "{\"ts\":0,\"user_id\":\"u\",\"event\":\"x\",\"extra\":[1,]}",
        "{\"ts\":0,\"user_id\":\"u\",\"event\":\"x\"} {",
        // Invalid JSON wins over every other reason.
        "{\"user_id\":true,\"event\":5,\"ts\":\"bad\",",
    ])
    func invalidJSON(line: String) {
        #expect(parseJSON(line).reason == .invalidJSON)
    }

    @Test(
        arguments: [
            [0xFF], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80],
            [0xF8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xC3],
        ] as [[UInt8]])
    func invalidUTF8IsInvalidJSON(bad: [UInt8]) {
        // Inside a known value, an unknown value, a key, and outside strings.
        for (prefix, suffix) in [
            (#"{"ts":1772366400000,"event":"x","user_id":"a"#, #""}"#), (#"{"ts":1772366400000,"event":"x","user_id":"u","q":"a"#, #""}"#),
            (#"{"ts":1772366400000,"event":"x","user_id":"u",""#, #"":1}"#), (#"{"ts":1772366400000,"event":"x","user_id":"u"}"#, ""),
        ] {
            #expect(parseJSON(Array(prefix.utf8) + bad + Array(suffix.utf8)).reason == .invalidJSON)
        }
    }

    @Test func validUTF8EdgesAreAccepted() {
        for scalar in ["\u{80}", "\u{7FF}", "\u{800}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}", "\u{D7FF}", "\u{E000}"] {
            let (reason, record) = parseJSON(#"{"ts":1772366400000,"event":"x","user_id":"\#(scalar)"}"#)
            #expect(reason == nil)
            #expect(record.string(record.userID) == scalar)
        }
    }

    @Test(arguments: [
        "{}", #"{"user_id":"u","event":"x"}"#, #"{"ts":1772366400000,"event":"x"}"#, #"{"ts":1772366400000,"user_id":"u"}"#,
        #"{"ts":null,"user_id":"u","event":"x"}"#, #"{"ts":1772366400000,"user_id":null,"event":"x"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":null}"#, #"{"ts":1772366400000,"userid":"u","event":"x"}"#,
        #"{"ts":1772366400000,"User_Id":"u","event":"x"}"#, #"{"TS":0,"user_id":"u","event":"x"}"#,
        // A missing required key wins over an invalid one.
        #"{"user_id":true,"event":5}"#,
    ])
    func missingRequiredField(line: String) {
        #expect(parseJSON(line).reason == .missingField)
    }

    @Test(arguments: [
        #"{"ts":1772366400000,"user_id":"","event":"x"}"#, #"{"ts":1772366400000,"user_id":true,"event":"x"}"#,
        #"{"ts":1772366400000,"user_id":1.5,"event":"x"}"#, #"{"ts":1772366400000,"user_id":1e3,"event":"x"}"#,
        #"{"ts":1772366400000,"user_id":{},"event":"x"}"#, #"{"ts":1772366400000,"user_id":["u"],"event":"x"}"#,
        #"{"ts":1772366400000,"userId":"","event":"x"}"#, #"{"ts":1772366400000,"user_id":"","userId":"u","event":"x"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":5}"#, #"{"ts":1772366400000,"user_id":"u","event":true}"#,
        #"{"ts":1772366400000,"user_id":"u","event":["purchase"]}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","price":"abc","currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","price":true,"currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","price":[1],"currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","price":{"amount":1},"currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","price":"7.99 USD","currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","price":1e13,"currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","price":"1e13","currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","product_id":true}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","productId":1.5}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","transaction_id":{}}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","original_transaction_id":[]}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","event_id":false}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","currency":1.0}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","offering_id":{"id":1}}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","testGroupId":true}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"x","environment":true}"#,
        // The snake_case spelling wins even when it is the invalid one.
        #"{"ts":1772366400000,"user_id":"u","event":"x","offering_id":true,"offeringId":"o"}"#,
        // An invalid field wins over a bad timestamp.
        #"{"ts":"bad","user_id":true,"event":"x"}"#,
    ])
    func invalidField(line: String) {
        #expect(parseJSON(line).reason == .invalidField)
    }

    /// The dimensions for slicing: decoded like every text field, an integer as its digits,
    /// empty, `null` or another kind of value absent (the line is not malformed).
    static let sliceFieldLines: [(line: String, country: String?, platform: String?)] = [
        (#"{"ts":1772366400000,"user_id":"u","event":"x","country":"C\u00f4te d\u2019Ivoire","platform":"ios"}"#, "Côte d’Ivoire", "ios"),
        (#"{"ts":1772366400000,"user_id":"u","event":"x","country":"Côte d’Ivoire","platform":"iPad"}"#, "Côte d’Ivoire", "iPad"),
        (#"{"ts":1772366400000,"user_id":"u","event":"x","country":250,"platform":null}"#, "250", nil),
        (#"{"ts":1772366400000,"user_id":"u","event":"x","country":"","platform":"a\"b"}"#, nil, "a\"b"),
        (#"{"ts":1772366400000,"user_id":"u","event":"x","country":true,"platform":1.5}"#, nil, nil),
    ]

    @Test(arguments: sliceFieldLines)
    func sliceFields(line: String, country: String?, platform: String?) {
        var parser = JSONLineParser(keepsSliceFields: true)
        var record = LogRecord()
        let reason = Array(line.utf8).withUnsafeBytes { parser.parse($0, into: &record) }
        #expect(reason == nil)
        #expect(record.string(record.country) == country)
        #expect(record.string(record.platform) == platform)
        // A parser that does not keep them reads the same line as if they were unknown keys.
        let (plainReason, plain) = parseJSON(line)
        #expect(plainReason == nil)
        #expect(plain.country == nil && plain.platform == nil)
    }

    @Test(arguments: [
        #"{"ts":"2026-02-30T00:00:00Z","user_id":"u","event":"x"}"#, #"{"ts":"1772366400000","user_id":"u","event":"x"}"#,
        #"{"ts":1772366400000.0,"user_id":"u","event":"x"}"#, #"{"ts":1.7723664e12,"user_id":"u","event":"x"}"#,
        #"{"ts":true,"user_id":"u","event":"x"}"#, #"{"ts":{},"user_id":"u","event":"x"}"#,
        #"{"ts":"","user_id":"u","event":"x"}"#, #"{"ts":"2026-03-01","user_id":"u","event":"x"}"#,
        #"{"ts":99999999999999999999,"user_id":"u","event":"x"}"#,
        // Epoch seconds read as milliseconds would be 1970: anything before 2000 is no timestamp.
        #"{"ts":1772366400,"user_id":"u","event":"x"}"#, #"{"ts":946684799999,"user_id":"u","event":"x"}"#,
        #"{"ts":0,"user_id":"u","event":"x"}"#, #"{"ts":-1500,"user_id":"u","event":"x"}"#,
        // A bad timestamp wins over a field the event type requires.
        #"{"ts":"bad","user_id":"u","event":"purchase"}"#,
    ])
    func badTimestamp(line: String) {
        #expect(parseJSON(line).reason == .badTimestamp)
    }

    @Test func timestampForms() {
        #expect(parseJSON(#"{"ts":"2026-03-01 12:00:00","user_id":"u","event":"x"}"#).record.timestamp == march1Noon)
        #expect(parseJSON(#"{"ts":"2026-03-01T13:00:00.5+01:00","user_id":"u","event":"x"}"#).record.timestamp == march1Noon + 500_000)
        #expect(parseJSON(#"{"ts":1772366400123,"user_id":"u","event":"x"}"#).record.timestamp == march1Noon + 123_000)
        #expect(parseJSON(#"{"ts":-1,"user_id":"u","event":"x"}"#).reason == .badTimestamp)
        #expect(parseJSON(#"{"ts":"2026-03-01T12:00:00\u005a","user_id":"u","event":"x"}"#).record.timestamp == march1Noon)
    }

    @Test(arguments: [
        #"{"ts":1772366400000,"user_id":"u","event":"trial_start","transaction_id":"t"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"trial_start","product_id":"p"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"refund","product_id":"p"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"purchase","product_id":"p","transaction_id":"t"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"renewal","product_id":"p","transaction_id":"t","price":null,"currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"purchase","product_id":"p","transaction_id":"t","price":"","currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"purchase","product_id":"p","transaction_id":"t","price":1}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"purchase","product_id":"p","transaction_id":"t","price":1,"currency":""}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"refund","product_id":"p","transaction_id":"t","price":1}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"paywall_view","price":1}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"purchase","product_id":"","transaction_id":"t","price":1,"currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"purchase","productId":"p","transaction_id":null,"price":1,"currency":"USD"}"#,
        // A field the event type requires wins over a negative price.
        #"{"ts":1772366400000,"user_id":"u","event":"purchase","transaction_id":"t","price":-1,"currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"cancel","price":-1}"#,
    ])
    func missingFieldTheEventTypeRequires(line: String) {
        #expect(parseJSON(line).reason == .missingField)
    }

    @Test func fieldsNotRequiredByTheEventType() {
        // No product or transaction on a view; no price on a trial or a refund; an unknown type requires nothing.
        for line in [
            #"{"ts":1772366400000,"user_id":"u","event":"paywall_view"}"#, #"{"ts":1772366400000,"user_id":"u","event":"cancel"}"#,
            #"{"ts":1772366400000,"user_id":"u","event":"trial_start","product_id":"p","transaction_id":"t"}"#,
            #"{"ts":1772366400000,"user_id":"u","event":"refund","product_id":"p","transaction_id":"t"}"#,
            #"{"ts":1772366400000,"user_id":"u","event":"something_else"}"#,
        ] {
            let (reason, record) = parseJSON(line)
            #expect(reason == nil, "\(line)")
            #expect(record.price == nil)
            #expect(record.currency == nil)
        }
    }

    @Test(arguments: [
        #"{"ts":1772366400000,"user_id":"u","event":"purchase","product_id":"p","transaction_id":"t","price":-7.99,"currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"refund","product_id":"p","transaction_id":"t","price":"-1","currency":"USD"}"#,
        #"{"ts":1772366400000,"user_id":"u","event":"paywall_view","price":-0.000001,"currency":"USD"}"#,
    ])
    func negativePrice(line: String) {
        #expect(parseJSON(line).reason == .negativePrice)
    }

    @Test func pricesAsNumbersAndNumericStrings() {
        let base = #"{"ts":1772366400000,"user_id":"u","event":"purchase","product_id":"p","transaction_id":"t","currency":"JPY","price":"#
        #expect(parseJSON(base + "1200}").record.price == 1_200_000_000)
        #expect(parseJSON(base + "\"1200\"}").record.price == 1_200_000_000)
        #expect(parseJSON(base + "0}").record.price == 0)
        #expect(parseJSON(base + "-0}").record.price == 0)
        #expect(parseJSON(base + "1.2345675}").record.price == 1_234_568)
        #expect(parseJSON(base + "\"007.50\"}").record.price == 7_500_000)
        #expect(parseJSON(base + "1E2}").record.price == 100_000_000)
    }

    @Test func emptyStringsOfOptionalFieldsAreAbsent() {
        let (reason, record) = parseJSON(
            #"{"ts":1772366400000,"user_id":"u","event":"x","event_id":"","offering_id":"","offeringId":"camel","currency":"","environment":""}"#
        )
        #expect(reason == nil)
        #expect(record.eventID == nil)
        #expect(record.string(record.offeringID) == "camel")
        #expect(record.currency == nil)
    }

    /// An empty snake_case spelling of an optional field is absent, so the camelCase one is read
    /// (the reference reads it the same way: tools/reference/tests/test_parsing.py).
    @Test func anEmptySnakeCaseSpellingGivesWayToCamelCase() {
        let (reason, record) = parseJSON(
            #"{"ts":1772366400000,"user_id":"u","event":"purchase","product_id":"","productId":"p","transaction_id":"t","price":1,"currency":"USD","expires_at":"","expiresAt":"2026-04-02T00:00:00Z"}"#
        )
        #expect(reason == nil)
        #expect(record.string(record.productID) == "p")
        #expect(record.expiresAt == Timestamp.parse("2026-04-02T00:00:00Z"))
    }

    /// The fields that only describe an event (`country`, `platform`, `store`, `expires_at`) are
    /// absent when of another JSON type, and the line stays valid, whether the parser keeps the
    /// slice fields or not: slicing a job never changes which lines count (the reference reads
    /// them the same way: tools/reference/tests/test_parsing.py).
    @Test(arguments: ["true", "1.5", #"{"code":"DE"}"#, #"["DE"]"#])
    func aDescribingFieldOfAnotherTypeIsAbsent(value: String) {
        let line =
            #"{"ts":1772366400000,"user_id":"u","event":"purchase","product_id":"p","transaction_id":"t","price":1,"currency":"USD","#
            + #""country":\#(value),"platform":\#(value),"store":\#(value),"expires_at":\#(value)}"#
        for keepsSliceFields in [true, false] {
            var parser = JSONLineParser(keepsSliceFields: keepsSliceFields)
            var record = LogRecord()
            let reason = Array(line.utf8).withUnsafeBytes { parser.parse($0, into: &record) }
            #expect(reason == nil)
            #expect(record.country == nil && record.platform == nil && record.store == nil && record.expiresAt == nil)
            #expect(record.price == 1_000_000)
        }
    }

    @Test func aReusedRecordHoldsOnlyTheLastLine() {
        var parser = JSONLineParser()
        var record = LogRecord()
        let first = Array(Self.full.utf8)
        let second = Array(#"{"ts":1772366400000,"user_id":"v","event":"cancel"}"#.utf8)
        #expect(first.withUnsafeBytes { parser.parse($0, into: &record) } == nil)
        #expect(
            Array(#"{"ts":1772366400000,"user_id":"w","event":"purchase"}"#.utf8).withUnsafeBytes { parser.parse($0, into: &record) }
                == .missingField)
        #expect(record.text.isEmpty)
        #expect(record.productID == nil)
        #expect(record.string(record.userID) == "")
        #expect(second.withUnsafeBytes { parser.parse($0, into: &record) } == nil)
        #expect(record.string(record.userID) == "v")
        #expect(record.string(record.eventName) == "cancel")
        #expect(record.eventType == .cancel)
        #expect(record.eventID == nil)
        #expect(record.productID == nil)
        #expect(record.transactionID == nil)
        #expect(record.originalTransactionID == nil)
        #expect(record.price == nil)
        #expect(record.currency == nil)
        #expect(record.offeringID == nil)
        #expect(record.testGroupID == nil)
        #expect(!record.isSandbox)
        #expect(first.withUnsafeBytes { parser.parse($0, into: &record) } == nil)
        #expect(record.string(record.testGroupID) == "treatment_a")
    }

    /// A parser that borrows plain lines (`LogFileScanner`'s) reads a plain line's strings from
    /// the line itself, and still copies or decodes any other line: the same fields either way,
    /// and a borrowed line followed by a decoded one leaves the record reading its own buffer.
    @Test func aBorrowingParserReadsPlainLinesInPlace() {
        var copying = JSONLineParser()
        var borrowing = JSONLineParser(borrowsPlainLines: true)
        let escaped = #"{"ts":1772366400000,"user_id":"u\u0031","event":"cancel","offering_id":"caf\u00e9"}"#
        var borrowed = LogRecord()
        for line in [Self.full, escaped, Self.full] {
            let bytes = Array(line.utf8)
            bytes.withUnsafeBytes { bytes in
                var copied = LogRecord()
                #expect(copying.parse(bytes, into: &copied) == nil)
                #expect(borrowing.parse(bytes, into: &borrowed) == nil)
                let readsTheLine = borrowed.withTextBytes { $0.baseAddress == bytes.baseAddress }
                #expect(readsTheLine == (line == Self.full))
                #expect(copied.withTextBytes { $0.baseAddress != bytes.baseAddress })
                for field in [\LogRecord.eventID, \.productID, \.transactionID, \.currency, \.offeringID, \.testGroupID] {
                    #expect(borrowed.string(borrowed[keyPath: field]) == copied.string(copied[keyPath: field]))
                }
                #expect(borrowed.string(borrowed.userID) == copied.string(copied.userID))
                #expect(borrowed.timestamp == copied.timestamp && borrowed.price == copied.price)
            }
        }
    }

    /// A record keeps a pointer to its text (`withTextBytes`): a copy must keep reading its own
    /// line after the parser has written the next one into the original.
    @Test func aCopyKeepsItsTextWhenTheRecordIsReused() {
        var parser = JSONLineParser()
        var record = LogRecord()
        #expect(Array(Self.full.utf8).withUnsafeBytes { parser.parse($0, into: &record) } == nil)
        let copy = record
        let firstText = copy.withTextBytes { Array($0) }
        #expect(
            Array(#"{"ts":1772366400000,"user_id":"vvvvvvvvvvvvvvvv","event":"cancel"}"#.utf8).withUnsafeBytes {
                parser.parse($0, into: &record)
            }
                == nil)
        #expect(copy.withTextBytes { Array($0) } == firstText)
        #expect(copy.string(copy.userID) == "u1")
        #expect(record.string(record.userID) == "vvvvvvvvvvvvvvvv")
        var assigned = LogRecord()
        assigned.text = Array("abc".utf8)
        #expect(assigned.withTextBytes { Array($0) } == Array("abc".utf8))
    }

    @Test func deeplyNestedUnknownValuesDoNotOverflowTheStack() {
        let depth = 100_000
        let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(parseJSON(#"{"ts":1772366400000,"user_id":"u","event":"x","deep":\#(nested)}"#).reason == nil)
        let objects = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(parseJSON(#"{"ts":1772366400000,"user_id":"u","event":"x","deep":\#(objects)}"#).reason == nil)
        let unbalanced = String(repeating: "[", count: depth) + String(repeating: "]", count: depth - 1)
        #expect(parseJSON(#"{"ts":1772366400000,"user_id":"u","event":"x","deep":\#(unbalanced)}"#).reason == .invalidJSON)
    }

    @Test func longStringsCrossTheWordScanner() {
        // Special bytes at every offset of the eight-byte scan.
        for length in 0..<40 {
            let padding = String(repeating: "x", count: length)
            for special in [#"\""#, #"\\"#, "é", "\u{1F600}", #"\u0041"#] {
                let value = padding + special + padding
                let (reason, record) = parseJSON(#"{"ts":1772366400000,"event":"x","user_id":"\#(value)"}"#)
                #expect(reason == nil)
                let decoded =
                    padding + (special == #"\""# ? "\"" : special == #"\\"# ? "\\" : special == #"\u0041"# ? "A" : special) + padding
                #expect(record.string(record.userID) == decoded)
            }
            #expect(
                parseJSON(Array(#"{"ts":1772366400000,"event":"x","user_id":""#.utf8) + Array(padding.utf8) + [0x01] + Array(#""}"#.utf8))
                    .reason
                    == .invalidJSON)
        }
    }
}
