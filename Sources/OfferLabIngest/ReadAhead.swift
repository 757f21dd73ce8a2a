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
/// reader after every chunk decoded before it. The thread owns the `FileDecoder`; the shared
/// state below is only touched under `mutex`.
final class ReadAhead: @unchecked Sendable {
    private let decoder: FileDecoder
    private let buffers: [UnsafeMutableRawPointer]
    private let bufferSize: Int
    private var sizes: [Int]
    /// `compressedBytesRead` of the decoder after each buffered chunk.
    private var compressedAfter: [Int64]

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Chunks decoded, and chunks the reader has given back: `produced - released` buffers
    /// are in use.
    private var produced = 0
    private var released = 0
    /// Chunks handed to the reader.
    private var consumed = 0
    private var finished = false
    private var finalCompressedBytesRead: Int64 = 0
    private var failure: IngestError?
    private var stopping = false
    private var thread: pthread_t?

    /// - Parameters:
    ///   - bufferSize: the decoder's buffer size (a plain file's chunk is up to that long).
    ///   - depth: how many chunks may be decoded ahead, the one the reader holds included.
    init(decoder: FileDecoder, bufferSize: Int, depth: Int) {
        self.decoder = decoder
        self.bufferSize = max(bufferSize, 2)
        let depth = max(depth, 2)
        buffers = (0..<depth).map { [size = self.bufferSize] _ in UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16) }
        sizes = Array(repeating: 0, count: depth)
        compressedAfter = Array(repeating: 0, count: depth)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        changed.deallocate()
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
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
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
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if consumed > released {
            released += 1
            pthread_cond_broadcast(changed)
        }
        while consumed == produced && !finished && failure == nil { pthread_cond_wait(changed, mutex) }
        if consumed < produced {
            let slot = consumed % buffers.count
            consumed += 1
            return (UnsafeRawBufferPointer(start: buffers[slot], count: sizes[slot]), compressedAfter[slot])
        }
        if let failure { throw failure }
        return (nil, finalCompressedBytesRead)
    }

    // MARK: - Internal machinery

    /// The thread's loop: decode into the next free buffer until the end, an error, or the
    /// reader going away.
    private func produce() {
        while true {
            pthread_mutex_lock(mutex)
            while produced - released == buffers.count && !stopping { pthread_cond_wait(changed, mutex) }
            let slot = produced % buffers.count
            let stop = stopping
            pthread_mutex_unlock(mutex)
            if stop { return }
            let outcome: Result<Int?, IngestError>
            do {
                outcome = .success(try decode(into: buffers[slot]))
            } catch let error as IngestError {
                outcome = .failure(error)
            } catch {
                outcome = .failure(IngestError(code: .readFailed, path: decoder.path, message: "\(error)"))
            }
            pthread_mutex_lock(mutex)
            switch outcome {
            case .success(let size?):
                sizes[slot] = size
                compressedAfter[slot] = decoder.compressedBytesRead
                produced += 1
            case .success(nil):
                finished = true
                finalCompressedBytesRead = decoder.compressedBytesRead
            case .failure(let error):
                failure = error
            }
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
            if case .success(let size) = outcome, size != nil { continue }
            return
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
