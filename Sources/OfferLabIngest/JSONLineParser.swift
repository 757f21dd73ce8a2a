import COfferLabSIMD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parses one JSON Lines event into a reused `LogRecord`.
///
/// One pass over the bytes validates the whole line as JSON (RFC 8259: unknown values, nested
/// containers, numbers, escapes, surrogate pairs, UTF-8) and captures the known keys; then the
/// checks of the malformed-line order apply:
///
/// 1. `invalidJSON`: not valid JSON, or not an object;
/// 2. `missingField`: `ts`, `user_id` or `event` absent (`null` is absent);
/// 3. `invalidField`: `user_id` not a string or an integer, or empty; `event` not a string;
///    `price` not a number or a numeric string (or above 10¹² units); an id or text field
///    (`event_id`, `product_id`, `transaction_id`, `original_transaction_id`, `currency`,
///    `offering_id`, `test_group_id`, `environment`) not a string or an integer; RevenueCat's
///    `tax_percentage` or `commission_percentage` not a number in [0, 1), or the two 1 or more;
/// 4. `badTimestamp`: `ts` neither the text grammar (`Timestamp`) nor a JSON integer (epoch ms);
/// 5. `missingField`: `product_id`/`transaction_id` absent on `trial_start`, `purchase`,
///    `renewal`, `refund`; `price` absent on `purchase`, `renewal`; `currency` absent when
///    `price` is present;
/// 6. `negativePrice`.
///
/// Keys are matched on their decoded bytes: snake_case or camelCase, the snake_case spelling
/// wins when both are there, the last of a repeated key wins. An empty string is absent for
/// every optional field (all but `ts`, `user_id` and `event`). `expires_at` (`expiresAt`) that
/// breaks the timestamp grammar, and a `store` that is no string or integer, are absent: the
/// line stays valid.
///
/// A line of plain ASCII (the common case: no backslash, no control character, no byte from
/// 0x80) is first scanned with its quote bitmap (`PlainLineStrings`): every quote of such a
/// line delimits a string, so its strings need no scanning, and none needs decoding: the
/// record's text is the line, its values ranges of it (copied whole into the record's buffer,
/// or, with `borrowsPlainLines`, borrowed). Any other line, and any line that scan does not
/// accept, is scanned byte by byte (`ValidatingStrings`), which decides; both capture the same
/// values.
///
/// No allocation per line once the record's buffer has grown to the longest line; no
/// Foundation. Not thread-safe: one parser (and one record) per task.
public struct JSONLineParser {
    /// The longest line tried with its quote bitmap (a bitmap on the stack: 32 words).
    static let longestPlainLine = 32 * 64

    private var validating = ValidatingStrings()
    private var dayCaches = LogDayCaches()
    /// Whether plain lines are scanned with their quote bitmap (tests turn it off, to compare).
    private let usesQuoteBitmap: Bool
    /// Whether the record filled from a plain line borrows the line as its text instead of a copy
    /// of it: the record's strings are then valid only as long as the line's bytes.
    private let borrowsPlainLines: Bool
    /// Whether `country` and `platform` are read (`LogFieldSlot.matchSliceField`); otherwise
    /// they are unknown keys, skipped.
    private let keepsSliceFields: Bool
    /// Lines the quote-bitmap scan accepted: a line it fails falls back to the byte-by-byte
    /// scan, so only this count tells tests that it is taken.
    private(set) var linesAcceptedByQuoteBitmap = 0

    /// - Parameter borrowsPlainLines: the record filled from a plain line keeps no copy of it:
    ///   its strings are read from the line itself, so only while the line's bytes are valid (a
    ///   caller that hands the record on only while the line is in memory saves a copy of every
    ///   line, as `LogFileScanner` does).
    /// - Parameter keepsSliceFields: `country` and `platform` are read into the record.
    public init(borrowsPlainLines: Bool = false, keepsSliceFields: Bool = false) {
        usesQuoteBitmap = true
        self.borrowsPlainLines = borrowsPlainLines
        self.keepsSliceFields = keepsSliceFields
    }

    /// - Parameter usesQuoteBitmap: false scans every line byte by byte.
    init(usesQuoteBitmap: Bool) {
        self.usesQuoteBitmap = usesQuoteBitmap
        borrowsPlainLines = false
        keepsSliceFields = false
    }

    /// Parses `line` (without its line ending) into `record`. With `borrowsPlainLines`, the
    /// record's strings may be read from `line`: valid only while its bytes are.
    ///
    /// - Returns: nil when the line is a valid event (the record is filled), otherwise the first
    ///   malformed reason (the record is then empty).
    public mutating func parse(_ line: UnsafeRawBufferPointer, into record: inout LogRecord) -> MalformedReason? {
        let count = line.count
        // Decoded text never exceeds the line: the record's buffer, at least as long as the
        // line, is written through a pointer.
        var text = record.takeTextBuffer()
        text.growWithZeros(to: count)
        var written = 0
        var borrowed = false
        let reason: MalformedReason? = withUnsafeTemporaryAllocation(of: FieldValue.self, capacity: LogFieldSlot.count) {
            slots in
            guard let slotBase = slots.baseAddress, let lineBase = line.baseAddress else { return .invalidJSON }
            var values = LogFieldValues(slots: slotBase)
            return text.withUnsafeMutableBufferPointer { buffer -> MalformedReason? in
                // A non-empty buffer always has a base address; an empty line is invalid anyway.
                guard let out = buffer.baseAddress, count > 0 else { return .invalidJSON }
                let json = JSONScanner(lineBase, count: count)
                if usesQuoteBitmap && count <= Self.longestPlainLine {
                    let accepted = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.longestPlainLine / 64) {
                        words -> Bool in
                        guard let wordBase = words.baseAddress,
                            offerlab_json_plain_quotes(json.p, count, wordBase) != 0
                        else { return false }
                        var strings = PlainLineStrings(words: wordBase, count: (count + 63) / 64)
                        // Nothing to decode on a plain line: the record's text is the line (borrowed,
                        // or copied once), and each value is its place in it.
                        if !borrowsPlainLines { memcpy(out, json.p, count) }
                        written = count
                        return Self.scanObject(
                            json, strings: &strings, valuesInPlace: true, keepsSliceFields: keepsSliceFields, out: out, written: &written,
                            values: &values)
                    }
                    if accepted {
                        linesAcceptedByQuoteBitmap += 1
                        borrowed = borrowsPlainLines
                        return values.resolve(
                            text: borrowed ? json.p : UnsafePointer(out), csv: false, slicing: keepsSliceFields, dayCaches: &dayCaches,
                            into: &record)
                    }
                    // Not plain, or not accepted as such: the byte-by-byte scan decides.
                    written = 0
                    values = LogFieldValues(slots: slotBase)
                }
                guard
                    Self.scanObject(
                        json, strings: &validating, valuesInPlace: false, keepsSliceFields: keepsSliceFields, out: out, written: &written,
                        values: &values)
                else {
                    return .invalidJSON
                }
                return values.resolve(text: UnsafePointer(out), csv: false, slicing: keepsSliceFields, dayCaches: &dayCaches, into: &record)
            }
        }
        record.returnTextBuffer(&text, textCount: written)
        if borrowed, let lineBase = line.baseAddress { record.borrowText(lineBase, count: count) }
        // A rejected line leaves an empty record, never ranges past its text.
        if reason != nil { record.reset() }
        return reason
    }

    /// Validates the line as one JSON object and captures the known keys' values: decoded into
    /// `out`, or with `valuesInPlace` (the line is in `out` already) as their places in the line,
    /// which then must need no decoding. Returns false when the line is not a valid JSON object
    /// (or, with `PlainLineStrings`, not one that it can tell).
    @inline(__always)
    private static func scanObject<Strings: JSONStringScanning>(
        _ json: JSONScanner, strings: inout Strings, valuesInPlace: Bool, keepsSliceFields: Bool, out: UnsafeMutablePointer<UInt8>,
        written: inout Int, values: inout LogFieldValues
    ) -> Bool {
        let p = json.p
        var i = 0
        guard json.nextByte(&i) == 0x7B else { return false }  // {
        i += 1
        if json.nextByte(&i) == 0x7D {
            i += 1
        } else {
            while true {
                // Key.
                guard json.nextByte(&i) == 0x22 else { return false }
                let keyStart = i + 1
                var escaped = false
                i = strings.stringEnd(json, keyStart, &escaped)
                if i < 0 { return false }
                let slot: Int
                if escaped {
                    // The line's copy fills the output: a line with escapes is not plain anyway.
                    if valuesInPlace { return false }
                    // Decode into the free part of the output, without keeping it.
                    let length = json.decodeString(keyStart, i - 1, into: out + written)
                    slot = LogFieldSlot.match(out + written, length, slicing: keepsSliceFields)
                } else {
                    slot = LogFieldSlot.match(p + keyStart, i - 1 - keyStart, slicing: keepsSliceFields)
                }
                guard json.nextByte(&i) == 0x3A else { return false }  // :
                i += 1
                // Value.
                let c = json.nextByte(&i)
                if slot < 0 {
                    i = strings.skipValue(json, i)
                    if i < 0 { return false }
                } else {
                    var start = written
                    var end = written
                    let kind: FieldKind
                    switch c {
                    case 0x22:
                        let contentStart = i + 1
                        var valueEscaped = false
                        i = strings.stringEnd(json, contentStart, &valueEscaped)
                        if i < 0 { return false }
                        if valuesInPlace {
                            if valueEscaped { return false }
                            start = contentStart
                            end = i - 1
                        } else if valueEscaped {
                            written += json.decodeString(contentStart, i - 1, into: out + written)
                            end = written
                        } else {
                            let length = i - 1 - contentStart
                            ShortBytes.copy(out + written, p + contentStart, length)
                            written += length
                            end = written
                        }
                        kind = .string
                    case 0x74, 0x66:  // true false
                        i = json.scanLiteral(i)
                        if i < 0 { return false }
                        kind = .other
                    case 0x6E:  // null
                        i = json.scanLiteral(i)
                        if i < 0 { return false }
                        kind = .null
                    case 0x7B, 0x5B:  // { [
                        i = strings.skipValue(json, i)
                        if i < 0 { return false }
                        kind = .other
                    default:
                        let numberStart = i
                        var isInteger = false
                        i = json.scanNumber(i, &isInteger)
                        if i < 0 { return false }
                        if valuesInPlace {
                            start = numberStart
                        } else {
                            ShortBytes.copy(out + written, p + numberStart, i - numberStart)
                            written += i - numberStart
                        }
                        end = start + (i - numberStart)
                        kind = isInteger ? .integer : .number
                    }
                    values.set(slot, FieldValue(kind: kind, start: start, end: end))
                }
                // Separator.
                let separator = json.nextByte(&i)
                if separator == 0x2C {  // ,
                    i += 1
                } else if separator == 0x7D {  // }
                    i += 1
                    break
                } else {
                    return false
                }
            }
        }
        return json.skipWhitespace(i) == json.n
    }
}
