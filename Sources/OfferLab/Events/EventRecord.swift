import OfferLabIngest

/// One event kept in memory: 48 bytes, every text field as an interned id or, for `event_id`,
/// an exact 128-bit key (`EventIDKey`). The fields that few events have (price, transactions,
/// product, currency: about 4 % of the lines) are kept apart, in their file's `EventDetails`:
/// at 64 bytes with them inline, the records were a quarter larger, and every byte of them is
/// fresh memory that the run faults in and that clean-up reads twice.
///
/// Records are kept in file order, then line order: a record's position breaks ties between
/// copies of an event (§2.2), so it carries no line number of its own.
struct EventRecord: Sendable, Equatable {
    /// Microseconds since the epoch, UTC.
    var timestamp: Int64
    /// `event_id` as `EventIDKey(high:low:form:)`; `form` is `EventIDKey.Form.absent` without one.
    var eventIDHigh: UInt64
    var eventIDLow: UInt64
    /// Index in the population's user table; -1 for a user with no assignment row. (While its
    /// file is being read: the index in the file's own user table, see `EventBatch`.)
    var user: Int32
    /// Ids in the file's label interner (`EventStore.Segment` maps them); -1 when absent.
    var loggedOffering: Int32
    var loggedGroup: Int32
    /// Index of the event's details in its file's `details`; -1 when it has none.
    var details: Int32
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

/// The fields of an event that has a price, a transaction, a product or a currency.
struct EventDetails: Sendable, Equatable {
    /// Micro-units of `currency`; `EventRecord.noPrice` when absent.
    var price: Int64
    /// Ids in the file's interners (`EventStore.Segment` maps them); -1 when absent.
    var transaction: Int32
    var originalTransaction: Int32
    var product: Int32
    var currency: Int32

    /// What an event without details has.
    static let none = EventDetails(
        price: EventRecord.noPrice, transaction: EventRecord.absent, originalTransaction: EventRecord.absent, product: EventRecord.absent,
        currency: EventRecord.absent)
}
