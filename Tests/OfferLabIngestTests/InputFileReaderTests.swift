import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLabIngest

/// Every gzip test runs with each inflater this machine has (zlib always; ISA-L when
/// `libisal2` is installed, as `scripts/install-deps.sh` does).
@Suite struct InputFileReaderTests {
    /// `printf '{"a":1}\n{"b":2}\n' | gzip -n -9`, made by the system gzip (not by GzipWriter).
    static let systemGzip: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0x4a, 0x54, 0xb2, 0x32, 0xac, 0xe5,
        0xaa, 0x56, 0x4a, 0x52, 0xb2, 0x32, 0xaa, 0xe5, 0x02, 0x00, 0xc8, 0xb2, 0xce, 0x9f, 0x10, 0x00, 0x00, 0x00,
    ]

    @Test(arguments: [1, 2, 3, 7, 1 << 20])
    func plainFileIsHandedOutAsItIs(bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        let text = "first line\nsecond line\r\nno newline"
        let path = try folder.write("plain.jsonl", text)
        let reader = try InputFileReader(path: path, bufferSize: bufferSize)
        var bytes: [UInt8] = []
        try reader.forEachChunk { bytes.append(contentsOf: $0) }
        #expect(!reader.isGzip)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
        #expect(reader.compressedBytesRead == Int64(text.utf8.count))
        #expect(reader.uncompressedBytes == Int64(text.utf8.count))
    }

    @Test(arguments: testedInflaters)
    func gzipIsDetectedByMagicBytesNotByName(inflater: Inflater) throws {
        let folder = try TemporaryFolder()
        let gzipped = try folder.writeGzip("table.csv", members: ["id,name\n1,a\n"])
        let plain = try folder.write("table.csv.gz", "id,name\n1,a\n")
        let gzipReader = try InputFileReader(path: gzipped, inflater: inflater)
        #expect(gzipReader.isGzip)
        #expect(gzipReader.inflater == inflater)
        #expect(try readAll(gzipped, inflater: inflater) == Array("id,name\n1,a\n".utf8))
        let plainReader = try InputFileReader(path: plain)
        #expect(!plainReader.isGzip)
        #expect(try readAll(plain) == Array("id,name\n1,a\n".utf8))
    }

    @Test(arguments: testedInflaters)
    func readsWhatTheSystemGzipWrites(inflater: Inflater) throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("system.gz", bytes: Self.systemGzip)
        #expect(try readAll(path, inflater: inflater) == Array("{\"a\":1}\n{\"b\":2}\n".utf8))
        let reader = try InputFileReader(path: path, inflater: inflater)
        try reader.forEachChunk { _ in }
        #expect(reader.compressedBytesRead == Int64(Self.systemGzip.count))
        #expect(reader.uncompressedBytes == 16)
    }

    @Test(arguments: testedInflaters)
    func headerWithAFileNameAndComment(inflater: Inflater) throws {
        // FNAME (0x08) and FCOMMENT (0x10), as `gzip` writes without `-n`.
        var bytes = Self.systemGzip
        bytes[3] = 0x18
        bytes.insert(contentsOf: Array("events.jsonl\0a comment\0".utf8), at: 10)
        let folder = try TemporaryFolder()
        let path = try folder.write("named.gz", bytes: bytes)
        for bufferSize in [1, 4, 1 << 20] {
            #expect(try readAll(path, bufferSize: bufferSize, inflater: inflater) == Array("{\"a\":1}\n{\"b\":2}\n".utf8))
        }
    }

    @Test(arguments: testedInflaters, [1, 2, 3, 5, 7, 64, 1 << 20])
    func multiMemberFileIsOneStreamWithABoundaryInsideALine(inflater: Inflater, bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        let path = try folder.writeGzip("mm.gz", members: ["first line\nsecond ", "half\nthird\n", "", "last"])
        let reader = try InputFileReader(path: path, bufferSize: bufferSize, inflater: inflater)
        var bytes: [UInt8] = []
        try reader.forEachChunk { bytes.append(contentsOf: $0) }
        #expect(reader.isGzip)
        #expect(String(decoding: bytes, as: UTF8.self) == "first line\nsecond half\nthird\nlast")
        #expect(reader.uncompressedBytes == Int64(bytes.count))
        #expect(reader.compressedBytesRead == Int64(try fileBytes(path).count))
    }

    @Test(arguments: testedInflaters)
    func concatenatedFilesAreOneStream(inflater: Inflater) throws {
        // `cat a.gz b.gz`, where b.gz comes from the system gzip.
        let folder = try TemporaryFolder()
        let first = try gzipBytes("{\"z\":0}\n{\"y\":", folder: folder)
        let path = try folder.write("cat.gz", bytes: first + Self.systemGzip)
        #expect(
            String(decoding: try readAll(path, bufferSize: 3, inflater: inflater), as: UTF8.self)
                == "{\"z\":0}\n{\"y\":{\"a\":1}\n{\"b\":2}\n")
    }

    @Test(arguments: testedInflaters, [16, 4096])
    func largeStreamsRoundTrip(inflater: Inflater, bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        var members: [String] = []
        var expected = ""
        for member in 0..<5 {
            var text = ""
            for line in 0..<2_000 {
                text += "{\"member\":\(member),\"line\":\(line),\"pad\":\"\(String(repeating: "x", count: line % 37))\"}\n"
            }
            members.append(text)
            expected += text
        }
        let path = try folder.writeGzip("large.jsonl.gz", members: members)
        #expect(try readAll(path, bufferSize: bufferSize, inflater: inflater) == Array(expected.utf8))
    }

    @Test func emptyFileHasNoChunks() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("empty.jsonl", bytes: [])
        let reader = try InputFileReader(path: path)
        #expect(!reader.isGzip)
        #expect(try reader.nextChunk() == nil)
        #expect(try reader.nextChunk() == nil)
        #expect(reader.compressedBytesRead == 0)
        #expect(reader.uncompressedBytes == 0)
    }

    @Test func oneByteFileIsPlain() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("one.gz", bytes: [0x1f])
        #expect(!(try InputFileReader(path: path)).isGzip)
        #expect(try readAll(path, bufferSize: 1) == [0x1f])
    }

    @Test func missingFileIsAnErrorNamingIt() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("nowhere/missing.jsonl.gz")
        let error = #expect(throws: IngestError.self) { try InputFileReader(path: path) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.path == path)
        #expect(error?.description.hasPrefix(path + ": cannot open") == true)
    }

    @Test func directoryIsAnErrorNamingIt() throws {
        let folder = try TemporaryFolder()
        let error = #expect(throws: IngestError.self) { try readAll(folder.path) }
        #expect(error?.code == .readFailed || error?.code == .cannotOpen)
        #expect(error?.path == folder.path)
    }

    @Test(arguments: testedInflaters, [3, 1 << 20])
    func badCRCIsCorrupt(inflater: Inflater, bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        var bytes = try gzipBytes("some text\nmore text\n", folder: folder)
        bytes[bytes.count - 8] ^= 0xFF  // the first byte of the CRC-32 in the trailer
        let path = try folder.write("bad-crc.jsonl.gz", bytes: bytes)
        let error = #expect(throws: IngestError.self) { try readAll(path, bufferSize: bufferSize, inflater: inflater) }
        #expect(error?.code == .corruptGzip)
        #expect(error?.path == path)
        #expect(error?.message.contains("incorrect data check") == true)
    }

    @Test(arguments: testedInflaters)
    func badLengthIsCorrupt(inflater: Inflater) throws {
        let folder = try TemporaryFolder()
        var bytes = try gzipBytes("some text\n", folder: folder)
        bytes[bytes.count - 1] ^= 0x01  // ISIZE
        let path = try folder.write("bad-length.gz", bytes: bytes)
        let error = #expect(throws: IngestError.self) { try readAll(path, inflater: inflater) }
        #expect(error?.code == .corruptGzip)
    }

    @Test(arguments: testedInflaters)
    func badHeaderIsCorrupt(inflater: Inflater) throws {
        let folder = try TemporaryFolder()
        var bytes = try gzipBytes("some text\n", folder: folder)
        bytes[2] = 0x07  // compression method: only 8 (deflate) exists
        let path = try folder.write("bad-header.gz", bytes: bytes)
        let error = #expect(throws: IngestError.self) { try readAll(path, inflater: inflater) }
        #expect(error?.code == .corruptGzip)
        #expect(error?.path == path)
        #expect(error?.byteOffset != nil)
    }

    /// Found by comparing the inflaters (`gzip` fuzz target): ISA-L ignores a header's reserved
    /// flag bits, which zlib rejects; such a file is corrupt with both, whatever the buffer.
    @Test(arguments: testedInflaters, [1, 3, 1 << 20])
    func reservedHeaderFlagsAreCorrupt(inflater: Inflater, bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        for flag: UInt8 in [0x20, 0x40, 0x80] {
            var bytes = try gzipBytes("some text\n", folder: folder)
            bytes[3] |= flag
            let path = try folder.write("reserved-flags.gz", bytes: bytes)
            let error = #expect(throws: IngestError.self) { try readAll(path, bufferSize: bufferSize, inflater: inflater) }
            #expect(error?.code == .corruptGzip)
            #expect(error?.message.contains("unknown header flags set") == true)
        }
    }

    @Test(arguments: testedInflaters)
    func badDeflateDataIsCorrupt(inflater: Inflater) throws {
        let folder = try TemporaryFolder()
        var bytes = try gzipBytes(String(repeating: "abcdefgh", count: 100), folder: folder)
        bytes[10] = 0xFF  // first deflate byte: block type 3 (reserved)
        let path = try folder.write("bad-data.gz", bytes: bytes)
        let error = #expect(throws: IngestError.self) { try readAll(path, inflater: inflater) }
        #expect(error?.code == .corruptGzip)
    }

    /// Found by the `log-file` fuzz target: zlib can decode bytes and find damage in the same
    /// call; those bytes used to be dropped with a large buffer and handed out with a small one
    /// (so a CSV log's header problem or the gzip error came first depending on the buffer).
    @Test(arguments: [3, 1 << 20])
    func bytesBeforeTheDamageAreHandedOutWhateverTheBufferSize(bufferSize: Int) throws {
        // A stored block holding "hello\n", then a block of the reserved type 3.
        let member: [UInt8] =
            [0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03, 0x00, 0x06, 0x00, 0xf9, 0xff] + Array("hello\n".utf8) + [0x07]
        let folder = try TemporaryFolder()
        let path = try folder.write("damaged.gz", bytes: member)
        let reader = try InputFileReader(path: path, bufferSize: bufferSize)
        var bytes: [UInt8] = []
        let error = #expect(throws: IngestError.self) { try reader.forEachChunk { bytes.append(contentsOf: $0) } }
        #expect(error?.code == .corruptGzip)
        #expect(error?.message.contains("invalid block type") == true)
        #expect(bytes == Array("hello\n".utf8))
        #expect(throws: IngestError.self) { try reader.nextChunk() }
    }

    /// Found by the `table` fuzz target (it failed only after other inputs): on a match that
    /// reaches back before the member's start, ISA-L's decoder can copy from its own state's
    /// memory before it reports the damage. Reading a file must not hand out whatever the
    /// process freed there before, so the heap is filled with two different bytes (glibc's
    /// `M_PERTURB` fills each `malloc` block) and both reads must agree.
    @Test(.enabled(if: Inflater.isalAvailable))
    func bytesBeforeTheDamageDoNotDependOnWhatTheProcessFreed() throws {
        // One fixed-Huffman block: "id\nu1\n", a copy of 200 bytes from 100 back, "\nu2\n".
        let member: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x4c, 0xe1, 0x2a, 0x35, 0xe4, 0x1a, 0x2e,
            0x76, 0x70, 0x95, 0x1a, 0x71, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ]
        let folder = try TemporaryFolder()
        let path = try folder.write("far-back.gz", bytes: member)
        // glibc's `mallopt` (not in the Glibc module); `M_PERTURB` (-6) with value v fills each
        // block `malloc` hands out with v ^ 0xff.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(try #require(dlsym(nil, "mallopt")), to: Mallopt.self)
        func read(withFreshMemoryHolding byte: UInt8) throws -> [UInt8] {
            _ = mallopt(-6, Int32(byte ^ 0xff))
            defer { _ = mallopt(-6, 0) }
            let reader = try InputFileReader(path: path, bufferSize: 1 << 16, inflater: .isal)
            var bytes: [UInt8] = []
            let error = #expect(throws: IngestError.self) { try reader.forEachChunk { bytes.append(contentsOf: $0) } }
            #expect(error?.code == .corruptGzip)
            return bytes
        }
        let newlines = try read(withFreshMemoryHolding: 0x0a)
        let letters = try read(withFreshMemoryHolding: 0x41)
        #expect(newlines.starts(with: Array("id\nu1\n".utf8)))
        #expect(newlines == letters)
    }

    /// Every cut of a member, from just after the magic bytes to one byte short of the end.
    @Test(arguments: testedInflaters, [4, 1 << 20])
    func fileCutInsideAMemberIsTruncated(inflater: Inflater, bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        let whole = try gzipBytes("{\"ts\":1}\n{\"ts\":2}\n", folder: folder)
        let first = try gzipBytes("ok\n", folder: folder)
        for cut in 2..<whole.count {
            let path = try folder.write("cut-\(cut).gz", bytes: first + Array(whole[0..<cut]))
            let error = #expect(throws: IngestError.self) { try readAll(path, bufferSize: bufferSize, inflater: inflater) }
            #expect(error?.code == .truncatedGzip, "cut at \(cut)")
            #expect(error?.path == path)
        }
    }

    @Test(arguments: testedInflaters, [[UInt8](Array("junk".utf8)), [0x1f], [0x00, 0x00, 0x00, 0x00], [0x0a]])
    func trailingGarbageIsCorrupt(inflater: Inflater, garbage: [UInt8]) throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("trailing.gz", bytes: try gzipBytes("a\n", folder: folder) + garbage)
        for bufferSize in [1, 2, 1 << 20] {
            let error = #expect(throws: IngestError.self) { try readAll(path, bufferSize: bufferSize, inflater: inflater) }
            #expect(error?.code == .corruptGzip)
            #expect(error?.message.contains("not gzip") == true)
        }
    }

    @Test(arguments: testedInflaters)
    func anErrorIsThrownAgainOnTheNextCall(inflater: Inflater) throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("trailing.gz", bytes: try gzipBytes("a\n", folder: folder) + Array("junk".utf8))
        let reader = try InputFileReader(path: path, inflater: inflater)
        #expect(try reader.nextChunk().map { Array($0) } == Array("a\n".utf8))
        #expect(throws: IngestError.self) { try reader.nextChunk() }
        #expect(throws: IngestError.self) { try reader.nextChunk() }
    }

    @Test func errorDescriptionNamesFileLineAndOffset() {
        let error = IngestError(code: .corruptGzip, path: "logs/a.gz", message: "corrupt gzip file: x", byteOffset: 12, line: 3)
        #expect(error.description == "logs/a.gz:3: corrupt gzip file: x (at compressed byte 12)")
    }
}

@Suite struct GzipWriterTests {
    @Test func everyWriteOverloadAndMembersRoundTrip() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("out.gz")
        let writer = try GzipWriter(path: path, level: 1)
        try writer.write("text,")
        try writer.write([0x62, 0x79, 0x74, 0x65, 0x73, 0x2C])  // bytes,
        try Array("raw".utf8).withUnsafeBytes { try writer.write($0) }
        try writer.finishMember()
        try writer.finishMember()  // no open member: nothing
        try writer.write("\nsecond member\n")
        try writer.finish()
        #expect(try readAll(path) == Array("text,bytes,raw\nsecond member\n".utf8))
        // Two members: the second starts with the magic bytes right after the first's trailer.
        let bytes = try fileBytes(path)
        let magicCount = (0..<(bytes.count - 2)).filter { bytes[$0] == 0x1f && bytes[$0 + 1] == 0x8b && bytes[$0 + 2] == 0x08 }.count
        #expect(magicCount >= 2)
    }

    @Test func cannotCreateIsAnErrorNamingTheFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("missing-folder/out.gz")
        let error = #expect(throws: IngestError.self) { try GzipWriter(path: path) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.path == path)
    }
}

/// `readAhead` decompresses on a thread of its own: the caller must see exactly what it sees
/// without it, chunk for chunk, error for error.
@Suite struct ReadAheadTests {
    /// Every chunk and the error (if any) that a reader hands out, and its final counters.
    static func transcript(_ path: String, bufferSize: Int, inflater: Inflater, readAhead: Bool) throws -> [String] {
        let reader = try InputFileReader(path: path, bufferSize: bufferSize, inflater: inflater, readAhead: readAhead)
        var lines: [String] = []
        do {
            while let chunk = try reader.nextChunk() { lines.append("chunk \(Array(chunk))") }
            lines.append("end")
            #expect(try reader.nextChunk() == nil)
        } catch let error as IngestError {
            lines.append("error \(error.code) \(error.message) \(error.byteOffset ?? -1)")
        }
        lines.append("counters \(reader.compressedBytesRead) \(reader.uncompressedBytes)")
        return lines
    }

    @Test(arguments: testedInflaters, [2, 7, 64, 1 << 20])
    func sameChunksAndErrorsAsWithout(inflater: Inflater, bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        var large = ""
        for line in 0..<3_000 { large += "{\"line\":\(line),\"pad\":\"\(String(repeating: "y", count: line % 41))\"}\n" }
        let whole = try gzipBytes("{\"ts\":1}\n{\"ts\":2}\n", folder: folder)
        var badCRC = try gzipBytes("some text\nmore text\n", folder: folder)
        badCRC[badCRC.count - 8] ^= 0xFF
        let paths = [
            try folder.writeGzip("members.gz", members: ["first line\nsecond ", "half\n", "", large, "last"]),
            try folder.write("plain.jsonl", large),
            try folder.write("empty.jsonl", bytes: []),
            try folder.write("cut.gz", bytes: Array(whole[0..<(whole.count - 3)])),
            try folder.write("crc.gz", bytes: badCRC),
            try folder.write("trailing.gz", bytes: whole + Array("junk".utf8)),
        ]
        for path in paths {
            let direct = try Self.transcript(path, bufferSize: bufferSize, inflater: inflater, readAhead: false)
            let ahead = try Self.transcript(path, bufferSize: bufferSize, inflater: inflater, readAhead: true)
            #expect(direct == ahead, "\(path)")
        }
    }

    /// A reader released before the end stops its thread (no hang, no leak of the file).
    @Test(arguments: testedInflaters)
    func abandoningAReaderStopsItsThread(inflater: Inflater) throws {
        let folder = try TemporaryFolder()
        let path = try folder.writeGzip("big.gz", members: [String(repeating: "0123456789abcdef\n", count: 100_000)])
        for _ in 0..<20 {
            let reader = try InputFileReader(path: path, bufferSize: 256, inflater: inflater, readAhead: true)
            #expect(try reader.nextChunk() != nil)
        }
    }
}
