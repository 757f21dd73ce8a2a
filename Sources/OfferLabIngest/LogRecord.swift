/// The decoded fields of one valid log line.
///
/// String fields are byte ranges into `text`, which holds their decoded UTF-8 (escapes
/// resolved, integer ids as decimal text): the values back to back or, for a JSON line with
/// nothing to decode (no backslash), the line itself, copied whole rather than value by value,
/// or borrowed (`JSONLineParser(borrowsPlainLines:)`: then valid only while the line is). A
/// parser reuses one record line after line, so the hot path allocates nothing per field.
public struct LogRecord {
    /// The parsers' buffer: `text`, then what earlier, longer lines left. It only grows, so that
    /// a line costs no filling and no trimming: the parsers write through a pointer.
    private(set) var textBuffer: [UInt8] = []
    /// How many bytes of `textBuffer` are `text`.
    private(set) var textCount = 0
    /// Where `textBuffer`'s bytes are, while it is not changed: `withTextBytes` reads them
    /// without the retain and release that borrowing the array costs when the record is lent by
    /// pointer (`LogFileScanner.scan`).
    private var textStart: UnsafeRawPointer?

    /// The bytes the string fields' ranges index (a copy: the hot path borrows them with
    /// `withTextBytes`).
    public var text: [UInt8] {
        get { withTextBytes { Array($0) } }
        set {
            var buffer = newValue
            returnTextBuffer(&buffer, textCount: buffer.count)
        }
    }
    public var eventID: Range<Int>?
    public var userID: Range<Int> = 0..<0
    /// The `event` value as written; `eventType` is nil when it is not in the taxonomy.
    public var eventName: Range<Int> = 0..<0
    public var eventType: EventType?
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var timestamp: Int64 = 0
    public var productID: Range<Int>?
    public var transactionID: Range<Int>?
    public var originalTransactionID: Range<Int>?
    /// Price in micro-units (10⁻⁶) of the major currency unit; nil when absent.
    public var price: Int64?
    public var currency: Range<Int>?
    public var offeringID: Range<Int>?
    public var testGroupID: Range<Int>?
    public var isSandbox: Bool = false
    /// The dimensions for slicing (docs/analysis.md §7), as the ids: nil when absent, `null` or empty.
    public var country: Range<Int>?
    public var platform: Range<Int>?
    /// `expires_at` (microseconds since the epoch): nil when absent or not a timestamp.
    public var expiresAt: Int64?
    /// The store that charged (`app_store`, `play_store`, …), as written.
    public var store: Range<Int>?
    /// RevenueCat's `tax_percentage` and `commission_percentage`, in billionths of the price
    /// (each below `wholeShare`, together too).
    public var taxShare: Int32?
    public var commissionShare: Int32?

    /// A share of the whole price, in billionths: fine enough that proceeds given as an amount
    /// (Google Play's developer revenue, carried as a share of the price) stay within 5·10⁻¹⁰ of
    /// the price, a cent only after millions of charges; millionths drifted by 0.25 over 124,814.
    public static let wholeShare: Int64 = 1_000_000_000

    public init() {}

    /// Calls `body` with the bytes of `text`, borrowed.
    public func withTextBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: textStart, count: textCount))
    }

    /// Takes the record's buffer out (for a parser to write the next text into), leaving the
    /// record without text.
    mutating func takeTextBuffer() -> [UInt8] {
        textCount = 0
        textStart = nil
        var buffer: [UInt8] = []
        swap(&buffer, &textBuffer)
        return buffer
    }

    /// Makes `buffer` the record's buffer again, its first `textCount` bytes the text (a parser
    /// hands back the buffer it wrote). Swapped, not assigned: no retain and release per line.
    mutating func returnTextBuffer(_ buffer: inout [UInt8], textCount: Int) {
        swap(&buffer, &textBuffer)
        self.textCount = textCount
        textStart = textBuffer.withUnsafeBytes { $0.baseAddress }
    }

    /// Makes the `count` bytes at `line` the record's text, borrowed: the buffer stays the
    /// record's, for the next line that needs one.
    mutating func borrowText(_ line: UnsafeRawPointer, count: Int) {
        textStart = line
        textCount = count
    }

    /// Makes the record's text the bytes `write` appends to the record's buffer, emptied first
    /// (its capacity kept: no allocation once it is long enough): for a record made from values
    /// rather than parsed from a line (`StoreEvent.fillLogRecord`), which sets the ranges.
    public mutating func writeText(_ write: (inout [UInt8]) -> Void) {
        var buffer = takeTextBuffer()
        buffer.removeAll(keepingCapacity: true)
        write(&buffer)
        returnTextBuffer(&buffer, textCount: buffer.count)
    }

    /// Clears the record for the next line, keeping its buffer.
    public mutating func reset() {
        textCount = 0
        textStart = nil
        eventID = nil
        userID = 0..<0
        eventName = 0..<0
        eventType = nil
        timestamp = 0
        productID = nil
        transactionID = nil
        originalTransactionID = nil
        price = nil
        currency = nil
        offeringID = nil
        testGroupID = nil
        isSandbox = false
        country = nil
        platform = nil
        expiresAt = nil
        store = nil
        taxShare = nil
        commissionShare = nil
    }

    /// The text of a field, for the edges (tests, error messages); the hot path uses the bytes.
    public func string(_ range: Range<Int>?) -> String? {
        guard let range else { return nil }
        return withTextBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }
}

extension Array where Element == UInt8 {
    private static let zeros = [UInt8](repeating: 0, count: 4096)

    /// Makes the array hold at least `count` bytes, appending zeros to those it holds (earlier
    /// lines' text, overwritten): the parsers' buffer before they write decoded text through a
    /// pointer. Appends from a block of zeros, because appending `repeatElement(0, count:)` goes
    /// byte by byte. Inline: the buffer is mostly long enough already, every line.
    @inline(__always)
    mutating func growWithZeros(to count: Int) {
        if count > self.count { appendZeros(count - self.count) }
    }

    private mutating func appendZeros(_ count: Int) {
        var remaining = count
        Self.zeros.withUnsafeBytes { zeros in
            while remaining > 0 {
                let piece = Swift.min(remaining, zeros.count)
                append(contentsOf: UnsafeRawBufferPointer(rebasing: zeros[0..<piece]))
                remaining -= piece
            }
        }
    }
}
