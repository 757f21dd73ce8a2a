import OfferLabEvents
import OfferLabIngest
import OfferLabProjection
import OfferLabSupport
import OfferLabTables

/// The app's past (docs/statistics.md#the-apps-past): every subscription chain of the night's
/// logs and `history_logs` files (`PastFile`, or the chains read from them, `PastChains`), each
/// reduced to what the projection counts of it (its product, charges, last charge and whether that
/// was refunded, the charges after which its renewal was turned off) and its user, so that each
/// offering counts the chains of the users who are not its members (`past(ofMembers:)`).
package struct AppPast: Sendable {
    /// The products, as the projection of every offering knows them.
    private let catalog: ProjectionCatalog
    /// Every chain with a charge, read to its end: its user is the population's index of its first
    /// charge's user (-1: a user the assignment table does not hold), its product an index into
    /// `catalog`'s products.
    private var chains: [PastChain] = []
    private let asOf: Int64
    /// The app's own track record's cohorts (docs/statistics.md#the-apps-own-track-record),
    /// counted from the chains' charges and refunds as they are read.
    package private(set) var backtest: BacktestCohorts

    /// Reads the chains of the night's `logs` and of the `past` files (`LogIngest.readPast`), whose
    /// users are looked up in `users` (the population's). Sandbox events are left out (as clean-up
    /// leaves them out); so is a charge or refund with neither an `original_transaction_id` nor a
    /// user of the assignment table, whose chain cannot be told (a chain is its
    /// `original_transaction_id`, else its user and product, as for the members): the same text in
    /// the logs and in any past file is the same chain. A charge seen twice (the same transaction
    /// at the same time, in two files) counts once. `rates` (by upper-case currency code) give the
    /// chains' money in the report currency for the app's own track record (`backtest`).
    package init(
        logs: EventStore, past: [PastFile], users: ByteStringInterner, offeringCatalog: OfferingCatalog, asOf: Int64,
        rates: [String: Double]
    ) {
        self.asOf = asOf
        let catalog = ProjectionCatalog(offeringCatalog, labels: logs.labels)
        self.catalog = catalog
        var events = Self.moneyEvents(of: logs, catalog: catalog, reserving: past.reduce(0) { $0 + $1.events.count })
        // Per source (0: the logs, then the files): the rate of each label that names a currency.
        let sourceRates = [Self.rates(rates, of: logs.labels)] + past.map { Self.rates(rates, of: $0.labels) }
        // The past's chains in the logs' ids: an `original_transaction_id` (a product) the logs
        // have is theirs (a chain may run on from the past into the logs), any other gets an id
        // after theirs, the same in every past file. Only these are looked up and interned, never
        // a charge's own `transaction_id` (`sameTransaction` compares those as text).
        var pastTransactions = ByteStringInterner(capacity: past.reduce(0) { $0 + $1.originalTransactions.count })
        var pastLabels = ByteStringInterner()
        for (file, source) in zip(past, 1...) {
            let fileUsers = users.lookupAll(of: file.users)
            let products = catalog.indices(ofLabels: file.labels)
            var chainIDs = logs.transactions.lookupAll(of: file.originalTransactions)
            for id in chainIDs.indices where chainIDs[id] < 0 {
                chainIDs[id] = file.originalTransactions.withBytes(of: Int32(id)) {
                    Int32(logs.transactions.count) + pastTransactions.intern($0)
                }
            }
            var labelIDs = [Int32](repeating: -2, count: file.labels.count)
            for event in file.events {
                let user = fileUsers[Int(event.user)]
                let original = event.originalTransaction >= 0 ? chainIDs[Int(event.originalTransaction)] : -1
                // A product label only tells a chain without `original_transaction_id`.
                var label = event.product
                if original < 0 && label >= 0 {
                    if labelIDs[Int(label)] == -2 {
                        labelIDs[Int(label)] = file.labels.withBytes(of: label) {
                            logs.labels.lookup($0) ?? Int32(logs.labels.count) + pastLabels.intern($0)
                        }
                    }
                    label = labelIDs[Int(label)]
                }
                guard let chain = PastMoneyEvent.chainKey(originalTransaction: original, user: user, productLabel: label) else { continue }
                events.append(
                    PastMoneyEvent(
                        chain: chain, time: event.time, kind: event.kind,
                        product: event.product >= 0 ? products[Int(event.product)] : Int32(catalog.index(ofLabel: -1)), user: user,
                        source: Int32(source), transaction: event.transaction, details: (event.expiresAt, event.price, event.currency)))
            }
        }
        var chains: [PastChain] = []
        var backtest = BacktestCohorts(catalog: catalog, asOf: asOf, earliest: events.lazy.map(\.time).min() ?? asOf)
        var chainEvents: [BacktestCohorts.Event] = []
        PastChain.read(&events, transactions: [logs.transactions] + past.map(\.transactions), start: { _, _ in nil }) { _, chain, counted in
            guard chain.chargeCount > 0 else { return }
            chains.append(chain)
            chainEvents.removeAll(keepingCapacity: true)
            for event in counted {
                chainEvents.append(
                    BacktestCohorts.Event(
                        time: event.time, expiresAt: event.expiresAt, kind: event.kind,
                        amount: Self.amount(event.price, currency: event.currency, rates: sourceRates[Int(event.source)])))
            }
            backtest.addChain(product: Int(chain.product), events: chainEvents)
        }
        self.chains = chains
        self.backtest = backtest
    }

    /// The same as `init(logs:past:…)` on the files `chains` was read from, or nil when the logs
    /// continue a chain of the past at or before its latest event there (a charge the logs repeat,
    /// a refund at the time of a charge): only its files' events then tell how. A chain the logs
    /// continue only after it is carried on from where the past left it, its events kept with it
    /// (`PastChains.events`) followed by the logs'.
    package init?(
        logs: EventStore, chains past: PastChains, users: ByteStringInterner, offeringCatalog: OfferingCatalog, asOf: Int64,
        rates: [String: Double]
    ) {
        self.asOf = asOf
        let catalog = ProjectionCatalog(offeringCatalog, labels: logs.labels)
        self.catalog = catalog
        var events = Self.moneyEvents(of: logs, catalog: catalog, reserving: 0)
        let (logsRates, pastRates) = (Self.rates(rates, of: logs.labels), Self.rates(rates, of: past.labels))
        let pastUsers = users.lookupAll(of: past.users)
        let products = catalog.indices(ofLabels: past.labels)
        let unlabelled = Int32(catalog.index(ofLabel: -1))
        let logsOriginals = logs.transactions.lookupAll(of: past.originalTransactions)
        let logsLabels = (0..<Int32(past.labels.count)).map { label in past.labels.withBytes(of: label) { logs.labels.lookup($0) ?? -1 } }
        // The past's chains the logs may continue, by the key the logs' events give them.
        var continuable: [Int64: Int] = [:]
        for (index, keyed) in past.chains.enumerated() {
            let key: Int64?
            if keyed.originalTransaction >= 0 {
                let original = logsOriginals[Int(keyed.originalTransaction)]
                key = original >= 0 ? Int64(original) : nil
            } else {
                let label = keyed.keyLabel >= 0 ? logsLabels[Int(keyed.keyLabel)] : -1
                key =
                    keyed.keyLabel >= 0 && label < 0
                    ? nil : PastMoneyEvent.chainKey(originalTransaction: -1, user: pastUsers[Int(keyed.keyUser)], productLabel: label)
            }
            if let key { continuable[key] = index }
        }
        func inTheNightsIDs(_ chain: PastChain) -> PastChain {
            var chain = chain
            if chain.chargeCount > 0 {
                chain.user = pastUsers[Int(chain.user)]
                chain.product = chain.product >= 0 ? products[Int(chain.product)] : unlabelled
            }
            return chain
        }
        var continued = [Bool](repeating: false, count: past.chains.count)
        var overlaps = false
        var chains: [PastChain] = []
        var backtest = BacktestCohorts(
            catalog: catalog, asOf: asOf,
            earliest: min(past.events.lazy.map(\.time).min() ?? asOf, events.lazy.map(\.time).min() ?? asOf))
        var chainEvents: [BacktestCohorts.Event] = []
        // The kept events of the past's chain `index` into `chainEvents`, after emptying it.
        func keptEvents(of index: Int?) {
            chainEvents.removeAll(keepingCapacity: true)
            guard let index else { return }
            for event in past.events[Int(past.chains[index].eventsStart)..<Int(past.chains[index].eventsEnd)] {
                chainEvents.append(
                    BacktestCohorts.Event(
                        time: event.time, expiresAt: event.expiresAt, kind: event.kind,
                        amount: Self.amount(event.price, currency: event.currency, rates: pastRates)))
            }
        }
        PastChain.read(
            &events, transactions: [logs.transactions],
            start: { key, firstTime in
                guard let index = continuable[key] else { return nil }
                continued[index] = true
                if firstTime <= past.chains[index].chain.lastEventTime { overlaps = true }
                return inTheNightsIDs(past.chains[index].chain)
            }
        ) { key, chain, counted in
            guard chain.chargeCount > 0 else { return }
            chains.append(chain)
            keptEvents(of: continuable[key])
            for event in counted {
                chainEvents.append(
                    BacktestCohorts.Event(
                        time: event.time, expiresAt: event.expiresAt, kind: event.kind,
                        amount: Self.amount(event.price, currency: event.currency, rates: logsRates)))
            }
            backtest.addChain(product: Int(chain.product), events: chainEvents)
        }
        if overlaps { return nil }
        for (index, keyed) in past.chains.enumerated() where !continued[index] && keyed.chain.chargeCount > 0 {
            // A chain told by a user the assignment table does not hold tonight cannot be told.
            if keyed.originalTransaction < 0 && pastUsers[Int(keyed.keyUser)] < 0 { continue }
            let chain = inTheNightsIDs(keyed.chain)
            chains.append(chain)
            keptEvents(of: index)
            backtest.addChain(product: Int(chain.product), events: chainEvents)
        }
        self.chains = chains
        self.backtest = backtest
    }

    /// The logs' paid charges, refunds and cancels (`source` 0), room for `reserving` more.
    private static func moneyEvents(of logs: EventStore, catalog: ProjectionCatalog, reserving: Int) -> [PastMoneyEvent] {
        var events: [PastMoneyEvent] = []
        logs.forEachSegment { _, segment, _ in
            segment.forEachRecord { _, record, shape, detailsIndex in
                guard let kind = shape.pastEventKind else { return }
                let details = segment.storeDetails(segment.details[Int(detailsIndex)])
                let user = record.user.populationIndex ?? -1
                guard
                    let chain = PastMoneyEvent.chainKey(
                        originalTransaction: details.originalTransaction, user: user, productLabel: details.product)
                else { return }
                events.append(
                    PastMoneyEvent(
                        chain: chain, time: record.timestamp, kind: kind, product: Int32(catalog.index(ofLabel: details.product)),
                        user: user, source: 0, transaction: details.transaction,
                        details: (details.expiresAt, details.price, details.currency)))
            }
        }
        events.reserveCapacity(events.count + reserving)
        return events
    }

    /// Per label of `labels`: the rate of the currency it names (nil: none).
    private static func rates(_ rates: [String: Double], of labels: ByteStringInterner) -> [Double?] {
        (0..<Int32(labels.count)).map { rates[labels.string(of: $0).uppercased()] }
    }

    /// `price` micro-units of `currency` (a label with a rate in `rates`, -1: none) in the report
    /// currency, 0 without a rate; nil without a price.
    private static func amount(_ price: Int64, currency: Int32, rates: [Double?]) -> Double? {
        guard price != EventRecord.noPrice else { return nil }
        return Double(price) / 1_000_000 * ((currency >= 0 ? rates[Int(currency)] : nil) ?? 0)
    }

    /// Per product of `catalog`, the past of `offering`: the chains of users with no assignment row
    /// for it (`members`, sorted by user index, the excluded ones of several groups included: they
    /// saw the test too).
    package func past(ofMembers members: [Member]) -> [ProductPast] {
        var builder = ProductPastBuilder(products: catalog.products, asOf: asOf)
        // A flag per user index: one test per chain, where a search of the members took a
        // cache miss per step (a year of past has hundreds of thousands of chains).
        var isMember = [Bool](repeating: false, count: Int(members.last?.user ?? -1) + 1)
        for member in members { isMember[Int(member.user)] = true }
        for chain in chains {
            if chain.user >= 0 && Int(chain.user) < isMember.count && isMember[Int(chain.user)] { continue }
            builder.addChain(
                product: Int(chain.product), chargeCount: Int(chain.chargeCount), lastChargeTime: chain.lastChargeTime,
                lastExpiresAt: chain.lastExpiresAt == EventRecord.noTime ? nil : chain.lastExpiresAt,
                lastChargeRefunded: chain.lastChargeRefunded, turnedOffAfterCharge: chain.turnedOffAfterCharge)
        }
        return builder.past
    }
}
