import OfferLabIngest

/// One event kept in memory: 64 bytes, every text field as an interned id.
struct EventRecord: Sendable {
    /// Microseconds since the epoch, UTC.
    var timestamp: Int64
    /// File order: `fileIndex << 32 | lineNumber`, for ties between copies.
    var sequence: Int64
    /// Micro-units of `currency`; `EventRecord.noPrice` when absent.
    var price: Int64
    /// Index in the population's user table; -1 for a user with no assignment row.
    var user: Int32
    /// Ids in the store's interners; -1 when absent.
    var eventID: Int32
    var transaction: Int32
    var originalTransaction: Int32
    var product: Int32
    var currency: Int32
    var loggedOffering: Int32
    var loggedGroup: Int32
    /// `EventType.rawValue`, or `EventRecord.unknownKind`.
    var kind: UInt8
    var isSandbox: Bool

    static let noPrice = Int64.min
    static let unknownKind: UInt8 = 255
    static let absent: Int32 = -1

    var eventType: EventType? { EventType(rawValue: kind) }

    /// Whether this copy wins over `other` when deduplicating: earlier `ts`, then file order.
    func precedes(_ other: EventRecord) -> Bool {
        (timestamp, sequence) < (other.timestamp, other.sequence)
    }
}
