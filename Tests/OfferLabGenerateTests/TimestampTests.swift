import OfferLabStatistics
import Testing

@testable import OfferLabGenerate

@Suite struct TimestampTests {
    static let instant: Int64 = 1_772_364_151_482_517  // 2026-03-01T11:22:31.482517Z

    @Test(arguments: [
        (TimestampStyle(separator: UInt8(ascii: "T"), fractionDigits: 3, zone: .utc), "2026-03-01T11:22:31.482Z"),
        (TimestampStyle(separator: UInt8(ascii: " "), fractionDigits: 0, zone: .none), "2026-03-01 11:22:31"),
        (TimestampStyle(separator: UInt8(ascii: "T"), fractionDigits: 1, zone: .offset(120)), "2026-03-01T13:22:31.4+02:00"),
        (TimestampStyle(separator: UInt8(ascii: "T"), fractionDigits: 9, zone: .offset(-480)), "2026-03-01T03:22:31.482517000-08:00"),
        (TimestampStyle(separator: UInt8(ascii: "T"), fractionDigits: 6, zone: .offset(-720)), "2026-02-28T23:22:31.482517-12:00"),
    ])
    func formats(style: TimestampStyle, expected: String) {
        #expect(formatTimestamp(Self.instant, style: style) == expected)
    }

    @Test func everyStyleReadsBackToTheTruncatedInstant() {
        var random = SplitMix64(seed: 99, stream: 0)
        for _ in 0..<2000 {
            let instant = random.between(-10 * Micros.day, 30_000 * Micros.day)
            let digits = random.below(10)
            let zones: [TimestampStyle.Zone] = [.utc, .none, .offset(random.below(1381) - 690)]
            let style = TimestampStyle(
                separator: random.chance(0.5) ? UInt8(ascii: "T") : UInt8(ascii: " "), fractionDigits: digits,
                zone: zones[random.below(3)])
            let text = formatTimestamp(instant, style: style)
            var unit: Int64 = 1
            for _ in 0..<(6 - min(digits, 6)) { unit *= 10 }
            let truncated = instant - ((instant % unit) + unit) % unit
            #expect(ContractChecker.parseTimestamp(text) == truncated, "\(text)")
        }
    }

    @Test func civilDates() {
        #expect(CivilDate(parsing: "2026-03-01")?.daysSinceEpoch == 20513)
        #expect(CivilDate(parsing: "2026-02-30") == nil)
        #expect(CivilDate(parsing: "2026-3-1") == nil)
        #expect(CivilDate(parsing: "2024-02-29") != nil)
        #expect(CivilDate(daysSinceEpoch: 0).description == "1970-01-01")
        #expect(CivilDate(daysSinceEpoch: 20513 + 14).description == "2026-03-15")
    }

    @Test func moneyAndIDs() {
        var bytes: [UInt8] = []
        bytes.appendMoney(minorUnits: 799, exponent: 2)
        bytes.append(32)
        bytes.appendMoney(minorUnits: 1200, exponent: 0)
        bytes.append(32)
        bytes.appendMoney(minorUnits: 5, exponent: 2)
        bytes.append(32)
        bytes.appendMoney(minorUnits: -799, exponent: 2)
        bytes.append(32)
        bytes.appendUUID(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        #expect(String(decoding: bytes, as: UTF8.self) == "7.99 1200 0.05 -7.99 01234567-89ab-4def-bedc-ba9876543210")
    }
}
