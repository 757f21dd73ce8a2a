import OfferLabVocabulary

/// What one group's members show at `as_of`, reduced to the counts the model is fitted on and
/// the states its members are in. One pass over the events; everything after it works on these
/// counts, whose size does not grow with the number of members: no field holds a value per
/// member, so the counts of two sets of members add up to those of both.
public struct GroupObservation: Sendable, Equatable {
    /// The group's name.
    public internal(set) var name = ""
    /// What it was observed at: `as_of` (µs), the horizon in days and the refund lag
    /// (`ProjectionConfiguration`'s).
    public internal(set) var asOf: Int64 = 0
    public internal(set) var horizonDays = 365.0
    public internal(set) var refundLagDays = 14.0
    /// Members.
    public internal(set) var users = 0
    /// Σ of the members' revenue_365 so far (charges and refunds before the horizon).
    var observedRevenue = 0.0
    /// Σ min(as_of − assigned_at, the horizon), in days.
    var observedDays = 0.0
    /// Members who have made at least one counted purchase.
    var payers = 0

    /// `atRiskByDay[d]`: members not converted before tenure day d who were observed through all of day d.
    var atRiskByDay: [Int]
    /// `conversionsByDay[d]`: those of them whose first purchase fell on day d.
    var conversionsByDay: [Int]
    /// First purchases by product (the product mix of a conversion).
    var firstPurchasesByProduct: [Int]
    /// Members not converted yet, by their current tenure day d (floor of the tenure in days):
    /// count, Σ (1 − f) and Σ (1 − f)², f the part of day d already observed.
    var waitingByDay: [WaitingMembers]
    /// Day 0 by the minute since assignment: the entries of members observed through all of day 0
    /// (when in the day they enter), and the members still in their first day without an entry
    /// (how far into it they are). A paywall is bought minutes after it is shown, not evenly over
    /// the day, so the rest of a member's first day holds what the entries' own timing says.
    var dayZeroEntriesByMinute: [Int]
    var dayZeroWaitingByMinute: [Int]

    /// Per product: its renewals and charges.
    var products: [ProductObservation]
    /// Per product: the chains members start after buying it, for a one-time product (a pass);
    /// empty counts for a renewing one.
    var followOns: [FollowOnObservation]

    /// Entries (a member's first trial start or purchase) that were a trial, and that were a purchase.
    var trialEntries = 0
    var purchaseEntries = 0
    /// Trials that ended: converted (a purchase after the trial start) or lapsed (none by the
    /// trial's end and a day of grace).
    var trialsConverted = 0
    /// Trials' lengths (`expires_at` − start, when after it), and the days from a trial's start to
    /// its conversion, by whole days (rounded): their medians are the trial's length.
    var trialLengthsByDays: [Int: Int] = [:]
    var trialConversionDelaysByDays: [Int: Int] = [:]
    /// Members in a trial at `as_of` whose record gives its end, by the tenure day it ends (they
    /// convert then or not); `openTrialsWithoutEnd` holds the others, ended by `trialDays`.
    var pendingTrialsWithEndByDay: [Int]
    /// Trials not converted whose end (and a day of grace) the record gives before `as_of`.
    var trialsLapsedWithEnd = 0
    var openTrialsWithoutEnd: [OpenTrialDays: Int] = [:]
    /// Resolved from the counts above (`resolveTrials`), read by every draw: a trial's length in
    /// whole days (the median of the trials' lengths, else of the conversions' delays, else 7),
    /// the members in a trial at `as_of` by the tenure day it ends (they convert then or not), and
    /// the trials that lapsed (no purchase by their end and a day of grace).
    private(set) var trialDays = 7
    private(set) var pendingTrialsByDay: [Int] = []
    private(set) var trialsLapsed = 0

    init(horizonDays: Int, productCount: Int) {
        atRiskByDay = Array(repeating: 0, count: horizonDays)
        conversionsByDay = Array(repeating: 0, count: horizonDays)
        waitingByDay = Array(repeating: WaitingMembers(), count: horizonDays)
        dayZeroEntriesByMinute = Array(repeating: 0, count: Self.minutesPerDay)
        dayZeroWaitingByMinute = Array(repeating: 0, count: Self.minutesPerDay)
        firstPurchasesByProduct = Array(repeating: 0, count: productCount)
        products = Array(repeating: ProductObservation(), count: productCount)
        followOns = Array(repeating: FollowOnObservation(horizonDays: 0, productCount: 0), count: productCount)
        pendingTrialsWithEndByDay = Array(repeating: 0, count: horizonDays)
    }

    static let minutesPerDay = 1440

    /// The order a member's events are read in: by time, and at the same time a charge before a
    /// refund or a cancel (a cancel at its renewal's time turns off the chain after that renewal),
    /// as the past's chains are read (`PastChain.read`).
    static func precedes(_ first: ProjectionEvent, _ second: ProjectionEvent) -> Bool {
        (first.time, first.kind.rawValue) < (second.time, second.kind.rawValue)
    }

    /// The minute of tenure day 0 that `days` (a tenure in days, from 0) falls in.
    static func dayZeroMinute(_ days: Double) -> Int { min(max(Int(days * Double(minutesPerDay)), 0), minutesPerDay - 1) }

    /// The last tenure day with at least one member at risk (−1: no member has a full day yet).
    var lastObservedDay: Int {
        atRiskByDay.lastIndex { $0 > 0 } ?? -1
    }

    /// Sets `trialDays`, `pendingTrialsByDay` and `trialsLapsed` from the trials' counts: a
    /// trial whose record gives no end ends `trialDays` after its start.
    mutating func resolveTrials() {
        let lengths = trialLengthsByDays.isEmpty ? trialConversionDelaysByDays : trialLengthsByDays
        let count = lengths.values.reduce(0, +)
        trialDays = 7
        // The element at count / 2 in order (rounding keeps the order: the median's rounding).
        var before = 0
        for (days, trials) in lengths.sorted(by: { $0.key < $1.key }) where count > 0 {
            before += trials
            if before > count / 2 {
                trialDays = max(0, days)
                break
            }
        }
        pendingTrialsByDay = pendingTrialsWithEndByDay
        trialsLapsed = trialsLapsedWithEnd
        for (trial, trials) in openTrialsWithoutEnd {
            guard trial.isOpen(length: trialDays) else {
                trialsLapsed += trials
                continue
            }
            let day = max(trial.startDay + trialDays, trial.tenureDay)
            if day < pendingTrialsByDay.count { pendingTrialsByDay[day] += trials }
        }
    }
}

/// A trial not converted whose record gives no end, in whole days: the tenure day of its start,
/// the member's tenure day at `as_of`, and the whole days from its start to `as_of`.
struct OpenTrialDays: Sendable, Hashable {
    var startDay: Int
    var tenureDay: Int
    var daysSinceStart: Int

    /// Whether the trial is still open at `as_of` if it lasts `length` whole days: its end and a
    /// day of grace (start + length + 1) after `as_of`, that is length + 1 > the days since its
    /// start, which for whole `length` is length ≥ their whole days.
    func isOpen(length: Int) -> Bool { length >= daysSinceStart }
}

/// The chains members start after buying a one-time product (contract §2.14, "Follow-on
/// purchases": a pass buyer who subscribes after it, or buys another pass), by the day since the
/// purchase: a Kaplan–Meier hazard like the entries', read as the entries are.
struct FollowOnObservation: Sendable, Equatable {
    /// `atRiskByDay[k]`: purchases of the product after which the member started no chain before
    /// day k since it and was observed through all of day k (within its horizon).
    var atRiskByDay: [Int]
    /// `startedByDay[k]`: those whose next chain started on day k.
    var startedByDay: [Int]
    /// The products of the chains started next (the follow-on's product mix).
    var startedByProduct: [Int]
    /// Purchases still waiting for a follow-on at `as_of`, within their member's horizon: count by
    /// (the member's tenure day of the purchase d, the whole days since it observed c), key
    /// d << 16 | c.
    var waiting: [Int: Int] = [:]

    init(horizonDays: Int, productCount: Int) {
        atRiskByDay = Array(repeating: 0, count: horizonDays)
        startedByDay = Array(repeating: 0, count: horizonDays)
        startedByProduct = Array(repeating: 0, count: productCount)
    }

    /// The last day since a purchase with a purchase at risk (−1: none has a full day yet).
    var lastObservedDay: Int { atRiskByDay.lastIndex { $0 > 0 } ?? -1 }
    var purchases: Int { atRiskByDay.first ?? 0 }
}

/// Members waiting on one tenure day: the sums the expected value and variance need.
struct WaitingMembers: Sendable, Equatable {
    var count = 0
    var remainingFraction = 0.0
    var remainingFractionSquared = 0.0
}

/// Renewal counts, renewal by renewal: the one rule by which both the members' chains
/// (`GroupObservation`) and the app's past (`ProductPastBuilder`) are counted.
public struct RenewalCounts: Sendable, Equatable {
    /// `atRisk[k]`: chains whose k-th renewal was due before `as_of` (k ≥ 1; slot 0 unused).
    public internal(set) var atRisk: [Int] = [0]
    /// `renewed[k]`: those of them that renewed.
    public internal(set) var renewed: [Int] = [0]

    public init() {}

    mutating func countRenewal(index: Int, renewed didRenew: Bool, times count: Int = 1) {
        while atRisk.count <= index {
            atRisk.append(0)
            renewed.append(0)
        }
        atRisk[index] += count
        if didRenew { renewed[index] += count }
    }

    /// Counts one chain of `chargeCount` charges: renewals 1 … chargeCount − 1 were due and
    /// happened (the k-th charge after the first is renewal k); renewal `chargeCount` is at risk
    /// when the last charge was kept (a refund ends the chain) and its due time (`expires_at`,
    /// else the charge's time + the period) is at or before `asOf`. A due time at or after `end`
    /// (a member's horizon) is not counted. Returns whether the next renewal is still to come
    /// (kept, due after `asOf` and before `end`). `count`: as many chains alike, counted at once.
    mutating func countChain(chargeCount: Int, lastChargeKept: Bool, due: Int64, asOf: Int64, end: Int64, times count: Int = 1)
        -> Bool
    {
        for index in 1..<max(chargeCount, 1) {
            countRenewal(index: index, renewed: true, times: count)
        }
        guard lastChargeKept, due < end else { return false }
        if due <= asOf {
            countRenewal(index: chargeCount, renewed: false, times: count)
            return false
        }
        return true
    }

    /// Counts the renewals of a chain that fell due turned off (`turnedOffAfterCharge`: bit
    /// k − 1 set when its renewal was turned off after its k-th charge), by `countChain`'s rule:
    /// those before its last charge renewed (turned back on in time), its last one lapsed when due
    /// before `asOf` and `end`. Returns whether it is turned off tonight. `count`: as many chains
    /// alike, counted at once.
    mutating func countTurnedOff(
        _ turnedOffAfterCharge: UInt64, chargeCount: Int, lastChargeKept: Bool, due: Int64, asOf: Int64, end: Int64,
        times count: Int = 1
    ) -> Bool {
        let turnedOffNow = chargeCount > 0 && chargeCount <= 64 && turnedOffAfterCharge & (1 << UInt64(chargeCount - 1)) != 0
        guard turnedOffAfterCharge != 0 else { return false }
        for index in 1..<max(chargeCount, 1) where index <= 64 && turnedOffAfterCharge & (1 << UInt64(index - 1)) != 0 {
            countRenewal(index: index, renewed: true, times: count)
        }
        if turnedOffNow && lastChargeKept && due < end && due <= asOf { countRenewal(index: chargeCount, renewed: false, times: count) }
        return turnedOffNow
    }

    /// Adds `other`'s counts, renewal by renewal.
    mutating func add(_ other: RenewalCounts) {
        for index in other.atRisk.indices.dropFirst() {
            while atRisk.count <= index {
                atRisk.append(0)
                renewed.append(0)
            }
            atRisk[index] += other.atRisk[index]
            renewed[index] += other.renewed[index]
        }
    }

    /// Chains due for renewal k (0 beyond those counted).
    func due(_ index: Int) -> Int { atRisk.indices.contains(index) ? atRisk[index] : 0 }
    /// Renewed at renewal k (0 beyond those counted).
    func renewals(_ index: Int) -> Int { renewed.indices.contains(index) ? renewed[index] : 0 }
    /// Renewed over due at renewal k (0 when none was due).
    func rate(_ index: Int) -> Double { due(index) > 0 ? Double(renewals(index)) / Double(due(index)) : 0 }

    /// The last k of 1, 2, … with at least `minimum` chains due at every renewal up to it (0: none).
    func identifiedThrough(minimum: Int) -> Int {
        var through = 0
        while through + 1 < atRisk.count && atRisk[through + 1] >= minimum { through += 1 }
        return through
    }
}

/// One product's renewal counts, charge values and pending chains.
struct ProductObservation: Sendable, Equatable {
    /// Its chains' renewals.
    var renewals = RenewalCounts()
    /// Of them, the renewals whose chain's renewal was turned off (a `cancel` after the charge
    /// before it, contract §2.14 "What a member's state says"); one turned back on in time renewed.
    var turnedOffRenewals = RenewalCounts()
    /// Chains still running at `as_of` (next charge not yet due): count by (next renewal index k,
    /// charges still due before the member's horizon m), key k << 16 | m; those whose renewal is
    /// turned off tonight apart.
    var pendingChains: [Int: Int] = [:]
    var pendingTurnedOff: [Int: Int] = [:]

    /// Whether a chain of the product is still running at `as_of`, in either state.
    var hasRunningChains: Bool { !pendingChains.isEmpty || !pendingTurnedOff.isEmpty }

    /// Mature charges (at least the refund lag old): their net values, kept and refunded apart.
    var mature = ChargeValues()
    /// Σ refunded share of the price over mature charges refunded.
    var matureRefundedShare = 0.0
    /// `refundsByDelayDay[k]`: mature charges first refunded k − ½ to k + ½ days after the charge
    /// (k = ⌈delay − ½⌉, the first bin holding from 0): the delays' distribution is read at
    /// k + ½ days only (`FittedGroup`), where these counts give it exactly.
    var refundsByDelayDay: [Int] = []
    /// Every charge (the fallback when none is mature yet).
    var all = ChargeValues()
    /// Charges younger than the lag not refunded yet, by age in whole days: Σ price, Σ price².
    var youngPrice: [Double] = []
    var youngPriceSquared: [Double] = []

}

/// Net values (price − refunds) of charges, those kept and those refunded apart: a refund ends
/// its chain, so the model needs to know which.
struct ChargeValues: Sendable, Equatable {
    var kept = 0
    var keptNet = 0.0
    var keptNetSquared = 0.0
    var refunded = 0
    var refundedNet = 0.0
    var refundedNetSquared = 0.0

    var count: Int { kept + refunded }

    mutating func add(net: Double, refunded isRefunded: Bool) {
        if isRefunded {
            refunded += 1
            refundedNet += net
            refundedNetSquared += net * net
        } else {
            kept += 1
            keptNet += net
            keptNetSquared += net * net
        }
    }
}

/// A charge of the member being read.
private struct Charge {
    var time: Int64
    var price: Double
    /// Its chain, an index into the member's chains.
    var chain: Int
    var refunded = 0.0
    var firstRefundTime: Int64?
}

/// A chain of the member being read: its product and how many of the member's charges are its.
/// The charges name their chain rather than the chain listing them: an array per chain was an
/// allocation for every paying member.
private struct Chain {
    var key: Int64
    var product: Int
    /// Its first charge's time: the member's chains are in this order.
    var firstChargeTime: Int64
    var chargeCount = 1
    /// Bit j: a `cancel` came after charge j (0: the purchase) and before the next, so renewal
    /// j + 1 fell due turned off (renewals past 64 are taken as on).
    var turnedOffAfterCharge: UInt64 = 0
    /// Its latest charge, an index into the member's charges.
    var lastCharge: Int
    var lastExpiresAt: Int64?
}

extension GroupObservation {
    /// Reads a group's members. Events at or after `as_of` are ignored (the caller should not
    /// pass them); a product index outside `products` is a caller's bug and traps.
    init(_ group: ProjectionGroupInput, products productList: [ProjectionProduct], configuration: ProjectionConfiguration) {
        let horizon = configuration.horizonDays
        let horizonDayCount = Int(horizon.rounded(.up))
        self.init(horizonDays: horizonDayCount, productCount: productList.count)
        name = group.name
        horizonDays = horizon
        asOf = configuration.asOf
        refundLagDays = configuration.refundLagDays
        let lagDays = configuration.refundLagDays
        let youngSlots = Int(lagDays.rounded(.up)) + 1
        for index in products.indices {
            products[index].youngPrice = Array(repeating: 0, count: youngSlots)
            products[index].youngPriceSquared = Array(repeating: 0, count: youngSlots)
        }
        var exitsByDay = Array(repeating: 0, count: horizonDayCount + 1)
        var followOnExits = productList.map { $0.renewalPeriodDays == nil ? Array(repeating: 0, count: horizonDayCount + 1) : [] }
        for (index, product) in productList.enumerated() where product.renewalPeriodDays == nil {
            followOns[index] = FollowOnObservation(horizonDays: horizonDayCount, productCount: productList.count)
        }
        var sortedEvents: [ProjectionEvent] = []
        var charges: [Charge] = []
        var chains: [Chain] = []
        // Run after run of members (`ProjectionGroupInput.runs`), in member order.
        for run in group.runs {
            var start = 0
            for member in run.assignedAt.indices {
                let assignedAt = run.assignedAt[member]
                let end = run.eventEnds[member]
                // Most members' events come in order: read in place, copied only to be sorted.
                var memberEvents = run.events[start..<end]
                start = end
                if memberEvents.indices.dropFirst().contains(where: { Self.precedes(memberEvents[$0], memberEvents[$0 - 1]) }) {
                    sortedEvents.removeAll(keepingCapacity: true)
                    // Stable: events alike in time and kind keep the order they came in.
                    sortedEvents.append(
                        contentsOf: memberEvents.enumerated().sorted {
                            Self.precedes($0.element, $1.element) || (!Self.precedes($1.element, $0.element) && $0.offset < $1.offset)
                        }.map(\.element))
                    memberEvents = sortedEvents[...]
                }
                // Most members have none: emptying an empty array is not free.
                if !charges.isEmpty {
                    charges.removeAll(keepingCapacity: true)
                    chains.removeAll(keepingCapacity: true)
                }

                users += 1
                let tenureDays = min(Double(asOf - assignedAt) / Microseconds.perDayAsDouble, horizon)
                observedDays += min(Double(asOf - assignedAt) / Microseconds.perDayAsDouble, horizon)
                let fullDays = max(Int(tenureDays.rounded(.down)), 0)
                let chargeEnd = assignedAt + Int64(horizon * Microseconds.perDayAsDouble)
                var firstPurchaseDay: Int?
                var firstPurchaseTime: Int64?
                var trialStart: ProjectionEvent?
                var revenue = 0.0
                for event in memberEvents where event.time < asOf && event.time >= assignedAt {
                    let key = event.chain ?? -1 - Int64(event.product)
                    switch event.kind {
                    case .trialStart:
                        if trialStart == nil && firstPurchaseDay == nil { trialStart = event }
                    case .purchase, .renewal:
                        guard event.time < chargeEnd else { continue }
                        revenue += event.amount
                        if event.kind == .purchase && firstPurchaseDay == nil {
                            let day = Int(Double(event.time - assignedAt) / Microseconds.perDayAsDouble)
                            firstPurchaseDay = day
                            firstPurchaseTime = event.time
                            payers += 1
                            firstPurchasesByProduct[event.product] += 1
                            if let trial = trialStart {
                                trialsConverted += 1
                                trialConversionDelaysByDays[
                                    Int((Double(event.time - trial.time) / Microseconds.perDayAsDouble).rounded()), default: 0] += 1
                            }
                        }
                        if let chain = chains.firstIndex(where: { $0.key == key }) {
                            charges.append(Charge(time: event.time, price: event.amount, chain: chain))
                            chains[chain].chargeCount += 1
                            chains[chain].lastCharge = charges.count - 1
                            chains[chain].lastExpiresAt = event.expiresAt
                        } else {
                            charges.append(Charge(time: event.time, price: event.amount, chain: chains.count))
                            chains.append(
                                Chain(
                                    key: key, product: event.product, firstChargeTime: event.time, lastCharge: charges.count - 1,
                                    lastExpiresAt: event.expiresAt))
                        }
                    case .cancel:
                        // A cancel without a chain or before its first charge changes nothing: of
                        // the window's, a run passes only those of a trial (the trial's renewal
                        // turned off; the conversion rates carry it) and counts the others in
                        // `chainless_cancels`; it passes every one after the window.
                        guard let chain = chains.firstIndex(where: { $0.key == key }), chains[chain].chargeCount <= 64 else { continue }
                        chains[chain].turnedOffAfterCharge |= 1 << UInt64(chains[chain].chargeCount - 1)
                    case .refund:
                        if event.time < chargeEnd { revenue -= event.amount }
                        guard let chain = chains.firstIndex(where: { $0.key == key }),
                            let charge = charges.indices.last(where: { charges[$0].chain == chain && charges[$0].time <= event.time })
                        else { continue }
                        charges[charge].refunded += event.amount
                        if charges[charge].firstRefundTime == nil { charges[charge].firstRefundTime = event.time }
                    }
                }
                observedRevenue += revenue

                // The entry curve: at risk through the day of the entry (a trial start or a first
                // purchase), or through the last full day observed.
                let entryDay = trialStart.map { Int(Double($0.time - assignedAt) / Microseconds.perDayAsDouble) } ?? firstPurchaseDay
                if let day = entryDay {
                    if trialStart != nil { trialEntries += 1 } else { purchaseEntries += 1 }
                    if day < fullDays { conversionsByDay[day] += 1 }
                    if day == 0 && fullDays > 0, let time = trialStart?.time ?? firstPurchaseTime {
                        dayZeroEntriesByMinute[Self.dayZeroMinute(Double(time - assignedAt) / Microseconds.perDayAsDouble)] += 1
                    }
                }
                if let day = entryDay, day < fullDays {
                    exitsByDay[day + 1] += 1
                } else {
                    exitsByDay[fullDays] += 1
                }
                if let trial = trialStart, firstPurchaseDay == nil {
                    // Open while its end (and a day of grace for the store's charge) is after
                    // as_of; it converts, or not, on its last day.
                    let startDay = Double(trial.time - assignedAt) / Microseconds.perDayAsDouble
                    let atAsOf = Double(asOf - assignedAt) / Microseconds.perDayAsDouble
                    if let endTime = trial.expiresAt {
                        let end = Double(endTime - assignedAt) / Microseconds.perDayAsDouble
                        if end + 1 > atAsOf {
                            let day = max(Int(end), Int(atAsOf))
                            if day < horizonDayCount { pendingTrialsWithEndByDay[day] += 1 }
                        } else {
                            trialsLapsedWithEnd += 1
                        }
                    } else {
                        let open = OpenTrialDays(
                            startDay: Int(startDay), tenureDay: Int(atAsOf), daysSinceStart: Int((atAsOf - startDay).rounded(.down)))
                        openTrialsWithoutEnd[open, default: 0] += 1
                    }
                }
                if let trial = trialStart, let end = trial.expiresAt, end > trial.time {
                    trialLengthsByDays[Int((Double(end - trial.time) / Microseconds.perDayAsDouble).rounded()), default: 0] += 1
                }
                if entryDay == nil && fullDays < horizonDayCount && tenureDays < horizon {
                    let remaining = 1 - (tenureDays - Double(fullDays))
                    waitingByDay[fullDays].count += 1
                    waitingByDay[fullDays].remainingFraction += remaining
                    waitingByDay[fullDays].remainingFractionSquared += remaining * remaining
                    if fullDays == 0 { dayZeroWaitingByMinute[Self.dayZeroMinute(tenureDays)] += 1 }
                }

                // Each one-time purchase: the member's next chain (in first-charge order), or
                // watched until as_of or the horizon without one.
                for (chainIndex, chain) in chains.enumerated() where productList[chain.product].renewalPeriodDays == nil {
                    let bought = chain.firstChargeTime
                    let watchedUntil = min(asOf, chargeEnd)
                    if chainIndex + 1 < chains.count {
                        let next = chains[chainIndex + 1]
                        let day = Int(Double(next.firstChargeTime - bought) / Microseconds.perDayAsDouble)
                        followOns[chain.product].startedByDay[day] += 1
                        followOns[chain.product].startedByProduct[next.product] += 1
                        followOnExits[chain.product][day + 1] += 1
                    } else {
                        let watched = max(0, Int(Double(watchedUntil - bought) / Microseconds.perDayAsDouble))
                        followOnExits[chain.product][min(watched, horizonDayCount)] += 1
                        if asOf < chargeEnd {
                            let purchaseDay = Int(Double(bought - assignedAt) / Microseconds.perDayAsDouble)
                            followOns[chain.product].waiting[purchaseDay << 16 | watched, default: 0] += 1
                        }
                    }
                }

                for (chainIndex, chain) in chains.enumerated() {
                    let product = chain.product
                    for charge in charges where charge.chain == chainIndex {
                        let net = charge.price - charge.refunded
                        let ageDays = Double(asOf - charge.time) / Microseconds.perDayAsDouble
                        products[product].all.add(net: net, refunded: charge.firstRefundTime != nil)
                        if ageDays >= lagDays {
                            products[product].mature.add(net: net, refunded: charge.firstRefundTime != nil)
                            if let refundTime = charge.firstRefundTime {
                                if charge.price > 0 { products[product].matureRefundedShare += charge.refunded / charge.price }
                                let delay = Double(refundTime - charge.time) / Microseconds.perDayAsDouble
                                let bin = max(0, Int((delay - 0.5).rounded(.up)))
                                if products[product].refundsByDelayDay.count <= bin {
                                    products[product].refundsByDelayDay += Array(
                                        repeating: 0, count: bin + 1 - products[product].refundsByDelayDay.count)
                                }
                                products[product].refundsByDelayDay[bin] += 1
                            }
                        } else if charge.firstRefundTime == nil {
                            let slot = min(Int(ageDays), youngSlots - 1)
                            products[product].youngPrice[slot] += charge.price
                            products[product].youngPriceSquared[slot] += charge.price * charge.price
                        }
                    }
                    let last = chain.lastCharge
                    guard let period = productList[product].renewalPeriodDays,
                        let due = productList[product].renewalDue(lastChargeTime: charges[last].time, lastExpiresAt: chain.lastExpiresAt)
                    else { continue }
                    let periodMicroseconds = period * Microseconds.perDayAsDouble
                    let lastChargeKept = charges[last].firstRefundTime == nil
                    let running = products[product].renewals.countChain(
                        chargeCount: chain.chargeCount, lastChargeKept: lastChargeKept, due: due, asOf: asOf, end: chargeEnd)
                    let turnedOffNow = products[product].turnedOffRenewals.countTurnedOff(
                        chain.turnedOffAfterCharge, chargeCount: chain.chargeCount, lastChargeKept: lastChargeKept, due: due, asOf: asOf,
                        end: chargeEnd)
                    if running {
                        let remaining = Int((Double(chargeEnd - due) / periodMicroseconds).rounded(.up))
                        if turnedOffNow {
                            products[product].pendingTurnedOff[chain.chargeCount << 16 | remaining, default: 0] += 1
                        } else {
                            products[product].pendingChains[chain.chargeCount << 16 | remaining, default: 0] += 1
                        }
                    }
                }
            }
        }
        var atRisk = users
        for day in 0..<horizonDayCount {
            atRisk -= exitsByDay[day]
            atRiskByDay[day] = atRisk
        }
        for product in followOns.indices where !followOnExits[product].isEmpty {
            var atRisk = followOnExits[product].reduce(0, +)
            for day in 0..<horizonDayCount {
                atRisk -= followOnExits[product][day]
                followOns[product].atRiskByDay[day] = atRisk
            }
        }
        resolveTrials()
    }
}
