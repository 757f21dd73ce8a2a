import OfferLabIngest
import OfferLabSupport

/// One `history_logs` file reduced to what the app's past reads of it
/// (docs/statistics.md#the-apps-past): its paid charges, refunds and cancels, with their ids as the file's
/// own text, and its counters. The parsed-log cache keeps a past file so (`ParsedLogCache.storePast`),
/// its id tables as they are in memory: a later night reads a year of past back without interning
/// its ids again, and `AppPast` looks up only the ids it joins on (a chain's
/// `original_transaction_id`, a user).
public struct PastFile: Sendable {
    /// A paid charge (purchase or renewal), a refund or a cancel, outside the sandbox.
    public struct Event: Sendable, BitwiseCopyable {
        public var time: Int64
        /// `EventRecord.noTime` when absent.
        public var expiresAt: Int64
        /// An id in `originalTransactions`, -1 when absent.
        public var originalTransaction: Int32
        /// An id in `transactions`, -1 when absent.
        public var transaction: Int32
        /// An id in `labels`, -1 when absent.
        public var product: Int32
        /// An id in `users`.
        public var user: Int32
        public var kind: PastEventKind
        /// Micro-units of `currency` (an id in `labels`, -1 when absent); `EventRecord.noPrice`
        /// when absent: what the backtest counts a buyer paid (docs/statistics.md#the-apps-own-track-record).
        public var price: Int64
        public var currency: Int32
    }

    public internal(set) var events: [Event] = []
    /// The events' `original_transaction_id`s: their chains, all looked up by `AppPast`.
    public internal(set) var originalTransactions = ByteStringInterner()
    /// The events' own `transaction_id`s (compared only where two charges of a chain are at the
    /// same time).
    public internal(set) var transactions = ByteStringInterner()
    /// The events' products and currencies.
    public internal(set) var labels = ByteStringInterner()
    public internal(set) var users = ByteStringInterner()
    /// The file's counters: its batches' added up, as `EventStore.append` adds them.
    public internal(set) var counters = IngestCounters()
    /// The latest time of any event kept (`Int64.min`: none): an entry is read back only for a
    /// night after it.
    var latestTimestamp = Int64.min
    /// Valid events dropped for being at or after `as_of`: the cache keeps no file that had any.
    var eventsAtOrAfterAsOf = 0

    init() {}

    /// The file whose batches (in order, their users not resolved: read with the file's own user
    /// table) are `batches`; `keepRejects`: the job's `rejects_per_reason`.
    init(_ batches: [EventBatch], keepRejects: Int) {
        for batch in batches {
            counters.add(batch.counters, keep: keepRejects)
            eventsAtOrAfterAsOf += batch.eventsAtOrAfterAsOf
            // The batch's ids, as the file's: interned when an event first needs them (-2: not yet).
            var originalIDs = [Int32](repeating: -2, count: batch.transactions.count)
            var transactionIDs = originalIDs
            var labelIDs = [Int32](repeating: -2, count: batch.labels.count)
            var userIDs = [Int32](repeating: -2, count: batch.users.fileUsers.count)
            func fileID(_ id: Int32, _ local: ByteStringInterner, _ ids: inout [Int32], _ file: inout ByteStringInterner) -> Int32 {
                guard id >= 0 else { return id }
                if ids[Int(id)] == -2 { ids[Int(id)] = local.withBytes(of: id) { file.intern($0) } }
                return ids[Int(id)]
            }
            var nextDetails = 0
            for record in batch.records {
                latestTimestamp = max(latestTimestamp, record.timestamp)
                let shape = batch.shapes.all[Int(record.shape)]
                guard shape.hasDetails else { continue }
                let details = batch.details[nextDetails]
                nextDetails += 1
                guard let kind = shape.pastEventKind else { continue }
                let event = Event(
                    time: record.timestamp, expiresAt: details.expiresAt,
                    originalTransaction: fileID(details.originalTransaction, batch.transactions, &originalIDs, &originalTransactions),
                    transaction: fileID(details.transaction, batch.transactions, &transactionIDs, &transactions),
                    product: fileID(details.product, batch.labels, &labelIDs, &labels),
                    user: fileID(Int32(batch.users.fileUserIndex(record.user)), batch.users.fileUsers, &userIDs, &users),
                    kind: kind,
                    price: details.price, currency: fileID(details.currency, batch.labels, &labelIDs, &labels)
                )
                events.append(event)
            }
        }
    }
}

/// What the app's past reads of an event (docs/statistics.md#the-apps-past).
public enum PastEventKind: UInt8, Sendable, BitwiseCopyable {
    /// A paid charge: a purchase or a renewal.
    case charge
    case refund
    /// Renewal turned off: the chain's state (contract §2.14, "What a member's state says").
    case cancel
}

extension EventShape {
    /// For an event the app's past reads (a paid charge, purchase or renewal, a refund or a
    /// cancel, with its details, outside the sandbox): its kind; nil for any other event.
    public var pastEventKind: PastEventKind? {
        guard hasDetails, !isSandbox, let type = eventType else { return nil }
        switch type {
        case .purchase, .renewal: return .charge
        case .refund: return .refund
        case .cancel: return .cancel
        case .paywallView, .trialStart, .expire: return nil
        }
    }
}
