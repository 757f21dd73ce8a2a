import OfferLabIngest
import OfferLabStoreSources
import OfferLabSupport

/// The entries of a kept store night (`KeptStoreNight`): a file's, named by its content, and the
/// night's index, named by the settings it was read with and its content. Both start with a layout
/// version and this program's identity, and are checked whole (`ParsedLogCache.readEntry`): a
/// damaged or older entry is a miss, and the night is read whole.
extension ParsedLogCache {
    static let keptFileMagic = Array("OfferLab kept store file\n".utf8)
    static let keptIndexMagic = Array("OfferLab kept store night\n".utf8)

    /// The layout of both entries' payloads.
    private static let keptLayout: UInt64 = 1

    var keptFileWords: [UInt64] { [Self.keptLayout, codeIdentity, UInt64(keptSliceFields.rawValue)] }

    private func keptIndexWords(settings: [UInt8]) -> [UInt64] {
        keptFileWords + [settings.withUnsafeBytes { Self.hash($0) }, UInt64(settings.count)]
    }

    /// The first 8 hex digits of the index entries of nights read with `settings`.
    private func keptIndexPrefix(settings: [UInt8]) -> String {
        let words = keptIndexWords(settings: settings)
        return String(Self.hexName(words.withUnsafeBytes { Self.hash($0) }).prefix(8))
    }

    /// The index of the latest night read with `settings` whose `as_of` is not after `asOf`, and
    /// its entry's name; nil when there is none.
    func keptIndex(settings: [UInt8], asOf: Int64) -> (name: String, index: KeptStoreNight.Index)? {
        let words = keptIndexWords(settings: settings)
        var best: (name: String, index: KeptStoreNight.Index)?
        for name in entryNames(withPrefix: keptIndexPrefix(settings: settings)) {
            guard
                let index = readEntry(
                    named: name, magic: Self.keptIndexMagic, words: words, countsDamage: false, decode: KeptStoreNight.Index.init),
                index.asOf <= asOf, index.asOf > best?.index.asOf ?? .min
            else { continue }
            best = (name, index)
        }
        return best
    }

    /// The entries of the index's files, read at most `width` at a time; nil when one is missing or
    /// damaged.
    func keptFiles(_ files: [(path: String, readingEntry: String, entry: String)], width: Int?) async -> [KeptFile]? {
        var kept: [KeptFile] = []
        var missing = false
        try? await InOrder.run(count: files.count, width: width) { index in
            self.readEntry(named: files[index].entry, magic: Self.keptFileMagic, words: self.keptFileWords) {
                try KeptFile(entry: &$0, path: files[index].path)
            }
        } merge: { file in
            if let file { kept.append(file) } else { missing = true }
        }
        releaseBuffers()
        return missing ? nil : kept
    }

    /// Writes the night's index entry.
    func keepIndex(_ index: KeptStoreNight.Index, settings: [UInt8]) {
        _ = writeEntryNamedByContent(
            prefix: keptIndexPrefix(settings: settings), magic: Self.keptIndexMagic, words: keptIndexWords(settings: settings)
        ) {
            index.encode(into: &$0)
        }
    }
}

extension KeptStoreNight.Index {
    func encode(into entry: inout CacheEntryWriter) {
        entry.append(asOf)
        entry.append(userTransactions.first)
        entry.append(userTransactions.second)
        entry.append(Int64(ignoredCount))
        entry.appendArray(ignoredIDs)
        entry.append(Int64(reversals.count))
        for reversal in reversals {
            entry.append(UInt8(SourceFormat.allCases.firstIndex(of: reversal.format)!))
            entry.append(bytesOf: reversal.id.utf8)
            entry.append(bytesOf: reversal.transactionID.utf8)
            entry.append(reversal.at)
        }
        entry.append(Int64(files.count))
        for file in files {
            for text in [file.path, file.readingEntry, file.entry] { entry.append(bytesOf: text.utf8) }
        }
    }

    init(entry: inout CacheEntryReader) throws {
        asOf = try entry.read(Int64.self)
        userTransactions = IDHash(first: try entry.read(UInt64.self), second: try entry.read(UInt64.self))
        ignoredCount = Int(try entry.read(Int64.self))
        ignoredIDs = try entry.readArray()
        reversals = []
        for _ in 0..<(try entry.count()) {
            let format = Int(try entry.read(UInt8.self))
            guard format < SourceFormat.allCases.count else { throw CacheEntryReader.Damaged() }
            reversals.append(
                StoreRefundReversal(
                    format: SourceFormat.allCases[format], id: try entry.string(), transactionID: try entry.string(),
                    at: try entry.read(Int64.self)))
        }
        for _ in 0..<(try entry.count()) { files.append((try entry.string(), try entry.string(), try entry.string())) }
    }
}

extension FileToKeep {
    /// The file's entry: its counters and notes, what its batch refused, its events' count and
    /// latest time, what a later night checks (`KeptTransaction`, the status changes' ids), its
    /// records (a blob decoded only when the file is made again) and its batch.
    func encode(into entry: inout CacheEntryWriter, batch: EventBatch, rejected: [StoreLineNote], eventCount: Int) {
        entry.append(readingCounts)
        entry.append(readingNotes)
        entry.append(resolutionCounts)
        entry.append(rejected)
        entry.append(Int64(eventCount))
        entry.append(batch.records.reduce(Int64.min) { max($0, $1.timestamp) })
        entry.append(Int64(batch.eventsAtOrAfterAsOf))
        entry.appendArray(transactions)
        entry.appendArray(statusChangeIDs)
        if let keptRecords {
            entry.append(bytesOf: keptRecords)
        } else {
            var recordBytes = CacheEntryWriter(bytes: [])
            records.encode(into: &recordBytes)
            entry.append(bytesOf: recordBytes.bytes)
        }
        ParsedLogCache.append(batch, to: &entry)
    }
}

extension KeptFile {
    /// The entry of the file at `path`; its batch's `fileIndex` is set once its place in the run
    /// is known.
    init(entry: inout CacheEntryReader, path: String) throws {
        readingCounts = try entry.storeCounts()
        readingNotes = try entry.notes(path: path)
        resolutionCounts = try entry.storeCounts()
        rejected = try entry.notes(path: path)
        eventCount = Int(try entry.read(Int64.self))
        latestTimestamp = try entry.read(Int64.self)
        eventsAtOrAfterAsOf = Int(try entry.read(Int64.self))
        transactions = try entry.readArray()
        statusChangeIDs = try entry.readArray()
        records = Array(try entry.bytesWithLength())
        batch = try ParsedLogCache.batch(from: &entry, fileIndex: 0, path: path)
    }

    /// Its records, as many transactions as it has `transactions`; nil when they are not.
    var decodedRecords: StoreFileRecords? {
        records.withUnsafeBytes { bytes in
            var entry = CacheEntryReader(bytes)
            guard let decoded = try? StoreFileRecords(entry: &entry), entry.remaining == 0,
                decoded.transactions.count == transactions.count, decoded.statusChanges.count == statusChangeIDs.count
            else { return nil }
            return decoded
        }
    }
}
