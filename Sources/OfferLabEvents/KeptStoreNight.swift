import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabStoreSources
import OfferLabSupport

/// A night's App Store source (docs/input-formats.md#app-store-server-notifications-v2-app_store_notifications)
/// kept resolved in the parsed-log cache, so that a later night makes again only the files whose
/// events can have changed. Each file's entry holds the records it was the first to deliver (later
/// deliveries merged in), its events' batch and what a later night checks without decoding them;
/// the night's index entry lists the files and holds what spans them (the refund reversals, the
/// ignored notifications' ids, `as_of` and the `user_transactions` table's digest).
///
/// A later night whose first files are the index's, unchanged (same paths, same bytes, same
/// settings), with the same table, reads their batches back and makes again only:
/// - a kept file one of whose transactions a new file delivers again with something that changes
///   it (a refund, a later end of period, a price, a user or a country it lacked);
/// - a kept file holding the first paid charge of a chain in which a new file has a paid charge as
///   early or earlier (the `purchase` may move);
/// - a kept file one of whose transactions a refund reversal counts for now and did not then, or
///   the other way round (a new reversal before `as_of`, a kept one between the two `as_of`s);
/// - a kept file whose batch dropped events at or after its night's `as_of`, or has any at or
///   after tonight's.
/// Everything else (other files, another table, a file changed or removed, a kept delivery that
/// names a chain its first delivery did not) reads the night whole, and keeps it anew. The ids are
/// matched by 128 bits of hash (`IDHash`), as file contents are by the cache's names.
package struct KeptStoreNight: KeptNight {
    /// Per file of the night, in `StoreNight.files` order.
    var files: [File]
    /// What the night's index entry holds besides the names of its files' entries.
    var index: Index
    /// The files' paths and the names of their readings' entries (`ParsedLogCache.key(forStoreFileAt:settings:)`).
    var paths: [String]
    var readingEntries: [String]
    /// The settings the files are read with (`KeptNightSource.cacheSettings`).
    var settings: [UInt8]
    /// The source's format.
    var format: SourceFormat
    let cache: ParsedLogCache

    enum File: Sendable {
        /// Read back from an earlier night, with its entry's name.
        case kept(KeptFile, entryName: String)
        /// Resolved tonight: kept once its batch is made.
        case made(FileToKeep)
    }

    /// What an index entry holds.
    struct Index: Sendable {
        var asOf: Int64
        var userTransactions: IDHash
        var ignoredCount: Int
        var ignoredIDs: [IDHash]
        var reversals: [StoreRefundReversal]
        var files: [(path: String, readingEntry: String, entry: String)] = []
    }
}

/// What a later night checks of a kept transaction without decoding it: whether a new delivery
/// changes it (`KeptNightCollector.merge`), and where it stands in its chain.
struct KeptTransaction: Sendable {
    var id: IDHash
    var chain: IDHash
    var at: Int64
    /// `Int64.min`: none.
    var refundAt: Int64
    /// `Int64.min`: none.
    var expiresAt: Int64
    var flags: UInt8

    static let hasOriginalTransactionID: UInt8 = 1
    static let hasPrice: UInt8 = 2
    static let hasUserID: UInt8 = 4
    static let hasCountry: UInt8 = 8
    /// The earliest paid charge of its chain among all the night's records.
    static let isFirstPaidCharge: UInt8 = 16

    init(_ record: StoreTransaction, isFirstPaidCharge: Bool) {
        id = IDHash(record.transactionID)
        chain = IDHash(record.originalTransactionID ?? record.transactionID)
        at = record.at
        refundAt = record.refund?.at ?? .min
        expiresAt = record.expiresAt ?? .min
        flags =
            (record.originalTransactionID != nil ? Self.hasOriginalTransactionID : 0)
            | (record.money.priceMicros != nil ? Self.hasPrice : 0)
            | (record.buyer.userID != nil ? Self.hasUserID : 0) | (record.buyer.country != nil ? Self.hasCountry : 0)
            | (isFirstPaidCharge ? Self.isFirstPaidCharge : 0)
    }

    func has(_ flag: UInt8) -> Bool { flags & flag != 0 }

    /// Whether merging `delivered` into the record changes it.
    func isChanged(by delivered: StoreTransaction) -> Bool {
        (!has(Self.hasOriginalTransactionID) && delivered.originalTransactionID != nil)
            || (!has(Self.hasPrice) && delivered.money.priceMicros != nil) || (!has(Self.hasUserID) && delivered.buyer.userID != nil)
            || (!has(Self.hasCountry) && delivered.buyer.country != nil) || (delivered.refund.map { $0.at > refundAt } ?? false)
            || (delivered.expiresAt.map { $0 > expiresAt } ?? false)
    }
}

/// A file resolved tonight, before its batch is made: what its entry will hold.
struct FileToKeep: Sendable {
    var path: String
    var readingEntry: String
    var readingCounts: StoreCounts
    var readingNotes: [StoreLineNote]
    var resolutionCounts: StoreCounts
    var transactions: [KeptTransaction]
    var statusChangeIDs: [IDHash]
    var records: StoreFileRecords
    /// The records as an earlier night kept them, when tonight merged nothing into them: written
    /// again as they are, not encoded anew.
    var keptRecords: [UInt8]?
}

/// A file's entry read back.
struct KeptFile: Sendable {
    var readingCounts: StoreCounts
    var readingNotes: [StoreLineNote]
    var resolutionCounts: StoreCounts
    /// The notes of its events that its batch refused (`StoreEventBatches.batch`).
    var rejected: [StoreLineNote]
    var eventCount: Int
    var latestTimestamp: Int64
    var eventsAtOrAfterAsOf: Int
    var transactions: [KeptTransaction]
    var statusChangeIDs: [IDHash]
    /// Its records as kept (`StoreFileRecords`), decoded only when the file is made again.
    var records: [UInt8]
    /// Its users not yet resolved.
    var batch: EventBatch
}

extension KeptStoreNight {
    /// The night's store source `settings.sources[0]` (the job's only store source, a `Source`)
    /// read with what an earlier night kept, when the cache has it, and kept for the next; nil when
    /// a file cannot be read or is skipped as corrupt (the caller reads the night the usual way,
    /// which reports it).
    static func read<Source: KeptNightSource>(
        _: Source.Type, settings: StoreReadingSettings, reader: Source.FileReader, userTransactions: [String: String], width: Int?,
        cache: ParsedLogCache
    ) async throws -> StoreNight? {
        let paths = settings.sources[0].files
        let asOf = settings.asOf
        let format = Source.format
        let cacheSettings = Source.cacheSettings(of: reader)
        var readingEntries: [String] = []
        var unreadable = false
        try await InOrder.run(count: paths.count, width: width) { index in
            cache.key(forStoreFileAt: paths[index], settings: cacheSettings)?.entryName
        } merge: { name in
            if let name { readingEntries.append(name) } else { unreadable = true }
        }
        guard !unreadable else { return nil }
        let tableDigest = IDHash.digest(userTransactions)
        let found = cache.keptIndex(settings: cacheSettings, asOf: asOf)
        var kept: [KeptFile] = []
        var index: Index?
        if let found, found.index.userTransactions == tableDigest, found.index.files.count <= paths.count,
            found.index.files.indices.allSatisfy({
                found.index.files[$0].path == paths[$0] && found.index.files[$0].readingEntry == readingEntries[$0]
            })
        {
            kept = await cache.keptFiles(found.index.files, width: width) ?? []
            if kept.count == found.index.files.count { index = found.index } else { kept = [] }
        }
        var night = StoreNight()
        for (file, path) in zip(kept, paths) {
            night.fileCounts[path] = file.readingCounts
            night.notes += file.readingNotes
        }

        // The kept records a new file may change, found by their ids' hashes.
        var transactionsByID: [IDHash: (file: Int, index: Int)] = [:]
        transactionsByID.reserveCapacity(kept.reduce(0) { $0 + $1.transactions.count })
        var firstByChain: [IDHash: (file: Int, index: Int)] = [:]
        firstByChain.reserveCapacity(transactionsByID.capacity)
        for (file, keptFile) in kept.enumerated() {
            for (index, transaction) in keptFile.transactions.enumerated() {
                transactionsByID[transaction.id] = (file, index)
                if transaction.has(KeptTransaction.isFirstPaidCharge) { firstByChain[transaction.chain] = (file, index) }
            }
        }
        let keptStatusChanges = Set(kept.flatMap(\.statusChangeIDs))
        let keptReversals = index?.reversals ?? []
        let keptReversalIDs = Set(keptReversals.map { IDHash($0.id) })
        let keptIgnoredIDs = Set(index?.ignoredIDs ?? [])

        // The new files, collected after the kept ones: what they deliver again of a kept
        // transaction is merged into it once its file is decoded (`merges`).
        var collector = Source.Collector()
        var newReadings: [(path: String, counts: StoreCounts, notes: [StoreLineNote])] = []
        var dirty = Set<Int>()
        var merges: [Int: [(index: Int, delivered: StoreTransaction)]] = [:]
        var chainChanged = false
        let firstNew = kept.count
        try await InOrder.run(count: paths.count - firstNew, width: width) { offset -> Source.FileReading? in
            try? await Source.read(paths[firstNew + offset], with: reader, cache: cache)
        } merge: { reading in
            guard let reading else {
                unreadable = true
                return
            }
            newReadings.append((reading.path, reading.counts, reading.notes))
            collector.add(reading) { notification in
                let carriesNoRecord = notification.transaction == nil && notification.statusChange == nil
                if let delivered = notification.transaction, let (file, index) = transactionsByID[IDHash(delivered.transactionID)] {
                    let transaction = kept[file].transactions[index]
                    if !transaction.has(KeptTransaction.hasOriginalTransactionID) && delivered.originalTransactionID != nil {
                        chainChanged = true
                    }
                    if dirty.contains(file) || transaction.isChanged(by: delivered) {
                        dirty.insert(file)
                        merges[file, default: []].append((index, delivered))
                    }
                    notification.transaction = nil
                }
                if let change = notification.statusChange, keptStatusChanges.contains(IDHash(change.id)) { notification.statusChange = nil }
                if let reversal = notification.refundReversal, keptReversalIDs.contains(IDHash(reversal.id)) {
                    notification.refundReversal = nil
                }
                return carriesNoRecord && keptIgnoredIDs.contains(IDHash(notification.id))
            }
        }
        guard !unreadable, !chainChanged else { return nil }
        cache.releaseBuffers()
        let new = collector.records

        // The kept files whose events may change.
        for (file, keptFile) in kept.enumerated() where keptFile.eventsAtOrAfterAsOf > 0 || keptFile.latestTimestamp >= asOf {
            dirty.insert(file)
        }
        let keptAsOf = index?.asOf ?? asOf
        let reversalWindow = min(keptAsOf, asOf)..<max(keptAsOf, asOf)
        for reversal in keptReversals where reversalWindow.contains(reversal.at) {
            if let (file, _) = transactionsByID[IDHash(reversal.transactionID)] { dirty.insert(file) }
        }
        for reversal in new.refundReversals where reversal.at < asOf {
            if let (file, _) = transactionsByID[IDHash(reversal.transactionID)] { dirty.insert(file) }
        }
        var newFirst: [String: ChargeOrder] = [:]
        for record in new.transactions where record.kind != .trial {
            let chain = record.originalTransactionID ?? record.transactionID
            let order = ChargeOrder(record)
            if newFirst[chain].map({ order < $0 }) ?? true { newFirst[chain] = order }
            if let (file, index) = firstByChain[IDHash(chain)], record.at <= kept[file].transactions[index].at { dirty.insert(file) }
        }

        // The dirty files' records, their later deliveries merged in order.
        var madeRecords: [Int: StoreFileRecords] = [:]
        var keptFirst: [String: ChargeOrder] = [:]
        for file in dirty.sorted() {
            guard var records = kept[file].decodedRecords else { return nil }
            for (index, delivered) in merges[file] ?? [] { Source.Collector.merge(delivered, into: &records.transactions[index]) }
            for (index, record) in records.transactions.enumerated()
            where kept[file].transactions[index].has(KeptTransaction.isFirstPaidCharge) {
                keptFirst[record.originalTransactionID ?? record.transactionID] = ChargeOrder(record)
            }
            madeRecords[file] = records
        }
        // A chain whose first paid charge is in a file left as it was keeps it: none of tonight's
        // records is as early (that file would be dirty).
        func isFirstPaidCharge(_ record: StoreTransaction, chain: String) -> Bool {
            var first = newFirst[chain]
            if let kept = keptFirst[chain] {
                first = first.map { min($0, kept) } ?? kept
            } else if !firstByChain.isEmpty, firstByChain[IDHash(chain)] != nil {
                return false
            }
            return first == ChargeOrder(record)
        }

        // The new files' records, a file's at a time (each file's are together, in file order).
        var newTransactions = new.transactions[...]
        var newStatusChanges = new.statusChanges[...]
        for (offset, reading) in newReadings.enumerated() {
            var records = StoreFileRecords()
            while let first = newTransactions.first, first.sourcePath == reading.path {
                records.transactions.append(first)
                newTransactions.removeFirst()
            }
            while let first = newStatusChanges.first, first.sourcePath == reading.path {
                records.statusChanges.append(first)
                newStatusChanges.removeFirst()
            }
            madeRecords[firstNew + offset] = records
            night.fileCounts[reading.path] = reading.counts
            night.notes += reading.notes
        }

        let reversals = keptReversals + new.refundReversals
        var counts = new.counts
        counts[.ignoredStoreRecords] += index?.ignoredCount ?? 0
        var files: [File] = []
        for (position, path) in paths.enumerated() {
            guard let records = madeRecords[position] else {
                let keptFile = kept[position]
                counts += keptFile.readingCounts
                counts += keptFile.resolutionCounts
                files.append(.kept(keptFile, entryName: index!.files[position].entry))
                night.files.append((path, format, []))
                continue
            }
            var resolution = StoreEventResolver.resolve(
                transactions: records.transactions, statusChanges: records.statusChanges, refundReversals: reversals,
                userTransactions: userTransactions, asOf: asOf, isFirstPaidCharge: isFirstPaidCharge)
            let resolutionCounts = resolution.counts[format] ?? StoreCounts()
            counts += resolutionCounts
            let (readingCounts, readingNotes) =
                position < firstNew
                ? (kept[position].readingCounts, kept[position].readingNotes)
                : (newReadings[position - firstNew].counts, newReadings[position - firstNew].notes)
            if position < firstNew { counts += readingCounts }
            files.append(
                .made(
                    FileToKeep(
                        path: path, readingEntry: readingEntries[position], readingCounts: readingCounts, readingNotes: readingNotes,
                        resolutionCounts: resolutionCounts,
                        transactions: records.transactions.map { record in
                            KeptTransaction(
                                record,
                                isFirstPaidCharge: record.kind != .trial
                                    && isFirstPaidCharge(record, chain: record.originalTransactionID ?? record.transactionID))
                        },
                        statusChangeIDs: records.statusChanges.map { IDHash($0.id) }, records: records,
                        keptRecords: position < firstNew && merges[position] == nil ? kept[position].records : nil)))
            night.files.append((path, format, []))
            swap(&night.files[position].events, &resolution.events)
        }
        night.counts[format] = counts
        night.signaturesVerified = settings.signaturesVerified ?? true
        // The earlier night's entries stay one night more (a rerun of this night finds them);
        // its files count as reused.
        if let found, index != nil {
            cache.markInUse([found.name] + found.index.files.flatMap { [$0.entry, $0.readingEntry] }, reused: kept.count)
        }
        night.kept = KeptStoreNight(
            files: files,
            index: Index(
                asOf: asOf, userTransactions: tableDigest, ignoredCount: counts[.ignoredStoreRecords],
                ignoredIDs: (index?.ignoredIDs ?? []) + collector.ignoredNotificationIDs.map(IDHash.init), reversals: reversals),
            paths: paths, readingEntries: readingEntries, settings: cacheSettings, format: format, cache: cache)
        return night
    }

    /// A run per file: its entries are per file.
    var runs: [Range<Int>] { files.indices.map { $0..<$0 + 1 } }

    var keptEventCount: Int {
        files.reduce(0) { count, file in
            if case .kept(let kept, _) = file { return count + kept.eventCount }
            return count
        }
    }

    func batch(
        ofRun position: Int, events: [[StoreEvent]], fileIndex: Int, users: ByteStringInterner, asOf: Int64, keptSliceFields: SliceFields
    ) -> (batch: EventBatch, rejected: [(format: SourceFormat, note: StoreLineNote)], entryName: String) {
        let events = events[0]
        switch files[position] {
        case .kept(let file, let entryName):
            var batch = file.batch
            batch.fileIndex = fileIndex
            batch.resolveUsers(users)
            return (batch, file.rejected.map { (format, $0) }, entryName)
        case .made(let file):
            // Made with users of its own: the entry must not depend on tonight's table.
            var made = StoreEventBatches.batch(
                [events], fileIndex: fileIndex, path: file.path, users: nil, asOf: asOf, keptSliceFields: keptSliceFields)
            let entryName = cache.writeEntryNamedByContent(magic: ParsedLogCache.keptFileMagic, words: cache.keptFileWords) { entry in
                file.encode(into: &entry, batch: made.batch, rejected: made.rejected.map { $0.note }, eventCount: events.count)
            }
            made.batch.resolveUsers(users)
            return (made.batch, made.rejected, entryName)
        }
    }

    func keepIndex(runEntries fileEntries: [String]) {
        var index = index
        index.files = paths.indices.map { (paths[$0], readingEntries[$0], fileEntries[$0]) }
        cache.keepIndex(index, settings: settings)
    }
}
