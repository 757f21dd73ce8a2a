import OfferLabIngest

/// Counters of the clean-up steps of §2.2.
struct CleanupCounters: Sendable, Equatable {
    var duplicateEvents = 0
    var unknownEventTypes = 0
    var sandboxEvents = 0
    var unassignedEvents = 0
}

/// The events that survive clean-up, grouped by user: `order[userStart[u]..<userStart[u+1]]`
/// are the indices (into the store) of user u's events, sorted by time, then file order.
struct UserEvents: Sendable {
    var order: [Int32]
    var userStart: [Int32]

    func events(of user: Int32) -> ArraySlice<Int32> {
        order[Int(userStart[Int(user)])..<Int(userStart[Int(user) + 1])]
    }
}

enum EventCleanup {
    /// Applies §2.2 steps 2–5 (step 1, `ts >= as_of`, is applied while reading):
    /// deduplicate by `event_id`, then by (`event`, `transaction_id`); drop unknown types,
    /// sandbox events and unassigned users' events, counting each.
    static func run(store: EventStore, userCount: Int) -> (UserEvents, CleanupCounters) {
        let records = store.records
        var counters = CleanupCounters()
        var removed = [Bool](repeating: false, count: records.count)

        // Keeps the earliest copy (by ts, then file order) among records sharing `key`.
        func deduplicate(keyCount: Int, key: (EventRecord) -> Int?) {
            var best = [Int32](repeating: -1, count: keyCount)
            for index in records.indices where !removed[index] {
                guard let key = key(records[index]) else { continue }
                let current = best[key]
                if current < 0 {
                    best[key] = Int32(index)
                } else if records[index].precedes(records[Int(current)]) {
                    removed[Int(current)] = true
                    best[key] = Int32(index)
                    counters.duplicateEvents += 1
                } else {
                    removed[index] = true
                    counters.duplicateEvents += 1
                }
            }
        }
        deduplicate(keyCount: store.eventIDs.count) { $0.eventID < 0 ? nil : Int($0.eventID) }
        let transactionKinds: [EventType] = [.trialStart, .purchase, .renewal, .refund]
        let transactionCount = store.transactions.count
        deduplicate(keyCount: transactionKinds.count * transactionCount) { record in
            guard record.transaction >= 0, let type = record.eventType, let slot = transactionKinds.firstIndex(of: type) else { return nil }
            return slot * transactionCount + Int(record.transaction)
        }

        // Steps 3–5, then a counting sort by user.
        var eventsPerUser = [Int32](repeating: 0, count: userCount + 1)
        for index in records.indices where !removed[index] {
            let record = records[index]
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
            removed[index] = true
        }
        var userStart = eventsPerUser
        for user in 0..<userCount { userStart[user + 1] += userStart[user] }
        var next = Array(userStart.dropLast())
        var order = [Int32](repeating: 0, count: Int(userStart[userCount]))
        for index in records.indices where !removed[index] {
            let user = Int(records[index].user)
            order[Int(next[user])] = Int32(index)
            next[user] += 1
        }
        // Within a user: by time, then file order (records are appended in file order).
        for user in 0..<userCount where userStart[user + 1] - userStart[user] > 1 {
            order[Int(userStart[user])..<Int(userStart[user + 1])].sort { records[Int($0)].precedes(records[Int($1)]) }
        }
        return (UserEvents(order: order, userStart: userStart), counters)
    }
}
