import OfferLabIngest

/// Time as integer microseconds since 1970-01-01T00:00:00Z, and its text forms.
///
/// Calendar arithmetic is `OfferLabIngest.Timestamp`'s (proleptic Gregorian), no Foundation
/// `Date` or formatter in the hot path.
enum Micros {
    static let second: Int64 = 1_000_000
    static let minute: Int64 = 60 * second
    static let hour: Int64 = 60 * minute
    static let day: Int64 = 24 * hour
}

/// A calendar day (UTC), e.g. the first day of the generated period.
package struct CivilDate: Sendable, Hashable, CustomStringConvertible {
    package var year: Int
    package var month: Int
    package var day: Int

    package init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= Timestamp.daysInMonth(year: year, month: month)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// A date known to be valid (constants).
    init(checkedYear year: Int, month: Int, day: Int) {
        precondition(CivilDate(year: year, month: month, day: day) != nil, "invalid date constant")
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`; nil for anything else or an impossible date.
    package init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Days since 1970-01-01.
    package var daysSinceEpoch: Int64 {
        Timestamp.daysFromCivil(year: year, month: month, day: day)
    }

    /// The date `daysSinceEpoch` days after 1970-01-01.
    package init(daysSinceEpoch: Int64) {
        (year, month, day) = Timestamp.civilFromDays(daysSinceEpoch)
    }

    package var description: String {
        var bytes: [UInt8] = []
        bytes.appendDigits(year, width: 4)
        bytes.appendASCII("-")
        bytes.appendDigits(month, width: 2)
        bytes.appendASCII("-")
        bytes.appendDigits(day, width: 2)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// How one timestamp is written (the grammar of docs/input-formats.md#timestamps: `T` or space, 0–9
/// fraction digits, `Z`, `±HH:MM` or no zone).
struct TimestampStyle {
    enum Zone {
        case utc
        case none
        /// Local time at this offset from UTC, in minutes.
        case offset(Int)
    }

    var separator: UInt8 = UInt8(ascii: "T")
    /// 0 to 9; beyond 6 the microseconds are padded with zeros, so the instant is exact.
    var fractionDigits = 3
    var zone = Zone.utc

    static let mysql = TimestampStyle(separator: UInt8(ascii: " "), fractionDigits: 0, zone: .none)
    static let iso = TimestampStyle(separator: UInt8(ascii: "T"), fractionDigits: 0, zone: .utc)
}

extension Array where Element == UInt8 {
    /// `micros` in the given style. The fraction is truncated to `fractionDigits`.
    mutating func appendTimestamp(_ micros: Int64, style: TimestampStyle) {
        var local = micros
        if case .offset(let minutes) = style.zone { local += Int64(minutes) * Micros.minute }
        let days = local >= 0 ? local / Micros.day : (local - Micros.day + 1) / Micros.day
        let inDay = local - days * Micros.day
        let civil = Timestamp.civilFromDays(days)
        appendDigits(civil.year, width: 4)
        append(UInt8(ascii: "-"))
        appendDigits(civil.month, width: 2)
        append(UInt8(ascii: "-"))
        appendDigits(civil.day, width: 2)
        append(style.separator)
        let seconds = Int(inDay / Micros.second)
        appendDigits(seconds / 3600, width: 2)
        append(UInt8(ascii: ":"))
        appendDigits(seconds / 60 % 60, width: 2)
        append(UInt8(ascii: ":"))
        appendDigits(seconds % 60, width: 2)
        if style.fractionDigits > 0 {
            append(UInt8(ascii: "."))
            let fraction = Int(inDay % Micros.second)
            if style.fractionDigits <= 6 {
                var divisor = 1
                for _ in 0..<(6 - style.fractionDigits) { divisor *= 10 }
                appendDigits(fraction / divisor, width: style.fractionDigits)
            } else {
                appendDigits(fraction, width: 6)
                for _ in 6..<style.fractionDigits { append(UInt8(ascii: "0")) }
            }
        }
        switch style.zone {
        case .utc:
            append(UInt8(ascii: "Z"))
        case .none:
            break
        case .offset(let minutes):
            append(minutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            appendDigits(abs(minutes) / 60, width: 2)
            append(UInt8(ascii: ":"))
            appendDigits(abs(minutes) % 60, width: 2)
        }
    }
}

/// Formats a timestamp at the edges (job file, reports).
func formatTimestamp(_ micros: Int64, style: TimestampStyle) -> String {
    var bytes: [UInt8] = []
    bytes.appendTimestamp(micros, style: style)
    return String(decoding: bytes, as: UTF8.self)
}
