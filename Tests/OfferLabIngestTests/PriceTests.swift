import Testing

@testable import OfferLabIngest

@Suite struct PriceTests {
    @Test(
        arguments: [
            ("7.99", 7_990_000), ("1200", 1_200_000_000), ("0", 0), ("-0", 0), ("0.0", 0), ("-7.99", -7_990_000),
            ("0.000001", 1), ("12.345678", 12_345_678), ("007.5", 7_500_000), ("1e3", 1_000_000_000),
            ("1E-6", 1), ("1.5e+2", 150_000_000), ("12.345e-1", 1_234_500), ("2.5E1", 25_000_000),
            ("0.1", 100_000), ("19.990000000", 19_990_000), ("-1", -1_000_000),
        ] as [(String, Int64)])
    func exactValues(text: String, micros: Int64) {
        #expect(Price.parseMicros(text) == micros)
    }

    @Test(
        arguments: [
            // More than six decimals: nearest micro-unit, ties to the even one.
            ("0.0000005", 0), ("0.0000015", 2), ("0.0000025", 2), ("0.0000035", 4), ("0.00000250001", 3),
            ("0.0000004999999", 0), ("0.0000006", 1), ("7.9999995", 7_999_999 + 1), ("7.9999985", 7_999_998),
            ("-0.0000015", -2), ("-0.0000025", -2), ("-0.0000005", 0), ("25e-7", 2), ("35e-7", 4), ("1e-999999999999", 0),
            ("0.00000050000000000000000000000001", 1),
        ] as [(String, Int64)])
    func roundingHalfToEven(text: String, micros: Int64) {
        #expect(Price.parseMicros(text) == micros)
    }

    @Test func magnitudeLimitIsTenToTheTwelveUnits() {
        #expect(Price.parseMicros("1000000000000") == 1_000_000_000_000_000_000)
        #expect(Price.parseMicros("1e12") == Price.maximumMicros)
        #expect(Price.parseMicros("-1e12") == -Price.maximumMicros)
        #expect(Price.parseMicros("1000000000000.0000004") == Price.maximumMicros)
        #expect(Price.parseMicros("1000000000000.000001") == nil)
        #expect(Price.parseMicros("1000000000000.0000006") == nil)  // rounds up past the limit
        #expect(Price.parseMicros("1e13") == nil)
        #expect(Price.parseMicros("-1e13") == nil)
        #expect(Price.parseMicros("99999999999999999999") == nil)
        #expect(Price.parseMicros("1e999999999999") == nil)
        #expect(Price.parseMicros("0e999999999999") == 0)
        #expect(Price.parseMicros(String(repeating: "0", count: 500) + "1.5") == 1_500_000)
    }

    @Test(arguments: [
        "", "-", ".5", "5.", "1e", "1e+", "+1", " 1", "1 ", "0x10", "1,5", "NaN", "Infinity", "1.2.3", "--1", "1e1.5",
        "e5", "1-", "7.99 USD", "$7.99",
    ])
    func notNumbers(text: String) {
        #expect(Price.parseMicros(text) == nil)
    }
}
