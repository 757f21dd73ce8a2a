import OfferLabIngest

/// One file of a Google Play source read whole: its usable lines (notifications or Orders) in
/// file order, its counters and its rejected lines. Gzip or not, several members, `\r\n`, blank
/// lines and a last line without its newline as in the purchase logs (docs/input-formats.md#lines).
package struct GooglePlayFile<Record: Sendable>: NotedStoreFileReading {
    package let path: String
    /// `lines_read` (the non-blank lines) and the malformed lines by reason.
    package private(set) var counts = StoreCounts()
    package private(set) var notes: [StoreLineNote] = []
    private(set) var lines: [Record] = []

    /// - Throws: `IngestError`: the file cannot be read or decompressed.
    init(path: String, inflater: Inflater, read: ([UInt8]) throws(StoreLineRejection) -> Record) throws {
        let input = try InputFileReader(path: path, inflater: inflater)
        var splitter = LineSplitter()
        var counts = StoreCounts()
        var notes: [StoreLineNote] = []
        var lines: [Record] = []
        func take(_ line: Line) {
            counts[.linesRead] += 1
            do throws(StoreLineRejection) {
                if line.isTooLong { throw StoreLineRejection(.lineTooLong, "longer than the line length limit") }
                lines.append(try read(Array(line.bytes)))
            } catch {
                counts[error.counter] += 1
                notes.append(StoreLineNote(path: path, line: line.number, counter: error.counter, detail: error.detail))
            }
        }
        try input.forEachChunk { chunk in splitter.feed(chunk, take) }
        splitter.finish(take)
        self.path = path
        self.counts = counts
        self.notes = notes
        self.lines = lines
    }

    /// A reading kept by the parsed-log cache (`GooglePlayFileEntry.swift`).
    init(path: String, counts: StoreCounts, notes: [StoreLineNote], lines: [Record]) {
        self.path = path
        self.counts = counts
        self.notes = notes
        self.lines = lines
    }
}

/// What reads a Google Play file: the job's package name and the machine's inflater.
package struct GooglePlayFileReader: Sendable {
    let packageName: String?
    let inflater: Inflater

    /// The file at `path` read by `read`, or, with a `cache`, the reading it kept of the same bytes
    /// in the same `format` (an Order's reading does not depend on the package name, a
    /// notification's does: another app's is `malformed_other_app`).
    ///
    /// Play's two feeds join on the order id across files and nights (a notification's charge
    /// takes its Order's price whenever the Order arrives; a voided purchase refunds an order of
    /// any earlier file), so the cache keeps each file's lines as read, before that join: a job
    /// with another store source joins the month again from them every night, and one whose only
    /// store sources are the two feeds keeps its night resolved (`GooglePlayKeptNight`) and joins
    /// only the new files after it. Whatever night a file arrives on, the records are those of a
    /// night without the cache.
    func read<Record: CachedGooglePlayLine>(
        _ path: String, format: SourceFormat, cache: (any StoreFileCache)?,
        line: (([UInt8]) throws(StoreLineRejection) -> Record)
    ) async throws -> GooglePlayFile<Record> {
        guard let cache else { return try GooglePlayFile(path: path, inflater: inflater, read: line) }
        return try await cache.reading(ofFileAt: path, settings: Self.cacheSettings(format, packageName: packageName)) {
            try GooglePlayFile(path: path, inflater: inflater, read: line)
        }
    }
}

extension GooglePlayFileReader {
    /// What reading a file of `format` depends on beside its bytes (`StoreFileCache.reading`): for
    /// a notification, the job's package name.
    package static func cacheSettings(_ format: SourceFormat, packageName: String?) -> [UInt8] {
        Array("\(format.rawValue)\n\(format == .googlePlay ? packageName ?? "" : "")\n".utf8)
    }
}

/// The `google_play` format: the notifications a server kept, each with the state it fetched
/// (docs/input-formats.md#google-play-google_play-and-google_play_orders). Every file is read
/// before the records are made: a plan change's later token names the earlier one
/// (`linkedPurchaseToken`), whatever file either came in.
package enum GooglePlayNotificationSource: StoreSource {
    package static let format = SourceFormat.googlePlay

    package struct Collector: StoreRecordCollector {
        private var files: [GooglePlayFile<GooglePlayNotification>] = []

        package init() {}

        package mutating func add(_ reading: consuming GooglePlayFile<GooglePlayNotification>) { files.append(reading) }

        package var records: StoreSourceRecords { GooglePlayNotifications.records(files) }
    }

    package static func reader(settings: GooglePlaySettings, paths: [String], inflater: Inflater) throws -> GooglePlayFileReader {
        GooglePlayFileReader(packageName: settings.packageName, inflater: inflater)
    }

    package static func read(
        _ path: String, with reader: GooglePlayFileReader, cache: (any StoreFileCache)?
    ) async throws -> GooglePlayFile<GooglePlayNotification> {
        try await reader.read(path, format: format, cache: cache) { line throws(StoreLineRejection) in
            try GooglePlayNotification(line: line, packageName: reader.packageName)
        }
    }
}

/// The `google_play_orders` format: Orders API `Order`s as listed, the details (time, price,
/// proceeds, refunds) of the orders the notifications deliver.
package enum GooglePlayOrderSource: StoreSource {
    package static let format = SourceFormat.googlePlayOrders

    /// Of the listings of an order, the one with the latest `lastEventTime` (a tie: the later in
    /// file order): a refund adds an event to an order listed before.
    package struct Collector: StoreRecordCollector {
        private var counts = StoreCounts()
        private var notes: [StoreLineNote] = []
        private var orders: [String: GooglePlayOrder] = [:]
        /// Order ids in the order first listed, so that the records keep file order.
        private var orderIDs: [String] = []

        package init() {}

        package mutating func add(_ reading: consuming GooglePlayFile<GooglePlayOrder>) { add(reading, afterKept: { _ in nil }) }

        /// Adds a file read after files an earlier night kept: `keptLastEventAt(orderID)` is the
        /// `lastEventTime` of the order's kept listing (nil: none), which a listing of it must
        /// reach to be the one that counts.
        package mutating func add(_ reading: consuming GooglePlayFile<GooglePlayOrder>, afterKept keptLastEventAt: (String) -> Int64?) {
            counts += reading.counts
            notes += reading.notes
            for var order in reading.lines {
                order.details.sourcePath = reading.path
                if let known = orders[order.orderID] {
                    if order.lastEventAt >= known.lastEventAt { orders[order.orderID] = order }
                } else if keptLastEventAt(order.orderID).map({ order.lastEventAt >= $0 }) ?? true {
                    orders[order.orderID] = order
                    orderIDs.append(order.orderID)
                }
            }
        }

        /// Of each order's listings, the one that counts, in the order the orders were first listed.
        package var listings: [GooglePlayOrder] { orderIDs.map { orders[$0]! } }

        package var records: StoreSourceRecords {
            var records = StoreSourceRecords(format: format)
            records.counts = counts
            records.notes = notes
            records.chargeDetails = listings.map(\.details)
            return records
        }
    }

    package static func reader(settings: GooglePlaySettings, paths: [String], inflater: Inflater) throws -> GooglePlayFileReader {
        GooglePlayFileReader(packageName: settings.packageName, inflater: inflater)
    }

    package static func read(
        _ path: String, with reader: GooglePlayFileReader, cache: (any StoreFileCache)?
    ) async throws -> GooglePlayFile<GooglePlayOrder> {
        try await reader.read(path, format: format, cache: cache) { line throws(StoreLineRejection) in try GooglePlayOrder(line: line) }
    }
}

/// What an earlier night kept of its Google Play notifications, which the join of later files
/// consults in place of reading the kept files again (`GooglePlayKeptNight` keeps it by the ids'
/// hashes). The join of a whole night has none.
package protocol GooglePlayKeptNotifications {
    /// Whether a kept file delivered the notification.
    func delivered(notification id: String) -> Bool
    /// A token a kept file names, as a notification's or as the one it continues; nil for another.
    func token(_ token: String) -> GooglePlayKeptToken?
    /// The earliest time a kept notification gave the order's charge; nil when none delivered it.
    func chargeAt(order orderID: String) -> Int64?
    /// Whether a kept notification refunded the order.
    func refunded(order orderID: String) -> Bool
}

/// A token as the kept files left it.
package struct GooglePlayKeptToken: Sendable {
    /// Its `linkedPurchaseToken`.
    package var link: String?
    /// The first token of its chain.
    package var chain: String
    /// The buyer its latest kept state said; nil when no kept file holds a state of it.
    package var buyer: StoreBuyer?

    package init(link: String?, chain: String, buyer: StoreBuyer?) {
        self.link = link
        self.chain = chain
        self.buyer = buyer
    }
}

/// The records of a `google_play` source
/// (docs/input-formats.md#google-play-google_play-and-google_play_orders).
enum GooglePlayNotifications {
    /// The records of all the files, given in file order (`GooglePlayJoin` without kept files).
    static func records(_ files: [GooglePlayFile<GooglePlayNotification>]) -> StoreSourceRecords {
        var join = GooglePlayJoin(kept: nil)
        join.add(files)
        return join.records
    }
}

/// The join of Google Play notifications into records, alone or after files an earlier night kept.
package struct GooglePlayJoin {
    /// The records the files were the first to deliver (their counters and notes included).
    package var records = StoreSourceRecords(format: .googlePlay)
    /// Per file, in the order given, its notifications counted in `ignored_store_records`.
    package var ignored: [Int] = []
    /// The kept charges a file gives an earlier time: the time and end of period they take.
    package var earlierKeptCharges: [String: (at: Int64, expiresAt: Int64?)] = [:]
    /// Whether a file links a kept token otherwise, or gives it another buyer (or its first): what
    /// the kept files' records were made of changes.
    package var changesKeptTokens = false
    /// Each token's `linkedPurchaseToken`, and the buyer of its latest state, as the files say.
    package private(set) var links: [String: String] = [:]
    package private(set) var buyers: [String: StoreBuyer] = [:]
    /// With `keepsState`: every token the files name (a notification's or a link's), and the ids
    /// of the notifications they were the first to deliver.
    package private(set) var tokens: Set<String> = []
    package private(set) var delivered: [String] = []
    private let kept: (any GooglePlayKeptNotifications)?
    private let keepsState: Bool

    /// A join after the `kept` files (none: a whole night); with `keepsState`, one that says what
    /// a later night needs of the files (`tokens`, `delivered`).
    package init(kept: (any GooglePlayKeptNotifications)?, keepsState: Bool = false) {
        self.kept = kept
        self.keepsState = keepsState
    }

    /// Joins `files`, given in file order, after the kept ones. A notification delivered
    /// again (the same id) is one. Each distinct order is one transaction, at the earliest time a
    /// notification gives it, its end of period from that notification; its chain is the first
    /// token of its tokens' `linkedPurchaseToken` links. A voided purchase or a revocation
    /// refunds its order once; a cancel or expire is one status change per notification; every
    /// other notification, and one of a purchase still pending, counts in `ignored_store_records`.
    package mutating func add(_ files: [GooglePlayFile<GooglePlayNotification>]) {
        let lineCount = files.reduce(0) { $0 + $1.lines.count }
        // The buyer of each token as its latest state said, for the notifications without one.
        buyers.reserveCapacity(lineCount)
        for file in files {
            records.counts += file.counts
            records.notes += file.notes
            // Each notification borrowed in place: `for notification in file.lines` would copy it,
            // retaining and releasing each of its strings, on each of the month's lines.
            file.lines.withUnsafeBufferPointer { lines in
                for notification in lines.indices.lazy.map({ lines.baseAddress! + $0 }) {
                    let token: String
                    var linked: String?
                    // A subscription's or a product's state says the buyer; a voided purchase's
                    // fetched state links (whatever notification a state came with) but names no
                    // buyer of the token.
                    var saysBuyer = true
                    switch notification.pointee.subject {
                    case .subscription(_, let subscriptionToken):
                        token = subscriptionToken
                        linked = notification.pointee.linkedToken
                    case .oneTimeProduct(_, let productToken): token = productToken
                    case .voided(let voidedToken, _, _):
                        token = voidedToken
                        linked = notification.pointee.linkedToken
                        saysBuyer = false
                    case .test: continue
                    }
                    let buyer = saysBuyer && notification.pointee.hasState ? notification.pointee.buyer : nil
                    if let buyer { buyers[token] = buyer }
                    if let linked { links[token] = linked }
                    if keepsState {
                        tokens.insert(token)
                        if let linked { tokens.insert(linked) }
                    }
                    if let kept, let keptToken = kept.token(token) {
                        if linked.map({ $0 != keptToken.link }) ?? false { changesKeptTokens = true }
                        if let buyer, buyer != keptToken.buyer { changesKeptTokens = true }
                    }
                }
            }
        }

        var seenNotifications: Set<String> = []
        seenNotifications.reserveCapacity(lineCount)
        var orderIndex: [String: Int] = [:]
        orderIndex.reserveCapacity(lineCount)
        records.transactions.reserveCapacity(lineCount)
        var refundedOrders: Set<String> = []
        // `state`: the notification's own state, when the server fetched one with it (a voided
        // purchase of an order no other notification named: its product and buyer).
        func addRefund(_ orderID: String, token: String, at: Int64, isPartial: Bool, path: String, state: GooglePlayNotification? = nil) {
            guard !(kept?.refunded(order: orderID) ?? false), refundedOrders.insert(orderID).inserted else { return }
            let buyer =
                state.map(\.buyer) ?? buyers[token] ?? kept?.token(token)?.buyer
                ?? StoreBuyer(userID: nil, platform: "android", store: "play_store")
            var refund = StoreRefund(
                format: .googlePlay, transactionID: orderID, originalTransactionID: chain(token),
                productID: state?.orders.first { $0.orderID == orderID }?.productID, at: at, amountMicros: nil, currency: nil, buyer: buyer)
            refund.amountUnknown = isPartial
            refund.sourcePath = path
            records.refunds.append(refund)
        }
        for file in files {
            var ignoredInFile = 0
            defer { ignored.append(ignoredInFile) }
            file.lines.withUnsafeBufferPointer { lines in
                for notification in lines.indices.lazy.map({ lines.baseAddress! + $0 })
                where !(kept?.delivered(notification: notification.pointee.id) ?? false)
                    && seenNotifications.insert(notification.pointee.id).inserted
                {
                    if keepsState { delivered.append(notification.pointee.id) }
                    let token: String
                    switch notification.pointee.subject {
                    case .test:
                        ignoredInFile += 1
                        continue
                    case .voided(let voidedToken, let orderID, let isPartial):
                        addRefund(
                            orderID, token: voidedToken, at: notification.pointee.at, isPartial: isPartial, path: file.path,
                            state: notification.pointee.hasState ? notification.pointee : nil)
                        continue
                    case .subscription(let type, let subscriptionToken):
                        token = subscriptionToken
                        if type == GooglePlayNotification.revoked {
                            for order in notification.pointee.orders {
                                addRefund(order.orderID, token: token, at: notification.pointee.at, isPartial: false, path: file.path)
                            }
                        }
                        if type == GooglePlayNotification.canceled || type == GooglePlayNotification.expired
                            || type == GooglePlayNotification.revoked
                        {
                            var change = StoreStatusChange(
                                format: .googlePlay, id: notification.pointee.id,
                                event: type == GooglePlayNotification.canceled ? .cancel : .expire,
                                at: notification.pointee.at, originalTransactionID: chain(token), transactionID: nil,
                                productID: notification.pointee.orders.first?.productID,
                                buyer: notification.pointee.buyer.userID == nil
                                    ? buyers[token] ?? kept?.token(token)?.buyer ?? notification.pointee.buyer : notification.pointee.buyer)
                            change.sourcePath = file.path
                            records.statusChanges.append(change)
                            continue
                        }
                        guard GooglePlayNotification.deliversOrders(type) else {
                            ignoredInFile += 1
                            continue
                        }
                    case .oneTimeProduct(let type, let productToken):
                        token = productToken
                        guard type == GooglePlayNotification.oneTimePurchased else {
                            ignoredInFile += 1
                            continue
                        }
                    }
                    // A purchase still pending (no successful order yet) is no purchase fact.
                    if notification.pointee.orders.isEmpty { ignoredInFile += 1 }
                    let isOneTime = if case .oneTimeProduct = notification.pointee.subject { true } else { false }
                    for order in notification.pointee.orders {
                        if let index = orderIndex[order.orderID] {
                            // A later notification naming a known order adds nothing, but an earlier time.
                            if order.at < records.transactions[index].at {
                                records.transactions[index].at = order.at
                                records.transactions[index].expiresAt = order.expiresAt
                            }
                            continue
                        }
                        if let keptAt = kept?.chargeAt(order: order.orderID) {
                            if order.at < earlierKeptCharges[order.orderID]?.at ?? keptAt {
                                earlierKeptCharges[order.orderID] = (order.at, order.expiresAt)
                            }
                            continue
                        }
                        var transaction = StoreTransaction(
                            format: .googlePlay, transactionID: order.orderID, originalTransactionID: chain(token),
                            productID: order.productID,
                            kind: order.isTrial ? .trial : isOneTime ? .firstCharge : .chargeByChainOrder, at: order.at,
                            money: .init(priceMicros: order.priceMicros, currency: order.currency), buyer: notification.pointee.buyer)
                        transaction.expiresAt = order.expiresAt
                        transaction.sourcePath = file.path
                        orderIndex[order.orderID] = records.transactions.count
                        records.transactions.append(transaction)
                    }
                }
            }
            records.counts[.ignoredStoreRecords] += ignoredInFile
        }
    }
}

extension GooglePlayJoin {
    /// The first token of `token`'s chain: links followed back, a loop cut where it closes (most
    /// tokens have no link, and cost one look-up); past a kept token, the kept files' chain.
    package func chain(_ token: String) -> String {
        var current = token
        guard links[token] != nil else { return kept?.token(token)?.chain ?? token }
        var seen: Set<String> = [token]
        while let linked = links[current] {
            guard seen.insert(linked).inserted else { return current }
            current = linked
        }
        return kept?.token(current)?.chain ?? current
    }
}
