/// Writes a cache entry's words, arrays and byte strings (little-endian, each array and string
/// after its count): the parsed-log cache's entries and the store files' readings it keeps.
public struct CacheEntryWriter {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public mutating func append<Word: FixedWidthInteger>(_ word: Word) {
        withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// The count, then the elements' bytes as they are in memory.
    public mutating func appendArray<Element>(_ array: [Element]) {
        append(Int64(array.count))
        array.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    public mutating func append(bytesOf string: some Collection<UInt8>) {
        append(Int64(string.count))
        bytes.append(contentsOf: string)
    }
}

/// Reads a cache entry written by `CacheEntryWriter`, every read checked against its end.
public struct CacheEntryReader {
    /// The entry is not one its writer wrote (cut short, or another layout).
    public struct Damaged: Error {
        public init() {}
    }

    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    public var remaining: Int { bytes.count - offset }

    public mutating func bytes(count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw Damaged() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    public mutating func read<Word: FixedWidthInteger>(_: Word.Type) throws -> Word {
        Word(littleEndian: try bytes(count: MemoryLayout<Word>.size).loadUnaligned(as: Word.self))
    }

    public mutating func count() throws -> Int {
        let count = try read(Int64.self)
        guard count >= 0, count <= remaining else { throw Damaged() }
        return Int(count)
    }

    public mutating func readArray<Element>() throws -> [Element] {
        let count = try count()
        let source = try bytes(count: count * MemoryLayout<Element>.stride)
        return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: source.baseAddress!, byteCount: source.count) }
            initialized = count
        }
    }

    public mutating func bytesWithLength() throws -> UnsafeRawBufferPointer {
        try bytes(count: try count())
    }
}
