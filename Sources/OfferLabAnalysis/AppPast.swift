import OfferLabEvents
import OfferLabIngest
import OfferLabProjection
import OfferLabSupport
import OfferLabTables

/// The app's past (docs/statistics.md#the-apps-past): every subscription chain of the night's
/// logs and `history_logs` files (`PastFile`), each reduced to what the projection counts of it (its product,
/// charges, last charge and whether that was refunded) and its user, so that each offering counts
/// the chains of the users who are not its members (`past(ofOffering:)`).
package struct AppPast: Sendable {
    /// One chain, read to its end.
    private struct Chain: Sendable {
        /// The population's index of its first event's user; -1: a user the assignment table does not hold.
        var user: Int32
        /// Its first charge's product, an index into `products`.
        var product: Int
        var chargeCount: Int
        var lastChargeTime: Int64
        var lastExpiresAt: Int64?
        var lastChargeRefunded: Bool
    }

    /// A paid charge or refund as the chains are read from it.
    private struct MoneyEvent {
        /// `chainKey`'s.
        var chain: Int64
        var time: Int64
        var isRefund: Bool
        /// Its product's index in `catalog`.
        var product: Int32
        var user: Int32
        /// Where `transaction` is an id: -1 the logs' store, else the index of the past file.
        var source: Int32
        var transaction: Int32
        var expiresAt: Int64
    }

    /// The products, as the projection of every offering knows them.
    private let catalog: ProjectionCatalog
    private var chains: [Chain] = []
    private let asOf: Int64

    /// Reads the chains of the night's `logs` and of the `past` files (`LogIngest.readPast`), whose
    /// users are looked up in `users` (the population's). Sandbox events are left out (as clean-up
    /// leaves them out); so is a charge or refund with neither an `original_transaction_id` nor a
    /// user of the assignment table, whose chain cannot be told (a chain is its
    /// `original_transaction_id`, else its user and product, as for the members): the same text in
    /// the logs and in any past file is the same chain. A charge seen twice (the same transaction
    /// at the same time, in two files) counts once.
    package init(logs: EventStore, past: [PastFile], users: ByteStringInterner, offeringCatalog: OfferingCatalog, asOf: Int64) {
        self.asOf = asOf
        let catalog = ProjectionCatalog(offeringCatalog, labels: logs.labels)
        self.catalog = catalog
        var events: [MoneyEvent] = []
        logs.forEachSegment { _, segment, _ in
            segment.forEachRecord { _, record, shape, detailsIndex in
                guard let isRefund = shape.pastMoneyEvent else { return }
                let details = segment.storeDetails(segment.details[Int(detailsIndex)])
                let user = record.user.populationIndex ?? -1
                guard let chain = Self.chainKey(originalTransaction: details.originalTransaction, user: user, productLabel: details.product)
                else { return }
                events.append(
                    MoneyEvent(
                        chain: chain, time: record.timestamp, isRefund: isRefund, product: Int32(catalog.index(ofLabel: details.product)),
                        user: user, source: -1, transaction: details.transaction, expiresAt: details.expiresAt))
            }
        }
        // The past's chains in the logs' ids: an `original_transaction_id` (a product) the logs
        // have is theirs (a chain may run on from the past into the logs), any other gets an id
        // after theirs, the same in every past file. Only these are looked up and interned, never
        // a charge's own `transaction_id` (`sameTransaction` compares those as text).
        events.reserveCapacity(past.reduce(events.count) { $0 + $1.events.count })
        var pastTransactions = ByteStringInterner(capacity: past.reduce(0) { $0 + $1.originalTransactions.count })
        var pastLabels = ByteStringInterner()
        for (source, file) in past.enumerated() {
            let fileUsers = users.lookupAll(of: file.users)
            let products = catalog.indices(ofLabels: file.labels)
            var chainIDs = logs.transactions.lookupAll(of: file.originalTransactions)
            for id in chainIDs.indices where chainIDs[id] < 0 {
                chainIDs[id] = file.originalTransactions.withBytes(of: Int32(id)) {
                    Int32(logs.transactions.count) + pastTransactions.intern($0)
                }
            }
            var labelIDs = [Int32](repeating: -2, count: file.labels.count)
            for event in file.events {
                let user = fileUsers[Int(event.user)]
                let original = event.originalTransaction >= 0 ? chainIDs[Int(event.originalTransaction)] : -1
                // A product label only tells a chain without `original_transaction_id`.
                var label = event.product
                if original < 0 && label >= 0 {
                    if labelIDs[Int(label)] == -2 {
                        labelIDs[Int(label)] = file.labels.withBytes(of: label) {
                            logs.labels.lookup($0) ?? Int32(logs.labels.count) + pastLabels.intern($0)
                        }
                    }
                    label = labelIDs[Int(label)]
                }
                guard let chain = Self.chainKey(originalTransaction: original, user: user, productLabel: label) else { continue }
                events.append(
                    MoneyEvent(
                        chain: chain, time: event.time, isRefund: event.isRefund,
                        product: event.product >= 0 ? products[Int(event.product)] : Int32(catalog.index(ofLabel: -1)), user: user,
                        source: Int32(source), transaction: event.transaction, expiresAt: event.expiresAt))
            }
        }
        let transactions = [logs.transactions] + past.map(\.transactions)
        // A chain's events together, in time order, a charge before a refund at the same time.
        events.sort { ($0.chain, $0.time, $0.isRefund ? 1 : 0) < ($1.chain, $1.time, $1.isRefund ? 1 : 0) }
        var start = 0
        while start < events.count {
            var end = start + 1
            while end < events.count && events[end].chain == events[start].chain { end += 1 }
            if let chain = Self.chain(events[start..<end], transactions: transactions) { chains.append(chain) }
            start = end
        }
    }

    /// A chain's key: its `original_transaction_id` (an id ≥ 0), else, for a user of the
    /// assignment table, below 0 from the user and the product's label (-1: none); nil: no chain.
    private static func chainKey(originalTransaction: Int32, user: Int32, productLabel: Int32) -> Int64? {
        if originalTransaction >= 0 { return Int64(originalTransaction) }
        guard user >= 0 else { return nil }
        return -1 - (Int64(user) << 32 | Int64(productLabel + 1))
    }

    /// Whether two charges have the same `transaction_id` (both none counts as the same), its text
    /// in `transactions` (the logs', then each past file's) when they come from different sources.
    private static func sameTransaction(_ left: MoneyEvent, _ right: MoneyEvent, transactions: [ByteStringInterner]) -> Bool {
        guard left.transaction >= 0 && right.transaction >= 0 else { return left.transaction < 0 && right.transaction < 0 }
        if left.source == right.source { return left.transaction == right.transaction }
        return transactions[Int(left.source) + 1].withBytes(of: left.transaction) { leftText in
            transactions[Int(right.source) + 1].withBytes(of: right.transaction) { $0.elementsEqual(leftText) }
        }
    }

    /// One chain's events read to its end; nil when it has no charge.
    private static func chain(_ events: ArraySlice<MoneyEvent>, transactions: [ByteStringInterner]) -> Chain? {
        var chain: Chain?
        var last: MoneyEvent?
        for event in events {
            if event.isRefund {
                // A refund at or after the last charge takes it back: the chain ends there.
                if chain != nil { chain!.lastChargeRefunded = true }
                continue
            }
            if let last, last.time == event.time && sameTransaction(last, event, transactions: transactions) { continue }
            last = event
            let expiresAt = event.expiresAt == EventRecord.noTime ? nil : event.expiresAt
            if chain == nil {
                chain = Chain(
                    user: event.user, product: Int(event.product), chargeCount: 1, lastChargeTime: event.time,
                    lastExpiresAt: expiresAt, lastChargeRefunded: false)
            } else {
                chain!.chargeCount += 1
                chain!.lastChargeTime = event.time
                chain!.lastExpiresAt = expiresAt
                chain!.lastChargeRefunded = false
            }
        }
        return chain
    }

    /// Per product of `catalog`, the past of `offering`: the chains of users with no assignment row
    /// for it (`members`, sorted by user index, the excluded ones of several groups included: they
    /// saw the test too).
    package func past(ofMembers members: [Member]) -> [ProductPast] {
        var builder = ProductPastBuilder(products: catalog.products, asOf: asOf)
        // A flag per user index: one test per chain, where a search of the members took a
        // cache miss per step (a year of past has hundreds of thousands of chains).
        var isMember = [Bool](repeating: false, count: Int(members.last?.user ?? -1) + 1)
        for member in members { isMember[Int(member.user)] = true }
        for chain in chains {
            if chain.user >= 0 && Int(chain.user) < isMember.count && isMember[Int(chain.user)] { continue }
            builder.addChain(
                product: chain.product, chargeCount: chain.chargeCount, lastChargeTime: chain.lastChargeTime,
                lastExpiresAt: chain.lastExpiresAt, lastChargeRefunded: chain.lastChargeRefunded)
        }
        return builder.past
    }
}
