/// The decoded fields of one valid log line.
///
/// String fields are byte ranges into `text`, which holds their decoded UTF-8 (escapes
/// resolved, integer ids as decimal text). A parser reuses one record line after line, so
/// the hot path allocates nothing per field.
public struct LogRecord: Sendable {
    /// Decoded bytes of every string field of the line, back to back.
    public var text: [UInt8] = []
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

    public init() {}

    /// Clears the record for the next line, keeping the capacity of `text`.
    public mutating func reset() {
        text.removeAll(keepingCapacity: true)
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
    }

    /// The text of a field, for the edges (tests, error messages); the hot path uses the bytes.
    public func string(_ range: Range<Int>?) -> String? {
        guard let range else { return nil }
        return String(decoding: text[range], as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    private static let zeros = [UInt8](repeating: 0, count: 4096)

    /// Makes the array hold at least `count` bytes, appending zeros to those it holds (the
    /// previous line's text, overwritten): the parsers' scratch before they write decoded text
    /// through a pointer, then trim it to what they wrote. Appends from a block of zeros,
    /// because appending `repeatElement(0, count:)` goes byte by byte.
    mutating func growWithZeros(to count: Int) {
        var remaining = count - self.count
        guard remaining > 0 else { return }
        Self.zeros.withUnsafeBytes { zeros in
            while remaining > 0 {
                let piece = Swift.min(remaining, zeros.count)
                append(contentsOf: UnsafeRawBufferPointer(rebasing: zeros[0..<piece]))
                remaining -= piece
            }
        }
    }
}
