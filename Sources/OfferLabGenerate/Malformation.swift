import OfferLabIngest
import OfferLabStatistics

/// A deliberately malformed line: how to break it, and the reason the checks of
/// docs/input-formats.md#malformed-lines must give (the first that applies; docs/reliability.md,
/// Broken log lines).
struct Malformation {
    enum Shape {
        /// Encode with `breakage`.
        case broken
        /// Encode normally, then cut the line short.
        case truncated
        /// A JSON value that is not an object.
        case notAnObject(StaticString)
    }

    var shape: Shape
    var breakage: Breakage
    var reason: MalformedReason

    private static let badJSONTimestamps: [StaticString] = [
        #""2026-02-30T10:00:00Z""#, #""2026-03-05T25:61:00Z""#, #""1700000000000""#, "1772330400000.5",
        #""2026-03-05T10:00:00+24:00""#, #""2026/03/05 10:00:00""#,
    ]
    private static let badCSVTimestamps: [StaticString] = [
        "2026-02-30 10:00:00", "2026-03-05T25:61:00Z", "1772330400000.5", "03/05/2026 10:00",
    ]
    private static let notObjects: [StaticString] = [#"["paywall_view","10000001"]"#, #""paywall_view""#, "null", "42"]
    private static let badUserIDs: [StaticString] = ["true", "12.5", #""""#, #"{"id":1}"#]
    private static let badEvents: [StaticString] = ["7", #"["purchase"]"#, "false"]
    private static let badPrices: [StaticString] = [#""7,99""#, "true", #""abc""#, #"{"amount":7.99}"#]

    /// A random malformation that applies to `event` in a JSON Lines file.
    static func json(for event: SimEvent, random: inout SplitMix64) -> Malformation {
        var options = 9
        if event.kind.isTransaction { options += 1 }
        if event.kind.isCharge { options += 1 }
        if event.amount >= 0 { options += 2 }
        var choice = random.below(options)
        var breakage = Breakage()
        switch choice {
        case 0: return Malformation(shape: .truncated, breakage: breakage, reason: .invalidJSON)
        case 1:
            return Malformation(
                shape: .notAnObject(notObjects[random.below(notObjects.count)]), breakage: breakage, reason: .invalidJSON)
        case 2: breakage.omitTimestamp = true
        case 3: breakage.omitUserID = true
        case 4: breakage.omitEvent = true
        case 5: breakage.userIDLiteral = badUserIDs[random.below(badUserIDs.count)]
        case 6: breakage.eventLiteral = badEvents[random.below(badEvents.count)]
        case 7: breakage.priceLiteral = badPrices[random.below(badPrices.count)]
        case 8: breakage.timestampLiteral = badJSONTimestamps[random.below(badJSONTimestamps.count)]
        default:
            choice -= 9
            if event.kind.isTransaction {
                if choice == 0 {
                    if random.chance(0.5) { breakage.omitProduct = true } else { breakage.omitTransaction = true }
                    return Malformation(shape: .broken, breakage: breakage, reason: .missingField)
                }
                choice -= 1
            }
            if event.kind.isCharge {
                if choice == 0 {
                    breakage.omitPrice = true
                    return Malformation(shape: .broken, breakage: breakage, reason: .missingField)
                }
                choice -= 1
            }
            if choice == 0 {
                breakage.omitCurrency = true
                return Malformation(shape: .broken, breakage: breakage, reason: .missingField)
            }
            breakage.negatePrice = true
            return Malformation(shape: .broken, breakage: breakage, reason: .negativePrice)
        }
        let reason: MalformedReason =
            switch choice {
            case 2, 3, 4: .missingField
            case 5, 6, 7: .invalidField
            default: .badTimestamp
            }
        return Malformation(shape: .broken, breakage: breakage, reason: reason)
    }

    /// A random malformation that applies to `event` in a CSV log.
    static func csv(for event: SimEvent, random: inout SplitMix64) -> Malformation {
        var breakage = Breakage()
        let options = event.amount > 0 ? 6 : 5
        switch random.below(options) {
        case 0, 1:
            breakage.wrongFieldCount = true
            return Malformation(shape: .broken, breakage: breakage, reason: .invalidCSV)
        case 2:
            breakage.omitTimestamp = true
            return Malformation(shape: .broken, breakage: breakage, reason: .missingField)
        case 3:
            breakage.timestampLiteral = badCSVTimestamps[random.below(badCSVTimestamps.count)]
            return Malformation(shape: .broken, breakage: breakage, reason: .badTimestamp)
        case 4:
            breakage.priceLiteral = "abc"
            return Malformation(shape: .broken, breakage: breakage, reason: .invalidField)
        default:
            breakage.negatePrice = true
            return Malformation(shape: .broken, breakage: breakage, reason: .negativePrice)
        }
    }
}

/// Fixed malformed lines written into every data set (whatever its size), so that each reason
/// (docs/reliability.md, Broken log lines) is present at least once. Written into the first day's files.
enum Showcase {
    struct Line {
        var text: String
        var reason: MalformedReason
    }

    static func jsonLines(start: Int64) -> [Line] {
        func ts(_ minute: Int64) -> String {
            formatTimestamp(start + Micros.hour + minute * Micros.minute, style: .iso)
        }
        let user = #""user_id":"10000001""#
        let purchase = #""event":"purchase","product_id":"weekly_799""#
        return [
            Line(text: #"{"event_id":"showcase-01","ts":"\#(ts(1))",\#(user),"event":"paywall_view""#, reason: .invalidJSON),
            Line(text: #"["paywall_view","10000001"]"#, reason: .invalidJSON),
            Line(text: #"{"event_id":"showcase-03","ts":"\#(ts(3))",\#(user),"event":"paywall_view",}"#, reason: .invalidJSON),
            Line(text: #"{"event_id":"showcase-04",\#(user),"event":"paywall_view"}"#, reason: .missingField),
            Line(text: #"{"event_id":"showcase-05","ts":"\#(ts(5))","event":"paywall_view"}"#, reason: .missingField),
            Line(text: #"{"event_id":"showcase-06","ts":"\#(ts(6))","user_id":true,"event":"paywall_view"}"#, reason: .invalidField),
            Line(text: #"{"event_id":"showcase-07","ts":"\#(ts(7))","user_id":"","event":"paywall_view"}"#, reason: .invalidField),
            Line(
                text:
                    #"{"event_id":"showcase-08","ts":"\#(ts(8))",\#(user),\#(purchase),"transaction_id":"1999999999999908","price":"abc","currency":"USD"}"#,
                reason: .invalidField),
            Line(text: #"{"event_id":"showcase-09","ts":"2026-02-30T10:00:00Z",\#(user),"event":"paywall_view"}"#, reason: .badTimestamp),
            Line(text: #"{"event_id":"showcase-10","ts":"1700000000000",\#(user),"event":"paywall_view"}"#, reason: .badTimestamp),
            Line(text: #"{"event_id":"showcase-11","ts":1772330400000.5,\#(user),"event":"paywall_view"}"#, reason: .badTimestamp),
            Line(
                text: #"{"event_id":"showcase-12","ts":"\#(ts(12))",\#(user),\#(purchase),"price":7.99,"currency":"USD"}"#,
                reason: .missingField),
            Line(
                text:
                    #"{"event_id":"showcase-13","ts":"\#(ts(13))",\#(user),\#(purchase),"transaction_id":"1999999999999913","price":7.99}"#,
                reason: .missingField),
            Line(
                text:
                    #"{"event_id":"showcase-14","ts":"\#(ts(14))",\#(user),\#(purchase),"transaction_id":"1999999999999914","price":-7.99,"currency":"USD"}"#,
                reason: .negativePrice),
        ]
    }

    static func csvLines(start: Int64) -> [Line] {
        let millis = (start + Micros.hour) / 1000
        return [
            Line(text: "showcase-15,\(millis),10000001,paywall_view,,,,,,,,,ios,US", reason: .invalidCSV),
            Line(text: "showcase-16,2026-02-30 10:00:00,10000001,paywall_view,,,,,,,,,ios,US,5.12.1,,", reason: .badTimestamp),
        ]
    }
}
