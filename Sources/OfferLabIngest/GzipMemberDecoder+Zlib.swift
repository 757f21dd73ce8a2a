import CZlib

/// zlib's `inflate` on gzip members (the only file that holds a zlib inflate stream).
final class ZlibMemberDecoder: GzipMemberDecoder {
    /// The stream lives at a fixed address: zlib keeps a pointer back to it.
    private let stream: UnsafeMutablePointer<z_stream>
    private var initialized = false

    init() {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if initialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    func startMember() throws(InflaterUnavailable) {
        if initialized {
            inflateReset(stream)
            return
        }
        // 16 + MAX_WBITS: gzip wrapper only, so a non-gzip member is an error, not raw zlib.
        guard inflateInit2_(stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw InflaterUnavailable(message: "cannot initialise zlib")
        }
        initialized = true
    }

    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> InflateStep {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let code = CZlib.inflate(stream, Z_NO_FLUSH)
        let consumed = input.count - Int(stream.pointee.avail_in)
        let produced = output.count - Int(stream.pointee.avail_out)
        let status: InflateStep.Status
        switch code {
        case Z_STREAM_END: status = .memberEnded
        // Z_BUF_ERROR: no progress was possible; the reader tells a cut file from bad data.
        case Z_OK, Z_BUF_ERROR: status = .ok
        case Z_NEED_DICT: status = .failed("a member needs a preset dictionary")
        default: status = .failed(stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(code)")
        }
        return InflateStep(consumed: consumed, produced: produced, status: status)
    }
}
