import OfferLabIngest

/// An event of the purchase logs (docs/input-formats.md#purchase-logs) made from a store record,
/// with the fields the stores add (`store`, `expires_at`, RevenueCat's tax and commission shares).
public struct StoreEvent: Sendable, Equatable {
    /// The source format of the record it was made from.
    public var format: SourceFormat
    /// `<format>:<transaction id>[:refund]`, or `<format>:<notification id>` for a cancel or expire.
    public var eventID: String
    /// Microseconds since the epoch, UTC.
    public var at: Int64
    public var userID: String
    public var event: EventType
    public var productID: String?
    /// For a refund: the refunded transaction.
    public var transactionID: String?
    public var originalTransactionID: String?
    /// Micro-units of `currency`; for a refund nil means the whole price of the refunded
    /// transaction; for a paid charge nil means its money is left out (`unpriced_charges`).
    public var priceMicros: Int64?
    public var currency: String?
    public var isSandbox = false
    public var platform: String?
    public var country: String?
    public var store: String?
    public var expiresAt: Int64?
    public var taxShare: Double?
    public var commissionShare: Double?
    /// The input file that first delivered the record the event was made from (nil for a record
    /// made in memory): `offerlab events` writes the event to that file's output.
    public var sourcePath: String?

    /// An event without the optional fields of the log format (set them where the record has
    /// them).
    public init(format: SourceFormat, eventID: String, at: Int64, userID: String, event: EventType) {
        self.format = format
        self.eventID = eventID
        self.at = at
        self.userID = userID
        self.event = event
    }

    /// The trial or charge `event` of `record`, as `userID`'s.
    init(_ record: StoreTransaction, event: EventType, userID: String) {
        self.init(
            format: record.format, eventID: record.format.eventID(of: record.transactionID), at: record.at, userID: userID, event: event)
        productID = record.productID
        transactionID = record.transactionID
        originalTransactionID = record.originalTransactionID
        priceMicros = record.money.priceMicros
        currency = record.money.currency
        isSandbox = record.buyer.isSandbox
        platform = record.buyer.platform
        country = record.buyer.country
        store = record.buyer.store
        expiresAt = record.expiresAt
        taxShare = record.money.taxShare
        commissionShare = record.money.commissionShare
        // Exact proceeds are the log format's shares: no tax share, the rest of the price as
        // commission (a share of at least 0 and under 1; else the job's rules apply), which the
        // log format keeps in billionths: the proceeds to 5·10⁻¹⁰ of the price.
        if let proceeds = record.money.proceedsMicros, let price = record.money.priceMicros, price > 0, proceeds > 0, proceeds <= price {
            taxShare = 0
            commissionShare = Double(price - proceeds) / Double(price)
        }
        sourcePath = record.sourcePath
    }

    /// The cancel or expire `change`, as `userID`'s.
    init(_ change: StoreStatusChange, userID: String) {
        self.init(format: change.format, eventID: change.format.eventID(of: change.id), at: change.at, userID: userID, event: change.event)
        productID = change.productID
        transactionID = change.transactionID
        originalTransactionID = change.originalTransactionID
        isSandbox = change.buyer.isSandbox
        platform = change.buyer.platform
        country = change.buyer.country
        store = change.buyer.store
        sourcePath = change.sourcePath
    }
}

/// The records of every store source of a job, and what they become.
public struct StoreEventResolution: Sendable, Equatable {
    public var events: [StoreEvent] = []
    /// `unattributed_store_records`, `family_shared_records`, `unpriced_charges` per source format.
    public var counts: [SourceFormat: StoreCounts] = [:]
}

/// What the files of one store source format hold: its records, its counters and the lines
/// rejected or noted.
public struct StoreSourceRecords: Sendable, Equatable {
    public var format: SourceFormat
    public var transactions: [StoreTransaction] = []
    /// Refunds reported apart from their charge (RevenueCat's webhooks).
    public var refunds: [StoreRefund] = []
    public var statusChanges: [StoreStatusChange] = []
    public var refundReversals: [StoreRefundReversal] = []
    /// What the source says of charges other sources deliver (Google Play's Orders).
    public var chargeDetails: [StoreChargeDetails] = []
    public var counts = StoreCounts()
    public var notes: [StoreLineNote] = []

    public init(format: SourceFormat) { self.format = format }
}

extension SourceFormat {
    /// The id of an event made from a record of the format (docs/input-formats.md#store-sources-from-records-to-events):
    /// `<format>:<id>`, then `suffix` (`:refund`); one string, made at its size.
    func eventID(of id: String, suffix: String = "") -> String {
        let format = rawValue
        var eventID = ""
        eventID.reserveCapacity(format.utf8.count + 1 + id.utf8.count + suffix.utf8.count)
        eventID += format
        eventID += ":"
        eventID += id
        eventID += suffix
        return eventID
    }
}

/// Turns the records of all store sources of a job into the events of the purchase logs
/// (docs/input-formats.md#store-sources-from-records-to-events), whatever format reported them: the
/// rules that need every source at once live here.
public enum StoreEventResolver {
    /// The events of every source; each format's counters are its source's plus what resolving
    /// its records counted.
    public static func resolve(sources: [StoreSourceRecords], userTransactions: [String: String], asOf: Int64) -> StoreEventResolution {
        // The records of one source (most kinds of record come from one: Google Play's charges
        // from its notifications, their details from its Orders) are passed as they are, not
        // copied into new arrays.
        func all<Record>(_ records: KeyPath<StoreSourceRecords, [Record]>) -> [Record] {
            let holding = sources.filter { !$0[keyPath: records].isEmpty }
            return holding.count <= 1 ? holding.first?[keyPath: records] ?? [] : holding.flatMap { $0[keyPath: records] }
        }
        let details = all(\.chargeDetails)
        var transactions = all(\.transactions)
        var refunds = all(\.refunds)
        if !details.isEmpty { completeCharges(&transactions, refunds: &refunds, with: details) }
        var resolution = resolve(
            transactions: transactions, refunds: refunds, statusChanges: all(\.statusChanges),
            refundReversals: all(\.refundReversals), userTransactions: userTransactions, asOf: asOf)
        for source in sources { resolution.counts[source.format, default: .init()] += source.counts }
        return resolution
    }

    /// Completes the charges (and the refunds reported apart) that another source details
    /// (Google Play's Orders): a charge takes the details' time and money (a trial stays a trial
    /// without money); a refund of it takes the details' refunded amount, and details whose
    /// refunds no record reports become a refund of their charge. Details of a charge no source
    /// delivers make nothing: the charge is not known to be the app's or anyone's.
    static func completeCharges(_ transactions: inout [StoreTransaction], refunds: inout [StoreRefund], with details: [StoreChargeDetails])
    {
        // Each transaction's details by their index: the details are not copied into a table.
        var byTransaction: [String: Int] = [:]
        byTransaction.reserveCapacity(details.count)
        for (index, detail) in details.enumerated() { byTransaction[detail.transactionID] = index }
        var charges: [String: Int] = [:]
        charges.reserveCapacity(details.count)
        for index in transactions.indices {
            guard let detail = byTransaction[transactions[index].transactionID] else { continue }
            charges[details[detail].transactionID] = index
            transactions[index].complete(with: details[detail])
        }
        var refunded: Set<String> = []
        for index in refunds.indices {
            guard let detail = byTransaction[refunds[index].transactionID], refunds[index].complete(with: details[detail]) else { continue }
            refunded.insert(refunds[index].transactionID)
        }
        for detail in details {
            guard let charge = charges[detail.transactionID], !refunded.contains(detail.transactionID),
                let refund = StoreRefund(detailing: transactions[charge], with: detail)
            else { continue }
            refunded.insert(detail.transactionID)
            refunds.append(refund)
        }
    }

    /// - Parameters:
    ///   - userTransactions: the server's `user_transactions` table, original transaction id →
    ///     user id; it wins over the user a record names.
    ///   - refunds: refunds reported apart from their charge; the charge may come from any source.
    ///   - asOf: a refund reversal said at or after it does not count yet.
    public static func resolve(
        transactions: [StoreTransaction], refunds: [StoreRefund] = [], statusChanges: [StoreStatusChange],
        refundReversals: [StoreRefundReversal], userTransactions: [String: String], asOf: Int64
    ) -> StoreEventResolution {
        let firstCharges = firstPaidCharges(transactions)
        return resolve(
            transactions: transactions, refunds: refunds, statusChanges: statusChanges, refundReversals: refundReversals,
            userTransactions: userTransactions, asOf: asOf
        ) { record, chain in firstCharges[chain] == ChargeOrder(record) }
    }

    /// Resolves some of a night's records, the others resolved before (`KeptStoreNight`, in
    /// OfferLabEvents; a store's kept feeds, `KeptFeedsSource`): `isFirstPaidCharge(record, chain)` says whether a paid
    /// charge whose place its source does not say (`chargeByChainOrder`) is the earliest of its
    /// chain among all the night's records, not only these; `chargeResolvedBefore(transactionID)`
    /// is the charge event of a refund's transaction that is not among these (nil: none).
    package static func resolve(
        transactions: [StoreTransaction], refunds: [StoreRefund] = [], statusChanges: [StoreStatusChange],
        refundReversals: [StoreRefundReversal], userTransactions: [String: String], asOf: Int64,
        isFirstPaidCharge: (StoreTransaction, String) -> Bool, chargeResolvedBefore: (String) -> StoreEvent? = { _ in nil }
    ) -> StoreEventResolution {
        var resolution = StoreEventResolution()
        resolution.events.reserveCapacity(transactions.count + refunds.count + statusChanges.count)
        var reversals: [String: [Int64]] = [:]
        for reversal in refundReversals where reversal.at < asOf { reversals[reversal.transactionID, default: []].append(reversal.at) }
        // A reversal said after the refund cancels it; a refund again after the reversal counts.
        func isReversed(_ transactionID: String, refundedAt: Int64) -> Bool {
            (reversals[transactionID] ?? []).contains { $0 >= refundedAt }
        }
        // The server's user of a chain: the table is mostly absent, and then no key is hashed.
        func tableUser(_ chain: String) -> String? { userTransactions.isEmpty ? nil : userTransactions[chain] }
        // Where each transaction's charge event is, for the refunds reported apart (only the
        // webhooks and Google Play report any).
        var chargeEvents: [String: Int] = [:]
        if !refunds.isEmpty { chargeEvents.reserveCapacity(transactions.count) }

        for record in transactions {
            if record.buyer.isFamilyShared {
                resolution.counts[record.format, default: .init()][.familySharedRecords] += 1
                continue
            }
            let chain = record.originalTransactionID ?? record.transactionID
            guard let userID = tableUser(chain) ?? record.buyer.userID else {
                resolution.counts[record.format, default: .init()][.unattributedStoreRecords] += 1
                continue
            }
            let event: EventType
            switch record.kind {
            case .trial: event = .trialStart
            case .firstCharge: event = .purchase
            case .laterCharge: event = .renewal
            case .chargeByChainOrder: event = isFirstPaidCharge(record, chain) ? .purchase : .renewal
            }
            if event != .trialStart, record.money.priceMicros == nil, !record.buyer.isSandbox {
                resolution.counts[record.format, default: .init()][.unpricedCharges] += 1
            }
            var charge = StoreEvent(record, event: event, userID: userID)
            if !refunds.isEmpty && chargeEvents[record.transactionID] == nil {
                chargeEvents[record.transactionID] = resolution.events.count
            }
            resolution.events.append(charge)
            guard let refund = record.refund, !isReversed(record.transactionID, refundedAt: refund.at) else { continue }
            charge.eventID += ":refund"
            charge.event = .refund
            charge.at = refund.at
            charge.priceMicros = refund.amountMicros
            charge.currency = refund.amountMicros == nil ? nil : record.money.currency
            charge.expiresAt = nil
            resolution.events.append(charge)
        }

        for refund in refunds {
            if refund.buyer.isFamilyShared {
                resolution.counts[refund.format, default: .init()][.familySharedRecords] += 1
                continue
            }
            let refunded = chargeEvents[refund.transactionID].map { resolution.events[$0] } ?? chargeResolvedBefore(refund.transactionID)
            let chain = refund.originalTransactionID ?? refunded?.originalTransactionID ?? refund.transactionID
            guard let userID = tableUser(chain) ?? refund.buyer.userID ?? refunded?.userID else {
                resolution.counts[refund.format, default: .init()][.unattributedStoreRecords] += 1
                continue
            }
            guard !isReversed(refund.transactionID, refundedAt: refund.at) else { continue }
            // A refund of unknown amount takes back nothing rather than the whole price.
            let amountMicros = refund.amountUnknown ? 0 : refund.amountMicros
            if refund.amountUnknown && !refund.buyer.isSandbox {
                resolution.counts[refund.format, default: .init()][.unpricedRefunds] += 1
            }
            var event = StoreEvent(
                format: refund.format, eventID: refund.format.eventID(of: refund.transactionID, suffix: ":refund"), at: refund.at,
                userID: userID, event: .refund)
            event.productID = refund.productID ?? refunded?.productID
            event.transactionID = refund.transactionID
            event.originalTransactionID = refund.originalTransactionID ?? refunded?.originalTransactionID
            // The amount is in the charge's currency: a refund that does not name it takes the charge's.
            event.priceMicros = amountMicros
            event.currency = amountMicros == nil ? nil : refund.currency ?? refunded?.currency
            event.isSandbox = refund.buyer.isSandbox
            event.platform = refund.buyer.platform ?? refunded?.platform
            event.country = refund.buyer.country ?? refunded?.country
            event.store = refund.buyer.store ?? refunded?.store
            event.sourcePath = refund.sourcePath
            resolution.events.append(event)
        }

        for change in statusChanges {
            let chain = change.originalTransactionID ?? change.transactionID
            guard let userID = chain.flatMap(tableUser) ?? change.buyer.userID else {
                resolution.counts[change.format, default: .init()][.unattributedStoreRecords] += 1
                continue
            }
            resolution.events.append(StoreEvent(change, userID: userID))
        }
        return resolution
    }

    /// The event `resolve` makes of the charge `record` (a renewal or a purchase: a refund reads
    /// neither), or nil when it makes none (family shared, or no user).
    package static func chargeEvent(of record: StoreTransaction, userTransactions: [String: String]) -> StoreEvent? {
        guard !record.buyer.isFamilyShared else { return nil }
        let chain = record.originalTransactionID ?? record.transactionID
        guard let userID = (userTransactions.isEmpty ? nil : userTransactions[chain]) ?? record.buyer.userID else { return nil }
        return StoreEvent(record, event: record.kind == .trial ? .trialStart : .renewal, userID: userID)
    }

    /// The earliest paid charge of each chain among all records, counted for a test or not (ties:
    /// the lower transaction id); none when no record's type depends on it (no App Store source).
    private static func firstPaidCharges(_ transactions: [StoreTransaction]) -> [String: ChargeOrder] {
        var first: [String: ChargeOrder] = [:]
        guard transactions.contains(where: { $0.kind == .chargeByChainOrder }) else { return first }
        first.reserveCapacity(transactions.count)
        for record in transactions where record.kind != .trial {
            let chain = record.originalTransactionID ?? record.transactionID
            let order = ChargeOrder(record)
            if let known = first[chain], known <= order { continue }
            first[chain] = order
        }
        return first
    }
}

extension StoreTransaction {
    /// The charge as another source details it (Google Play's Orders): the details' time and money;
    /// a trial stays a trial without money.
    package mutating func complete(with details: StoreChargeDetails) {
        guard kind != .trial else { return }
        at = details.at
        money = details.money
    }
}

extension StoreRefund {
    /// The refund as its charge's details tell it: their refunded amount, in their currency; false
    /// when they hold no refund.
    package mutating func complete(with details: StoreChargeDetails) -> Bool {
        guard let refunded = details.refunds?.amountMicros else { return false }
        amountMicros = refunded
        currency = details.money.currency
        amountUnknown = false
        return true
    }

    /// The refund that details holding refunds make of their `charge` when no record reports one;
    /// nil when they hold none.
    package init?(detailing charge: StoreTransaction, with details: StoreChargeDetails) {
        guard let refunds = details.refunds else { return nil }
        self.init(
            format: details.format, transactionID: charge.transactionID, originalTransactionID: charge.originalTransactionID,
            productID: charge.productID, at: refunds.at, amountMicros: refunds.amountMicros, currency: details.money.currency,
            buyer: charge.buyer)
        sourcePath = details.sourcePath
    }
}

/// Where a paid charge stands in its chain: by time, then by transaction id.
package struct ChargeOrder: Comparable, Sendable {
    var at: Int64
    var transactionID: String

    package init(_ record: StoreTransaction) {
        at = record.at
        transactionID = record.transactionID
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { (lhs.at, lhs.transactionID) < (rhs.at, rhs.transactionID) }
}
