import Foundation

/// Work started on a thread of its own while the caller goes on, then waited for: for work that
/// blocks, or is waited for from synchronous code (docs/concurrency.md).
///
/// A thread of its own, not a task nor a Dispatch worker: on Linux, Dispatch's workers are
/// Swift's task pool (one thread per core), so work queued there waits for the tasks in flight,
/// and work that blocks, or a caller that blocks waiting for it, holds a thread of that pool.
package final class ConcurrentWork: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    // Written by the work before it signals `finished`, read only after `wait` saw the signal.
    private var failure: (any Error)?
    private var waited = false

    package init(_ work: @escaping @Sendable () throws -> Void) {
        Thread { [self] in
            do {
                try work()
            } catch {
                failure = error
            }
            finished.signal()
        }.start()
    }

    /// Waits until the work is done (at once when already waited for) and rethrows its error.
    /// Called from one thread only.
    package func wait() throws {
        if !waited {
            finished.wait()
            waited = true
        }
        if let failure { throw failure }
    }
}
