import OfferLabStatistics

/// Projected revenue per user after 365 days for each group of an offering, and each treatment
/// against control. docs/statistics.md#projected-revenue-per-user-after-365-days defines it and
/// describes the method.
///
/// - Parameters:
///   - groups: each group's members and counted money events (events at or after `as_of` are ignored).
///   - control: the index of the control group in `groups`.
///   - products: the offering's products; events name them by index.
///   - past: per product (parallel to `products`), the app's past: the chains of users who are
///     not members of the offering (`ProductPastBuilder`); empty: none.
///   - generator: the draws of the intervals (seeded, so the intervals are reproducible). A
///     concrete type, not any generator: a generic one was left unspecialised across the
///     targets and looked up its metadata in every draw.
/// - Complexity: one pass over the events, then `replicates` evaluations per group whose cost
///   depends on the horizon and the products, not on the members.
public func projectOffering(
    groups: [ProjectionGroupInput], control: Int, products: [ProjectionProduct], past: [ProductPast] = [],
    configuration: ProjectionConfiguration, using generator: inout SplitMix64
) throws(ProjectionInputError) -> OfferingProjection {
    guard configuration.alpha > 0 && configuration.alpha < 1 else { throw .alphaOutOfRange(configuration.alpha) }
    guard configuration.horizonDays > 0 && configuration.horizonDays <= 365 else { throw .horizonOutOfRange(configuration.horizonDays) }
    guard configuration.replicates >= 100 else { throw .tooFewReplicates(configuration.replicates) }
    guard groups.indices.contains(control) else { throw .controlOutOfRange(control) }
    guard past.isEmpty || past.count == products.count else { throw .pastNotParallel(count: past.count, products: products.count) }
    for (index, product) in products.enumerated() {
        // Under a day the per-draw tables (periods in a year, squared) would outgrow any use.
        if let period = product.renewalPeriodDays, !(period >= 1 && period.isFinite) { throw .periodTooShort(product: index) }
    }
    for group in groups {
        for event in group.events {
            guard products.indices.contains(event.product) else { throw .productOutOfRange(group: group.name, product: event.product) }
            guard event.amount.isFinite else { throw .amountNotFinite(group: group.name) }
        }
    }

    let draws = groups.map { group in
        GroupDraws(group, products: products, past: past, configuration: configuration, generator: &generator)
    }
    let comparisons = groups.indices.filter { $0 != control }.map { treatment in
        compare(draws[treatment], with: draws[control], alpha: configuration.alpha)
    }
    return OfferingProjection(groups: draws.map(\.projection), comparisons: comparisons)
}

/// A group's projection and the draws of its members' mean revenue_365, in the order drawn: two
/// series, with what the data cannot identify at its lower and at its upper bound.
struct GroupDraws {
    var projection: GroupProjection
    var lower: [Double] = []
    var upper: [Double] = []

    /// The value is given only when what the data cannot identify (the distance between the
    /// bounds' expected years) is at most this share of the projected year.
    static let identifiedUnseenShare = 0.25

    init(
        _ group: ProjectionGroupInput, products: [ProjectionProduct], past: [ProductPast] = [], configuration: ProjectionConfiguration,
        generator: inout SplitMix64
    ) {
        projection = GroupProjection(group: group.name, users: group.users)
        guard group.users > 0 else {
            projection.gap = .noMembers
            return
        }
        let observation = GroupObservation(group, products: products, configuration: configuration)
        let users = Double(observation.users)
        projection.realizedARPU = observation.observedRevenue / users
        projection.observedDaysMean = observation.observedDays / users
        guard observation.payers > 0 else {
            projection.gap = .noPayers
            return
        }
        guard observation.lastObservedDay >= 0 else {
            projection.gap = .noFullDay
            return
        }
        let fitted = FittedGroup(
            observation, products: products, horizonDays: configuration.horizonDays, past: past, alpha: configuration.alpha)
        func expected(renewals: UnseenBound?, conversions: UnseenBound?, usingPast: Bool = true) -> Double {
            observation.observedRevenue
                + fitted.futureRevenue(fitted.pointParameters(renewals: renewals, conversions: conversions, usingPast: usingPast)).mean
        }
        let point = expected(renewals: nil, conversions: nil)
        let lowest = expected(renewals: .lower, conversions: .lower)
        let highest = expected(renewals: .upper, conversions: .upper)
        let unseen = highest - lowest
        Self.describePast(fitted, past: past, into: &projection)
        if point > 0 {
            // The past's part: the lowest year with the past's renewals against it without them.
            let pastPart = projection.pastUses.isEmpty ? 0 : lowest - expected(renewals: .lower, conversions: .lower, usingPast: false)
            projection.observedShare = observation.observedRevenue / point
            projection.pastShare = pastPart / point
            projection.boundedShare = unseen / point
        }
        if unseen <= Self.identifiedUnseenShare * abs(point) {
            projection.projectedARPU365 = point / users
        } else {
            projection.gap = .yearNotIdentified(
                Self.unseenPart(
                    fitted, unseen: unseen, point: point, renewalsOnly: expected(renewals: .upper, conversions: .lower) - lowest))
        }
        var optionalGenerator: SplitMix64? = generator
        for bound in [UnseenBound.lower, .upper] {
            var series: [Double] = []
            series.reserveCapacity(configuration.replicates)
            for _ in 0..<configuration.replicates {
                let future = fitted.futureRevenue(fitted.parameters(renewals: bound, conversions: bound, generator: &optionalGenerator))
                // The members' own remaining year: normal given the parameters (a sum over members).
                let noise = future.variance.squareRoot() * optionalGenerator!.standardNormal()
                series.append((observation.observedRevenue + future.mean + noise) / users)
            }
            if bound == .upper { upper = series } else { lower = series }
        }
        generator = optionalGenerator!
        if let low = linearQuantile(sorted: lower.sorted(), configuration.alpha / 2),
            let high = linearQuantile(sorted: upper.sorted(), 1 - configuration.alpha / 2)
        {
            projection.interval = ConfidenceInterval(low: low, high: high)
        }
    }

    /// With a past: the products whose renewals the year takes from it (those the year needs
    /// beyond the members' own), and those whose needed renewals it does not identify either.
    private static func describePast(_ fitted: FittedGroup, past: [ProductPast], into projection: inout GroupProjection) {
        guard !past.isEmpty else { return }
        for (product, plan) in fitted.plans.enumerated() where plan.neededThrough > plan.identifiedThrough {
            if let check = plan.pastCheck, plan.pastThrough > 0 {
                projection.pastUses.append(
                    PastUse(
                        product: product, firstRenewal: plan.identifiedThrough + 1,
                        lastRenewal: min(plan.pastThrough, plan.neededThrough), chains: past[product].chains,
                        adjustment: check.differs ? check.ratio : nil))
            }
            if plan.neededThrough > plan.knownThrough {
                let renewal = plan.knownThrough + 1
                projection.pastMissing.append(
                    PastMissing(
                        product: product, renewal: renewal, chains: past[product].chains,
                        dueAtRenewal: past[product].renewals.due(renewal)))
            }
        }
    }

    /// What the year rests on that the test has not seen: the share of the projected year between
    /// the bounds, the product whose unseen renewals weigh most when renewals are at least a
    /// tenth of it, and the last observed tenure day when late purchases are.
    private static func unseenPart(_ fitted: FittedGroup, unseen: Double, point: Double, renewalsOnly: Double) -> UnseenPart {
        let renewalsMatter = renewalsOnly >= unseen / 10
        let purchasesMatter = unseen - renewalsOnly >= unseen / 10
        var product: Int?
        if renewalsMatter {
            product = fitted.plans.indices.filter { fitted.plans[$0].neededThrough > fitted.plans[$0].knownThrough }
                .max { fitted.observation.firstPurchasesByProduct[$0] < fitted.observation.firstPurchasesByProduct[$1] }
        }
        return UnseenPart(
            share: point > 0 ? unseen / point : .infinity, product: product,
            renewalsIdentified: product.map { fitted.plans[$0].knownThrough } ?? 0,
            renewalsNeeded: product.map { fitted.plans[$0].neededThrough } ?? 0,
            lastObservedDay: purchasesMatter ? fitted.observation.lastObservedDay : nil)
    }
}

/// A treatment's draws against control's: percentiles of the differences of draw i with draw i
/// (independent: the groups' draws come from different stretches of the generator).
func compare(_ treatment: GroupDraws, with control: GroupDraws, alpha: Double) -> ProjectionComparison {
    var result = ProjectionComparison(group: treatment.projection.group, controlGroup: control.projection.group)
    guard !treatment.lower.isEmpty, !control.lower.isEmpty else {
        result.gap = .groupWithoutProjection
        return result
    }
    let count = min(treatment.lower.count, control.lower.count)
    func differences(_ left: [Double], _ right: [Double]) -> [Double] {
        (0..<count).map { left[$0] - right[$0] }.sorted()
    }
    let lowDifferences = differences(treatment.lower, control.upper)
    let highDifferences = differences(treatment.upper, control.lower)
    if let low = linearQuantile(sorted: lowDifferences, alpha / 2), let high = linearQuantile(sorted: highDifferences, 1 - alpha / 2) {
        result.differenceInterval = ConfidenceInterval(low: low, high: high)
    }
    guard let treatmentValue = treatment.projection.projectedARPU365, let controlValue = control.projection.projectedARPU365 else {
        result.gap = treatment.projection.gap ?? control.projection.gap
        return result
    }
    result.difference = treatmentValue - controlValue
    // Two-sided against the bounds: treatment ahead even at its lowest against control's highest,
    // or behind even at its highest; the chance compares the middles of the two bounds.
    let aheadAtLowest = count - lowDifferences.prefixCount { $0 <= 0 }
    let behindAtHighest = highDifferences.prefixCount { $0 < 0 }
    result.pValue = min(1, 2 * Double(count - max(aheadAtLowest, behindAtHighest) + 1) / Double(count + 1))
    let middleAhead = (0..<count).count {
        treatment.lower[$0] + treatment.upper[$0] > control.lower[$0] + control.upper[$0]
    }
    result.chanceToBeatControl = Double(middleAhead) / Double(count)
    if controlValue > 0 {
        result.relativeDifference = treatmentValue / controlValue - 1
        if control.lower.allSatisfy({ $0 > 0 }) {
            let lowRatios = (0..<count).map { treatment.lower[$0] / control.upper[$0] - 1 }.sorted()
            let highRatios = (0..<count).map { treatment.upper[$0] / control.lower[$0] - 1 }.sorted()
            if let low = linearQuantile(sorted: lowRatios, alpha / 2), let high = linearQuantile(sorted: highRatios, 1 - alpha / 2) {
                result.relativeInterval = ConfidenceInterval(low: low, high: high)
            }
        }
    }
    return result
}
