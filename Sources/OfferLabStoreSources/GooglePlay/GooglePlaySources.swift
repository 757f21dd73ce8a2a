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
    /// any earlier file), so the cache keeps each file's lines as read, before that join, and every
    /// night joins the month again from them: whatever night a file arrives on, the records are
    /// those of a night without the cache. `KeptStoreNight`, which keeps the App Store's night
    /// resolved, does not fit: it keeps one source alone, each file's records as its own lines
    /// make them, where a Play charge is made of two feeds' lines, and of a later token's link.
    func read<Record: CachedGooglePlayLine>(
        _ path: String, format: SourceFormat, cache: (any StoreFileCache)?,
        line: (([UInt8]) throws(StoreLineRejection) -> Record)
    ) async throws -> GooglePlayFile<Record> {
        guard let cache else { return try GooglePlayFile(path: path, inflater: inflater, read: line) }
        let settings = Array("\(format.rawValue)\n\(format == .googlePlay ? packageName ?? "" : "")\n".utf8)
        return try await cache.reading(ofFileAt: path, settings: settings) {
            try GooglePlayFile(path: path, inflater: inflater, read: line)
        }
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

        package mutating func add(_ reading: consuming GooglePlayFile<GooglePlayOrder>) {
            counts += reading.counts
            notes += reading.notes
            for var order in reading.lines {
                order.details.sourcePath = reading.path
                if let known = orders[order.orderID] {
                    if order.lastEventAt >= known.lastEventAt { orders[order.orderID] = order }
                } else {
                    orders[order.orderID] = order
                    orderIDs.append(order.orderID)
                }
            }
        }

        package var records: StoreSourceRecords {
            var records = StoreSourceRecords(format: format)
            records.counts = counts
            records.notes = notes
            records.chargeDetails = orderIDs.map { orders[$0]!.details }
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

/// The records of a `google_play` source
/// (docs/input-formats.md#google-play-google_play-and-google_play_orders).
enum GooglePlayNotifications {
    /// The records of all the files, given in file order. A notification delivered again (the
    /// same id) is one. Each distinct order is one transaction, at the earliest time a
    /// notification gives it, its end of period from that notification; its chain is the first
    /// token of its tokens' `linkedPurchaseToken` links. A voided purchase or a revocation
    /// refunds its order once; a cancel or expire is one status change per notification; every
    /// other notification, and one of a purchase still pending, counts in `ignored_store_records`.
    static func records(_ files: [GooglePlayFile<GooglePlayNotification>]) -> StoreSourceRecords {
        var records = StoreSourceRecords(format: .googlePlay)
        let lineCount = files.reduce(0) { $0 + $1.lines.count }
        var links: [String: String] = [:]
        // The buyer of each token as its latest state said, for the notifications without one.
        var buyers: [String: StoreBuyer] = [:]
        buyers.reserveCapacity(lineCount)
        for file in files {
            records.counts += file.counts
            records.notes += file.notes
            // Each notification borrowed in place: `for notification in file.lines` would copy it,
            // retaining and releasing each of its strings, on each of the month's lines.
            file.lines.withUnsafeBufferPointer { lines in
                for notification in lines.indices.lazy.map({ lines.baseAddress! + $0 }) {
                    switch notification.pointee.subject {
                    case .subscription(_, let token), .oneTimeProduct(_, let token):
                        if notification.pointee.hasState { buyers[token] = notification.pointee.buyer }
                        // Whatever notification a state came with: a voided purchase's fetched state links too.
                        if case .subscription = notification.pointee.subject, let linked = notification.pointee.linkedToken {
                            links[token] = linked
                        }
                    case .voided(let token, _, _): if let linked = notification.pointee.linkedToken { links[token] = linked }
                    case .test: break
                    }
                }
            }
        }
        // The first token of a chain: links followed back, a loop cut where it closes (most
        // tokens have no link, and cost one look-up).
        func chain(_ token: String) -> String {
            guard links[token] != nil else { return token }
            var current = token
            var seen: Set<String> = [token]
            while let linked = links[current], seen.insert(linked).inserted { current = linked }
            return current
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
            guard refundedOrders.insert(orderID).inserted else { return }
            let buyer = state.map(\.buyer) ?? buyers[token] ?? StoreBuyer(userID: nil, platform: "android", store: "play_store")
            var refund = StoreRefund(
                format: .googlePlay, transactionID: orderID, originalTransactionID: chain(token),
                productID: state?.orders.first { $0.orderID == orderID }?.productID, at: at, amountMicros: nil, currency: nil, buyer: buyer)
            refund.amountUnknown = isPartial
            refund.sourcePath = path
            records.refunds.append(refund)
        }
        for file in files {
            file.lines.withUnsafeBufferPointer { lines in
                for notification in lines.indices.lazy.map({ lines.baseAddress! + $0 })
                where seenNotifications.insert(notification.pointee.id).inserted {
                    let token: String
                    switch notification.pointee.subject {
                    case .test:
                        records.counts[.ignoredStoreRecords] += 1
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
                                    ? buyers[token] ?? notification.pointee.buyer : notification.pointee.buyer)
                            change.sourcePath = file.path
                            records.statusChanges.append(change)
                            continue
                        }
                        guard GooglePlayNotification.deliversOrders(type) else {
                            records.counts[.ignoredStoreRecords] += 1
                            continue
                        }
                    case .oneTimeProduct(let type, let productToken):
                        token = productToken
                        guard type == GooglePlayNotification.oneTimePurchased else {
                            records.counts[.ignoredStoreRecords] += 1
                            continue
                        }
                    }
                    // A purchase still pending (no successful order yet) is no purchase fact.
                    if notification.pointee.orders.isEmpty { records.counts[.ignoredStoreRecords] += 1 }
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
        }
        return records
    }
}
