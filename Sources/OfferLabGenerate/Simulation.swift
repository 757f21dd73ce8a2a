import OfferLabIngest
import OfferLabStatistics

/// The event types the generator writes: the `event` names of docs/input-formats.md#json-lines plus
/// two types the analysis does not know (they must be counted as unknown types).
enum EventKind: UInt8 {
    /// `EventType`'s cases, with its raw values (a test holds them together).
    case paywallView, trialStart, purchase, renewal, refund, cancel, expire
    case paywallDismiss, restoreStarted

    /// The analysis' type of the kind; nil for the two it does not know.
    var eventType: EventType? { EventType(rawValue: rawValue) }

    var name: StaticString {
        if let eventType { return eventType.staticLogName }
        return self == .paywallDismiss ? "paywall_dismiss" : "restore_started"
    }

    var isKnown: Bool { eventType != nil }
    /// Carries a product and a transaction id (required: docs/input-formats.md#json-lines).
    var isTransaction: Bool { eventType?.isTransaction ?? false }
    /// Must carry a price.
    var isCharge: Bool { eventType?.requiresPrice ?? false }
}

/// How an event line relates to the event it delivers.
enum Delivery: UInt8 {
    case original
    /// The same `event_id` delivered again (sometimes with a later `ts`).
    case redelivery
    /// The same transaction sent again under a new `event_id`.
    case resend
}

/// One simulated event, before it is written as a line.
struct SimEvent {
    var time: Int64
    var sequence: Int32
    var kind: EventKind
    /// Index in `Catalog.products`, or -1.
    var product: Int8 = -1
    var transaction: UInt64 = 0
    /// The chain's first transaction; 0 for none.
    var original: UInt64 = 0
    /// Minor units; -1 when the line has no price.
    var amount: Int64 = -1
    var currency: Int8 = 0
    /// Sent by the server (App Store notification) rather than the app: usually without
    /// `offering_id`/`test_group_id`.
    var fromServer = false
    var idHigh: UInt64 = 0
    var idLow: UInt64 = 0
    /// The user's sequence number when the id was made (a redelivery keeps it): the
    /// `integer` event-id shape's unique part.
    var idSerial: Int32 = 0
    var delivery = Delivery.original
    /// Microseconds between `ts` and the moment the line reached the logs: decides the day
    /// folder of the line.
    var receiveDelay: Int64 = 0
    /// The end of the period the transaction gives (a trial's end on `trial_start`); 0: none.
    var expiresAt: Int64 = 0
}

/// Simulates one user's events. Reused from user to user: its buffers keep their capacity.
struct UserSimulator {
    let configuration: GeneratorConfiguration
    private(set) var events: [SimEvent] = []
    private var viewTimes: [Int64] = []
    private var sequence: Int32 = 0
    private var transactionSequence: UInt64 = 0
    private var userIndex = 0
    private var currency = 0

    /// Apple-style 16-digit transaction ids: unique per (user, sequence number).
    static let transactionBase: UInt64 = 2_000_000_000_000_000
    /// Transactions made before the data begins (the target of orphan refunds).
    static let oldTransactionBase: UInt64 = 1_000_000_000_000_000

    init(configuration: GeneratorConfiguration) {
        self.configuration = configuration
        events.reserveCapacity(64)
    }

    // The chains' behaviour, shared with the app's past (`HistoryWriter`): earlier buyers renew
    // and are refunded as the members do.

    /// The chance that a subscriber switches auto-renew off right after the first charge.
    static let immediateCancelChance = 0.15
    /// A subscription's chance to renew at each due date.
    static func renewalChance(_ product: Product) -> Double { product.renewalDays <= 7 ? 0.72 : 0.85 }
    /// A view's chance to be followed by another (a second look or a later session).
    static let anotherViewChance = 0.5
    /// A user buys at one of its views of this many days from the first, or never: who has not
    /// bought by then does not come back to buy (docs/generator.md#behaviour-of-a-user).
    static let buyingDays: Int64 = 2
    /// A 3-day pass buyer's chance to subscribe to the monthly plan as the pass runs out.
    static let passFollowOnChance = 0.6
    /// A paid charge's chance to be refunded.
    static func refundChance(_ product: Product) -> Double { product.isOneTime ? 0.06 : 0.04 }

    /// Fills `events` with the user's events, sorted by time, duplicates included.
    mutating func simulate(_ user: UserProfile, random: inout SplitMix64) {
        events.removeAll(keepingCapacity: true)
        viewTimes.removeAll(keepingCapacity: true)
        sequence = 0
        transactionSequence = 0
        userIndex = user.index
        currency = user.currency

        let anchor = user.primary?.assignedAt ?? user.arrival
        var time = anchor + random.between(Micros.second, 40 * Micros.second)
        viewTimes.append(time)
        while random.chance(Self.anotherViewChance) && viewTimes.count < 30 {
            // A second look at the paywall in the same session, or a later session.
            time +=
                random.chance(0.2)
                ? random.between(20 * Micros.second, 15 * Micros.minute)
                : Self.gapBetweenSessions(&random)
            viewTimes.append(time)
        }
        if user.viewsBeforeAssignment {
            add(.paywallView, at: anchor - random.between(Micros.second, 600 * Micros.second), random: &random)
        }
        for view in viewTimes {
            add(.paywallView, at: view, random: &random)
            if random.chance(0.02) {
                add(.paywallDismiss, at: view + random.between(3 * Micros.second, 60 * Micros.second), random: &random)
            }
        }
        if random.chance(0.002) {
            add(.restoreStarted, at: viewTimes[0] + 30 * Micros.second, random: &random)
        }
        if random.chance(user.conversionChance) {
            let buyingViews = viewTimes.prefix { $0 - viewTimes[0] < Self.buyingDays * Micros.day }.count
            let view = random.chance(0.55) ? 0 : random.below(buyingViews)
            let when = viewTimes[view] + random.between(20 * Micros.second, 180 * Micros.second)
            // Users in no test see the app's built-in paywall: the spring control's products.
            let group = Catalog.groups[user.primary?.group ?? 0]
            let choice = group.products[random.pick(weights: group.products.map(\.pickWeight))]
            startChain(product: choice.product, group: group, at: when, allowNudge: true, random: &random)
        }
        if random.chance(0.003) || user.index % 500 == 37 {
            // A refund of a purchase made before the data begins: an orphan.
            let refundTime = user.arrival + random.between(Micros.hour, 5 * Micros.day)
            var event = makeEvent(.refund, at: refundTime, random: &random)
            event.product = Int8(Catalog.monthly1999)
            event.transaction = Self.oldTransactionBase + UInt64(random.below(900_000_000_000_000))
            event.original = event.transaction
            event.amount = Catalog.products[Catalog.monthly1999].prices[currency]
            event.currency = Int8(currency)
            event.fromServer = true
            append(event)
        }
        addDuplicates(random: &random)
        events.sort { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
    }

    /// Time until the next app session: minutes to days.
    private static func gapBetweenSessions(_ random: inout SplitMix64) -> Int64 {
        let band = random.unit()
        if band < 0.55 { return random.between(10 * Micros.minute, 8 * Micros.hour) }
        if band < 0.85 { return random.between(8 * Micros.hour, 36 * Micros.hour) }
        return random.between(36 * Micros.hour, 5 * Micros.day)
    }

    private mutating func nextTransaction() -> UInt64 {
        transactionSequence += 1
        return Self.transactionBase + UInt64(userIndex) * 4096 + min(transactionSequence, 4095)
    }

    /// A subscription chain (trial or direct purchase, renewals, cancel, expire) or a one-time
    /// 3-day pass (with, for some users, the monthly plan bought when the pass runs out).
    private mutating func startChain(
        product productIndex: Int, group: OfferingGroup, at start: Int64, allowNudge: Bool, random: inout SplitMix64
    ) {
        let product = Catalog.products[productIndex]
        if product.isOneTime {
            let transaction = nextTransaction()
            let end = start + Int64(product.accessDays) * Micros.day
            charge(
                .purchase, product: productIndex, at: start, transaction: transaction,
                original: random.chance(0.5) ? transaction : 0, fromServer: false, expiresAt: end, random: &random)
            addChainEvent(.expire, product: productIndex, at: end, original: transaction, random: &random)
            if allowNudge && random.chance(Self.passFollowOnChance) {
                // Day 3 nudge: the user subscribes before the pass runs out.
                let monthly =
                    group.products.first { Catalog.products[$0.product].renewalDays == 30 }?.product
                    ?? Catalog.monthly1999
                let when = end - random.between(0, 8 * Micros.hour)
                startChain(product: monthly, group: group, at: when, allowNudge: false, random: &random)
            }
            return
        }
        let original: UInt64
        var chargeTime: Int64
        if product.trialDays > 0 && random.chance(0.7) {
            let trial = nextTransaction()
            var event = makeEvent(.trialStart, at: start, random: &random)
            event.product = Int8(productIndex)
            event.transaction = trial
            // One trial line in ten omits the chain id: the purchase is then matched by product.
            event.original = random.chance(0.9) ? trial : 0
            let end = start + Int64(product.trialDays) * Micros.day
            event.expiresAt = end
            append(event)
            guard random.chance(0.5) else {
                let cancelAt = start + random.between(Micros.hour, Int64(product.trialDays) * Micros.day * 9 / 10)
                addChainEvent(.cancel, product: productIndex, at: cancelAt, original: trial, random: &random)
                addChainEvent(.expire, product: productIndex, at: end, original: trial, random: &random)
                if random.chance(0.002) {
                    // A refund naming the trial: not a paid transaction, so an orphan.
                    var refund = makeEvent(.refund, at: end + Micros.hour, random: &random)
                    refund.product = Int8(productIndex)
                    refund.transaction = trial
                    refund.original = trial
                    refund.fromServer = true
                    append(refund)
                }
                return
            }
            chargeTime = end + random.between(0, 10 * Micros.minute)
            charge(
                .purchase, product: productIndex, at: chargeTime, transaction: nextTransaction(), original: trial,
                fromServer: true, expiresAt: chargeTime + Int64(product.renewalDays) * Micros.day, random: &random)
            original = trial
        } else {
            let transaction = nextTransaction()
            chargeTime = start
            charge(
                .purchase, product: productIndex, at: start, transaction: transaction, original: transaction,
                fromServer: false, expiresAt: start + Int64(product.renewalDays) * Micros.day, random: &random)
            original = transaction
        }
        let period = Int64(product.renewalDays) * Micros.day
        if random.chance(Self.immediateCancelChance) {
            // Auto-renew switched off right away: paid until the end of the period.
            let cancelAt = chargeTime + random.between(5 * Micros.minute, Micros.day)
            addChainEvent(.cancel, product: productIndex, at: cancelAt, original: original, random: &random)
            addChainEvent(.expire, product: productIndex, at: chargeTime + period, original: original, random: &random)
            return
        }
        let keepRenewing = Self.renewalChance(product)
        while true {
            let next = chargeTime + period
            if next >= configuration.horizonMicros { return }
            if random.chance(keepRenewing) {
                chargeTime = next + random.between(0, Micros.hour)
                charge(
                    .renewal, product: productIndex, at: chargeTime, transaction: nextTransaction(),
                    original: original, fromServer: true, expiresAt: chargeTime + period, random: &random)
            } else {
                let cancelAt = chargeTime + random.between(period / 10, period * 95 / 100)
                addChainEvent(.cancel, product: productIndex, at: cancelAt, original: original, random: &random)
                addChainEvent(.expire, product: productIndex, at: next, original: original, random: &random)
                return
            }
        }
    }

    /// A paid charge, and perhaps its refund: whole (no price), partial, or whole with the price.
    /// `expiresAt`: the end of the period it pays for (no random draw: the rest of the data set
    /// is the same with or without it).
    private mutating func charge(
        _ kind: EventKind, product: Int, at time: Int64, transaction: UInt64, original: UInt64, fromServer: Bool, expiresAt: Int64,
        random: inout SplitMix64
    ) {
        var event = makeEvent(kind, at: time, random: &random)
        event.expiresAt = expiresAt
        event.product = Int8(product)
        event.transaction = transaction
        event.original = original
        event.amount = Catalog.products[product].prices[currency]
        event.currency = Int8(currency)
        event.fromServer = fromServer
        append(event)
        guard random.chance(Self.refundChance(Catalog.products[product])) else { return }
        var refund = makeEvent(.refund, at: time + random.between(2 * Micros.hour, 6 * Micros.day), random: &random)
        refund.product = Int8(product)
        refund.transaction = transaction
        refund.original = original
        refund.fromServer = true
        let style = random.unit()
        if style < 0.4 {
            // No price: the whole price of the refunded transaction.
        } else if style < 0.8 {
            let share = 0.3 + 0.6 * random.unit()
            refund.amount = max(1, Int64(Double(event.amount) * share))
            refund.currency = event.currency
        } else {
            refund.amount = event.amount
            refund.currency = event.currency
        }
        append(refund)
    }

    private mutating func addChainEvent(
        _ kind: EventKind, product: Int, at time: Int64, original: UInt64, random: inout SplitMix64
    ) {
        var event = makeEvent(kind, at: time, random: &random)
        event.product = Int8(product)
        event.original = original
        event.fromServer = true
        append(event)
    }

    private mutating func add(_ kind: EventKind, at time: Int64, random: inout SplitMix64) {
        append(makeEvent(kind, at: time, random: &random))
    }

    private mutating func makeEvent(_ kind: EventKind, at time: Int64, random: inout SplitMix64) -> SimEvent {
        sequence += 1
        var event = SimEvent(time: time, sequence: sequence, kind: kind)
        event.idHigh = random.next()
        event.idLow = random.next()
        event.idSerial = sequence
        event.receiveDelay = Self.receiveDelay(&random)
        return event
    }

    /// Seconds for most lines; hours for clients that were offline (the line lands in a later
    /// day's folder).
    private static func receiveDelay(_ random: inout SplitMix64) -> Int64 {
        random.chance(0.015)
            ? random.between(Micros.hour, 20 * Micros.hour)
            : random.between(50_000, 5 * Micros.second)
    }

    /// Keeps only events the period can see (before the simulation horizon).
    private mutating func append(_ event: SimEvent) {
        if event.time < configuration.horizonMicros { events.append(event) }
    }

    /// Delivers some events twice: the same `event_id` again (half with a later `ts`), and
    /// some transactions again under a new `event_id`.
    private mutating func addDuplicates(random: inout SplitMix64) {
        let count = events.count
        for index in 0..<count {
            let event = events[index]
            if random.chance(0.012) {
                var copy = event
                sequence += 1
                copy.sequence = sequence
                copy.delivery = .redelivery
                if random.chance(0.5) { copy.time += random.between(Micros.second, 3 * Micros.hour) }
                copy.receiveDelay = Self.receiveDelay(&random)
                append(copy)
            }
            if event.kind.isTransaction && random.chance(0.015) {
                var copy = event
                sequence += 1
                copy.sequence = sequence
                copy.delivery = .resend
                copy.idHigh = random.next()
                copy.idLow = random.next()
                copy.idSerial = sequence
                copy.time += random.between(Micros.second, 10 * Micros.minute)
                copy.receiveDelay = Self.receiveDelay(&random)
                append(copy)
            }
        }
    }
}
