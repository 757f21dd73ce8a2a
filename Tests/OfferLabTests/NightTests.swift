import Testing

@testable import OfferLabJob

/// `Night`: the job's `as_of` parsed once, and its three forms. 2026-03-15T00:00:00Z is
/// 1_773_532_800 s (2026-01-01 is 1_767_225_600 s, and 31 + 28 + 14 days follow).
@Suite struct NightTests {
    static let march15: Int64 = 1_773_532_800_000_000

    @Test func aDateIsItsMidnightUTC() throws {
        let night = try #require(Night(parsing: "2026-03-15"))
        #expect(night.microseconds == Self.march15)
        #expect(night.date == "2026-03-15")
        #expect(night.isoText == "2026-03-15T00:00:00Z")
    }

    @Test func aTimestampKeepsItsInstantAndTakesItsUTCDate() throws {
        // 18:30 at +02:00 is 16:30 UTC: 16.5 h after midnight.
        let evening = try #require(Night(parsing: "2026-03-15T18:30:00+02:00"))
        #expect(evening.microseconds == Self.march15 + 59_400_000_000)
        #expect(evening.date == "2026-03-15")
        #expect(evening.isoText == "2026-03-15T16:30:00Z")
        // 01:00 at +02:00 on the 16th is still the 15th in UTC.
        #expect(Night(parsing: "2026-03-16T01:00:00+02:00")?.date == "2026-03-15")
        // Half a second before the 16th: the fraction is written to the microsecond.
        let late = try #require(Night(parsing: "2026-03-15T23:59:59.5Z"))
        #expect(late.microseconds == Self.march15 + 86_399_500_000)
        #expect(late.isoText == "2026-03-15T23:59:59.500000Z")
        #expect(late.date == "2026-03-15")
    }

    @Test func textThatIsNeitherIsRejected() {
        for text in ["", "2026-02-30", "2026-3-15", "15/03/2026", "2026-03-15 ", "2026-03-15t00:00:00z"] {
            #expect(Night(parsing: text) == nil, "\(text)")
        }
    }

    @Test func itsFormsParseBackToIt() throws {
        for text in ["2026-03-15", "2026-03-15T16:30:00Z", "2026-03-15T23:59:59.000001Z", "1999-12-31T23:00:00-05:00"] {
            let night = try #require(Night(parsing: text))
            #expect(Night(parsing: night.isoText) == night)
            #expect(Night(parsing: night.date) == Night(microseconds: night.microseconds - night.microseconds % 86_400_000_000))
        }
        #expect(Night(microseconds: Self.march15) == Night(parsing: "2026-03-15T00:00:00Z"))
    }

    @Test func nightsOrderByTheirInstant() throws {
        let nights = try ["2026-03-16", "2026-03-15T00:00:00.000001Z", "2026-03-15", "2026-03-15T23:59:59Z"].map {
            try #require(Night(parsing: $0))
        }
        #expect(
            nights.sorted().map(\.isoText) == [
                "2026-03-15T00:00:00Z", "2026-03-15T00:00:00.000001Z", "2026-03-15T23:59:59Z", "2026-03-16T00:00:00Z",
            ])
        #expect(Night(microseconds: Self.march15) < Night(microseconds: Self.march15 + 1))
        #expect(!(Night(microseconds: Self.march15) < Night(microseconds: Self.march15)))
    }
}
