/// Internal machinery of `InputFileReader(readAhead: true)`: a thread of its own decodes the
/// file into a ring of buffers, a few chunks ahead of the reader, so that inflating and parsing
/// one file keep two cores busy.
///
/// The chunks are the ones the file decoder produces, in the same order; an error reaches the
/// reader after every chunk decoded before it. The decoder is the thread's alone. The buffers go
/// round through two queues: free ones to the thread, decoded ones to the reader, which gives
/// each back at its next call; so each is written by one side at a time.
final class ReadAhead {
    /// What the thread hands the reader: a decoded chunk (its buffer, its size, the decoder's
    /// `compressedBytesRead` after it), then the end or an error.
    private enum Decoded: Sendable {
        case chunk(buffer: Int, size: Int, compressedBytesRead: Int64)
        case end(compressedBytesRead: Int64)
        case failure(IngestError)
    }

    private let buffers: [SharedMemory]
    /// Buffers the thread may decode into (their indices).
    private let free: BlockingQueue<Int>
    /// Decoded chunks in file order, then the end or the error.
    private let decoded: BlockingQueue<Decoded>
    private let thread: ConcurrentWork<Never>
    /// The reader's: the buffer it holds, and the end or error once seen.
    private var held: Int?
    private var last: Decoded?

    /// Starts decoding `decoder` on a thread of its own.
    /// - Parameters:
    ///   - bufferSize: the decoder's output size (an inflated chunk is up to that long).
    ///   - depth: how many chunks may be decoded ahead, the one the reader holds included.
    /// - Throws: `ThreadUnavailable`: then the reader decodes the file itself.
    static func start(decoder: sending FileDecoder, bufferSize: Int, depth: Int) throws(ThreadUnavailable) -> sending ReadAhead {
        let depth = max(depth, 2)
        // An inflated chunk fills up to `outputSize` bytes; a plain file's is copied whole from
        // the decoder's read buffer, which may be larger.
        let outputSize = max(bufferSize, 2)
        let buffers = (0..<depth).map { _ in SharedMemory(byteCount: max(outputSize, decoder.inputCapacity)) }
        let free = BlockingQueue<Int>(capacity: depth)
        for buffer in 0..<depth { free.put(buffer) }
        // Every buffer, and the end after them: the thread never waits to hand a chunk over.
        let decoded = BlockingQueue<Decoded>(capacity: depth + 1)
        let thread = try ConcurrentWork { produce(decoder, into: buffers, outputSize: outputSize, free: free, decoded: decoded) }
        return ReadAhead(buffers: buffers, free: free, decoded: decoded, thread: thread)
    }

    private init(buffers: [SharedMemory], free: BlockingQueue<Int>, decoded: BlockingQueue<Decoded>, thread: ConcurrentWork<Never>) {
        (self.buffers, self.free, self.decoded, self.thread) = (buffers, free, decoded, thread)
    }

    /// Ends the decoding thread (at the end of the file, or as soon as its current chunk is
    /// decoded) and waits for it.
    deinit {
        free.close(droppingWaiting: true)
        thread.wait()
    }

    /// The next chunk (valid until the next call), or nil at the end of the file, with the
    /// decoder's `compressedBytesRead` once it was decoded; the chunk handed out before is given
    /// back to the decoding thread.
    func nextChunk() throws -> (chunk: UnsafeRawBufferPointer?, compressedBytesRead: Int64) {
        if let buffer = held.take() { free.put(buffer) }
        // Never closed while the reader reads: `take` waits until the thread hands something over.
        guard let next = last ?? decoded.take() else { preconditionFailure("the decoding thread ended without an end") }
        switch next {
        case .chunk(let buffer, let size, let compressedBytesRead):
            held = buffer
            return (UnsafeRawBufferPointer(rebasing: buffers[buffer].bytes[..<size]), compressedBytesRead)
        case .end(let compressedBytesRead):
            last = next
            return (nil, compressedBytesRead)
        case .failure(let error):
            last = next
            throw error
        }
    }

    /// The thread's loop: decode into the next free buffer until the end, an error, or the
    /// reader going away.
    private static func produce(
        _ decoder: FileDecoder, into buffers: [SharedMemory], outputSize: Int, free: BlockingQueue<Int>, decoded: BlockingQueue<Decoded>
    ) {
        while let buffer = free.take() {
            let outcome: Decoded
            do {
                if let size = try decode(decoder, into: buffers[buffer].writableBytes, outputSize: outputSize) {
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

    /// One chunk decoded into `buffer`: inflated into its first `outputSize` bytes, or a plain
    /// file's copied there; nil at the end.
    private static func decode(_ decoder: FileDecoder, into buffer: UnsafeMutableRawBufferPointer, outputSize: Int) throws -> Int? {
        guard let chunk = try decoder.nextChunk(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<outputSize])) else { return nil }
        if chunk.baseAddress != UnsafeRawPointer(buffer.baseAddress) { buffer.copyMemory(from: chunk) }
        return chunk.count
    }
}
