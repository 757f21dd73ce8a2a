import OfferLabIngest

/// An independent reading of the log format (docs/analysis.md, Log fields; docs/reliability.md, Broken log lines) for the tests: parses a generated line the way
/// docs/input-formats.md#purchase-logs describes and says whether it is valid, or malformed and
/// why.
struct CheckedEvent {
    var eventID: String?
    /// Microseconds since the epoch.
    var timestamp: Int64
    var timestampWasInteger: Bool
    var userID: String
    var userIDWasInteger: Bool
    var event: String
    var productID: String?
    var transactionID: String?
    var transactionIDWasInteger: Bool
    var originalTransactionID: String?
    var price: String?
    var priceWasString: Bool
    var currency: String?
    var offeringID: String?
    var testGroupID: String?
    var environment: String?
    var usedCamelCase: Bool
    var hadBothSpellings: Bool

    var isSandbox: Bool { environment?.lowercased() == "sandbox" }
}

enum Verdict {
    case valid(CheckedEvent)
    case malformed(MalformedReason)
}

enum ContractChecker {
    static let camelKeys = [
        "user_id": "userId", "event_id": "eventId", "offering_id": "offeringId", "test_group_id": "testGroupId",
        "product_id": "productId", "transaction_id": "transactionId", "original_transaction_id": "originalTransactionId",
    ]
    static let transactionEvents: Set<String> = ["trial_start", "purchase", "renewal", "refund"]

    /// A field value as docs/input-formats.md#json-lines sees it: string, integer (decimal text),
    /// other, or absent.
    enum Field {
        case string(String)
        case integer(String)
        case other(JSONValue)

        var text: String? {
            switch self {
            case .string(let text), .integer(let text): text
            case .other: nil
            }
        }
    }

    // MARK: JSON Lines

    static func checkJSON(_ line: [UInt8]) -> Verdict {
        guard let value = MiniJSON.parse(line), case .object(let members) = value else {
            return .malformed(.invalidJSON)
        }
        var usedCamel = false
        var both = false
        func field(_ key: String) -> Field? {
            var found: JSONValue? = members.first { $0.0 == key }?.1
            if found == .null { found = nil }
            if let camel = camelKeys[key] {
                var camelValue = members.first { $0.0 == camel }?.1
                if camelValue == .null { camelValue = nil }
                if camelValue != nil {
                    if found == nil { usedCamel = true } else { both = true }
                }
                if found == nil { found = camelValue }
            }
            switch found {
            case nil: return nil
            case .string(let text)?: return .string(text)
            case .integer(let text)?: return .integer(text)
            case let other?: return .other(other)
            }
        }
        let ts = field("ts")
        let user = field("user_id")
        let event = field("event")
        guard let ts, let user, let event else { return .malformed(.missingField) }
        guard let userID = user.text, !userID.isEmpty else { return .malformed(.invalidField) }
        guard case .string(let eventName) = event else { return .malformed(.invalidField) }
        let price = field("price")
        if let price {
            switch price {
            case .integer: break
            case .string(let text): if !isNumeric(text) { return .malformed(.invalidField) }
            case .other(let value): if case .float = value {} else { return .malformed(.invalidField) }
            }
        }
        let timestamp: Int64
        switch ts {
        case .integer(let text):
            guard let millis = Int64(text) else { return .malformed(.badTimestamp) }
            timestamp = millis * 1000
        case .string(let text):
            guard let micros = parseTimestamp(text) else { return .malformed(.badTimestamp) }
            timestamp = micros
        case .other:
            return .malformed(.badTimestamp)
        }
        let product = field("product_id")
        let transaction = field("transaction_id")
        let currency = field("currency")
        if transactionEvents.contains(eventName) && (product == nil || transaction == nil) {
            return .malformed(.missingField)
        }
        if (eventName == "purchase" || eventName == "renewal") && price == nil { return .malformed(.missingField) }
        if price != nil && currency == nil { return .malformed(.missingField) }
        let priceText: String? =
            switch price {
            case .string(let text)?, .integer(let text)?: text
            case .other(.float(let text))?: text
            default: nil
            }
        if let priceText, priceText.hasPrefix("-"), priceText.contains(where: { $0 >= "1" && $0 <= "9" }) {
            return .malformed(.negativePrice)
        }
        var priceWasString = false
        if case .string? = price { priceWasString = true }
        var userWasInteger = false
        if case .integer = user { userWasInteger = true }
        var tsWasInteger = false
        if case .integer = ts { tsWasInteger = true }
        var transactionWasInteger = false
        if case .integer? = transaction { transactionWasInteger = true }
        let checked = CheckedEvent(
            eventID: field("event_id")?.text, timestamp: timestamp, timestampWasInteger: tsWasInteger, userID: userID,
            userIDWasInteger: userWasInteger, event: eventName, productID: product?.text,
            transactionID: transaction?.text, transactionIDWasInteger: transactionWasInteger,
            originalTransactionID: field("original_transaction_id")?.text, price: priceText,
            priceWasString: priceWasString, currency: currency?.text, offeringID: field("offering_id")?.text,
            testGroupID: field("test_group_id")?.text, environment: field("environment")?.text,
            usedCamelCase: usedCamel, hadBothSpellings: both)
        return .valid(checked)
    }

    // MARK: CSV logs

    /// Splits one RFC 4180 row (no line breaks inside); nil when a quote is unbalanced.
    static func splitCSV(_ line: String) -> [String]? {
        var cells: [String] = []
        var cell = ""
        var quoted = false
        var iterator = Array(line).makeIterator()
        var pending: Character? = nil
        while let character = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" {
                            cell.append("\"")
                        } else {
                            quoted = false
                            pending = next
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    cell.append(character)
                }
            } else if character == "\"" && cell.isEmpty {
                quoted = true
            } else if character == "," {
                cells.append(cell)
                cell = ""
            } else {
                cell.append(character)
            }
        }
        guard !quoted else { return nil }
        cells.append(cell)
        return cells
    }

    static func checkCSV(_ line: String, header: [String]) -> Verdict {
        guard let cells = splitCSV(line), cells.count == header.count else { return .malformed(.invalidCSV) }
        var row: [String: String] = [:]
        for (name, cell) in zip(header, cells) where !cell.isEmpty { row[name] = cell }
        guard let ts = row["ts"], let userID = row["user_id"], let event = row["event"] else {
            return .malformed(.missingField)
        }
        if let price = row["price"], !isNumeric(price) { return .malformed(.invalidField) }
        let timestamp: Int64
        if ts.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let millis = Int64(ts) else { return .malformed(.badTimestamp) }
            timestamp = millis * 1000
        } else {
            guard let micros = parseTimestamp(ts) else { return .malformed(.badTimestamp) }
            timestamp = micros
        }
        if transactionEvents.contains(event) && (row["product_id"] == nil || row["transaction_id"] == nil) {
            return .malformed(.missingField)
        }
        if (event == "purchase" || event == "renewal") && row["price"] == nil { return .malformed(.missingField) }
        if row["price"] != nil && row["currency"] == nil { return .malformed(.missingField) }
        if let price = row["price"], price.hasPrefix("-") { return .malformed(.negativePrice) }
        return .valid(
            CheckedEvent(
                eventID: row["event_id"], timestamp: timestamp, timestampWasInteger: false, userID: userID,
                userIDWasInteger: false, event: event, productID: row["product_id"],
                transactionID: row["transaction_id"], transactionIDWasInteger: false,
                originalTransactionID: row["original_transaction_id"], price: row["price"], priceWasString: false,
                currency: row["currency"], offeringID: row["offering_id"], testGroupID: row["test_group_id"],
                environment: row["environment"], usedCamelCase: false, hadBothSpellings: false))
    }

    // MARK: Values

    /// `-?digits(.digits)?`
    static func isNumeric(_ text: String) -> Bool {
        var body = Substring(text)
        if body.hasPrefix("-") { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return false }
        return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }

    /// The timestamp grammar of docs/input-formats.md#timestamps; microseconds since the epoch, nil
    /// when it breaks it.
    static func parseTimestamp(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= b.count else { return nil }
            var value = 0
            for byte in b[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard b.count >= 19, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), b[13] == UInt8(ascii: ":"),
            b[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), hour <= 23, minute <= 59, second <= 59
        else { return nil }
        let monthDays = [31, (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day >= 1, day <= monthDays[month - 1] else { return nil }
        var index = 19
        var micros = 0
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < b.count, (48...57).contains(b[index]) {
                if digits < 6 { micros = micros * 10 + Int(b[index] - 48) }
                digits += 1
                index += 1
            }
            guard (1...9).contains(digits) else { return nil }
            for _ in min(digits, 6)..<6 { micros *= 10 }
        }
        var offsetMinutes = 0
        if index < b.count {
            if b[index] == UInt8(ascii: "Z") {
                index += 1
            } else if b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-") {
                guard index + 6 == b.count, b[index + 3] == UInt8(ascii: ":"),
                    let hours = number((index + 1)..<(index + 3)), let minutes = number((index + 4)..<(index + 6)),
                    hours <= 23, minutes <= 59
                else { return nil }
                offsetMinutes = (hours * 60 + minutes) * (b[index] == UInt8(ascii: "-") ? -1 : 1)
                index += 6
            }
        }
        guard index == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1_000_000 + Int64(micros)
    }

    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
