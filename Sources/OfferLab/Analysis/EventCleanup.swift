import COfferLabSystem
import Foundation
import OfferLabIngest

/// Counters of the clean-up steps of §2.2.
struct CleanupCounters: Sendable, Equatable {
    var duplicateEvents = 0
    var unknownEventTypes = 0
    var sandboxEvents = 0
    var unassignedEvents = 0
}

/// One event that survived clean-up, as attribution reads it (48 bytes).
struct UserEvent: Sendable, Equatable {
    /// Microseconds since the epoch, UTC.
    var timestamp: Int64
    /// Micro-units of `currency`; `EventRecord.noPrice` when absent.
    var price: Int64
    /// Ids in the store's interners; -1 when absent.
    var transaction: Int32
    var originalTransaction: Int32
    var product: Int32
    var currency: Int32
    var loggedOffering: Int32
    var loggedGroup: Int32
    /// `EventType.rawValue` (clean-up drops unknown types).
    var kind: UInt8

    var eventType: EventType? { EventType(rawValue: kind) }
}

/// The events that survive clean-up, grouped by user: `events[userStart[u]..<userStart[u+1]]`
/// are user u's events, sorted by time, then file order.
struct UserEvents: Sendable {
    var events: [UserEvent]
    var userStart: [Int32]

    /// Calls `body` with a view that hands out each user's events without retaining the
    /// arrays per user (the loops over members run once per member and day).
    func withView<T>(_ body: (View) throws -> T) rethrows -> T {
        try events.withUnsafeBufferPointer { events in
            try userStart.withUnsafeBufferPointer { starts in try body(View(events: events, userStart: starts)) }
        }
    }

    struct View {
        let events: UnsafeBufferPointer<UserEvent>
        let userStart: UnsafeBufferPointer<Int32>

        @inline(__always)
        func events(of user: Int32) -> UnsafeBufferPointer<UserEvent> {
            UnsafeBufferPointer(rebasing: events[Int(userStart[Int(user)])..<Int(userStart[Int(user) + 1])])
        }
    }
}

enum EventCleanup {
    /// Applies §2.2 steps 2–5 (step 1, `ts >= as_of`, is applied while reading):
    /// deduplicate by `event_id`, then by (`event`, `transaction_id`); drop unknown types,
    /// sandbox events and unassigned users' events, counting each.
    ///
    /// The store's records are released as they are regrouped by user (its interners stay).
    /// The passes over the records run on `width` threads (default: one per core), each over a
    /// run of consecutive files; what they find is combined in file order, so the result does not
    /// depend on `width`.
    static func run(store: inout EventStore, userCount: Int, width: Int? = nil) -> (UserEvents, CleanupCounters) {
        let parts = Parts(store, width: width ?? ProcessInfo.processInfo.activeProcessorCount)
        var counters = CleanupCounters()
        var removed = [Bool](repeating: false, count: store.count)
        var eventsPerUser: [[Int32]] = []
        removed.withUnsafeMutableBufferPointer { removed in
            counters.duplicateEvents += removeEventIDDuplicates(store, parts: parts, removed: removed)
            counters.duplicateEvents += removeTransactionDuplicates(store, parts: parts, removed: removed)
            // Steps 3–5, counting each user's events.
            let counted = parts.map { part -> (CleanupCounters, [Int32]) in
                var partCounters = CleanupCounters()
                var perUser = [Int32](repeating: 0, count: userCount)
                store.forEachSegment(in: part) { start, _, records in
                    for (index, record) in records.enumerated() where !removed[start + index] {
                        if record.kind == EventRecord.unknownKind {
                            partCounters.unknownEventTypes += 1
                        } else if record.isSandbox {
                            partCounters.sandboxEvents += 1
                        } else if record.user < 0 {
                            partCounters.unassignedEvents += 1
                        } else {
                            perUser[Int(record.user)] += 1
                            continue
                        }
                        removed[start + index] = true
                    }
                }
                return (partCounters, perUser)
            }
            for (partCounters, perUser) in counted {
                counters.unknownEventTypes += partCounters.unknownEventTypes
                counters.sandboxEvents += partCounters.sandboxEvents
                counters.unassignedEvents += partCounters.unassignedEvents
                eventsPerUser.append(perUser)
            }
        }
        return (groupByUser(&store, parts: parts, removed: removed, eventsPerUser: eventsPerUser), counters)
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
                let end = part == count - 1 ? store.segments.count : (first..<store.segments.count).first {
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
            EventCleanup.concurrently(ranges.count) { body(ranges[$0]) }
        }
    }

    /// `body(0) … body(count - 1)` on `count` threads at once; the results in order. `body` only
    /// reads what the threads share, and writes memory no other call writes (its own results,
    /// or disjoint positions of a shared buffer): that is what makes the unchecked sharing sound.
    static func concurrently<T>(_ count: Int, _ body: (Int) -> T) -> [T] {
        withoutActuallyEscaping(body) { body in
            let work = Shared(value: body)
            return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
                guard let base = buffer.baseAddress else { return }
                let results = Shared(value: base)
                DispatchQueue.concurrentPerform(iterations: count) { index in (results.value + index).initialize(to: work.value(index)) }
                initialized = count
            }
        }
    }

    /// A value handed to the threads of `concurrently`.
    private struct Shared<Value>: @unchecked Sendable {
        let value: Value
    }

    /// One record with an `event_id`, copied out so that a partition of them is compared in
    /// cache, without reaching back into the records.
    private struct KeyedRecord {
        var high: UInt64
        var low: UInt64
        var timestamp: Int64
        var position: Int32
        var form: EventIDKey.Form

        @inline(__always) func sameKey(_ other: KeyedRecord) -> Bool {
            high == other.high && low == other.low && form == other.form
        }

        @inline(__always) var hash: UInt64 {
            var mixed = (high ^ UInt64(form.rawValue) << 56) &* 0x9E37_79B9_7F4A_7C15 ^ low &* 0xC2B2_AE3D_27D4_EB4F
            mixed ^= mixed >> 29
            return mixed &* 0xBF58_476D_1CE4_E5B9
        }
    }

    /// Step 2, first part: among records with the same `event_id`, the earliest (then the
    /// first in file order) stays. Records are split by key hash into partitions small enough
    /// for their hash table to stay in cache; within a partition they stay in file order.
    /// Returns the number removed.
    private static func removeEventIDDuplicates(_ store: EventStore, parts: Parts, removed: UnsafeMutableBufferPointer<Bool>) -> Int {
        // About 16k records per partition: a 32k-slot table of 4-byte entries.
        var partitionBits = 0
        while partitionBits < 12 && (store.count >> partitionBits) > 16_384 { partitionBits += 1 }
        let partitionCount = 1 << partitionBits
        @inline(__always) func partition(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - partitionBits)) & (partitionCount - 1) }
        @inline(__always) func keyed(_ position: Int, _ record: EventRecord, _ segment: EventStore.Segment) -> KeyedRecord? {
            guard let key = segment.eventID(record) else { return nil }
            return KeyedRecord(high: key.high, low: key.low, timestamp: record.timestamp, position: Int32(position), form: key.form)
        }

        // A counting sort by partition: each part counts its records per partition, then writes
        // them after the earlier parts' records of the same partition.
        let counts = parts.map { part -> [Int] in
            var counts = [Int](repeating: 0, count: partitionCount)
            store.forEachSegment(in: part) { start, segment, records in
                for (index, record) in records.enumerated() {
                    if let entry = keyed(start + index, record, segment) { counts[partition(entry.hash)] += 1 }
                }
            }
            return counts
        }
        var starts = [Int](repeating: 0, count: partitionCount + 1)
        var partOffsets = [[Int]](repeating: [], count: parts.count)
        for target in 0..<partitionCount {
            var offset = starts[target]
            for part in 0..<parts.count {
                partOffsets[part].append(offset)
                offset += counts[part][target]
            }
            starts[target + 1] = offset
        }
        let total = starts[partitionCount]
        // Every slot is written once, by the scatter below.
        let keyedRecords = [KeyedRecord](unsafeUninitializedCapacity: total) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            offerlab_advise_huge_pages(base, buffer.count * MemoryLayout<KeyedRecord>.stride)
            _ = parts.map { part in
                guard let partIndex = parts.ranges.firstIndex(of: part) else { return }
                var next = partOffsets[partIndex]
                store.forEachSegment(in: part) { start, segment, records in
                    for (index, record) in records.enumerated() {
                        guard let entry = keyed(start + index, record, segment) else { continue }
                        let target = partition(entry.hash)
                        (base + next[target]).initialize(to: entry)
                        next[target] += 1
                    }
                }
            }
            initialized = total
        }

        // The partitions, shared out among the threads.
        let shares = (0..<parts.count).map { share in
            partitionCount * share / parts.count..<partitionCount * (share + 1) / parts.count
        }
        return keyedRecords.withUnsafeBufferPointer { keyedRecords in
            concurrently(shares.count) { deduplicate(keyedRecords, partitions: shares[$0], starts: starts, removed: removed) }
        }.reduce(0, +)
    }

    /// Deduplicates each of `partitions` with a hash table of its own; returns the copies removed.
    private static func deduplicate(
        _ keyedRecords: UnsafeBufferPointer<KeyedRecord>, partitions: Range<Int>, starts: [Int], removed: UnsafeMutableBufferPointer<Bool>
    ) -> Int {
        var duplicates = 0
        var table: [Int32] = []
        for part in partitions {
            let range = starts[part]..<starts[part + 1]
            guard !range.isEmpty else { continue }
            var size = 16
            while size < range.count * 2 { size *= 2 }
            table.removeAll(keepingCapacity: true)
            table.append(contentsOf: repeatElement(-1, count: size))
            let mask = size - 1
            for index in range {
                let entry = keyedRecords[index]
                var slot = Int(truncatingIfNeeded: entry.hash) & mask
                while true {
                    let held = table[slot]
                    if held < 0 {
                        table[slot] = Int32(index)
                        break
                    }
                    let best = keyedRecords[Int(held)]
                    if best.sameKey(entry) {
                        // `best` comes earlier in file order: `entry` wins only with an earlier ts.
                        duplicates += 1
                        if entry.timestamp < best.timestamp {
                            removed[Int(best.position)] = true
                            table[slot] = Int32(index)
                        } else {
                            removed[Int(entry.position)] = true
                        }
                        break
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
        return duplicates
    }

    /// Step 2, second part: among surviving trial_start, purchase, renewal and refund events
    /// with the same (`event`, `transaction_id`), the earliest (then the first in file order)
    /// stays. The few records with a transaction are found by the threads, then compared in file
    /// order. Returns the number removed.
    private static func removeTransactionDuplicates(_ store: EventStore, parts: Parts, removed: UnsafeMutableBufferPointer<Bool>) -> Int {
        let transactionKinds: [EventType] = [.trialStart, .purchase, .renewal, .refund]
        var kindSlot = [Int](repeating: -1, count: 256)
        for (slot, kind) in transactionKinds.enumerated() { kindSlot[Int(kind.rawValue)] = slot }
        let transactionCount = store.transactions.count
        // Per part, in file order: (position, key, timestamp) of every surviving candidate.
        let candidates = parts.map { part -> [(position: Int, key: Int, timestamp: Int64)] in
            var found: [(position: Int, key: Int, timestamp: Int64)] = []
            store.forEachSegment(in: part) { start, segment, records in
                for (index, record) in records.enumerated() where record.transaction >= 0 && !removed[start + index] {
                    let slot = kindSlot[Int(record.kind)]
                    guard slot >= 0 else { continue }
                    found.append((start + index, slot * transactionCount + Int(segment.transaction(record)), record.timestamp))
                }
            }
            return found
        }
        var best = [Int32](repeating: -1, count: transactionKinds.count * transactionCount)
        var bestTimestamp = [Int64](repeating: 0, count: best.count)
        var duplicates = 0
        for (position, key, timestamp) in candidates.joined() {
            let current = best[key]
            if current < 0 {
                best[key] = Int32(position)
                bestTimestamp[key] = timestamp
                continue
            }
            duplicates += 1
            // The current best comes earlier in file order.
            if timestamp < bestTimestamp[key] {
                removed[Int(current)] = true
                best[key] = Int32(position)
                bestTimestamp[key] = timestamp
            } else {
                removed[position] = true
            }
        }
        return duplicates
    }

    /// Copies the surviving records into one array grouped by user (a counting sort that keeps
    /// file order: each part writes a user's events after the earlier parts'), releasing each
    /// file's records once copied, then sorts each user's events by time; file order breaks
    /// ties. `eventsPerUser[part][user]` counts the events each part keeps.
    private static func groupByUser(_ store: inout EventStore, parts: Parts, removed: [Bool], eventsPerUser: [[Int32]]) -> UserEvents {
        let userCount = eventsPerUser.first?.count ?? 0
        var userStart = [Int32](repeating: 0, count: userCount + 1)
        for user in 0..<userCount {
            var total: Int32 = 0
            for part in eventsPerUser.indices { total += eventsPerUser[part][user] }
            userStart[user + 1] = userStart[user] + total
        }
        // Where each part writes its next event of each user.
        var partNext: [[Int32]] = []
        var next = Array(userStart.dropLast())
        for part in eventsPerUser.indices {
            partNext.append(next)
            if part + 1 < eventsPerUser.count { for user in 0..<userCount { next[user] += eventsPerUser[part][user] } }
        }
        let total = Int(userStart[userCount])
        var segments: [EventStore.Segment] = []
        swap(&segments, &store.segments)
        let starts = store.segmentStarts
        var events = [UserEvent](unsafeUninitializedCapacity: total) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            offerlab_advise_huge_pages(base, buffer.count * MemoryLayout<UserEvent>.stride)
            removed.withUnsafeBufferPointer { removed in
                segments.withUnsafeMutableBufferPointer { segments in
                    _ = parts.map { part in
                        guard let partIndex = parts.ranges.firstIndex(of: part) else { return }
                        var next = partNext[partIndex]
                        for segmentIndex in part {
                            // Taken out, so that its records are released as soon as they are copied.
                            var segment = EventStore.Segment(records: [], eventIDMap: [], transactionMap: [], labelMap: [])
                            swap(&segment, &segments[segmentIndex])
                            let start = starts[segmentIndex]
                            for (index, record) in segment.records.enumerated() where !removed[start + index] {
                                let user = Int(record.user)
                                (base + Int(next[user])).initialize(to: segment.userEvent(record))
                                next[user] += 1
                            }
                        }
                    }
                }
            }
            initialized = total
        }
        let shares = (0..<parts.count).map { share in userCount * share / parts.count..<userCount * (share + 1) / parts.count }
        events.withUnsafeMutableBufferPointer { events in
            _ = concurrently(shares.count) { share in
                for user in shares[share] where userStart[user + 1] - userStart[user] > 1 {
                    sortByTime(UnsafeMutableBufferPointer(rebasing: events[Int(userStart[user])..<Int(userStart[user + 1])]))
                }
            }
        }
        return UserEvents(events: events, userStart: userStart)
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
