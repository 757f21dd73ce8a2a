import Foundation
import OfferLabIngest
import Synchronization

/// Work started on a thread of its own while the caller goes on, then waited for: for work that
/// blocks, or is waited for from synchronous code (docs/concurrency.md).
///
/// A thread of its own, not a task nor a Dispatch worker: on Linux, Dispatch's workers are
/// Swift's task pool (one thread per core), so work queued there waits for the tasks in flight,
/// and work that blocks, or a caller that blocks waiting for it, holds a thread of that pool.
package final class ConcurrentWork<Failure: Error>: Sendable {
    /// The work, until its thread takes it: released before it is reported done, so that what it
    /// captured is no longer held once `wait` returns (`withoutActuallyEscaping` checks that).
    private let work: Mutex<(@Sendable () throws(Failure) -> Void)?>
    /// The work's outcome, put once it is done.
    private let done = BlockingQueue<Result<Void, Failure>>(capacity: 1)
    /// The outcome once waited for, for a second `wait`.
    private let outcome = Mutex<Result<Void, Failure>?>(nil)

    package init(_ work: @escaping @Sendable () throws(Failure) -> Void) {
        self.work = Mutex(work)
        Thread { [self] in run() }.start()
    }

    /// Waits until the work is done (at once when already waited for) and rethrows its error.
    package func wait() throws(Failure) {
        try outcome.withLock { outcome in
            if outcome == nil { outcome = done.take() }
            return outcome!
        }.get()
    }

    private func run() {
        let result: Result<Void, Failure>
        do {
            let body = work.withLock { $0.take()! }
            do throws(Failure) {
                try body()
                result = .success(())
            } catch {
                result = .failure(error)
            }
        }
        done.put(result)
    }
}
