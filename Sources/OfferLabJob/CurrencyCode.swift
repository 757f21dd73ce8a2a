/// The form of a currency code in a job (README, The job file): three upper-case letters, as ISO 4217
/// writes them. Log events are compared with the codes as given, so `usd` would never match
/// the `USD` of the logs and its money would be left out.
package enum CurrencyCode {
    /// What is wrong with `code`, with a hint when its upper-case form would do; nil when it is
    /// well formed.
    package static func problem(_ code: String) -> String? {
        func isLetters(_ text: String, in range: ClosedRange<UInt8>) -> Bool {
            text.utf8.count == 3 && text.utf8.allSatisfy { range.contains($0) }
        }
        if isLetters(code, in: UInt8(ascii: "A")...UInt8(ascii: "Z")) { return nil }
        let upper = code.uppercased()
        if isLetters(upper, in: UInt8(ascii: "A")...UInt8(ascii: "Z")) {
            return "'\(code)': currency codes are upper-case ISO 4217 codes: did you mean \(upper)?"
        }
        return "'\(code)': currency codes are upper-case ISO 4217 codes (three letters, like USD)"
    }
}
