import OfferLabStatistics

/// The app's past for one product (docs/statistics.md#the-apps-past): how the subscription chains
/// of users who are not members of the offering renewed, renewal by renewal, counted by the
/// members' own rule (`RenewalCounts.countChain`), and the renewals of those due with their
/// renewal turned off (`RenewalCounts.countTurnedOff`).
public struct ProductPast: Sendable, Equatable {
    /// Chains counted (their buyers: one chain per user and product, or per `original_transaction_id`).
    public internal(set) var chains = 0
    /// Their renewals.
    public internal(set) var renewals = RenewalCounts()
    /// Their renewals that fell due turned off (contract §2.14, "What a member's state says").
    public internal(set) var turnedOffRenewals = RenewalCounts()
    /// A new price's past (`FittedGroup.borrowingPast`): the products of its billing period whose
    /// chains it holds beside its own; empty for a product's own past.
    public internal(set) var borrowedFrom: [Int] = []

    public init() {}

    /// Adds `other`'s chains and renewals.
    mutating func add(_ other: ProductPast) {
        chains += other.chains
        renewals.add(other.renewals)
        turnedOffRenewals.add(other.turnedOffRenewals)
    }
}

/// Builds every product's past from chains handed to it one at a time (`addChain`), so that the
/// caller never holds more than one chain's charges.
public struct ProductPastBuilder: Sendable {
    /// Parallel to the products handed to `init`.
    public private(set) var past: [ProductPast]
    private let products: [ProjectionProduct]
    private let asOf: Int64

    /// `products`: the offering's (`projectOffering`'s `products`); `asOf`, µs since the epoch.
    public init(products: [ProjectionProduct], asOf: Int64) {
        self.products = products
        self.asOf = asOf
        past = Array(repeating: ProductPast(), count: products.count)
    }

    /// Counts a chain of `product` (an index into the products): `chargeCount` paid charges
    /// (purchase and renewals) before `as_of`, the last at `lastChargeTime` with its `expires_at`
    /// (nil: the charge's time + the product's period), kept or refunded; `turnedOffAfterCharge`:
    /// bit k − 1 set when its renewal was turned off after its k-th charge. A one-time product's
    /// chain has no renewal and is not counted.
    public mutating func addChain(
        product: Int, chargeCount: Int, lastChargeTime: Int64, lastExpiresAt: Int64?, lastChargeRefunded: Bool,
        turnedOffAfterCharge: UInt64
    ) {
        guard chargeCount > 0, let due = products[product].renewalDue(lastChargeTime: lastChargeTime, lastExpiresAt: lastExpiresAt)
        else { return }
        past[product].chains += 1
        _ = past[product].renewals.countChain(
            chargeCount: chargeCount, lastChargeKept: !lastChargeRefunded, due: due, asOf: asOf, end: .max)
        _ = past[product].turnedOffRenewals.countTurnedOff(
            turnedOffAfterCharge, chargeCount: chargeCount, lastChargeKept: !lastChargeRefunded, due: due, asOf: asOf, end: .max)
    }

    /// Counts `count` chains of `product` alike whose next renewal fell due before `as_of`, as
    /// `addChain` counts each, in one step (`BacktestCohorts` hands every cut after a chain ended
    /// the chain as it ended).
    public mutating func addEndedChains(
        _ count: Int, product: Int, chargeCount: Int, lastChargeRefunded: Bool, turnedOffAfterCharge: UInt64
    ) {
        guard count > 0, chargeCount > 0, products[product].renewalPeriodDays != nil else { return }
        past[product].chains += count
        _ = past[product].renewals.countChain(
            chargeCount: chargeCount, lastChargeKept: !lastChargeRefunded, due: asOf, asOf: asOf, end: .max, times: count)
        _ = past[product].turnedOffRenewals.countTurnedOff(
            turnedOffAfterCharge, chargeCount: chargeCount, lastChargeKept: !lastChargeRefunded, due: asOf, asOf: asOf,
            end: .max, times: count)
    }
}

/// The members against the app's past at the renewals both have identified (1 … `overlap`):
/// whether the members renew as the past's rates say (docs/statistics.md#the-apps-past).
struct PastCheck: Sendable, Equatable {
    /// Renewals 1 … overlap were identified by both (at least 1: with none, the past is not taken,
    /// `RenewalPlan.uncomparedPastThrough`).
    let overlap: Int
    /// The members' renewals at the overlap, and what the past's rates expect of as many chains due.
    let observed: Int
    let expected: Double
    /// (observed − expected)/√V, V the members' binomial variance at the past's rates plus the
    /// variance of those rates themselves (estimated from the past's own counts).
    let z: Double
    /// Apart beyond chance: |z| above the two-sided (1 − alpha) normal quantile; the past's rates
    /// are then scaled by the members/past ratio on the overlap. E > 0 whenever the past identifies
    /// a renewal beyond the overlap (its chains due there renewed at every renewal before it), so a
    /// past that differs can always be scaled.
    let differs: Bool

    init(members: RenewalCounts, past: RenewalCounts, through overlap: Int, alpha: Double) {
        self.overlap = overlap
        var observed = 0
        var expected = 0.0
        var variance = 0.0
        for index in stride(from: 1, through: overlap, by: 1) {
            let due = Double(members.due(index))
            let pastDue = Double(past.due(index))
            let rate = Double(past.renewals(index)) / pastDue
            observed += members.renewals(index)
            expected += due * rate
            variance += due * rate * (1 - rate) + due * due * rate * (1 - rate) / pastDue
        }
        self.observed = observed
        self.expected = expected
        let difference = Double(observed) - expected
        z = variance > 0 ? difference / variance.squareRoot() : (difference == 0 ? 0 : difference > 0 ? .infinity : -.infinity)
        differs = overlap > 0 && abs(z) > StandardNormal.upperQuantile(alpha / 2)
    }

    /// observed/expected when they differ, else 1.
    var ratio: Double { differs ? Double(observed) / expected : 1 }

    /// The point's rate of renewal `index` from the past's counts.
    func pointRate(_ past: RenewalCounts, index: Int) -> Double {
        min(1, Double(past.renewals(index)) / Double(past.due(index)) * ratio)
    }
}
