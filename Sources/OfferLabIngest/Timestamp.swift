import OfferLabVocabulary

/// Timestamps as microseconds since 1970-01-01T00:00:00Z (UTC, proleptic Gregorian calendar).
///
/// One grammar for logs, tables and the job's `as_of`:
///
///     YYYY-MM-DD(T| )HH:MM:SS[.F][Z|+HH:MM|-HH:MM]
///
/// `F` is 1 to 9 digits, kept to the microsecond (digits 7–9 are truncated); no zone means UTC;
/// an offset's hours are at most 23 and its minutes at most 59. Every date and time must exist
/// (`2026-02-30`, `25:00:00`, second `60` are rejected). Nothing else is accepted: no leading or
/// trailing spaces, no lowercase `t` or `z`, no `+HHMM`.
public enum Timestamp {
    public static let microsecondsPerSecond: Int64 = 1_000_000

    /// The last date (`YYYY-MM-DD`) a parser read and its day number: the timestamps of a log
    /// file mostly share their date, which is then neither read nor checked again.
    public struct DayCache: Sendable {
        /// The date's ten bytes, as two loads.
        fileprivate var date: (UInt64, UInt16)?
        fileprivate var days: Int64 = 0

        public init() {}
    }

    /// Parses the text grammar; nil when the text breaks it.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var dayCache = DayCache()
        return parse(bytes, dayCache: &dayCache)
    }

    /// Parses the text grammar, reusing the date of the previous call when the text starts with
    /// the same ten bytes (the same result as without the cache); nil when the text breaks it.
    public static func parse(_ bytes: UnsafeRawBufferPointer, dayCache: inout DayCache) -> Int64? {
        let count = bytes.count
        guard count >= 19, let base = bytes.baseAddress else { return nil }
        let p = base.assumingMemoryBound(to: UInt8.self)
        let date = (base.loadUnaligned(as: UInt64.self), base.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        let days: Int64
        if let cached = dayCache.date, cached == date {
            days = dayCache.days
        } else {
            guard let year = digits(p, 0, 4), p[4] == 0x2D,  // -
                let month = digits(p, 5, 2), p[7] == 0x2D,
                let day = digits(p, 8, 2),
                month >= 1, month <= 12, day >= 1, day <= daysInMonth(year: year, month: month)
            else { return nil }
            days = daysFromCivil(year: year, month: month, day: day)
            dayCache.date = date
            dayCache.days = days
        }
        guard p[10] == 0x54 || p[10] == 0x20,  // T or space
            let (hour, minute, second) = clock(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 11, as: UInt64.self))),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var index = 19
        var micros: Int64 = 0
        // Milliseconds, then the end or `Z`: how most logs write it, read without the loop below.
        if count == 23 || (count == 24 && p[23] == 0x5A), p[19] == 0x2E,  // . Z
            case (let a, let b, let c) = (p[20] &- 0x30, p[21] &- 0x30, p[22] &- 0x30), a < 10, b < 10, c < 10
        {
            micros = (Int64(a) * 100 + Int64(b) * 10 + Int64(c)) * 1000
            index = count
        } else if index < count, p[index] == 0x2E {  // .
            index += 1
            let fractionStart = index
            while index < count, p[index] &- 0x30 < 10, index - fractionStart < 10 {
                if index - fractionStart < 6 { micros = micros * 10 + Int64(p[index] &- 0x30) }
                index += 1
            }
            let fractionDigits = index - fractionStart
            guard fractionDigits >= 1, fractionDigits <= 9 else { return nil }
            for _ in fractionDigits..<max(fractionDigits, 6) { micros *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if index < count {
            switch p[index] {
            case 0x5A:  // Z
                index += 1
            case 0x2B, 0x2D:  // + -
                guard count - index >= 6, let offsetHours = digits(p, index + 1, 2), p[index + 3] == 0x3A,
                    let offsetMinutes = digits(p, index + 4, 2), offsetHours <= 23, offsetMinutes <= 59
                else { return nil }
                offsetSeconds = Int64(offsetHours * 3600 + offsetMinutes * 60)
                if p[index] == 0x2D { offsetSeconds = -offsetSeconds }
                index += 6
            default:
                return nil
            }
        }
        guard index == count else { return nil }
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offsetSeconds
        return seconds * microsecondsPerSecond + micros
    }

    /// Parses the text grammar; nil when the text breaks it.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// 2000-01-01T00:00:00Z in microseconds, like every timestamp here: epoch milliseconds before
    /// it are no log's events but epoch *seconds* read as milliseconds (a day of 2026 in seconds
    /// is January 1970 in milliseconds), so they break the grammar rather than count as events
    /// of 1970.
    public static let earliestEpochMilliseconds: Int64 = 946_684_800_000_000

    /// Epoch milliseconds written as ASCII digits (a JSON integer, a CSV cell) → microseconds;
    /// nil when it is not that, does not fit, or is before `earliestEpochMilliseconds` (a `-`
    /// sign, always before it, is not read).
    public static func parseEpochMilliseconds(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        // Thirteen digits (every millisecond from 2001-09-09 to 2286-11-20), read as two words.
        if bytes.count == 13, let base = bytes.baseAddress,
            let first = eightDigits(UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))),
            let last = eightDigits(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 5, as: UInt64.self)))
        {
            // The two words overlap by three digits: the last five are those of the second.
            let micros = (first * 100_000 + last % 100_000) * 1000
            // Below only with leading zeros.
            return micros >= earliestEpochMilliseconds ? micros : nil
        }
        guard !bytes.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            let digit = byte &- 0x30
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        guard let micros = fromEpochMilliseconds(value), micros >= earliestEpochMilliseconds else { return nil }
        return micros
    }

    /// Milliseconds → microseconds; nil on overflow.
    @inline(__always)
    public static func fromEpochMilliseconds(_ milliseconds: Int64) -> Int64? {
        let (micros, overflow) = milliseconds.multipliedReportingOverflow(by: 1000)
        return overflow ? nil : micros
    }

    /// Whether the bytes are one or more ASCII digits (a CSV log's epoch-milliseconds `ts`).
    @inline(__always)
    public static func isAllDigits(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty else { return false }
        for byte in bytes where byte &- 0x30 >= 10 { return false }
        return true
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.ffffff` when the microseconds are not 0.
    public static func format(_ micros: Int64) -> String {
        let (days, rest) = floorDivide(micros, Microseconds.perDay)
        let (year, month, day) = civilFromDays(days)
        let secondOfDay = Int(rest / microsecondsPerSecond)
        let fraction = Int(rest % microsecondsPerSecond)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
        text += "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if fraction != 0 { text += ".\(pad(fraction, 6))" }
        return text + "Z"
    }

    /// `YYYY-MM-DD` of the UTC day that holds `micros`.
    public static func formatDate(_ micros: Int64) -> String {
        String(format(startOfDay(micros)).prefix(10))
    }

    /// The start (00:00:00 UTC) of the day that holds `micros`.
    public static func startOfDay(_ micros: Int64) -> Int64 {
        floorDivide(micros, Microseconds.perDay).quotient * Microseconds.perDay
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day number (days since 1970-01-01).
    public static func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // MARK: - Internal machinery

    /// `word` (eight bytes, first byte lowest) XOR `pattern`, when that makes every byte 0–9:
    /// the digits' values where `pattern` has `0x30`. A digit becomes 0–9 and any other byte of
    /// 0x30–0x3F 10–15; so each byte must be below 16, then below 10 (adding 0x76 sets its top bit
    /// from 10, and no carry reaches the next byte).
    @inline(__always)
    private static func digitValues(_ word: UInt64, xor pattern: UInt64) -> UInt64? {
        let values = word ^ pattern
        guard values & 0xF0F0_F0F0_F0F0_F0F0 == 0, (values &+ 0x7676_7676_7676_7676) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return values
    }

    /// The number written by the eight ASCII digits of `word` (first byte lowest, most
    /// significant digit), or nil when a byte is not a digit.
    @inline(__always)
    static func eightDigits(_ word: UInt64) -> Int64? {
        guard let values = digitValues(word, xor: 0x3030_3030_3030_3030) else { return nil }
        // Pairs of digits, then fours, then all eight, each step a multiply and a shift.
        let pairs = (values &* (10 << 8 + 1)) >> 8 & 0x00FF_00FF_00FF_00FF
        let fours = (pairs &* (100 << 16 + 1)) >> 16 & 0x0000_FFFF_0000_FFFF
        return Int64((fours &* (10_000 << 32 + 1)) >> 32)
    }

    /// `HH:MM:SS` in the eight bytes of `word` (first byte lowest), all at once: nil unless
    /// the six digits are ASCII digits and the two colons are colons.
    @inline(__always)
    static func clock(_ word: UInt64) -> (hour: Int, minute: Int, second: Int)? {
        // Colons become 0 too.
        guard let values = digitValues(word, xor: 0x3030_3A30_303A_3030), values & 0x0000_FF00_00FF_0000 == 0 else { return nil }
        // Byte k becomes 10 × digit k + digit k + 1 (at most 99: no carry).
        let pairs = values &* 10 &+ (values >> 8)
        return (Int(pairs & 0xFF), Int(pairs >> 24 & 0xFF), Int(pairs >> 48 & 0xFF))
    }

    @inline(__always)
    private static func digits(_ p: UnsafePointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<(start + count) {
            let digit = p[index] &- 0x30
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (quotient: Int64, remainder: Int64) {
        var q = a / b
        var r = a % b
        if r < 0 {
            q -= 1
            r += b
        }
        return (q, r)
    }
}
