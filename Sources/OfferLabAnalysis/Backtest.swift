import OfferLabEvents
import OfferLabIngest
import OfferLabProjection
import OfferLabStatistics
import OfferLabVocabulary

/// The app's own track record (docs/statistics.md#the-apps-own-track-record): the app's past read
/// as if each calendar month of a renewing product's first charges were a test read 30 and 60 days
/// after each buyer's first charge, knowing only what was known then. Fed one chain at a time
/// (`addChain`, by `AppPast` as it reads the chains), it keeps per cut the past's renewal counts as
/// they stood then (`ProductPastBuilder`, the night's own counting) and per cohort its buyers'
/// first days (`ProjectionGroupInput`) and what they paid by day: never the chains themselves.
package struct BacktestCohorts: Sendable {
    /// The days after a buyer's first charge at which a cohort is read.
    package static let readDays = [30, 60]
    /// The longest horizon: a year, as the night's projection.
    package static let maxHorizonDays = 365

    /// Months since year 0 (year · 12 + month − 1) as `YYYY-MM`.
    package static func monthText(_ month: Int) -> String {
        let (year, month) = month.quotientAndRemainder(dividingBy: 12)
        return "\(year)-\(month < 9 ? "0" : "")\(month + 1)"
    }

    /// One (product, cohort month, read day), ready for `projectOffering`.
    package struct Cohort: Sendable {
        /// An index into `products`, and its `product_id`.
        package var product: Int
        package var productID: String
        /// The products as the projection knows them (`ProjectionCatalog.products`), and their ids.
        package var products: [ProjectionProduct]
        package var productIDs: [String]
        /// Months since year 0 (year · 12 + month − 1) of the buyers' first charges.
        package var month: Int
        package var readDay: Int
        /// Chains whose first charge is in the month.
        package var buyers: Int
        /// min(365, whole days from the cohort's last first charge to `as_of`).
        package var horizonDays: Int
        /// The buyers as members, each read on the night (00:00 UTC) `readDay` days after the day of
        /// its first charge and moved by whole days to the month's first day, so that all are read
        /// at once: the projection's `as_of` (`readAt`), the month's first instant + `readDay`
        /// days, the cut at which every other chain is known (`past`). Their events run to the
        /// last read day's, the same for every read day: the projection reads none at or after
        /// its `as_of`, and one copy of them is half the memory.
        package var members: ProjectionGroupInput
        package var readAt: Int64
        /// Per product: every chain but the month's, as known at `readAt`.
        package var past: [ProductPast]
        /// Σ over the buyers of what each paid before its first charge + `horizonDays` (charges
        /// less refunds, report currency).
        package var realizedRevenue: Double

        /// The month as `YYYY-MM`.
        package var monthText: String { BacktestCohorts.monthText(month) }
    }

    /// A chain's counted charge, refund or cancel (`PastChain.read`), its money in the report currency.
    package struct Event: Sendable {
        package var time: Int64
        /// `EventRecord.noTime` when absent.
        package var expiresAt: Int64
        package var kind: PastEventKind
        /// The price or refunded amount (0 when its currency has no rate, as in `net_revenue`); nil
        /// without a price (a refund without one takes back its charge, docs/analysis.md §2).
        package var amount: Double?

        package init(time: Int64, expiresAt: Int64, kind: PastEventKind, amount: Double?) {
            (self.time, self.expiresAt, self.kind, self.amount) = (time, expiresAt, kind, amount)
        }
    }

    private struct CohortState: Sendable {
        var buyers = 0
        var lastFirstCharge = Int64.min
        /// By whole day since each buyer's first charge: Σ of charges less refunds.
        var paidByDay = [Double](repeating: 0, count: BacktestCohorts.maxHorizonDays)
        /// Through the last read day (`Cohort.members`).
        var members = ProjectionGroupInput(name: "cohort")
    }

    private let catalog: ProjectionCatalog
    private var products: [ProjectionProduct] { catalog.products }
    private let asOf: Int64
    /// The month of the earliest event: cuts and cohorts are counted from it.
    private let firstMonth: Int
    /// Per (month − `firstMonth`) · `readDays.count` + read day's index: the past at the cut (the
    /// month's first instant + the read day), every chain but the month's (a cut after `asOf`, of
    /// the last months, serves no cohort: their horizons do not reach past the read day).
    private var cuts: [(time: Int64, past: ProductPastBuilder)] = []
    /// The cuts' indices in time order, and each cut's place in it.
    private var cutsByTime: [Int] = []
    private var timeRank: [Int] = []
    /// By place in time order: chains that ended (their last event and next renewal's due time
    /// before the cut) counted from that cut on, as a change of a count by how they ended, so
    /// that a chain is counted once, not again at each of about 26 later cuts. `ready` adds them.
    private var endedChanges: [[EndedChain: Int]] = []
    /// By (month − `firstMonth`) · products + product.
    private var cohorts: [Int: CohortState] = [:]
    /// `addChain`'s own arrays, emptied and kept between chains: a year of past is millions of
    /// chains, and allocating two arrays for each was a fifth of their cost.
    private var standing: [(charges: Int, last: Event, refunded: Bool, turnedOff: UInt64)] = []
    private var readEvents: [ProjectionEvent] = []

    /// `catalog`: the products as the projection knows them; `asOf`: the night's, the end of the
    /// past; `earliest`: the time of the past's earliest event (no cohort before its month).
    package init(catalog: ProjectionCatalog, asOf: Int64, earliest: Int64) {
        self.catalog = catalog
        self.asOf = asOf
        let products = catalog.products
        firstMonth = Self.month(of: min(earliest, asOf))
        for month in firstMonth...Self.month(of: asOf) {
            for readDay in Self.readDays {
                let cut = Self.start(ofMonth: month) + Int64(readDay) * Microseconds.perDay
                cuts.append((cut, ProductPastBuilder(products: products, asOf: cut)))
            }
        }
        cutsByTime = cuts.indices.sorted { (cuts[$0].time, $0) < (cuts[$1].time, $1) }
        timeRank = Array(repeating: 0, count: cuts.count)
        for (rank, index) in cutsByTime.enumerated() { timeRank[index] = rank }
        endedChanges = Array(repeating: [:], count: cuts.count)
    }

    /// A chain as it ended, for `endedChanges`.
    private struct EndedChain: Hashable, Sendable {
        var product: Int
        var charges: Int
        var refunded: Bool
        var turnedOff: UInt64
    }

    /// Months since year 0 of the UTC date of `time` (µs since the epoch).
    static func month(of time: Int64) -> Int {
        let date = Timestamp.civilFromDays(day(of: time))
        return date.year * 12 + date.month - 1
    }

    /// Days since the epoch of the UTC date of `time` (µs since the epoch).
    static func day(of time: Int64) -> Int64 {
        time >= 0 ? time / Microseconds.perDay : (time + 1) / Microseconds.perDay - 1
    }

    /// The first instant (µs) of `month` (months since year 0).
    static func start(ofMonth month: Int) -> Int64 {
        Timestamp.daysFromCivil(year: month / 12, month: month % 12 + 1, day: 1) * Microseconds.perDay
    }

    /// Counts a chain of `product` (an index into the products): `events` are its charges and the
    /// refunds and cancels after its first, in time order (`PastChain.read`), all before `asOf`. A
    /// one-time product's chain is neither a cohort's buyer nor in any past (it never renews).
    package mutating func addChain(product: Int, events: [Event]) {
        guard products[product].renewalPeriodDays != nil, let first = events.first, first.kind == .charge else { return }
        let month = Self.month(of: first.time)
        let monthIndex = month - firstMonth
        // The chain as it stood after each of its events, so that each cut finds its own by a
        // binary search instead of reading the events again (about 26 cuts a year of past).
        standing.removeAll(keepingCapacity: true)
        var state = (charges: 0, last: first, refunded: false, turnedOff: UInt64(0))
        for event in events {
            switch event.kind {
            case .charge: (state.charges, state.last, state.refunded) = (state.charges + 1, event, false)
            case .refund: state.refunded = true
            case .cancel: if state.charges <= 64 { state.turnedOff |= 1 << UInt64(state.charges - 1) }
            }
            standing.append(state)
        }
        // Every cut after its first charge but its own month's knows the chain as it stood then;
        // those after it ended (its last event, and its next renewal due), as it ended, all at once.
        let ended = standing[standing.count - 1]
        var endedRank = cuts.count
        if let due = products[product].renewalDue(
            lastChargeTime: ended.last.time, lastExpiresAt: ended.last.expiresAt == EventRecord.noTime ? nil : ended.last.expiresAt)
        {
            let settled = max(events[events.count - 1].time + 1, due)
            endedRank = cutsByTime.prefixCount { cuts[$0].time < settled }
        }
        if endedRank < cuts.count {
            let key = EndedChain(product: product, charges: ended.charges, refunded: ended.refunded, turnedOff: ended.turnedOff)
            endedChanges[endedRank][key, default: 0] += 1
            for index in monthIndex * Self.readDays.count..<(monthIndex + 1) * Self.readDays.count
            where cuts.indices.contains(index) && timeRank[index] >= endedRank {
                endedChanges[timeRank[index]][key, default: 0] -= 1
                if timeRank[index] + 1 < cuts.count { endedChanges[timeRank[index] + 1][key, default: 0] += 1 }
            }
        }
        for index in cuts.indices
        where cuts[index].time > first.time && index / Self.readDays.count != monthIndex && timeRank[index] < endedRank {
            let cut = cuts[index].time
            let (charges, last, refunded, turnedOff) = standing[events.prefixCount { $0.time < cut } - 1]
            cuts[index].past.addChain(
                product: product, chargeCount: charges, lastChargeTime: last.time,
                lastExpiresAt: last.expiresAt == EventRecord.noTime ? nil : last.expiresAt, lastChargeRefunded: refunded,
                turnedOffAfterCharge: turnedOff)
        }
        var cohort = cohorts.removeValue(forKey: monthIndex * products.count + product) ?? CohortState()
        cohort.buyers += 1
        cohort.lastFirstCharge = max(cohort.lastFirstCharge, first.time)
        // Read on the night (00:00 UTC) `readDay` days after the day of the first charge, as a
        // night reads its members: moved by whole days to the month's first day.
        let firstDay = Self.day(of: first.time) * Microseconds.perDay
        let shift = Self.start(ofMonth: month) - firstDay
        readEvents.removeAll(keepingCapacity: true)
        var lastCharge = 0.0
        var charged = false
        for event in events {
            // A refund without an amount takes back the whole charge (docs/analysis.md §2).
            let amount: Double
            let kind: ProjectionEventKind
            switch event.kind {
            case .charge:
                (amount, kind) = (event.amount ?? 0, charged ? .renewal : .purchase)
                (lastCharge, charged) = (amount, true)
            case .refund: (amount, kind) = (event.amount ?? lastCharge, .refund)
            case .cancel: (amount, kind) = (0, .cancel)
            }
            let day = Int((event.time - first.time) / Microseconds.perDay)
            guard day < Self.maxHorizonDays else { break }
            cohort.paidByDay[day] += event.kind == .refund ? -amount : amount
            guard event.time < firstDay + Int64(Self.readDays.last!) * Microseconds.perDay else { continue }
            readEvents.append(
                ProjectionEvent(
                    time: event.time + shift, kind: kind, product: product, amount: amount,
                    expiresAt: event.expiresAt == EventRecord.noTime || event.kind == .cancel ? nil : event.expiresAt + shift))
        }
        cohort.members.appendMember(assignedAt: first.time + shift, events: readEvents)
        cohorts[monthIndex * products.count + product] = cohort
    }

    /// The cohorts whose horizon reaches past their read day, by product, read day and month.
    package var ready: [Cohort] {
        var cuts = cuts
        var counted: [EndedChain: Int] = [:]
        for (rank, index) in cutsByTime.enumerated() {
            for (key, change) in endedChanges[rank] { counted[key, default: 0] += change }
            for (key, count) in counted where count > 0 {
                cuts[index].past.addEndedChains(
                    count, product: key.product, chargeCount: key.charges, lastChargeRefunded: key.refunded,
                    turnedOffAfterCharge: key.turnedOff)
            }
        }
        var ready: [Cohort] = []
        for (key, state) in cohorts {
            let (monthIndex, product) = key.quotientAndRemainder(dividingBy: products.count)
            let horizon = min(Self.maxHorizonDays, Int((asOf - state.lastFirstCharge) / Microseconds.perDay))
            for (index, readDay) in Self.readDays.enumerated() where horizon > readDay {
                let cut = cuts[monthIndex * Self.readDays.count + index]
                ready.append(
                    Cohort(
                        product: product, productID: catalog.productIDs[product], products: products, productIDs: catalog.productIDs,
                        month: firstMonth + monthIndex,
                        readDay: readDay, buyers: state.buyers, horizonDays: horizon,
                        members: state.members, readAt: cut.time, past: cut.past.past,
                        realizedRevenue: state.paidByDay[..<horizon].reduce(0, +)))
            }
        }
        return ready.sorted { ($0.product, $0.readDay, $0.month) < ($1.product, $1.readDay, $1.month) }
    }
}
