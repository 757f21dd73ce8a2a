import OfferLabStatistics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the parts of the year the data cannot identify take in a set of parameters (renewals past
/// the last one seen often enough, and purchases on tenure days past the last one observed), at
/// the far ends of what the data allow; nil where this type is optional: at the rates seen.
enum UnseenBound: Sendable {
    /// None of it happens: the lowest year the data allow.
    case lower
    /// As much as the data allow: renewals at `RenewalPlan.ceiling`, purchases at the latest
    /// observed rate (a hazard that does not rise with tenure never exceeds it).
    case upper
}

/// One set of the model's parameters: a point estimate or a draw.
struct ProjectionParameters: Sendable {
    /// P(first purchase on tenure day d | none before), d in 0 ..< horizon days.
    var hazard: [Double]
    /// The share of each product among first purchases.
    var productShare: [Double]
    /// Per product: mean and second moment of a charge's net value N (price − refunds).
    var chargeMean: [Double]
    var chargeSecondMoment: [Double]
    /// Per product: the probability that a charge is kept (not refunded: a refund ends the
    /// chain), and E[N·kept].
    var keptShare: [Double]
    var keptMean: [Double]
    /// Per product: r(k), the probability of renewal k given renewal k − 1 (slot 0 unused); empty
    /// for a one-time product.
    var renewal: [[Double]]
    /// The share of entries that start a trial, and the probability that a trial converts (on
    /// its last day, `GroupObservation.trialDays` after its start).
    var trialShare = 0.0
    var trialConversion = 0.0
    /// Per product, per renewal index: the renewal rate of a chain whose renewal is turned off
    /// (at the index when 30 such chains were due there, else pooled over the indices); empty when
    /// no turned-off chain was due (such chains then renew as any).
    var turnedOffRenewal: [[Double]] = []
    /// Per product: for a one-time product some member bought, P(the member's next chain starts on
    /// day k since the purchase | none before), and the next chain's product mix; empty otherwise.
    var followOnHazard: [[Double]] = []
    var followOnShare: [[Double]] = []
}

/// How a product's renewal probabilities are estimated: each renewal index on its own while
/// enough chains were due for it, no curve beyond (a curve fitted to two or three renewals would
/// decide fifty).
struct RenewalPlan: Sendable {
    /// Days between charges; nil for a one-time product.
    var periodDays: Double?
    /// Renewals 1 … identifiedThrough each had at least `identifiedMinimum` chains due: their own
    /// rate is used; later ones are unseen.
    var identifiedThrough = 0
    /// The highest renewal index the projection needs.
    var neededThrough = 0
    /// The rate seen that the unseen renewals continue at: the pooled rate of the last
    /// `continuationRenewals` renewals seen after the first (the first is its own step: it holds
    /// the trial and first-charge regrets; the last ones, so that rates rising with a
    /// subscription's age carry their latest level), the first's when it is the only one, at most
    /// `ceiling`. Its counts (`continuationDue`, `continuationRenewed`) let a draw vary it.
    var continuation = 0.0
    var continuationDue = 0.0
    var continuationRenewed = 0.0
    /// Renewals identifiedThrough + 1 … pastThrough take the app's past's rates (the past had at
    /// least `identifiedMinimum` chains due at each); 0 when the past adds none.
    var pastThrough = 0
    /// The check of the members against the past at the renewals both identified, when the past is
    /// used (nil: not used).
    var pastCheck: PastCheck?
    /// Renewals 1 … uncomparedPastThrough the past identifies but is not taken for: the members
    /// identify no renewal of the product yet, so nothing says whether they renew as the earlier
    /// buyers did (docs/statistics.md#the-apps-past): the far ends leave them out, the year at the
    /// rates seen takes them as they are. 0 when none.
    var uncomparedPastThrough = 0

    /// The last renewal whose rate the data give, the members' own or the past's.
    var knownThrough: Int { max(identifiedThrough, pastThrough) }
    /// The last renewal with a rate seen, the past's uncompared ones included: the year at the
    /// rates seen takes them as they are (the members have nothing yet to compare them with);
    /// 0 when neither the members nor the past have seen the product renew often enough, and a
    /// year needing its renewals then has no value, only bounds.
    var ratesSeenThrough: Int { max(knownThrough, uncomparedPastThrough) }

    static let identifiedMinimum = 30
    /// How many of the last renewals seen the continuation pools.
    static let continuationRenewals = 3
    /// The upper bound's rate for unseen renewals: the data bound nothing below 1; a product that
    /// keeps 98 % of its subscribers at every renewal is the most this interval admits.
    static let ceiling = 0.98
}

/// A group's observation with what the model derives from it once: the estimation plan, the
/// fixed parts (the young charges' expected late refunds), and the moments of a draw.
struct FittedGroup: Sendable {
    let observation: GroupObservation
    let plans: [RenewalPlan]
    /// The first tenure day whose hazard is the pooled tail rate (the last third of the observed days and after).
    let tailStart: Int
    /// First purchases and member-days at risk from `tailStart` on.
    let tailConversions: Int
    let tailExposure: Int
    /// Expected refunds still to come on charges younger than the lag, and their variance (both fixed).
    let pendingRefundMean: Double
    let pendingRefundVariance: Double
    /// Per product: the charges a charge's value is estimated from (mature ones when there are any).
    let chargeValues: [ChargeValues]
    /// Per product, per tenure day: the renewals due before the horizon after a conversion that
    /// day (`renewalsDue`; empty for a one-time product), the same for every draw.
    let renewalsDueByDay: [[Int]]
    /// Per product: the follow-on chains' latest rate, as the entries' (`tailStart`, …): the first
    /// day since a purchase of the pooled tail, its follow-ons and purchase-days at risk.
    let followOnTails: [(start: Int, started: Int, exposure: Int)]

    /// The members' running chains, by product, state (on, then turned off) and key (next
    /// renewal index << 16 | charges to come), with their counts; and their one-time purchases
    /// still waiting for a follow-on, by product and key: in key order, since a dictionary's
    /// order changes from process to process, and so would the sums' last digits (the same night
    /// must write the same bytes). Made once, read by every draw.
    let runningChains: [(product: Int, turnedOff: Bool, key: Int, count: Int)]
    let waitingFollowOns: [(product: Int, key: Int, count: Int)]

    /// Per product: the app's past (empty: none; else parallel to the products).
    let past: [ProductPast]
    /// The members in their first day without an entry, by the minute they have reached: how many,
    /// and the share F₀ of day-0 entries that came by then (`GroupObservation.dayZeroEntriesByMinute`).
    /// Empty when no member observed through day 0 entered on it (the day is then taken as even).
    let dayZeroWaiting: [(members: Double, entered: Double)]

    /// - Parameter borrowsBeforeFirstRenewal: a new price takes its billing period's past from the
    ///   start, not once its first renewal is seen (`borrowingPast`): what a decision date plans on.
    init(
        _ observation: GroupObservation, products: [ProjectionProduct], past ownPast: [ProductPast] = [], alpha: Double = 0.05,
        borrowsBeforeFirstRenewal: Bool = false
    ) {
        self.observation = observation
        runningChains = observation.products.enumerated().flatMap { product, seen in
            [(false, seen.pendingChains), (true, seen.pendingTurnedOff)].flatMap { turnedOff, pending in
                pending.sorted { $0.key < $1.key }.map { (product, turnedOff, $0.key, $0.value) }
            }
        }
        waitingFollowOns = observation.followOns.enumerated().flatMap { product, followOn in
            followOn.waiting.sorted { $0.key < $1.key }.map { (product, $0.key, $0.value) }
        }
        let past = Self.borrowingPast(
            ownPast, products: products, observation: observation, beforeFirstRenewal: borrowsBeforeFirstRenewal)
        self.past = past
        let dayZeroEntries = observation.dayZeroEntriesByMinute.reduce(0, +)
        var dayZeroWaiting: [(members: Double, entered: Double)] = []
        if dayZeroEntries > 0 {
            // An entry in the member's own minute counts as half before it.
            var before = 0
            for minute in 0..<GroupObservation.minutesPerDay {
                let inMinute = observation.dayZeroEntriesByMinute[minute]
                let members = observation.dayZeroWaitingByMinute[minute]
                if members > 0 {
                    dayZeroWaiting.append((Double(members), (Double(before) + Double(inMinute) / 2) / Double(dayZeroEntries)))
                }
                before += inMinute
            }
        }
        self.dayZeroWaiting = dayZeroWaiting
        renewalsDueByDay = products.map { product in
            guard let period = product.renewalPeriodDays else { return [] }
            return observation.atRiskByDay.indices.map {
                Self.renewalsDue(conversionDay: $0, periodDays: period, horizonDays: observation.horizonDays)
            }
        }
        let lastDay = observation.lastObservedDay
        let start = max(0, (2 * (lastDay + 1)) / 3)
        tailStart = start
        var conversions = 0
        var exposure = 0
        if lastDay >= start {
            for day in start...lastDay {
                conversions += observation.conversionsByDay[day]
                exposure += observation.atRiskByDay[day]
            }
        }
        tailConversions = conversions
        tailExposure = exposure
        followOnTails = observation.followOns.map { followOn in
            let last = followOn.lastObservedDay
            let start = max(0, (2 * (last + 1)) / 3)
            guard last >= start else { return (start, 0, 0) }
            return (start, followOn.startedByDay[start...last].reduce(0, +), followOn.atRiskByDay[start...last].reduce(0, +))
        }

        var refundMean = 0.0
        var refundVariance = 0.0
        var values: [ChargeValues] = []
        for product in observation.products {
            values.append(product.mature.count > 0 ? product.mature : product.all)
            guard product.mature.refunded > 0 else { continue }
            // A young charge not refunded yet may still be: P = π(1 − F(age))/(1 − π F(age)), with
            // π the mature charges' refund rate and F the empirical CDF of their refund delays.
            let rate = Double(product.mature.refunded) / Double(product.mature.count)
            let share = product.matureRefundedShare / Double(product.mature.refunded)
            let delays = product.refundsByDelayDay
            let refunds = Double(delays.reduce(0, +))
            for age in product.youngPrice.indices where product.youngPrice[age] > 0 {
                // The share of the delays at most age + ½ days.
                let seen = Double(delays.prefix(age + 1).reduce(0, +)) / refunds
                let probability = rate * (1 - seen) / (1 - rate * seen)
                refundMean -= share * probability * product.youngPrice[age]
                refundVariance += share * share * probability * (1 - probability) * product.youngPriceSquared[age]
            }
        }
        pendingRefundMean = refundMean
        pendingRefundVariance = refundVariance
        chargeValues = values

        let waitingFrom = observation.waitingByDay.firstIndex { $0.count > 0 }
        plans = zip(products, observation.products).enumerated().map { productIndex, pair in
            let (product, seen) = pair
            var plan = RenewalPlan(periodDays: product.renewalPeriodDays)
            guard let period = product.renewalPeriodDays else { return plan }
            let members = seen.renewals
            plan.identifiedThrough = members.identifiedThrough(minimum: RenewalPlan.identifiedMinimum)
            if past.indices.contains(productIndex) {
                let pastThrough = past[productIndex].renewals.identifiedThrough(minimum: RenewalPlan.identifiedMinimum)
                if pastThrough > plan.identifiedThrough && plan.identifiedThrough == 0 {
                    plan.uncomparedPastThrough = pastThrough
                } else if pastThrough > plan.identifiedThrough {
                    let check = PastCheck(
                        members: members, past: past[productIndex].renewals, through: plan.identifiedThrough, alpha: alpha)
                    plan.pastCheck = check
                    plan.pastThrough = pastThrough
                }
            }
            // The continuation: the last renewals seen after the first, the past's counted at its
            // (adjusted) rates.
            let seenThrough = plan.ratesSeenThrough
            let later =
                seenThrough >= 2 ? max(2, seenThrough - RenewalPlan.continuationRenewals + 1)...seenThrough : 1...max(1, seenThrough)
            var due = 0.0
            var renewed = 0.0
            for index in later where seenThrough > 0 {
                if index <= plan.identifiedThrough {
                    due += Double(members.due(index))
                    renewed += Double(members.renewals(index))
                } else {
                    let pastCounts = past[productIndex].renewals
                    due += Double(pastCounts.due(index))
                    renewed +=
                        Double(pastCounts.due(index)) * (plan.pastCheck?.pointRate(pastCounts, index: index) ?? pastCounts.rate(index))
                }
            }
            (plan.continuationDue, plan.continuationRenewed) = (due, renewed)
            plan.continuation = due > 0 ? min(RenewalPlan.ceiling, renewed / due) : 0
            var needed = 0
            for key in [seen.pendingChains.keys, seen.pendingTurnedOff.keys].joined() {
                needed = max(needed, (key >> 16) + (key & 0xFFFF) - 1)
            }
            if let day = waitingFrom, observation.firstPurchasesByProduct[productIndex] > 0 {
                needed = max(needed, Self.renewalsDue(conversionDay: day, periodDays: period, horizonDays: observation.horizonDays))
            }
            plan.neededThrough = needed
            return plan
        }
    }

    /// A new price (contract §2.14, "A new price"; docs/statistics.md#the-apps-past): a renewing
    /// product whose own past identifies no renewal, once the members have seen its first renewal
    /// often enough, takes the past of every product of its billing period pooled (its own few
    /// chains included). The check against the members at the renewals both saw then moves that
    /// curve to the members' level as it moves any past (`PastCheck`), with that adjustment's
    /// uncertainty in the draws. Before the members' first renewal is seen it borrows nothing: the
    /// year stays without a value, its far ends only; unless `beforeFirstRenewal`, the plan of a
    /// decision date (contract §2.15, "Days left are a plan"), which takes the curve as it is.
    static func borrowingPast(
        _ past: [ProductPast], products: [ProjectionProduct], observation: GroupObservation, beforeFirstRenewal: Bool = false
    ) -> [ProductPast] {
        guard past.count == products.count else { return past }
        var result = past
        for (index, product) in products.enumerated() {
            guard let period = product.renewalPeriodDays,
                past[index].renewals.identifiedThrough(minimum: RenewalPlan.identifiedMinimum) == 0,
                beforeFirstRenewal || observation.products[index].renewals.identifiedThrough(minimum: RenewalPlan.identifiedMinimum) >= 1
            else { continue }
            let lenders = products.indices.filter {
                $0 != index && products[$0].renewalPeriodDays == period
                    && past[$0].renewals.identifiedThrough(minimum: RenewalPlan.identifiedMinimum) > 0
            }
            guard !lenders.isEmpty else { continue }
            for lender in lenders { result[index].add(past[lender]) }
            result[index].borrowedFrom = lenders
        }
        return result
    }

    /// Renewals due before the horizon for a chain bought in the middle of tenure day `day`.
    static func renewalsDue(conversionDay day: Int, periodDays: Double, horizonDays: Double) -> Int {
        max(0, Int(((horizonDays - Double(day) - 0.5) / periodDays).rounded(.up)) - 1)
    }

    /// The point estimate (nil, nil) or a bound's parameters, without drawing; `usingPast`
    /// false: the renewals the past gives are not taken (what the year owes to the past);
    /// `followOns` false: no chain follows a one-time purchase (what the year owes to them).
    func pointParameters(renewals: UnseenBound?, conversions: UnseenBound?, usingPast: Bool = true, followOns: Bool = true)
        -> ProjectionParameters
    {
        var none: PointEstimate? = nil
        var parameters = self.parameters(renewals: renewals, conversions: conversions, usingPast: usingPast, generator: &none)
        if !followOns {
            parameters.followOnHazard = parameters.followOnHazard.map { _ in [] }
            parameters.followOnShare = parameters.followOnShare.map { _ in [] }
        }
        return parameters
    }

    /// One draw of the parameters (a parametric bootstrap of the counts they are estimated from:
    /// binomial renewals and entries per day, Poisson product choices, a Gamma posterior for the tail
    /// rate, a normal mean charge), or the point estimate when `generator` is nil.
    /// `renewals` and `conversions` say what the unseen renewals and the purchases past the last
    /// observed tenure day take: a far end, or (nil) the rates seen: renewals at the
    /// continuation (drawn from its counts), the past's uncompared renewals as they are, and
    /// purchases at the latest rate per member-day at risk.
    func parameters<Generator: RandomNumberGenerator>(
        renewals: UnseenBound?, conversions: UnseenBound?, usingPast: Bool = true, generator: inout Generator?
    ) -> ProjectionParameters {
        let observation = observation
        let days = observation.atRiskByDay.count
        var hazard = Array(repeating: 0.0, count: days)
        for day in 0..<min(tailStart, days) where observation.atRiskByDay[day] > 0 {
            let (conversions, atRisk) = (observation.conversionsByDay[day], observation.atRiskByDay[day])
            // Binomial, the count's own sampling distribution: a Poisson overstated its variance by
            // 1/(1 − h), a day-0 paywall's h is a tenth or more, and a newcomer's value rests on it.
            let drawn =
                generator == nil ? conversions : generator!.binomial(trials: atRisk, probability: Double(conversions) / Double(atRisk))
            hazard[day] = Double(drawn) / Double(atRisk)
        }
        var tailRate = tailExposure > 0 ? Double(tailConversions) / Double(tailExposure) : 0
        if generator != nil && tailExposure > 0 {
            tailRate = generator!.gamma(shape: Double(tailConversions) + 0.5) / Double(tailExposure)
        } else if conversions == .upper && tailExposure > 0 {
            // The upper year without draws: the latest rate's posterior mean (x + ½)/member-days,
            // so a window without an entry does not rule some out.
            tailRate = (Double(tailConversions) + 0.5) / Double(tailExposure)
        }
        let tailHazard = -expm1(-tailRate)
        let lastDay = observation.lastObservedDay
        for day in tailStart..<days { hazard[day] = tailHazard }
        if lastDay + 1 < days {
            // Past the last observed tenure day a rate that falls with tenure cannot be seen: its
            // far ends are none and the latest rate, which the rates seen carry on.
            let unseenHazard = conversions == .lower ? 0.0 : tailHazard
            for day in (lastDay + 1)..<days { hazard[day] = unseenHazard }
        }

        var shares = observation.firstPurchasesByProduct.map { Double($0) }
        if generator != nil {
            let drawn = shares.map { Double(generator!.poisson(mean: $0)) }
            if drawn.contains(where: { $0 > 0 }) { shares = drawn }
        }
        let shareTotal = shares.reduce(0, +)
        if shareTotal > 0 { shares = shares.map { $0 / shareTotal } }

        // A charge's value: kept with probability κ (binomial draw), the kept and the refunded
        // charges' mean values each normal around their own with their standard errors.
        var means: [Double] = []
        var secondMoments: [Double] = []
        var keptShares: [Double] = []
        var keptMeans: [Double] = []
        for values in chargeValues {
            guard values.count > 0 else {
                means.append(0)
                secondMoments.append(0)
                keptShares.append(1)
                keptMeans.append(0)
                continue
            }
            let kept =
                generator == nil
                ? values.kept : generator!.binomial(trials: values.count, probability: Double(values.kept) / Double(values.count))
            let keptShare = Double(kept) / Double(values.count)
            func drawn(count: Int, sum: Double, squares: Double) -> (mean: Double, second: Double) {
                guard count > 0 else { return (0, 0) }
                let mean = sum / Double(count)
                let variance = count > 1 ? max(0, (squares - Double(count) * mean * mean) / Double(count - 1)) : 0
                let shifted = generator == nil ? mean : mean + (variance / Double(count)).squareRoot() * generator!.standardNormal()
                return (shifted, variance + shifted * shifted)
            }
            let keptValue = drawn(count: values.kept, sum: values.keptNet, squares: values.keptNetSquared)
            let refundedValue = drawn(count: values.refunded, sum: values.refundedNet, squares: values.refundedNetSquared)
            means.append(keptShare * keptValue.mean + (1 - keptShare) * refundedValue.mean)
            secondMoments.append(keptShare * keptValue.second + (1 - keptShare) * refundedValue.second)
            keptShares.append(keptShare)
            keptMeans.append(keptShare * keptValue.mean)
        }

        var renewal: [[Double]] = []
        for (product, plan) in plans.enumerated() {
            guard let period = plan.periodDays else {
                renewal.append([])
                continue
            }
            let seen = observation.products[product].renewals
            // A product nobody holds or will buy is never read: drawing its rates seen would only
            // move the draws of the others.
            let bought = observation.firstPurchasesByProduct[product] > 0 || observation.products[product].hasRunningChains
            let slots = max(Int((observation.horizonDays / period).rounded(.up)) + 2, plan.neededThrough + 1, seen.atRisk.count)
            var rates = Array(repeating: 0.0, count: slots)
            func drawnRate(_ counts: RenewalCounts, _ index: Int) -> Double {
                let atRisk = counts.atRisk[index]
                let count = counts.renewed[index]
                let drawn = generator == nil ? count : generator!.binomial(trials: atRisk, probability: Double(count) / Double(atRisk))
                return Double(drawn) / Double(atRisk)
            }
            for index in 1..<slots where index <= plan.identifiedThrough {
                rates[index] = drawnRate(seen, index)
            }
            // The past's rates, scaled by this draw's members/past ratio on the overlap when the
            // check found them apart (docs/statistics.md#the-apps-past); at the rates seen, the
            // past the members cannot be compared with yet, as it is.
            var pastRates = [Double?](repeating: nil, count: slots)
            if let check = plan.pastCheck, plan.pastThrough > 0 {
                let pastCounts = past[product].renewals
                var scale = 1.0
                if check.differs {
                    var membersExpected = 0.0
                    var pastExpected = 0.0
                    for index in 1...check.overlap {
                        let due = Double(seen.atRisk[index])
                        membersExpected += due * rates[index]
                        pastExpected += due * drawnRate(pastCounts, index)
                    }
                    scale = pastExpected > 0 ? membersExpected / pastExpected : 1
                }
                for index in (plan.identifiedThrough + 1)...plan.pastThrough where index < slots {
                    pastRates[index] = usingPast ? min(1, drawnRate(pastCounts, index) * scale) : 0
                }
            } else if renewals == nil, plan.uncomparedPastThrough > 0, bought {
                for index in 1...plan.uncomparedPastThrough where index < slots {
                    pastRates[index] = usingPast ? drawnRate(past[product].renewals, index) : 0
                }
            }
            var continuation = plan.continuation
            if generator != nil, renewals == nil, bought, plan.continuationDue >= 1 {
                let due = Int(plan.continuationDue.rounded())
                continuation = min(
                    RenewalPlan.ceiling,
                    Double(generator!.binomial(trials: due, probability: plan.continuationRenewed / plan.continuationDue)) / Double(due))
            }
            for index in 1..<slots where index > plan.identifiedThrough {
                if let rate = pastRates[index] {
                    rates[index] = rate
                } else {
                    rates[index] =
                        switch renewals {
                        case .lower: 0
                        case .upper: RenewalPlan.ceiling
                        case nil: continuation
                        }
                }
            }
            renewal.append(rates)
        }
        // Whether an entry is a trial, and whether a trial converts: binomial draws of their
        // counts; before any trial has ended, its conversion runs from none to all.
        let entries = observation.trialEntries + observation.purchaseEntries
        var trialShare = entries > 0 ? Double(observation.trialEntries) / Double(entries) : 0
        if generator != nil && entries > 0 {
            trialShare = Double(generator!.binomial(trials: entries, probability: trialShare)) / Double(entries)
        }
        let endedTrials = observation.trialsConverted + observation.trialsLapsed
        var trialConversion: Double
        if endedTrials > 0 {
            trialConversion = Double(observation.trialsConverted) / Double(endedTrials)
            if generator != nil {
                trialConversion = Double(generator!.binomial(trials: endedTrials, probability: trialConversion)) / Double(endedTrials)
            }
        } else {
            trialConversion =
                switch conversions {
                case .lower: 0
                case .upper: 1
                case nil: 0.5
                }
        }
        var parameters = ProjectionParameters(
            hazard: hazard, productShare: shares, chargeMean: means, chargeSecondMoment: secondMoments, keptShare: keptShares,
            keptMean: keptMeans, renewal: renewal, trialShare: trialShare, trialConversion: trialConversion)
        (parameters.followOnHazard, parameters.followOnShare) = followOnParameters(conversions: conversions, generator: &generator)
        parameters.turnedOffRenewal = observation.products.indices.map { product in
            turnedOffRates(product, slots: renewal[product].count, usingPast: usingPast, generator: &generator)
        }
        return parameters
    }

    /// A product's turned-off chains' renewal rates, index by index (`ProjectionParameters.turnedOffRenewal`),
    /// drawn binomially from their counts: the members' and (`usingPast`) the past's chains due
    /// turned off, pooled (a chain turned off renews only when turned back on in time, which
    /// the past tells as the members do).
    private func turnedOffRates<Generator: RandomNumberGenerator>(
        _ product: Int, slots: Int, usingPast: Bool, generator: inout Generator?
    ) -> [Double] {
        var counts = observation.products[product].turnedOffRenewals
        if usingPast && past.indices.contains(product) { counts.add(past[product].turnedOffRenewals) }
        let due = counts.atRisk.reduce(0, +)
        guard due > 0, slots > 1 else { return [] }
        func drawn(_ renewed: Int, of due: Int) -> Double {
            let count = generator == nil ? renewed : generator!.binomial(trials: due, probability: Double(renewed) / Double(due))
            return Double(count) / Double(due)
        }
        let pooled = drawn(counts.renewed.reduce(0, +), of: due)
        return (0..<slots).map { index in
            counts.due(index) >= RenewalPlan.identifiedMinimum ? drawn(counts.renewals(index), of: counts.due(index)) : pooled
        }
    }

    /// Per product, the follow-on hazard by day since a one-time purchase and the next chain's
    /// product mix, drawn as the entries' are (binomial days, the tail's Gamma posterior, Poisson
    /// product counts); past the last day observed since a purchase, `conversions` says what they
    /// take: none (`.lower`) or the latest rate (the rates seen and `.upper`). Empty for a product
    /// nobody bought once or that renews.
    private func followOnParameters<Generator: RandomNumberGenerator>(conversions: UnseenBound?, generator: inout Generator?)
        -> (hazard: [[Double]], share: [[Double]])
    {
        var hazards: [[Double]] = []
        var shares: [[Double]] = []
        for (product, followOn) in observation.followOns.enumerated() {
            guard followOn.purchases > 0, followOn.startedByProduct.contains(where: { $0 > 0 }) else {
                hazards.append([])
                shares.append([])
                continue
            }
            let tail = followOnTails[product]
            let last = followOn.lastObservedDay
            var hazard = Array(repeating: 0.0, count: followOn.atRiskByDay.count)
            for day in 0..<min(tail.start, hazard.count) where followOn.atRiskByDay[day] > 0 {
                let (started, atRisk) = (followOn.startedByDay[day], followOn.atRiskByDay[day])
                let drawn =
                    generator == nil ? started : generator!.binomial(trials: atRisk, probability: Double(started) / Double(atRisk))
                hazard[day] = Double(drawn) / Double(atRisk)
            }
            var rate = tail.exposure > 0 ? Double(tail.started) / Double(tail.exposure) : 0
            if generator != nil && tail.exposure > 0 { rate = generator!.gamma(shape: Double(tail.started) + 0.5) / Double(tail.exposure) }
            let tailHazard = -expm1(-rate)
            for day in tail.start..<hazard.count where day <= last { hazard[day] = tailHazard }
            if last + 1 < hazard.count {
                for day in (last + 1)..<hazard.count { hazard[day] = conversions == .lower ? 0 : tailHazard }
            }
            var mix = followOn.startedByProduct.map { Double($0) }
            if generator != nil {
                let drawn = mix.map { Double(generator!.poisson(mean: $0)) }
                if drawn.contains(where: { $0 > 0 }) { mix = drawn }
            }
            let total = mix.reduce(0, +)
            hazards.append(hazard)
            shares.append(mix.map { $0 / total })
        }
        return (hazards, shares)
    }

    /// The expected value and variance of the group's revenue still to come before each member's
    /// horizon (summed over members), given the parameters: members are independent given them;
    /// and `newcomer`, the expected revenue_365 of a member entering the test now (tenure day 0,
    /// nothing observed): what shipping a group does per newcomer.
    func futureRevenue(_ parameters: ProjectionParameters) -> (mean: Double, variance: Double, newcomer: Double) {
        var mean = pendingRefundMean
        var variance = pendingRefundVariance

        // Tables only for the products a member can still be charged for (a running chain, or a
        // share of the conversions to come): the others are never read, and the tables are most
        // of a draw's cost.
        let followOnTargets = Set(parameters.followOnShare.flatMap { mix in mix.indices.filter { mix[$0] > 0 } })
        let tables = parameters.renewal.indices.map { product in
            !observation.products[product].hasRunningChains && !(parameters.productShare[product] > 0)
                && !followOnTargets.contains(product) ? ChainMoments() : ChainMoments(parameters, product: product)
        }
        for (product, turnedOff, key, count) in runningChains {
            let (first, second) = runningChainMoments(
                parameters, tables[product], product: product, nextIndex: key >> 16, charges: key & 0xFFFF, turnedOff: turnedOff)
            mean += Double(count) * first
            variance += Double(count) * (second - first * first)
        }

        let days = observation.atRiskByDay.count
        let (purchaseFirst, purchaseSecond, followOns) = purchaseMoments(
            parameters, tables: tables, renewalsDue: renewalsDueByDay, days: days, followOnTargets: followOnTargets)
        // The members' one-time purchases still waiting for a follow-on: a Bernoulli mixture each.
        for (product, key, count) in waitingFollowOns {
            let (first, second) = followOns.remaining(product: product, purchaseDay: key >> 16, daysSince: key & 0xFFFF)
            mean += Double(count) * first
            variance += Double(count) * (second - first * first)
        }
        // A trial ending on day d converts with probability p: its value is a Bernoulli(p) times a purchase's.
        let conversion = parameters.trialConversion
        for (day, count) in observation.pendingTrialsByDay.enumerated() where count > 0 {
            let first = conversion * purchaseFirst[day]
            mean += Double(count) * first
            variance += Double(count) * (conversion * purchaseSecond[day] - first * first)
        }

        var laterFirst = 0.0
        var laterSecond = 0.0
        for day in stride(from: days - 1, through: 0, by: -1) {
            let (valueFirst, valueSecond) = entryMoments(parameters, day: day, purchase: (purchaseFirst, purchaseSecond))
            let hazard = parameters.hazard[day]
            let waiting = observation.waitingByDay[day]
            if waiting.count > 0 {
                // A member observed for part f of this day enters in its rest with p = h·(1 − f);
                // on day 0 with p = h·(1 − F₀)/(1 − h·F₀), F₀ the share of day-0 entries made by
                // the member's minute (none made yet by it: the entries' own timing, as a pending
                // refund's). Σ p and Σ p² over the waiting members.
                var entering = hazard * waiting.remainingFraction
                var enteringSquared = hazard * hazard * waiting.remainingFractionSquared
                if day == 0 && !dayZeroWaiting.isEmpty {
                    (entering, enteringSquared) = (0, 0)
                    for (members, entered) in dayZeroWaiting where hazard * entered < 1 {
                        let chance = hazard * (1 - entered) / (1 - hazard * entered)
                        entering += members * chance
                        enteringSquared += members * chance * chance
                    }
                }
                let count = Double(waiting.count)
                let deltaFirst = valueFirst - laterFirst
                let deltaSecond = valueSecond - laterSecond
                let sumFirst = count * laterFirst + entering * deltaFirst
                let sumSecond = count * laterSecond + entering * deltaSecond
                let sumFirstSquared =
                    count * laterFirst * laterFirst + 2 * laterFirst * entering * deltaFirst + enteringSquared * deltaFirst * deltaFirst
                mean += sumFirst
                variance += sumSecond - sumFirstSquared
            }
            laterFirst = hazard * valueFirst + (1 - hazard) * laterFirst
            laterSecond = hazard * valueSecond + (1 - hazard) * laterSecond
        }
        // The recursion has reached tenure day 0: G(0), a member who has not entered yet.
        return (mean, max(0, variance), laterFirst)
    }

    /// Per tenure day d < `days`: the first and second moments of what a purchase on day d brings
    /// before tenure `days` (`renewalsDue[product][d]` renewals at most), the products mixed by
    /// their shares: the first charge, then the renewals due if it is kept, N + kept·W(1, m); for
    /// a one-time product, the chains bought after it (`FollowOnMoments`).
    private func purchaseMoments(
        _ parameters: ProjectionParameters, tables: [ChainMoments], renewalsDue: [[Int]], days: Int, followOnTargets: Set<Int>
    ) -> (first: [Double], second: [Double], followOns: FollowOnMoments) {
        var productFirst = [[Double]](repeating: [], count: parameters.productShare.count)
        var productSecond = productFirst
        for product in productFirst.indices
        where parameters.productShare[product] > 0 || followOnTargets.contains(product)
            || !(parameters.followOnHazard.indices.contains(product) ? parameters.followOnHazard[product].isEmpty : true)
        {
            productFirst[product] = Array(repeating: parameters.chargeMean[product], count: days)
            productSecond[product] = Array(repeating: parameters.chargeSecondMoment[product], count: days)
            guard plans[product].periodDays != nil else { continue }
            for day in 0..<days {
                let renewals = tables[product].moments(firstIndex: 1, charges: renewalsDue[product][day])
                productFirst[product][day] += parameters.keptShare[product] * renewals.0
                let (renewalsFirst, renewalsSecond) = renewals
                productSecond[product][day] +=
                    2 * parameters.keptMean[product] * renewalsFirst + parameters.keptShare[product] * renewalsSecond
            }
        }
        let followOns = FollowOnMoments(
            parameters, tails: followOnTails, observation: observation, days: days, first: &productFirst, second: &productSecond)
        var purchaseFirst = Array(repeating: 0.0, count: days)
        var purchaseSecond = Array(repeating: 0.0, count: days)
        for (product, share) in parameters.productShare.enumerated() where share > 0 {
            for day in 0..<days {
                purchaseFirst[day] += share * productFirst[product][day]
                purchaseSecond[day] += share * productSecond[product][day]
            }
        }
        return (purchaseFirst, purchaseSecond, followOns)
    }

    /// An entry on tenure day `day`: a purchase, or a trial that converts `trialDays` later (nothing
    /// when that is past `purchase`'s days), its first and second moments.
    @inline(__always)
    private func entryMoments(_ parameters: ProjectionParameters, day: Int, purchase: (first: [Double], second: [Double]))
        -> (Double, Double)
    {
        let trialEnd = day + observation.trialDays
        let conversion = parameters.trialConversion
        let trialFirst = trialEnd < purchase.first.count ? conversion * purchase.first[trialEnd] : 0
        let trialSecond = trialEnd < purchase.first.count ? conversion * purchase.second[trialEnd] : 0
        return (
            (1 - parameters.trialShare) * purchase.first[day] + parameters.trialShare * trialFirst,
            (1 - parameters.trialShare) * purchase.second[day] + parameters.trialShare * trialSecond
        )
    }

    /// A newcomer's revenue before tenure H (a member entering the test now, nothing observed), its
    /// first and second moments at `parameters`, for each H in `horizons` (whole days, 1 … the
    /// model's horizon): how revenue to date grows with tenure at those rates, which the days left
    /// of `arpu` plan on (docs/statistics.md, "Days left"). Each H is the year's recursion cut at H.
    func newcomerGrowth(_ parameters: ProjectionParameters, horizons: [Int]) -> [(first: Double, second: Double)] {
        let followOnTargets = Set(parameters.followOnShare.flatMap { mix in mix.indices.filter { mix[$0] > 0 } })
        let tables = parameters.renewal.indices.map { product in
            parameters.productShare[product] > 0 || followOnTargets.contains(product)
                ? ChainMoments(parameters, product: product) : ChainMoments()
        }
        return horizons.map { horizon in
            let days = min(horizon, observation.atRiskByDay.count)
            let renewalsDue = plans.map { plan in
                guard let period = plan.periodDays else { return [Int]() }
                return (0..<days).map { Self.renewalsDue(conversionDay: $0, periodDays: period, horizonDays: Double(days)) }
            }
            let (first, second, _) = purchaseMoments(
                parameters, tables: tables, renewalsDue: renewalsDue, days: days, followOnTargets: followOnTargets)
            var later = (first: 0.0, second: 0.0)
            for day in stride(from: days - 1, through: 0, by: -1) {
                let value = entryMoments(parameters, day: day, purchase: (first, second))
                let hazard = parameters.hazard[day]
                later = (hazard * value.0 + (1 - hazard) * later.first, hazard * value.1 + (1 - hazard) * later.second)
            }
            return later
        }
    }

    /// A running chain's charges still to come: its next renewal at the rate of its state tonight
    /// (turned off: `turnedOffRenewal`; on: the index's rate with the turned-off chains due there
    /// taken out, by the counts the rate comes from: the members' where they identify it, the
    /// past's where it takes the past's), the renewals after it as any chain's (W(k + 1, m − 1) of
    /// `table`). A product without turned-off chains due at the index reads the table as it is.
    private func runningChainMoments(
        _ parameters: ProjectionParameters, _ table: ChainMoments, product: Int, nextIndex: Int, charges: Int, turnedOff: Bool
    ) -> (Double, Double) {
        let offRates = parameters.turnedOffRenewal[product]
        let rates = parameters.renewal[product]
        let plan = plans[product]
        // The counts the index's rate comes from (nil: neither the members nor the past identify it).
        var mixed: (seen: RenewalCounts, off: RenewalCounts)?
        if nextIndex <= plan.identifiedThrough {
            mixed = (observation.products[product].renewals, observation.products[product].turnedOffRenewals)
        } else if nextIndex <= plan.pastThrough && past.indices.contains(product) {
            mixed = (past[product].renewals, past[product].turnedOffRenewals)
        }
        guard charges > 0, nextIndex < rates.count, !offRates.isEmpty, turnedOff || (mixed?.off.due(nextIndex) ?? 0) > 0
        else { return table.moments(firstIndex: nextIndex, charges: charges) }
        let offRate = offRates[nextIndex]
        var rate = offRate
        if !turnedOff, let mixed {
            // The index's rate is the mix of both states; the chains on are the rest of it.
            let (due, offDue) = (Double(mixed.seen.due(nextIndex)), Double(mixed.off.due(nextIndex)))
            rate = due > offDue ? min(1, max(0, (rates[nextIndex] * due - offRate * offDue) / (due - offDue))) : rates[nextIndex]
        }
        let later = table.moments(firstIndex: nextIndex + 1, charges: charges - 1)
        let first = rate * (parameters.chargeMean[product] + parameters.keptShare[product] * later.0)
        let second =
            rate
            * (parameters.chargeSecondMoment[product] + 2 * parameters.keptMean[product] * later.0 + parameters.keptShare[product] * later.1)
        return (first, second)
    }
}

/// The chains members start after a one-time purchase (contract §2.14, "Follow-on purchases"),
/// for each one-time product with a follow-on hazard: added to the value of a purchase of it on
/// each tenure day, and kept to value the members' purchases still waiting for one.
///
/// A purchase on tenure day d is followed on day k after it (hazard h(k), survival S(k)) by a
/// chain whose value is V(d + k) = Σ_q mix_q·P_q(d + k), P_q a purchase of q (its own follow-ons
/// included); F(d) = Σ_k S(k)·h(k)·V(d + k), and E[(N + F)²] = E N² + 2 E N·F + Σ_k S h V₂ (the
/// follow-on independent of the charge). A one-time follow-on on the purchase's own day counts
/// on the next (the two would refer to each other). Past the tail's start the hazard is constant
/// (λ to the last day observed since a purchase, λᵤ after it), so the sum beyond is
/// Q_λ(x) = λ·V(x) + (1 − λ)·Q_λ(x + 1), one pass over the days: O(days × tail start) a draw,
/// not days².
struct FollowOnMoments {
    /// A class owning its rows as buffers: they are written in place day after day, once per day
    /// of every draw, and an array read through a reference is retained and released at each
    /// read (that was a fifth of a night's projection). Freed with the state.
    private final class Product {
        let hazard: UnsafeMutableBufferPointer<Double>
        /// The products bought after it with a share above 0, and their shares, in product order.
        let mixNext: UnsafeMutableBufferPointer<Int>
        let mixShare: UnsafeMutableBufferPointer<Double>
        let tailStart: Int
        let lastObserved: Int
        let tailRate: Double
        let unseenRate: Double
        /// Per tenure day x (days + 1 slots, the last 0): V, Q_λ and Q_λᵤ, first and second moments.
        let value: (UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<Double>)
        let tail: (UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<Double>)
        let unseen: (UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<Double>)
        /// F(d) from day 0 since the purchase, first and second moments.
        let followOn: (UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<Double>)
        /// From day 0 since a purchase, for k < `directThrough`: S(k)·h(k), and S(k) (k ≤
        /// `directThrough`). The same for every purchase day, so made once a draw instead of
        /// once a day (the products in the order the sum had them: the same bytes).
        let weights: UnsafeMutableBufferPointer<Double>
        let survivals: UnsafeMutableBufferPointer<Double>
        /// (1 − λ)ⁿ for the last n asked (`remaining`): n is the same on most days, and `pow`
        /// was a tenth of the follow-ons' cost.
        var keptDays = -1
        var kept = 1.0

        init(hazard: [Double], mix: [Double], tailStart: Int, lastObserved: Int, tailRate: Double, unseenRate: Double, slots: Int) {
            func buffer(_ values: [Double]) -> UnsafeMutableBufferPointer<Double> {
                let buffer = UnsafeMutableBufferPointer<Double>.allocate(capacity: values.count)
                _ = buffer.initialize(from: values)
                return buffer
            }
            let zeros = [Double](repeating: 0, count: slots)
            self.hazard = buffer(hazard)
            let next = mix.indices.filter { mix[$0] > 0 }
            mixNext = UnsafeMutableBufferPointer<Int>.allocate(capacity: next.count)
            _ = mixNext.initialize(from: next)
            mixShare = buffer(next.map { mix[$0] })
            (self.tailStart, self.lastObserved, self.tailRate, self.unseenRate) = (tailStart, lastObserved, tailRate, unseenRate)
            (value, tail) = ((buffer(zeros), buffer(zeros)), (buffer(zeros), buffer(zeros)))
            (unseen, followOn) = ((buffer(zeros), buffer(zeros)), (buffer(zeros), buffer(zeros)))
            let through = min(max(tailStart, 1), hazard.count)
            var weights = [Double](repeating: 0, count: through)
            var survivals = [Double](repeating: 1, count: through + 1)
            for since in 0..<through {
                weights[since] = survivals[since] * hazard[since]
                survivals[since + 1] = survivals[since] * (1 - hazard[since])
            }
            (self.weights, self.survivals) = (buffer(weights), buffer(survivals))
        }

        deinit {
            for buffer in [
                hazard, mixShare, weights, survivals, value.0, value.1, tail.0, tail.1, unseen.0, unseen.1, followOn.0, followOn.1,
            ] {
                buffer.deallocate()
            }
            mixNext.deallocate()
        }

        /// The first day since a purchase summed through Q.
        var directThrough: Int { max(tailStart, 1) }
    }

    /// By product: nil for a product no chain follows.
    private var products: [Product?] = []
    private let days: Int

    init(
        _ parameters: ProjectionParameters, tails: [(start: Int, started: Int, exposure: Int)], observation: GroupObservation,
        days: Int, first: inout [[Double]], second: inout [[Double]]
    ) {
        self.days = days
        let oneTime = parameters.followOnHazard.indices.filter { !parameters.followOnHazard[$0].isEmpty }
        guard !oneTime.isEmpty else { return }
        let slots = days + 1
        // Parallel to `oneTime`.
        let states = oneTime.map { product in
            let hazard = parameters.followOnHazard[product]
            let last = observation.followOns[product].lastObservedDay
            let start = tails[product].start
            return Product(
                hazard: hazard, mix: parameters.followOnShare[product], tailStart: start, lastObserved: last,
                tailRate: start <= last && start < hazard.count ? hazard[start] : 0,
                unseenRate: last + 1 < hazard.count ? hazard[max(0, last + 1)] : 0, slots: slots)
        }
        let isOneTime = parameters.renewal.map(\.isEmpty)
        // The purchases' values by product and day, flat (row `product`, `days` wide; a product
        // without a row reads 0): the rows of `first` and `second` read through one buffer each.
        let hasRow = first.map { !$0.isEmpty }
        var flatFirst = [Double](repeating: 0, count: first.count * days)
        var flatSecond = flatFirst
        for product in first.indices where hasRow[product] {
            flatFirst.replaceSubrange(product * days..<(product + 1) * days, with: first[product].prefix(days))
            flatSecond.replaceSubrange(product * days..<(product + 1) * days, with: second[product].prefix(days))
        }
        let days = days
        // Read before the loop: an array read inside it, through `parameters`, was retained at each read.
        let chargeMeans = oneTime.map { parameters.chargeMean[$0] }
        flatFirst.withUnsafeMutableBufferPointer { first in
            flatSecond.withUnsafeMutableBufferPointer { second in
                func purchase(_ product: Int, _ day: Int) -> (Double, Double) {
                    guard day < days, hasRow[product] else { return (0, 0) }
                    return (first[product * days + day], second[product * days + day])
                }
                for day in stride(from: days - 1, through: 0, by: -1) {
                    for (index, product) in oneTime.enumerated() {
                        let state = states[index]
                        // Day 0 since the purchase: a one-time follow-on counts the next day.
                        var sameDay = (0.0, 0.0)
                        for (entry, next) in state.mixNext.enumerated() {
                            let share = state.mixShare[entry]
                            let value = purchase(next, isOneTime[next] ? day + 1 : day)
                            sameDay = (sameDay.0 + share * value.0, sameDay.1 + share * value.1)
                        }
                        let moments = Self.remaining(state, from: 0, day: day, days: days, sameDay: sameDay)
                        state.followOn.0[day] = moments.0
                        state.followOn.1[day] = moments.1
                        let chargeMean = chargeMeans[index]
                        first[product * days + day] += moments.0
                        second[product * days + day] += 2 * chargeMean * moments.0 + moments.1
                    }
                    // Every purchase's value on this day is known: V, then Q, for the earlier days.
                    for state in states {
                        var value = (0.0, 0.0)
                        for (entry, next) in state.mixNext.enumerated() {
                            let share = state.mixShare[entry]
                            let moments = purchase(next, day)
                            value = (value.0 + share * moments.0, value.1 + share * moments.1)
                        }
                        Self.append(value, day: day, to: state)
                    }
                }
            }
        }
        for product in oneTime {
            first[product].replaceSubrange(0..<days, with: flatFirst[product * days..<(product + 1) * days])
            second[product].replaceSubrange(0..<days, with: flatSecond[product * days..<(product + 1) * days])
        }
        products = Array(repeating: nil, count: parameters.followOnHazard.count)
        for (index, product) in oneTime.enumerated() { products[product] = states[index] }
    }

    /// V(day) = `value`, and Q_λ(day), Q_λᵤ(day) from it and the day after.
    private static func append(_ value: (Double, Double), day: Int, to state: Product) {
        state.value.0[day] = value.0
        state.value.1[day] = value.1
        let (tail, unseen) = (state.tailRate, state.unseenRate)
        state.tail.0[day] = tail * value.0 + (1 - tail) * state.tail.0[day + 1]
        state.tail.1[day] = tail * value.1 + (1 - tail) * state.tail.1[day + 1]
        state.unseen.0[day] = unseen * value.0 + (1 - unseen) * state.unseen.0[day + 1]
        state.unseen.1[day] = unseen * value.1 + (1 - unseen) * state.unseen.1[day + 1]
    }

    /// The follow-on still to come of a purchase of `product` on tenure day `purchaseDay` that has
    /// had none through `daysSince` whole days: its first and second moments.
    func remaining(product: Int, purchaseDay: Int, daysSince: Int) -> (Double, Double) {
        guard products.indices.contains(product), let state = products[product], purchaseDay < days else { return (0, 0) }
        guard daysSince > 0 else { return (state.followOn.0[purchaseDay], state.followOn.1[purchaseDay]) }
        return Self.remaining(state, from: daysSince, day: purchaseDay, days: days, sameDay: (0, 0))
    }

    /// Σ_{k ≥ from} S(k)/S(from)·h(k)·V(day + k): day by day to the tail's start, then through Q.
    private static func remaining(_ state: Product, from: Int, day: Int, days: Int, sameDay: (Double, Double)) -> (Double, Double) {
        var result = (0.0, 0.0)
        var survival = 1.0
        var since = from
        let (hazards, values) = (state.hazard, state.value)
        let directThrough = state.directThrough
        if from == 0 {
            // Every purchase day's sum: S(k)·h(k) made once (`weights`); the loop below goes on
            // where they end.
            let weights = state.weights
            let through = min(directThrough, days - day, weights.count)
            if through > 0 {
                result = (0 + sameDay.0 * weights[0], 0 + sameDay.1 * weights[0])
            }
            for since in stride(from: 1, to: through, by: 1) {
                result.0 += weights[since] * values.0[day + since]
                result.1 += weights[since] * values.1[day + since]
            }
            since = through
            survival = state.survivals[since]
        }
        while since < directThrough && day + since < days {
            let hazard = hazards[since]
            let value = since == 0 ? sameDay : (values.0[day + since], values.1[day + since])
            result = (result.0 + survival * hazard * value.0, result.1 + survival * hazard * value.1)
            survival *= 1 - hazard
            since += 1
        }
        let start = day + since
        guard start < days else { return result }
        // The tail rate through the last day observed since a purchase, the unseen rate after it.
        let span = max(0, state.lastObserved + 1 - since)
        let end = min(start + span, days)
        if end - start != state.keptDays {
            (state.keptDays, state.kept) = (end - start, pow(1 - state.tailRate, Double(end - start)))
        }
        let kept = state.kept
        let (tail, unseen) = (state.tail, state.unseen)
        func slot(_ values: UnsafeMutableBufferPointer<Double>, _ index: Int) -> Double { index < values.count ? values[index] : 0 }
        let tail0 = slot(tail.0, start) - kept * slot(tail.0, end) + kept * slot(unseen.0, end)
        let tail1 = slot(tail.1, start) - kept * slot(tail.1, end) + kept * slot(unseen.1, end)
        return (result.0 + survival * tail0, result.1 + survival * tail1)
    }
}

/// The first two moments of a running chain's charges still to come, for every (next renewal
/// index k, charges due m): W(k, m) = I_k·(N + K·W(k + 1, m − 1)), I_k ~ Bernoulli(r(k)), N a
/// charge's net value and K = 1 when it is kept (a refund ends the chain), so
/// E W = r(μ + κ E W′), E W² = r(E N² + 2 E[NK] E W′ + κ E W′²), κ = P(K = 1). One table per
/// product and draw, slots² entries (55² for a weekly plan).
struct ChainMoments {
    private let slots: Int
    private var first: [Double]
    private var second: [Double]

    /// No table: for a product nobody can be charged for.
    init() {
        slots = 0
        first = []
        second = []
    }

    init(_ parameters: ProjectionParameters, product: Int) {
        let rates = parameters.renewal[product]
        slots = rates.count
        first = Array(repeating: 0, count: slots * (slots + 1))
        second = first
        guard slots > 1 else { return }
        let chargeMean = parameters.chargeMean[product]
        let chargeSecond = parameters.chargeSecondMoment[product]
        let keptShare = parameters.keptShare[product]
        let keptMean = parameters.keptMean[product]
        let slots = slots
        // Through buffers: this runs slots² times for every product of every draw, and the
        // arrays' checks were most of its cost.
        rates.withUnsafeBufferPointer { rates in
            first.withUnsafeMutableBufferPointer { first in
                second.withUnsafeMutableBufferPointer { second in
                    for charges in 1...slots {
                        // index + charges − 1 < slots, so the later state is in the table (or empty).
                        for index in 1..<(slots - charges + 1) {
                            let rate = rates[index]
                            let later = (index + 1) * (slots + 1) + charges - 1
                            let laterFirst = charges == 1 ? 0 : first[later]
                            let laterSecond = charges == 1 ? 0 : second[later]
                            first[index * (slots + 1) + charges] = rate * (chargeMean + keptShare * laterFirst)
                            second[index * (slots + 1) + charges] =
                                rate * (chargeSecond + 2 * keptMean * laterFirst + keptShare * laterSecond)
                        }
                    }
                }
            }
        }
    }

    /// E W and E W² of the chain whose next renewal is `firstIndex` with `charges` still due.
    func moments(firstIndex: Int, charges: Int) -> (Double, Double) {
        guard charges > 0 else { return (0, 0) }
        let slot = firstIndex * (slots + 1) + charges
        return (first[slot], second[slot])
    }
}

/// The generator type of the point estimate: `parameters(renewals:conversions:generator:)` draws nothing when
/// handed nil of it.
struct PointEstimate: RandomNumberGenerator {
    mutating func next() -> UInt64 { 0 }
}
