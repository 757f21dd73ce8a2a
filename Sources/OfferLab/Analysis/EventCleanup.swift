import COfferLabSystem
import OfferLabIngest

/// Counters of the clean-up steps of §2.2.
struct CleanupCounters: Sendable, Equatable {
    var duplicateEvents = 0
    var unknownEventTypes = 0
    var sandboxEvents = 0
    var unassignedEvents = 0
}

/// One event that survived clean-up, as attribution reads it (48 bytes).
struct UserEvent: Sendable {
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
    static func run(store: inout EventStore, userCount: Int) -> (UserEvents, CleanupCounters) {
        var counters = CleanupCounters()
        var removed = [Bool](repeating: false, count: store.count)
        counters.duplicateEvents += removeEventIDDuplicates(store, removed: &removed)
        counters.duplicateEvents += removeTransactionDuplicates(store, removed: &removed)

        // Steps 3–5, counting each user's events.
        var eventsPerUser = [Int32](repeating: 0, count: userCount + 1)
        store.forEachSegment { start, _, records in
            for (index, record) in records.enumerated() where !removed[start + index] {
                if record.kind == EventRecord.unknownKind {
                    counters.unknownEventTypes += 1
                } else if record.isSandbox {
                    counters.sandboxEvents += 1
                } else if record.user < 0 {
                    counters.unassignedEvents += 1
                } else {
                    eventsPerUser[Int(record.user) + 1] += 1
                    continue
                }
                removed[start + index] = true
            }
        }
        return (groupByUser(&store, removed: removed, eventsPerUser: eventsPerUser), counters)
    }

    // MARK: - Internal machinery

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
    /// for their hash table to stay in cache. Returns the number removed.
    private static func removeEventIDDuplicates(_ store: EventStore, removed: inout [Bool]) -> Int {
        // About 16k records per partition: a 32k-slot table of 4-byte entries.
        var partitionBits = 0
        while partitionBits < 12 && (store.count >> partitionBits) > 16_384 { partitionBits += 1 }
        let partitionCount = 1 << partitionBits
        @inline(__always) func partition(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - partitionBits)) & (partitionCount - 1) }
        @inline(__always) func keyed(_ position: Int, _ record: EventRecord, _ segment: EventStore.Segment) -> KeyedRecord? {
            guard let key = segment.eventID(record) else { return nil }
            return KeyedRecord(high: key.high, low: key.low, timestamp: record.timestamp, position: Int32(position), form: key.form)
        }

        // Counting sort of the keyed records by partition (file order kept within each).
        var starts = [Int](repeating: 0, count: partitionCount + 1)
        store.forEachSegment { start, segment, records in
            for (index, record) in records.enumerated() {
                if let entry = keyed(start + index, record, segment) { starts[partition(entry.hash) + 1] += 1 }
            }
        }
        for index in 0..<partitionCount { starts[index + 1] += starts[index] }
        var next = starts
        let total = starts[partitionCount]
        // Every slot is written once, by the scatter below.
        let keyedRecords = [KeyedRecord](unsafeUninitializedCapacity: total) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            offerlab_advise_huge_pages(base, buffer.count * MemoryLayout<KeyedRecord>.stride)
            store.forEachSegment { start, segment, records in
                for (index, record) in records.enumerated() {
                    guard let entry = keyed(start + index, record, segment) else { continue }
                    let target = partition(entry.hash)
                    (base + next[target]).initialize(to: entry)
                    next[target] += 1
                }
            }
            initialized = total
        }

        var duplicates = 0
        var table: [Int32] = []
        keyedRecords.withUnsafeBufferPointer { keyedRecords in
            for part in 0..<partitionCount {
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
        }
        return duplicates
    }

    /// Step 2, second part: among surviving trial_start, purchase, renewal and refund events
    /// with the same (`event`, `transaction_id`), the earliest (then the first in file order)
    /// stays. Returns the number removed.
    private static func removeTransactionDuplicates(_ store: EventStore, removed: inout [Bool]) -> Int {
        let transactionKinds: [EventType] = [.trialStart, .purchase, .renewal, .refund]
        var kindSlot = [Int](repeating: -1, count: 256)
        for (slot, kind) in transactionKinds.enumerated() { kindSlot[Int(kind.rawValue)] = slot }
        let transactionCount = store.transactions.count
        var best = [Int32](repeating: -1, count: transactionKinds.count * transactionCount)
        var bestTimestamp = [Int64](repeating: 0, count: best.count)
        var duplicates = 0
        store.forEachSegment { start, segment, records in
            for (index, record) in records.enumerated() where record.transaction >= 0 && !removed[start + index] {
                let slot = kindSlot[Int(record.kind)]
                guard slot >= 0 else { continue }
                let position = start + index
                let key = slot * transactionCount + Int(segment.transaction(record))
                let current = best[key]
                if current < 0 {
                    best[key] = Int32(position)
                    bestTimestamp[key] = record.timestamp
                    continue
                }
                duplicates += 1
                // The current best comes earlier in file order.
                if record.timestamp < bestTimestamp[key] {
                    removed[Int(current)] = true
                    best[key] = Int32(position)
                    bestTimestamp[key] = record.timestamp
                } else {
                    removed[position] = true
                }
            }
        }
        return duplicates
    }

    /// Copies the surviving records into one array grouped by user (a counting sort that keeps
    /// file order), releasing each file's records once copied, then sorts each user's events
    /// by time; file order breaks ties.
    private static func groupByUser(_ store: inout EventStore, removed: [Bool], eventsPerUser: [Int32]) -> UserEvents {
        let userCount = eventsPerUser.count - 1
        var userStart = eventsPerUser
        for user in 0..<userCount { userStart[user + 1] += userStart[user] }
        var next = userStart
        let total = Int(userStart[userCount])
        var events = [UserEvent](unsafeUninitializedCapacity: total) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            offerlab_advise_huge_pages(base, buffer.count * MemoryLayout<UserEvent>.stride)
            for segmentIndex in store.segments.indices {
                let start = store.segmentStarts[segmentIndex]
                var segment = EventStore.Segment(records: [], eventIDMap: [], transactionMap: [], labelMap: [])
                swap(&segment, &store.segments[segmentIndex])
                for (index, record) in segment.records.enumerated() where !removed[start + index] {
                    let user = Int(record.user)
                    (base + Int(next[user])).initialize(to: segment.userEvent(record))
                    next[user] += 1
                }
            }
            initialized = total
        }
        store.segments.removeAll()
        events.withUnsafeMutableBufferPointer { events in
            for user in 0..<userCount where userStart[user + 1] - userStart[user] > 1 {
                sortByTime(UnsafeMutableBufferPointer(rebasing: events[Int(userStart[user])..<Int(userStart[user + 1])]))
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
