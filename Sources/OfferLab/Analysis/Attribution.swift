import OfferLabIngest
import OfferLabStatistics

/// What attribution needs to know about the run, by interned id.
struct AttributionContext {
    let store: EventStore
    /// Rate per label id (for currency labels); nil: no rate.
    let rates: [Double?]
    /// Rank of each label id in byte-wise order, so currencies are converted in code order.
    let labelRank: [Int32]
    let windowMicroseconds: Int64?

    init(store: EventStore, rates: [String: Double], windowDays: Double?) {
        self.store = store
        self.rates = (0..<Int32(store.labels.count)).map { rates[store.labels.string(of: $0)] }
        let sorted = (0..<Int32(store.labels.count)).sorted { left, right in
            store.labels.withBytes(of: left) { l in store.labels.withBytes(of: right) { r in l.lexicographicallyPrecedes(r) } }
        }
        var rank = [Int32](repeating: 0, count: sorted.count)
        for (position, label) in sorted.enumerated() { rank[Int(label)] = Int32(position) }
        labelRank = rank
        windowMicroseconds = windowDays.map { Int64(($0 * 86_400 * 1_000_000).rounded()) }
    }
}

/// Exact per-currency money of one user or product: micro-units, checked for overflow.
struct CurrencyAmounts {
    /// (currency label, gross, refunded)
    private(set) var entries: [(currency: Int32, gross: Int64, refunded: Int64)] = []

    mutating func add(currency: Int32, gross: Int64 = 0, refunded: Int64 = 0) throws {
        guard let index = entries.firstIndex(where: { $0.currency == currency }) else {
            entries.append((currency, gross, refunded))
            return
        }
        let (newGross, grossOverflow) = entries[index].gross.addingReportingOverflow(gross)
        let (newRefunded, refundOverflow) = entries[index].refunded.addingReportingOverflow(refunded)
        guard !grossOverflow && !refundOverflow else {
            throw OfferLabError(.data, "money overflow: a sum of prices exceeds 9.2 trillion units of one currency")
        }
        entries[index].gross = newGross
        entries[index].refunded = newRefunded
    }

    var isEmpty: Bool { entries.isEmpty }

    /// (gross, refunded, net) in the report currency, converted once, currencies in code order.
    func converted(_ context: AttributionContext) -> (gross: Double, refunded: Double, net: Double) {
        var gross = 0.0, refunded = 0.0, net = 0.0
        for entry in entries.sorted(by: { context.labelRank[Int($0.currency)] < context.labelRank[Int($1.currency)] }) {
            guard let rate = context.rates[Int(entry.currency)] else { continue }
            gross += Double(entry.gross) / 1_000_000 * rate
            refunded += Double(entry.refunded) / 1_000_000 * rate
            net += Double(entry.gross - entry.refunded) / 1_000_000 * rate
        }
        return (gross, refunded, net)
    }
}

/// Attribution of events to users of one offering and the per-group sums (§2.2–§2.4).
enum Attribution {
    static func analyse(
        offeringIndex: Int, catalog: OfferingCatalog, population: Population, events: UserEvents,
        context: AttributionContext, preferredControl: String?
    ) throws -> OfferingResult {
        let offering = catalog.offerings[offeringIndex]
        let store = context.store
        let offeringLabel = store.labels.lookup(offering.offeringID)
        let groupLabels = offering.groups.map { store.labels.lookup($0.name) }
        var groups = [GroupTotals](repeating: GroupTotals(), count: offering.groups.count)
        var quality = OfferingQuality()
        quality.invalidAssignments = population.invalidAssignments[offeringIndex]
        quality.multiGroupUsers = population.multiGroupUsers(offering: offeringIndex)
        var products: [ProductKey: (totals: ProductTotals, money: CurrencyAmounts)] = [:]

        // Members in user order: the same sums, bit for bit, on every run.
        let members = population.members[offeringIndex].filter { $0.value.group != Membership.conflicting }.sorted { $0.key < $1.key }
        for (user, membership) in members {
            let group = Int(membership.group)
            var outcome = UserOutcome()
            var countedTransactions: [(transaction: Int32, record: EventRecord)] = []
            var trials: [EventRecord] = []
            var purchases: [EventRecord] = []

            func countMismatch(_ record: EventRecord) {
                let offeringDiffers = record.loggedOffering >= 0 && record.loggedOffering != offeringLabel
                let groupDiffers = record.loggedGroup >= 0 && record.loggedGroup != groupLabels[group]
                if offeringDiffers || groupDiffers { quality.attributionMismatches += 1 }
            }
            func addProduct(_ record: EventRecord, kind: EventType, money: (currency: Int32, gross: Int64, refunded: Int64)?) throws {
                let key = ProductKey(group: group, product: record.product)
                var entry = products[key] ?? (ProductTotals(group: group, productID: store.labels.string(of: record.product)), CurrencyAmounts())
                switch kind {
                case .purchase: entry.totals.purchases += 1
                case .renewal: entry.totals.renewals += 1
                default: entry.totals.refunds += 1
                }
                if let money { try entry.money.add(currency: money.currency, gross: money.gross, refunded: money.refunded) }
                products[key] = entry
            }

            let userEvents = events.events(of: user)
            for index in userEvents {
                let record = store.records[Int(index)]
                guard let type = record.eventType, type != .refund else { continue }
                if record.timestamp < membership.assignedAt {
                    quality.preAssignmentEvents += 1
                    continue
                }
                if let window = context.windowMicroseconds, record.timestamp >= membership.assignedAt + window { continue }
                countMismatch(record)
                switch type {
                case .paywallView: outcome.viewedPaywall = true
                case .trialStart: trials.append(record)
                case .purchase, .renewal:
                    if type == .purchase {
                        outcome.converted = true
                        purchases.append(record)
                        outcome.purchases += 1
                    } else {
                        outcome.renewals += 1
                    }
                    countedTransactions.append((record.transaction, record))
                    var money: (Int32, Int64, Int64)?
                    if context.rates[Int(record.currency)] == nil {
                        quality.unknownCurrencyEvents += 1
                    } else {
                        try outcome.money.add(currency: record.currency, gross: record.price)
                        money = (record.currency, record.price, 0)
                    }
                    try addProduct(record, kind: type, money: money)
                case .cancel, .expire, .refund: break
                }
            }
            for index in userEvents {
                let refund = store.records[Int(index)]
                guard refund.eventType == .refund else { continue }
                // The refunded transaction: a counted purchase, else a counted renewal, with that id.
                let matches = countedTransactions.filter { $0.transaction == refund.transaction }
                guard let refunded = (matches.first { $0.record.eventType == .purchase } ?? matches.first)?.record else {
                    quality.orphanRefunds += 1
                    continue
                }
                countMismatch(refund)
                outcome.refunds += 1
                let hasPrice = refund.price != EventRecord.noPrice
                let amount = hasPrice ? refund.price : refunded.price
                let currency = hasPrice ? refund.currency : refunded.currency
                var money: (Int32, Int64, Int64)?
                if context.rates[Int(currency)] == nil {
                    quality.unknownCurrencyEvents += 1
                } else {
                    try outcome.money.add(currency: currency, refunded: amount)
                    money = (currency, 0, amount)
                }
                try addProduct(refund, kind: .refund, money: money)
            }
            outcome.trialStarted = !trials.isEmpty
            outcome.trialConverted = trials.contains { trial in
                purchases.contains { purchase in
                    guard purchase.timestamp >= trial.timestamp else { return false }
                    if trial.originalTransaction >= 0 { return purchase.originalTransaction == trial.originalTransaction }
                    return purchase.product == trial.product
                }
            }
            groups[group].add(outcome, context: context)
        }

        let productRows = products.values.map { entry -> ProductTotals in
            var totals = entry.totals
            totals.netRevenue = entry.money.converted(context).net
            return totals
        }.sorted { $0.group != $1.group ? $0.group < $1.group : $0.productID.utf8.lexicographicallyPrecedes($1.productID.utf8) }

        return OfferingResult(
            offering: offering, controlGroup: offering.controlGroupIndex(preferred: preferredControl) ?? 0,
            groups: groups, products: productRows, quality: quality)
    }
}

private struct ProductKey: Hashable {
    var group: Int
    var product: Int32
}

/// One user's values within an offering (§2.3).
struct UserOutcome {
    var converted = false
    var trialStarted = false
    var trialConverted = false
    var viewedPaywall = false
    var purchases = 0
    var renewals = 0
    var refunds = 0
    var money = CurrencyAmounts()
}

extension GroupTotals {
    mutating func add(_ outcome: UserOutcome, context: AttributionContext) {
        let (gross, refunded, net) = outcome.money.converted(context)
        statistics.users += 1
        if outcome.converted { statistics.converters += 1 }
        statistics.revenueSum += net
        statistics.revenueSumSquares += net * net
        if outcome.trialStarted { trialStarters += 1 }
        if outcome.trialConverted { trialConverters += 1 }
        if outcome.viewedPaywall { paywallViewers += 1 }
        purchases += outcome.purchases
        renewals += outcome.renewals
        refunds += outcome.refunds
        grossRevenue += gross
        refundedRevenue += refunded
    }
}
