import OfferLabIngest

/// One log file being written: buffers lines and feeds them to a gzip stream, with the file's
/// quirks (CRLF line ends, several gzip members with boundaries inside lines, no final newline).
///
/// The file is created on the first flush, so a day with no lines gets no file.
/// Memory: one buffer of about `flushThreshold` bytes plus the zlib state.
final class LogFile {
    enum Format {
        case jsonLines
        case csv
    }

    let path: String
    let format: Format
    let usesCRLF: Bool
    let omitsFinalNewline: Bool
    /// Uncompressed bytes between gzip member boundaries; nil for a single member.
    let memberSize: Int?
    private let level: Int32
    private var writer: GzipWriter?
    private var buffer: [UInt8] = []
    private var terminatorPending = false
    private var flushedBytes = 0
    private var nextMemberBoundary: Int
    private(set) var members = 0
    private(set) var lines = 0
    private(set) var blankLines = 0
    /// Whether the CSV header row is written, or need not be: the one-file layout writes it
    /// once, before its pieces.
    private var headerWritten: Bool

    static let flushThreshold = 1 << 16

    init(
        path: String, format: Format, usesCRLF: Bool, omitsFinalNewline: Bool, memberSize: Int?, level: Int32,
        writesCSVHeader: Bool = true
    ) {
        headerWritten = !writesCSVHeader
        self.path = path
        self.format = format
        self.usesCRLF = usesCRLF
        self.omitsFinalNewline = omitsFinalNewline
        self.memberSize = memberSize
        self.level = level
        // The first boundary comes early, so that even small files have several members.
        nextMemberBoundary = memberSize.map { min($0, 2_500) } ?? Int.max
        buffer.reserveCapacity(Self.flushThreshold + 4096)
    }

    /// The CSV header row, written once before the first row.
    static let csvHeader: StaticString =
        "event_id,ts,user_id,event,product_id,transaction_id,original_transaction_id,price,currency,offering_id,test_group_id,environment,platform,country,app_version,expires_at,store"

    /// Appends one line (without its terminator).
    func appendLine(_ line: [UInt8]) throws {
        if format == .csv && !headerWritten {
            headerWritten = true
            beginLine()
            buffer.appendASCII(Self.csvHeader)
            terminatorPending = true
        }
        beginLine()
        buffer.append(contentsOf: line)
        terminatorPending = true
        lines += 1
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Appends an empty line.
    func appendBlankLine() {
        beginLine()
        terminatorPending = true
        blankLines += 1
    }

    private func beginLine() {
        guard terminatorPending else { return }
        if usesCRLF { buffer.append(13) }
        buffer.append(10)
        terminatorPending = false
    }

    /// Uncompressed bytes written so far (flushed or buffered).
    var uncompressedBytes: Int { flushedBytes + buffer.count + (terminatorPending ? (usesCRLF ? 2 : 1) : 0) }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        let writer = try openWriter()
        var start = 0
        while flushedBytes + (buffer.count - start) > nextMemberBoundary, let memberSize {
            let cut = nextMemberBoundary - flushedBytes
            try buffer.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[start..<(start + cut)])) }
            try writer.finishMember()
            members += 1
            flushedBytes += cut
            start += cut
            nextMemberBoundary += memberSize
        }
        try buffer.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        flushedBytes += buffer.count - start
        buffer.removeAll(keepingCapacity: true)
    }

    private func openWriter() throws -> GzipWriter {
        if let writer { return writer }
        let writer = try GzipWriter(path: path, level: level)
        self.writer = writer
        return writer
    }

    /// Writes what is left and ends the last member. Returns whether a file was written.
    @discardableResult
    func finish() throws -> Bool {
        if terminatorPending && !omitsFinalNewline { beginLine() }
        terminatorPending = false
        try flush()
        guard let writer else { return false }
        try writer.finish()
        members += 1
        self.writer = nil
        return true
    }
}
