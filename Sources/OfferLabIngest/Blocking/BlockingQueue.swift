#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Values handed from threads to threads in the order put, at most `capacity` waiting: the one
/// queue for threads that hand work to each other and block while the other side is behind
/// (docs/concurrency.md). Such threads are threads of their own, never tasks: a task that blocks
/// holds a thread of Swift's pool.
///
/// `close` ends it: waiting takers get the values left, then nil; putters get false.
public final class BlockingQueue<Element> {
    private let capacity: Int
    // A POSIX mutex and condition, not `Mutex`: the taker and the putter wait for a change, which
    // `Mutex` cannot. They guard every property below.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var waiting: [Element?]
    /// The index in `waiting` of the first value, and how many wait (a ring: no shifting).
    private var first = 0
    private var count = 0
    private var closed = false

    /// - Parameter capacity: how many values may wait (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        waiting = Array(repeating: nil, count: self.capacity)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        changed.deallocate()
    }

    /// Hands `value` over, waiting while `capacity` values wait; false (the value dropped) once
    /// the queue is closed.
    @discardableResult
    public func put(_ value: Element) -> Bool {
        locked {
            while count == capacity && !closed { pthread_cond_wait(changed, mutex) }
            guard !closed else { return false }
            append(value)
            return true
        }
    }

    /// Hands `value` over when fewer than `capacity` values wait and the queue is open; else
    /// false at once.
    public func offer(_ value: Element) -> Bool {
        locked {
            guard count < capacity && !closed else { return false }
            append(value)
            return true
        }
    }

    /// The next value in the order put, waiting while none does; nil once the queue is closed
    /// and empty.
    public func take() -> Element? {
        locked {
            while count == 0 && !closed { pthread_cond_wait(changed, mutex) }
            return removeFirst()
        }
    }

    /// The next value if one waits; nil at once otherwise.
    public func poll() -> Element? {
        locked { removeFirst() }
    }

    /// No more values: those waiting are still taken, or dropped with `droppingWaiting`.
    public func close(droppingWaiting: Bool = false) {
        locked {
            closed = true
            if droppingWaiting {
                while count > 0 { _ = removeFirst() }
            }
        }
    }

    /// `body` with the mutex held; every waiter is woken afterwards (takers and putters share
    /// the condition: few threads wait on one queue).
    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        let result = body()
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
        return result
    }

    private func append(_ value: Element) {
        waiting[(first + count) % capacity] = value
        count += 1
    }

    private func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let value = waiting[first].take()
        first = (first + 1) % capacity
        count -= 1
        return value
    }
}

// `@unchecked Sendable`: the mutex guards every mutable property, so the queue is shared as its values are.
extension BlockingQueue: @unchecked Sendable where Element: Sendable {}
