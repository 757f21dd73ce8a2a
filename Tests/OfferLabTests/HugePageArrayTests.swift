import Testing

@testable import OfferLab
@testable import OfferLabSupport

/// Arrays whose storage is advised to huge pages hold what the usual initializers give.
@Suite struct HugePageArrayTests {
    @Test func repeatingGivesTheValueEverywhere() {
        for count in [0, 1, 1000, 600_000] {
            let array = [UInt64](hugePageRepeating: 7, count: count)
            #expect(array == [UInt64](repeating: 7, count: count))
        }
    }

    @Test func capacityGivesAnEmptyArrayWithThatRoom() {
        var array = [Int32](hugePageCapacity: 600_000)
        #expect(array.isEmpty)
        #expect(array.capacity >= 600_000)
        let storage = array.withUnsafeBufferPointer { $0.baseAddress }
        array.append(contentsOf: 0..<600_000)
        // Filled within the room: never regrown.
        #expect(array.withUnsafeBufferPointer { $0.baseAddress } == storage)
        #expect(array.last == 599_999)
    }
}
