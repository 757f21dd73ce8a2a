import CZlib

/// A failure to read or decompress an input file, with where it happened.
public struct IngestError: Error, CustomStringConvertible, Sendable {
    public enum Code: Sendable {
        case cannotOpen
        case readFailed
        case corruptGzip
        case truncatedGzip
        case writeFailed
    }

    public var code: Code
    public var path: String
    public var message: String
    /// Offset in the file (compressed bytes) where the problem was seen, when known.
    public var byteOffset: Int64?

    public init(code: Code, path: String, message: String, byteOffset: Int64? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.byteOffset = byteOffset
    }

    public var description: String {
        if let byteOffset { return "\(path): \(message) (at compressed byte \(byteOffset))" }
        return "\(path): \(message)"
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file as a stream of bytes, decompressing it when it starts with the gzip magic
/// bytes (`1f 8b`), whatever its name.
///
/// Several gzip members back to back (`cat a.gz b.gz`) are one stream. Anything after a member
/// that is not another member, a bad CRC, or a member cut short is an `IngestError`.
/// Memory: two buffers of `bufferSize` bytes, whatever the file's size.
public final class InputFileReader {
    public let path: String
    /// Whether the file is gzip (detected by its first two bytes).
    public let isGzip: Bool
    /// Bytes read from the file so far.
    public private(set) var compressedBytesRead: Int64 = 0
    /// Bytes handed out so far.
    public private(set) var uncompressedBytes: Int64 = 0

    private let descriptor: Int32
    private var input: [UInt8]
    private var inputStart = 0
    private var inputEnd = 0
    private var output: [UInt8]
    private var stream = z_stream()
    private var streamInitialized = false
    private var endOfFile = false

    public init(path: String, bufferSize: Int = 1 << 20) throws {
        self.path = path
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw IngestError(code: .cannotOpen, path: path, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        input = [UInt8](repeating: 0, count: bufferSize)
        output = [UInt8](repeating: 0, count: bufferSize)
        // Fill the first buffer so the magic bytes can be checked.
        var isGzip = false
        do {
            try Self.fill(descriptor: descriptor, buffer: &input, start: &inputStart, end: &inputEnd, endOfFile: &endOfFile, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        compressedBytesRead = Int64(inputEnd)
        if inputEnd >= 2, input[0] == 0x1f, input[1] == 0x8b { isGzip = true }
        self.isGzip = isGzip
    }

    deinit {
        if streamInitialized { inflateEnd(&stream) }
        close(descriptor)
    }

    /// Calls `body` with each successive chunk of (decompressed) bytes until the end of the file.
    /// The chunk is only valid during the call.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        if isGzip {
            try inflateAll(body)
        } else {
            while inputEnd > inputStart {
                try input.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[inputStart..<inputEnd])) }
                uncompressedBytes += Int64(inputEnd - inputStart)
                inputStart = inputEnd
                try refill()
            }
        }
    }

    private func refill() throws {
        let before = inputEnd - inputStart
        try Self.fill(descriptor: descriptor, buffer: &input, start: &inputStart, end: &inputEnd, endOfFile: &endOfFile, path: path)
        compressedBytesRead += Int64(inputEnd - inputStart - before)
    }

    /// Moves unread bytes to the front and reads until the buffer is full or the file ends.
    private static func fill(
        descriptor: Int32, buffer: inout [UInt8], start: inout Int, end: inout Int, endOfFile: inout Bool, path: String
    ) throws {
        if start > 0 {
            let remaining = end - start
            if remaining > 0 {
                buffer.withUnsafeMutableBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    memmove(base, base + start, remaining)
                }
            }
            start = 0
            end = remaining
        }
        while !endOfFile && end < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw in
                read(descriptor, raw.baseAddress! + end, raw.count - end)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw IngestError(code: .readFailed, path: path, message: "read failed: \(String(cString: strerror(errno)))")
            }
            if count == 0 { endOfFile = true } else { end += count }
        }
    }

    private func inflateAll(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        // 16 + MAX_WBITS: gzip wrapper only, so a non-gzip member is an error, not raw zlib.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw IngestError(code: .corruptGzip, path: path, message: "cannot initialise zlib")
        }
        streamInitialized = true
        var memberHasStarted = false
        while true {
            if inputStart == inputEnd {
                try refill()
                if inputStart == inputEnd {
                    if memberHasStarted {
                        throw IngestError(
                            code: .truncatedGzip, path: path,
                            message: "truncated gzip file: it ends inside a member", byteOffset: compressedBytesRead)
                    }
                    return
                }
            }
            if !memberHasStarted {
                // A new member must start with the magic bytes; anything else is trailing garbage.
                if inputEnd - inputStart < 2 && !endOfFile { try refill() }
                guard inputEnd - inputStart >= 2, input[inputStart] == 0x1f, input[inputStart + 1] == 0x8b else {
                    throw IngestError(
                        code: .corruptGzip, path: path, message: "corrupt gzip file: data after the last member is not gzip",
                        byteOffset: compressedBytesRead - Int64(inputEnd - inputStart))
                }
                memberHasStarted = true
            }
            let inputCount = inputEnd - inputStart
            let (status, consumed, produced) = input.withUnsafeMutableBytes { inRaw in
                output.withUnsafeMutableBytes { outRaw in
                    stream.next_in = inRaw.baseAddress!.assumingMemoryBound(to: Bytef.self) + inputStart
                    stream.avail_in = uInt(inputCount)
                    stream.next_out = outRaw.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(outRaw.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, inputCount - Int(stream.avail_in), outRaw.count - Int(stream.avail_out))
                }
            }
            inputStart += consumed
            if produced > 0 {
                uncompressedBytes += Int64(produced)
                try output.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
            }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                if status == Z_BUF_ERROR && consumed == 0 && produced == 0 && inputStart < inputEnd {
                    throw corrupt("zlib made no progress")
                }
            case Z_STREAM_END:
                inflateReset(&stream)
                memberHasStarted = false
            default:
                let detail = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw corrupt(detail)
            }
        }
    }

    private func corrupt(_ detail: String) -> IngestError {
        IngestError(
            code: .corruptGzip, path: path, message: "corrupt gzip file: \(detail)",
            byteOffset: compressedBytesRead - Int64(inputEnd - inputStart))
    }
}

/// The C `write`, which `GzipWriter`'s own `write` methods would otherwise shadow.
private func writeToDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// Writes a gzip file; `finishMember()` ends one member so that the next bytes start another
/// (as log rotation and `cat a.gz b.gz` produce).
public final class GzipWriter {
    public let path: String
    private let descriptor: Int32
    private var stream = z_stream()
    private var memberOpen = false
    private var output = [UInt8](repeating: 0, count: 1 << 18)
    private let level: Int32

    /// Creates (or truncates) `path`. `level` is the zlib level, 1 (fast) to 9 (small).
    public init(path: String, level: Int32 = 6) throws {
        self.path = path
        self.level = level
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw IngestError(code: .cannotOpen, path: path, message: "cannot create: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
    }

    deinit {
        if memberOpen { deflateEnd(&stream) }
        close(descriptor)
    }

    /// Compresses `bytes` into the current member, starting one when needed.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try startMemberIfNeeded()
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(bytes.count)
        try pump(flush: Z_NO_FLUSH)
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    public func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Ends the current member (if any); later writes start a new member.
    public func finishMember() throws {
        guard memberOpen else { return }
        stream.next_in = nil
        stream.avail_in = 0
        try pump(flush: Z_FINISH)
        deflateEnd(&stream)
        memberOpen = false
    }

    /// Ends the last member. The file is closed when the writer is released.
    public func finish() throws { try finishMember() }

    private func startMemberIfNeeded() throws {
        guard !memberOpen else { return }
        stream = z_stream()
        // 16 + MAX_WBITS: write a gzip header and trailer.
        guard deflateInit2_(&stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                             Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { throw IngestError(code: .writeFailed, path: path, message: "cannot initialise zlib") }
        memberOpen = true
    }

    private func pump(flush: Int32) throws {
        while true {
            let (status, produced) = output.withUnsafeMutableBytes { raw in
                stream.next_out = raw.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(raw.count)
                let status = deflate(&stream, flush)
                return (status, raw.count - Int(stream.avail_out))
            }
            if produced > 0 { try writeAll(count: produced) }
            if status == Z_STREAM_END { return }
            guard status == Z_OK || status == Z_BUF_ERROR else {
                throw IngestError(code: .writeFailed, path: path, message: "zlib deflate failed (\(status))")
            }
            if flush == Z_NO_FLUSH && stream.avail_in == 0 { return }
        }
    }

    private func writeAll(count: Int) throws {
        var written = 0
        while written < count {
            let result = output.withUnsafeBytes { writeToDescriptor(descriptor, $0.baseAddress! + written, count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                throw IngestError(code: .writeFailed, path: path, message: "write failed: \(String(cString: strerror(errno)))")
            }
            written += result
        }
    }
}
