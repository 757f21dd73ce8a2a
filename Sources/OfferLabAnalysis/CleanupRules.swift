import OfferLabIngest

/// The rules of clean-up (docs/analysis.md, "2. Events"), stated apart from the machinery that
/// applies them to millions of records (`EventCleanup`: partitioning, regrouping, memory).
///
/// In order: events at or after `as_of` are dropped while the logs are read (no counter); then
/// duplicates are removed (by `event_id`, then by (`event`, `transaction_id`)); then what is left
/// is dropped for the first reason of ``Drop`` that applies.
package enum CleanupRules {
    /// Which copy of a duplicated event survives, for both de-duplication passes: the earliest
    /// `ts`; on a tie, the first in file order (files in sorted path order, then line order).
    ///
    /// - Parameters:
    ///   - laterTimestamp: the `ts` of the copy that comes later in file order.
    ///   - earlierTimestamp: the `ts` of the copy that comes first in file order.
    /// - Returns: true when the later copy survives and the earlier one is the duplicate.
    @inline(__always)
    package static func laterCopySurvives(laterTimestamp: Int64, earlierTimestamp: Int64) -> Bool {
        laterTimestamp < earlierTimestamp
    }

    /// The event types also de-duplicated by (`event`, `transaction_id`), after `event_id`.
    package static let transactionDeduplicatedTypes = EventType.allCases.filter(\.isTransaction)

    /// Why an event that is not a duplicate is dropped, in the order the reasons are tried;
    /// each has its counter in `quality.csv`. Unknown types and sandbox events take part in
    /// de-duplication first: a duplicate counts only as a duplicate.
    package enum Drop: CaseIterable {
        /// `unknown_event_types`: an `event` outside the taxonomy.
        case unknownEventType
        /// `sandbox_events`: `environment` is `sandbox` in any case.
        case sandbox
        /// `unassigned_events`: the user has no valid assignment row before `as_of` in any
        /// offering (a user excluded from an offering for having several groups is assigned).
        case unassigned
    }

    /// The first reason of ``Drop`` that applies to an event, or nil when it stays.
    @inline(__always)
    package static func drop(isKnownType: Bool, isSandbox: Bool, isAssigned: Bool) -> Drop? {
        if !isKnownType { return .unknownEventType }
        if isSandbox { return .sandbox }
        if !isAssigned { return .unassigned }
        return nil
    }
}

/// The counters of clean-up, in `quality.csv`.
package struct CleanupCounters: Sendable, Equatable {
    package var duplicateEvents = 0
    package var unknownEventTypes = 0
    package var sandboxEvents = 0
    package var unassignedEvents = 0

    package init(duplicateEvents: Int = 0, unknownEventTypes: Int = 0, sandboxEvents: Int = 0, unassignedEvents: Int = 0) {
        self.duplicateEvents = duplicateEvents
        self.unknownEventTypes = unknownEventTypes
        self.sandboxEvents = sandboxEvents
        self.unassignedEvents = unassignedEvents
    }

    /// Adds `delta` to the counter of events dropped for `drop`.
    package mutating func add(_ drop: CleanupRules.Drop, _ delta: Int) {
        switch drop {
        case .unknownEventType: unknownEventTypes += delta
        case .sandbox: sandboxEvents += delta
        case .unassigned: unassignedEvents += delta
        }
    }
}
