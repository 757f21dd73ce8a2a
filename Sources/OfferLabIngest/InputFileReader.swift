import CZlib

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file as a stream of bytes, decompressing it when it starts with the gzip magic
/// bytes (`1f 8b`), whatever its name.
///
/// Several gzip members back to back (`cat a.gz b.gz`) are one stream. Every failure is an
/// `IngestError` naming the file: a missing or unreadable file (`cannotOpen`, `readFailed`), a
/// bad header, CRC, length or deflate data, or bytes after a member that are not another member
/// (`corruptGzip`), a file that ends inside a member (`truncatedGzip`). Bytes decompressed
/// before the problem was seen have already been handed out.
///
/// Memory: two buffers of `bufferSize` bytes (and zlib's 32 KiB window), whatever the file's
/// size. Not thread-safe: one reader per task.
public final class InputFileReader {
    public let path: String
    /// Whether the file is gzip (detected by its first two bytes).
    public let isGzip: Bool
    /// Bytes read from the file so far.
    public private(set) var compressedBytesRead: Int64 = 0
    /// Bytes handed out so far.
    public private(set) var uncompressedBytes: Int64 = 0

    private let descriptor: Int32
    private let input: UnsafeMutableRawPointer
    private let inputCapacity: Int
    private var inputStart = 0
    private var inputEnd = 0
    private let output: UnsafeMutableRawPointer
    private let outputCapacity: Int
    /// The zlib stream lives at a fixed address: zlib keeps a pointer back to it.
    private let stream: UnsafeMutablePointer<z_stream>
    private var streamInitialized = false
    private var inMember = false
    private var endOfFile = false
    private var state = State.reading
    /// An error found while inflating the bytes of the chunk just handed out: thrown next.
    private var deferredFailure: IngestError?

    private enum State {
        case reading
        case finished
        case failed(IngestError)
    }

    /// Opens `path` and reads its first bytes to detect gzip.
    ///
    /// - Parameter bufferSize: size of the read buffer and of the decompression buffer (at least
    ///   2 bytes are used whatever the value).
    /// - Throws: `IngestError` (`cannotOpen`, `readFailed`).
    public init(path: String, bufferSize: Int = 1 << 20) throws {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw IngestError(code: .cannotOpen, path: path, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        inputCapacity = max(bufferSize, 2)
        outputCapacity = max(bufferSize, 1)
        input = UnsafeMutableRawPointer.allocate(byteCount: inputCapacity, alignment: 16)
        output = UnsafeMutableRawPointer.allocate(byteCount: outputCapacity, alignment: 16)
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Read until two bytes are there (or the file ends) so the magic bytes can be checked.
        var isGzip = false
        do {
            try Self.fill(
                descriptor: descriptor, buffer: input, capacity: inputCapacity, start: &inputStart, end: &inputEnd,
                endOfFile: &endOfFile, minimum: 2, path: path)
        } catch {
            close(descriptor)
            input.deallocate()
            output.deallocate()
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw error
        }
        compressedBytesRead = Int64(inputEnd)
        if inputEnd >= 2, input.load(as: UInt8.self) == 0x1f, input.load(fromByteOffset: 1, as: UInt8.self) == 0x8b {
            isGzip = true
        }
        self.isGzip = isGzip
    }

    deinit {
        if streamInitialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        input.deallocate()
        output.deallocate()
        close(descriptor)
    }

    /// Calls `body` with each successive chunk of (decompressed) bytes until the end of the file.
    ///
    /// A chunk is never empty and is only valid during the call. An error thrown by `body` is
    /// rethrown as is.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        while let chunk = try nextChunk() {
            try body(chunk)
        }
    }

    /// The next chunk of (decompressed) bytes, or nil at the end of the file.
    ///
    /// The chunk is never empty and stays valid until the next call. After an error, every
    /// later call throws the same error.
    public func nextChunk() throws -> UnsafeRawBufferPointer? {
        switch state {
        case .finished: return nil
        case .failed(let error): throw error
        case .reading: break
        }
        do {
            let chunk = try isGzip ? nextInflatedChunk() : nextPlainChunk()
            if let chunk {
                uncompressedBytes += Int64(chunk.count)
            } else {
                state = .finished
            }
            return chunk
        } catch let error as IngestError {
            state = .failed(error)
            throw error
        }
    }

    // MARK: - Internal machinery

    private func nextPlainChunk() throws -> UnsafeRawBufferPointer? {
        if inputStart == inputEnd {
            if endOfFile { return nil }
            try refill()
            if inputStart == inputEnd { return nil }
        }
        let chunk = UnsafeRawBufferPointer(start: input + inputStart, count: inputEnd - inputStart)
        inputStart = inputEnd
        return chunk
    }

    private func refill(minimum: Int = 1) throws {
        let before = inputEnd - inputStart
        try Self.fill(
            descriptor: descriptor, buffer: input, capacity: inputCapacity, start: &inputStart, end: &inputEnd,
            endOfFile: &endOfFile, minimum: minimum, path: path, offset: compressedBytesRead)
        compressedBytesRead += Int64(inputEnd - inputStart - before)
    }

    /// Moves unread bytes to the front, then reads until at least `minimum` bytes are unread and
    /// one `read` has been made (or the file ends).
    private static func fill(
        descriptor: Int32, buffer: UnsafeMutableRawPointer, capacity: Int, start: inout Int, end: inout Int,
        endOfFile: inout Bool, minimum: Int, path: String, offset: Int64 = 0
    ) throws {
        if start > 0 {
            let remaining = end - start
            if remaining > 0 { memmove(buffer, buffer + start, remaining) }
            start = 0
            end = remaining
        }
        var didRead = false
        while !endOfFile && end < capacity && (!didRead || end < minimum) {
            let count = read(descriptor, buffer + end, capacity - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw IngestError(
                    code: .readFailed, path: path, message: "read failed: \(String(cString: strerror(errno)))",
                    byteOffset: offset + Int64(end))
            }
            didRead = true
            if count == 0 { endOfFile = true } else { end += count }
        }
    }

    private func nextInflatedChunk() throws -> UnsafeRawBufferPointer? {
        if let deferredFailure { throw deferredFailure }
        if !streamInitialized {
            // 16 + MAX_WBITS: gzip wrapper only, so a non-gzip member is an error, not raw zlib.
            guard inflateInit2_(stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw IngestError(code: .corruptGzip, path: path, message: "cannot initialise zlib")
            }
            streamInitialized = true
        }
        while true {
            if inputStart == inputEnd && !endOfFile { try refill() }
            if !inMember {
                if inputStart == inputEnd { return nil }  // the file ends between members: done
                if inputEnd - inputStart < 2 && !endOfFile { try refill(minimum: 2) }
                guard inputEnd - inputStart >= 2,
                    input.load(fromByteOffset: inputStart, as: UInt8.self) == 0x1f,
                    input.load(fromByteOffset: inputStart + 1, as: UInt8.self) == 0x8b
                else {
                    throw corrupt("data after the last member is not gzip")
                }
                inMember = true
            }
            let available = inputEnd - inputStart
            stream.pointee.next_in = (input + inputStart).assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_in = uInt(available)
            stream.pointee.next_out = output.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(outputCapacity)
            let status = inflate(stream, Z_NO_FLUSH)
            let consumed = available - Int(stream.pointee.avail_in)
            let produced = outputCapacity - Int(stream.pointee.avail_out)
            inputStart += consumed
            var failure: IngestError?
            switch status {
            case Z_STREAM_END:
                inflateReset(stream)
                inMember = false
            case Z_OK:
                break
            case Z_BUF_ERROR:
                // No progress was possible: zlib needs more input than there is.
                if inputStart == inputEnd && endOfFile {
                    failure = IngestError(
                        code: .truncatedGzip, path: path, message: "truncated gzip file: it ends inside a member",
                        byteOffset: compressedBytesRead)
                } else if inputStart < inputEnd {
                    failure = corrupt("zlib made no progress")
                }
            case Z_NEED_DICT:
                failure = corrupt("a member needs a preset dictionary")
            default:
                failure = corrupt(stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)")
            }
            // The bytes zlib produced before it found the damage are handed out first, so what
            // a caller sees before the error does not depend on the buffer size.
            if produced > 0 {
                deferredFailure = failure
                return UnsafeRawBufferPointer(start: output, count: produced)
            }
            if let failure { throw failure }
        }
    }

    private func corrupt(_ detail: String) -> IngestError {
        IngestError(
            code: .corruptGzip, path: path, message: "corrupt gzip file: \(detail)",
            byteOffset: compressedBytesRead - Int64(inputEnd - inputStart))
    }
}
