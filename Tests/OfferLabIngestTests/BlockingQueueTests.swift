import Foundation
import Testing

@testable import OfferLabIngest

@Suite struct BlockingQueueTests {
    /// A thread that puts faster than the other takes waits, and every value arrives once, in order.
    @Test func valuesCrossThreadsInTheOrderPut() throws {
        let queue = BlockingQueue<Int>(capacity: 3)
        let putting = try ConcurrentWork {
            for value in 0..<20_000 { queue.put(value) }
            queue.close()
        }
        var taken: [Int] = []
        while let value = queue.take() { taken.append(value) }
        putting.wait()
        #expect(taken == Array(0..<20_000))
    }

    @Test func offerAndPollNeverWait() {
        let queue = BlockingQueue<String>(capacity: 2)
        #expect(queue.poll() == nil)
        #expect(queue.offer("a"))
        #expect(queue.offer("b"))
        #expect(!queue.offer("c"))
        #expect(queue.poll() == "a")
        #expect(queue.offer("c"))
        #expect(queue.take() == "b")
        #expect(queue.take() == "c")
        #expect(queue.poll() == nil)
    }

    @Test func aClosedQueueHandsOutWhatWaitsThenNil() {
        let queue = BlockingQueue<Int>(capacity: 4)
        queue.put(1)
        queue.put(2)
        queue.close()
        #expect(!queue.put(3))
        #expect(!queue.offer(3))
        #expect(queue.take() == 1)
        #expect(queue.take() == 2)
        #expect(queue.take() == nil)
        #expect(queue.take() == nil)
    }

    @Test func closingAndDroppingLeavesNothingToTake() {
        let queue = BlockingQueue<Int>(capacity: 4)
        queue.put(1)
        queue.put(2)
        queue.close(droppingWaiting: true)
        #expect(queue.take() == nil)
    }

    /// Closing wakes a thread waiting to put into a full queue (its value is refused) and one
    /// waiting to take from an empty one.
    @Test func closingReleasesWaitingThreads() throws {
        let full = BlockingQueue<Int>(capacity: 1)
        full.put(0)
        let empty = BlockingQueue<Int>(capacity: 1)
        let outcomes = BlockingQueue<String>(capacity: 2)
        let putting = try ConcurrentWork { outcomes.put("put \(full.put(1))") }
        let taking = try ConcurrentWork { outcomes.put("take \(String(describing: empty.take()))") }
        // Give both threads time to wait; either way, closing must let them go on.
        usleep(50_000)
        full.close()
        empty.close()
        let said = [outcomes.take(), outcomes.take()].compactMap { $0 }.sorted()
        putting.wait()
        taking.wait()
        #expect(said == ["put false", "take nil"])
        #expect(full.take() == 0)
        #expect(full.take() == nil)
    }
}
