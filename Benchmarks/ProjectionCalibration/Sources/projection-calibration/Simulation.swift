import OfferLabProjection
import OfferLabStatistics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One product a simulated group sells, and how its buyers behave.
struct SimulatedPlan {
    /// Index into `SimulatedSetting.products`.
    var product: Int
    var price: Double
    /// Its weight among a converting member's choices.
    var share: Double
    /// Days of free trial before the first charge (0: none); a trial converts with `trialConversion`.
    var trialDays: Double = 0
    var trialConversion: Double = 1
    /// Each subscriber's churn probability at every due date is Beta(churnA, churnB): renewal
    /// probabilities rise with the subscription's age (the churners leave first).
    var churnA: Double = 1
    var churnB: Double = 1
    /// Each charge is refunded (`refundShare` of its price) with this probability, 0–3 days
    /// later, and a refund ends the subscription.
    var refundProbability: Double = 0
    var refundShare: Double = 1
    /// A cliff the projection's renewal curve cannot foresee (an introductory price ending):
    /// at this renewal index every subscriber churns with this extra probability.
    var cliff: (renewal: Int, churn: Double)?
}

/// A simulated group: who converts, when, and to what.
struct SimulatedGroup {
    var name: String
    var plans: [SimulatedPlan]
    /// The share of members who buy (or start a trial) on their first day, at the paywall.
    var paywallConversion: Double
    /// Per-day hazard of a later first purchase for the others (no trial).
    var lateHazard: Double
}

/// A setting: the products and the groups (the first is control).
struct SimulatedSetting {
    var name: String
    var summary: String
    var products: [ProjectionProduct]
    var groups: [SimulatedGroup]
    /// Same behaviour in every group: the comparison's false positives are counted.
    var isAA: Bool
    /// Behaviour outside the projection's assumptions: shown, not part of the pooled coverage.
    var isMisspecified = false
}

/// A simulated member: assignment time, its whole first year and more of events, and its true revenue_365.
struct SimulatedMember {
    var assignedAt: Int64
    var events: [ProjectionEvent]
    var revenue365: Double
}

let day = 86_400_000_000.0

extension SimulatedGroup {
    /// A member assigned at `assignedAt`: every event of its first 365 days (and the refunds of them).
    func member(assignedAt: Int64, chain: Int64, products: [ProjectionProduct], generator: inout SplitMix64) -> SimulatedMember {
        var events: [ProjectionEvent] = []
        var revenue = 0.0
        let horizon = assignedAt + Int64(365 * day)
        func pickPlan() -> SimulatedPlan { plans[generator.pick(weights: plans.map(\.share))] }

        var firstCharge: (time: Int64, plan: SimulatedPlan)?
        if generator.chance(paywallConversion) {
            let plan = pickPlan()
            if plan.trialDays > 0 {
                let start = assignedAt + Int64(0.01 * day)
                events.append(ProjectionEvent(time: start, kind: .trialStart, product: plan.product, chain: chain, amount: 0))
                if generator.chance(plan.trialConversion) { firstCharge = (start + Int64(plan.trialDays * day), plan) }
            } else {
                firstCharge = (assignedAt + Int64(generator.unit() * 0.5 * day), plan)
            }
        } else if lateHazard > 0 {
            let wait = -log(generator.unitOpen()) / lateHazard
            if wait < 365 { firstCharge = (assignedAt + Int64(wait * day), pickPlan()) }
        }
        guard let (start, plan) = firstCharge else { return SimulatedMember(assignedAt: assignedAt, events: events, revenue365: 0) }

        let churn = beta(plan.churnA, plan.churnB, &generator)
        let period = products[plan.product].renewalPeriodDays
        var time = start
        var kind = ProjectionEventKind.purchase
        var renewals = 0
        while time < horizon {
            let expiresAt = period.map { time + Int64($0 * day) }
            events.append(
                ProjectionEvent(time: time, kind: kind, product: plan.product, chain: chain, amount: plan.price, expiresAt: expiresAt))
            revenue += plan.price
            if generator.chance(plan.refundProbability) {
                let refundTime = time + Int64(generator.unit() * 3 * day)
                let amount = plan.price * plan.refundShare
                events.append(ProjectionEvent(time: refundTime, kind: .refund, product: plan.product, chain: chain, amount: amount))
                if refundTime < horizon { revenue -= amount }
                break
            }
            guard let next = expiresAt, !generator.chance(churn) else { break }
            renewals += 1
            if let cliff = plan.cliff, cliff.renewal == renewals, generator.chance(cliff.churn) { break }
            time = next
            kind = .renewal
        }
        return SimulatedMember(assignedAt: assignedAt, events: events, revenue365: revenue)
    }
}

/// Beta(a, b) from two Gamma draws.
func beta(_ a: Double, _ b: Double, _ generator: inout SplitMix64) -> Double {
    let x = generator.gamma(shape: a)
    let y = generator.gamma(shape: b)
    return x / (x + y)
}
