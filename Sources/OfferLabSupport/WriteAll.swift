import Foundation

/// Writes every byte of `bytes` with `write(2)` (a short write is continued, an interrupted
/// one retried); false, with `errno` set, when a write fails.
package func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while let base = bytes.baseAddress, offset < bytes.count {
        let written = write(descriptor, base + offset, bytes.count - offset)
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return false }
        offset += written
    }
    return true
}
