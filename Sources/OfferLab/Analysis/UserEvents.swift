import OfferLabIngest

/// One event that survived clean-up, as attribution reads it: 24 bytes, its logged offering and
/// group kept in its shape rather than inline, since every byte is fresh memory per event kept.
struct UserEvent: Sendable, Equatable {
    /// Microseconds since the epoch, UTC.
    var timestamp: Int64
    /// Index of the event's shape, with the store's ids, in `UserEvents.shapes` (the logged
    /// offering and group are read from it).
    var shape: Int32
    /// Index of the event's details, with the store's ids, in `UserEvents.details`; -1 when it
    /// has none (see `EventDetails`).
    var details: Int32
    /// Index in the population's user table: what clean-up regroups the events by.
    var user: Int32 = -1
    /// `EventType.rawValue` (clean-up drops unknown types), as in its shape: kept here too, in
    /// bytes the layout pads anyway, because attribution reads it for every event.
    var kind: UInt8

    var eventType: EventType? { EventType(rawValue: kind) }
}

/// The events that survive clean-up, grouped by user: `events[userStart[u]..<userStart[u+1]]`
/// are user u's events, sorted by time, then file order.
struct UserEvents: Sendable {
    var events: [UserEvent]
    var userStart: [Int32]
    /// The events' details (`UserEvent.details`).
    var details: [EventDetails]
    /// The events' shapes (`UserEvent.shape`).
    var shapes: [EventShape]

    /// Calls `body` with a view that hands out each user's events without retaining the
    /// arrays per user (the loops over members run once per member and day).
    func withView<T>(_ body: (View) throws -> T) rethrows -> T {
        try events.withUnsafeBufferPointer { events in
            try userStart.withUnsafeBufferPointer { starts in
                try details.withUnsafeBufferPointer { details in
                    try shapes.withUnsafeBufferPointer { shapes in
                        try body(View(events: events, userStart: starts, details: details, shapes: shapes))
                    }
                }
            }
        }
    }

    struct View {
        let events: UnsafeBufferPointer<UserEvent>
        let userStart: UnsafeBufferPointer<Int32>
        let details: UnsafeBufferPointer<EventDetails>
        let shapes: UnsafeBufferPointer<EventShape>

        @inline(__always)
        func events(of user: Int32) -> UnsafeBufferPointer<UserEvent> {
            UnsafeBufferPointer(rebasing: events[Int(userStart[Int(user)])..<Int(userStart[Int(user) + 1])])
        }
    }
}
