import Foundation
import Synchronization
import Testing

@testable import OfferLabIngest

@Suite struct ConcurrentWorkTests {
    struct Failed: Error, Equatable {}

    final class Flag: Sendable {
        let isSet = Mutex(false)
    }

    @Test func waitReturnsOnceTheWorkIsDone() throws {
        let done = Flag()
        let work = try ConcurrentWork {
            usleep(20_000)
            done.isSet.withLock { $0 = true }
        }
        work.wait()
        #expect(done.isSet.withLock { $0 })
    }

    @Test func theWorksErrorIsThrownByEveryWait() throws {
        let work = try ConcurrentWork { () throws(Failed) in throw Failed() }
        #expect(throws: Failed.self) { try work.wait() }
        #expect(throws: Failed.self) { try work.wait() }
    }

    /// Each index's result in its place, `body` called once per index, and the body no longer
    /// held when it returns (`withoutActuallyEscaping` traps otherwise), over many calls.
    @Test(arguments: [0, 1, 2, 7])
    func concurrentlyGivesEveryIndexsResultInOrder(count: Int) {
        for _ in 0..<50 {
            let calls = Mutex(0)
            let results = concurrently(count) { index in
                calls.withLock { $0 += 1 }
                return index * index
            }
            #expect(results == (0..<count).map { $0 * $0 })
            #expect(calls.withLock { $0 } == count)
        }
    }
}
