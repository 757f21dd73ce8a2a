import OfferLabIngest

/// Store events written in the log format of contract §1.2: one JSON object per line, snake_case
/// keys, `ts` and `expires_at` as UTC timestamps, prices in major units. This is what
/// `offerlab events` writes, and what the §1.2 reader reads back as the same events.
public enum StoreEventJSONLines {
    /// One line, without its newline.
    ///
    /// A paid charge whose money is left out (no price: `unpriced_charges`) is written with
    /// `"price": 0`, since §1.2 requires a price on every charge: it converts the user and adds
    /// no money, as the contract says of it. Its currency is the record's, else `XXX` (ISO 4217's
    /// "no currency").
    public static func line(_ event: StoreEvent) -> String {
        var fields: [(String, String)] = [
            ("event_id", quoted(event.eventID)), ("ts", quoted(Timestamp.format(event.at))), ("user_id", quoted(event.userID)),
            ("event", quoted(event.event.logName)),
        ]
        if let productID = event.productID { fields.append(("product_id", quoted(productID))) }
        if let transactionID = event.transactionID { fields.append(("transaction_id", quoted(transactionID))) }
        if let original = event.originalTransactionID { fields.append(("original_transaction_id", quoted(original))) }
        if let price = event.priceMicros {
            fields.append(("price", majorUnits(price)))
            fields.append(("currency", quoted(event.currency ?? "XXX")))
        } else if event.event.requiresPrice {
            fields.append(("price", "0"))
            fields.append(("currency", quoted(event.currency ?? "XXX")))
        }
        if event.isSandbox { fields.append(("environment", quoted("Sandbox"))) }
        if let platform = event.platform { fields.append(("platform", quoted(platform))) }
        if let country = event.country { fields.append(("country", quoted(country))) }
        if let store = event.store { fields.append(("store", quoted(store))) }
        if let expiresAt = event.expiresAt { fields.append(("expires_at", quoted(Timestamp.format(expiresAt)))) }
        if let tax = event.taxShare, tax.isFinite { fields.append(("tax_percentage", "\(tax)")) }
        if let commission = event.commissionShare, commission.isFinite { fields.append(("commission_percentage", "\(commission)")) }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
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

    /// A JSON string: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
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
        return out + "\""
    }
}
