/// Internal machinery: drops a UTF-8 byte order mark (`EF BB BF`) at the start of a stream,
/// even when chunk boundaries cut it.
struct ByteOrderMarkSkipper {
    /// U+FEFF: the mark's three UTF-8 bytes, at a stable address.
    private static let mark: StaticString = "\u{FEFF}"
    private var matched = 0
    private var done = false

    /// Splits `chunk` into the bytes to process: first `heldBack` (bytes of a partial mark
    /// held back from earlier chunks, when the stream turns out not to start with a mark),
    /// then `rest`.
    @inline(__always)
    mutating func filter(_ chunk: UnsafeRawBufferPointer) -> (heldBack: UnsafeRawBufferPointer, rest: UnsafeRawBufferPointer) {
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        if done { return (none, chunk) }
        var index = 0
        while index < chunk.count && matched < 3 {
            guard chunk[index] == Self.mark.utf8Start[matched] else {
                done = true
                return (release(), UnsafeRawBufferPointer(rebasing: chunk[index...]))
            }
            matched += 1
            index += 1
        }
        if matched == 3 { done = true }
        return (none, UnsafeRawBufferPointer(rebasing: chunk[index...]))
    }

    /// At the end of the stream: the bytes of a partial mark (a stream of only `EF` or `EF BB`).
    mutating func finish() -> UnsafeRawBufferPointer {
        if done { return UnsafeRawBufferPointer(start: nil, count: 0) }
        done = true
        return release()
    }

    private mutating func release() -> UnsafeRawBufferPointer {
        let count = matched < 3 ? matched : 0
        matched = 0
        return UnsafeRawBufferPointer(start: Self.mark.utf8Start, count: count)
    }
}

extension InputFileReader {
    /// Calls `body` with the file's bytes, chunk by chunk, without a byte order mark at the start
    /// (bytes of a partial mark that turns out not to be one are handed out on their own).
    func forEachTextChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var byteOrderMark = ByteOrderMarkSkipper()
        while let chunk = try nextChunk() {
            let (heldBack, rest) = byteOrderMark.filter(chunk)
            try body(heldBack)
            try body(rest)
        }
        try body(byteOrderMark.finish())
    }
}
