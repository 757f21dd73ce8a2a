import CZlib

/// Walks the members of a gzip file one by one, for tests that must see member boundaries
/// (the product's reader hides them on purpose).
enum GzipMembers {
    struct Failure: Error {}

    /// The uncompressed size of each member, in order.
    static func uncompressedSizes(of bytes: [UInt8]) throws -> [Int] {
        var sizes: [Int] = []
        var offset = 0
        var output = [UInt8](repeating: 0, count: 1 << 16)
        var input = bytes
        while offset < input.count {
            var stream = z_stream()
            guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw Failure()
            }
            defer { inflateEnd(&stream) }
            var produced = 0
            var status: Int32 = Z_OK
            try input.withUnsafeMutableBufferPointer { inBuffer in
                stream.next_in = inBuffer.baseAddress! + offset
                stream.avail_in = uInt(inBuffer.count - offset)
                while status != Z_STREAM_END {
                    status = output.withUnsafeMutableBufferPointer { outBuffer in
                        stream.next_out = outBuffer.baseAddress!
                        stream.avail_out = uInt(outBuffer.count)
                        let result = inflate(&stream, Z_NO_FLUSH)
                        produced += outBuffer.count - Int(stream.avail_out)
                        return result
                    }
                    guard status == Z_OK || status == Z_STREAM_END else { throw Failure() }
                }
                offset = inBuffer.count - Int(stream.avail_in)
            }
            sizes.append(produced)
        }
        return sizes
    }
}
