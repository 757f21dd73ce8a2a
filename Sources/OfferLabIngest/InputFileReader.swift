/// Reads a file as a stream of bytes, decompressing it when it starts with the gzip magic
/// bytes (`1f 8b`), whatever its name.
///
/// Several gzip members back to back (`cat a.gz b.gz`) are one stream. Every failure is an
/// `IngestError` naming the file: a missing or unreadable file (`cannotOpen`, `readFailed`), a
/// bad header, CRC, length or deflate data, or bytes after a member that are not another member
/// (`corruptGzip`), a file that ends inside a member (`truncatedGzip`). Bytes decompressed
/// before the problem was seen are handed out before the error is thrown.
///
/// Members are inflated by zlib or ISA-L (`Inflater`); both hand out the same bytes and detect
/// the same problems. With `readAhead`, a thread of its own decompresses a few chunks ahead of
/// the caller (the same chunks, in the same order), so that one file keeps two cores busy.
///
/// Memory: two buffers of `bufferSize` bytes (with `readAhead`, five), and the inflater's
/// window (32 KiB for zlib, about 200 KiB for ISA-L), whatever the file's size. Not
/// thread-safe: one reader per task.
public final class InputFileReader {
    public let path: String
    /// Whether the file is gzip (detected by its first two bytes).
    public let isGzip: Bool
    /// The library that inflates the file's members.
    public let inflater: Inflater
    /// Bytes read from the file for the chunks handed out so far.
    public private(set) var compressedBytesRead: Int64 = 0
    /// Bytes handed out so far.
    public private(set) var uncompressedBytes: Int64 = 0

    private enum Source {
        case direct(FileDecoder, output: UnsafeMutableRawBufferPointer)
        case readAhead(ReadAhead)

        static func direct(_ decoder: sending FileDecoder, bufferSize: Int) -> sending Source {
            .direct(decoder, output: .allocate(byteCount: max(bufferSize, 1), alignment: 16))
        }
    }

    private let source: Source
    private var state = State.reading

    private enum State {
        case reading
        case finished
        case failed(IngestError)
    }

    /// Opens `path` and reads its first bytes to detect gzip.
    ///
    /// - Parameters:
    ///   - bufferSize: size of the read buffer and of the decompression buffer (at least 2 bytes
    ///     are used whatever the value).
    ///   - inflater: the library for gzip members; one that is not available here makes the
    ///     first member a `corruptGzip` error saying so (check `Inflater.isAvailable` first).
    ///   - readAhead: decompress on a thread of its own, up to four chunks ahead.
    /// - Throws: `IngestError` (`cannotOpen`, `readFailed`).
    public init(path: String, bufferSize: Int = 1 << 20, inflater: Inflater = .fastestAvailable, readAhead: Bool = false) throws {
        self.path = path
        self.inflater = inflater
        (source, isGzip, compressedBytesRead) = try Self.open(path: path, bufferSize: bufferSize, inflater: inflater, readAhead: readAhead)
    }

    /// The file opened, its chunks decoded here or ahead on a thread of its own; whether it is
    /// gzip, and the bytes read to tell.
    private static func open(path: String, bufferSize: Int, inflater: Inflater, readAhead: Bool) throws -> (Source, Bool, Int64) {
        let decoder = try FileDecoder(path: path, bufferSize: bufferSize, inflater: inflater)
        let (isGzip, bytesRead) = (decoder.isGzip, decoder.compressedBytesRead)
        guard readAhead else { return (.direct(decoder, bufferSize: bufferSize), isGzip, bytesRead) }
        do {
            return (.readAhead(try ReadAhead.start(decoder: decoder, bufferSize: bufferSize, depth: 5)), isGzip, bytesRead)
        } catch {
            // No thread for it: decoded here, by a decoder of its own (the first went to the thread
            // that did not start).
            let own = try FileDecoder(path: path, bufferSize: bufferSize, inflater: inflater)
            return (.direct(own, bufferSize: bufferSize), isGzip, bytesRead)
        }
    }

    deinit {
        if case .direct(_, let output) = source { output.deallocate() }
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
            let chunk: UnsafeRawBufferPointer?
            switch source {
            case .direct(let decoder, let output):
                chunk = try decoder.nextChunk(into: output)
                compressedBytesRead = decoder.compressedBytesRead
            case .readAhead(let ahead):
                (chunk, compressedBytesRead) = try ahead.nextChunk()
            }
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
}
