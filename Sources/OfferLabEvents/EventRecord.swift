import OfferLabIngest

/// One event kept in memory: 32 bytes. Its `event_id` is an exact 128-bit key (`EventIDKey`);
/// what it has in common with many events of its file (the logged offering and group, the type,
/// the flags) is its shape, an index into the file's few hundred `EventShape`s; the fields that
/// few events have (price, transactions, product, currency: about 4 % of the lines) are kept
/// apart, in their file's `EventDetails`, found by their order. Every byte of a record is fresh
/// memory that the run faults in and that clean-up reads twice, so what most events share is kept
/// once per shape, not once per record.
///
/// Records are kept in file order, then line order: a record's position breaks ties between
/// copies of an event (docs/analysis.md §2), so it carries no line number of its own.
public struct EventRecord: Sendable, Equatable {
    /// Microseconds since the epoch, UTC.
    public var timestamp: Int64
    /// `event_id` as `EventIDKey(high:low:form:)`, its form in the shape.
    public var eventIDHigh: UInt64
    public var eventIDLow: UInt64
    /// The user: its index in the population's user table, or none (read once its batch's users
    /// are resolved: `EventBatch`, `UserResolver`).
    public var user: UserReference
    /// Index of the record's `EventShape` in its file's shapes.
    public var shape: Int32

    public static let noPrice = Int64.min
    public static let noTime = Int64.min
    public static let unknownKind: UInt8 = 255
    public static let absent: Int32 = -1
}

/// What an event has in common with many others of its file: every field of it but its time,
/// its `event_id`, its user and its details. A file of tens of thousands of events has a few
/// hundred shapes.
public struct EventShape: Hashable, Sendable {
    /// Label ids, -1 when absent: the file's while it is read, the store's once it is merged
    /// (`EventStore.append`).
    public var loggedOffering: Int32
    public var loggedGroup: Int32
    /// The slice fields' values as label ids, -1 when absent or not kept (`SliceFields`).
    public var country: Int32 = EventRecord.absent
    public var platform: Int32 = EventRecord.absent
    /// `EventType.rawValue`, or `EventRecord.unknownKind`.
    public var kind: UInt8
    public var isSandbox: Bool
    public var eventIDForm: EventIDKey.Form
    /// Whether the event has details: the file's n-th record that has any has `details[n]`.
    public var hasDetails: Bool

    public var eventType: EventType? { EventType(rawValue: kind) }
}

/// A file's shapes (`EventShape`), each once, with their ids: found for every line, so in a small
/// open-addressing table of its own rather than a `Dictionary`, whose hashing of the shape cost
/// more than the rest of the lookup.
public struct EventShapes: Sendable {
    public private(set) var all: [EventShape] = []
    /// Power-of-two table of ids into `all`, -1 = empty slot; at most half full.
    private var slots = [Int32](repeating: -1, count: 64)

    /// The id of `shape`, adding it when new.
    @inline(__always)
    public mutating func id(of shape: EventShape) -> Int32 {
        let mask = slots.count - 1
        var slot = Self.hash(shape) & mask
        while true {
            let id = slots[slot]
            if id < 0 { break }
            if all[Int(id)] == shape { return id }
            slot = (slot + 1) & mask
        }
        let id = Int32(all.count)
        all.append(shape)
        slots[slot] = id
        if all.count * 2 > slots.count { grow() }
        return id
    }

    @inline(__always)
    private static func hash(_ shape: EventShape) -> Int {
        let labels = UInt64(UInt32(bitPattern: shape.loggedOffering)) | UInt64(UInt32(bitPattern: shape.loggedGroup)) << 32
        // The slice fields, mixed into the flags' word: -1 for every shape of a run that does
        // not slice, so its shapes spread as they did before the fields were kept.
        let sliceLevels = UInt64(UInt32(bitPattern: shape.country)) ^ UInt64(UInt32(bitPattern: shape.platform)) << 29
        let flags =
            UInt64(shape.kind) | UInt64(shape.isSandbox ? 1 : 0) << 8 | UInt64(shape.eventIDForm.rawValue) << 9
            | UInt64(shape.hasDetails ? 1 : 0) << 12
        let mixed = (labels &* 0x9E37_79B9_7F4A_7C15) ^ ((flags ^ sliceLevels << 13) &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(truncatingIfNeeded: mixed >> 32)
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (id, shape) in all.enumerated() {
            var slot = Self.hash(shape) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(id)
        }
    }
}

/// The shares of a charge that go to tax and to the store's commission, as the event gives
/// them (RevenueCat's `tax_percentage` and `commission_percentage`), in billionths
/// (`LogRecord.wholeShare`); -1 when absent.
public struct FeeShares: Sendable, Equatable {
    public var tax: Int32
    public var commission: Int32

    public init(tax: Int32, commission: Int32) {
        self.tax = tax
        self.commission = commission
    }

    /// Neither share given.
    public static let absent = FeeShares(tax: EventRecord.absent, commission: EventRecord.absent)

    /// Whether the record states both shares: its proceeds are then exact, not the job's
    /// commission and VAT rules' (docs/analysis.md §8).
    @inline(__always) public var areStated: Bool { tax >= 0 && commission >= 0 }
}

/// The fields of an event that has a price, a transaction, a product, a currency, an
/// `expires_at`, a `store` or fee shares.
public struct EventDetails: Sendable, Equatable {
    /// Micro-units of `currency`; `EventRecord.noPrice` when absent.
    public var price: Int64
    /// Ids in the file's interners (`EventStore.Segment` maps them); -1 when absent.
    public var transaction: Int32
    public var originalTransaction: Int32
    public var product: Int32
    public var currency: Int32
    /// `expires_at`, microseconds since the epoch; `EventRecord.noTime` when absent.
    public var expiresAt: Int64
    /// The `store` label; -1 when absent.
    public var store: Int32
    /// RevenueCat's `tax_percentage` and `commission_percentage`.
    public var fees: FeeShares

    public init(
        price: Int64, transaction: Int32, originalTransaction: Int32, product: Int32, currency: Int32,
        expiresAt: Int64 = EventRecord.noTime, store: Int32 = EventRecord.absent, fees: FeeShares = .absent
    ) {
        self.price = price
        self.transaction = transaction
        self.originalTransaction = originalTransaction
        self.product = product
        self.currency = currency
        self.expiresAt = expiresAt
        self.store = store
        self.fees = fees
    }

    /// What an event without details has.
    public static let none = EventDetails(
        price: EventRecord.noPrice, transaction: EventRecord.absent, originalTransaction: EventRecord.absent, product: EventRecord.absent,
        currency: EventRecord.absent)
}
