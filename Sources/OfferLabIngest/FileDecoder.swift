#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Internal machinery of `InputFileReader`: the file, its read buffer and, for gzip, the member
/// loop around a `GzipMemberDecoder`. Not thread-safe: used by one thread at a time.
final class FileDecoder {
    let path: String
    /// Set by `init` from the file's first two bytes.
    private(set) var isGzip = false
    /// Bytes read from the file so far.
    private(set) var compressedBytesRead: Int64 = 0

    private let inflater: Inflater
    private let descriptor: Int32
    private let input: UnsafeMutableRawPointer
    /// The read buffer's size: a plain file's chunk is at most this long.
    let inputCapacity: Int
    private var inputStart = 0
    private var inputEnd = 0
    /// Made when the first member starts (a plain file needs none).
    private lazy var decoder: any GzipMemberDecoder = inflater.makeDecoder()
    private var inMember = false
    private var endOfFile = false
    /// A problem found while inflating the bytes just handed out: thrown by the next call, so
    /// that what a caller sees before an error does not depend on the buffer size.
    private var deferredFailure: IngestError?

    /// Opens `path` and reads its first bytes to detect gzip.
    /// - Throws: `IngestError` (`cannotOpen`, `readFailed`).
    init(path: String, bufferSize: Int, inflater: Inflater) throws {
        self.path = path
        self.inflater = inflater
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw IngestError(code: .cannotOpen, path: path, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        // Room for a member's first four bytes (magic, method, flags), checked before inflating.
        inputCapacity = max(bufferSize, 4)
        input = UnsafeMutableRawPointer.allocate(byteCount: inputCapacity, alignment: 16)
        // Read until two bytes are there (or the file ends) so the magic bytes can be checked. On
        // an error `deinit` closes the file and frees the buffer (every property is set by then).
        try fill(minimum: 2)
        compressedBytesRead = Int64(inputEnd)
        isGzip = inputEnd >= 2 && input.load(as: UInt8.self) == 0x1f && input.load(fromByteOffset: 1, as: UInt8.self) == 0x8b
    }

    deinit {
        input.deallocate()
        close(descriptor)
    }

    /// The next bytes of the file, or nil at its end: for gzip, inflated into `output` (a
    /// prefix of it is returned); for a plain file, a view of the read buffer, valid until the
    /// next call. Never empty.
    func nextChunk(into output: UnsafeMutableRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        try isGzip ? nextInflatedChunk(into: output) : nextPlainChunk()
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
        try fill(minimum: minimum)
        compressedBytesRead += Int64(inputEnd - inputStart - before)
    }

    /// Moves unread bytes to the front, then reads until at least `minimum` bytes are unread and
    /// one `read` has been made (or the file ends).
    private func fill(minimum: Int) throws {
        if inputStart > 0 {
            let remaining = inputEnd - inputStart
            if remaining > 0 { memmove(input, input + inputStart, remaining) }
            inputStart = 0
            inputEnd = remaining
        }
        var didRead = false
        while !endOfFile && inputEnd < inputCapacity && (!didRead || inputEnd < minimum) {
            let count = read(descriptor, input + inputEnd, inputCapacity - inputEnd)
            if count < 0 {
                if errno == EINTR { continue }
                throw IngestError(
                    code: .readFailed, path: path, message: "read failed: \(String(cString: strerror(errno)))",
                    byteOffset: compressedBytesRead + Int64(inputEnd))
            }
            didRead = true
            if count == 0 { endOfFile = true } else { inputEnd += count }
        }
    }

    private func nextInflatedChunk(into output: UnsafeMutableRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        if let deferredFailure { throw deferredFailure }
        while true {
            if inputStart == inputEnd && !endOfFile { try refill() }
            if !inMember {
                if inputStart == inputEnd { return nil }  // the file ends between members: done
                if inputEnd - inputStart < 4 && !endOfFile { try refill(minimum: 4) }
                guard inputEnd - inputStart >= 2,
                    input.load(fromByteOffset: inputStart, as: UInt8.self) == 0x1f,
                    input.load(fromByteOffset: inputStart + 1, as: UInt8.self) == 0x8b
                else {
                    throw corrupt("data after the last member is not gzip")
                }
                // zlib rejects a header with reserved flag bits set; ISA-L ignores them. Checked
                // here, so that both inflaters fail such a file the same way.
                if inputEnd - inputStart >= 4 && input.load(fromByteOffset: inputStart + 3, as: UInt8.self) & 0xE0 != 0 {
                    throw corrupt("unknown header flags set")
                }
                try startMember()
            }
            let step = decoder.inflate(UnsafeRawBufferPointer(start: input + inputStart, count: inputEnd - inputStart), into: output)
            inputStart += step.consumed
            var failure: IngestError?
            switch step.status {
            case .memberEnded:
                inMember = false
            case .ok where step.consumed == 0 && step.produced == 0:
                // No progress was possible: the member needs more input than there is.
                if inputStart == inputEnd && endOfFile {
                    failure = IngestError(
                        code: .truncatedGzip, path: path, message: "truncated gzip file: it ends inside a member",
                        byteOffset: compressedBytesRead)
                } else if inputStart < inputEnd {
                    failure = corrupt("the inflater made no progress")
                }
            case .ok:
                break
            case .failed(let detail):
                failure = corrupt(detail)
            }
            // The bytes inflated before the damage was found are handed out first.
            if step.produced > 0 {
                deferredFailure = failure
                return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(output)[0..<step.produced])
            }
            if let failure { throw failure }
        }
    }

    private func startMember() throws {
        do {
            try decoder.startMember()
        } catch {
            throw corrupt(error.message)
        }
        inMember = true
    }

    private func corrupt(_ detail: String) -> IngestError {
        IngestError(
            code: .corruptGzip, path: path, message: "corrupt gzip file: \(detail)",
            byteOffset: compressedBytesRead - Int64(inputEnd - inputStart))
    }
}
