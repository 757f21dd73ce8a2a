#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Internal machinery of `InputFileReader(readAhead: true)`: a thread of its own decodes the
/// file into a ring of buffers, a few chunks ahead of the reader, so that inflating and parsing
/// one file keep two cores busy.
///
/// The chunks are the ones the file decoder produces, in the same order; an error reaches the
/// reader after every chunk decoded before it. The buffers go round through two queues: free
/// ones to the thread, decoded ones to the reader, which gives each back at its next call.
/// `@unchecked Sendable`: the thread owns the decoder, and a buffer is used by one side at a time,
/// handed over through the queues; the reader's state is the reader's alone.
final class ReadAhead: @unchecked Sendable {
    /// What the thread hands the reader: a decoded chunk (its buffer, its size, the decoder's
    /// `compressedBytesRead` after it), then the end or an error.
    private enum Decoded: Sendable {
        case chunk(buffer: Int, size: Int, compressedBytesRead: Int64)
        case end(compressedBytesRead: Int64)
        case failure(IngestError)
    }

    private let decoder: FileDecoder
    private let buffers: [UnsafeMutableRawPointer]
    private let bufferSize: Int
    /// Buffers the thread may decode into (their indices).
    private let free: BlockingQueue<Int>
    /// Decoded chunks in file order, then the end or the error.
    private let decoded: BlockingQueue<Decoded>
    /// The reader's: the buffer it holds, and the end or error once seen.
    private var held: Int?
    private var last: Decoded?
    private var thread: pthread_t?

    /// - Parameters:
    ///   - bufferSize: the decoder's buffer size (a plain file's chunk is up to that long).
    ///   - depth: how many chunks may be decoded ahead, the one the reader holds included.
    init(decoder: FileDecoder, bufferSize: Int, depth: Int) {
        self.decoder = decoder
        self.bufferSize = max(bufferSize, 2)
        let depth = max(depth, 2)
        buffers = (0..<depth).map { [size = self.bufferSize] _ in UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16) }
        free = BlockingQueue(capacity: depth)
        for buffer in 0..<depth { free.put(buffer) }
        // Every buffer, and the end after them: the thread never waits to hand a chunk over.
        decoded = BlockingQueue(capacity: depth + 1)
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    /// Starts the decoding thread; `stop` must be called before the object is released (the
    /// thread holds it until then).
    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        #if canImport(Darwin)
            var handle: pthread_t?
            let status = pthread_create(&handle, nil, { ReadAhead.run($0) }, context)
        #else
            var handle = pthread_t()
            let status = pthread_create(&handle, nil, { ReadAhead.run($0) }, context)
        #endif
        if status == 0 {
            thread = handle
        } else {
            // No thread: the reader decodes each chunk itself (`decodeInline`).
            Unmanaged<ReadAhead>.fromOpaque(context).release()
        }
    }

    /// Ends the decoding thread (at the end of the file, or as soon as its current chunk is
    /// decoded) and waits for it.
    func stop() {
        free.close(droppingWaiting: true)
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    /// The thread's entry point; `context` is the retained object.
    private static func run(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let context else { return nil }
        Unmanaged<ReadAhead>.fromOpaque(context).takeRetainedValue().produce()
        return nil
    }

    /// The next chunk (valid until the next call), or nil at the end of the file, with the
    /// decoder's `compressedBytesRead` once it was decoded; the chunk handed out before is given
    /// back to the decoding thread.
    func nextChunk() throws -> (chunk: UnsafeRawBufferPointer?, compressedBytesRead: Int64) {
        if thread == nil { return try decodeInline() }
        if let buffer = held.take() { free.put(buffer) }
        // Not closed, so `take` waits until the thread hands something over.
        guard let next = last ?? decoded.take() else { return (nil, decoder.compressedBytesRead) }
        switch next {
        case .chunk(let buffer, let size, let compressedBytesRead):
            held = buffer
            return (UnsafeRawBufferPointer(start: buffers[buffer], count: size), compressedBytesRead)
        case .end(let compressedBytesRead):
            last = next
            return (nil, compressedBytesRead)
        case .failure(let error):
            last = next
            throw error
        }
    }

    // MARK: - Internal machinery

    /// The thread's loop: decode into the next free buffer until the end, an error, or the
    /// reader going away.
    private func produce() {
        while let buffer = free.take() {
            let outcome: Decoded
            do {
                if let size = try decode(into: buffers[buffer]) {
                    outcome = .chunk(buffer: buffer, size: size, compressedBytesRead: decoder.compressedBytesRead)
                } else {
                    outcome = .end(compressedBytesRead: decoder.compressedBytesRead)
                }
            } catch let error as IngestError {
                outcome = .failure(error)
            } catch {
                outcome = .failure(IngestError(code: .readFailed, path: decoder.path, message: "\(error)"))
            }
            decoded.put(outcome)
            guard case .chunk = outcome else { return }
        }
    }

    /// One chunk decoded into `buffer` (a plain file's chunk is copied there); nil at the end.
    private func decode(into buffer: UnsafeMutableRawPointer) throws -> Int? {
        guard let chunk = try decoder.nextChunk(into: UnsafeMutableRawBufferPointer(start: buffer, count: bufferSize)) else {
            return nil
        }
        if let base = chunk.baseAddress, base != UnsafeRawPointer(buffer) { memcpy(buffer, base, chunk.count) }
        return chunk.count
    }

    /// Without a thread: the reader decodes each chunk itself, in the first buffer.
    private func decodeInline() throws -> (chunk: UnsafeRawBufferPointer?, compressedBytesRead: Int64) {
        let size = try decode(into: buffers[0])
        return (size.map { UnsafeRawBufferPointer(start: buffers[0], count: $0) }, decoder.compressedBytesRead)
    }
}
