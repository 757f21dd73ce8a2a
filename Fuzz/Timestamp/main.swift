// Fuzz target `timestamp`: `Timestamp.parse` (the text grammar), epoch milliseconds, and
// formatting, against a plain reference.
//
// Checks: no crash; `parse` agrees with a reference that counts days year by year, also with
// the date of earlier inputs in its day cache; a parsed
// value formats to text that parses back to it (years 0000–9999); the epoch-millisecond reader
// agrees with `Int64(String)` × 1000 (overflow: nil).

import OfferLabVocabulary

/// Days from 1970-01-01 to January 1st of each year 0…10000, counted one year at a time.
let daysBeforeYear: [Int64] = {
    func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }
    var days: [Int64] = [0]
    for year in 0..<10_000 { days.append(days[year] + (isLeap(year) ? 366 : 365)) }
    return days.map { $0 - days[1970] }
}()

/// The grammar `YYYY-MM-DD(T| )HH:MM:SS[.F{1,9}][Z|±HH:MM]`, read field by field.
func referenceParse(_ text: [UInt8]) -> Int64? {
    func number(_ range: Range<Int>) -> Int? {
        guard range.upperBound <= text.count, text[range].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(String(decoding: text[range], as: UTF8.self))
    }
    func byte(_ index: Int) -> UInt8? { index < text.count ? text[index] : nil }
    guard let year = number(0..<4), byte(4) == UInt8(ascii: "-"), let month = number(5..<7), byte(7) == UInt8(ascii: "-"),
        let day = number(8..<10), byte(10) == UInt8(ascii: "T") || byte(10) == UInt8(ascii: " "), let hour = number(11..<13),
        byte(13) == UInt8(ascii: ":"), let minute = number(14..<16), byte(16) == UInt8(ascii: ":"), let second = number(17..<19)
    else { return nil }
    let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let monthLengths = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    guard (1...12).contains(month), (1...monthLengths[month - 1]).contains(day), hour < 24, minute < 60, second < 60 else {
        return nil
    }
    var index = 19
    var micros: Int64 = 0
    if byte(index) == UInt8(ascii: ".") {
        var digits: [UInt8] = []
        index += 1
        while let c = byte(index), c >= 0x30, c <= 0x39 {
            digits.append(c)
            index += 1
        }
        guard (1...9).contains(digits.count) else { return nil }
        let padded = (digits + Array(repeating: UInt8(ascii: "0"), count: 6)).prefix(6)
        micros = Int64(String(decoding: padded, as: UTF8.self)) ?? 0
    }
    var offset = 0
    if byte(index) == UInt8(ascii: "Z") {
        index += 1
    } else if let sign = byte(index), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
        guard let hours = number(index + 1..<index + 3), byte(index + 3) == UInt8(ascii: ":"),
            let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60
        else { return nil }
        offset = (hours * 60 + minutes) * 60 * (sign == UInt8(ascii: "-") ? -1 : 1)
        index += 6
    }
    guard index == text.count else { return nil }
    let days = daysBeforeYear[year] + Int64(monthLengths.prefix(month - 1).reduce(0, +) + day - 1)
    return (days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset)) * 1_000_000 + micros
}

/// `Int64(String)` × 1000, without a sign (which `Int64(String)` accepts), from 2000-01-01 on.
func referenceEpochMilliseconds(_ text: [UInt8]) -> Int64? {
    guard text.first != UInt8(ascii: "+"), text.first != UInt8(ascii: "-"),
        let milliseconds = Int64(String(decoding: text, as: UTF8.self))
    else { return nil }
    let (micros, overflow) = milliseconds.multipliedReportingOverflow(by: 1000)
    return overflow || micros < Timestamp.earliestEpochMilliseconds ? nil : micros
}

/// Kept from input to input, as a parser keeps it from line to line.
nonisolated(unsafe) private var dayCache = Timestamp.DayCache()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimestamp(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzInput(data, size).rest
    let text = Array(bytes)
    let parsed = Timestamp.parse(bytes)
    require(parsed == referenceParse(text), "parse: \(String(describing: parsed)), reference: \(String(describing: referenceParse(text)))")
    // The cache holds the date of an earlier input: often the same ten bytes, then other ones.
    require(Timestamp.parse(bytes, dayCache: &dayCache) == parsed, "parse with the previous inputs' date cached differs")
    if let parsed, parsed >= daysBeforeYear[0] * Microseconds.perDay,
        parsed < daysBeforeYear[10_000] * Microseconds.perDay
    {
        let formatted = Timestamp.format(parsed)
        require(Timestamp.parse(formatted) == parsed, "\(formatted) does not read back as \(parsed)")
        require(Timestamp.formatDate(parsed) == String(formatted.prefix(10)), "formatDate differs from format")
        let start = Timestamp.startOfDay(parsed)
        require(start <= parsed && parsed - start < Microseconds.perDay && start % Microseconds.perDay == 0, "startOfDay")
    }
    let milliseconds = Timestamp.parseEpochMilliseconds(bytes)
    require(milliseconds == referenceEpochMilliseconds(text), "epoch milliseconds differ from Int64(String)")
    require(Timestamp.isAllDigits(bytes) == (!text.isEmpty && text.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }), "isAllDigits")
    return 0
}
