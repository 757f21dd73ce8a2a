import OfferLabIngest

/// Store events written in the log format (docs/input-formats.md#json-lines): one JSON object per
/// line, snake_case keys, `ts` and `expires_at` as UTC timestamps, prices in major units. This is
/// what `offerlab events` writes, and what the purchase-log reader reads back as the same events.
public enum StoreEventJSONLines {
    /// One line, without its newline.
    ///
    /// A paid charge whose money is left out (no price: `unpriced_charges`) is written with
    /// `"price": 0`, since the purchase logs require a price on every charge
    /// (docs/input-formats.md#json-lines): it converts the user and adds no money, as
    /// docs/input-formats.md#store-sources-from-records-to-events says of it. Its currency is the
    /// record's, else `XXX` (ISO 4217's "no currency").
    public static func line(_ event: StoreEvent) -> String {
        // Built in one string: a run writes and reads back every store event this way, and
        // an array of fields joined cost a sixth of a 1M-user run on the RevenueCat export.
        var line = "{"
        line.reserveCapacity(400)
        func field(_ key: String, _ value: String) {
            if line.utf8.count > 1 { line += "," }
            line += "\"" + key + "\":" + value
        }
        func text(_ key: String, _ value: String) {
            if line.utf8.count > 1 { line += "," }
            line += "\"" + key + "\":"
            appendQuoted(value, to: &line)
        }
        text("event_id", event.eventID)
        text("ts", Timestamp.format(event.at))
        text("user_id", event.userID)
        text("event", event.event.logName)
        if let productID = event.productID { text("product_id", productID) }
        if let transactionID = event.transactionID { text("transaction_id", transactionID) }
        if let original = event.originalTransactionID { text("original_transaction_id", original) }
        if let price = event.priceMicros {
            field("price", majorUnits(price))
            text("currency", event.currency ?? "XXX")
        } else if event.event.requiresPrice {
            field("price", "0")
            text("currency", event.currency ?? "XXX")
        }
        if event.isSandbox { text("environment", "Sandbox") }
        if let platform = event.platform { text("platform", platform) }
        if let country = event.country { text("country", country) }
        if let store = event.store { text("store", store) }
        if let expiresAt = event.expiresAt { text("expires_at", Timestamp.format(expiresAt)) }
        if let tax = event.taxShare, tax.isFinite { field("tax_percentage", "\(tax)") }
        if let commission = event.commissionShare, commission.isFinite { field("commission_percentage", "\(commission)") }
        line += "}"
        return line
    }

    /// All events, one line each, each ended by a newline.
    public static func text(_ events: [StoreEvent]) -> String {
        events.map { line($0) + "\n" }.joined()
    }

    /// Micro-units as an exact decimal number of major units (`7990000` → `7.99`).
    static func majorUnits(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        let whole = magnitude / 1_000_000
        var fraction = String(magnitude % 1_000_000)
        guard fraction != "0" else { return "\(sign)\(whole)" }
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(sign)\(whole).\(fraction)"
    }

    /// Appends `text` as a JSON string; text with nothing to escape (nearly all) is copied whole.
    static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        defer { out += "\"" }
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
            out += text
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
    }
}
