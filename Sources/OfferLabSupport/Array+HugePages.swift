import COfferLabSystem

extension Array where Element: BitwiseCopyable {
    /// An empty array with room for `capacity` elements, its storage advised to huge pages
    /// before anything is written to it (`offerlab_advise_huge_pages`): for the population's
    /// tables, looked up at random, 2 MiB pages save most of their page faults and TLB misses.
    /// Arrays written once in order (each file's events, the events regrouped by user) are not
    /// advised: a fresh 2 MiB page can cost several times its 4 KiB pages when the host has taken
    /// the memory back (docs/performance-history.md, "What bounds a run"). Appending beyond the capacity
    /// regrows the array as usual, without the advice.
    public init(hugePageCapacity capacity: Int) {
        self.init(unsafeUninitializedCapacity: capacity) { buffer, count in
            if let base = buffer.baseAddress { offerlab_advise_huge_pages(base, buffer.count * MemoryLayout<Element>.stride) }
            count = 0
        }
    }

    /// `Array(repeating: value, count: count)`, its storage advised to huge pages before the
    /// values are written (see `init(hugePageCapacity:)`).
    init(hugePageRepeating value: Element, count: Int) {
        self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { offerlab_advise_huge_pages(base, buffer.count * MemoryLayout<Element>.stride) }
            buffer.initialize(repeating: value)
            initialized = buffer.count
        }
    }
}
