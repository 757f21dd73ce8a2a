import Foundation
import Synchronization

/// Work on many indices, on every core, whose results are used strictly in index order: so
/// that what they add up to does not depend on which finishes first.
package enum InOrder {
    /// Runs `work` for every index (a log file, a run of members), at most `width` (default:
    /// the cores) at a time, and hands the results to `merge` in index order, each as soon as
    /// its predecessors are merged and `gate` has returned (its value is handed to every
    /// merge). Until then, finished results wait and the work goes on: a slow `gate` does not
    /// hold up the work.
    ///
    /// With `prepare`, each result is first handed to it, with the gate's value, on a task of its
    /// own: so the results that waited for the gate are prepared side by side on every core
    /// when it opens, rather than one after another as they are merged.
    package static func run<Result: Sendable, Gate: Sendable>(
        count: Int, width: Int?, gate: @escaping @Sendable () async throws -> Gate,
        work: @escaping @Sendable (Int) async throws -> Result,
        prepare: (@Sendable (consuming Result, Gate) -> Result)? = nil,
        merge: (consuming Result, Gate) throws -> Void
    ) async throws {
        let width = min(max(1, width ?? ProcessInfo.processInfo.activeProcessorCount), count)
        // Finished, waiting for the gate.
        var finished: [Int: Result] = [:]
        // Prepared (or with nothing to prepare), waiting for their predecessors.
        var ready: [Int: Result] = [:]
        var nextToMerge = 0
        var opened: Gate?
        try await withThrowingTaskGroup(of: OrderedArrival<Result, Gate>.self) { group in
            group.addTask { .gate(try await gate()) }
            var nextToStart = 0
            func startNext() {
                let index = nextToStart
                group.addTask { .result(index, try await work(index)) }
                nextToStart += 1
            }
            func passGate(_ index: Int, _ result: consuming Result, _ opened: Gate) {
                guard let prepare else {
                    ready[index] = result
                    return
                }
                let handoff = Handoff(result)
                group.addTask { .prepared(index, prepare(handoff.take(), opened)) }
            }
            while nextToStart < width { startNext() }
            while let arrival = try await group.next() {
                // The arrival and the result consumed, so that a result is held once only: a
                // merge that writes to its arrays (`resolveUsers`) would otherwise copy them
                // whole, every file's records.
                switch consume arrival {
                case .gate(let value):
                    opened = value
                    for index in finished.keys.sorted() { passGate(index, finished.removeValue(forKey: index)!, value) }
                case .result(let index, let result):
                    if nextToStart < count { startNext() }
                    if let opened { passGate(index, result, opened) } else { finished[index] = result }
                case .prepared(let index, let result):
                    ready[index] = result
                }
                guard let opened else { continue }
                while let next = ready.removeValue(forKey: nextToMerge) {
                    try merge(consume next, opened)
                    nextToMerge += 1
                }
            }
        }
    }

    /// `run` with nothing to wait for.
    package static func run<Result: Sendable>(
        count: Int, width: Int?, work: @escaping @Sendable (Int) async throws -> Result, merge: (consuming Result) throws -> Void
    ) async throws {
        try await run(count: count, width: width, gate: {}, work: work) { result, _ in try merge(consume result) }
    }
}

/// What `InOrder.run`'s tasks hand back: the gate's value, or one index's result, as its work
/// made it or as `prepare` did.
private enum OrderedArrival<Result: Sendable, Gate: Sendable>: Sendable {
    case gate(Gate)
    case result(Int, Result)
    case prepared(Int, Result)
}

/// A result handed to the task that prepares it: taken out there, so that the task holds it
/// alone (a value captured by the task's closure would be shared with it, and written to, copied).
private final class Handoff<Value: Sendable>: Sendable {
    private let value: Mutex<Value?>

    init(_ value: consuming Value) { self.value = Mutex(consume value) }

    func take() -> Value { value.withLock { $0.take()! } }
}
