import OfferLabEvents
import OfferLabIngest
import OfferLabProjection
import OfferLabSupport
import OfferLabTables

/// The app's past (docs/statistics.md#the-apps-past): every subscription chain of the night's
/// logs and `history_logs` files, each reduced to what the projection counts of it (its product,
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
        /// `original_transaction_id`'s id (≥ 0), else −1 − (user, product).
        var chain: Int64
        var time: Int64
        var isRefund: Bool
        var product: Int32
        var user: Int32
        var transaction: Int32
        var expiresAt: Int64
    }

    /// The products, as the projection of every offering knows them.
    private let catalog: ProjectionCatalog
    private var chains: [Chain] = []
    private let asOf: Int64

    /// Reads the chains of `stores` (the logs', then the history's, sharing their transaction and
    /// label ids: `LogIngest.read(sharingIDsWith:)`); the last holds every label of them. Sandbox
    /// events are left out (as clean-up leaves them out); so is a charge or refund with neither an
    /// `original_transaction_id` nor a user of the assignment table, whose chain cannot be told
    /// (a chain is its `original_transaction_id`, else its user and product, as for the members). A
    /// charge seen twice (the same transaction at the same time, in two files) counts once.
    package init(stores: [EventStore], offeringCatalog: OfferingCatalog, asOf: Int64) {
        self.asOf = asOf
        let labels = stores.last?.labels ?? ByteStringInterner()
        catalog = ProjectionCatalog(offeringCatalog, labels: labels)
        let labelCount = Int64(labels.count) + 1
        var events: [MoneyEvent] = []
        for store in stores {
            store.forEachSegment { _, segment, _ in
                segment.forEachRecord { _, record, shape, detailsIndex in
                    guard !shape.isSandbox, detailsIndex >= 0, let type = shape.eventType,
                        type == .purchase || type == .renewal || type == .refund
                    else { return }
                    let details = segment.storeDetails(segment.details[Int(detailsIndex)])
                    let user = record.user.populationIndex ?? -1
                    let chain: Int64
                    if details.originalTransaction >= 0 {
                        chain = Int64(details.originalTransaction)
                    } else if user >= 0 {
                        chain = -1 - (Int64(user) * labelCount + Int64(details.product) + 1)
                    } else {
                        return
                    }
                    events.append(
                        MoneyEvent(
                            chain: chain, time: record.timestamp, isRefund: type == .refund, product: details.product, user: user,
                            transaction: details.transaction, expiresAt: details.expiresAt))
                }
            }
        }
        // A chain's events together, in time order, a charge before a refund at the same time.
        events.sort { ($0.chain, $0.time, $0.isRefund ? 1 : 0) < ($1.chain, $1.time, $1.isRefund ? 1 : 0) }
        var start = 0
        while start < events.count {
            var end = start + 1
            while end < events.count && events[end].chain == events[start].chain { end += 1 }
            if let chain = Self.chain(events[start..<end], catalog: catalog) { chains.append(chain) }
            start = end
        }
    }

    /// One chain's events read to its end; nil when it has no charge.
    private static func chain(_ events: ArraySlice<MoneyEvent>, catalog: ProjectionCatalog) -> Chain? {
        var chain: Chain?
        var last: MoneyEvent?
        for event in events {
            if event.isRefund {
                // A refund at or after the last charge takes it back: the chain ends there.
                if chain != nil { chain!.lastChargeRefunded = true }
                continue
            }
            if let last, last.time == event.time && last.transaction == event.transaction { continue }
            last = event
            let expiresAt = event.expiresAt == EventRecord.noTime ? nil : event.expiresAt
            if chain == nil {
                chain = Chain(
                    user: event.user, product: catalog.index(ofLabel: event.product), chargeCount: 1, lastChargeTime: event.time,
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
