import OfferLabProjection
import OfferLabStatistics

/// µs in a day, for building timestamps by hand.
let day: Int64 = 86_400_000_000
/// µs in an hour.
let hour: Int64 = 3_600_000_000

/// Products of the hand-worked cases, by index.
enum FixtureProduct {
    static let weekly = 0
    static let monthly = 1
    static let yearly = 2
    static let pass = 3
    static let all = [
        ProjectionProduct(renewalPeriodDays: 7), ProjectionProduct(renewalPeriodDays: 365.25 / 12),
        ProjectionProduct(renewalPeriodDays: 365.25), ProjectionProduct(renewalPeriodDays: nil),
    ]
}

/// A purchase (chain = the member's number, so each member has its own chain).
func purchase(_ time: Int64, _ product: Int, _ price: Double, member: Int) -> ProjectionEvent {
    ProjectionEvent(time: time, kind: .purchase, product: product, chain: Int64(member), amount: price)
}

/// A renewal of the member's chain.
func renewal(_ time: Int64, _ product: Int, _ price: Double, member: Int) -> ProjectionEvent {
    ProjectionEvent(time: time, kind: .renewal, product: product, chain: Int64(member), amount: price)
}

/// A refund on the member's chain.
func refund(_ time: Int64, _ product: Int, _ amount: Double, member: Int) -> ProjectionEvent {
    ProjectionEvent(time: time, kind: .refund, product: product, chain: Int64(member), amount: amount)
}

/// Projects the groups (the first is control) as of `asOf` with a fixed seed, a newcomer's growth
/// through `growthDays`.
func project(_ groups: [ProjectionGroupInput], asOf: Int64, replicates: Int = 400, growthDays: Int? = nil) throws -> OfferingProjection {
    var generator = SplitMix64(state: 2026)
    return try projectOffering(
        groups: groups, control: 0, products: FixtureProduct.all,
        configuration: ProjectionConfiguration(asOf: asOf, replicates: replicates, growthDays: growthDays), using: &generator)
}
