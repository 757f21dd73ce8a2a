import OfferLabIngest

/// What one file of stored webhook bodies holds: its notifications in line order, the lines
/// rejected or noted, and the counters. The parsed-log cache keeps it, verified and decoded, so
/// that a later night verifies only new files.
public struct AppStoreFileReading: Sendable {
    public var path: String
    public var notifications: [AppStoreNotification] = []
    public var notes: [StoreLineNote] = []
    public var counts = StoreCounts()

    public init(path: String) { self.path = path }
}

/// Reads the files of an `app_store_notifications` source
/// (docs/input-formats.md#app-store-server-notifications-v2-app_store_notifications).
public enum AppStoreNotificationFile {
    /// Reads `path` (gzip or not, several members, CRLF and blank lines as in the purchase logs:
    /// docs/input-formats.md#lines), verifying and decoding each line with `decoder`.
    /// - Throws: `IngestError` when the file cannot be opened or its gzip is corrupt.
    public static func read(
        path: String, decoder: AppStoreNotificationDecoder, maxLineLength: Int = LineSplitter.defaultMaxLineLength
    ) async throws -> AppStoreFileReading {
        let reader = try InputFileReader(path: path)
        var splitter = LineSplitter(maxLineLength: maxLineLength)
        var reading = AppStoreFileReading(path: path)
        // Lines are copied out of each chunk so that their checks, which may wait for a
        // certificate chain being built by another task, run outside the splitter's callback.
        var lines: [(number: Int, bytes: [UInt8], isTooLong: Bool)] = []
        var finished = false
        while !finished {
            lines.removeAll(keepingCapacity: true)
            if let chunk = try reader.nextChunk() {
                splitter.feed(chunk) { lines.append(($0.number, Array($0.bytes), $0.isTooLong)) }
            } else {
                splitter.finish { lines.append(($0.number, Array($0.bytes), $0.isTooLong)) }
                finished = true
            }
            for line in lines {
                reading.counts[.linesRead] += 1
                do throws(StoreLineRejection) {
                    if line.isTooLong { throw .init(.malformedLineTooLong, "longer than \(maxLineLength) bytes") }
                    let notification = try await decoder.decode(line.bytes)
                    if !notification.isKnownType {
                        reading.counts[.unknownNotificationTypes] += 1
                        reading.notes.append(
                            .init(
                                path: path, line: line.number, counter: .unknownNotificationTypes,
                                detail: "notificationType '\(notification.type)'"))
                    }
                    reading.notifications.append(notification)
                } catch {
                    reading.counts[error.counter] += 1
                    reading.notes.append(.init(path: path, line: line.number, counter: error.counter, detail: error.detail))
                }
            }
        }
        return reading
    }
}

extension AppStoreNotificationFile {
    /// The records of a source's files, their readings given in file order (sorted paths): the
    /// first delivery of a transaction is the one kept (`AppStoreRecordCollector`); the counters
    /// and notes are the files' and the collector's.
    public static func records(_ readings: [AppStoreFileReading]) -> StoreSourceRecords {
        var collector = AppStoreRecordCollector()
        for reading in readings { collector.add(reading) }
        return collector.records
    }
}

/// The records of an App Store source: every distinct transaction once, however many
/// notifications carried it; one status change and one reversal per notification, retries merged.
public struct AppStoreRecordCollector: Sendable {
    public private(set) var transactions: [StoreTransaction] = []
    public private(set) var statusChanges: [StoreStatusChange] = []
    public private(set) var refundReversals: [StoreRefundReversal] = []
    /// `ignored_store_records`: notifications that carry no purchase fact (`TEST`, summaries, …).
    public private(set) var counts = StoreCounts()
    /// The counters and notes of the files added (`add(_: AppStoreFileReading)`).
    private var fileCounts = StoreCounts()
    private var notes: [StoreLineNote] = []

    private var transactionIndex: [String: Int] = [:]
    private var statusChangeIDs: Set<String> = []
    private var reversalIDs: Set<String> = []
    private var ignoredIDs: Set<String> = []

    public init() {}

    /// Adds a file's notifications, counters and notes; call in the order of the files (sorted
    /// paths), so that the first delivery of a transaction is the one kept. A night adds each
    /// file as soon as it is read, so that only the records, not every reading, stay in memory.
    public mutating func add(_ reading: consuming AppStoreFileReading) {
        fileCounts += reading.counts
        notes += reading.notes
        let path = reading.path
        reading.notifications.withUnsafeMutableBufferPointer { notifications in
            for index in notifications.indices { collect(&notifications[index], path: path) }
        }
    }

    /// Adds a file read after the kept files of an earlier night (`KeptStoreNight`, in
    /// OfferLabEvents) as `add(_:)` does, each notification first given to `kept`, which takes out
    /// of it what those files hold already (a transaction they delivered, a status change or
    /// reversal of theirs) and says whether they counted its id as ignored.
    package mutating func add(_ reading: consuming AppStoreFileReading, after kept: (inout AppStoreNotification) -> Bool) {
        fileCounts += reading.counts
        notes += reading.notes
        let path = reading.path
        reading.notifications.withUnsafeMutableBufferPointer { notifications in
            for index in notifications.indices {
                let carriesNoRecord = notifications[index].transaction == nil && notifications[index].statusChange == nil
                let keptIgnored = kept(&notifications[index])
                collect(&notifications[index], path: path, carriesNoRecord: carriesNoRecord && !keptIgnored)
            }
        }
    }

    /// The ids of the notifications counted in `ignored_store_records`.
    package var ignoredNotificationIDs: Set<String> { ignoredIDs }

    /// The source's records: the distinct ones, the files' counters and notes and the collector's.
    public var records: StoreSourceRecords {
        var records = StoreSourceRecords(format: .appStoreNotifications)
        records.transactions = transactions
        records.statusChanges = statusChanges
        records.refundReversals = refundReversals
        records.counts = fileCounts
        records.counts += counts
        records.notes = notes
        return records
    }

    public mutating func add(_ notification: AppStoreNotification) {
        var notification = notification
        collect(&notification, path: nil)
    }

    /// Adds the records of `notification`, delivered by the file at `path`, taking them out of it:
    /// moved, not copied (a copy retains and releases each of their strings). `carriesNoRecord`:
    /// whether it counts as ignored (`ignored_store_records`) unless its id was counted already.
    private mutating func collect(_ notification: inout AppStoreNotification, path: String?, carriesNoRecord: Bool? = nil) {
        if carriesNoRecord ?? (notification.transaction == nil && notification.statusChange == nil),
            ignoredIDs.insert(notification.id).inserted
        {
            counts[.ignoredStoreRecords] += 1
        }
        if path != nil {
            notification.transaction?.sourcePath = path
            notification.statusChange?.sourcePath = path
        }
        if let delivered = notification.transaction.take() {
            if let index = transactionIndex[delivered.transactionID] {
                Self.merge(delivered, into: &transactions[index])
            } else {
                transactionIndex[delivered.transactionID] = transactions.count
                transactions.append(delivered)
            }
        }
        if let change = notification.statusChange.take(), statusChangeIDs.insert(change.id).inserted {
            statusChanges.append(change)
        }
        if let reversal = notification.refundReversal.take(), reversalIDs.insert(reversal.id).inserted {
            refundReversals.append(reversal)
        }
    }

    /// A later delivery of a known transaction: the first delivery's facts stay; what it lacked,
    /// a later refund (a refund again after a reversal), and a later end of period (a renewal
    /// extension) come from the later one.
    package static func merge(_ delivered: StoreTransaction, into record: inout StoreTransaction) {
        record.originalTransactionID = record.originalTransactionID ?? delivered.originalTransactionID
        if record.money.priceMicros == nil, delivered.money.priceMicros != nil {
            record.money.priceMicros = delivered.money.priceMicros
            record.money.currency = delivered.money.currency
        }
        record.buyer.userID = record.buyer.userID ?? delivered.buyer.userID
        record.buyer.country = record.buyer.country ?? delivered.buyer.country
        if let refund = delivered.refund, refund.at > record.refund?.at ?? .min { record.refund = refund }
        if let expiresAt = delivered.expiresAt { record.expiresAt = max(record.expiresAt ?? expiresAt, expiresAt) }
    }
}
