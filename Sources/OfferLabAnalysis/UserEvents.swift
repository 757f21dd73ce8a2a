import OfferLabEvents
import OfferLabIngest

/// One event that survived clean-up, as attribution reads it: 24 bytes, its logged offering and
/// group kept in its shape rather than inline, since every byte is fresh memory per event kept.
package struct UserEvent: Sendable, Equatable {
    /// Microseconds since the epoch, UTC.
    package var timestamp: Int64
    /// Index of the event's shape, with the store's ids, in `UserEvents.shapes` (the logged
    /// offering and group are read from it).
    package var shape: Int32
    /// Index of the event's details, with the store's ids, in `UserEvents.details`; -1 when it
    /// has none (see `EventDetails`).
    package var details: Int32
    /// Index in the population's user table: what clean-up regroups the events by.
    package var user: Int32
    /// `EventType.rawValue` (clean-up drops unknown types), as in its shape: kept here too, in
    /// bytes the layout pads anyway, because attribution reads it for every event.
    package var kind: UInt8

    package var eventType: EventType? { EventType(rawValue: kind) }
}

/// The events that survive clean-up, grouped by user: `events[userStart[u]..<userStart[u+1]]`
/// are user u's events, sorted by time, then file order.
package struct UserEvents: Sendable {
    package var events: [UserEvent]
    package var userStart: [Int32]
    /// The events' details (`UserEvent.details`).
    package var details: [EventDetails]
    /// The events' shapes (`UserEvent.shape`).
    package var shapes: [EventShape]

    /// Calls `body` with a view that hands out each user's events without retaining the
    /// arrays per user (the loops over members run once per member and day).
    package func withView<T>(_ body: (View) throws -> T) rethrows -> T {
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

    package struct View {
        package let events: UnsafeBufferPointer<UserEvent>
        package let userStart: UnsafeBufferPointer<Int32>
        package let details: UnsafeBufferPointer<EventDetails>
        package let shapes: UnsafeBufferPointer<EventShape>

        /// The cleaned events of `user`, sorted by time, with the details and shapes they index.
        @inline(__always)
        package func events(of user: Int32) -> MemberEvents {
            MemberEvents(
                events: UnsafeBufferPointer(rebasing: events[Int(userStart[Int(user)])..<Int(userStart[Int(user) + 1])]),
                details: details, shapes: shapes)
        }
    }
}

/// One member's cleaned events (sorted by time) and the tables their `details` and `shape` index.
package struct MemberEvents {
    let events: UnsafeBufferPointer<UserEvent>
    let details: UnsafeBufferPointer<EventDetails>
    let shapes: UnsafeBufferPointer<EventShape>
}

extension EventStore.Segment {
    /// The record (of shape `shape`, its user assigned: clean-up keeps no other) as a cleaned
    /// event, with the store's ids. `details`: the index of its details in `UserEvents.details`,
    /// -1 when it has none.
    @inline(__always)
    package func userEvent(_ record: EventRecord, _ shape: EventShape, details: Int32) -> UserEvent {
        UserEvent(
            timestamp: record.timestamp, shape: shapeMap[Int(record.shape)], details: details, user: record.user.populationIndex!,
            kind: shape.kind)
    }
}
