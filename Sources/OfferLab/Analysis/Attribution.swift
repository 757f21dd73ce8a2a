import OfferLabIngest
import OfferLabStatistics

/// What attribution needs to know about the run, by interned id.
struct AttributionContext {
    /// The store's labels: products, currencies, logged offering ids and group names.
    let labels: ByteStringInterner
    /// Rate per label id (for currency labels); nil: no rate.
    let rates: [Double?]
    /// Rank of each label id in byte-wise order, so currencies are converted in code order.
    let labelRank: [Int32]
    let windowMicroseconds: Int64?

    init(labels: ByteStringInterner, rates: [String: Double], windowDays: Double?) {
        self.labels = labels
        self.rates = (0..<Int32(labels.count)).map { rates[labels.string(of: $0)] }
        let sorted = (0..<Int32(labels.count)).sorted { left, right in
            labels.withBytes(of: left) { l in labels.withBytes(of: right) { r in l.lexicographicallyPrecedes(r) } }
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

    /// Empties the amounts, keeping their storage for the next user.
    mutating func removeAll() { entries.removeAllKeepingCapacity() }

    /// (gross, refunded, net) in the report currency, converted once, currencies in code order.
    func converted(_ context: AttributionContext) -> (gross: Double, refunded: Double, net: Double) {
        var gross = 0.0
        var refunded = 0.0
        var net = 0.0
        func add(_ entry: (currency: Int32, gross: Int64, refunded: Int64)) {
            guard let rate = context.rates[Int(entry.currency)] else { return }
            gross += Double(entry.gross) / 1_000_000 * rate
            refunded += Double(entry.refunded) / 1_000_000 * rate
            net += Double(entry.gross - entry.refunded) / 1_000_000 * rate
        }
        // Almost every user pays in one currency or none: nothing to order, and no copy of the
        // entries (this runs for every member and day).
        if entries.count < 2 {
            if let only = entries.first { add(only) }
        } else {
            for entry in entries.sorted(by: { context.labelRank[Int($0.currency)] < context.labelRank[Int($1.currency)] }) { add(entry) }
        }
        return (gross, refunded, net)
    }
}

/// One offering as seen by attribution: its names as label ids in the event store.
struct OfferingLabels {
    /// nil: no event ever logged this offering id, so any logged one disagrees.
    let offering: Int32?
    /// Per group (index into the offering's groups).
    let groups: [Int32?]

    init(_ offering: Offering, labels: ByteStringInterner) {
        self.offering = labels.lookup(offering.offeringID)
        groups = offering.groups.map { labels.lookup($0.name) }
    }
}

/// A product's share of one user's counted money events.
struct ProductContribution: Sendable {
    var product: Int32
    var kind: EventType
    /// nil when the currency has no rate (the event counts, its money does not).
    var money: (currency: Int32, gross: Int64, refunded: Int64)?
}

/// What a run of members of one offering contributes (`Attribution.evaluate`), summed. Runs
/// are evaluated on any thread, then added up (`OfferingSums`).
struct MemberContributions: Sendable {
    /// Per group: the counts of its members who are not excluded (their money left at 0).
    var groupCounts: [GroupTotals]
    /// Per group: the money of its members who are not excluded.
    var groupMoney: [ExactMoney]
    var quality = OfferingQuality()
    var days: DailySeries.Changes
    /// Each counted money event of a member who is not excluded, with the member's group.
    var products: [(group: Int32, contribution: ProductContribution)] = []
    /// Per currency label without a rate: the counted money events in it (`unknown_currency_events`).
    var unconvertibleEvents: [Int32: Int] = [:]
}

/// One offering's per-group sums (§2.2–§2.4) and daily series (§2.7), added up from its
/// members' contributions: the same sums, bit for bit, whatever evaluated them (counts are
/// integers, money sums exact until rounded, products' money integers per currency).
struct OfferingSums {
    private let offeringIndex: Int
    /// Per group: the counts (their money left at 0: `groupMoney` holds it).
    private var groups: [GroupTotals]
    private var groupMoney: [ExactMoney]
    private var quality = OfferingQuality()
    private var unconvertibleEvents: [Int32: Int] = [:]
    /// Per (group, product), updated in place: an index into `products`.
    private var productIndex: [ProductKey: Int] = [:]
    private var products: [(totals: ProductTotals, money: CurrencyAmounts)] = []
    private(set) var series: DailySeries

    init(offeringIndex: Int, catalog: OfferingCatalog, population: Population, asOf: Int64) {
        self.offeringIndex = offeringIndex
        let groupCount = catalog.offerings[offeringIndex].groups.count
        groups = Array(repeating: GroupTotals(), count: groupCount)
        groupMoney = Array(repeating: ExactMoney(), count: groupCount)
        quality.invalidAssignments = population.invalidAssignments[offeringIndex]
        quality.multiGroupUsers = population.multiGroupUsers(offering: offeringIndex)
        series = DailySeries(members: population.members[offeringIndex], groupCount: groupCount, asOf: asOf)
    }

    /// Adds the contributions of the next members.
    mutating func add(_ contributions: MemberContributions, labels: ByteStringInterner) throws {
        series.add(contributions.days)
        for group in groups.indices {
            groups[group].addCounts(contributions.groupCounts[group], subtracting: GroupTotals())
            groupMoney[group].add(contributions.groupMoney[group])
        }
        quality.add(contributions.quality)
        unconvertibleEvents.merge(contributions.unconvertibleEvents, uniquingKeysWith: +)
        for (group, contribution) in contributions.products {
            let key = ProductKey(group: Int(group), product: contribution.product)
            let index: Int
            if let known = productIndex[key] {
                index = known
            } else {
                index = products.count
                productIndex[key] = index
                products.append((ProductTotals(group: Int(group), productID: labels.string(of: contribution.product)), CurrencyAmounts()))
            }
            switch contribution.kind {
            case .purchase: products[index].totals.purchases += 1
            case .renewal: products[index].totals.renewals += 1
            default: products[index].totals.refunds += 1
            }
            if let money = contribution.money {
                try products[index].money.add(currency: money.currency, gross: money.gross, refunded: money.refunded)
            }
        }
    }

    /// The offering's result, once every member's contributions are added.
    func result(catalog: OfferingCatalog, context: AttributionContext, preferredControl: String?) -> OfferingResult {
        let offering = catalog.offerings[offeringIndex]
        let productRows = products.map { entry -> ProductTotals in
            var totals = entry.totals
            totals.netRevenue = entry.money.converted(context).net
            return totals
        }.sorted { $0.group != $1.group ? $0.group < $1.group : $0.productID.utf8.lexicographicallyPrecedes($1.productID.utf8) }
        var groupRows = groups
        for group in groupRows.indices { groupRows[group].money = groupMoney[group].rounded }
        return OfferingResult(
            offering: offering, controlGroup: offering.controlGroupIndex(preferred: preferredControl) ?? 0,
            groups: groupRows, products: productRows, quality: quality,
            unconvertibleEvents: unconvertibleEvents.map { (context.labels.string(of: $0.key), $0.value) }.sorted {
                $0.currency.utf8.lexicographicallyPrecedes($1.currency.utf8)
            }, daily: series.days())
    }
}

/// Attribution of events to users of one offering (§2.2–§2.3), member by member.
enum Attribution {
    /// The contributions of `members` (a run of one offering's members, in user order).
    /// Everything the loop writes lives inside the closure: captured, it would be retained and
    /// copied for every member.
    static func evaluate(
        _ members: ArraySlice<Member>, offeringIndex: Int, catalog: OfferingCatalog, series: DailySeries, events: UserEvents,
        context: AttributionContext
    ) throws -> MemberContributions {
        let offering = catalog.offerings[offeringIndex]
        let labels = OfferingLabels(offering, labels: context.labels)
        return try events.withView { events in
            var contributions = MemberContributions(
                groupCounts: Array(repeating: GroupTotals(), count: offering.groups.count),
                groupMoney: Array(repeating: ExactMoney(), count: offering.groups.count), days: series.noChanges())
            var scratch = EvaluationScratch()
            var outcome = UserOutcome()
            var days: [Int] = []
            for member in members {
                // The series evaluates the member as of each day their contribution changes; the
                // last evaluation counts all their events: it is their outcome for the night.
                try series.evaluate(
                    member.membership, events: events.events(of: member.user), details: events.details, shapes: events.shapes,
                    labels: labels, context: context, scratch: &scratch, outcome: &outcome, days: &days, into: &contributions.days)
                guard !member.membership.isExcluded else { continue }
                let group = member.membership.group
                var totals = GroupTotals()
                totals.add(outcome)
                contributions.groupCounts[Int(group)].addCounts(totals, subtracting: GroupTotals())
                contributions.groupMoney[Int(group)].add(totals.money)
                contributions.quality.add(outcome.quality)
                for contribution in scratch.products { contributions.products.append((group, contribution)) }
                for currency in scratch.unconvertibleCurrencies { contributions.unconvertibleEvents[currency, default: 0] += 1 }
            }
            return contributions
        }
    }

    /// One member's values (§2.3) from their cleaned events (sorted by time; their details in
    /// `details`, their shapes in `shapes`), counting only events before `cutoff` (the state "as
    /// of" a moment), into `outcome` (whatever it held before) and, per product, into
    /// `scratch.products`. Otherwise `scratch` only lends its storage: nothing is allocated per
    /// member once the buffers have grown.
    static func evaluate(
        events: UnsafeBufferPointer<UserEvent>, details: UnsafeBufferPointer<EventDetails>, shapes: UnsafeBufferPointer<EventShape>,
        membership: Membership, labels: OfferingLabels, context: AttributionContext, cutoff: Int64, scratch: inout EvaluationScratch,
        into outcome: inout UserOutcome
    ) throws {
        let group = Int(membership.group)
        outcome.reset()
        scratch.reset()

        @inline(__always) func detailsOf(_ event: UserEvent) -> EventDetails { event.details < 0 ? .none : details[Int(event.details)] }
        func countMismatch(_ record: UserEvent) {
            let shape = shapes[Int(record.shape)]
            let offeringDiffers = shape.loggedOffering >= 0 && shape.loggedOffering != labels.offering
            let groupDiffers = shape.loggedGroup >= 0 && shape.loggedGroup != labels.groups[group]
            if offeringDiffers || groupDiffers { outcome.quality.attributionMismatches += 1 }
        }
        /// The money of a counted money event, or nil (and counted) when its currency has no rate.
        func knownMoney(currency: Int32, gross: Int64 = 0, refunded: Int64 = 0) throws -> (Int32, Int64, Int64)? {
            guard context.rates[Int(currency)] != nil else {
                outcome.quality.unknownCurrencyEvents += 1
                scratch.unconvertibleCurrencies.append(currency)
                return nil
            }
            try scratch.money.add(currency: currency, gross: gross, refunded: refunded)
            return (currency, gross, refunded)
        }

        for record in events {
            if record.timestamp >= cutoff { break }
            guard let type = record.eventType, type != .refund else { continue }
            if record.timestamp < membership.assignedAt {
                outcome.quality.preAssignmentEvents += 1
                continue
            }
            if let window = context.windowMicroseconds, record.timestamp >= membership.assignedAt + window { continue }
            countMismatch(record)
            switch type {
            case .paywallView: outcome.viewedPaywall = true
            case .trialStart: scratch.trials.append(DetailedEvent(timestamp: record.timestamp, type: type, details: detailsOf(record)))
            case .purchase, .renewal:
                let counted = DetailedEvent(timestamp: record.timestamp, type: type, details: detailsOf(record))
                if type == .purchase {
                    scratch.purchases.append(counted)
                    outcome.purchases += 1
                } else {
                    outcome.renewals += 1
                }
                scratch.countedTransactions.append(counted)
                let money = try knownMoney(currency: counted.details.currency, gross: counted.details.price)
                scratch.products.append(ProductContribution(product: counted.details.product, kind: type, money: money))
            case .cancel, .expire, .refund: break
            }
        }
        for refund in events {
            if refund.timestamp >= cutoff { break }
            guard refund.eventType == .refund else { continue }
            let refundDetails = detailsOf(refund)
            // The refunded transaction: a counted purchase, else a counted renewal, with that id.
            let refunded =
                scratch.countedTransactions.first { $0.details.transaction == refundDetails.transaction && $0.type == .purchase }
                ?? scratch.countedTransactions.first { $0.details.transaction == refundDetails.transaction }
            guard let refunded else {
                outcome.quality.orphanRefunds += 1
                continue
            }
            countMismatch(refund)
            outcome.refunds += 1
            let hasPrice = refundDetails.price != EventRecord.noPrice
            let money = try knownMoney(
                currency: hasPrice ? refundDetails.currency : refunded.details.currency,
                refunded: hasPrice ? refundDetails.price : refunded.details.price)
            scratch.products.append(ProductContribution(product: refundDetails.product, kind: .refund, money: money))
        }
        let (gross, refunded, net) = scratch.money.converted(context)
        outcome.grossAndRefundedRevenue = SIMD2(gross, refunded)
        outcome.netRevenue = net
        outcome.converted = !scratch.purchases.isEmpty
        outcome.trialStarted = !scratch.trials.isEmpty
        outcome.trialConverted = scratch.trials.contains { trial in
            scratch.purchases.contains { purchase in
                guard purchase.timestamp >= trial.timestamp else { return false }
                let original = trial.details.originalTransaction
                if original >= 0 { return purchase.details.originalTransaction == original }
                return purchase.details.product == trial.details.product
            }
        }
    }
}

/// A counted event with its details, as `Attribution.evaluate` keeps it for the matches that
/// follow (refunds to their transactions, trials to purchases).
struct DetailedEvent {
    var timestamp: Int64
    var type: EventType
    var details: EventDetails
}

private struct ProductKey: Hashable {
    var group: Int
    var product: Int32
}

/// What `Attribution.evaluate` reuses from one member to the next: its buffers, and the
/// member's money and products, which the outcome leaves out so that it holds no array (an
/// outcome with arrays was copied, and they retained and released, for every member and day).
struct EvaluationScratch {
    var countedTransactions: [DetailedEvent] = []
    var trials: [DetailedEvent] = []
    var purchases: [DetailedEvent] = []
    /// The member's counted money, per currency.
    var money = CurrencyAmounts()
    /// The member's counted money events, per product.
    var products: [ProductContribution] = []
    /// The currency of each of the member's counted money events that has no rate.
    var unconvertibleCurrencies: [Int32] = []

    mutating func reset() {
        countedTransactions.removeAllKeepingCapacity()
        trials.removeAllKeepingCapacity()
        purchases.removeAllKeepingCapacity()
        money.removeAll()
        products.removeAllKeepingCapacity()
        unconvertibleCurrencies.removeAllKeepingCapacity()
    }
}

/// One user's values within an offering (§2.3), money in the report currency.
struct UserOutcome {
    var converted = false
    var trialStarted = false
    var trialConverted = false
    var viewedPaywall = false
    var purchases = 0
    var renewals = 0
    var refunds = 0
    /// One value, written whole: written as two numbers, they were read back (by
    /// `GroupTotals.add`, right after `evaluate`) as one 16-byte load, which then waited for the
    /// two stores to reach the cache (a store is forwarded to a load only whole), for every
    /// member and day.
    var grossAndRefundedRevenue = SIMD2<Double>()
    var netRevenue = 0.0
    /// The offering counters this user's events add.
    var quality = OfferingQuality()

    /// Back to no events.
    mutating func reset() { self = UserOutcome() }
}

extension GroupTotals {
    mutating func add(_ outcome: UserOutcome) {
        statistics.users += 1
        if outcome.converted { statistics.converters += 1 }
        statistics.revenueSum += outcome.netRevenue
        statistics.revenueSumSquares += outcome.netRevenue * outcome.netRevenue
        if outcome.trialStarted { trialStarters += 1 }
        if outcome.trialConverted { trialConverters += 1 }
        if outcome.viewedPaywall { paywallViewers += 1 }
        purchases += outcome.purchases
        renewals += outcome.renewals
        refunds += outcome.refunds
        grossRevenue += outcome.grossAndRefundedRevenue.x
        refundedRevenue += outcome.grossAndRefundedRevenue.y
    }
}

extension Array {
    /// Empties the array, keeping its storage. `removeAll(keepingCapacity:)` goes through a
    /// generic replacement of the elements even when there are none, and the buffers of
    /// `evaluate`, mostly empty, are emptied for every member and day.
    @inline(__always)
    mutating func removeAllKeepingCapacity() {
        if !isEmpty { removeAll(keepingCapacity: true) }
    }
}
