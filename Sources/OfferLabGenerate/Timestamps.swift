/// Time as integer microseconds since 1970-01-01T00:00:00Z, and its text forms.
///
/// Calendar arithmetic is Howard Hinnant's `days_from_civil` / `civil_from_days`: proleptic
/// Gregorian, no Foundation `Date` or formatter in the hot path.
enum Micros {
    static let second: Int64 = 1_000_000
    static let minute: Int64 = 60 * second
    static let hour: Int64 = 60 * minute
    static let day: Int64 = 24 * hour
}

/// A calendar day (UTC), e.g. the first day of the generated period.
public struct CivilDate: Sendable, Hashable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= CivilDate.daysInMonth(year: year, month: month)
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
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int64 {
        CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(day))
    }

    /// The date `daysSinceEpoch` days after 1970-01-01.
    public init(daysSinceEpoch: Int64) {
        let civil = CivilDate.civil(days: daysSinceEpoch)
        year = Int(civil.year)
        month = Int(civil.month)
        day = Int(civil.day)
    }

    public var description: String {
        var bytes: [UInt8] = []
        bytes.appendDigits(year, width: 4)
        bytes.appendASCII("-")
        bytes.appendDigits(month, width: 2)
        bytes.appendASCII("-")
        bytes.appendDigits(day, width: 2)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// How one timestamp is written (contract grammar: `T` or space, 0–9 fraction digits, `Z`,
/// `±HH:MM` or no zone).
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
        let civil = CivilDate.civil(days: days)
        appendDigits(Int(civil.year), width: 4)
        append(UInt8(ascii: "-"))
        appendDigits(Int(civil.month), width: 2)
        append(UInt8(ascii: "-"))
        appendDigits(Int(civil.day), width: 2)
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
