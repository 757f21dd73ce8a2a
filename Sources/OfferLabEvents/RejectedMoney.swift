import Foundation
import OfferLabIngest

/// The money named by malformed log lines (docs/reliability.md, Money in rejected lines): a
/// purchase of USD 1,000 with broken JSON, a price written `"$1,000.00"`, a timestamp with
/// `+0100` are left out like any malformed line, but never in silence.
///
/// A line is broken, so it is read as far as it can be: a line whose `event` (a JSON key, or a
/// CSV cell) is `purchase`, `renewal` or `refund` names money, and so does one that names a
/// `price` when its event cannot be read (a price on a `paywall_view` is no money the analysis
/// would count). Its amount is read when its `price` reads as a price and a `currency` is
/// given (a negative price names money too: its magnitude is added, and kept apart so that the
/// warning says it was negative), else it counts as unreadable. Only
/// malformed lines are read this way: the hot path never is.
package struct RejectedMoney: Sendable, Equatable {
    /// Lines whose amount could not be read.
    package var unreadable = 0
    /// Per currency code (upper-case, as rates are looked up): the lines, and their amounts'
    /// sum in micro-units (saturating).
    package var amounts: [String: Amount] = [:]

    package struct Amount: Sendable, Equatable {
        package var lines: Int
        /// Σ |price|, saturating.
        package var micros: Int64
        /// Σ of the negative prices (≤ 0), saturating.
        package var negativeMicros: Int64

        package init(lines: Int, micros: Int64, negativeMicros: Int64 = 0) {
            self.lines = lines
            self.micros = micros
            self.negativeMicros = negativeMicros
        }
    }

    package init(unreadable: Int = 0, amounts: [String: Amount] = [:]) {
        self.unreadable = unreadable
        self.amounts = amounts
    }

    package var isEmpty: Bool { unreadable == 0 && amounts.isEmpty }

    /// Malformed lines that named money.
    package var lines: Int { amounts.values.reduce(unreadable) { $0 + $1.lines } }

    /// Counts `line` if it names money.
    package mutating func count(_ line: UnsafeRawBufferPointer) {
        switch Self.money(in: line) {
        case nil: return
        case .unreadable: unreadable += 1
        case .amount(let currency, let micros):
            add(currency: currency, Amount(lines: 1, micros: micros == .min ? .max : abs(micros), negativeMicros: min(0, micros)))
        }
    }

    /// Adds another batch's.
    package mutating func add(_ other: RejectedMoney) {
        unreadable += other.unreadable
        for (currency, amount) in other.amounts { add(currency: currency, amount) }
    }

    private mutating func add(currency: String, _ amount: Amount) {
        var sum = amounts[currency, default: Amount(lines: 0, micros: 0)]
        sum.lines += amount.lines
        let (micros, overflow) = sum.micros.addingReportingOverflow(amount.micros)
        sum.micros = overflow ? .max : micros
        let (negative, negativeOverflow) = sum.negativeMicros.addingReportingOverflow(amount.negativeMicros)
        sum.negativeMicros = negativeOverflow ? .min : negative
        amounts[currency] = sum
    }

    /// What a malformed line names.
    package enum Named: Equatable {
        /// An amount of a currency (upper-case code), in micro-units, with its sign.
        case amount(currency: String, micros: Int64)
        /// Money whose amount cannot be read.
        case unreadable
    }

    /// The money `line` names; nil when it names none.
    package static func money(in line: UnsafeRawBufferPointer) -> Named? {
        let price = jsonValue(of: "price", in: line)
        let namesMoney: Bool
        if let event = jsonValue(of: "event", in: line) {
            namesMoney = moneyEvents.contains(String(decoding: event, as: UTF8.self))
        } else {
            namesMoney = price != nil || csvCells(of: line).contains(where: moneyEvents.contains)
        }
        guard namesMoney else { return nil }
        guard let price, let micros = Price.parseMicros(price), let currency = jsonValue(of: "currency", in: line), !currency.isEmpty
        else { return .unreadable }
        return .amount(
            currency: String(decoding: currency, as: UTF8.self).uppercased(), micros: micros)
    }

    private static let moneyEvents = Set(EventType.allCases.filter(\.carriesMoney).map(\.logName))

    /// The value of the first `"key"` followed by `:` in `line`: a string's content (escapes
    /// left as they are), or a bare value up to `,`, `}` or a space; nil when there is none.
    package static func jsonValue(of key: String, in line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let pattern = Array("\"\(key)\"".utf8)
        var start = 0
        while start + pattern.count <= line.count {
            guard let found = find(pattern, in: line, from: start) else { return nil }
            var index = found + pattern.count
            func skipSpaces() { while index < line.count, line[index] == 0x20 || line[index] == 0x09 { index += 1 } }
            skipSpaces()
            guard index < line.count, line[index] == UInt8(ascii: ":") else {
                start = found + 1
                continue
            }
            index += 1
            skipSpaces()
            guard index < line.count else { return nil }
            if line[index] == UInt8(ascii: "\"") {
                let valueStart = index + 1
                var end = valueStart
                while end < line.count, line[end] != UInt8(ascii: "\"") { end += line[end] == UInt8(ascii: "\\") ? 2 : 1 }
                return UnsafeRawBufferPointer(rebasing: line[valueStart..<min(end, line.count)])
            }
            var end = index
            while end < line.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), 0x20, 0x09].contains(line[end]) { end += 1 }
            return UnsafeRawBufferPointer(rebasing: line[index..<end])
        }
        return nil
    }

    /// The line's cells split at commas, without surrounding quotes (a broken CSV row is not
    /// parsed: this only looks for a money event's name).
    private static func csvCells(of line: UnsafeRawBufferPointer) -> [String] {
        line.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { cell in
            String(decoding: cell, as: UTF8.self).trimmingCharacters(in: ["\"", " "])
        }
    }

    private static func find(_ pattern: [UInt8], in line: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard pattern.count <= line.count else { return nil }
        var index = start
        while index + pattern.count <= line.count {
            if line[index] == pattern[0], pattern.indices.allSatisfy({ line[index + $0] == pattern[$0] }) { return index }
            index += 1
        }
        return nil
    }
}
