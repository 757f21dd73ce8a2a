import OfferLabEvents
import OfferLabIngest
import OfferLabProjection
import OfferLabSupport
import OfferLabTables
import OfferLabVocabulary

/// The products the projection knows (docs/statistics.md#the-projection-in-a-run): how often each
/// charges, from the catalog.
package struct ProjectionCatalog: Sendable {
    /// Every product of the catalog (all offerings), by `product_id` in byte order, then one for
    /// every product the catalog does not list.
    package let products: [ProjectionProduct]
    /// Parallel to `products`: the `product_id` (empty for the last, unlisted, one).
    package let productIDs: [String]
    /// Parallel to `products`: false when the catalog names no billing period for it (no
    /// `type`, or one the projection does not know; and the unlisted products). Such a product
    /// is projected as one-time: its charges count, no renewal is predicted (a run warning says
    /// so when such a product renewed).
    package let hasPeriod: [Bool]
    /// Per label id of the event store: its product's index (the unlisted one for any other label).
    let indexByLabel: [Int32]

    /// No product: every charge is the unlisted product's (the catalog is not known).
    static let none = ProjectionCatalog(products: [ProjectionProduct(renewalPeriodDays: nil)], productIDs: [""], hasPeriod: [false])

    private init(products: [ProjectionProduct], productIDs: [String], hasPeriod: [Bool]) {
        self.products = products
        self.productIDs = productIDs
        self.hasPeriod = hasPeriod
        indexByLabel = []
    }

    /// A product listed with different types keeps the first type the projection knows, in
    /// table order (offerings, groups by id, products by position). Without `labels` (the
    /// night's parts, `offerlab stats --parts`), products are named by their id alone.
    package init(_ catalog: OfferingCatalog, labels: ByteStringInterner = ByteStringInterner()) {
        var period: [String: ProjectionProduct] = [:]
        var listed: Set<String> = []
        for offering in catalog.offerings {
            for group in offering.groups {
                for product in group.products {
                    listed.insert(product.productID)
                    if period[product.productID] == nil, let known = product.billingPeriod.flatMap(ProjectionProduct.init(period:)) {
                        period[product.productID] = known
                    }
                }
            }
        }
        let ids = listed.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        products = ids.map { period[$0] ?? ProjectionProduct(renewalPeriodDays: nil) } + [ProjectionProduct(renewalPeriodDays: nil)]
        productIDs = ids + [""]
        hasPeriod = ids.map { period[$0] != nil } + [false]
        indexByLabel = Self.indices(ofLabels: labels, productIDs: ids)
    }

    /// Per label id of `labels` (a past file's, `PastFile`): its product's index, as
    /// `index(ofLabel:)` gives it for the store's.
    func indices(ofLabels labels: ByteStringInterner) -> [Int32] {
        Self.indices(ofLabels: labels, productIDs: productIDs.dropLast())
    }

    /// Per label id of `labels`: the position of its product among `productIDs`, `productIDs.count`
    /// (the unlisted product) for any other label.
    private static func indices(ofLabels labels: ByteStringInterner, productIDs: some Collection<String>) -> [Int32] {
        var index = [Int32](repeating: Int32(productIDs.count), count: labels.count)
        for (position, id) in productIDs.enumerated() {
            if let label = labels.lookup(id) { index[Int(label)] = Int32(position) }
        }
        return index
    }

    /// The product index of a label id (-1: an event without `product_id`).
    func index(ofLabel label: Int32) -> Int {
        label >= 0 && Int(label) < indexByLabel.count ? Int(indexByLabel[Int(label)]) : products.count - 1
    }
}

/// What the projection reads of one offering's members
/// (docs/statistics.md#the-projection-in-a-run): each member's `assigned_at` and counted purchases,
/// renewals and refunds, gathered while attribution evaluates the night (`Attribution.evaluate`),
/// per group, members in user order.
package struct ProjectionMembers: Sendable {
    /// Parallel to the offering's groups.
    private(set) var groups: [ProjectionGroupInput]
    /// Per product without a billing period (`ProjectionCatalog.hasPeriod`): its counted renewals.
    private(set) var renewalsWithoutPeriod: [Int: Int] = [:]
    /// Per product without a billing period: the days each of its charges bought (`expires_at` −
    /// the charge), else from a renewal back to its chain's previous charge: its period as the
    /// members' own charges show it.
    private(set) var chargeSpansWithoutPeriod: [Int: [Double]] = [:]
    /// The member being added (its storage reused).
    private var memberEvents: [ProjectionEvent] = []

    init(groups names: [String]) {
        groups = names.map(ProjectionGroupInput.init(name:))
    }

    /// Adds a member of `group` with its counted money events and cancels of the night
    /// (`EvaluationScratch.products` and `.cancels`) and those of its year after the conversion
    /// window (`YearBeyondWindow`), in any order (the projection sorts them): money in the report
    /// currency, left at 0 when its currency has no rate (as in `net_revenue`), and its earliest
    /// counted trial (the projection tells the decision to start one from its outcome).
    mutating func addMember(
        group: Int, assignedAt: Int64, events: some Sequence<ProductContribution>, trial: DetailedEvent?, context: AttributionContext
    ) {
        if !memberEvents.isEmpty { memberEvents.removeAll(keepingCapacity: true) }
        if let trial {
            memberEvents.append(
                ProjectionEvent(
                    time: trial.timestamp, kind: .trialStart, product: context.projection.index(ofLabel: trial.details.product), amount: 0,
                    expiresAt: trial.details.expiresAt == EventRecord.noTime ? nil : trial.details.expiresAt))
        }
        for event in events {
            let kind: ProjectionEventKind
            var amount = 0.0
            switch event.kind {
            case .purchase, .renewal:
                kind = event.kind == .purchase ? .purchase : .renewal
                if let money = event.money, let rate = context.rates[Int(money.currency)] {
                    amount = Double(money.gross) / 1_000_000 * rate
                }
            case .refund:
                kind = .refund
                if let money = event.money, let rate = context.rates[Int(money.currency)] {
                    amount = Double(money.refunded) / 1_000_000 * rate
                }
            case .cancel: kind = .cancel
            default: continue
            }
            let product = context.projection.index(ofLabel: event.chargeProduct)
            let projected = ProjectionEvent(
                time: event.timestamp, kind: kind, product: product, chain: event.chain >= 0 ? Int64(event.chain) : nil,
                amount: amount, expiresAt: event.expiresAt == EventRecord.noTime ? nil : event.expiresAt)
            if !context.projection.hasPeriod[product] && (kind == .purchase || kind == .renewal) {
                if kind == .renewal { renewalsWithoutPeriod[product, default: 0] += 1 }
                // The products no group lists are many in one: no period of theirs is taken.
                if !context.projection.productIDs[product].isEmpty { addChargeSpan(projected) }
            }
            memberEvents.append(projected)
        }
        groups[group].appendMember(assignedAt: assignedAt, events: memberEvents)
    }

    /// Adds the days `charge` bought, by its `expires_at` or, for a renewal without one, since its
    /// chain's previous charge among the member's events so far (which are in time order).
    private mutating func addChargeSpan(_ charge: ProjectionEvent) {
        let day = Double(Microseconds.perDay)
        if let expiresAt = charge.expiresAt, expiresAt > charge.time {
            chargeSpansWithoutPeriod[charge.product, default: []].append(Double(expiresAt - charge.time) / day)
        } else if charge.kind == .renewal, let chain = charge.chain,
            let previous = memberEvents.last(where: { $0.chain == chain && ($0.kind == .purchase || $0.kind == .renewal) }),
            previous.time < charge.time
        {
            chargeSpansWithoutPeriod[charge.product, default: []].append(Double(charge.time - previous.time) / day)
        }
    }

    /// Adds the next run of members (`MemberContributions.projection`).
    mutating func add(_ other: ProjectionMembers) {
        for index in groups.indices { groups[index].append(other.groups[index]) }
        renewalsWithoutPeriod.merge(other.renewalsWithoutPeriod, uniquingKeysWith: +)
        chargeSpansWithoutPeriod.merge(other.chargeSpansWithoutPeriod, uniquingKeysWith: +)
    }

    /// The offering's projection inputs, as `OfferingResult.projection` holds them: each group's
    /// members reduced to the projection's counts (`observeGroups`). A product the catalog lists
    /// without a billing period that renewed is given the period its members' charges show (the
    /// median of their spans, `chargeSpansWithoutPeriod`), so its year continues at the members'
    /// own rates of renewal; the products no group lists are many products in one and stay one-time.
    /// - Throws: `ProjectionInputError` for events the projection cannot read.
    func inputs(context: AttributionContext) throws(ProjectionInputError) -> ProjectionInputs {
        var products = context.projection.products
        let renewed = renewalsWithoutPeriod.sorted { $0.key < $1.key }.map { product, renewals in
            var periodDays: Double?
            if let spans = chargeSpansWithoutPeriod[product], !spans.isEmpty {
                let sorted = spans.sorted()
                periodDays = (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
                products[product] = ProjectionProduct(renewalPeriodDays: periodDays)
            }
            return ProductWithoutPeriod(productID: context.projection.productIDs[product], renewals: renewals, periodDays: periodDays)
        }
        return ProjectionInputs(
            groups: try observeGroups(groups, products: products, configuration: ProjectionConfiguration(asOf: context.asOf)),
            products: products, productIDs: context.projection.productIDs, asOf: context.asOf, renewalsWithoutPeriod: renewed)
    }
}

/// A member's money events of its first year that come after the conversion window
/// (docs/statistics.md#the-projection-in-a-run): the projection's horizon is the year whatever
/// the window (contract §2.14), while every realised metric stays bounded by the window. Read
/// by the rules of attribution (`AttributionRules`): purchases, renewals and cancels (renewal
/// turned off: a chain's state tonight, contract §2.14 "What a member's state says") from
/// `assigned_at` + W to `assigned_at` + 365 days, the refunds (by `as_of`) of those charges, and
/// the first trial start there; none of them counts anywhere else (a cancel there without a chain
/// is not `chainless_cancels`, a number of the window: the projection passes over it, as over any
/// cancel that finds no chain). The storage is reused from member to member.
struct YearBeyondWindow {
    /// Purchases, renewals, cancels and refunds, as `Attribution.evaluate` makes the night's.
    private(set) var contributions: [ProductContribution] = []
    /// The earliest trial start after the window.
    private(set) var trial: DetailedEvent?
    /// The charges a refund can name.
    private var charges: [DetailedEvent] = []

    /// Reads `member`'s year after the window; `counted` are the night's refundable charges
    /// (`EvaluationScratch.countedTransactions`), whose refunds the night has counted already.
    mutating func read(_ member: Member, events memberEvents: MemberEvents, counted: [DetailedEvent], context: AttributionContext) {
        contributions.removeAll(keepingCapacity: true)
        charges.removeAll(keepingCapacity: true)
        trial = nil
        guard let window = context.windowMicroseconds else { return }
        let start = member.membership.assignedAt + window
        let yearEnd = member.membership.assignedAt + 365 * Microseconds.perDay
        guard start < yearEnd && start < context.asOf else { return }
        let (events, details) = (memberEvents.events, memberEvents.details)
        func money(_ currency: Int32, gross: Int64 = 0, refunded: Int64 = 0) -> (currency: Int32, gross: Int64, refunded: Int64)? {
            context.rates[Int(currency)] == nil ? nil : (currency, gross, refunded)
        }
        for record in events {
            if record.timestamp >= context.asOf || record.timestamp >= yearEnd { break }
            guard record.timestamp >= start, let type = record.eventType else { continue }
            let event = DetailedEvent(
                timestamp: record.timestamp, type: type, details: record.details < 0 ? .none : details[Int(record.details)])
            switch type {
            case .trialStart:
                if trial == nil { trial = event }
            case .purchase, .renewal:
                contributions.append(
                    ProductContribution(
                        product: event.details.product, kind: type, timestamp: event.timestamp,
                        money: money(event.details.currency, gross: event.details.price), chain: event.details.originalTransaction,
                        chargeProduct: event.details.product, expiresAt: event.details.expiresAt))
                if type.isRefundable { charges.append(event) }
            case .cancel:
                contributions.append(
                    ProductContribution(
                        product: event.details.product, kind: .cancel, timestamp: event.timestamp, money: nil,
                        chain: event.details.originalTransaction, chargeProduct: event.details.product))
            default: break
            }
        }
        guard !charges.isEmpty else { return }
        for record in events {
            if record.timestamp >= context.asOf { break }
            guard record.eventType == .refund else { continue }
            let refund = record.details < 0 ? EventDetails.none : details[Int(record.details)]
            guard AttributionRules.refundedTransactionIndex(of: refund.transaction, among: counted) == nil,
                let refunded = AttributionRules.refundedTransaction(of: refund.transaction, among: charges)
            else { continue }
            let amount = AttributionRules.refundAmount(refund: refund, refunded: refunded.details)
            contributions.append(
                ProductContribution(
                    product: refund.product, kind: .refund, timestamp: record.timestamp,
                    money: money(amount.currency, refunded: amount.amount),
                    chain: refunded.details.originalTransaction, chargeProduct: refunded.details.product))
        }
    }
}

/// One offering's members as the projection reads them
/// (docs/statistics.md#the-projection-in-a-run), with the night's settings; `OfferingStatistics`
/// projects them.
public struct ProjectionInputs: Sendable {
    /// Parallel to the offering's groups: their members reduced to the projection's counts, at
    /// `asOf` and the projection's default horizon and refund lag.
    public var groups: [GroupObservation]
    public var products: [ProjectionProduct]
    /// Parallel to `products`: each one's `product_id` (empty for the products the catalog does not list).
    public var productIDs: [String]
    /// `as_of`, µs since the epoch.
    public var asOf: Int64
    /// The products the catalog gives no billing period although they renewed, in product order.
    public var renewalsWithoutPeriod: [ProductWithoutPeriod]
    /// Per product (parallel to `products`), the app's past: the chains of users with no row for
    /// the offering (`AppPast`); empty when the job names no `history_logs`.
    public var past: [ProductPast] = []

    package init(
        groups: [GroupObservation], products: [ProjectionProduct], productIDs: [String], asOf: Int64,
        renewalsWithoutPeriod: [ProductWithoutPeriod], past: [ProductPast] = []
    ) {
        self.groups = groups
        self.products = products
        self.productIDs = productIDs
        self.asOf = asOf
        self.renewalsWithoutPeriod = renewalsWithoutPeriod
        self.past = past
    }
}

/// A product the catalog gives no billing period although its members renewed it
/// (docs/statistics.md#the-projection-in-a-run).
public struct ProductWithoutPeriod: Sendable, Equatable {
    /// Empty: the products no group lists, together.
    public var productID: String
    /// Its counted renewals.
    public var renewals: Int
    /// The period the projection takes from its members' charges; nil (the products no group
    /// lists, or no span seen): it is projected as one-time.
    public var periodDays: Double?

    package init(productID: String, renewals: Int, periodDays: Double?) {
        self.productID = productID
        self.renewals = renewals
        self.periodDays = periodDays
    }
}
