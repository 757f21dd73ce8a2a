import OfferLabIngest

/// Google Play's two feeds (`google_play` and `google_play_orders`) kept resolved, night after
/// night (`KeptFeedsNight`, in OfferLabEvents, keeps the entries and batches): a later night
/// joins only its new files after the kept ones (`GooglePlayJoin`) and makes again only the
/// groups of files whose events change.
///
/// Each feed's files are cut into groups of consecutive files (a night's new files are one group
/// of each feed; a whole night's, runs of about `groupLines` lines). The state kept (`KeptPlayIndex`)
/// holds, by the ids' 128-bit hashes (`IDHash`): the notifications delivered, the tokens (link,
/// chain, latest buyer), the orders (their charge, refunds and winning Order listing), every
/// charge as joined, and each chain's first paid charge; each group's records
/// (`GooglePlayKeptGroup`) hold its files' counters and notes and its notifications' refunds and
/// status changes. What only grows (the notifications, the charges, the tokens' and listings'
/// records) stays in segments a night writes once (`KeptRecords`, `KeptColumn`, `KeptHashSet`);
/// the tables a night changes (tokens, orders, chains) are written again whole.
///
/// A later night makes again only:
/// - a group holding a charge a new notification gives an earlier time, or whose Order a new
///   listing changes (its time or money), or a voided purchase whose Order's refund a new listing
///   changes;
/// - an Orders group whose refund made of an Order (a refund no notification reports) appears,
///   moves or goes;
/// - the groups of a chain's first paid charge and of the one that becomes first instead (a new
///   charge earlier, or the first made later by its Order: every kept charge of the chain competes);
/// - a group whose batch dropped events at or after its night's `as_of`, or has any at or after
///   tonight's.
/// Everything else (a kept token linked otherwise or given another buyer, a damaged state) reads
/// the night whole.
package enum GooglePlayKeptNight: KeptFeedsSource {
    package static let formats: [SourceFormat] = [.googlePlay, .googlePlayOrders]

    /// Lines a group of a whole night's files gathers before the next begins: a later night makes
    /// again a group whose records change, so groups are smaller than a log night's batches.
    static let groupLines = 1 << 13

    package static func cacheSettings(_ settings: StoreSettings) -> [[UInt8]] {
        formats.map { GooglePlayFileReader.cacheSettings($0, packageName: settings[GooglePlaySettings.self].packageName) }
    }

    package enum Reading: Sendable {
        case notifications(GooglePlayFile<GooglePlayNotification>)
        case orders(GooglePlayFile<GooglePlayOrder>)
    }

    package static func read(_ path: String, feed: Int, input: KeptFeedsInput) async throws -> Reading {
        let reader = GooglePlayFileReader(packageName: input.storeSettings[GooglePlaySettings.self].packageName, inflater: input.inflater)
        return feed == PlayFeed.notifications.rawValue
            ? .notifications(try await GooglePlayNotificationSource.read(path, with: reader, cache: input.cache))
            : .orders(try await GooglePlayOrderSource.read(path, with: reader, cache: input.cache))
    }

    package static func night(_ input: KeptFeedsInput, readings: [[Reading]]) async throws -> KeptFeedsOutcome? {
        var kept: (index: KeptPlayIndex, groups: [GooglePlayKeptGroup])?
        if let keptFeeds = input.kept {
            kept = keptFeeds.state.withUnsafeBytes { bytes in
                var entry = CacheEntryReader(bytes)
                guard let index = try? KeptPlayIndex(entry: &entry, segments: keptFeeds.segments), entry.remaining == 0,
                    index.groups.count == keptFeeds.groups.count,
                    zip(index.feedCounts, input.paths).allSatisfy({ $0 <= $1.count })
                else { return nil }
                var groups: [GooglePlayKeptGroup] = []
                for (reference, group) in zip(index.groups, keptFeeds.groups) {
                    let paths = reference.files.map { input.paths[reference.feed.rawValue][$0] }
                    guard let decoded = GooglePlayKeptGroup(group, paths: paths) else { return nil }
                    groups.append(decoded)
                }
                return (index, groups)
            }
        }
        var notificationFiles: [GooglePlayFile<GooglePlayNotification>] = []
        var orderFiles: [GooglePlayFile<GooglePlayOrder>] = []
        for reading in readings.joined() {
            switch reading {
            case .notifications(let file): notificationFiles.append(file)
            case .orders(let file): orderFiles.append(file)
            }
        }
        let firstNew = input.kept == nil ? [0, 0] : kept?.index.feedCounts
        guard let firstNew, firstNew[0] + notificationFiles.count == input.paths[0].count,
            firstNew[1] + orderFiles.count == input.paths[1].count
        else { return nil }
        return Joining(input: input, notificationFiles: notificationFiles, orderFiles: orderFiles).make(after: kept)
    }
}

/// The two feeds of a Play night.
enum PlayFeed: Int, Sendable {
    case notifications = 0
    case orders = 1
}

/// A kept group's records as tonight needs them: its counters and notes always, its
/// notifications' refunds and status changes (`remade`) only when it is made again.
struct GooglePlayKeptGroup {
    var fileCounts: [StoreCounts]
    var fileNotes: [[StoreLineNote]]
    /// Its notifications counted in `ignored_store_records`.
    var ignored: Int
    /// What resolving its records counted, per format.
    var resolutionCounts: [SourceFormat: StoreCounts]
    var eventsAtOrAfterAsOf: Int
    var latestTimestamp: Int64
    /// Its refunds and status changes as the join made them, decoded when it is made again.
    private var recordBytes: [UInt8]

    init?(_ group: KeptFeeds.Group, paths: [String]) {
        let decoded: (GooglePlayKeptGroup)? = group.records.withUnsafeBytes { bytes in
            var entry = CacheEntryReader(bytes)
            guard let count = try? entry.count(), count == paths.count else { return nil }
            var fileCounts: [StoreCounts] = []
            var fileNotes: [[StoreLineNote]] = []
            do {
                for path in paths {
                    fileCounts.append(try entry.storeCounts())
                    fileNotes.append(try entry.notes(path: path))
                }
                let ignored = Int(try entry.read(Int64.self))
                var resolutionCounts: [SourceFormat: StoreCounts] = [:]
                for _ in 0..<(try entry.count()) { resolutionCounts[try entry.sourceFormat()] = try entry.storeCounts() }
                let records = Array(try entry.bytesWithLength())
                guard entry.remaining == 0 else { return nil }
                return GooglePlayKeptGroup(
                    fileCounts: fileCounts, fileNotes: fileNotes, ignored: ignored, resolutionCounts: resolutionCounts,
                    eventsAtOrAfterAsOf: group.eventsAtOrAfterAsOf, latestTimestamp: group.latestTimestamp, recordBytes: records)
            } catch {
                return nil
            }
        }
        guard let decoded else { return nil }
        self = decoded
    }

    private init(
        fileCounts: [StoreCounts], fileNotes: [[StoreLineNote]], ignored: Int, resolutionCounts: [SourceFormat: StoreCounts],
        eventsAtOrAfterAsOf: Int, latestTimestamp: Int64, recordBytes: [UInt8]
    ) {
        self.fileCounts = fileCounts
        self.fileNotes = fileNotes
        self.ignored = ignored
        self.resolutionCounts = resolutionCounts
        self.eventsAtOrAfterAsOf = eventsAtOrAfterAsOf
        self.latestTimestamp = latestTimestamp
        self.recordBytes = recordBytes
    }

    /// Its refunds and status changes; nil when they do not decode (a damaged entry).
    var remade: (refunds: [StoreRefund], statusChanges: [StoreStatusChange])? {
        recordBytes.withUnsafeBytes { bytes in
            var entry = CacheEntryReader(bytes)
            do {
                var refunds: [StoreRefund] = []
                for _ in 0..<(try entry.count()) { refunds.append(try StoreRefund(entry: &entry)) }
                var statusChanges: [StoreStatusChange] = []
                for _ in 0..<(try entry.count()) { statusChanges.append(try StoreStatusChange(entry: &entry)) }
                return entry.remaining == 0 ? (refunds, statusChanges) : nil
            } catch {
                return nil
            }
        }
    }

    /// The records of a group made tonight, as `init(_:paths:)` reads them.
    static func encode(
        fileCounts: [StoreCounts], fileNotes: [[StoreLineNote]], ignored: Int, resolutionCounts: [SourceFormat: StoreCounts],
        refunds: [StoreRefund], statusChanges: [StoreStatusChange]
    ) -> [UInt8] {
        var entry = CacheEntryWriter(bytes: [])
        entry.append(Int64(fileCounts.count))
        for (counts, notes) in zip(fileCounts, fileNotes) {
            entry.append(counts)
            entry.append(notes)
        }
        entry.append(Int64(ignored))
        entry.append(Int64(resolutionCounts.count))
        for (format, counts) in resolutionCounts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            entry.append(format)
            entry.append(counts)
        }
        var records = CacheEntryWriter(bytes: [])
        records.append(Int64(refunds.count))
        for refund in refunds { refund.encode(into: &records) }
        records.append(Int64(statusChanges.count))
        for change in statusChanges { change.encode(into: &records) }
        entry.append(bytesOf: records.bytes)
        return entry.bytes
    }
}

/// One night's join of a Play night's new files after the kept ones (none: the whole night).
private struct Joining {
    let input: KeptFeedsInput
    /// The files after the kept ones, read.
    let notificationFiles: [GooglePlayFile<GooglePlayNotification>]
    let orderFiles: [GooglePlayFile<GooglePlayOrder>]

    /// The night after `kept` (nil: the whole night); nil when a new file cannot be read, or when
    /// what the kept files made changes in a way only the whole night tells (`kept` given).
    func make(after kept: (index: KeptPlayIndex, groups: [GooglePlayKeptGroup])?) -> KeptFeedsOutcome? {
        let (paths, userTransactions) = (input.paths, input.userTransactions)
        let asOf = input.asOf
        let tableDigest = IDHash.digest(userTransactions)
        let old = kept?.index ?? KeptPlayIndex(asOf: asOf, userTransactions: tableDigest)
        let keptGroups = kept?.groups ?? []
        let firstNew = old.feedCounts
        let oldFacts = KeptPlayFacts(index: old)
        let orderPaths = paths[1]

        var join = GooglePlayJoin(kept: kept == nil ? nil : oldFacts, keepsState: true)
        join.add(notificationFiles)
        if join.changesKeptTokens { return nil }
        var collector = GooglePlayOrderSource.Collector()
        for file in orderFiles {
            collector.add(file) { orderID in
                oldFacts.order(orderID).flatMap { oldFacts.listing(of: $0, orderPaths: orderPaths)?.lastEventAt }
            }
        }

        // Tonight's groups: the new files of each feed as one group, or a whole night's in runs.
        var state = old
        state.asOf = asOf
        state.userTransactions = tableDigest
        state.feedCounts = paths.map(\.count)
        let newCharges = join.records.transactions
        var groupOfPath: [String: Int] = [:]
        do {
            var chargePosition = 0
            for (feed, counts) in [(PlayFeed.notifications, notificationFiles.map(\.counts)), (.orders, orderFiles.map(\.counts))] {
                let start = firstNew[feed.rawValue]
                var lower = 0
                var lines = 0
                for (offset, fileCounts) in counts.enumerated() {
                    lines += fileCounts[.linesRead]
                    guard offset == counts.count - 1 || (kept == nil && lines >= GooglePlayKeptNight.groupLines) else { continue }
                    let files = start + lower..<start + offset + 1
                    let group = state.groups.count
                    let paths = files.map { input.paths[feed.rawValue][$0] }
                    for path in paths { groupOfPath[path] = group }
                    let firstCharge = chargePosition
                    if feed == .notifications {
                        let inGroup = Set(paths)
                        while chargePosition < newCharges.count, inGroup.contains(newCharges[chargePosition].sourcePath!) {
                            chargePosition += 1
                        }
                    }
                    let transactions = old.transactions.count + firstCharge..<old.transactions.count + chargePosition
                    state.groups.append(KeptPlayGroupReference(feed: feed, files: files, transactions: transactions))
                    lower = offset + 1
                    lines = 0
                }
            }
        }
        let groupOfOrdersFile = state.groupOfOrdersFile()
        var dirty = Set<Int>()
        for (group, keptGroup) in keptGroups.enumerated()
        where keptGroup.eventsAtOrAfterAsOf > 0 || keptGroup.latestTimestamp >= asOf {
            dirty.insert(group)
        }
        func makeAgain(transaction: Int) { if let group = old.group(ofTransaction: transaction) { dirty.insert(group) } }

        // The charges as the join made them, and the kept ones it gives an earlier time.
        var orderChanges: [IDHash: KeptPlayOrder] = [:]
        func order(_ orderID: String) -> (key: IDHash, value: KeptPlayOrder) {
            let key = IDHash(orderID)
            return (key, orderChanges[key] ?? old.orders.value(key) ?? KeptPlayOrder())
        }
        var changedCharges = Set<Int>()
        for (orderID, earlier) in join.earlierKeptCharges {
            let (_, value) = order(orderID)
            let charge = Int(value.transaction)
            guard var record = oldFacts.transaction(charge) else { return nil }
            record.at = earlier.at
            record.expiresAt = earlier.expiresAt
            state.transactions.replace(charge) { record.encode(into: &$0) }
            changedCharges.insert(charge)
            makeAgain(transaction: charge)
        }
        for record in newCharges {
            var (key, value) = order(record.transactionID)
            value.transaction = Int32(state.transactions.append { record.encode(into: &$0) })
            state.chargeChains.append(IDHash(record.originalTransactionID ?? record.transactionID))
            orderChanges[key] = value
        }
        for refund in join.records.refunds {
            var (key, value) = order(refund.transactionID)
            value.refundGroup = Int32(groupOfPath[refund.sourcePath!]!)
            orderChanges[key] = value
        }
        // Tonight's winning listings: a kept charge whose time or money they change, a kept
        // voided purchase whose refunded amount they change, is made again.
        let orderFileOfPath = Dictionary(uniqueKeysWithValues: orderFiles.enumerated().map { ($1.path, firstNew[1] + $0) })
        for listing in collector.listings {
            var (key, value) = order(listing.orderID)
            let oldListing = old.orders.value(key).flatMap { oldFacts.listing(of: $0, orderPaths: orderPaths) }
            if value.transaction >= 0, Int(value.transaction) < old.transactions.count {
                let charge = Int(value.transaction)
                guard let record = oldFacts.transaction(charge) else { return nil }
                if record.kind != .trial,
                    oldListing.map({ $0.details.at != listing.details.at || $0.details.money != listing.details.money }) ?? true
                {
                    changedCharges.insert(charge)
                    makeAgain(transaction: charge)
                }
            }
            if let keptOrder = old.orders.value(key), keptOrder.refundGroup >= 0,
                !Self.sameRefund(oldListing?.details, listing.details)
            {
                dirty.insert(Int(keptOrder.refundGroup))
            }
            value.listing = Int32(
                state.listings.append { entry in
                    entry.append(listing.lastEventAt)
                    listing.details.encode(into: &entry)
                })
            value.listingFile = Int32(orderFileOfPath[listing.details.sourcePath!]!)
            if value.listingSequence < 0 {
                value.listingSequence = state.nextListingSequence
                state.nextListingSequence += 1
            }
            value.listingHasRefunds = listing.details.refunds != nil ? 1 : 0
            orderChanges[key] = value
        }
        state.orders.set(orderChanges)
        // Where each refund made of an Order is now: in the group of its listing's file, when the
        // order has a charge and no notification refunded it.
        for position in state.orders.values.indices {
            let value = state.orders.values[position]
            let group: Int32 =
                value.transaction >= 0 && value.refundGroup < 0 && value.listingHasRefunds == 1
                ? Int32(groupOfOrdersFile[Int(value.listingFile)]) : -1
            guard group != value.ordersRefundGroup else { continue }
            for changed in [value.ordersRefundGroup, group] where changed >= 0 && Int(changed) < keptGroups.count {
                dirty.insert(Int(changed))
            }
            state.orders.values[position].ordersRefundGroup = group
        }
        state.notifications.insert(contentsOf: join.delivered.lazy.map(IDHash.init))
        var tokenChanges: [IDHash: Int32] = [:]
        for token in join.tokens {
            let keptToken = kept == nil ? nil : oldFacts.token(token)
            let (link, buyer, chain) = (join.links[token] ?? keptToken?.link, join.buyers[token] ?? keptToken?.buyer, join.chain(token))
            if let keptToken, keptToken.link == link, keptToken.buyer == buyer, keptToken.chain == chain { continue }
            tokenChanges[IDHash(token)] = Int32(
                state.tokenRecords.append { GooglePlayKeptToken.encode(link: link, chain: chain, buyer: buyer, of: token, into: &$0) })
        }
        state.tokens.set(tokenChanges)

        // Each chain's first paid charge, where tonight's charges or times change it.
        var facts = KeptPlayFacts(index: state)
        func details(_ orderID: String) -> StoreChargeDetails? {
            facts.order(orderID).flatMap { facts.listing(of: $0, orderPaths: orderPaths)?.details }
        }
        /// Charge `index` as tonight's Orders complete it.
        func charge(_ index: Int) -> StoreTransaction? {
            guard var record = facts.transaction(index) else { return nil }
            if let details = details(record.transactionID) { record.complete(with: details) }
            return record
        }
        var candidates: [String: [Int]] = [:]
        for index in changedCharges.sorted() + Array(old.transactions.count..<state.transactions.count) {
            guard let record = charge(index) else { return nil }
            guard record.kind != .trial else { continue }
            candidates[record.originalTransactionID ?? record.transactionID, default: []].append(index)
        }
        var chainChanges: [IDHash: KeptPlayChain] = [:]
        for (chain, indices) in candidates {
            var competing = indices
            let keptFirst = oldFacts.chain(chain)
            if let keptFirst {
                let keptIndex = Int(keptFirst.transaction)
                guard let keptRecord = charge(keptIndex) else { return nil }
                if keptRecord.at > keptFirst.at {
                    // Made later, the kept first may no longer be first: every kept charge of the chain competes.
                    let key = IDHash(chain)
                    competing += old.chargeChains.indices { $0 == key }
                } else {
                    competing.append(keptIndex)
                }
            }
            var first: (order: ChargeOrder, index: Int)?
            for index in competing {
                guard let record = charge(index) else { return nil }
                if record.kind != .trial, first.map({ ChargeOrder(record) < $0.order }) ?? true { first = (ChargeOrder(record), index) }
            }
            guard let first, let record = charge(first.index) else { continue }
            chainChanges[IDHash(chain)] = KeptPlayChain(at: record.at, order: IDHash(record.transactionID), transaction: Int64(first.index))
            // The charge that stops being the first and the one that becomes it change their events.
            if let keptFirst, Int(keptFirst.transaction) != first.index {
                makeAgain(transaction: Int(keptFirst.transaction))
                makeAgain(transaction: first.index)
            }
        }
        state.chains.set(chainChanges)
        facts = KeptPlayFacts(index: state)
        func isFirstPaidCharge(_ record: StoreTransaction, chain: String) -> Bool {
            facts.chain(chain)?.order == IDHash(record.transactionID)
        }
        // The charge event of a refund's order outside the group resolved.
        func chargeEvent(_ orderID: String) -> StoreEvent? {
            guard let order = facts.order(orderID), order.transaction >= 0, let record = charge(Int(order.transaction)) else { return nil }
            return StoreEventResolver.chargeEvent(of: record, userTransactions: userTransactions)
        }

        // The Orders groups' refunds made of Orders, by group, in the order first listed.
        var ordersRefunds: [Int: [(sequence: Int64, order: KeptPlayOrder)]] = [:]
        for value in state.orders.values where value.ordersRefundGroup >= 0 {
            let group = Int(value.ordersRefundGroup)
            if group >= keptGroups.count || dirty.contains(group) {
                ordersRefunds[group, default: []].append((value.listingSequence, value))
            }
        }

        // The groups, kept or made again, and resolved.
        var made = KeptFeedsOutcome()
        made.counts = [.googlePlay: StoreCounts(), .googlePlayOrders: StoreCounts()]
        let fileOffset = [0, paths[0].count]
        var eventsByPath: [String: [StoreEvent]] = [:]
        var newReadings: [String: (counts: StoreCounts, notes: [StoreLineNote])] = [:]
        for file in notificationFiles { newReadings[file.path] = (file.counts, file.notes) }
        for file in orderFiles { newReadings[file.path] = (file.counts, file.notes) }
        var ignoredByPath: [String: Int] = [:]
        for (file, ignored) in zip(notificationFiles, join.ignored) { ignoredByPath[file.path] = ignored }
        var perFile: [String: (counts: StoreCounts, notes: [StoreLineNote])] = [:]
        for (position, reference) in state.groups.enumerated() {
            let feed = reference.feed.rawValue
            let groupPaths = reference.files.map { paths[feed][$0] }
            let files = fileOffset[feed] + reference.files.lowerBound..<fileOffset[feed] + reference.files.upperBound
            let keptGroup = position < keptGroups.count ? keptGroups[position] : nil
            let format: SourceFormat = reference.feed == .notifications ? .googlePlay : .googlePlayOrders
            for (offset, path) in groupPaths.enumerated() {
                perFile[path] = keptGroup.map { ($0.fileCounts[offset], $0.fileNotes[offset]) } ?? newReadings[path]!
            }
            let ignored = keptGroup?.ignored ?? groupPaths.reduce(0) { $0 + (ignoredByPath[$1] ?? 0) }
            made.counts[format]![.ignoredStoreRecords] += ignored
            if let keptGroup, !dirty.contains(position) {
                for (format, counts) in keptGroup.resolutionCounts { made.counts[format, default: StoreCounts()] += counts }
                made.groups.append((files, position, []))
                continue
            }
            var records = GroupRecords()
            var keptRefunds: [StoreRefund] = []
            var statusChanges: [StoreStatusChange] = []
            if reference.feed == .notifications {
                records.transactions = reference.transactions.compactMap(charge)
                guard records.transactions.count == reference.transactions.count else { return nil }
                if let keptGroup {
                    guard let remade = keptGroup.remade else { return nil }
                    (keptRefunds, statusChanges) = remade
                } else {
                    let inGroup = Set(groupPaths)
                    keptRefunds = join.records.refunds.filter { inGroup.contains($0.sourcePath!) }
                    statusChanges = join.records.statusChanges.filter { inGroup.contains($0.sourcePath!) }
                }
                records.refunds = keptRefunds.map { refund in
                    var refund = refund
                    if let details = details(refund.transactionID) { _ = refund.complete(with: details) }
                    return refund
                }
            } else {
                for (_, order) in (ordersRefunds[position] ?? []).sorted(by: { $0.sequence < $1.sequence }) {
                    guard let record = facts.transaction(Int(order.transaction)),
                        let listing = facts.listing(of: order, orderPaths: orderPaths),
                        let refund = StoreRefund(detailing: record, with: listing.details)
                    else { return nil }
                    records.refunds.append(refund)
                }
            }
            let resolution = StoreEventResolver.resolve(
                transactions: records.transactions, refunds: records.refunds, statusChanges: statusChanges, refundReversals: [],
                userTransactions: userTransactions, asOf: asOf, isFirstPaidCharge: isFirstPaidCharge, chargeResolvedBefore: chargeEvent)
            for (format, counts) in resolution.counts { made.counts[format, default: StoreCounts()] += counts }
            for event in resolution.events { eventsByPath[event.sourcePath!, default: []].append(event) }
            made.groups.append(
                (
                    files, nil,
                    GooglePlayKeptGroup.encode(
                        fileCounts: groupPaths.map { perFile[$0]!.counts }, fileNotes: groupPaths.map { perFile[$0]!.notes },
                        ignored: ignored, resolutionCounts: resolution.counts, refunds: keptRefunds, statusChanges: statusChanges)
                ))
        }
        for (feed, format) in [(0, SourceFormat.googlePlay), (1, .googlePlayOrders)] {
            for path in paths[feed] {
                let (counts, notes) = perFile[path]!
                made.counts[format]! += counts
                made.fileCounts[path] = counts
                made.notes += notes
                made.files.append((path, format, eventsByPath[path] ?? []))
            }
        }
        var entry = CacheEntryWriter(bytes: [])
        state.encode(into: &entry, segmentSources: &made.segments)
        made.state = entry.bytes
        return made
    }

    /// Whether `old` and `new` details give a refund of their order the same amount and currency.
    static func sameRefund(_ old: StoreChargeDetails?, _ new: StoreChargeDetails) -> Bool {
        old?.refunds?.amountMicros == new.refunds?.amountMicros && (new.refunds == nil || old?.money.currency == new.money.currency)
    }
}

/// The records of a group made tonight, completed by their Orders.
private struct GroupRecords {
    var transactions: [StoreTransaction] = []
    var refunds: [StoreRefund] = []
}

/// An order as the kept files left it (`KeptPlayIndex.orders`). Written as it is in memory: its
/// fields leave no padding between them.
package struct KeptPlayOrder: BitwiseCopyable, Sendable {
    /// Its charge in `KeptPlayIndex.transactions`; -1: no notification delivered it.
    var transaction: Int32 = -1
    /// The group of the notification that refunded it; -1: none.
    var refundGroup: Int32 = -1
    /// The Orders group holding the refund made of its Order (no notification refunded it); -1: none.
    var ordersRefundGroup: Int32 = -1
    /// Its winning Order listing in `KeptPlayIndex.listings`, and the Orders file that holds it; -1: none.
    var listing: Int32 = -1
    var listingFile: Int32 = -1
    /// 1 when the listing holds refunds, else 0.
    var listingHasRefunds: Int32 = 0
    /// Where the order stands in the order the orders were first listed; -1: never listed.
    var listingSequence: Int64 = -1
}

/// A chain's first paid charge: its time, its order and its index in `KeptPlayIndex.transactions`.
struct KeptPlayChain: BitwiseCopyable, Sendable {
    var at: Int64
    var order: IDHash
    var transaction: Int64
}

/// A kept group of files as the state lists it.
struct KeptPlayGroupReference: Sendable {
    var feed: PlayFeed
    /// Its files in its feed.
    var files: Range<Int>
    /// Its charges in `KeptPlayIndex.transactions` (a notifications group's).
    var transactions: Range<Int>
}

/// What a kept Play night keeps for a later one (`GooglePlayKeptNight`).
struct KeptPlayIndex: Sendable {
    var asOf: Int64
    var userTransactions: IDHash
    /// Per feed (`PlayFeed`), how many files it had.
    var feedCounts = [0, 0]
    var groups: [KeptPlayGroupReference] = []
    /// The notifications delivered: their ids' hashes.
    var notifications = KeptHashSet()
    /// Every token named, each a record of `tokenRecords` (`KeptTokenRecord`).
    var tokens = KeptTable<Int32>()
    var tokenRecords = KeptRecords()
    var orders = KeptTable<KeptPlayOrder>()
    /// Every charge as the join made it (before its Order completes it), in the order made, and
    /// the hash of each one's chain.
    var transactions = KeptRecords()
    var chargeChains = KeptColumn<IDHash>()
    /// The winning listings of the orders (`lastEventAt`, then the details without their path).
    var listings = KeptRecords()
    var chains = KeptTable<KeptPlayChain>()
    /// The sequence the next order first listed takes.
    var nextListingSequence: Int64 = 0

    init(asOf: Int64, userTransactions: IDHash) {
        self.asOf = asOf
        self.userTransactions = userTransactions
    }

    /// The group of each Orders file.
    func groupOfOrdersFile() -> [Int] {
        var groupOf = [Int](repeating: -1, count: feedCounts[1])
        for (group, reference) in groups.enumerated() where reference.feed == .orders {
            for file in reference.files { groupOf[file] = group }
        }
        return groupOf
    }

    /// The group of charge `transaction`.
    func group(ofTransaction transaction: Int) -> Int? {
        groups.firstIndex { $0.feed == .notifications && $0.transactions.contains(transaction) }
    }
}

/// What the join of later files asks of the kept files (`GooglePlayKeptNotifications`), and the
/// kept records by id. A class: the night's lookups pass it around without copying the state.
final class KeptPlayFacts: GooglePlayKeptNotifications {
    let index: KeptPlayIndex

    init(index: KeptPlayIndex) { self.index = index }

    func delivered(notification id: String) -> Bool { index.notifications.contains(IDHash(id)) }

    func token(_ token: String) -> GooglePlayKeptToken? {
        guard let record = index.tokens.value(IDHash(token)) else { return nil }
        return index.tokenRecords.record(Int(record)) { try GooglePlayKeptToken(entry: &$0, token: token) }
    }

    func chargeAt(order orderID: String) -> Int64? {
        guard let order = order(orderID), order.transaction >= 0 else { return nil }
        return transaction(Int(order.transaction))?.at
    }

    func refunded(order orderID: String) -> Bool { (order(orderID)?.refundGroup ?? -1) >= 0 }

    func order(_ orderID: String) -> KeptPlayOrder? {
        index.orders.value(IDHash(orderID))
    }

    /// Charge `index` as the join made it.
    func transaction(_ transaction: Int) -> StoreTransaction? {
        index.transactions.record(transaction) { try StoreTransaction(entry: &$0) }
    }

    /// The order's winning listing: its `lastEventTime` and details (their path that of its file in
    /// `orderPaths`).
    func listing(of order: KeptPlayOrder, orderPaths: [String]) -> (lastEventAt: Int64, details: StoreChargeDetails)? {
        guard order.listing >= 0, orderPaths.indices.contains(Int(order.listingFile)) else { return nil }
        return index.listings.record(Int(order.listing)) { entry in
            let lastEventAt = try entry.read(Int64.self)
            var details = try StoreChargeDetails(entry: &entry)
            details.sourcePath = orderPaths[Int(order.listingFile)]
            return (lastEventAt, details)
        }
    }

    func chain(_ chain: String) -> KeptPlayChain? {
        index.chains.value(IDHash(chain))
    }
}

extension GooglePlayKeptToken {
    static func encode(link: String?, chain: String, buyer: StoreBuyer?, of token: String, into entry: inout CacheEntryWriter) {
        entry.append(text: link)
        // Most chains are their own first token: that one is not written twice.
        entry.append(text: chain == token ? nil : chain)
        entry.append(UInt8(buyer == nil ? 0 : 1))
        if let buyer { entry.append(buyer) }
    }

    init(entry: inout CacheEntryReader, token: String) throws {
        let link = try entry.text()
        let chain = try entry.text() ?? token
        let buyer: StoreBuyer? =
            switch try entry.read(UInt8.self) {
            case 0: nil
            case 1: try entry.buyer()
            default: throw CacheEntryReader.Damaged()
            }
        self.init(link: link, chain: chain, buyer: buyer)
    }
}

extension StoreTransaction {
    /// A Play charge as the join makes it: no refund, no shares.
    func encode(into entry: inout CacheEntryWriter) {
        entry.append(format)
        let kindCode: UInt8 =
            switch kind {
            case .trial: 0
            case .firstCharge: 1
            case .laterCharge: 2
            case .chargeByChainOrder: 3
            }
        entry.append(kindCode)
        entry.append(at)
        entry.append(optional: expiresAt)
        for text in [transactionID, originalTransactionID, productID, money.currency, sourcePath] { entry.append(text: text) }
        entry.append(optional: money.priceMicros)
        entry.append(optional: money.proceedsMicros)
        entry.append(buyer)
    }

    init(entry: inout CacheEntryReader) throws {
        let format = try entry.sourceFormat()
        let kind: Kind =
            switch try entry.read(UInt8.self) {
            case 0: .trial
            case 1: .firstCharge
            case 2: .laterCharge
            case 3: .chargeByChainOrder
            default: throw CacheEntryReader.Damaged()
            }
        let at = try entry.read(Int64.self)
        let expiresAt = try entry.optionalInt64()
        let (transactionID, originalTransactionID, productID, currency, sourcePath) = (
            try entry.requiredText(), try entry.text(), try entry.text(), try entry.text(), try entry.text()
        )
        let money = Money(priceMicros: try entry.optionalInt64(), currency: currency, proceedsMicros: try entry.optionalInt64())
        self.init(
            format: format, transactionID: transactionID, originalTransactionID: originalTransactionID, productID: productID, kind: kind,
            at: at, money: money, buyer: try entry.buyer())
        self.expiresAt = expiresAt
        self.sourcePath = sourcePath
    }
}

extension StoreChargeDetails {
    /// Without its path (its file's, kept apart).
    func encode(into entry: inout CacheEntryWriter) {
        entry.append(format)
        entry.append(text: transactionID)
        entry.append(at)
        entry.append(text: money.currency)
        entry.append(optional: money.priceMicros)
        entry.append(optional: money.proceedsMicros)
        entry.append(UInt8(refunds == nil ? 0 : 1))
        if let refunds {
            entry.append(refunds.at)
            entry.append(refunds.amountMicros)
        }
    }

    init(entry: inout CacheEntryReader) throws {
        let format = try entry.sourceFormat()
        let transactionID = try entry.requiredText()
        let at = try entry.read(Int64.self)
        let currency = try entry.text()
        let money = StoreTransaction.Money(
            priceMicros: try entry.optionalInt64(), currency: currency, proceedsMicros: try entry.optionalInt64())
        let refunds: Refunds? =
            switch try entry.read(UInt8.self) {
            case 0: nil
            case 1: Refunds(at: try entry.read(Int64.self), amountMicros: try entry.read(Int64.self))
            default: throw CacheEntryReader.Damaged()
            }
        self.init(format: format, transactionID: transactionID, at: at, money: money, refunds: refunds)
    }
}

extension StoreRefund {
    func encode(into entry: inout CacheEntryWriter) {
        entry.append(format)
        for text in [transactionID, originalTransactionID, productID, currency, sourcePath] { entry.append(text: text) }
        entry.append(at)
        entry.append(optional: amountMicros)
        entry.append(UInt8(amountUnknown ? 1 : 0))
        entry.append(buyer)
    }

    init(entry: inout CacheEntryReader) throws {
        let format = try entry.sourceFormat()
        let (transactionID, originalTransactionID, productID, currency, sourcePath) = (
            try entry.requiredText(), try entry.text(), try entry.text(), try entry.text(), try entry.text()
        )
        let at = try entry.read(Int64.self)
        let amount = try entry.optionalInt64()
        let unknown = try entry.read(UInt8.self)
        guard unknown < 2 else { throw CacheEntryReader.Damaged() }
        self.init(
            format: format, transactionID: transactionID, originalTransactionID: originalTransactionID, productID: productID, at: at,
            amountMicros: amount, currency: currency, buyer: try entry.buyer())
        amountUnknown = unknown == 1
        self.sourcePath = sourcePath
    }
}

extension StoreStatusChange {
    func encode(into entry: inout CacheEntryWriter) {
        entry.append(format)
        entry.append(text: id)
        entry.append(UInt8(event == .cancel ? 0 : 1))
        entry.append(at)
        for text in [originalTransactionID, transactionID, productID, sourcePath] { entry.append(text: text) }
        entry.append(buyer)
    }

    init(entry: inout CacheEntryReader) throws {
        let format = try entry.sourceFormat()
        let id = try entry.requiredText()
        let event: EventType =
            switch try entry.read(UInt8.self) {
            case 0: .cancel
            case 1: .expire
            default: throw CacheEntryReader.Damaged()
            }
        let at = try entry.read(Int64.self)
        let (originalTransactionID, transactionID, productID, sourcePath) = (
            try entry.text(), try entry.text(), try entry.text(), try entry.text()
        )
        self.init(
            format: format, id: id, event: event, at: at, originalTransactionID: originalTransactionID, transactionID: transactionID,
            productID: productID, buyer: try entry.buyer())
        self.sourcePath = sourcePath
    }
}

extension KeptPlayIndex {
    func encode(into entry: inout CacheEntryWriter, segmentSources: inout [KeptSegmentSource]) {
        // Written in one go: a state grown by doubling is copied and faulted in several times.
        let tables = tokens.keys.count + orders.keys.count + chains.keys.count
        let offsets = tokenRecords.count + transactions.count + listings.count
        entry.bytes.reserveCapacity(
            entry.bytes.count + 4096 + groups.count * 33 + tables * MemoryLayout<IDHash>.stride + tokens.values.count * 4
                + orders.values.count * MemoryLayout<KeptPlayOrder>.stride + chains.values.count * MemoryLayout<KeptPlayChain>.stride
                + offsets * 8)
        entry.append(asOf)
        entry.append(userTransactions.first)
        entry.append(userTransactions.second)
        for count in feedCounts { entry.append(Int64(count)) }
        entry.append(Int64(groups.count))
        for group in groups {
            entry.append(UInt8(group.feed.rawValue))
            for bound in [group.files.lowerBound, group.files.upperBound, group.transactions.lowerBound, group.transactions.upperBound] {
                entry.append(Int64(bound))
            }
        }
        notifications.encode(into: &entry, segmentSources: &segmentSources)
        tokens.encode(into: &entry)
        tokenRecords.encode(into: &entry, segmentSources: &segmentSources)
        orders.encode(into: &entry)
        transactions.encode(into: &entry, segmentSources: &segmentSources)
        chargeChains.encode(into: &entry, segmentSources: &segmentSources)
        listings.encode(into: &entry, segmentSources: &segmentSources)
        chains.encode(into: &entry)
        entry.append(nextListingSequence)
    }

    /// - Parameter segments: the segments the state names (`KeptFeeds.segments`).
    /// - Throws: `CacheEntryReader.Damaged` when the payload is not one `encode` wrote, or an
    ///   index in it points past what it indexes.
    init(entry: inout CacheEntryReader, segments: [KeptSegment]) throws {
        self.init(
            asOf: try entry.read(Int64.self),
            userTransactions: IDHash(first: try entry.read(UInt64.self), second: try entry.read(UInt64.self))
        )
        feedCounts = try (0..<2).map { _ in
            let count = try entry.read(Int64.self)
            guard count >= 0 else { throw CacheEntryReader.Damaged() }
            return Int(count)
        }
        for _ in 0..<(try entry.count()) {
            guard let feed = PlayFeed(rawValue: Int(try entry.read(UInt8.self))) else { throw CacheEntryReader.Damaged() }
            let bounds = try (0..<4).map { _ in Int(try entry.read(Int64.self)) }
            guard bounds[0] <= bounds[1], bounds[2] <= bounds[3], bounds[0] >= 0, bounds[2] >= 0 else { throw CacheEntryReader.Damaged() }
            groups.append(
                KeptPlayGroupReference(feed: feed, files: bounds[0]..<bounds[1], transactions: bounds[2]..<bounds[3]))
        }
        notifications = try KeptHashSet(entry: &entry, segments: segments)
        tokens = try KeptTable(entry: &entry)
        tokenRecords = try KeptRecords(entry: &entry, segments: segments)
        orders = try KeptTable(entry: &entry)
        transactions = try KeptRecords(entry: &entry, segments: segments)
        chargeChains = try KeptColumn(entry: &entry, segments: segments)
        listings = try KeptRecords(entry: &entry, segments: segments)
        chains = try KeptTable(entry: &entry)
        nextListingSequence = try entry.read(Int64.self)
        let (groupCount, orderFiles) = (Int32(groups.count), Int32(feedCounts[1]))
        guard chargeChains.count == transactions.count,
            groups.allSatisfy({ $0.files.upperBound <= feedCounts[$0.feed.rawValue] && $0.transactions.upperBound <= transactions.count }),
            tokens.values.allSatisfy({ $0 >= 0 && Int($0) < tokenRecords.count }),
            chains.values.allSatisfy({ $0.transaction >= 0 && Int($0.transaction) < transactions.count }),
            orders.values.allSatisfy({ order in
                order.transaction < Int32(transactions.count) && order.refundGroup < groupCount && order.ordersRefundGroup < groupCount
                    && order.listing < Int32(listings.count) && order.listingFile < orderFiles
                    && (order.listing < 0) == (order.listingFile < 0)
                    && (order.listingHasRefunds == 0 || order.listingHasRefunds == 1)
            })
        else { throw CacheEntryReader.Damaged() }
    }
}
