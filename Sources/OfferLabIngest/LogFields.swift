#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Internal machinery shared by the JSON Lines and CSV log parsers: the known keys, one value
/// slot per spelling, and the checks of the malformed-line order that follow parsing.

/// Comparing and copying the short byte strings of a line (keys, ids) inline: overlapping
/// word loads within the strings, never past them, instead of a `memcmp` or `memcpy` call.
/// Public for the interners of the pipeline, which compare ids the same way.
public enum ShortBytes {
    @inlinable @inline(__always)
    static func load<T: FixedWidthInteger>(_ pointer: UnsafeRawPointer, _ offset: Int, as: T.Type) -> T {
        pointer.loadUnaligned(fromByteOffset: offset, as: T.self)
    }

    /// Whether the `count` bytes at `left` and `right` are equal.
    @inlinable @inline(__always)
    public static func equal(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer, _ count: Int) -> Bool {
        if count >= 8 {
            var offset = 0
            while offset + 8 < count {
                if load(left, offset, as: UInt64.self) != load(right, offset, as: UInt64.self) { return false }
                offset += 8
            }
            return load(left, count - 8, as: UInt64.self) == load(right, count - 8, as: UInt64.self)
        }
        if count >= 4 {
            return load(left, 0, as: UInt32.self) == load(right, 0, as: UInt32.self)
                && load(left, count - 4, as: UInt32.self) == load(right, count - 4, as: UInt32.self)
        }
        if count >= 2 {
            return load(left, 0, as: UInt16.self) == load(right, 0, as: UInt16.self)
                && load(left, count - 2, as: UInt16.self) == load(right, count - 2, as: UInt16.self)
        }
        return count == 0 || left.load(as: UInt8.self) == right.load(as: UInt8.self)
    }

    /// Copies `count` bytes from `source` to `destination` (not overlapping).
    @inline(__always)
    static func copy(_ destination: UnsafeMutableRawPointer, _ source: UnsafeRawPointer, _ count: Int) {
        if count > 32 {
            memcpy(destination, source, count)
        } else if count >= 8 {
            var offset = 0
            while offset + 8 < count {
                destination.storeBytes(of: load(source, offset, as: UInt64.self), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            destination.storeBytes(of: load(source, count - 8, as: UInt64.self), toByteOffset: count - 8, as: UInt64.self)
        } else if count >= 4 {
            let head = load(source, 0, as: UInt32.self)
            let tail = load(source, count - 4, as: UInt32.self)
            destination.storeBytes(of: head, as: UInt32.self)
            destination.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
        } else {
            for offset in 0..<count {
                destination.storeBytes(of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
            }
        }
    }
}

/// The kind of value a known key held (the last time it appeared on the line).
enum FieldKind: UInt8 {
    case null
    case string
    /// A JSON number without fraction or exponent.
    case integer
    /// Any other JSON number.
    case number
    /// `true`, `false`, an object or an array.
    case other
}

/// A known key's value: its kind and, for strings and numbers, its decoded bytes in the
/// record's `text`.
struct FieldValue {
    var kind: FieldKind
    var start: Int
    var end: Int

    @inline(__always) var count: Int { end - start }
    @inline(__always) var range: Range<Int> { start..<end }
}

/// Slots of the known keys. The seven keys with a camelCase spelling have a second slot, so
/// that the snake_case one can win whatever the order.
enum LogFieldSlot {
    static let ts = 0
    static let event = 1
    static let price = 2
    static let currency = 3
    static let environment = 4
    static let userID = 5
    static let eventID = 6
    static let offeringID = 7
    static let testGroupID = 8
    static let productID = 9
    static let transactionID = 10
    static let originalTransactionID = 11
    /// `userId` … `originalTransactionId`: the snake_case slot + `camelOffset`.
    static let camelOffset = 7
    /// The dimensions for slicing (after the camelCase slots 12–18), matched only by a parser
    /// that keeps them (`matchSliceField`).
    static let country = 19
    static let platform = 20
    /// docs/analysis.md §8–§9: the end of the period the transaction gives, in either spelling
    /// (`expiresAt` is the slot after), the store that charged, and RevenueCat's fee shares.
    static let expiresAt = 21
    static let expiresAtCamel = 22
    static let store = 23
    static let taxPercentage = 24
    static let commissionPercentage = 25
    static let count = 26

    /// The slot of a key (its exact bytes), or -1 for an unknown key. No allocation.
    ///
    /// Transparent: the optimizer kept it a call even when marked `@inline(__always)`, and the
    /// call cost the parser 77 of its 2 364 instructions per line (callgrind).
    @_transparent
    static func match(_ key: UnsafePointer<UInt8>, _ length: Int) -> Int {
        // The switch below fixes `length` to the name's length: compared inline, word by word,
        // against the constant name (a call to `memcmp` per key cost more than the comparison).
        @inline(__always) func equals(_ name: StaticString) -> Bool {
            ShortBytes.equal(UnsafeRawPointer(key), UnsafeRawPointer(name.utf8Start), length)
        }
        switch length {
        case 2: return key[0] == 0x74 && key[1] == 0x73 ? ts : -1  // ts
        case 5:
            if key[0] == 0x65 { return equals("event") ? event : -1 }
            if key[0] == 0x73 { return equals("store") ? store : -1 }
            return equals("price") ? price : -1
        case 6: return equals("userId") ? userID + camelOffset : -1
        case 7:
            if key[0] == 0x75 { return equals("user_id") ? userID : -1 }
            return equals("eventId") ? eventID + camelOffset : -1
        case 8:
            if key[0] == 0x65 { return equals("event_id") ? eventID : -1 }
            return equals("currency") ? currency : -1
        case 9:
            if key[0] == 0x65 { return equals("expiresAt") ? expiresAtCamel : -1 }
            return equals("productId") ? productID + camelOffset : -1
        case 10:
            if key[0] == 0x6F { return equals("offeringId") ? offeringID + camelOffset : -1 }
            if key[0] == 0x65 { return equals("expires_at") ? expiresAt : -1 }
            return equals("product_id") ? productID : -1
        case 11:
            switch key[0] {
            case 0x6F: return equals("offering_id") ? offeringID : -1
            case 0x74: return equals("testGroupId") ? testGroupID + camelOffset : -1
            case 0x65: return equals("environment") ? environment : -1
            default: return -1
            }
        case 13:
            if key[0] == 0x74 && key[1] == 0x65 { return equals("test_group_id") ? testGroupID : -1 }
            return equals("transactionId") ? transactionID + camelOffset : -1
        case 14:
            if key[1] == 0x61 { return equals("tax_percentage") ? taxPercentage : -1 }
            return equals("transaction_id") ? transactionID : -1
        case 21:
            if key[0] == 0x63 { return equals("commission_percentage") ? commissionPercentage : -1 }
            return equals("originalTransactionId") ? originalTransactionID + camelOffset : -1
        case 23: return equals("original_transaction_id") ? originalTransactionID : -1
        default: return -1
        }
    }

    /// The slot of a slice field's key (`country`, `platform`), or -1: looked up only for the
    /// keys `match` does not know, and only by a parser that keeps the slice fields, so that one
    /// that does not reads every line exactly as before.
    @inline(__always)
    static func matchSliceField(_ key: UnsafePointer<UInt8>, _ length: Int) -> Int {
        switch length {
        case 7: return ShortBytes.equal(UnsafeRawPointer(key), UnsafeRawPointer(("country" as StaticString).utf8Start), 7) ? country : -1
        case 8: return ShortBytes.equal(UnsafeRawPointer(key), UnsafeRawPointer(("platform" as StaticString).utf8Start), 8) ? platform : -1
        default: return -1
        }
    }

    /// The slot of a key, or -1; the slice fields' only with `slicing`. Transparent, as `match`.
    @_transparent
    static func match(_ key: UnsafePointer<UInt8>, _ length: Int, slicing: Bool) -> Int {
        let slot = match(key, length)
        return slot < 0 && slicing ? matchSliceField(key, length) : slot
    }

    /// The slot of a header name, or -1; the slice fields' only with `slicing`.
    static func match(_ name: String, slicing: Bool) -> Int {
        var name = name
        return name.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return -1 }
            return match(base, buffer.count, slicing: slicing)
        }
    }
}

/// A parser's last dates (`Timestamp.DayCache`), one per timestamp field: an `expires_at` is
/// mostly on another day than its line's `ts`, and one cache for both missed on both.
struct LogDayCaches {
    var ts = Timestamp.DayCache()
    var expiresAt = Timestamp.DayCache()
}

/// The values of the known keys of one line, filled by a parser, then checked in the order of
/// the malformed reasons and copied into a `LogRecord`.
struct LogFieldValues {
    let slots: UnsafeMutablePointer<FieldValue>
    /// Bit `slot` is set when the key appeared (JSON `null` included).
    var present: UInt32 = 0

    @inline(__always)
    mutating func set(_ slot: Int, _ value: FieldValue) {
        slots[slot] = value
        present |= 1 &<< UInt32(slot)
    }

    /// The value when the key appeared and is not `null`.
    @inline(__always)
    func value(_ slot: Int) -> FieldValue? {
        guard present & (1 &<< UInt32(slot)) != 0 else { return nil }
        let value = slots[slot]
        return value.kind == .null ? nil : value
    }

    /// An optional field: nil when absent, `null` or the empty string.
    @inline(__always)
    func optionalValue(_ slot: Int) -> FieldValue? {
        guard let value = value(slot), value.kind != .string || value.count > 0 else { return nil }
        return value
    }

    /// The snake_case value when it counts (see `optionalValue`), else the camelCase one.
    @inline(__always)
    func idValue(_ slot: Int) -> FieldValue? {
        optionalValue(slot) ?? optionalValue(slot + LogFieldSlot.camelOffset)
    }

    /// Checks the line in the malformed-reason order and fills `record` (whose `text` is
    /// `text`, handed back by the caller). Returns the first reason that applies, or nil.
    ///
    /// - Parameters:
    ///   - csv: CSV rules for `ts`: a cell of digits is epoch milliseconds.
    ///   - slicing: the parser reads `country` and `platform` (otherwise the record's stay nil).
    ///   - dayCaches: the parser's last dates, for `Timestamp.parse`.
    @inline(__always)
    func resolve(
        text: UnsafePointer<UInt8>, csv: Bool, slicing: Bool, dayCaches: inout LogDayCaches, into record: inout LogRecord
    ) -> MalformedReason? {
        @inline(__always) func bytes(_ value: FieldValue) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: text + value.start, count: value.count)
        }
        // (2) Required keys.
        guard let ts = value(LogFieldSlot.ts),
            let user = value(LogFieldSlot.userID) ?? value(LogFieldSlot.userID + LogFieldSlot.camelOffset),
            let event = value(LogFieldSlot.event)
        else { return .missingField }
        // (3) Types.
        guard user.kind == .integer || (user.kind == .string && user.count > 0), event.kind == .string else {
            return .invalidField
        }
        var price: Int64?
        if let value = optionalValue(LogFieldSlot.price) {
            guard value.kind != .other, let micros = Price.parseMicros(bytes(value)) else { return .invalidField }
            price = micros
        }
        let eventID = idValue(LogFieldSlot.eventID)
        let productID = idValue(LogFieldSlot.productID)
        let transactionID = idValue(LogFieldSlot.transactionID)
        let originalTransactionID = idValue(LogFieldSlot.originalTransactionID)
        let offeringID = idValue(LogFieldSlot.offeringID)
        let testGroupID = idValue(LogFieldSlot.testGroupID)
        let currency = optionalValue(LogFieldSlot.currency)
        let environment = optionalValue(LogFieldSlot.environment)
        @inline(__always) func isText(_ value: FieldValue?) -> Bool {
            guard let value else { return true }
            return value.kind == .string || value.kind == .integer
        }
        guard isText(eventID), isText(productID), isText(transactionID), isText(originalTransactionID),
            isText(offeringID), isText(testGroupID), isText(currency), isText(environment)
        else { return .invalidField }
        // RevenueCat's fee shares: each a number in [0, 1), together below 1, or the record is
        // an invalid field (its proceeds would be negative or nonsense).
        /// A share in billionths; nil when absent; `.some(nil)` when it is no share at all.
        func share(_ slot: Int) -> Int32?? {
            guard let value = optionalValue(slot) else { return .some(nil) }
            guard value.kind != .other, let share = Price.parseShare(bytes(value)), share >= 0, share < LogRecord.wholeShare else {
                return nil
            }
            return .some(Int32(share))
        }
        guard let taxShare = share(LogFieldSlot.taxPercentage), let commissionShare = share(LogFieldSlot.commissionPercentage) else {
            return .invalidField
        }
        if let taxShare, let commissionShare, Int64(taxShare) + Int64(commissionShare) >= LogRecord.wholeShare { return .invalidField }
        // (4) Timestamp.
        let timestamp: Int64?
        switch ts.kind {
        case .string:
            if csv && Timestamp.isAllDigits(bytes(ts)) {
                timestamp = Timestamp.parseEpochMilliseconds(bytes(ts))
            } else {
                timestamp = Timestamp.parse(bytes(ts), dayCache: &dayCaches.ts)
            }
        case .integer:
            timestamp = Timestamp.parseEpochMilliseconds(bytes(ts))
        default:
            timestamp = nil
        }
        guard let timestamp else { return .badTimestamp }
        // docs/analysis.md §9: a value that breaks the grammar is read as absent, the line stays valid.
        var expiresAt: Int64?
        if let value = optionalValue(LogFieldSlot.expiresAt) ?? optionalValue(LogFieldSlot.expiresAtCamel) {
            switch value.kind {
            case .string:
                expiresAt =
                    csv && Timestamp.isAllDigits(bytes(value))
                    ? Timestamp.parseEpochMilliseconds(bytes(value)) : Timestamp.parse(bytes(value), dayCache: &dayCaches.expiresAt)
            case .integer: expiresAt = Timestamp.parseEpochMilliseconds(bytes(value))
            default: break
            }
        }
        // (5) Keys required by the event type.
        let eventType = EventType(logName: bytes(event))
        if let eventType {
            if eventType.isTransaction && (productID == nil || transactionID == nil) { return .missingField }
            if eventType.requiresPrice && price == nil { return .missingField }
        }
        if price != nil && currency == nil { return .missingField }
        // (6) Negative price.
        if let price, price < 0 { return .negativePrice }

        record.eventID = eventID?.range
        record.userID = user.range
        record.eventName = event.range
        record.eventType = eventType
        record.timestamp = timestamp
        record.productID = productID?.range
        record.transactionID = transactionID?.range
        record.originalTransactionID = originalTransactionID?.range
        record.price = price
        record.currency = currency?.range
        record.offeringID = offeringID?.range
        record.testGroupID = testGroupID?.range
        record.isSandbox = environment.map { isSandbox(bytes($0)) } ?? false
        record.expiresAt = expiresAt
        record.store = sliceValue(LogFieldSlot.store)
        record.taxShare = taxShare
        record.commissionShare = commissionShare
        if slicing {
            record.country = sliceValue(LogFieldSlot.country)
            record.platform = sliceValue(LogFieldSlot.platform)
        }
        return nil
    }

    /// A dimension for slicing (or the `store`): a non-empty string, or an integer as its digits (as the ids);
    /// another kind of value is no level and, as before the fields were read, does not make the
    /// line malformed.
    @inline(__always)
    private func sliceValue(_ slot: Int) -> Range<Int>? {
        guard let value = optionalValue(slot), value.kind == .string || value.kind == .integer else { return nil }
        return value.range
    }

    /// `sandbox` in any case.
    @inline(__always)
    private func isSandbox(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == 7 else { return false }
        let lower: StaticString = "sandbox"
        let name = lower.utf8Start
        for index in 0..<7 where bytes[index] | 0x20 != name[index] { return false }
        return true
    }
}
