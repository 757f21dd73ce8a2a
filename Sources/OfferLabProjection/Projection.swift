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
/// - Complexity: one pass over the events (`observeGroups`), then `replicates` evaluations per
///   group whose cost depends on the horizon and the products, not on the members.
public func projectOffering(
    groups: [ProjectionGroupInput], control: Int, products: [ProjectionProduct], past: [ProductPast] = [],
    configuration: ProjectionConfiguration, using generator: inout SplitMix64
) throws(ProjectionInputError) -> OfferingProjection {
    try checkSettings(configuration, control: control, groups: groups.count, products: products, past: past)
    return try projectOffering(
        observed: try observeGroups(groups, products: products, configuration: configuration), control: control, products: products,
        past: past, configuration: configuration, using: &generator)
}

/// Each group's members reduced to what the projection reads of them (`GroupObservation`: counts
/// whose size does not grow with the members), at `configuration`'s `as_of`, horizon and refund
/// lag; `projectOffering(observed:…)` projects them.
public func observeGroups(
    _ groups: [ProjectionGroupInput], products: [ProjectionProduct], configuration: ProjectionConfiguration
) throws(ProjectionInputError) -> [GroupObservation] {
    try checkProducts(products, configuration: configuration)
    for group in groups {
        for event in group.events {
            guard products.indices.contains(event.product) else { throw .productOutOfRange(group: group.name, product: event.product) }
            guard event.amount.isFinite else { throw .amountNotFinite(group: group.name) }
        }
    }
    return groups.map { GroupObservation($0, products: products, configuration: configuration) }
}

/// `projectOffering` from the groups' observations (`observeGroups`, made at `configuration`'s
/// `as_of`, horizon and refund lag).
public func projectOffering(
    observed groups: [GroupObservation], control: Int, products: [ProjectionProduct], past: [ProductPast] = [],
    configuration: ProjectionConfiguration, using generator: inout SplitMix64
) throws(ProjectionInputError) -> OfferingProjection {
    try checkSettings(configuration, control: control, groups: groups.count, products: products, past: past)
    for group in groups {
        guard
            group.asOf == configuration.asOf && group.horizonDays == configuration.horizonDays
                && group.refundLagDays == configuration.refundLagDays && group.products.count == products.count
        else { throw .observedOtherwise(group: group.name) }
    }
    let draws = groups.map { group in
        GroupDraws(group, products: products, past: past, configuration: configuration, generator: &generator)
    }
    let comparisons = groups.indices.filter { $0 != control }.map { treatment in
        compare(draws[treatment], with: draws[control], alpha: configuration.alpha)
    }
    return OfferingProjection(groups: draws.map(\.projection), comparisons: comparisons)
}

/// The settings, control group and past a projection can take.
private func checkSettings(
    _ configuration: ProjectionConfiguration, control: Int, groups: Int, products: [ProjectionProduct], past: [ProductPast]
) throws(ProjectionInputError) {
    guard configuration.alpha > 0 && configuration.alpha < 1 else { throw .alphaOutOfRange(configuration.alpha) }
    guard configuration.replicates >= 100 else { throw .tooFewReplicates(configuration.replicates) }
    try checkProducts(products, configuration: configuration)
    guard (0..<groups).contains(control) else { throw .controlOutOfRange(control) }
    guard past.isEmpty || past.count == products.count else { throw .pastNotParallel(count: past.count, products: products.count) }
}

/// The horizon and the products' periods a projection can take.
private func checkProducts(_ products: [ProjectionProduct], configuration: ProjectionConfiguration) throws(ProjectionInputError) {
    guard configuration.horizonDays >= 1 && configuration.horizonDays.isFinite else { throw .horizonTooShort(configuration.horizonDays) }
    for (index, product) in products.enumerated() {
        // Under a day the per-draw tables (periods in a year, squared) would outgrow any use.
        if let period = product.renewalPeriodDays, !(period >= 1 && period.isFinite) { throw .periodTooShort(product: index) }
    }
}

/// A group's projection and the draws of its members' mean revenue_365, in the order drawn: at the
/// rates seen (the value's interval) and with what the data cannot identify at its lower and at
/// its upper bound (the far ends); and the same for a newcomer's expected revenue_365 (the
/// comparison's target), from the same parameter draws.
struct GroupDraws {
    var projection: GroupProjection
    var seen: [Double] = []
    var lower: [Double] = []
    var upper: [Double] = []
    /// A newcomer's expected revenue_365 at the point estimates; nil when `newcomerGap` says why
    /// (or the group has no draws: `projection.gap`).
    var newcomer: Double?
    var newcomerGap: ProjectionGap?
    var newcomerSeen: [Double] = []
    var newcomerLower: [Double] = []
    var newcomerUpper: [Double] = []

    init(
        _ observation: GroupObservation, products: [ProjectionProduct], past: [ProductPast] = [], configuration: ProjectionConfiguration,
        generator: inout SplitMix64
    ) {
        projection = GroupProjection(group: observation.name, users: observation.users)
        guard observation.users > 0 else {
            projection.gap = .noMembers
            return
        }
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
        func expected(renewals: UnseenBound?, conversions: UnseenBound?, usingPast: Bool = true, followOns: Bool = true)
            -> (mean: Double, variance: Double, newcomer: Double)
        {
            fitted.futureRevenue(
                fitted.pointParameters(renewals: renewals, conversions: conversions, usingPast: usingPast, followOns: followOns))
        }
        let ratesSeen = fitted.pointParameters(renewals: nil, conversions: nil)
        let point = fitted.futureRevenue(ratesSeen)
        let lowest = expected(renewals: .lower, conversions: .lower)
        let highest = expected(renewals: .upper, conversions: .upper)
        let observed = observation.observedRevenue
        Self.describePast(fitted, into: &projection)
        let year = observed + point.mean
        if year > 0 {
            // The year in steps between expected years, so the parts add up to it: the members'
            // own rates alone, then their follow-on chains, then the past's renewals (the lowest
            // year), then the rates seen continued (the point).
            let pastTaken = !projection.pastUses.isEmpty
            let withoutPast = pastTaken ? expected(renewals: .lower, conversions: .lower, usingPast: false).mean : lowest.mean
            let ownRates = expected(renewals: .lower, conversions: .lower, usingPast: !pastTaken, followOns: false).mean
            projection.observedShare = observed / year
            projection.ownRatesShare = ownRates / year
            projection.followOnShare = (withoutPast - ownRates) / year
            projection.pastShare = (lowest.mean - withoutPast) / year
            projection.continuedShare = (point.mean - lowest.mean) / year
            projection.boundedShare = (highest.mean - lowest.mean) / year
        }
        let unseen = (highest.mean - lowest.mean, highest.newcomer - lowest.newcomer)
        let renewalsOnly = { expected(renewals: .upper, conversions: .lower) }
        if let gap = Self.withoutRate(
            fitted, point: year, unseen: unseen.0, renewalsOnly: { renewalsOnly().mean - lowest.mean }, newcomer: false)
        {
            projection.gap = gap
        } else {
            projection.projectedARPU365 = year / users
        }
        // A newcomer's year needs every product's renewals from the first: it is judged on its own.
        if let gap = Self.withoutRate(
            fitted, point: point.newcomer, unseen: unseen.1, renewalsOnly: { renewalsOnly().newcomer - lowest.newcomer },
            newcomer: true)
        {
            newcomerGap = gap
        } else {
            newcomer = point.newcomer
        }
        if let days = configuration.growthDays.map({ min($0, Int(configuration.horizonDays)) }), days >= 1 {
            // A decision date plans on a new price renewing as its billing period's past did from
            // the start (contract §2.15, "Days left are a plan"), where the year waits for its first
            // renewal to be seen.
            let borrowing = FittedGroup.borrowingPast(past, products: products, observation: observation, beforeFirstRenewal: true)
            let planned =
                borrowing.map(\.borrowedFrom) == fitted.past.map(\.borrowedFrom)
                ? fitted
                : FittedGroup(observation, products: products, past: past, alpha: configuration.alpha, borrowsBeforeFirstRenewal: true)
            let unseen = Self.ratesUnseen(planned, newcomer: true)
            projection.newcomerGrowth = Self.growth(
                planned, planned.pointParameters(renewals: nil, conversions: nil), days: days, isFloor: unseen.renewals || unseen.trials)
            projection.growthPast = Self.pastTaken(planned)
        }
        var optionalGenerator: SplitMix64? = generator
        // The far ends first: their draws are the same whatever the rates seen take.
        for bound in configuration.drawsFarEnds ? [UnseenBound.lower, .upper, nil] : [nil] {
            // No draws at the rates seen where no rate was seen: they would rest on none.
            if bound == nil && projection.projectedARPU365 == nil && newcomer == nil { continue }
            var series: [Double] = []
            var newcomers: [Double] = []
            series.reserveCapacity(configuration.replicates)
            newcomers.reserveCapacity(configuration.replicates)
            for _ in 0..<configuration.replicates {
                let future = fitted.futureRevenue(fitted.parameters(renewals: bound, conversions: bound, generator: &optionalGenerator))
                // The members' own remaining year: normal given the parameters (a sum over members),
                // never below none of it unless refunds to come take more than it (a few members'
                // normal tail would put the year under what they have paid).
                let noise = future.variance.squareRoot() * optionalGenerator!.standardNormal()
                let remaining = max(min(0, future.mean), future.mean + noise)
                series.append((observation.observedRevenue + remaining) / users)
                // A newcomer's is an expected value: the parameters' sampling error is all its uncertainty.
                newcomers.append(future.newcomer)
            }
            switch bound {
            case nil: (seen, newcomerSeen) = (series, newcomers)
            case .lower: (lower, newcomerLower) = (series, newcomers)
            case .upper: (upper, newcomerUpper) = (series, newcomers)
            }
        }
        generator = optionalGenerator!
        if projection.projectedARPU365 != nil {
            let sorted = seen.sorted()
            if let low = linearQuantile(sorted: sorted, configuration.alpha / 2),
                let high = linearQuantile(sorted: sorted, 1 - configuration.alpha / 2)
            {
                projection.interval = ConfidenceInterval(low: low, high: high)
            }
        }
        if let low = linearQuantile(sorted: lower.sorted(), configuration.alpha / 2),
            let high = linearQuantile(sorted: upper.sorted(), 1 - configuration.alpha / 2)
        {
            // The far ends hold the interval: where they agree with the rates seen (nothing
            // unseen) the two differ by their draws alone.
            let interval = projection.interval ?? ConfidenceInterval(low: low, high: high)
            projection.bounds = ConfidenceInterval(low: min(low, interval.low), high: max(high, interval.high))
        }
        if newcomer == nil { newcomerSeen = [] }
    }

    /// A newcomer's growth through tenure `days` (`FittedGroup.newcomerGrowth`): day by day through
    /// the first four weeks, where a paywall's purchases and the first renewals fall, then week by
    /// week (each tenure costs a pass over the days before it; `TenureGrowth` is linear between).
    private static func growth(_ fitted: FittedGroup, _ parameters: ProjectionParameters, days: Int, isFloor: Bool) -> TenureGrowth? {
        let daily = min(days, 28)
        let tenures = Array(0...daily) + Array(stride(from: daily + 7, to: days, by: 7)) + (days > daily ? [days] : [])
        let moments = fitted.newcomerGrowth(parameters, horizons: tenures)
        return TenureGrowth(tenures: tenures, first: moments.map(\.first), second: moments.map(\.second), isFloor: isFloor)
    }

    /// With a past: the products whose renewals the year takes from it (those the year needs
    /// beyond the members' own), and those whose needed renewals it does not identify either.
    private static func describePast(_ fitted: FittedGroup, into projection: inout GroupProjection) {
        let past = fitted.past
        guard !past.isEmpty else { return }
        for (product, plan) in fitted.plans.enumerated() where plan.neededThrough > plan.identifiedThrough {
            if let check = plan.pastCheck, plan.pastThrough > 0 {
                projection.pastUses.append(
                    PastUse(
                        product: product, firstRenewal: plan.identifiedThrough + 1,
                        lastRenewal: min(plan.pastThrough, plan.neededThrough), chains: past[product].chains,
                        adjustment: check.differs ? check.ratio : nil, borrowedFrom: past[product].borrowedFrom))
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

    /// `yearNotIdentified` when the year needs what no rate seen gives: renewals of a product
    /// neither the members nor the app's past have seen renew often enough (the members' running
    /// chains and late buyers, or for a `newcomer` every product bought, from its first renewal),
    /// or trials when none has ended; nil otherwise. `unseen`: the distance between the far ends'
    /// expected years; `renewalsOnly`: the part of it that is renewals.
    private static func withoutRate(_ fitted: FittedGroup, point: Double, unseen: Double, renewalsOnly: () -> Double, newcomer: Bool)
        -> ProjectionGap?
    {
        let unseenRates = ratesUnseen(fitted, newcomer: newcomer)
        guard unseenRates.renewals || unseenRates.trials else { return nil }
        var part = unseenPart(fitted, unseen: unseen, point: point, renewalsOnly: renewalsOnly(), newcomer: newcomer)
        part.trialsNotEnded = unseenRates.trials
        return .yearNotIdentified(part)
    }

    /// Whether the year (a `newcomer`'s: every product bought, from its first renewal) needs
    /// renewals of a product neither the members nor the app's past have seen renew often enough,
    /// and whether it needs trials' outcomes when none has ended.
    private static func ratesUnseen(_ fitted: FittedGroup, newcomer: Bool) -> (renewals: Bool, trials: Bool) {
        let observation = fitted.observation
        let renewals = fitted.plans.indices.contains { product in
            let bought = observation.firstPurchasesByProduct[product] > 0
            let running = observation.products[product].hasRunningChains
            return fitted.plans[product].ratesSeenThrough == 0 && needed(fitted, product, newcomer: newcomer) > 0
                && (bought || (running && !newcomer))
        }
        let trials =
            observation.trialEntries > 0 && observation.trialsConverted + observation.trialsLapsed == 0
            && (newcomer || observation.pendingTrialsByDay.contains { $0 > 0 })
        return (renewals, trials)
    }

    /// The products whose earlier buyers' renewals a newcomer's year takes beyond the members' own
    /// (a new price's lenders for it), in product order: what a decision date assumes.
    private static func pastTaken(_ fitted: FittedGroup) -> [Int] {
        var products = Set<Int>()
        for (product, plan) in fitted.plans.enumerated()
        where fitted.observation.firstPurchasesByProduct[product] > 0 && plan.ratesSeenThrough > plan.identifiedThrough {
            let lenders = fitted.past[product].borrowedFrom
            products.formUnion(lenders.isEmpty ? [product] : lenders)
        }
        return products.sorted()
    }

    /// The renewals of `product` the year needs: a newcomer's from its first charge on.
    private static func needed(_ fitted: FittedGroup, _ product: Int, newcomer: Bool) -> Int {
        let plan = fitted.plans[product]
        guard newcomer, let period = plan.periodDays else { return plan.neededThrough }
        return max(
            plan.neededThrough, FittedGroup.renewalsDue(conversionDay: 0, periodDays: period, horizonDays: fitted.observation.horizonDays))
    }

    /// What the year rests on that the test has not seen: the share of the projected year between
    /// the bounds, the product whose unseen renewals weigh most when renewals are at least a
    /// tenth of it, and the last observed tenure day when late purchases are.
    private static func unseenPart(_ fitted: FittedGroup, unseen: Double, point: Double, renewalsOnly: Double, newcomer: Bool)
        -> UnseenPart
    {
        let renewalsMatter = renewalsOnly >= unseen / 10
        let purchasesMatter = unseen - renewalsOnly >= unseen / 10
        let needed = { (product: Int) in Self.needed(fitted, product, newcomer: newcomer) }
        // The product with no rate seen first (the one that takes the value away), else the one
        // whose unseen renewals weigh most.
        let byBuyers = { (left: Int, right: Int) in
            fitted.observation.firstPurchasesByProduct[left] < fitted.observation.firstPurchasesByProduct[right]
        }
        var product = fitted.plans.indices.filter { fitted.plans[$0].ratesSeenThrough == 0 && needed($0) > 0 }.max(by: byBuyers)
        if product == nil && renewalsMatter {
            product = fitted.plans.indices.filter { needed($0) > fitted.plans[$0].knownThrough }.max(by: byBuyers)
        }
        return UnseenPart(
            share: point > 0 ? unseen / point : .infinity, product: product,
            renewalsIdentified: product.map { fitted.plans[$0].knownThrough } ?? 0,
            renewalsNeeded: product.map { needed($0) } ?? 0,
            renewalsFromPast: product.map { fitted.plans[$0].pastThrough > fitted.plans[$0].identifiedThrough } ?? false,
            pastAwaitingComparison: product.map { fitted.plans[$0].uncomparedPastThrough } ?? 0,
            lastObservedDay: purchasesMatter ? fitted.observation.lastObservedDay : nil)
    }
}

/// A treatment against control on a newcomer's expected revenue_365 (what shipping does per
/// newcomer): percentiles of the differences of draw i with draw i (independent: the groups'
/// draws come from different stretches of the generator), at the rates seen for the value and its
/// interval, and each side's lower against the other's upper draws for the far ends.
func compare(_ treatment: GroupDraws, with control: GroupDraws, alpha: Double) -> ProjectionComparison {
    var result = ProjectionComparison(group: treatment.projection.group, controlGroup: control.projection.group)
    guard !treatment.newcomerLower.isEmpty, !control.newcomerLower.isEmpty else {
        result.gap = .groupWithoutProjection
        return result
    }
    let count = min(treatment.newcomerLower.count, control.newcomerLower.count)
    func differences(_ left: [Double], _ right: [Double]) -> [Double] {
        (0..<count).map { left[$0] - right[$0] }.sorted()
    }
    var bounds: ConfidenceInterval?
    if let low = linearQuantile(sorted: differences(treatment.newcomerLower, control.newcomerUpper), alpha / 2),
        let high = linearQuantile(sorted: differences(treatment.newcomerUpper, control.newcomerLower), 1 - alpha / 2)
    {
        bounds = ConfidenceInterval(low: low, high: high)
    }
    result.boundInterval = bounds
    defer {
        // The far ends hold the interval at the rates seen (as a group's do).
        if let bounds, let interval = result.differenceInterval {
            result.boundInterval = ConfidenceInterval(low: min(bounds.low, interval.low), high: max(bounds.high, interval.high))
        }
    }
    guard let treatmentValue = treatment.newcomer, let controlValue = control.newcomer else {
        result.gap = treatment.newcomerGap ?? control.newcomerGap
        return result
    }
    let (treatmentSeen, controlSeen) = (treatment.newcomerSeen, control.newcomerSeen)
    (result.value, result.controlValue) = (treatmentValue, controlValue)
    result.difference = treatmentValue - controlValue
    let seenDifferences = differences(treatmentSeen, controlSeen)
    if let low = linearQuantile(sorted: seenDifferences, alpha / 2), let high = linearQuantile(sorted: seenDifferences, 1 - alpha / 2) {
        result.differenceInterval = ConfidenceInterval(low: low, high: high)
    }
    let mean = seenDifferences.reduce(0, +) / Double(count)
    result.standardError = (seenDifferences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(count - 1)).squareRoot()
    // Two-sided: twice the smaller share of the draws on either side of 0, so the interval
    // excludes 0 exactly when p < alpha.
    let ahead = count - seenDifferences.prefixCount { $0 <= 0 }
    let behind = seenDifferences.prefixCount { $0 < 0 }
    result.pValue = min(1, 2 * Double(count - max(ahead, behind) + 1) / Double(count + 1))
    result.chanceToBeatControl = Double(ahead) / Double(count)
    if controlValue > 0 {
        result.relativeDifference = treatmentValue / controlValue - 1
        if controlSeen.allSatisfy({ $0 > 0 }) {
            let ratios = (0..<count).map { treatmentSeen[$0] / controlSeen[$0] - 1 }.sorted()
            if let low = linearQuantile(sorted: ratios, alpha / 2), let high = linearQuantile(sorted: ratios, 1 - alpha / 2) {
                result.relativeInterval = ConfidenceInterval(low: low, high: high)
            }
        }
    }
    return result
}
