import Foundation

/// Work on many indices, on every core, whose results are used strictly in index order: so
/// that what they add up to does not depend on which finishes first.
enum InOrder {
    /// Runs `work` for every index (a log file, a run of members), at most `width` (default:
    /// the cores) at a time, and hands the results to `merge` in index order, each as soon as
    /// its predecessors are merged and `gate` has returned (its value is handed to every
    /// merge). Until then, finished results wait and the work goes on: a slow `gate` does not
    /// hold up the work.
    static func run<Result: Sendable, Gate: Sendable>(
        count: Int, width: Int?, gate: @escaping @Sendable () async throws -> Gate,
        work: @escaping @Sendable (Int) async throws -> Result, merge: (consuming Result, Gate) throws -> Void
    ) async throws {
        let width = min(max(1, width ?? ProcessInfo.processInfo.activeProcessorCount), count)
        var finished: [Int: Result] = [:]
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
            while nextToStart < width { startNext() }
            while let arrival = try await group.next() {
                // The arrival and the result consumed, so that a result is held once only: a
                // merge that writes to its arrays (`resolveUsers`) would otherwise copy them
                // whole, every file's records.
                switch consume arrival {
                case .gate(let value):
                    opened = value
                case .result(let index, let result):
                    finished[index] = result
                    if nextToStart < count { startNext() }
                }
                guard let opened else { continue }
                while let ready = finished.removeValue(forKey: nextToMerge) {
                    try merge(consume ready, opened)
                    nextToMerge += 1
                }
            }
        }
    }

    /// `run` with nothing to wait for.
    static func run<Result: Sendable>(
        count: Int, width: Int?, work: @escaping @Sendable (Int) async throws -> Result, merge: (consuming Result) throws -> Void
    ) async throws {
        try await run(count: count, width: width, gate: {}, work: work) { result, _ in try merge(consume result) }
    }
}

/// What `InOrder.run`'s tasks hand back: the gate's value, or one index's result.
private enum OrderedArrival<Result: Sendable, Gate: Sendable>: Sendable {
    case gate(Gate)
    case result(Int, Result)
}
