import Dispatch

/// Work started on a thread of its own while the caller goes on, then waited for.
///
/// A Dispatch thread, not a task: the caller waits for it from inside synchronous code (the
/// database transaction), and blocking a task on another task could starve Swift's pool of
/// one thread per core.
final class ConcurrentWork: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    // Written by the work before it signals `finished`, read only after `wait` saw the signal.
    private var failure: (any Error)?
    private var waited = false

    init(_ work: @escaping @Sendable () throws -> Void) {
        DispatchQueue.global().async { [self] in
            do {
                try work()
            } catch {
                failure = error
            }
            finished.signal()
        }
    }

    /// Waits until the work is done (at once when already waited for) and rethrows its error.
    /// Called from one thread only.
    func wait() throws {
        if !waited {
            finished.wait()
            waited = true
        }
        if let failure { throw failure }
    }
}
