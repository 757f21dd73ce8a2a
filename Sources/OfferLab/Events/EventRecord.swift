import OfferLabIngest

/// One event kept in memory: 64 bytes, every text field as an interned id or, for `event_id`,
/// an exact 128-bit key (`EventIDKey`).
///
/// Records are kept in file order, then line order: a record's position breaks ties between
/// copies of an event (§2.2), so it carries no line number of its own.
struct EventRecord: Sendable, Equatable {
    /// Microseconds since the epoch, UTC.
    var timestamp: Int64
    /// Micro-units of `currency`; `EventRecord.noPrice` when absent.
    var price: Int64
    /// `event_id` as `EventIDKey(high:low:form:)`; `form` is `EventIDKey.Form.absent` without one.
    var eventIDHigh: UInt64
    var eventIDLow: UInt64
    /// Index in the population's user table; -1 for a user with no assignment row. (While its
    /// file is being read: the index in the file's own user table, see `EventBatch`.)
    var user: Int32
    /// Ids in the store's interners; -1 when absent.
    var transaction: Int32
    var originalTransaction: Int32
    var product: Int32
    var currency: Int32
    var loggedOffering: Int32
    var loggedGroup: Int32
    /// `EventType.rawValue`, or `EventRecord.unknownKind`.
    var kind: UInt8
    var isSandbox: Bool
    var eventIDForm: EventIDKey.Form

    static let noPrice = Int64.min
    static let unknownKind: UInt8 = 255
    static let absent: Int32 = -1

    var eventType: EventType? { EventType(rawValue: kind) }

    var eventID: EventIDKey? {
        get { eventIDForm == .absent ? nil : EventIDKey(high: eventIDHigh, low: eventIDLow, form: eventIDForm) }
        set {
            eventIDHigh = newValue?.high ?? 0
            eventIDLow = newValue?.low ?? 0
            eventIDForm = newValue?.form ?? .absent
        }
    }
}
