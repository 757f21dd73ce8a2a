import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Work started on a thread of its own while the caller goes on, then waited for: for work that
/// blocks, or that synchronous code waits for (docs/concurrency.md). The one place offerlab
/// starts a thread.
///
/// A thread of its own, not a task nor a Dispatch worker: on Linux, Dispatch's workers are
/// Swift's task pool (one thread per core), so work queued there waits for the tasks in flight,
/// and work that blocks, or a caller that blocks waiting for it, holds a thread of that pool.
package final class ConcurrentWork<Failure: Error>: Sendable {
    /// The work, until its thread takes it: released before it is reported done, so that what it
    /// captured is no longer held once `wait` returns (`withoutActuallyEscaping` checks that).
    private let work: Mutex<(() throws(Failure) -> Void)?>
    /// The work's outcome, put once it is done.
    private let done = BlockingQueue<Result<Void, Failure>>(capacity: 1)
    /// The outcome once waited for, for a second `wait`.
    private let outcome = Mutex<Result<Void, Failure>?>(nil)

    /// Starts `work` on a new thread. `work` is sent there: what it captures is its own.
    /// - Throws: `ThreadUnavailable` when the system starts no thread; `work` is then not run.
    package init(_ work: sending @escaping () throws(Failure) -> Void) throws(ThreadUnavailable) {
        self.work = Mutex(work)
        try ThreadStart.detached { [self] in run() }
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

/// The system started no thread (`pthread_create` failed: a limit on threads or memory).
package struct ThreadUnavailable: Error, CustomStringConvertible {
    package let errorNumber: Int32

    package var description: String {
        "cannot start a thread: \(String(cString: strerror(errorNumber))) (see the process's limits: ulimit -u, ulimit -v)"
    }
}

/// A detached POSIX thread running a closure (`ConcurrentWork`'s; not generic, because a C
/// function pointer cannot capture a generic type's parameters).
private final class ThreadStart {
    let body: @Sendable () -> Void

    private init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    static func detached(_ body: @escaping @Sendable () -> Void) throws(ThreadUnavailable) {
        let context = Unmanaged.passRetained(ThreadStart(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        // Nobody joins it: `wait` waits for the outcome instead.
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
            var handle: pthread_t?
        #else
            var handle = pthread_t()
        #endif
        let status = pthread_create(&handle, &attributes, { ThreadStart.run($0) }, context)
        guard status == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(context).release()
            throw ThreadUnavailable(errorNumber: status)
        }
    }

    /// The thread's entry point; `context` is the retained `ThreadStart`.
    private static func run(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let context else { return nil }
        Unmanaged<ThreadStart>.fromOpaque(context).takeRetainedValue().body()
        return nil
    }
}

/// `body(0) … body(count - 1)` at once, `body(0)` on this thread and each other on a thread of
/// its own (`ConcurrentWork`: for synchronous code that lends buffers borrowed for a scope, which
/// tasks cannot take); the results in order. An index whose thread the system does not start is
/// run here, after `body(0)`.
package func concurrently<T>(_ count: Int, _ body: (Int) -> T) -> [T] {
    guard count > 1 else { return (0..<count).map(body) }
    return withoutActuallyEscaping(body) { body in
        let work = SharedAcrossThreads(value: body)
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            let results = SharedAcrossThreads(value: base)
            let others = (1..<count).map { index in
                (index, try? ConcurrentWork { (results.value + index).initialize(to: work.value(index)) })
            }
            base.initialize(to: body(0))
            for (index, other) in others {
                if let other { other.wait() } else { (base + index).initialize(to: body(index)) }
            }
            initialized = count
        }
    }
}

/// A value handed to the threads of `concurrently`. `@unchecked Sendable`: `body` only reads
/// what the threads share, and writes memory no other call writes (its own result, or disjoint
/// positions of a buffer the calls share).
private struct SharedAcrossThreads<Value>: @unchecked Sendable {
    let value: Value
}
