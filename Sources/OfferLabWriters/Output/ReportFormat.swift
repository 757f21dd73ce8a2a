import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabVocabulary

/// Numbers as the report shows them to people: rounded, grouped, signed with a real minus sign.
/// Full precision stays in the CSV files and the database.
///
/// Every function is independent of the machine's locale (`String(format:)` without a locale
/// is the C locale), so the same night always renders the same bytes.
package enum ReportFormat {
    /// U+2212: easier to read than a hyphen next to a number.
    package static let minus = "\u{2212}"

    /// `12,345`.
    package static func count(_ value: Int) -> String {
        grouped(String(value.magnitude), negative: value < 0)
    }

    /// `7.3%` (one decimal).
    package static func percent(_ ratio: Double) -> String {
        fixed(ratio * 100, decimals: 1) + "%"
    }

    /// `+12.3%`, `−4.0%`, `0.0%`: a relative change.
    package static func signedPercent(_ ratio: Double) -> String {
        signedPercent(ratio, decimals: 1)
    }

    /// `+50%` with `decimals` 0 (axis ticks).
    package static func signedPercent(_ ratio: Double, decimals: Int) -> String {
        signed(fixed(ratio * 100, decimals: decimals)) + "%"
    }

    /// `+2.9 pp`: a difference of two rates, in percentage points.
    package static func points(_ difference: Double) -> String {
        signed(fixed(difference * 100, decimals: 1)) + " pp"
    }

    /// `USD 1,234.56`, `USD −1.05`.
    package static func money(_ amount: Double, _ currency: String) -> String {
        "\(currency) \(fixed(amount, decimals: 2))"
    }

    /// `USD +0.16`: a difference of two amounts.
    package static func signedMoney(_ amount: Double, _ currency: String) -> String {
        "\(currency) \(signed(fixed(amount, decimals: 2)))"
    }

    /// How a value of `metric` reads: `7.3%`, `USD 1.05`.
    package static func value(_ metric: OwnMetric, currency: String) -> (Double) -> String {
        switch metric {
        case .conversion: percent
        case .arpu: { money($0, currency) }
        }
    }

    /// How a difference of two values of `metric` reads: `+2.9 pp`, `USD +0.16`.
    package static func difference(_ metric: OwnMetric, currency: String) -> (Double) -> String {
        switch metric {
        case .conversion: points
        case .arpu: { signedMoney($0, currency) }
        }
    }

    /// `p < 0.001`, `p = 0.003`, `p = 0.33`: two significant decimals are all a reader uses.
    package static func pValue(_ p: Double) -> String {
        if p < 0.001 { return "p < 0.001" }
        return "p = " + fixed(p, decimals: p < 0.01 ? 3 : 2)
    }

    /// A probability as a percentage that never rounds to a false certainty: `>99.9%`, `<0.1%`.
    package static func chance(_ probability: Double) -> String {
        if probability >= 0.9995 { return ">99.9%" }
        if probability < 0.0005 { return "<0.1%" }
        return percent(probability)
    }

    /// `1.2 MB`, `830 kB`, `512 B` (decimal units).
    package static func bytes(_ count: Int64) -> String {
        let units: [(Double, String)] = [(1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
        for (size, unit) in units where Double(count) >= size {
            return fixed(Double(count) / size, decimals: 1) + " " + unit
        }
        return "\(count) B"
    }

    /// `14 days`, `1 day`, `0.5 days`.
    package static func days(_ days: Double) -> String {
        let text = days == days.rounded() && abs(days) < 1e9 ? String(Int(days)) : String(days)
        return text + (days == 1 ? " day" : " days")
    }

    /// `14 April`, or `14 April 2027` in another year than the night's: the UTC date `days`
    /// after the night (a decision date a product lead plans on).
    package static func date(_ days: Int, after night: Night) -> String {
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
        ]
        let nightDay = night.microseconds / Microseconds.perDay
        let (year, month, day) = Timestamp.civilFromDays(nightDay + Int64(days))
        let text = "\(day) \(months[month - 1])"
        return year == Timestamp.civilFromDays(nightDay).year ? text : "\(text) \(year)"
    }

    /// `2026-03-15 02:30:07 UTC` from `2026-03-15T02:30:07.123456Z` (other text unchanged).
    package static func timestamp(_ iso: String) -> String {
        guard iso.count >= 20, iso.hasSuffix("Z"), Array(iso)[10] == "T" else { return iso }
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(8)) + " UTC"
    }

    /// `value` rounded to `decimals`, thousands grouped, `−` for negatives, and no `−0.0`.
    package static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "–" }
        let text = String(format: "%.\(decimals)f", value.magnitude)
        let isZero = !text.contains { $0 != "0" && $0 != "." }
        let parts = text.split(separator: ".", maxSplits: 1)
        let integer = grouped(String(parts[0]), negative: value < 0 && !isZero)
        return parts.count > 1 ? integer + "." + parts[1] : integer
    }

    /// `+` before a positive number (not before zero; `−` is already there for negatives).
    private static func signed(_ text: String) -> String {
        text.hasPrefix(minus) || !text.contains(where: { $0 >= "1" && $0 <= "9" }) ? text : "+" + text
    }

    /// Inserts `,` every three digits of `digits` (ASCII digits only).
    private static func grouped(_ digits: String, negative: Bool) -> String {
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return (negative ? minus : "") + result
    }
}
