/// A failure to read, decompress or decode an input file, with where it happened.
///
/// One error type for the whole ingest layer: it names the file and, when known, the compressed
/// byte offset and the 1-based line. Malformed log lines are not errors (they are counted, see
/// `MalformedReason`); an `IngestError` means the file as a whole cannot be trusted.
public struct IngestError: Error, CustomStringConvertible, Sendable {
    public enum Code: Sendable, Equatable {
        /// The file does not exist or cannot be opened.
        case cannotOpen
        /// `read(2)` failed (for example the path is a directory).
        case readFailed
        /// The gzip data is not valid: bad header, bad CRC or length, bad deflate data, or
        /// bytes after the last member that are not another member.
        case corruptGzip
        /// The file ends inside a gzip member.
        case truncatedGzip
        /// Writing (`GzipWriter`) failed.
        case writeFailed
        /// A table or CSV log has no usable header row (for example it is longer than the
        /// record length limit).
        case invalidHeader
        /// A table lacks a column the caller requires (`TableFileReader.requireColumns`).
        case missingColumn
    }

    public var code: Code
    public var path: String
    public var message: String
    /// Offset in the file (compressed bytes) where the problem was seen, when known.
    public var byteOffset: Int64?
    /// 1-based line of the decompressed text where the problem was seen, when known.
    public var line: Int?

    public init(code: Code, path: String, message: String, byteOffset: Int64? = nil, line: Int? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.byteOffset = byteOffset
        self.line = line
    }

    /// `path[:line]: message[ (at compressed byte N)]`, one line for stderr.
    public var description: String {
        var text = path
        if let line { text += ":\(line)" }
        return text + ": " + detail
    }

    /// `message[ (at compressed byte N)]`: the description without the file.
    public var detail: String {
        guard let byteOffset else { return message }
        return "\(message) (at compressed byte \(byteOffset))"
    }
}
