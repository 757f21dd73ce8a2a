import Testing
@testable import OfferLab

/// Log files are read while the assignment table is: files finished before it wait, unmerged,
/// and the files after them are read meanwhile.
@Suite struct LogIngestTests {
    /// The gate opens only once every file is done: with 12 files two at a time, an ingest that
    /// held the files up behind the gate would never get there.
    @Test(.timeLimit(.minutes(1)))
    func filesGoOnWhileTheGateIsClosed() async throws {
        let count = 12
        let (finished, finishing) = AsyncStream<Int>.makeStream()
        var merged: [Int] = []
        try await InOrder.run(count: count, width: 2) {
            var done = 0
            for await _ in finished {
                done += 1
                if done == count { break }
            }
            return "open"
        } work: { index in
            finishing.yield(index)
            return index * 10
        } merge: { (result: Int, gate: String) in
            #expect(gate == "open")
            merged.append(result)
        }
        #expect(merged == (0..<count).map { $0 * 10 })
    }

    /// A merge that writes to a result's array writes to the array the work made: the result
    /// reaches it held once, not copied whole (a file's records are hundreds of megabytes in all).
    @Test func aMergeWritesToTheWorksArrayWithoutCopyingIt() async throws {
        var merged = 0
        try await InOrder.run(count: 6, width: 2) { index in
            let values = [Int](repeating: index, count: 1000)
            return (values: values, address: values.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) })
        } merge: { (result: consuming (values: [Int], address: Int)) in
            let address = result.address
            result.values.withUnsafeMutableBufferPointer { values in
                #expect(Int(bitPattern: values.baseAddress) == address)
                values[0] += 1
            }
            merged += result.values[0]
        }
        #expect(merged == (0..<6).reduce(6, +))
    }

    /// Nothing to do is nothing done (an analysis whose offerings have no members has no runs).
    @Test func noIndicesMeansNoWork() async throws {
        var calls = 0
        try await InOrder.run(count: 0, width: 2) { index in
            Issue.record("work for index \(index)")
            return index
        } merge: { (_: Int) in
            calls += 1
        }
        #expect(calls == 0)
    }

    /// The same events whether the table is ready before the first file or after the last.
    @Test func aLateTableGivesTheSameEvents() async throws {
        let early = try await sampleEvents().store
        let late = try await sampleEvents { population in
            Task {
                try await Task.sleep(for: .milliseconds(300))
                return population
            }
        }.store
        #expect(early.count == late.count)
        #expect(early.count > 0)
        for (earlySegment, lateSegment) in zip(early.segments, late.segments) {
            #expect(earlySegment.records == lateSegment.records && earlySegment.details == lateSegment.details)
        }
    }

    /// A record is 48 bytes; the fields few events have are kept apart. Every event of the
    /// sample with a price, a transaction, a product or a currency has details of its own, in
    /// line order, and no other event has any.
    @Test func onlyEventsWithMoneyTransactionsOrProductsHaveDetails() async throws {
        #expect(MemoryLayout<EventRecord>.stride == 48)
        let store = try await sampleEvents().store
        var withDetails = 0
        var purchases = 0
        store.forEachSegment { _, segment, records in
            var next: Int32 = 0
            for record in records where record.details >= 0 {
                #expect(record.details == next)
                next += 1
                #expect(segment.details(record) != .none)
                if record.eventType == .purchase {
                    purchases += 1
                    #expect(segment.storeDetails(segment.details(record)).transaction >= 0)
                }
            }
            #expect(Int(next) == segment.details.count)
            withDetails += Int(next)
        }
        #expect(purchases > 0)
        #expect(withDetails > purchases && withDetails < store.count / 2)
    }
}
