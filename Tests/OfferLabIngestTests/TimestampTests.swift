import Testing

@testable import OfferLabIngest

@Suite struct TimestampTests {
    /// Days from 1970-01-01, counted the long way (independent of the implementation).
    static func days(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        var total: Int64 = 0
        let monthLengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        func isLeap(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }
        if year >= 1970 {
            for y in 1970..<year { total += isLeap(y) ? 366 : 365 }
        } else {
            for y in year..<1970 { total -= isLeap(y) ? 366 : 365 }
        }
        for m in 1..<month { total += Int64(monthLengths[m - 1] + (m == 2 && isLeap(year) ? 1 : 0)) }
        return total + Int64(day - 1)
    }

    static func micros(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Int64 {
        (days(year, month, day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1_000_000
    }

    @Test func utcForms() {
        let expected = Self.micros(2026, 3, 16, 12, 34, 56)
        #expect(expected == 1_773_664_496_000_000)
        #expect(Timestamp.parse("2026-03-16T12:34:56Z") == expected)
        #expect(Timestamp.parse("2026-03-16T12:34:56") == expected)
        #expect(Timestamp.parse("2026-03-16 12:34:56") == expected)  // what MySQL exports
        #expect(Timestamp.parse("2026-03-16 12:34:56Z") == expected)
        #expect(Timestamp.parse("2026-03-16T12:34:56+00:00") == expected)
        #expect(Timestamp.parse("2026-03-16T12:34:56-00:00") == expected)
        #expect(Timestamp.parse("1970-01-01T00:00:00Z") == 0)
        #expect(Timestamp.parse("1969-12-31T23:59:59Z") == -1_000_000)
        #expect(Timestamp.parse("2000-02-29T00:00:00Z") == Self.micros(2000, 2, 29))
        #expect(Timestamp.parse("2024-02-29T23:59:59Z") == Self.micros(2024, 2, 29, 23, 59, 59))
        #expect(Timestamp.parse("9999-12-31T23:59:59Z") == Self.micros(9999, 12, 31, 23, 59, 59))
        #expect(Timestamp.parse("1600-03-01T00:00:00Z") == Self.micros(1600, 3, 1))
    }

    /// Calls `body` with `text`'s bytes, one byte replaced, for every byte and every value: the
    /// inputs of the parts read a word at a time.
    static func everyByteReplaced(in text: String, _ body: ([UInt8]) -> Void) {
        let original = Array(text.utf8)
        for position in original.indices {
            for value in 0...255 {
                var bytes = original
                bytes[position] = UInt8(value)
                body(bytes)
            }
        }
    }

    /// The time of day is read eight bytes at once: every byte of `HH:MM:SS` replaced by every
    /// value gives the time, or nil, that reading it byte by byte gives.
    @Test func everyByteOfTheTimeOfDay() {
        Self.everyByteReplaced(in: "12:34:56") { bytes in
            let text = Array("2026-03-16T".utf8) + bytes + Array("Z".utf8)
            var expected: Int64?
            let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
            if bytes.indices.allSatisfy({ $0 == 2 || $0 == 5 ? bytes[$0] == 0x3A : isDigit(bytes[$0]) }) {
                let number = { (at: Int) in Int(bytes[at] - 0x30) * 10 + Int(bytes[at + 1] - 0x30) }
                let (hour, minute, second) = (number(0), number(3), number(6))
                if hour <= 23 && minute <= 59 && second <= 59 { expected = Self.micros(2026, 3, 16, hour, minute, second) }
            }
            #expect(text.withUnsafeBytes { Timestamp.parse($0) } == expected, "\(String(decoding: text, as: UTF8.self))")
        }
    }

    /// Thirteen digits of epoch milliseconds are read as two words: every byte replaced by every
    /// value gives what `Int64` reads of the text (× 1000) when it is digits from 2000 on, or nil.
    @Test func everyByteOfThirteenDigitEpochMilliseconds() {
        Self.everyByteReplaced(in: "1772366400123") { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            let isDigits = bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            let expected = isDigits ? Int64(text).map { $0 * 1000 }.flatMap { $0 >= 946_684_800_000_000 ? $0 : nil } : nil
            #expect(bytes.withUnsafeBytes { Timestamp.parseEpochMilliseconds($0) } == expected, "\(text)")
        }
        #expect(Array("9999999999999".utf8).withUnsafeBytes { Timestamp.parseEpochMilliseconds($0) } == 9_999_999_999_999_000)
        // Leading zeros: 1970.
        #expect(Array("0000000000000".utf8).withUnsafeBytes { Timestamp.parseEpochMilliseconds($0) } == nil)
    }

    @Test func fractionsAreKeptToTheMicrosecond() {
        let base = Self.micros(2026, 3, 16, 12, 34, 56)
        #expect(Timestamp.parse("2026-03-16T12:34:56.5Z") == base + 500_000)
        #expect(Timestamp.parse("2026-03-16T12:34:56.05Z") == base + 50_000)
        #expect(Timestamp.parse("2026-03-16T12:34:56.123Z") == base + 123_000)
        #expect(Timestamp.parse("2026-03-16T12:34:56.000001Z") == base + 1)
        #expect(Timestamp.parse("2026-03-16T12:34:56.123456") == base + 123_456)
        // Digits 7 to 9 are truncated, not rounded.
        #expect(Timestamp.parse("2026-03-16T12:34:56.1234567Z") == base + 123_456)
        #expect(Timestamp.parse("2026-03-16T12:34:56.999999999Z") == base + 999_999)
        #expect(Timestamp.parse("2026-03-16 12:34:56.25+01:00") == base + 250_000 - 3_600_000_000)
        // Milliseconds then the end or `Z` are read at once: every byte of them, every value,
        // against the grammar of a fraction and a `Z` read the long way.
        func expected(_ suffix: [UInt8]) -> Int64? {
            var rest = suffix[...]
            var micros: Int64 = 0
            if rest.first == 0x2E {
                let digits = rest.dropFirst().prefix { $0 >= 0x30 && $0 <= 0x39 }
                guard (1...9).contains(digits.count) else { return nil }
                for (place, digit) in digits.prefix(6).enumerated() {
                    micros += Int64(digit - 0x30) * [100_000, 10_000, 1000, 100, 10, 1][place]
                }
                rest = rest.dropFirst(1 + digits.count)
            }
            guard rest.isEmpty || Array(rest) == [0x5A] else { return nil }
            return base + micros
        }
        for suffix in [".789Z", ".789"] {
            Self.everyByteReplaced(in: suffix) { bytes in
                let text = Array("2026-03-16T12:34:56".utf8) + bytes
                #expect(text.withUnsafeBytes { Timestamp.parse($0) } == expected(bytes), "\(String(decoding: text, as: UTF8.self))")
            }
        }
    }

    @Test func offsetsAreSubtracted() {
        let base = Self.micros(2026, 3, 16, 12, 0, 0)
        #expect(Timestamp.parse("2026-03-16T12:00:00+02:00") == base - 2 * 3_600_000_000)
        #expect(Timestamp.parse("2026-03-16T12:00:00-05:30") == base + 5 * 3_600_000_000 + 30 * 60_000_000)
        #expect(Timestamp.parse("2026-03-16T12:00:00+23:59") == base - (23 * 3600 + 59 * 60) * 1_000_000)
        // Crossing midnight and a year.
        #expect(Timestamp.parse("2026-01-01T00:30:00+01:00") == Self.micros(2025, 12, 31, 23, 30, 0))
    }

    @Test(arguments: [
        "2026-02-30T00:00:00Z", "2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-03-00T00:00:00Z", "2026-03-32T00:00:00Z",
        "2026-03-16T24:00:00Z", "2026-03-16T25:61:00Z", "2026-03-16T12:60:00Z", "2026-03-16T23:59:60Z",
        "2026-03-16T12:00:00+24:00", "2026-03-16T12:00:00+01:60", "2026-03-16T12:00:00+0100",
        "2026-03-16T12:00:00+01", "2026-03-16T12:00:00+1:00", "2026-03-16T12:00:00 +01:00",
        "2026-03-16T12:00:00.", "2026-03-16T12:00:00.1234567890Z", "2026-03-16T12:00:00,5Z",
        "2026-03-16", "2026-03-16T12:00", "2026-3-16T12:00:00Z", "26-03-16T12:00:00Z", "2026/03/16T12:00:00Z",
        "2026-03-16t12:00:00Z", "2026-03-16T12:00:00z", "2026-03-16_12:00:00Z", "2026-03-16T12:00:00ZZ",
        " 2026-03-16T12:00:00Z", "2026-03-16T12:00:00Z ", "", "1773664496000", "2026-03-16T12:00:0aZ",
        "+2026-03-16T12:00:00Z", "2026-03-16T12:00:00UTC",
    ])
    func badTextIsRejected(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    /// A parser's cached date gives what parsing it again gives, whatever follows it and
    /// whatever came before: a date that failed is never cached.
    @Test func aCachedDateGivesWhatParsingGives() {
        let texts = [
            "2026-03-01T12:00:00Z", "2026-03-01T23:59:59.999999Z", "2026-03-01 00:00:00", "2026-03-01T25:00:00Z",
            "2026-03-01T12:00:00+01:00", "2026-03-01T12:00:00+24:00", "2026-03-01X12:00:00", "2026-03-01T12:00",
            "2026-03-02T00:00:00Z", "2026-02-30T00:00:00Z", "2026-02-30T00:00:00Z", "2024-02-29T10:00:00Z",
            "2023-02-29T10:00:00Z", "\0\0\0\0\0\0\0\0\0\0T00:00:00Z", "2026-03-0aT12:00:00Z", "1969-12-31T23:59:59.5Z",
        ]
        var dayCache = Timestamp.DayCache()
        for text in texts + texts.reversed() + texts {
            let cached = withBytes(text) { Timestamp.parse($0, dayCache: &dayCache) }
            #expect(cached == Timestamp.parse(text), "\(text)")
        }
    }

    @Test func epochMilliseconds() {
        #expect(withBytes("1773664496000") { Timestamp.parseEpochMilliseconds($0) } == 1_773_664_496_000_000)
        // 2000-01-01T00:00:00Z is the earliest; before it, epoch seconds read as milliseconds
        // (1773664496: a day of 2026 in seconds) are no timestamp.
        #expect(withBytes("946684800000") { Timestamp.parseEpochMilliseconds($0) } == 946_684_800_000_000)
        for early in ["946684799999", "1773664496", "0", "1000", "-1500", "0000946684799"] {
            #expect(withBytes(early) { Timestamp.parseEpochMilliseconds($0) } == nil, "\(early)")
        }
        #expect(withBytes("0946684800000") { Timestamp.parseEpochMilliseconds($0) } == 946_684_800_000_000)
        // Fits in Int64 as milliseconds, not as microseconds.
        #expect(withBytes("9223372036854775") { Timestamp.parseEpochMilliseconds($0) } == 9_223_372_036_854_775_000)
        #expect(withBytes("9223372036854776") { Timestamp.parseEpochMilliseconds($0) } == nil)
        #expect(withBytes("99999999999999999999") { Timestamp.parseEpochMilliseconds($0) } == nil)
        for bad in ["", "-", "12a", "1.5", "1e3", " 1", "+1"] {
            #expect(withBytes(bad) { Timestamp.parseEpochMilliseconds($0) } == nil, "\(bad)")
        }
    }

    @Test func formatAndCalendarHelpers() {
        #expect(Timestamp.format(Self.micros(2026, 3, 16, 12, 34, 56)) == "2026-03-16T12:34:56Z")
        #expect(Timestamp.format(Self.micros(2026, 3, 16) + 1) == "2026-03-16T00:00:00.000001Z")
        #expect(Timestamp.format(-1) == "1969-12-31T23:59:59.999999Z")
        #expect(Timestamp.formatDate(Self.micros(2026, 3, 16, 23, 59, 59)) == "2026-03-16")
        #expect(Timestamp.startOfDay(Self.micros(2026, 3, 16, 5)) == Self.micros(2026, 3, 16))
        #expect(Timestamp.startOfDay(-1) == -86_400_000_000)
        for (y, m, d) in [(1970, 1, 1), (2000, 2, 29), (1969, 12, 31), (2026, 3, 16), (1600, 1, 1), (2100, 3, 1)] {
            #expect(Timestamp.daysFromCivil(year: y, month: m, day: d) == Self.days(y, m, d))
            #expect(Timestamp.civilFromDays(Self.days(y, m, d)) == (y, m, d))
        }
        // Every day of a leap cycle round-trips through text.
        var micros = Self.micros(1999, 12, 25, 1, 2, 3)
        for _ in 0..<(366 * 5) {
            #expect(Timestamp.parse(Timestamp.format(micros)) == micros)
            micros += 86_400_000_000 + 1_000_001
        }
    }
}
