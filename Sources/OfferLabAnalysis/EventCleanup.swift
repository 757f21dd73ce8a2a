import COfferLabSystem
import Foundation
import OfferLabEvents
import OfferLabIngest
import OfferLabSupport

package enum EventCleanup {
    /// How clean-up shares out its work. No setting changes a result: tests use small sizes and
    /// a hash with few bits, so that little data reaches every path.
    package struct Tuning: Sendable {
        /// At most about this many `event_id`s per partition of deduplication (whose hash table
        /// then stays in cache), with at most 2¹² partitions.
        var eventIDsPerPartition = 16_384
        /// At most this many blocks of users in the regrouping by user (see `groupByUser`).
        var userBlocks = 512
        /// The bits of an `event_id`'s hash kept for comparisons. Fewer bits make ids that differ
        /// share a hash more often; they are told apart by their exact keys.
        var hashMask: UInt32 = .max
    }

    /// Applies `CleanupRules` to the store's records (the `as_of` rule is applied while reading):
    /// deduplicate by `event_id`, then by (`event`, `transaction_id`); drop unknown types,
    /// sandbox events and unassigned users' events, counting each.
    ///
    /// The store's records are released as they are regrouped by user (its interners stay).
    /// The passes over the records run on `width` threads (default: one per core), each over a
    /// run of consecutive files; what they find is combined in file order, so the result does not
    /// depend on `width`.
    package static func run(store: inout EventStore, userCount: Int, width: Int? = nil, tuning: Tuning = .standard) -> (
        UserEvents, CleanupCounters
    ) {
        let parts = Parts(store, width: width ?? ProcessInfo.processInfo.activeProcessorCount)
        let partitioning = EventIDPartitioning(store, parts: parts, tuning: tuning)
        let userBlocks = UserBlocks(userCount: userCount, tuning: tuning)
        // One pass over the records finds all that deduplication needs, and counts steps 3–5 as
        // if nothing were a duplicate; the duplicates are then taken out of those counts.
        let surveys = concurrently(parts.count) { part in
            survey(
                store, part: parts.ranges[part], firstBlock: partitioning.firstBlocks[part], partitioning: partitioning,
                userBlocks: userBlocks)
        }
        var counters = CleanupCounters()
        var removed = [Bool](repeating: false, count: store.count)
        var eventsPerBlock: [[Int]] = []
        removed.withUnsafeMutableBufferPointer { removed in
            counters.duplicateEvents += RecordLookup.with(store) { lookup in
                removeEventIDDuplicates(partitioning, surveys: surveys, lookup: lookup, removed: removed)
            }
            // Freed before the regrouped events are faulted in: a lower peak, and pages the
            // kernel hands out again warm.
            partitioning.deallocate()
            counters.duplicateEvents += removeTransactionDuplicates(surveys, transactionCount: store.transactions.count, removed: removed)
            let uncounted = concurrently(parts.count) { part in
                uncountDuplicates(
                    store, part: parts.ranges[part], survey: surveys[part], userBlocks: userBlocks, removed: UnsafeBufferPointer(removed))
            }
            for (partCounters, perBlock) in uncounted {
                counters.unknownEventTypes += partCounters.unknownEventTypes
                counters.sandboxEvents += partCounters.sandboxEvents
                counters.unassignedEvents += partCounters.unassignedEvents
                eventsPerBlock.append(perBlock)
            }
        }
        return (groupByUser(&store, parts: parts, removed: removed, userBlocks: userBlocks, eventsPerBlock: eventsPerBlock), counters)
    }

    // MARK: - Internal machinery

    /// Runs of consecutive files of about the same number of records, one per thread.
    struct Parts {
        /// Segment ranges, in file order.
        let ranges: [Range<Int>]

        init(_ store: EventStore, width: Int) {
            let count = max(1, min(width, store.segments.count))
            var ranges: [Range<Int>] = []
            var first = 0
            for part in 0..<count {
                // The segments whose first record falls in this part's share of the records.
                let end =
                    part == count - 1
                    ? store.segments.count
                    : (first..<store.segments.count).first {
                        store.segmentStarts[$0] >= store.count * (part + 1) / count
                    } ?? store.segments.count
                ranges.append(first..<max(first, end))
                first = max(first, end)
            }
            self.ranges = ranges
        }

        var count: Int { ranges.count }

        /// `body(part)` for every part at once, one thread each; the results in part order.
        func map<T>(_ body: (Range<Int>) -> T) -> [T] {
            concurrently(ranges.count) { body(ranges[$0]) }
        }
    }

    /// The record at a run-wide position, for the few that are looked up out of file order.
    private struct RecordLookup {
        let store: EventStore
        /// Every segment's records and shapes (valid during `RecordLookup.with`).
        let records: [UnsafeBufferPointer<EventRecord>]
        let shapes: [UnsafeBufferPointer<EventShape>]

        /// Calls `body` with a lookup into `store`'s records.
        static func with<T>(_ store: EventStore, _ body: (RecordLookup) -> T) -> T {
            func withRecords(
                from segment: Int, _ records: [UnsafeBufferPointer<EventRecord>], _ shapes: [UnsafeBufferPointer<EventShape>]
            ) -> T {
                guard segment < store.segments.count else { return body(RecordLookup(store: store, records: records, shapes: shapes)) }
                return store.segments[segment].records.withUnsafeBufferPointer { segmentRecords in
                    store.segments[segment].shapes.withUnsafeBufferPointer { segmentShapes in
                        withRecords(from: segment + 1, records + [segmentRecords], shapes + [segmentShapes])
                    }
                }
            }
            return withRecords(from: 0, [], [])
        }

        /// The segment of the record at `position`, and the record.
        private func record(at position: Int) -> (segment: Int, record: EventRecord) {
            // The last segment starting at or before `position`.
            var low = 0
            var high = records.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if store.segmentStarts[middle] <= position { low = middle } else { high = middle - 1 }
            }
            return (low, records[low][position - store.segmentStarts[low]])
        }

        /// A record found by `eventID(at:)`: its `event_id` key, as compared across files, its
        /// timestamp, and where it is (for `sameEventIDText`, without looking it up again).
        struct FoundEventID {
            var key: EventIDKey?
            var timestamp: Int64
            fileprivate var segment: Int
            fileprivate var record: EventRecord
        }

        /// The record's `event_id` key, as compared across files, and its timestamp.
        func eventID(at position: Int) -> FoundEventID {
            let (segment, record) = record(at: position)
            return FoundEventID(
                key: EventStore.Segment.eventID(record, form: shapes[segment][Int(record.shape)].eventIDForm), timestamp: record.timestamp,
                segment: segment, record: record)
        }

        /// Whether the `interned` event ids of two records are the same text: their keys hold
        /// only a hash (`EventIDKey`), which two different ids may share.
        func sameEventIDText(_ first: FoundEventID, _ second: FoundEventID) -> Bool {
            store.segments[first.segment].withEventIDText(first.record) { firstText in
                store.segments[second.segment].withEventIDText(second.record) { secondText in firstText.elementsEqual(secondText) }
            }
        }
    }

    /// One record with an `event_id`: its run-wide position and part of its key's hash. This
    /// is all that deduplication reads in its partitions; records whose hashes agree are then
    /// compared by their exact keys (`RecordLookup`).
    private struct HashedEventID {
        var hash: UInt32
        var position: Int32
    }

    /// Where the survey writes each part's `HashedEventID`s: by partition (the top bits of the
    /// hash), in blocks taken in turn from the part's share of one buffer, so that nothing has
    /// to be counted first.
    private struct EventIDPartitioning {
        static let blockSize = 256
        let partitionBits: Int
        let hashMask: UInt32
        let buffer: UnsafeMutableBufferPointer<HashedEventID>
        /// The first block of each part's share, and one more entry: the number of blocks.
        let firstBlocks: [Int]

        init(_ store: EventStore, parts: Parts, tuning: Tuning) {
            var bits = 0
            while bits < 12 && (store.count >> bits) > tuning.eventIDsPerPartition { bits += 1 }
            partitionBits = bits
            hashMask = tuning.hashMask
            // Every record of the part, and a partly filled block per partition.
            var firstBlocks = [0]
            for part in parts.ranges {
                let records = store.segmentStarts[part.upperBound] - store.segmentStarts[part.lowerBound]
                firstBlocks.append(firstBlocks[firstBlocks.count - 1] + (records + Self.blockSize - 1) / Self.blockSize + (1 << bits))
            }
            self.firstBlocks = firstBlocks
            buffer = .allocate(capacity: firstBlocks[firstBlocks.count - 1] * Self.blockSize)
            if let base = buffer.baseAddress { offerlab_advise_huge_pages(base, buffer.count * MemoryLayout<HashedEventID>.stride) }
        }

        func deallocate() { buffer.deallocate() }

        var partitionCount: Int { 1 << partitionBits }

        @inline(__always)
        func partition(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - partitionBits)) }

        @inline(__always)
        static func hash(_ key: EventIDKey) -> UInt64 {
            var mixed = (key.high ^ UInt64(key.form.rawValue) << 56) &* 0x9E37_79B9_7F4A_7C15 ^ key.low &* 0xC2B2_AE3D_27D4_EB4F
            mixed ^= mixed >> 29
            return mixed &* 0xBF58_476D_1CE4_E5B9
        }
    }

    /// One part's blocks of each partition, in the order they were filled.
    private struct PartitionBlocks {
        /// Per partition: the blocks, and how many entries they hold (all full but the last).
        var blocks: [[Int32]]
        var counts: [Int]

        /// `body(index)` for the buffer index of every entry of `partition`, in order.
        @inline(__always)
        func forEachEntry(of partition: Int, _ body: (Int) -> Void) {
            var remaining = counts[partition]
            for block in blocks[partition] {
                let start = Int(block) * EventIDPartitioning.blockSize
                for index in start..<start + min(remaining, EventIDPartitioning.blockSize) { body(index) }
                remaining -= EventIDPartitioning.blockSize
            }
        }
    }

    /// A trial_start, purchase, renewal or refund record with a transaction (docs/analysis.md §2 step 2).
    private struct TransactionCandidate {
        var position: Int
        /// Kind and transaction, as one index.
        var key: Int
        var timestamp: Int64
    }

    /// What one pass over a part's records finds.
    private struct Survey {
        var eventIDs: PartitionBlocks
        var transactionCandidates: [TransactionCandidate]
        /// Steps 3–5, counting every record (duplicates included), and the events that stay per
        /// block of users.
        var counters: CleanupCounters
        var eventsPerBlock: [Int]
    }

    private static let transactionKinds = CleanupRules.transactionDeduplicatedTypes

    /// `CleanupRules.drop` for one record.
    @inline(__always)
    private static func drop(_ record: EventRecord, _ shape: EventShape) -> CleanupRules.Drop? {
        CleanupRules.drop(
            isKnownType: shape.kind != EventRecord.unknownKind, isSandbox: shape.isSandbox, isAssigned: record.user.populationIndex != nil)
    }

    /// The one pass over a part's records: their `event_id`s hashed into partitions, their
    /// candidates for the (`event`, `transaction_id`) duplicates, steps 3–5 counted.
    private static func survey(
        _ store: EventStore, part: Range<Int>, firstBlock: Int, partitioning: EventIDPartitioning, userBlocks: UserBlocks
    ) -> Survey {
        var kindSlot = [Int](repeating: -1, count: 256)
        for (slot, kind) in transactionKinds.enumerated() { kindSlot[Int(kind.rawValue)] = slot }
        let transactionCount = store.transactions.count
        let partitionCount = partitioning.partitionCount
        var blocks = [[Int32]](repeating: [], count: partitionCount)
        var candidates: [TransactionCandidate] = []
        var counters = CleanupCounters()
        var perBlock = [Int](repeating: 0, count: userBlocks.count)
        // The next free entry, and the end, of each partition's current block.
        var next = [Int](repeating: 0, count: partitionCount)
        var end = [Int](repeating: 0, count: partitionCount)
        var nextBlock = firstBlock
        let base = partitioning.buffer.baseAddress!
        let hashMask = partitioning.hashMask
        next.withUnsafeMutableBufferPointer { next in
            end.withUnsafeMutableBufferPointer { end in
                perBlock.withUnsafeMutableBufferPointer { perBlock in
                    kindSlot.withUnsafeBufferPointer { kindSlot in
                        store.forEachSegment(in: part) { start, segment, _ in
                            segment.forEachRecord { index, record, shape, details in
                                let position = start + index
                                if let key = segment.eventID(record, shape) {
                                    let hash = EventIDPartitioning.hash(key)
                                    let partition = partitioning.partition(hash)
                                    if next[partition] == end[partition] {
                                        blocks[partition].append(Int32(nextBlock))
                                        next[partition] = nextBlock * EventIDPartitioning.blockSize
                                        end[partition] = next[partition] + EventIDPartitioning.blockSize
                                        nextBlock += 1
                                    }
                                    (base + next[partition]).initialize(
                                        to: HashedEventID(hash: UInt32(truncatingIfNeeded: hash) & hashMask, position: Int32(position)))
                                    next[partition] += 1
                                }
                                if details >= 0 {
                                    let slot = kindSlot[Int(shape.kind)]
                                    let transaction = segment.transaction(segment.details[Int(details)].transaction)
                                    if slot >= 0 && transaction >= 0 {
                                        candidates.append(
                                            TransactionCandidate(
                                                position: position, key: slot * transactionCount + Int(transaction),
                                                timestamp: record.timestamp))
                                    }
                                }
                                if let drop = drop(record, shape) {
                                    counters.add(drop, 1)
                                } else {
                                    perBlock[userBlocks.block(of: record.user)] += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        // Every block of a partition is full but its last, which is filled up to `next`.
        let counts = (0..<partitionCount).map { partition -> Int in
            guard let last = blocks[partition].last else { return 0 }
            return (blocks[partition].count - 1) * EventIDPartitioning.blockSize + next[partition] - Int(last)
                * EventIDPartitioning.blockSize
        }
        return Survey(
            eventIDs: PartitionBlocks(blocks: blocks, counts: counts), transactionCandidates: candidates, counters: counters,
            eventsPerBlock: perBlock)
    }

    /// Step 2, first part: among records with the same `event_id`, the one
    /// `CleanupRules.laterCopySurvives` picks stays. Each partition is deduplicated with a hash table of its own,
    /// in file order (part by part, block by block); the partitions are shared out among the
    /// threads. Returns the number removed.
    private static func removeEventIDDuplicates(
        _ partitioning: EventIDPartitioning, surveys: [Survey], lookup: RecordLookup, removed: UnsafeMutableBufferPointer<Bool>
    ) -> Int {
        let shareCount = surveys.count
        let partitionCount = partitioning.partitionCount
        let entries = UnsafeBufferPointer(partitioning.buffer)
        return concurrently(shareCount) { share in
            var duplicates = 0
            var table: [Int32] = []
            for partition in partitionCount * share / shareCount..<partitionCount * (share + 1) / shareCount {
                let count = surveys.reduce(0) { $0 + $1.eventIDs.counts[partition] }
                guard count > 0 else { continue }
                var size = 16
                while size < count * 2 { size *= 2 }
                table.removeAll(keepingCapacity: true)
                table.append(contentsOf: repeatElement(-1, count: size))
                let mask = size - 1
                table.withUnsafeMutableBufferPointer { table in
                    for survey in surveys {
                        survey.eventIDs.forEachEntry(of: partition) { index in
                            let entry = entries[index]
                            var slot = Int(entry.hash) & mask
                            while true {
                                let held = table[slot]
                                if held < 0 {
                                    table[slot] = Int32(index)
                                    return
                                }
                                let best = entries[Int(held)]
                                if best.hash == entry.hash {
                                    let bestID = lookup.eventID(at: Int(best.position))
                                    let entryID = lookup.eventID(at: Int(entry.position))
                                    if bestID.key == entryID.key, entryID.key?.form != .interned || lookup.sameEventIDText(bestID, entryID)
                                    {
                                        // `best` comes earlier in file order.
                                        duplicates += 1
                                        if CleanupRules.laterCopySurvives(
                                            laterTimestamp: entryID.timestamp, earlierTimestamp: bestID.timestamp)
                                        {
                                            removed[Int(best.position)] = true
                                            table[slot] = Int32(index)
                                        } else {
                                            removed[Int(entry.position)] = true
                                        }
                                        return
                                    }
                                }
                                slot = (slot + 1) & mask
                            }
                        }
                    }
                }
            }
            return duplicates
        }.reduce(0, +)
    }

    /// Step 2, second part: among surviving trial_start, purchase, renewal and refund events
    /// with the same (`event`, `transaction_id`), the one `CleanupRules.laterCopySurvives` picks
    /// stays. The few candidates, found by the survey, are compared in file order. Returns the
    /// number removed.
    private static func removeTransactionDuplicates(_ surveys: [Survey], transactionCount: Int, removed: UnsafeMutableBufferPointer<Bool>)
        -> Int
    {
        var best = [Int32](repeating: -1, count: transactionKinds.count * transactionCount)
        var bestTimestamp = [Int64](repeating: 0, count: best.count)
        var duplicates = 0
        for candidate in surveys.lazy.flatMap(\.transactionCandidates) where !removed[candidate.position] {
            let key = candidate.key
            let current = best[key]
            if current < 0 {
                best[key] = Int32(candidate.position)
                bestTimestamp[key] = candidate.timestamp
                continue
            }
            duplicates += 1
            // The current best comes earlier in file order.
            if CleanupRules.laterCopySurvives(laterTimestamp: candidate.timestamp, earlierTimestamp: bestTimestamp[key]) {
                removed[Int(current)] = true
                best[key] = Int32(candidate.position)
                bestTimestamp[key] = candidate.timestamp
            } else {
                removed[candidate.position] = true
            }
        }
        return duplicates
    }

    /// A part's counts of steps 3–5 without its duplicates, which count only as duplicates.
    private static func uncountDuplicates(
        _ store: EventStore, part: Range<Int>, survey: Survey, userBlocks: UserBlocks, removed: UnsafeBufferPointer<Bool>
    ) -> (CleanupCounters, [Int]) {
        var counters = survey.counters
        var perBlock = survey.eventsPerBlock
        store.forEachSegment(in: part) { start, segment, records in
            for index in records.indices where removed[start + index] {
                let record = records[index]
                if let drop = drop(record, segment.shapes[Int(record.shape)]) {
                    counters.add(drop, -1)
                } else {
                    perBlock[userBlocks.block(of: record.user)] -= 1
                }
            }
        }
        return (counters, perBlock)
    }

    /// Consecutive users, in blocks of a power of two, for the regrouping by user.
    struct UserBlocks {
        let userCount: Int
        let bits: Int

        init(userCount: Int, tuning: Tuning) {
            self.userCount = userCount
            var bits = 0
            while (userCount >> bits) > tuning.userBlocks { bits += 1 }
            self.bits = bits
        }

        var count: Int { (userCount + (1 << bits) - 1) >> bits }

        @inline(__always)
        func block(of user: Int32) -> Int { Int(user) >> bits }

        /// The block of a kept record's user: clean-up keeps the records of assigned users only
        /// (`drop`).
        @inline(__always)
        func block(of user: UserReference) -> Int { block(of: user.populationIndex!) }

        func users(of block: Int) -> Range<Int> { block << bits..<min(userCount, (block + 1) << bits) }
    }

    /// Copies the surviving records into one array grouped by user, releasing each file's
    /// records once copied, then sorts each user's events by time; file order breaks ties.
    /// `eventsPerBlock[part][block]` counts the events each part keeps of each block of users.
    ///
    /// A counting sort that keeps file order, in two steps so that writes go to few places at a
    /// time: the parts first write each event after the earlier events of its block of users
    /// (each part after the earlier parts), then each block, small enough for the cache, is
    /// ordered by user and time in place.
    private static func groupByUser(
        _ store: inout EventStore, parts: Parts, removed: [Bool], userBlocks: UserBlocks, eventsPerBlock: [[Int]]
    ) -> UserEvents {
        // Where each block starts, and where each part writes its next event of each block.
        var blockStart = [0]
        var partNext = [[Int]](repeating: [], count: eventsPerBlock.count)
        for block in 0..<userBlocks.count {
            var next = blockStart[block]
            for part in eventsPerBlock.indices {
                partNext[part].append(next)
                next += eventsPerBlock[part][block]
            }
            blockStart.append(next)
        }
        let total = blockStart[userBlocks.count]
        var segments: [EventStore.Segment] = []
        swap(&segments, &store.segments)
        let starts = store.segmentStarts
        // Every file's details with the store's ids, in file order (those of dropped events too:
        // they are few).
        var detailsStart: [Int32] = []
        var details: [EventDetails] = []
        for segment in segments {
            detailsStart.append(Int32(details.count))
            details.append(contentsOf: segment.details.lazy.map(segment.storeDetails))
        }
        var userStart = [Int32](repeating: 0, count: userBlocks.userCount + 1)
        let events = [UserEvent](unsafeUninitializedCapacity: total) { buffer, initialized in
            // Not advised to huge pages (see `Array(hugePageCapacity:)`): written once in order,
            // it gains nothing from them, and fresh huge pages cost more to fault in. Nor
            // faulted in up front: its pages are faulted in as the files' records are copied
            // and released, so that they are the records' own pages, handed back (below).
            guard let base = buffer.baseAddress else { return }
            removed.withUnsafeBufferPointer { removed in
                segments.withUnsafeMutableBufferPointer { segments in
                    _ = concurrently(parts.count) { part in
                        var next = partNext[part]
                        next.withUnsafeMutableBufferPointer { next in
                            for segmentIndex in parts.ranges[part] {
                                do {
                                    // Taken out, so that its records are released as soon as they are copied.
                                    var segment = EventStore.Segment(
                                        records: [], shapes: [], shapeMap: [], details: [], eventIDs: EventIDTexts(), transactionMap: [],
                                        labelMap: [])
                                    swap(&segment, &segments[segmentIndex])
                                    let start = starts[segmentIndex]
                                    let firstDetails = detailsStart[segmentIndex]
                                    segment.forEachRecord { index, record, shape, details in
                                        guard !removed[start + index] && drop(record, shape) == nil else { return }
                                        let event = segment.userEvent(
                                            record, shape, details: details < 0 ? details : firstDetails + details)
                                        let block = userBlocks.block(of: event.user)
                                        (base + next[block]).initialize(to: event)
                                        next[block] += 1
                                    }
                                }
                                // A file's records are mostly below glibc's mmap threshold: freed,
                                // glibc keeps their pages, and the regrouped events would fault in
                                // fresh ones (and the peak would hold both arrays whole).
                                offerlab_release_freed_memory()
                            }
                        }
                    }
                }
            }
            initialized = total
            let shares = (0..<parts.count).map { share in
                userBlocks.count * share / parts.count..<userBlocks.count * (share + 1) / parts.count
            }
            userStart.withUnsafeMutableBufferPointer { userStart in
                _ = concurrently(shares.count) { share in
                    var copy: [UserEvent] = []
                    var userNext: [Int32] = []
                    for block in shares[share] {
                        let users = userBlocks.users(of: block)
                        let firstUser = users.lowerBound
                        copy.removeAll(keepingCapacity: true)
                        copy.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[blockStart[block]..<blockStart[block + 1]]))
                        // Each user's first position: a count per user, then running sums.
                        userNext.removeAll(keepingCapacity: true)
                        userNext.append(contentsOf: repeatElement(0, count: users.count))
                        for event in copy { userNext[Int(event.user) - firstUser] += 1 }
                        var position = Int32(blockStart[block])
                        for user in users {
                            let count = userNext[user - firstUser]
                            userStart[user] = position
                            userNext[user - firstUser] = position
                            position += count
                        }
                        // Element to element: an event taken out as the loop's element was copied
                        // through the stack with loads that straddle the stores that had just put
                        // it there, each waiting for them.
                        copy.withUnsafeBufferPointer { copy in
                            for index in copy.indices {
                                let user = Int(copy[index].user) - firstUser
                                buffer[Int(userNext[user])] = copy[index]
                                userNext[user] += 1
                            }
                        }
                        for user in users {
                            let end = user + 1 == users.upperBound ? position : userStart[user + 1]
                            if end - userStart[user] > 1 {
                                sortByTime(UnsafeMutableBufferPointer(rebasing: buffer[Int(userStart[user])..<Int(end)]))
                            }
                        }
                    }
                }
            }
        }
        userStart[userBlocks.userCount] = Int32(total)
        return UserEvents(events: events, userStart: userStart, details: details, shapes: store.shapes.all)
    }

    /// A stable sort by timestamp: insertion sort for the usual handful of events, otherwise
    /// a sort by (timestamp, position).
    private static func sortByTime(_ events: UnsafeMutableBufferPointer<UserEvent>) {
        if events.count <= 32 {
            for index in 1..<events.count {
                let moving = events[index]
                var target = index
                while target > 0 && events[target - 1].timestamp > moving.timestamp {
                    events[target] = events[target - 1]
                    target -= 1
                }
                events[target] = moving
            }
            return
        }
        let order = events.indices.sorted { (events[$0].timestamp, $0) < (events[$1].timestamp, $1) }
        let sorted = order.map { events[$0] }
        for (index, event) in sorted.enumerated() { events[index] = event }
    }
}

extension EventCleanup.Tuning {
    /// The tuning a run uses (tests try others).
    package static let standard = Self()
}
