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
/// series, with what the data cannot identify at its lower and at its upper bound; and the same
/// for a newcomer's expected revenue_365 (the comparison's target), from the same parameter draws.
struct GroupDraws {
    var projection: GroupProjection
    var lower: [Double] = []
    var upper: [Double] = []
    /// A newcomer's expected revenue_365 at the point estimates; nil when `newcomerGap` says why
    /// (or the group has no draws: `projection.gap`).
    var newcomer: Double?
    var newcomerGap: ProjectionGap?
    var newcomerLower: [Double] = []
    var newcomerUpper: [Double] = []

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
        let fitted = FittedGroup(observation, products: products, past: past, alpha: configuration.alpha)
        func expected(renewals: UnseenBound?, conversions: UnseenBound?, usingPast: Bool = true)
            -> (mean: Double, variance: Double, newcomer: Double)
        {
            fitted.futureRevenue(fitted.pointParameters(renewals: renewals, conversions: conversions, usingPast: usingPast))
        }
        let point = expected(renewals: nil, conversions: nil)
        let lowest = expected(renewals: .lower, conversions: .lower)
        let highest = expected(renewals: .upper, conversions: .upper)
        let observed = observation.observedRevenue
        Self.describePast(fitted, past: past, into: &projection)
        let year = observed + point.mean
        if year > 0 {
            // The past's part: the lowest year with the past's renewals against it without them.
            let withoutPast =
                projection.pastUses.isEmpty ? lowest.mean : expected(renewals: .lower, conversions: .lower, usingPast: false).mean
            projection.observedShare = observed / year
            projection.pastShare = (lowest.mean - withoutPast) / year
            projection.boundedShare = (highest.mean - lowest.mean) / year
        }
        if let gap = Self.unidentified(
            fitted, point: year, lowest: observed + lowest.mean, highest: observed + highest.mean,
            renewalsOnly: { observed + expected(renewals: .upper, conversions: .lower).mean }, newcomer: false)
        {
            projection.gap = gap
        } else {
            projection.projectedARPU365 = year / users
        }
        // A newcomer's year rests on the unseen part more than the members' (nothing of it is
        // observed yet): it is judged on its own.
        if let gap = Self.unidentified(
            fitted, point: point.newcomer, lowest: lowest.newcomer, highest: highest.newcomer,
            renewalsOnly: { expected(renewals: .upper, conversions: .lower).newcomer }, newcomer: true)
        {
            newcomerGap = gap
        } else {
            newcomer = point.newcomer
        }
        var optionalGenerator: SplitMix64? = generator
        for bound in [UnseenBound.lower, .upper] {
            var series: [Double] = []
            var newcomers: [Double] = []
            series.reserveCapacity(configuration.replicates)
            newcomers.reserveCapacity(configuration.replicates)
            for _ in 0..<configuration.replicates {
                let future = fitted.futureRevenue(fitted.parameters(renewals: bound, conversions: bound, generator: &optionalGenerator))
                // The members' own remaining year: normal given the parameters (a sum over members).
                let noise = future.variance.squareRoot() * optionalGenerator!.standardNormal()
                series.append((observation.observedRevenue + future.mean + noise) / users)
                // A newcomer's is an expected value: the parameters' sampling error is all its uncertainty.
                newcomers.append(future.newcomer)
            }
            if bound == .upper {
                (upper, newcomerUpper) = (series, newcomers)
            } else {
                (lower, newcomerLower) = (series, newcomers)
            }
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
                        dueAtRenewal: past[product].renewals.due(renewal),
                        membersDue: plan.uncomparedPastThrough > 0 ? fitted.observation.products[product].renewals.due(1) : nil))
            }
        }
    }

    /// `yearNotIdentified` when what the data cannot identify (`highest` − `lowest`, the bounds'
    /// expected years) is more than `identifiedUnseenShare` of the point's year; nil otherwise.
    /// `renewalsOnly`: the year with unseen renewals at their upper bound and late entries at
    /// their lower; `newcomer`: the year is a newcomer's, which needs a product's renewals from the first.
    private static func unidentified(
        _ fitted: FittedGroup, point: Double, lowest: Double, highest: Double, renewalsOnly: () -> Double, newcomer: Bool
    ) -> ProjectionGap? {
        let unseen = highest - lowest
        guard unseen > identifiedUnseenShare * abs(point) else { return nil }
        return .yearNotIdentified(
            unseenPart(fitted, unseen: unseen, point: point, renewalsOnly: renewalsOnly() - lowest, newcomer: newcomer))
    }

    /// What the year rests on that the test has not seen: the share of the projected year between
    /// the bounds, the product whose unseen renewals weigh most when renewals are at least a
    /// tenth of it, and the last observed tenure day when late purchases are.
    private static func unseenPart(_ fitted: FittedGroup, unseen: Double, point: Double, renewalsOnly: Double, newcomer: Bool)
        -> UnseenPart
    {
        let renewalsMatter = renewalsOnly >= unseen / 10
        let purchasesMatter = unseen - renewalsOnly >= unseen / 10
        func needed(_ product: Int) -> Int {
            let plan = fitted.plans[product]
            guard newcomer, let period = plan.periodDays else { return plan.neededThrough }
            return max(plan.neededThrough, FittedGroup.renewalsDue(conversionDay: 0, periodDays: period))
        }
        var product: Int?
        if renewalsMatter {
            product = fitted.plans.indices.filter { needed($0) > fitted.plans[$0].knownThrough }
                .max { fitted.observation.firstPurchasesByProduct[$0] < fitted.observation.firstPurchasesByProduct[$1] }
        }
        return UnseenPart(
            share: point > 0 ? unseen / point : .infinity, product: product,
            renewalsIdentified: product.map { fitted.plans[$0].knownThrough } ?? 0,
            renewalsNeeded: product.map(needed) ?? 0,
            renewalsFromPast: product.map { fitted.plans[$0].pastThrough > fitted.plans[$0].identifiedThrough } ?? false,
            pastAwaitingComparison: product.map { fitted.plans[$0].uncomparedPastThrough } ?? 0,
            lastObservedDay: purchasesMatter ? fitted.observation.lastObservedDay : nil)
    }
}

/// A treatment against control on a newcomer's expected revenue_365 (what shipping does per
/// newcomer): percentiles of the differences of draw i with draw i (independent: the groups'
/// draws come from different stretches of the generator).
func compare(_ treatment: GroupDraws, with control: GroupDraws, alpha: Double) -> ProjectionComparison {
    var result = ProjectionComparison(group: treatment.projection.group, controlGroup: control.projection.group)
    guard !treatment.newcomerLower.isEmpty, !control.newcomerLower.isEmpty else {
        result.gap = .groupWithoutProjection
        return result
    }
    let (treatmentLower, treatmentUpper) = (treatment.newcomerLower, treatment.newcomerUpper)
    let (controlLower, controlUpper) = (control.newcomerLower, control.newcomerUpper)
    let count = min(treatmentLower.count, controlLower.count)
    func differences(_ left: [Double], _ right: [Double]) -> [Double] {
        (0..<count).map { left[$0] - right[$0] }.sorted()
    }
    let lowDifferences = differences(treatmentLower, controlUpper)
    let highDifferences = differences(treatmentUpper, controlLower)
    if let low = linearQuantile(sorted: lowDifferences, alpha / 2), let high = linearQuantile(sorted: highDifferences, 1 - alpha / 2) {
        result.differenceInterval = ConfidenceInterval(low: low, high: high)
    }
    guard let treatmentValue = treatment.newcomer, let controlValue = control.newcomer else {
        result.gap = treatment.newcomerGap ?? control.newcomerGap
        return result
    }
    (result.value, result.controlValue) = (treatmentValue, controlValue)
    result.difference = treatmentValue - controlValue
    // The standard error: the draws' spread of the difference, each bound against the same bound
    // (a draw's spread, not that of the mean of two independent draws), averaged as variances.
    func variance(_ left: [Double], _ right: [Double]) -> Double {
        let differences = (0..<count).map { left[$0] - right[$0] }
        let mean = differences.reduce(0, +) / Double(count)
        return differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(count - 1)
    }
    result.standardError = ((variance(treatmentLower, controlLower) + variance(treatmentUpper, controlUpper)) / 2).squareRoot()
    // Two-sided against the bounds: treatment ahead even at its lowest against control's highest,
    // or behind even at its highest; the chance compares the middles of the two bounds.
    let aheadAtLowest = count - lowDifferences.prefixCount { $0 <= 0 }
    let behindAtHighest = highDifferences.prefixCount { $0 < 0 }
    result.pValue = min(1, 2 * Double(count - max(aheadAtLowest, behindAtHighest) + 1) / Double(count + 1))
    let middleAhead = (0..<count).count { treatmentLower[$0] + treatmentUpper[$0] > controlLower[$0] + controlUpper[$0] }
    result.chanceToBeatControl = Double(middleAhead) / Double(count)
    if controlValue > 0 {
        result.relativeDifference = treatmentValue / controlValue - 1
        if controlLower.allSatisfy({ $0 > 0 }) {
            let lowRatios = (0..<count).map { treatmentLower[$0] / controlUpper[$0] - 1 }.sorted()
            let highRatios = (0..<count).map { treatmentUpper[$0] / controlLower[$0] - 1 }.sorted()
            if let low = linearQuantile(sorted: lowRatios, alpha / 2), let high = linearQuantile(sorted: highRatios, 1 - alpha / 2) {
                result.relativeInterval = ConfidenceInterval(low: low, high: high)
            }
        }
    }
    return result
}
