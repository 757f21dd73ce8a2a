import CZlib

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C `write`, which `GzipWriter`'s own `write` methods would otherwise shadow.
private func writeToDescriptor(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// Writes a gzip file; `finishMember()` ends one member so that the next bytes start another
/// (as log rotation and `cat a.gz b.gz` produce).
///
/// Not thread-safe: one writer per task. Releasing a writer without `finish()` leaves the
/// last member cut short (a truncated file).
public final class GzipWriter {
    public let path: String
    private let descriptor: Int32
    /// The zlib stream lives at a fixed address: zlib keeps a pointer back to it.
    private let stream: UnsafeMutablePointer<z_stream>
    private var memberOpen = false
    private let output: UnsafeMutableRawPointer
    private let outputCapacity = 1 << 18
    private let level: Int32

    /// Creates (or truncates) `path`. `level` is the zlib level, 1 (fast) to 9 (small).
    ///
    /// - Throws: `IngestError` (`cannotOpen`).
    public init(path: String, level: Int32 = 6) throws {
        self.path = path
        self.level = level
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw IngestError(code: .cannotOpen, path: path, message: "cannot create: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = UnsafeMutableRawPointer.allocate(byteCount: outputCapacity, alignment: 16)
    }

    deinit {
        if memberOpen { deflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
        close(descriptor)
    }

    /// Compresses `bytes` into the current member, starting one when needed.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try startMemberIfNeeded()
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(bytes.count)
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
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        try pump(flush: Z_FINISH)
        deflateEnd(stream)
        memberOpen = false
    }

    /// Ends the last member. The file is closed when the writer is released.
    public func finish() throws { try finishMember() }

    private func startMemberIfNeeded() throws {
        guard !memberOpen else { return }
        stream.pointee = z_stream()
        // 16 + MAX_WBITS: write a gzip header and trailer.
        guard
            deflateInit2_(
                stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { throw IngestError(code: .writeFailed, path: path, message: "cannot initialise zlib") }
        memberOpen = true
    }

    private func pump(flush: Int32) throws {
        while true {
            stream.pointee.next_out = output.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(outputCapacity)
            let status = deflate(stream, flush)
            let produced = outputCapacity - Int(stream.pointee.avail_out)
            if produced > 0 { try writeAll(count: produced) }
            if status == Z_STREAM_END { return }
            guard status == Z_OK || status == Z_BUF_ERROR else {
                throw IngestError(code: .writeFailed, path: path, message: "zlib deflate failed (\(status))")
            }
            if flush == Z_NO_FLUSH && stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return }
        }
    }

    private func writeAll(count: Int) throws {
        var written = 0
        while written < count {
            let result = writeToDescriptor(descriptor, output + written, count - written)
            if result < 0 {
                if errno == EINTR { continue }
                throw IngestError(code: .writeFailed, path: path, message: "write failed: \(String(cString: strerror(errno)))")
            }
            written += result
        }
    }
}
