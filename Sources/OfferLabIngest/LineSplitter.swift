#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One non-blank line handed out by `LineSplitter`.
///
/// `bytes` borrows memory that is only valid during the callback.
public struct Line {
    /// 1-based physical line number (every `\n` starts a new line, blank ones included).
    public var number: Int
    /// The line without its `\n` or `\r\n`. For a line that is too long: its first
    /// `maxLineLength` bytes.
    public var bytes: UnsafeRawBufferPointer
    /// Whether the line is longer than the limit (it must not be parsed).
    public var isTooLong: Bool
}

/// Splits a stream of chunks into lines, across chunk boundaries.
///
/// A line ends at `\n`; one `\r` before it is dropped; the last line may lack its `\n`. Blank
/// lines (empty, or only spaces, tabs and `\r`) are skipped but still numbered. A line longer
/// than `maxLineLength` bytes (not counting its line ending) is not buffered whole: it is
/// handed out once, marked `isTooLong`, with its first `maxLineLength` bytes.
///
/// Lines inside a chunk are handed out without copying; only a line cut by a chunk boundary is
/// copied (up to the limit). Cost: one `memchr` pass over the bytes.
public struct LineSplitter {
    /// The default line length limit: 1 MiB.
    public static let defaultMaxLineLength = 1 << 20

    public let maxLineLength: Int
    /// Physical lines seen so far (the number of the last line handed out or skipped).
    public private(set) var lineCount = 0
    /// Non-blank lines handed out so far (too-long ones included).
    public private(set) var nonBlankLineCount = 0

    /// The start of a line cut by a chunk boundary (at most `maxLineLength + 1` bytes).
    private var carry: [UInt8] = []
    private var inPartialLine = false
    private var partialTooLong = false
    /// While `partialTooLong`: whether every byte of the line so far is blank.
    private var partialBlank = true

    /// - Parameter maxLineLength: the longest line, in bytes, that is handed out whole.
    public init(maxLineLength: Int = LineSplitter.defaultMaxLineLength) {
        self.maxLineLength = min(max(maxLineLength, 1), Int.max / 4)
    }

    /// Splits `chunk`, calling `body` for every complete non-blank line; the end of the chunk
    /// is kept for the next call.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: (Line) throws -> Void) rethrows {
        guard let base = chunk.baseAddress, chunk.count > 0 else { return }
        let count = chunk.count
        var start = 0
        if inPartialLine {
            guard let newline = memchr(base, 0x0A, count) else {
                appendToCarry(UnsafeRawBufferPointer(start: base, count: count))
                return
            }
            let end = base.distance(to: UnsafeRawPointer(newline))
            appendToCarry(UnsafeRawBufferPointer(start: base, count: end))
            try emitCarry(body)
            start = end + 1
        }
        while start < count {
            guard let newline = memchr(base + start, 0x0A, count - start) else {
                inPartialLine = true
                appendToCarry(UnsafeRawBufferPointer(start: base + start, count: count - start))
                return
            }
            let end = base.distance(to: UnsafeRawPointer(newline))
            try emit(UnsafeRawBufferPointer(start: base + start, count: end - start), body)
            start = end + 1
        }
    }

    /// Hands out the last line when the stream did not end with `\n`.
    public mutating func finish(_ body: (Line) throws -> Void) rethrows {
        if inPartialLine { try emitCarry(body) }
    }

    /// Whether `bytes` is only spaces, tabs and `\r`.
    @inline(__always)
    public static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte != 0x20 && byte != 0x09 && byte != 0x0D { return false }
        return true
    }

    // MARK: - Internal machinery

    @inline(__always)
    private mutating func emit(_ bytes: UnsafeRawBufferPointer, _ body: (Line) throws -> Void) rethrows {
        lineCount += 1
        var line = bytes
        if let last = line.last, last == 0x0D { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        if let first = line.first, first != 0x20, first != 0x09, first != 0x0D {
            // The common case: not blank.
        } else if Self.isBlank(line) {
            return
        }
        nonBlankLineCount += 1
        if line.count > maxLineLength {
            try body(Line(number: lineCount, bytes: UnsafeRawBufferPointer(rebasing: line[0..<maxLineLength]), isTooLong: true))
        } else {
            try body(Line(number: lineCount, bytes: line, isTooLong: false))
        }
    }

    private mutating func emitCarry(_ body: (Line) throws -> Void) rethrows {
        defer {
            carry.removeAll(keepingCapacity: carry.count <= 1 << 16)
            inPartialLine = false
            partialTooLong = false
            partialBlank = true
        }
        if partialTooLong {
            lineCount += 1
            if partialBlank { return }
            nonBlankLineCount += 1
            try carry.withUnsafeBytes { raw in
                try body(Line(number: lineCount, bytes: UnsafeRawBufferPointer(rebasing: raw[0..<maxLineLength]), isTooLong: true))
            }
        } else {
            try carry.withUnsafeBytes { try emit($0, body) }
        }
    }

    private mutating func appendToCarry(_ bytes: UnsafeRawBufferPointer) {
        inPartialLine = true
        if partialTooLong {
            if partialBlank { partialBlank = Self.isBlank(bytes) }
            return
        }
        // Keep one byte more than the limit: it may be the `\r` of a `\r\n`.
        let room = maxLineLength + 1 - carry.count
        if bytes.count <= room {
            carry.append(contentsOf: bytes)
            return
        }
        carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<room]))
        partialTooLong = true
        partialBlank =
            carry.withUnsafeBytes { Self.isBlank($0) }
            && Self.isBlank(UnsafeRawBufferPointer(rebasing: bytes[room...]))
    }
}
