import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabStoreSources
import OfferLabSupport

/// A night's store sources that are one store's feeds (`KeptFeedsSource`: Google Play's
/// notifications and Orders), a job's only store sources, kept resolved in the parsed-log cache:
/// the store joins a later night's new files after the kept ones and says which groups of
/// consecutive files it made again; the others' batches are read back.
///
/// A group's entry (named by its content) holds its batch, the notes its batch refused and the
/// store's records of it; a segment's entry (named by its content) holds records the store's state
/// names (`KeptRecords`), read back mapped; the night's index entry (named by the settings the
/// files are read with and its content) holds each feed's files with their readings' entries, the
/// groups' and the segments' entries and the store's state. A later night whose first files of
/// each feed are the index's, unchanged, goes on from it; any other (a file changed or removed, a
/// missing or damaged entry) is read whole by the store, and kept anew. Every entry starts with a
/// layout version and this program's identity and is checked whole (`ParsedLogCache.readEntry`,
/// `mappedEntry`).
struct KeptFeedsNight: KeptNight {
    /// Tonight's groups, in the order of the store's state.
    var groups: [Group]
    var index: Index
    /// The segments the store's state names, in its order; those kept, with their entries' names.
    var segments: [KeptSegmentSource]
    var keptSegmentEntries: [ObjectIdentifier: String]
    let settings: [UInt8]
    let asOf: Int64
    let cache: ParsedLogCache

    struct Group: Sendable {
        /// Its files in `StoreNight.files`.
        var files: Range<Int>
        var content: Content
    }

    enum Content: Sendable {
        /// Read back, with its entry's name.
        case kept(KeptGroup, entryName: String)
        /// Made tonight, with the store's records of it: kept once its batch is made.
        case made(records: [UInt8])
    }

    /// A group's entry read back.
    struct KeptGroup: Sendable {
        var rejected: [(format: SourceFormat, note: StoreLineNote)]
        var eventCount: Int
        var latestTimestamp: Int64
        var eventsAtOrAfterAsOf: Int
        var records: [UInt8]
        /// Its users not yet resolved.
        var batch: EventBatch
    }

    /// What the index entry holds.
    struct Index: Sendable {
        /// Per feed: its files and the names of their readings' entries.
        var feeds: [[(path: String, readingEntry: String)]]
        /// The groups' entries, in the order of the store's state.
        var groupEntries: [String] = []
        /// The entries of the segments the state names (`KeptRecords`), in its order.
        var segmentEntries: [String] = []
        var state: [UInt8]
    }

    /// The groups in file order (the store lists a later night's new groups after the kept ones).
    var fileOrder: [Int] { groups.indices.sorted { groups[$0].files.lowerBound < groups[$1].files.lowerBound } }

    var runs: [Range<Int>] { fileOrder.map { groups[$0].files } }

    var keptEventCount: Int {
        groups.reduce(0) { count, group in
            if case .kept(let kept, _) = group.content { return count + kept.eventCount }
            return count
        }
    }

    func batch(
        ofRun run: Int, events: [[StoreEvent]], fileIndex: Int, users: ByteStringInterner, asOf: Int64, keptSliceFields: SliceFields
    ) -> (batch: EventBatch, rejected: [(format: SourceFormat, note: StoreLineNote)], entryName: String) {
        switch groups[fileOrder[run]].content {
        case .kept(let group, let entryName):
            var batch = group.batch
            batch.fileIndex = fileIndex
            batch.resolveUsers(users)
            return (batch, group.rejected, entryName)
        case .made(let records):
            // Made with users of its own: the entry must not depend on tonight's table.
            let path = index.feeds.flatMap { $0 }[groups[fileOrder[run]].files.lowerBound].path
            var made = StoreEventBatches.batch(
                events, fileIndex: fileIndex, path: path, users: nil, asOf: asOf, keptSliceFields: keptSliceFields)
            let entryName = cache.writeEntryNamedByContent(magic: ParsedLogCache.keptFeedsGroupMagic, words: cache.keptFileWords) { entry in
                KeptGroup.encode(
                    into: &entry, path: path, batch: made.batch, rejected: made.rejected, eventCount: events.reduce(0) { $0 + $1.count },
                    records: records)
            }
            made.batch.resolveUsers(users)
            return (made.batch, made.rejected, entryName)
        }
    }

    func keepIndex(runEntries: [String]) {
        var index = index
        index.groupEntries = [String](repeating: "", count: groups.count)
        for (run, group) in fileOrder.enumerated() { index.groupEntries[group] = runEntries[run] }
        index.segmentEntries = segments.map { source in
            switch source {
            case .kept(let segment): return keptSegmentEntries[ObjectIdentifier(segment)]!
            case .made(let records):
                return cache.writeEntryNamedByContent(magic: ParsedLogCache.keptFeedsSegmentMagic, words: cache.keptFileWords) {
                    $0.bytes.append(contentsOf: records)
                }
            }
        }
        cache.markInUse(index.segmentEntries)
        cache.keepFeedsIndex(index, settings: settings, asOf: asOf)
    }
}

extension KeptFeedsNight {
    /// The night of `settings`' store sources (the feeds of `Source`, exactly) read with what an
    /// earlier night kept, when the cache has it, and kept for the next; nil when a file cannot be
    /// read or is skipped as corrupt (the caller reads the night the usual way, which reports it).
    static func read<Source: KeptFeedsSource>(
        _: Source.Type, settings: StoreReadingSettings, userTransactions: [String: String], width: Int?, cache: ParsedLogCache
    ) async throws -> StoreNight? {
        let paths = settings.sources.map(\.files)
        let readingSettings = Source.cacheSettings(settings.storeSettings)
        var readingEntries: [[String]] = paths.map { _ in [] }
        var unreadable = false
        for feed in paths.indices {
            try await InOrder.run(count: paths[feed].count, width: width) { index in
                cache.key(forStoreFileAt: paths[feed][index], settings: readingSettings[feed])?.entryName
            } merge: { name in
                if let name { readingEntries[feed].append(name) } else { unreadable = true }
            }
        }
        guard !unreadable else { return nil }
        let settingsBytes: [UInt8] = readingSettings.flatMap { $0 + [0] }
        var kept: (feeds: KeptFeeds, groups: [KeptGroup], index: Index, name: String)?
        var keptSegmentEntries: [ObjectIdentifier: String] = [:]
        if let found = cache.keptFeedsIndex(settings: settingsBytes, feeds: paths.count, asOf: settings.asOf),
            found.index.feeds.indices.allSatisfy({ feed in
                let keptFiles = found.index.feeds[feed]
                return keptFiles.count <= paths[feed].count
                    && keptFiles.indices.allSatisfy {
                        keptFiles[$0].path == paths[feed][$0] && keptFiles[$0].readingEntry == readingEntries[feed][$0]
                    }
            }),
            let groups = await cache.keptFeedsGroups(found.index.groupEntries, width: width),
            let segments = cache.keptFeedsSegments(found.index.segmentEntries)
        {
            for (segment, name) in zip(segments, found.index.segmentEntries) { keptSegmentEntries[ObjectIdentifier(segment)] = name }
            let feeds = KeptFeeds(
                state: found.index.state, segments: segments,
                groups: groups.map {
                    KeptFeeds.Group(records: $0.records, eventsAtOrAfterAsOf: $0.eventsAtOrAfterAsOf, latestTimestamp: $0.latestTimestamp)
                })
            kept = (feeds, groups, found.index, found.name)
        }
        var input = KeptFeedsInput(
            paths: paths, kept: kept?.feeds, storeSettings: settings.storeSettings, inflater: settings.inflater, cache: cache,
            userTransactions: userTransactions, asOf: settings.asOf, width: width)
        // Each feed's files from `first` on, read at most `width` at a time; nil when one cannot be.
        func readings(from first: [Int]) async throws -> [[Source.Reading]]? {
            let input = input
            var readings: [[Source.Reading]] = []
            var unreadable = false
            for feed in paths.indices {
                var feedReadings: [Source.Reading] = []
                try await InOrder.run(count: paths[feed].count - first[feed], width: width) { offset in
                    try? await Source.read(paths[feed][first[feed] + offset], feed: feed, input: input)
                } merge: { reading in
                    if let reading { feedReadings.append(reading) } else { unreadable = true }
                }
                readings.append(feedReadings)
            }
            cache.releaseBuffers()
            return unreadable ? nil : readings
        }
        var made: KeptFeedsOutcome?
        if let kept {
            guard let newReadings = try await readings(from: kept.index.feeds.map(\.count)) else { return nil }
            made = try await Source.night(input, readings: newReadings)
        }
        if made == nil {
            // The whole night: what the kept night made is not read back.
            kept = nil
            input.kept = nil
            guard let allReadings = try await readings(from: paths.map { _ in 0 }) else { return nil }
            made = try await Source.night(input, readings: allReadings)
        }
        guard let made else { return nil }
        var groups: [Group] = []
        for group in made.groups {
            if let position = group.kept {
                guard let kept, kept.groups.indices.contains(position) else { return nil }
                groups.append(
                    Group(files: group.files, content: .kept(kept.groups[position], entryName: kept.index.groupEntries[position])))
            } else {
                groups.append(Group(files: group.files, content: .made(records: group.records)))
            }
        }
        // The earlier night's entries stay one night more (a rerun of this night finds them), and
        // so do the readings of the files it kept, which tonight does not read; they count as reused.
        if let kept, made.groups.contains(where: { $0.kept != nil }) {
            cache.markInUse(
                [kept.name] + kept.index.groupEntries + kept.index.segmentEntries + kept.index.feeds.flatMap { $0.map(\.readingEntry) },
                reused: kept.index.feeds.reduce(0) { $0 + $1.count })
        }
        var night = StoreNight()
        night.files = made.files
        night.counts = made.counts
        night.fileCounts = made.fileCounts
        night.notes = made.notes
        night.signaturesVerified = settings.signaturesVerified ?? true
        night.kept = KeptFeedsNight(
            groups: groups,
            index: Index(
                feeds: paths.indices.map { feed in paths[feed].indices.map { (paths[feed][$0], readingEntries[feed][$0]) } },
                state: made.state),
            segments: made.segments, keptSegmentEntries: keptSegmentEntries, settings: settingsBytes, asOf: settings.asOf, cache: cache)
        return night
    }
}

extension KeptFeedsNight.KeptGroup {
    static func encode(
        into entry: inout CacheEntryWriter, path: String, batch: EventBatch, rejected: [(format: SourceFormat, note: StoreLineNote)],
        eventCount: Int, records: [UInt8]
    ) {
        entry.append(text: path)
        entry.append(Int64(rejected.count))
        for (format, note) in rejected {
            entry.append(UInt8(SourceFormat.allCases.firstIndex(of: format)!))
            entry.append(text: note.path)
            entry.append([note])
        }
        entry.append(Int64(eventCount))
        entry.append(batch.records.reduce(Int64.min) { max($0, $1.timestamp) })
        entry.append(Int64(batch.eventsAtOrAfterAsOf))
        entry.append(bytesOf: records)
        ParsedLogCache.append(batch, to: &entry)
    }

    init(entry: inout CacheEntryReader) throws {
        let path = try entry.requiredText()
        rejected = []
        for _ in 0..<(try entry.count()) {
            let format = try entry.sourceFormat()
            let notePath = try entry.requiredText()
            let notes = try entry.notes(path: notePath)
            guard notes.count == 1 else { throw CacheEntryReader.Damaged() }
            rejected.append((format, notes[0]))
        }
        eventCount = Int(try entry.read(Int64.self))
        latestTimestamp = try entry.read(Int64.self)
        eventsAtOrAfterAsOf = Int(try entry.read(Int64.self))
        records = Array(try entry.bytesWithLength())
        batch = try ParsedLogCache.batch(from: &entry, fileIndex: 0, path: path)
    }
}

/// The entries of a kept feeds night: see `KeptFeedsNight`.
extension ParsedLogCache {
    static let keptFeedsGroupMagic = Array("OfferLab kept feeds group\n".utf8)
    static let keptFeedsIndexMagic = Array("OfferLab kept feeds night\n".utf8)
    static let keptFeedsSegmentMagic = Array("OfferLab kept feeds records\n".utf8)

    private func keptFeedsIndexWords(settings: [UInt8]) -> [UInt64] {
        keptFileWords + [settings.withUnsafeBytes { Self.hash($0) }, UInt64(settings.count)]
    }

    /// The first 8 hex digits of the index entries of nights read with `settings`.
    private func keptFeedsIndexPrefix(settings: [UInt8]) -> String {
        let words = keptFeedsIndexWords(settings: settings)
        return String(Self.hexName(words.withUnsafeBytes { Self.hash($0) }).prefix(8))
    }

    /// The index of the latest night of `feeds` feeds read with `settings` whose `as_of` is not
    /// after `asOf`, and its entry's name; nil when there is none.
    func keptFeedsIndex(settings: [UInt8], feeds: Int, asOf: Int64) -> (name: String, index: KeptFeedsNight.Index)? {
        let words = keptFeedsIndexWords(settings: settings)
        // Each index's `as_of` is the first word of its payload: only the latest is read whole (an
        // earlier one when it is damaged).
        let header = Self.keptFeedsIndexMagic.count + 8 * (words.count + 1)
        let candidates = entryNames(withPrefix: keptFeedsIndexPrefix(settings: settings)).compactMap { name in
            word(ofEntry: name, at: header).map { (name: name, asOf: $0) }
        }
        for candidate in candidates.filter({ $0.asOf <= asOf }).sorted(by: {
            $0.asOf > $1.asOf || ($0.asOf == $1.asOf && $0.name < $1.name)
        }) {
            if let (asOfKept, index) = readEntry(
                named: candidate.name, magic: Self.keptFeedsIndexMagic, words: words, countsDamage: false,
                decode: { entry in (try entry.read(Int64.self), try KeptFeedsNight.Index(entry: &entry, feeds: feeds)) }),
                asOfKept <= asOf
            {
                return (candidate.name, index)
            }
        }
        return nil
    }

    /// The groups' entries, read at most `width` at a time; nil when one is missing or damaged.
    func keptFeedsGroups(_ names: [String], width: Int?) async -> [KeptFeedsNight.KeptGroup]? {
        var groups: [KeptFeedsNight.KeptGroup] = []
        var missing = false
        try? await InOrder.run(count: names.count, width: width) { position in
            self.readEntry(named: names[position], magic: Self.keptFeedsGroupMagic, words: self.keptFileWords) {
                try KeptFeedsNight.KeptGroup(entry: &$0)
            }
        } merge: { group in
            if let group { groups.append(group) } else { missing = true }
        }
        releaseBuffers()
        return missing ? nil : groups
    }

    /// The segments' entries, mapped; nil when one is missing or damaged.
    func keptFeedsSegments(_ names: [String]) -> [KeptSegment]? {
        var segments: [KeptSegment] = []
        for name in names {
            guard let segment = mappedEntry(named: name, magic: Self.keptFeedsSegmentMagic, words: keptFileWords) else { return nil }
            segments.append(segment)
        }
        return segments
    }

    /// Writes the night's index entry, with its `as_of` first.
    func keepFeedsIndex(_ index: KeptFeedsNight.Index, settings: [UInt8], asOf: Int64) {
        _ = writeEntryNamedByContent(
            prefix: keptFeedsIndexPrefix(settings: settings), magic: Self.keptFeedsIndexMagic,
            words: keptFeedsIndexWords(settings: settings)
        ) {
            $0.append(asOf)
            index.encode(into: &$0)
        }
    }
}

extension KeptFeedsNight.Index {
    func encode(into entry: inout CacheEntryWriter) {
        for feed in feeds {
            entry.append(Int64(feed.count))
            for file in feed {
                entry.append(text: file.path)
                entry.append(text: file.readingEntry)
            }
        }
        entry.append(Int64(groupEntries.count))
        for name in groupEntries { entry.append(text: name) }
        entry.append(Int64(segmentEntries.count))
        for name in segmentEntries { entry.append(text: name) }
        entry.append(bytesOf: state)
    }

    init(entry: inout CacheEntryReader, feeds count: Int) throws {
        feeds = []
        for _ in 0..<count {
            var files: [(path: String, readingEntry: String)] = []
            for _ in 0..<(try entry.count()) { files.append((try entry.requiredText(), try entry.requiredText())) }
            feeds.append(files)
        }
        for _ in 0..<(try entry.count()) { groupEntries.append(try entry.requiredText()) }
        for _ in 0..<(try entry.count()) { segmentEntries.append(try entry.requiredText()) }
        state = Array(try entry.bytesWithLength())
    }
}
