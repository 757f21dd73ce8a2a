/// Bytes that threads share without a copy: an allocation of its own, or memory lent until
/// `release` runs (a mapped cache entry), freed when the last holder lets go.
///
/// `@unchecked Sendable`: its pointer is shared. Whoever shares it writes the bytes from one
/// thread at a time, handing them over through a `BlockingQueue` (`ReadAhead`'s buffers), or
/// never writes them once made (a kept cache entry, mapped read-only).
package final class SharedMemory: @unchecked Sendable {
    /// Writable only when allocated here (`init(byteCount:)`).
    package let writableBytes: UnsafeMutableRawBufferPointer
    /// Frees lent bytes; nil for bytes of its own.
    private let release: (@Sendable () -> Void)?

    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(writableBytes) }

    /// `byteCount` bytes of its own, uninitialized.
    package init(byteCount: Int) {
        writableBytes = .allocate(byteCount: byteCount, alignment: 16)
        release = nil
    }

    /// Bytes lent until `release` runs, never written.
    package init(bytes: UnsafeRawBufferPointer, release: @escaping @Sendable () -> Void) {
        writableBytes = UnsafeMutableRawBufferPointer(mutating: bytes)
        self.release = release
    }

    deinit {
        if let release { release() } else { writableBytes.deallocate() }
    }
}
