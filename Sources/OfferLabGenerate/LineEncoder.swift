import OfferLabIngest
import OfferLabStatistics

/// Ways to break a line on purpose (docs/reliability.md, Broken log lines), applied while it is written.
struct Breakage {
    var omitTimestamp = false
    var omitUserID = false
    var omitEvent = false
    var omitProduct = false
    var omitTransaction = false
    var omitPrice = false
    var omitCurrency = false
    var negatePrice = false
    /// Raw JSON (or CSV cell) written instead of the value.
    var userIDLiteral: StaticString?
    var eventLiteral: StaticString?
    var timestampLiteral: StaticString?
    var priceLiteral: StaticString?
    /// CSV only: one cell too many or too few.
    var wrongFieldCount = false

    static let none = Breakage()
}

/// The user and the event a line describes.
struct LineSubject {
    var user: UserProfile
    var event: SimEvent
}

/// Encodes events as JSON Lines with the variety real clients produce: snake_case or camelCase
/// keys, every timestamp form, ids as strings or integers, prices as numbers or strings,
/// unknown keys of every JSON type, escapes, spaces after separators, free key order.
///
/// Reused line after line; `line` holds the last encoded line.
struct LineEncoder {
    /// How `event_id` is written.
    let eventIDs: EventIDShape
    private(set) var line: [UInt8] = []
    private var fields: [UInt8] = []
    private var ranges: [Range<Int>] = []
    private var fieldStart = 0
    private var spaced = false
    /// Counts of the variations written, for the report.
    var camelCaseLines = 0
    var bothSpellingLines = 0

    init(eventIDs: EventIDShape) {
        self.eventIDs = eventIDs
        line.reserveCapacity(1024)
        fields.reserveCapacity(1024)
        ranges.reserveCapacity(24)
    }

    /// Encodes one event into `line` as a line of `format`.
    mutating func encode(_ subject: LineSubject, as format: LogFile.Format, breakage: Breakage, random: inout SplitMix64) {
        switch format {
        case .jsonLines: encodeJSON(subject, breakage: breakage, random: &random)
        case .csv: encodeCSV(subject, breakage: breakage, random: &random)
        }
    }

    /// `body` on this encoder, the lines it encodes left out of `camelCaseLines` and
    /// `bothSpellingLines` (lines that are not written as the app's, or are malformed).
    mutating func uncounted<Result>(_ body: (inout LineEncoder) throws -> Result) rethrows -> Result {
        let (camel, both) = (camelCaseLines, bothSpellingLines)
        defer { (camelCaseLines, bothSpellingLines) = (camel, both) }
        return try body(&self)
    }

    // MARK: JSON Lines

    /// Unknown keys, one of which some lines carry: every JSON value type, nesting, escapes
    /// (`\"`, `\/`, `\\`, `\t`, `\u00e9`, a surrogate pair), raw UTF-8 and a huge integer.
    static let unknownFields: [StaticString] = [
        #""app_build":48213"#,
        #""latency_ms":12.75"#,
        #""is_first_session":true"#,
        #""debug":null"#,
        #""ab_flags":["paywall_v2",true,null,3,{"k":"v"},[]]"#,
        #""device":{"model":"iPhone15,3","os":"17.4","screen":{"w":1290,"h":2796},"tags":[]}"#,
        #""note":"caf\u00e9 \"late\" \/ \ud83d\ude80 tab\there \\ done""#,
        #""referrer":"https:\/\/example.com\/promo?x=1&y=2""#,
        #""big_counter":123456789012345678901234567890"#,
        #""ratio":-1.5e-7"#,
        #""locale_name":"Français — 日本語 😀""#,
        #""n\u00f8te":{}"#,
        #""session":{"id":"s-1","depth":3,"flags":[false,null],"ok":"yes"}"#,
    ]

    private mutating func beginField(_ key: StaticString) {
        fieldStart = fields.count
        fields.append(UInt8(ascii: "\""))
        fields.appendASCII(key)
        fields.append(UInt8(ascii: "\""))
        fields.append(UInt8(ascii: ":"))
        if spaced { fields.append(UInt8(ascii: " ")) }
    }

    private mutating func endField() {
        ranges.append(fieldStart..<fields.count)
    }

    private mutating func stringField(_ key: StaticString, _ value: [UInt8]) {
        beginField(key)
        fields.append(UInt8(ascii: "\""))
        fields.append(contentsOf: value)
        fields.append(UInt8(ascii: "\""))
        endField()
    }

    private mutating func literalField(_ key: StaticString, _ literal: StaticString) {
        beginField(key)
        fields.appendASCII(literal)
        endField()
    }

    private mutating func rawField(_ field: StaticString) {
        fieldStart = fields.count
        fields.appendASCII(field)
        endField()
    }

    /// Encodes one event as a JSON line into `line`.
    mutating func encodeJSON(
        _ subject: LineSubject, breakage: Breakage, random: inout SplitMix64
    ) {
        let user = subject.user
        let event = subject.event
        fields.removeAll(keepingCapacity: true)
        ranges.removeAll(keepingCapacity: true)
        spaced = random.chance(0.10)
        let camel = random.chance(0.08)
        let both = !camel && random.chance(0.003)
        if camel { camelCaseLines += 1 }
        if both { bothSpellingLines += 1 }
        let useNull = random.chance(0.02)

        // event_id (the draw is made in every shape, so the rest of the line does not depend on it)
        if random.chance(0.98) && eventIDs != .none {
            beginField(camel ? "eventId" : "event_id")
            if eventIDs == .integer {
                fields.appendEventID(event, userIndex: user.index, shape: eventIDs)
            } else {
                fields.append(UInt8(ascii: "\""))
                fields.appendEventID(event, userIndex: user.index, shape: eventIDs)
                fields.append(UInt8(ascii: "\""))
            }
            endField()
        }
        // ts
        if !breakage.omitTimestamp {
            beginField("ts")
            if let literal = breakage.timestampLiteral {
                fields.appendASCII(literal)
            } else {
                appendJSONTimestamp(event.time, country: user.country, random: &random)
            }
            endField()
        }
        // user_id
        if !breakage.omitUserID {
            beginField(camel ? "userId" : "user_id")
            if let literal = breakage.userIDLiteral {
                fields.appendASCII(literal)
            } else if user.leadingZeros == 0 && random.chance(0.05) && user.idIsPlainInteger {
                user.appendID(to: &fields)
            } else {
                fields.append(UInt8(ascii: "\""))
                user.appendID(to: &fields)
                fields.append(UInt8(ascii: "\""))
            }
            endField()
        }
        // event
        if !breakage.omitEvent {
            beginField("event")
            if let literal = breakage.eventLiteral {
                fields.appendASCII(literal)
            } else {
                fields.append(UInt8(ascii: "\""))
                fields.appendASCII(event.kind.name)
                fields.append(UInt8(ascii: "\""))
            }
            endField()
        }
        // product_id
        if event.product >= 0 && !breakage.omitProduct {
            let product = Catalog.products[Int(event.product)]
            beginField(camel ? "productId" : "product_id")
            fields.append(UInt8(ascii: "\""))
            if random.chance(0.02), let underscore = product.idBytes.firstIndex(of: UInt8(ascii: "_")) {
                // `_` written as `\u005f`: the reader must decode escapes in known fields too.
                fields.append(contentsOf: product.idBytes[..<underscore])
                fields.appendASCII("\\u005f")
                fields.append(contentsOf: product.idBytes[(underscore + 1)...])
            } else {
                fields.append(contentsOf: product.idBytes)
            }
            fields.append(UInt8(ascii: "\""))
            endField()
        }
        let integerIDs = random.chance(0.05)
        if event.transaction != 0 && !breakage.omitTransaction {
            beginField(camel ? "transactionId" : "transaction_id")
            appendID(event.transaction, asInteger: integerIDs)
            endField()
        }
        if event.original != 0 {
            beginField(camel ? "originalTransactionId" : "original_transaction_id")
            appendID(event.original, asInteger: integerIDs)
            endField()
        }
        // price, currency
        if let literal = breakage.priceLiteral {
            literalField("price", literal)
        } else if event.amount >= 0 && !breakage.omitPrice {
            let exponent = Catalog.currencies[Int(event.currency)].exponent
            let amount = breakage.negatePrice ? -event.amount : event.amount
            beginField("price")
            if random.chance(0.15) {
                fields.append(UInt8(ascii: "\""))
                fields.appendMoney(minorUnits: amount, exponent: exponent)
                fields.append(UInt8(ascii: "\""))
            } else {
                fields.appendMoney(minorUnits: amount, exponent: exponent)
            }
            endField()
            if !breakage.omitCurrency {
                stringField("currency", Catalog.currencies[Int(event.currency)].codeBytes)
            }
        } else if useNull && event.amount < 0 {
            literalField("price", "null")
        }
        // offering_id, test_group_id: what the client believes
        if let logged = loggedAssignment(user: user, event: event, random: &random) {
            stringField(camel ? "offeringId" : "offering_id", Catalog.offerings[logged.offering].offeringIDBytes)
            stringField(camel ? "testGroupId" : "test_group_id", logged.group)
            if both {
                // Both spellings with different values: snake_case must win.
                stringField("testGroupId", Array("legacy_group".utf8))
            }
        } else if useNull {
            literalField(camel ? "offeringId" : "offering_id", "null")
            literalField(camel ? "testGroupId" : "test_group_id", "null")
        }
        // environment, platform, country, app_version
        if user.isSandboxTester {
            switch random.below(3) {
            case 0: literalField("environment", "\"Sandbox\"")
            case 1: literalField("environment", "\"sandbox\"")
            default: literalField("environment", "\"SANDBOX\"")
            }
        } else {
            switch random.below(6) {
            case 0: literalField("environment", "\"Production\"")
            case 1: literalField("environment", "\"production\"")
            default: break
            }
        }
        if random.chance(0.95) { stringField("platform", user.platformName) }
        if random.chance(0.95) { stringField("country", Catalog.countries[user.country].codeBytes) }
        if random.chance(0.9) { literalField("app_version", random.chance(0.7) ? "\"5.12.1\"" : "\"5.13.0\"") }
        // expires_at and store (docs/generator.md): no random draw, so every other value of the set
        // is what it was without them.
        if event.expiresAt != 0 {
            beginField(camel ? "expiresAt" : "expires_at")
            fields.append(UInt8(ascii: "\""))
            fields.appendTimestamp(event.expiresAt, style: TimestampStyle())
            fields.append(UInt8(ascii: "\""))
            endField()
        }
        if event.kind.isTransaction, let store = user.store { stringField("store", store) }
        if random.chance(0.12) {
            rawField(Self.unknownFields[random.below(Self.unknownFields.count)])
        }

        // Assemble, in order or rotated (key order is free).
        line.removeAll(keepingCapacity: true)
        line.append(UInt8(ascii: "{"))
        let rotation = random.chance(0.08) && ranges.count > 1 ? 1 + random.below(ranges.count - 1) : 0
        for position in 0..<ranges.count {
            if position > 0 {
                line.append(UInt8(ascii: ","))
                if spaced { line.append(UInt8(ascii: " ")) }
            }
            line.append(contentsOf: fields[ranges[(position + rotation) % ranges.count]])
        }
        line.append(UInt8(ascii: "}"))
    }

    private mutating func appendID(_ id: UInt64, asInteger: Bool) {
        if asInteger {
            fields.appendDecimal(id)
        } else {
            fields.append(UInt8(ascii: "\""))
            fields.appendDecimal(id)
            fields.append(UInt8(ascii: "\""))
        }
    }

    /// A `ts` value in one of the forms of docs/input-formats.md#timestamps.
    private mutating func appendJSONTimestamp(_ time: Int64, country: Int, random: inout SplitMix64) {
        let form = random.unit()
        var style = TimestampStyle()
        if form < 0.45 {
            // 2026-03-04T18:22:31.482Z
        } else if form < 0.60 {
            // Epoch milliseconds as a JSON integer.
            let millis = time >= 0 ? time / 1000 : (time - 999) / 1000
            fields.appendDecimal(millis)
            return
        } else if form < 0.70 {
            let offsets = Catalog.countries[country].offsets
            style.zone = .offset(random.chance(0.9) ? offsets[random.below(offsets.count)] : 330)
            style.fractionDigits = random.below(10)
        } else if form < 0.78 {
            style.fractionDigits = 0
        } else if form < 0.85 {
            style.separator = UInt8(ascii: " ")
            style.fractionDigits = 6
            style.zone = .none
        } else if form < 0.90 {
            style.fractionDigits = 1 + random.below(9)
        } else if form < 0.95 {
            style.zone = .none
            style.fractionDigits = random.below(4)
        } else {
            style.separator = UInt8(ascii: " ")
            style.fractionDigits = 3
        }
        fields.append(UInt8(ascii: "\""))
        fields.appendTimestamp(time, style: style)
        fields.append(UInt8(ascii: "\""))
    }

    /// The offering and group the client logs, or nil when the line carries none: users in no
    /// test; most server notifications. A stale group for some users and a few random
    /// mismatches on single lines.
    private func loggedAssignment(
        user: UserProfile, event: SimEvent, random: inout SplitMix64
    ) -> (offering: Int, group: [UInt8])? {
        guard let primary = user.primary else { return nil }
        if event.fromServer && !random.chance(0.15) { return nil }
        let group = Catalog.groups[primary.group]
        let siblings = Catalog.offerings[group.offering].groups
        let position = siblings.firstIndex(of: primary.group) ?? 0
        let other = Catalog.groups[siblings[(position + 1) % siblings.count]].nameBytes
        if user.hasStaleGroup { return (group.offering, other) }
        if random.chance(0.003) {
            // A single line naming the other offering, or another group of this one.
            return random.chance(0.5)
                ? ((group.offering + 1) % 2, group.nameBytes)
                : (group.offering, other)
        }
        return (group.offering, group.nameBytes)
    }

    // MARK: CSV logs

    /// Encodes one event as a CSV row (columns of `LogFile.csvHeader`) into `line`.
    mutating func encodeCSV(
        _ subject: LineSubject, breakage: Breakage, random: inout SplitMix64
    ) {
        let user = subject.user
        let event = subject.event
        line.removeAll(keepingCapacity: true)
        let quoteAll = random.chance(0.1)
        var cellStart = 0
        var firstCell = true
        func begin(_ line: inout [UInt8]) {
            if !firstCell { line.append(UInt8(ascii: ",")) }
            firstCell = false
            cellStart = line.count
            if quoteAll { line.append(UInt8(ascii: "\"")) }
        }
        func end(_ line: inout [UInt8]) {
            if quoteAll {
                if line.count == cellStart + 1 { line.removeLast() } else { line.append(UInt8(ascii: "\"")) }
            }
        }
        // event_id
        begin(&line)
        line.appendEventID(event, userIndex: user.index, shape: eventIDs)
        end(&line)
        // ts: epoch milliseconds as digits, or text
        begin(&line)
        if let literal = breakage.timestampLiteral {
            line.appendASCII(literal)
        } else if !breakage.omitTimestamp {
            if random.chance(0.5) {
                line.appendDecimal(event.time / 1000)
            } else {
                var style = TimestampStyle()
                style.separator = random.chance(0.5) ? UInt8(ascii: "T") : UInt8(ascii: " ")
                style.fractionDigits = [0, 3, 6][random.below(3)]
                style.zone = random.chance(0.5) ? .utc : .none
                line.appendTimestamp(event.time, style: style)
            }
        }
        end(&line)
        // user_id
        begin(&line)
        if let literal = breakage.userIDLiteral {
            line.appendASCII(literal)
        } else if !breakage.omitUserID {
            user.appendID(to: &line)
        }
        end(&line)
        // event
        begin(&line)
        if !breakage.omitEvent { line.appendASCII(event.kind.name) }
        end(&line)
        // product_id, transaction_id, original_transaction_id
        begin(&line)
        if event.product >= 0 && !breakage.omitProduct { line.append(contentsOf: Catalog.products[Int(event.product)].idBytes) }
        end(&line)
        begin(&line)
        if event.transaction != 0 && !breakage.omitTransaction { line.appendDecimal(event.transaction) }
        end(&line)
        begin(&line)
        if event.original != 0 { line.appendDecimal(event.original) }
        end(&line)
        // price, currency
        let hasPrice = event.amount >= 0 && !breakage.omitPrice
        begin(&line)
        if let literal = breakage.priceLiteral {
            line.appendASCII(literal)
        } else if hasPrice {
            let amount = breakage.negatePrice ? -event.amount : event.amount
            line.appendMoney(minorUnits: amount, exponent: Catalog.currencies[Int(event.currency)].exponent)
        }
        end(&line)
        begin(&line)
        if hasPrice && !breakage.omitCurrency { line.append(contentsOf: Catalog.currencies[Int(event.currency)].codeBytes) }
        end(&line)
        // offering_id, test_group_id
        let logged = loggedAssignment(user: user, event: event, random: &random)
        begin(&line)
        if let logged { line.append(contentsOf: Catalog.offerings[logged.offering].offeringIDBytes) }
        end(&line)
        begin(&line)
        if let logged { line.append(contentsOf: logged.group) }
        end(&line)
        // environment, platform, country, app_version
        begin(&line)
        if user.isSandboxTester { line.appendASCII(random.chance(0.5) ? "Sandbox" : "sandbox") }
        end(&line)
        begin(&line)
        line.append(contentsOf: user.platformName)
        end(&line)
        begin(&line)
        line.append(contentsOf: Catalog.countries[user.country].codeBytes)
        end(&line)
        if random.chance(0.02) && !breakage.wrongFieldCount {
            // A quoted cell holding a comma and a doubled quote.
            if !firstCell { line.append(UInt8(ascii: ",")) }
            line.appendASCII(#""5.13.0 (build 48213, ""beta"")""#)
        } else {
            begin(&line)
            line.appendASCII("5.12.1")
            end(&line)
        }
        // expires_at, store
        begin(&line)
        if event.expiresAt != 0 { line.appendTimestamp(event.expiresAt, style: TimestampStyle()) }
        end(&line)
        begin(&line)
        if event.kind.isTransaction, let store = user.store { line.append(contentsOf: store) }
        end(&line)
        if breakage.wrongFieldCount {
            if random.chance(0.5) {
                line.appendASCII(",extra")
            } else if let comma = line.lastIndex(of: UInt8(ascii: ",")) {
                line.removeSubrange(comma...)
            }
        }
    }
}
