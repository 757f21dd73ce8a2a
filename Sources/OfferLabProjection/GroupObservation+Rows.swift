/// A group's observation (`GroupObservation`) and an offering's past (`ProductPast`) in long
/// form: one row per statistic, product and key, the shape in which a SQL engine returns them
/// (contract §3.3, docs/warehouse.md "The night's parts"). Rows are written for the values that
/// are not 0 only, and read back to the same observation: `run` and an engine's parts reach the
/// projection through the same counts.
public enum ObservationStatistic: String, CaseIterable, Sendable {
    // The group's own (no product, no key).
    case users
    case observedRevenue = "observed_revenue"
    case observedDays = "observed_days"
    case payers
    case trialEntries = "trial_entries"
    case purchaseEntries = "purchase_entries"
    case trialsConverted = "trials_converted"
    case trialsLapsedWithEnd = "trials_lapsed_with_end"
    // By tenure day (key 1).
    case atRiskByDay = "at_risk_by_day"
    case conversionsByDay = "conversions_by_day"
    case waitingByDay = "waiting_by_day"
    case waitingRemainingByDay = "waiting_remaining_by_day"
    case waitingRemainingSquaredByDay = "waiting_remaining_squared_by_day"
    case pendingTrialsWithEndByDay = "pending_trials_with_end_by_day"
    // Day 0 by the minute since assignment (key 1).
    case dayZeroEntriesByMinute = "day_zero_entries_by_minute"
    case dayZeroWaitingByMinute = "day_zero_waiting_by_minute"
    // Trials by whole days (key 1), and those open without an end by (start day, tenure day, days since start).
    case trialLengthsByDays = "trial_lengths_by_days"
    case trialConversionDelaysByDays = "trial_conversion_delays_by_days"
    case openTrialsWithoutEnd = "open_trials_without_end"
    // Per product.
    case firstPurchases = "first_purchases"
    case renewalsDue = "renewals_due"
    case renewalsRenewed = "renewals_renewed"
    case turnedOffDue = "turned_off_due"
    case turnedOffRenewed = "turned_off_renewed"
    case pendingChains = "pending_chains"
    case pendingTurnedOff = "pending_turned_off"
    case matureKept = "mature_kept"
    case matureKeptNet = "mature_kept_net"
    case matureKeptNetSquared = "mature_kept_net_squared"
    case matureRefunded = "mature_refunded"
    case matureRefundedNet = "mature_refunded_net"
    case matureRefundedNetSquared = "mature_refunded_net_squared"
    case matureRefundedShare = "mature_refunded_share"
    case refundsByDelayDay = "refunds_by_delay_day"
    case allKept = "all_kept"
    case allKeptNet = "all_kept_net"
    case allKeptNetSquared = "all_kept_net_squared"
    case allRefunded = "all_refunded"
    case allRefundedNet = "all_refunded_net"
    case allRefundedNetSquared = "all_refunded_net_squared"
    case youngPriceByAge = "young_price_by_age"
    case youngPriceSquaredByAge = "young_price_squared_by_age"
    // Per one-time product: the chains started after it.
    case followOnAtRiskByDay = "follow_on_at_risk_by_day"
    case followOnStartedByDay = "follow_on_started_by_day"
    case followOnProducts = "follow_on_products"
    case followOnWaiting = "follow_on_waiting"
    // The app's past, per product (the `past` part; with the four renewal counts above).
    case chains

    /// How many keys its rows have: 0 to 3 (docs/warehouse.md names each).
    public var keyCount: Int {
        switch self {
        case .users, .observedRevenue, .observedDays, .payers, .trialEntries, .purchaseEntries, .trialsConverted, .trialsLapsedWithEnd,
            .firstPurchases, .matureKept, .matureKeptNet, .matureKeptNetSquared, .matureRefunded, .matureRefundedNet,
            .matureRefundedNetSquared, .matureRefundedShare, .allKept, .allKeptNet, .allKeptNetSquared, .allRefunded, .allRefundedNet,
            .allRefundedNetSquared, .followOnProducts, .chains:
            0
        case .pendingChains, .pendingTurnedOff, .followOnWaiting: 2
        case .openTrialsWithoutEnd: 3
        default: 1
        }
    }

    /// Whether its rows name a product; `followOnProducts` names two, the second the follow-on's.
    public var hasProduct: Bool {
        switch self {
        case .users, .observedRevenue, .observedDays, .payers, .trialEntries, .purchaseEntries, .trialsConverted, .trialsLapsedWithEnd,
            .atRiskByDay, .conversionsByDay, .waitingByDay, .waitingRemainingByDay, .waitingRemainingSquaredByDay,
            .pendingTrialsWithEndByDay, .dayZeroEntriesByMinute, .dayZeroWaitingByMinute, .trialLengthsByDays,
            .trialConversionDelaysByDays, .openTrialsWithoutEnd:
            false
        default: true
        }
    }

    /// Whether its value is a count (a whole number ≥ 0), not a sum of money or days.
    public var isCount: Bool {
        switch self {
        case .observedRevenue, .observedDays, .waitingRemainingByDay, .waitingRemainingSquaredByDay, .matureKeptNet,
            .matureKeptNetSquared, .matureRefundedNet, .matureRefundedNetSquared, .matureRefundedShare, .allKeptNet,
            .allKeptNetSquared, .allRefundedNet, .allRefundedNetSquared, .youngPriceByAge, .youngPriceSquaredByAge:
            false
        default: true
        }
    }

    /// The statistics of the `past` part.
    public static let past: [ObservationStatistic] = [.chains, .renewalsDue, .renewalsRenewed, .turnedOffDue, .turnedOffRenewed]
}

/// One row of a group's observation or a product's past.
public struct ObservationRow: Sendable, Equatable {
    public var statistic: ObservationStatistic
    /// An index into the offering's products, for a statistic that names one (`hasProduct`).
    public var product: Int?
    /// The follow-on's product (`followOnProducts`).
    public var nextProduct: Int?
    /// `statistic.keyCount` keys.
    public var keys: [Int]
    public var value: Double

    public init(_ statistic: ObservationStatistic, product: Int? = nil, nextProduct: Int? = nil, keys: [Int] = [], value: Double) {
        self.statistic = statistic
        self.product = product
        self.nextProduct = nextProduct
        self.keys = keys
        self.value = value
    }
}

/// Why rows cannot be an observation: each names the row's statistic and what is wrong with it.
public struct ObservationRowError: Error, Equatable, CustomStringConvertible {
    public var row: ObservationRow
    public var problem: String

    public var description: String { "\(row.statistic.rawValue): \(problem)" }
}

extension RenewalCounts {
    /// Its rows: chains due and renewed by renewal index (key 1), under `due` and `renewed`.
    func rows(due: ObservationStatistic, renewed: ObservationStatistic, product: Int) -> [ObservationRow] {
        atRisk.indices.dropFirst().flatMap { index in
            [
                atRisk[index] == 0 ? nil : ObservationRow(due, product: product, keys: [index], value: Double(atRisk[index])),
                self.renewed[index] == 0
                    ? nil : ObservationRow(renewed, product: product, keys: [index], value: Double(self.renewed[index])),
            ].compactMap { $0 }
        }
    }

    /// Sets chains due (`renewed`: renewed) at renewal `index`, growing the counts to it.
    mutating func set(index: Int, renewed isRenewed: Bool, count: Int) {
        while atRisk.count <= index {
            atRisk.append(0)
            renewed.append(0)
        }
        if isRenewed { renewed[index] = count } else { atRisk[index] = count }
    }

    /// Refuses counts with more renewed than due at a renewal, naming `statistic`'s row of it.
    func checkRenewedWithinDue(_ statistic: ObservationStatistic, product: Int) throws(ObservationRowError) {
        guard let renewal = atRisk.indices.dropFirst().first(where: { renewed[$0] > atRisk[$0] }) else { return }
        throw ObservationRowError(
            row: ObservationRow(statistic, product: product, keys: [renewal], value: Double(renewed[renewal])),
            problem: "more renewed than due at renewal \(renewal)")
    }
}

extension GroupObservation {
    /// Its rows, the values that are not 0, in a fixed order (statistic, product, keys).
    public var rows: [ObservationRow] {
        var rows: [ObservationRow] = []
        func add(_ statistic: ObservationStatistic, product: Int? = nil, nextProduct: Int? = nil, keys: [Int] = [], _ value: Double) {
            if value != 0 { rows.append(ObservationRow(statistic, product: product, nextProduct: nextProduct, keys: keys, value: value)) }
        }
        func add(_ statistic: ObservationStatistic, product: Int? = nil, byKey values: [Int]) {
            for (key, value) in values.enumerated() { add(statistic, product: product, keys: [key], Double(value)) }
        }
        func add(_ statistic: ObservationStatistic, product: Int? = nil, byKey values: [Double]) {
            for (key, value) in values.enumerated() { add(statistic, product: product, keys: [key], value) }
        }
        func add(_ statistic: ObservationStatistic, product: Int? = nil, pairs: [Int: Int]) {
            for (key, value) in pairs.sorted(by: { $0.key < $1.key }) {
                add(statistic, product: product, keys: [key >> 16, key & 0xFFFF], Double(value))
            }
        }
        add(.users, Double(users))
        add(.observedRevenue, observedRevenue)
        add(.observedDays, observedDays)
        add(.payers, Double(payers))
        add(.trialEntries, Double(trialEntries))
        add(.purchaseEntries, Double(purchaseEntries))
        add(.trialsConverted, Double(trialsConverted))
        add(.trialsLapsedWithEnd, Double(trialsLapsedWithEnd))
        add(.atRiskByDay, byKey: atRiskByDay)
        add(.conversionsByDay, byKey: conversionsByDay)
        add(.waitingByDay, byKey: waitingByDay.map(\.count))
        add(.waitingRemainingByDay, byKey: waitingByDay.map(\.remainingFraction))
        add(.waitingRemainingSquaredByDay, byKey: waitingByDay.map(\.remainingFractionSquared))
        add(.pendingTrialsWithEndByDay, byKey: pendingTrialsWithEndByDay)
        add(.dayZeroEntriesByMinute, byKey: dayZeroEntriesByMinute)
        add(.dayZeroWaitingByMinute, byKey: dayZeroWaitingByMinute)
        for (days, trials) in trialLengthsByDays.sorted(by: { $0.key < $1.key }) { add(.trialLengthsByDays, keys: [days], Double(trials)) }
        for (days, trials) in trialConversionDelaysByDays.sorted(by: { $0.key < $1.key }) {
            add(.trialConversionDelaysByDays, keys: [days], Double(trials))
        }
        let openTrials = openTrialsWithoutEnd.sorted {
            ($0.key.startDay, $0.key.tenureDay, $0.key.daysSinceStart) < ($1.key.startDay, $1.key.tenureDay, $1.key.daysSinceStart)
        }
        for (trial, trials) in openTrials {
            add(.openTrialsWithoutEnd, keys: [trial.startDay, trial.tenureDay, trial.daysSinceStart], Double(trials))
        }
        for (product, observed) in products.enumerated() {
            add(.firstPurchases, product: product, Double(firstPurchasesByProduct[product]))
            rows += observed.renewals.rows(due: .renewalsDue, renewed: .renewalsRenewed, product: product)
            rows += observed.turnedOffRenewals.rows(due: .turnedOffDue, renewed: .turnedOffRenewed, product: product)
            add(.pendingChains, product: product, pairs: observed.pendingChains)
            add(.pendingTurnedOff, product: product, pairs: observed.pendingTurnedOff)
            for (statistics, values) in [
                (
                    [
                        ObservationStatistic.matureKept, .matureKeptNet, .matureKeptNetSquared, .matureRefunded, .matureRefundedNet,
                        .matureRefundedNetSquared,
                    ], observed.mature
                ),
                ([.allKept, .allKeptNet, .allKeptNetSquared, .allRefunded, .allRefundedNet, .allRefundedNetSquared], observed.all),
            ] {
                let sums = [
                    Double(values.kept), values.keptNet, values.keptNetSquared, Double(values.refunded), values.refundedNet,
                    values.refundedNetSquared,
                ]
                for (statistic, value) in zip(statistics, sums) { add(statistic, product: product, value) }
            }
            add(.matureRefundedShare, product: product, observed.matureRefundedShare)
            add(.refundsByDelayDay, product: product, byKey: observed.refundsByDelayDay)
            add(.youngPriceByAge, product: product, byKey: observed.youngPrice)
            add(.youngPriceSquaredByAge, product: product, byKey: observed.youngPriceSquared)
            let followOn = followOns[product]
            add(.followOnAtRiskByDay, product: product, byKey: followOn.atRiskByDay)
            add(.followOnStartedByDay, product: product, byKey: followOn.startedByDay)
            for (next, started) in followOn.startedByProduct.enumerated() {
                add(.followOnProducts, product: product, nextProduct: next, Double(started))
            }
            add(.followOnWaiting, product: product, pairs: followOn.waiting)
        }
        return rows
    }

    /// The observation of a group named `name` from its rows (any order), at `configuration`'s
    /// `as_of`, horizon and refund lag, for `products` (the offering's, as `observeGroups` takes
    /// them): equal to the observation the rows were made from.
    /// - Throws: `ObservationRowError` for a row this observation cannot hold: a statistic of the
    ///   past, a product or key out of range, a count that is not a whole number ≥ 0, a value
    ///   that is not finite, a row given twice, renewals beyond the chains due.
    public init(
        name: String, rows: [ObservationRow], products productList: [ProjectionProduct], configuration: ProjectionConfiguration
    ) throws(ObservationRowError) {
        let horizonDayCount = Int(configuration.horizonDays.rounded(.up))
        self.init(horizonDays: horizonDayCount, productCount: productList.count)
        self.name = name
        asOf = configuration.asOf
        horizonDays = configuration.horizonDays
        refundLagDays = configuration.refundLagDays
        let youngSlots = Int(configuration.refundLagDays.rounded(.up)) + 1
        for index in products.indices {
            products[index].youngPrice = Array(repeating: 0, count: youngSlots)
            products[index].youngPriceSquared = Array(repeating: 0, count: youngSlots)
        }
        for (index, product) in productList.enumerated() where product.renewalPeriodDays == nil {
            followOns[index] = FollowOnObservation(horizonDays: horizonDayCount, productCount: productList.count)
        }
        var seen = Set<[Int]>()
        for row in rows {
            let statistic = row.statistic
            func fail(_ problem: String) -> ObservationRowError { ObservationRowError(row: row, problem: problem) }
            try Self.check(row, products: productList.count)
            guard statistic != .chains else { throw fail("is a statistic of the past, not of a group") }
            let identity =
                [ObservationStatistic.allCases.firstIndex(of: statistic) ?? 0, row.product ?? -1, row.nextProduct ?? -1] + row.keys
            guard seen.insert(identity).inserted else { throw fail("the row is given twice") }
            let count = Int(row.value)
            let key = row.keys.first ?? 0
            func inRange(_ limit: Int) throws(ObservationRowError) -> Int {
                guard key < limit else { throw fail("key \(key) is not below \(limit)") }
                return key
            }
            let product = row.product ?? 0
            switch statistic {
            case .users: users = count
            case .observedRevenue: observedRevenue = row.value
            case .observedDays: observedDays = row.value
            case .payers: payers = count
            case .trialEntries: trialEntries = count
            case .purchaseEntries: purchaseEntries = count
            case .trialsConverted: trialsConverted = count
            case .trialsLapsedWithEnd: trialsLapsedWithEnd = count
            case .atRiskByDay: atRiskByDay[try inRange(horizonDayCount)] = count
            case .conversionsByDay: conversionsByDay[try inRange(horizonDayCount)] = count
            case .waitingByDay: waitingByDay[try inRange(horizonDayCount)].count = count
            case .waitingRemainingByDay: waitingByDay[try inRange(horizonDayCount)].remainingFraction = row.value
            case .waitingRemainingSquaredByDay: waitingByDay[try inRange(horizonDayCount)].remainingFractionSquared = row.value
            case .pendingTrialsWithEndByDay: pendingTrialsWithEndByDay[try inRange(horizonDayCount)] = count
            case .dayZeroEntriesByMinute: dayZeroEntriesByMinute[try inRange(Self.minutesPerDay)] = count
            case .dayZeroWaitingByMinute: dayZeroWaitingByMinute[try inRange(Self.minutesPerDay)] = count
            case .trialLengthsByDays: trialLengthsByDays[key] = count
            case .trialConversionDelaysByDays: trialConversionDelaysByDays[key] = count
            case .openTrialsWithoutEnd:
                openTrialsWithoutEnd[OpenTrialDays(startDay: row.keys[0], tenureDay: row.keys[1], daysSinceStart: row.keys[2])] = count
            case .firstPurchases: firstPurchasesByProduct[product] = count
            case .renewalsDue, .renewalsRenewed:
                guard key >= 1 else { throw fail("renewal index \(key) is not 1 or more") }
                products[product].renewals.set(index: key, renewed: statistic == .renewalsRenewed, count: count)
            case .turnedOffDue, .turnedOffRenewed:
                guard key >= 1 else { throw fail("renewal index \(key) is not 1 or more") }
                products[product].turnedOffRenewals.set(index: key, renewed: statistic == .turnedOffRenewed, count: count)
            case .pendingChains, .pendingTurnedOff:
                guard row.keys[0] >= 1, row.keys[0] < 1 << 15, row.keys[1] < 1 << 16 else {
                    throw fail("keys \(row.keys[0]), \(row.keys[1]) are not a renewal index and the charges due before the horizon")
                }
                let packed = row.keys[0] << 16 | row.keys[1]
                if statistic == .pendingChains {
                    products[product].pendingChains[packed] = count
                } else {
                    products[product].pendingTurnedOff[packed] = count
                }
            case .matureKept: products[product].mature.kept = count
            case .matureKeptNet: products[product].mature.keptNet = row.value
            case .matureKeptNetSquared: products[product].mature.keptNetSquared = row.value
            case .matureRefunded: products[product].mature.refunded = count
            case .matureRefundedNet: products[product].mature.refundedNet = row.value
            case .matureRefundedNetSquared: products[product].mature.refundedNetSquared = row.value
            case .matureRefundedShare: products[product].matureRefundedShare = row.value
            case .refundsByDelayDay:
                guard key < 1 << 20 else { throw fail("refund delay \(key) days is past any refund") }
                if products[product].refundsByDelayDay.count <= key {
                    products[product].refundsByDelayDay += Array(repeating: 0, count: key + 1 - products[product].refundsByDelayDay.count)
                }
                products[product].refundsByDelayDay[key] = count
            case .allKept: products[product].all.kept = count
            case .allKeptNet: products[product].all.keptNet = row.value
            case .allKeptNetSquared: products[product].all.keptNetSquared = row.value
            case .allRefunded: products[product].all.refunded = count
            case .allRefundedNet: products[product].all.refundedNet = row.value
            case .allRefundedNetSquared: products[product].all.refundedNetSquared = row.value
            case .youngPriceByAge: products[product].youngPrice[try inRange(youngSlots)] = row.value
            case .youngPriceSquaredByAge: products[product].youngPriceSquared[try inRange(youngSlots)] = row.value
            case .followOnAtRiskByDay, .followOnStartedByDay, .followOnProducts, .followOnWaiting:
                guard productList[product].renewalPeriodDays == nil else { throw fail("product \(product) renews: it has no follow-ons") }
                switch statistic {
                case .followOnAtRiskByDay: followOns[product].atRiskByDay[try inRange(horizonDayCount)] = count
                case .followOnStartedByDay: followOns[product].startedByDay[try inRange(horizonDayCount)] = count
                case .followOnProducts: followOns[product].startedByProduct[row.nextProduct ?? 0] = count
                default:
                    guard row.keys[0] < 1 << 15, row.keys[1] < 1 << 16 else { throw fail("keys \(row.keys) are out of range") }
                    followOns[product].waiting[row.keys[0] << 16 | row.keys[1]] = count
                }
            case .chains: break
            }
        }
        for (index, product) in products.enumerated() {
            try product.renewals.checkRenewedWithinDue(.renewalsRenewed, product: index)
            try product.turnedOffRenewals.checkRenewedWithinDue(.turnedOffRenewed, product: index)
        }
        resolveTrials()
    }

    /// What every row must be, whatever its statistic: its product(s) and keys as the statistic
    /// has them, within range; a finite value, whole and ≥ 0 for a count.
    static func check(_ row: ObservationRow, products: Int) throws(ObservationRowError) {
        let statistic = row.statistic
        func fail(_ problem: String) -> ObservationRowError { ObservationRowError(row: row, problem: problem) }
        guard row.keys.count == statistic.keyCount else { throw fail("has \(row.keys.count) keys where it takes \(statistic.keyCount)") }
        guard row.keys.allSatisfy({ $0 >= 0 }) else { throw fail("a key is negative") }
        if statistic.hasProduct {
            guard let product = row.product, (0..<products).contains(product) else { throw fail("names no product of the offering") }
        } else if row.product != nil {
            throw fail("names a product, which it does not take")
        }
        if statistic == .followOnProducts {
            guard let next = row.nextProduct, (0..<products).contains(next) else {
                throw fail("names no follow-on product of the offering")
            }
        } else if row.nextProduct != nil {
            throw fail("names a follow-on product, which it does not take")
        }
        guard row.value.isFinite else { throw fail("value \(row.value) is not a finite number") }
        if statistic.isCount {
            guard row.value >= 0, row.value == row.value.rounded(), row.value < 9e15 else {
                throw fail("value \(row.value) is not a count (a whole number, 0 or more)")
            }
        }
    }
}

extension ProductPast {
    /// Its rows (`ObservationStatistic.past`), the values that are not 0, under `product`.
    public func rows(product: Int) -> [ObservationRow] {
        (chains == 0 ? [] : [ObservationRow(.chains, product: product, value: Double(chains))])
            + renewals.rows(due: .renewalsDue, renewed: .renewalsRenewed, product: product)
            + turnedOffRenewals.rows(due: .turnedOffDue, renewed: .turnedOffRenewed, product: product)
    }

    /// Every product's past from rows of `ObservationStatistic.past` (any order).
    /// - Throws: `ObservationRowError` for a row of another statistic, a product or key out of
    ///   range, a value that is not a count, a row given twice, renewals beyond the chains due.
    public static func fromRows(_ rows: [ObservationRow], products: Int) throws(ObservationRowError) -> [ProductPast] {
        var past = Array(repeating: ProductPast(), count: products)
        var seen = Set<[Int]>()
        for row in rows {
            func fail(_ problem: String) -> ObservationRowError { ObservationRowError(row: row, problem: problem) }
            guard ObservationStatistic.past.contains(row.statistic) else { throw fail("is not a statistic of the past") }
            try GroupObservation.check(row, products: products)
            let product = row.product ?? 0
            guard seen.insert([ObservationStatistic.allCases.firstIndex(of: row.statistic) ?? 0, product] + row.keys).inserted else {
                throw fail("the row is given twice")
            }
            let count = Int(row.value)
            if row.statistic == .chains {
                past[product].chains = count
                continue
            }
            guard let index = row.keys.first, index >= 1 else { throw fail("renewal index is not 1 or more") }
            switch row.statistic {
            case .renewalsDue, .renewalsRenewed:
                past[product].renewals.set(index: index, renewed: row.statistic == .renewalsRenewed, count: count)
            default: past[product].turnedOffRenewals.set(index: index, renewed: row.statistic == .turnedOffRenewed, count: count)
            }
        }
        for (index, product) in past.enumerated() {
            try product.renewals.checkRenewedWithinDue(.renewalsRenewed, product: index)
            try product.turnedOffRenewals.checkRenewedWithinDue(.turnedOffRenewed, product: index)
        }
        return past
    }
}
