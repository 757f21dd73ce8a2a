import OfferLabIngest
import OfferLabSupport

/// One subscription chain of the app's past (docs/statistics.md#the-apps-past) read up to its
/// latest event: what the projection counts of it, and that event's time, so that events after it
/// carry it on exactly as if the chain were read again whole.
public struct PastChain: Sendable, BitwiseCopyable {
    /// Its first charge's user and product, ids in the reader's tables (`AppPast`: the
    /// population's index and the catalog's; `PastChains`: its own); -1: none.
    public var user: Int32 = -1
    public var product: Int32 = -1
    /// Paid charges counted (0: none yet, and a refund takes nothing back).
    public var chargeCount: Int32 = 0
    public var lastChargeRefunded = false
    public var lastChargeTime: Int64 = 0
    /// The last charge's `expires_at`, `EventRecord.noTime` when absent.
    public var lastExpiresAt = EventRecord.noTime
    /// Bit k − 1: a cancel came after its k-th charge and before the next (renewal turned off
    /// then; charges past the 64th keep no state), as the members' chains are read (`GroupObservation`).
    public var turnedOffAfterCharge: UInt64 = 0
    /// The time of its latest event, refunds and repeated charges included.
    public var lastEventTime = Int64.min

    public init() {}

    /// Sorts `events` into chains, each in time order (a charge before a refund or a cancel at
    /// the same time, else in the order of `events`), and reads each one on from `start(key, its
    /// first event's time)` (nil: from nothing), handing it to `body` with its key, charges or not,
    /// and the events it counted in time order (its charges, and the refunds and cancels after its
    /// first charge, whether read here or, for a chain `start` carries on, before). A charge at the
    /// time of the chain's last charge read here, with the same `transaction_id` (its text in
    /// `transactions[source]`), counts once; a refund at or after
    /// the last charge takes it back; a cancel after a charge turns the chain's renewal off
    /// (`turnedOffAfterCharge`), one before any changes nothing.
    public static func read(
        _ events: inout [PastMoneyEvent], transactions: [ByteStringInterner], start: (Int64, Int64) -> PastChain?,
        _ body: (Int64, PastChain, ArraySlice<PastMoneyEvent>) -> Void
    ) {
        events.sort { ($0.chain, $0.time, $0.kind.rawValue) < ($1.chain, $1.time, $1.kind.rawValue) }
        var first = 0
        // The chain's counted events, moved to the front of its own events (`kept` ≤ `next`).
        while first < events.count {
            var chain = start(events[first].chain, events[first].time) ?? PastChain()
            var lastCharge: PastMoneyEvent?
            var next = first
            var kept = first
            while next < events.count && events[next].chain == events[first].chain {
                let event = events[next]
                next += 1
                chain.lastEventTime = event.time
                if event.kind != .charge {
                    if event.kind == .refund && chain.chargeCount > 0 { chain.lastChargeRefunded = true }
                    if event.kind == .cancel && chain.chargeCount > 0 && chain.chargeCount <= 64 {
                        chain.turnedOffAfterCharge |= 1 << UInt64(chain.chargeCount - 1)
                    }
                    if chain.chargeCount > 0 {
                        events[kept] = event
                        kept += 1
                    }
                    continue
                }
                if let lastCharge, lastCharge.time == event.time && lastCharge.sameTransaction(as: event, transactions: transactions) {
                    continue
                }
                lastCharge = event
                events[kept] = event
                kept += 1
                if chain.chargeCount == 0 { (chain.user, chain.product) = (event.user, event.product) }
                chain.chargeCount += 1
                chain.lastChargeTime = event.time
                chain.lastExpiresAt = event.expiresAt
                chain.lastChargeRefunded = false
            }
            body(events[first].chain, chain, events[first..<kept])
            first = next
        }
    }
}

/// A paid charge, refund or cancel, as chains are read from it (`PastChain.read`).
public struct PastMoneyEvent: Sendable, BitwiseCopyable {
    /// Its chain's key (`chainKey`).
    public var chain: Int64
    public var time: Int64
    public var kind: PastEventKind
    /// Its product and user, ids in the reader's tables (`PastChain.user`, `product`).
    public var product: Int32
    public var user: Int32
    /// The table of `transactions` that `transaction` is an id in.
    public var source: Int32
    /// Its `transaction_id`, -1 when absent.
    public var transaction: Int32
    /// `EventRecord.noTime` when absent.
    public var expiresAt: Int64
    /// Its price or refunded amount, micro-units of `currency` (an id in the reader's table of
    /// `source`, -1 when absent); `EventRecord.noPrice` when absent: what the app's own track
    /// record counts a buyer paid (`BacktestCohorts`).
    public var price: Int64
    public var currency: Int32

    public init(
        chain: Int64, time: Int64, kind: PastEventKind, product: Int32, user: Int32, source: Int32, transaction: Int32,
        details: (expiresAt: Int64, price: Int64, currency: Int32)
    ) {
        (self.chain, self.time, self.kind, self.product) = (chain, time, kind, product)
        (self.user, self.source, self.transaction) = (user, source, transaction)
        (self.expiresAt, self.price, self.currency) = details
    }

    /// A chain's key: its `original_transaction_id` (an id ≥ 0), else, for a user (an id ≥ 0),
    /// below 0 from the user and the product's label (-1: none); nil: no chain.
    public static func chainKey(originalTransaction: Int32, user: Int32, productLabel: Int32) -> Int64? {
        if originalTransaction >= 0 { return Int64(originalTransaction) }
        guard user >= 0 else { return nil }
        return -1 - (Int64(user) << 32 | Int64(productLabel + 1))
    }

    /// The user and product label a key below 0 was made of (`chainKey`).
    static func userAndLabel(ofKey key: Int64) -> (user: Int32, label: Int32) {
        let packed = -1 - key
        return (Int32(packed >> 32), Int32(truncatingIfNeeded: packed & 0xFFFF_FFFF) - 1)
    }

    /// Whether the two have the same `transaction_id` (both none counts as the same), compared as
    /// text when they come from different tables.
    func sameTransaction(as other: PastMoneyEvent, transactions: [ByteStringInterner]) -> Bool {
        guard transaction >= 0 && other.transaction >= 0 else { return transaction < 0 && other.transaction < 0 }
        if source == other.source { return transaction == other.transaction }
        return transactions[Int(source)].withBytes(of: transaction) { text in
            transactions[Int(other.source)].withBytes(of: other.transaction) { $0.elementsEqual(text) }
        }
    }
}

/// The `history_logs` files of a job (`PastFile`, in the job's order) read together into their
/// chains, each up to its latest event, with what a night joins them on as text: the parsed-log
/// cache keeps them as one entry for the whole set of files (`ParsedLogCache.storePastChains`), so
/// that a later night neither reads the files' charges back nor joins them across the files
/// again; it looks up each chain's `original_transaction_id` among the logs' and its user among
/// the population's, and carries on a chain the logs continue after its latest event
/// (`AppPast.init(logs:chains:…)`).
public struct PastChains: Sendable {
    public struct Keyed: Sendable, BitwiseCopyable {
        /// Its `original_transaction_id`, an id in `originalTransactions`; -1: a chain told by its
        /// user (in `users`) and product (in `labels`, -1: none), `keyUser` and `keyLabel`.
        public var originalTransaction: Int32
        public var keyUser: Int32
        public var keyLabel: Int32
        /// Its user and product are ids in `users` and `labels`.
        public var chain: PastChain
        /// Its counted charges, refunds and cancels (`PastChain.read`): `events[eventsStart..<eventsEnd]`.
        public var eventsStart: Int32
        public var eventsEnd: Int32
    }

    /// A chain's counted charge, refund or cancel, as the app's own track record reads it
    /// (docs/statistics.md#the-apps-own-track-record).
    public struct Event: Sendable, BitwiseCopyable {
        public var time: Int64
        /// `EventRecord.noTime` when absent.
        public var expiresAt: Int64
        /// Micro-units of `currency` (an id in `labels`, -1 when absent); `EventRecord.noPrice` when absent.
        public var price: Int64
        public var currency: Int32
        public var kind: PastEventKind
    }

    public internal(set) var chains: [Keyed] = []
    /// The chains' counted events, chain after chain.
    public internal(set) var events: [Event] = []
    public internal(set) var originalTransactions = ByteStringInterner()
    public internal(set) var users = ByteStringInterner()
    public internal(set) var labels = ByteStringInterner()
    /// Each file's counters, in the files' order.
    public internal(set) var fileCounters: [IngestCounters] = []
    /// The files' charges, refunds and cancels.
    public internal(set) var eventCount = 0
    /// The latest time of any event the files kept: the entry is read back only for a night after it.
    var latestTimestamp = Int64.min

    init() {}

    /// The chains of `files`, the same text of an id in any of them being the same id.
    public init(_ files: [PastFile]) {
        var events: [PastMoneyEvent] = []
        events.reserveCapacity(files.reduce(0) { $0 + $1.events.count })
        func ids(_ fileTable: ByteStringInterner, in table: inout ByteStringInterner) -> [Int32] {
            (0..<Int32(fileTable.count)).map { id in fileTable.withBytes(of: id) { table.intern($0) } }
        }
        for (source, file) in files.enumerated() {
            fileCounters.append(file.counters)
            eventCount += file.events.count
            latestTimestamp = max(latestTimestamp, file.latestTimestamp)
            let originalIDs = ids(file.originalTransactions, in: &originalTransactions)
            let userIDs = ids(file.users, in: &users)
            let labelIDs = ids(file.labels, in: &labels)
            for event in file.events {
                let original = event.originalTransaction >= 0 ? originalIDs[Int(event.originalTransaction)] : -1
                let user = userIDs[Int(event.user)]
                let label = event.product >= 0 ? labelIDs[Int(event.product)] : -1
                guard let chain = PastMoneyEvent.chainKey(originalTransaction: original, user: user, productLabel: label) else { continue }
                events.append(
                    PastMoneyEvent(
                        chain: chain, time: event.time, kind: event.kind, product: label, user: user, source: Int32(source),
                        transaction: event.transaction,
                        details: (event.expiresAt, event.price, event.currency >= 0 ? labelIDs[Int(event.currency)] : -1)))
            }
        }
        var chains: [Keyed] = []
        var kept: [Event] = []
        PastChain.read(&events, transactions: files.map(\.transactions), start: { _, _ in nil }) { key, chain, counted in
            let (user, label) = key >= 0 ? (-1, -1) : PastMoneyEvent.userAndLabel(ofKey: key)
            let start = Int32(kept.count)
            for event in counted {
                kept.append(
                    Event(
                        time: event.time, expiresAt: event.expiresAt, price: event.price, currency: event.currency, kind: event.kind
                    ))
            }
            chains.append(
                Keyed(
                    originalTransaction: key >= 0 ? Int32(key) : -1, keyUser: user, keyLabel: label, chain: chain, eventsStart: start,
                    eventsEnd: Int32(kept.count)))
        }
        self.chains = chains
        self.events = kept
    }
}
