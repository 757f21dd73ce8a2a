import Foundation

/// Batches passed in order from one producing thread to one consuming thread, at most `depth`
/// waiting, and the consumer's used batches passed back for the producer to fill again: so that
/// a long stream of batches reuses a few buffers instead of faulting in fresh memory for each.
///
/// Both sides block (the producer when `depth` batches wait, the consumer when none does), so
/// the producer runs on a thread of its own (`ConcurrentWork`, docs/concurrency.md).
package final class BatchHandoff<Batch>: @unchecked Sendable {
    private let depth: Int
    // Guards every property below.
    private let condition = NSCondition()
    private var waiting: [Batch] = []
    private var returned: [Batch] = []
    private var closed = false

    package init(depth: Int) { self.depth = depth }

    /// Hands `batch` to the consumer, waiting while `depth` batches wait already.
    package func put(_ batch: Batch) {
        condition.withLock {
            while waiting.count >= depth { condition.wait() }
            waiting.append(batch)
            condition.broadcast()
        }
    }

    /// The next batch in the order put, or nil once the producer has closed and every batch was
    /// taken.
    package func take() -> Batch? {
        condition.withLock {
            while waiting.isEmpty && !closed { condition.wait() }
            guard !waiting.isEmpty else { return nil }
            condition.broadcast()
            return waiting.removeFirst()
        }
    }

    /// No more batches (the producer is done, or failed).
    package func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    /// Passes a batch the consumer is done with back to the producer.
    package func giveBack(_ batch: Batch) {
        condition.withLock { returned.append(batch) }
    }

    /// A batch given back, if any, for the producer to refill.
    package func reuse() -> Batch? {
        condition.withLock { returned.popLast() }
    }
}
