/// Internal machinery: an append-only buffer of trivial values for hot loops.
///
/// The memory belongs to an owner object that frees it; the struct keeps its own copy of the
/// pointer, count and capacity so that appends touch no class property (no exclusivity checks,
/// no uniqueness checks). A copy of the value shares the memory: only one copy may be used.
struct GrowableBuffer<Element: BitwiseCopyable> {
    private final class Owner {
        var pointer: UnsafeMutablePointer<Element>

        init(capacity: Int) { pointer = .allocate(capacity: capacity) }

        deinit { pointer.deallocate() }
    }

    private let owner: Owner
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        owner = Owner(capacity: self.capacity)
        base = owner.pointer
    }

    @inline(__always)
    subscript(index: Int) -> Element { base[index] }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow(minimum: count + 1) }
        base[count] = element
        count += 1
    }

    @inline(__always)
    mutating func append(_ source: UnsafePointer<Element>, count added: Int) {
        if count + added > capacity { grow(minimum: count + added) }
        (base + count).update(from: source, count: added)
        count += added
    }

    @inline(__always)
    mutating func removeLast() { count -= 1 }

    @inline(__always)
    mutating func removeAll() { count = 0 }

    private mutating func grow(minimum: Int) {
        var newCapacity = capacity * 2
        while newCapacity < minimum { newCapacity *= 2 }
        let pointer = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        pointer.update(from: base, count: count)
        owner.pointer.deallocate()
        owner.pointer = pointer
        base = pointer
        capacity = newCapacity
    }
}
