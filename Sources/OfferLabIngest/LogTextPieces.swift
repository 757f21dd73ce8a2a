import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run of whole lines of a JSON Lines file, cut by `LogFileScanner.splitJSONLines` so that
/// several parsers can work on one file side by side (`LogFileScanner.scanPiece`).
public struct LogTextPiece: Sendable {
    /// The piece's place in its file, from 0.
    public let index: Int
    /// The decoded text: whole lines, each with its `\n` (the file's last piece may lack it).
    var bytes: [UInt8]
    /// Where the bytes' memory goes once the piece is scanned, for a later piece.
    let recycling: TextBuffers

    /// Bytes of text.
    public var count: Int { bytes.count }
}

/// The memory of scanned pieces, handed back to the cutter: a piece is several megabytes, and
/// memory freed and allocated again would come back as fresh pages, each faulted in anew.
final class TextBuffers: Sendable {
    private let free = Mutex<[[UInt8]]>([])

    /// An empty buffer with room for at least `capacity` bytes.
    func take(capacity: Int) -> [UInt8] {
        var buffer = free.withLock { $0.popLast() } ?? []
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(capacity)
        return buffer
    }

    /// Takes back a buffer that nothing else holds.
    func give(_ buffer: [UInt8]) {
        free.withLock { $0.append(buffer) }
    }
}

/// What a scan of some lines saw: of a whole file (`LogFileSummary.lines`) or of a piece of one.
public struct LineCounts: Sendable, Equatable {
    /// Physical lines, blank ones included: the next piece's lines are numbered after them.
    /// (Counted for JSON Lines; a CSV log's records may span lines, and it is not read in pieces.)
    public var physicalLines = 0
    /// Non-blank lines (`lines_read`): every line that is an event or malformed. For a CSV log,
    /// its data records (the header is not a line).
    public var nonBlankLines = 0
    /// Lines handed out as valid records.
    public var validRecords = 0
    public var malformed = MalformedCounts()

    public init() {}

    /// Adds the counts of the lines after these (the next piece's).
    public static func += (lhs: inout LineCounts, rhs: LineCounts) {
        lhs.physicalLines += rhs.physicalLines
        lhs.nonBlankLines += rhs.nonBlankLines
        lhs.validRecords += rhs.validRecords
        lhs.malformed += rhs.malformed
    }
}

extension LogFileScanner {
    /// The size a piece of text reaches before it is cut (`splitJSONLines`).
    public static let defaultPieceSize = 4 << 20

    /// Decodes a JSON Lines file and cuts its text into pieces of whole lines, lent to `body` in
    /// file order (which may scan one in place, or keep it): a piece ends with the last whole line
    /// of the decoded chunk that brings it to `pieceSize` bytes. Scanning the pieces one after the
    /// other (`scanPiece`) sees the same lines, the same records and the same malformed lines as
    /// `scan`, numbered from 1 in each piece.
    ///
    /// A line longer than `maxLineLength` is not kept whole, as `scan` does not keep it: its piece
    /// holds its first bytes, enough for `scan`'s verdict (too long, or blank).
    ///
    /// - Returns: the file's summary, with its byte counts only (the lines are counted by the
    ///   scans of the pieces: their `LineCounts` added up are the file's).
    /// - Throws: as `scan` (the pieces before the problem have already been handed out), or what
    ///   `body` throws.
    public func splitJSONLines(pieceSize: Int = LogFileScanner.defaultPieceSize, _ body: (inout LogTextPiece) throws -> Void) throws
        -> LogFileSummary
    {
        let reader = try InputFileReader(path: path, bufferSize: bufferSize, inflater: inflater)
        var summary = LogFileSummary(path: path, format: .jsonLines, isGzip: reader.isGzip)
        var cutter = LinePieceCutter(pieceSize: pieceSize, maxLineLength: maxLineLength)
        try reader.forEachTextChunk { text in
            try cutter.append(text, body)
            onBytesRead?(reader.compressedBytesRead)
        }
        var last = cutter.finish()
        try body(&last)
        summary.compressedBytes = reader.compressedBytesRead
        summary.uncompressedBytes = reader.uncompressedBytes
        return summary
    }

    /// Parses one piece of `splitJSONLines` as `scan` parses a file: `record` for every valid
    /// event, `malformed` for every malformed line, with line numbers counted from 1 in the piece.
    /// The piece's text is handed back to its cutter afterwards: the piece is left empty.
    public func scanPiece(
        _ piece: inout LogTextPiece, record: (_ record: UnsafePointer<LogRecord>, _ lineNumber: Int) throws -> Void,
        malformed: (_ line: MalformedLine) throws -> Void
    ) throws -> LineCounts {
        defer {
            var bytes: [UInt8] = []
            swap(&bytes, &piece.bytes)
            piece.recycling.give(bytes)
        }
        return try JSONLinesLog.scanLines(
            maxLineLength: maxLineLength, keepsSliceFields: keepsSliceFields, record: record, malformed: malformed
        ) { feed in
            try piece.bytes.withUnsafeBytes { try feed($0) }
        }
    }
}

/// Internal machinery of `splitJSONLines`: gathers decoded text and cuts it after a line end
/// once a piece is large enough.
struct LinePieceCutter {
    let pieceSize: Int
    let maxLineLength: Int
    private var bytes: [UInt8] = []
    /// Where the line that has no `\n` yet starts in `bytes`.
    private var lineStart = 0
    /// Whether that line outgrew what is kept of it (`keptOfLongLine` bytes), and then whether a
    /// byte left out is not blank.
    private var isTruncated = false
    private var droppedNonBlank = false
    private var nextIndex = 0
    private let buffers = TextBuffers()

    /// Bytes kept of a line that is too long: `LineSplitter` hands out its first `maxLineLength`
    /// bytes marked too long, or skips it when it is blank. Two bytes more than the limit keep
    /// it too long even if the last kept one is a `\r`, and that last byte, never handed out,
    /// is made non-blank when a dropped byte is (`finishTruncation`).
    private var keptOfLongLine: Int { maxLineLength + 2 }

    init(pieceSize: Int, maxLineLength: Int) {
        self.pieceSize = max(pieceSize, 1)
        self.maxLineLength = min(max(maxLineLength, 1), Int.max / 4)
        bytes = buffers.take(capacity: roomPerPiece)
    }

    /// A piece's text: the piece, and the chunk that completed it.
    private var roomPerPiece: Int { pieceSize + (1 << 20) }

    mutating func append(_ text: UnsafeRawBufferPointer, _ body: (inout LogTextPiece) throws -> Void) rethrows {
        guard let base = text.baseAddress, text.count > 0 else { return }
        var rest = text
        if isTruncated {
            guard let newline = memchr(base, 0x0A, text.count) else {
                if !droppedNonBlank { droppedNonBlank = !LineSplitter.isBlank(text) }
                return
            }
            let end = base.distance(to: UnsafeRawPointer(newline))
            if !droppedNonBlank { droppedNonBlank = !LineSplitter.isBlank(UnsafeRawBufferPointer(start: base, count: end)) }
            finishTruncation()
            rest = UnsafeRawBufferPointer(rebasing: text[end...])
        }
        bytes.append(contentsOf: rest)
        if let lastNewline = rest.lastIndex(of: 0x0A) { lineStart = bytes.count - (rest.count - lastNewline - 1) }
        if bytes.count - lineStart > keptOfLongLine {
            droppedNonBlank = bytes.withUnsafeBytes {
                !LineSplitter.isBlank(UnsafeRawBufferPointer(rebasing: $0[(lineStart + keptOfLongLine)...]))
            }
            bytes.removeLast(bytes.count - lineStart - keptOfLongLine)
            isTruncated = true
        }
        if lineStart >= pieceSize {
            var piece = cut()
            try body(&piece)
        }
    }

    /// The last piece: the rest of the text.
    mutating func finish() -> LogTextPiece {
        if isTruncated { finishTruncation() }
        lineStart = bytes.count
        return cut()
    }

    /// The whole lines gathered so far as a piece; the unfinished line starts the next one.
    private mutating func cut() -> LogTextPiece {
        var next = buffers.take(capacity: roomPerPiece)
        next.append(contentsOf: bytes[lineStart...])
        swap(&next, &bytes)
        next.removeLast(next.count - lineStart)
        lineStart = 0
        defer { nextIndex += 1 }
        return LogTextPiece(index: nextIndex, bytes: next, recycling: buffers)
    }

    private mutating func finishTruncation() {
        if droppedNonBlank { bytes[bytes.count - 1] = 0x78 }  // x
        isTruncated = false
        droppedNonBlank = false
    }
}
