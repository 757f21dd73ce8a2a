import Foundation
import OfferLabIngest

/// Formatting and parsing of UTC times held as microseconds since the epoch.
enum UTCTime {
    static let microsecondsPerDay: Int64 = 86_400_000_000

    /// `as_of` from the job file or the command line: a timestamp of the log grammar, or a
    /// date alone (`2026-03-16` = its 00:00 UTC).
    static func parseAsOf(_ text: String) -> Int64? {
        let withTime = text.count == 10 ? text + "T00:00:00Z" : text
        var bytes = Array(withTime.utf8)
        return bytes.withUnsafeMutableBytes { TimestampParser.parse(UnsafeRawBufferPointer($0)) }
    }

    static func startOfDay(microseconds: Int64) -> Int64 {
        floorDivide(microseconds, microsecondsPerDay) * microsecondsPerDay
    }

    /// `YYYY-MM-DD`.
    static func dateText(microseconds: Int64) -> String {
        let (year, month, day) = civilDate(daysSinceEpoch: floorDivide(microseconds, microsecondsPerDay))
        return String(format: "%04lld-%02lld-%02lld", year, month, day)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.ffffff` when there are microseconds.
    static func isoText(microseconds: Int64) -> String {
        let day = floorDivide(microseconds, microsecondsPerDay)
        let inDay = microseconds - day * microsecondsPerDay
        let seconds = inDay / 1_000_000
        let fraction = inDay % 1_000_000
        var text = dateText(microseconds: microseconds)
            + String(format: "T%02lld:%02lld:%02lld", seconds / 3600, seconds / 60 % 60, seconds % 60)
        if fraction != 0 { text += String(format: ".%06lld", fraction) }
        return text + "Z"
    }

    static func isoText(date: Date) -> String {
        isoText(microseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded()))
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    /// Howard Hinnant's civil-from-days: the proleptic Gregorian date of a day number.
    private static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
