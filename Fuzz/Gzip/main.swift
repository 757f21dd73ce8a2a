// Fuzz target `gzip`: `InputFileReader`, the streaming gzip reader, against a reference that
// inflates the whole file in memory with zlib.
//
// The first byte picks the read buffer size; the rest is the file. Checks, with each inflater
// this machine has: no crash; with a tiny buffer and with a large one, the reader ends the same
// way as the reference (complete, corrupt, truncated) and hands out exactly its bytes (ISA-L in
// a damaged or cut file excepted: it fails too, but how much it hands out before, and whether
// it finds the file corrupt or cut, depend on its buffers, see `LogFileScanner.scanCSV`); its
// byte counters add up.

import CZlib

enum Ending: Equatable {
    case complete
    case failed(IngestError.Code)
}

/// Members back to back, all input at once; a file not starting with the magic bytes is plain.
func referenceRead(_ file: [UInt8]) -> (bytes: [UInt8], ending: Ending) {
    guard file.count >= 2, file[0] == 0x1f, file[1] == 0x8b else { return (file, .complete) }
    var stream = z_stream()
    guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        return ([], .failed(.corruptGzip))
    }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    return file.withUnsafeBytes { raw -> (bytes: [UInt8], ending: Ending) in
        guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return (file, .complete) }
        var position = 0
        while position < file.count {
            guard file.count - position >= 2, file[position] == 0x1f, file[position + 1] == 0x8b else {
                return (output, .failed(.corruptGzip))
            }
            stream.next_in = UnsafeMutablePointer(mutating: base + position)
            stream.avail_in = uInt(file.count - position)
            while true {
                let status = buffer.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                output.append(contentsOf: buffer[0..<(buffer.count - Int(stream.avail_out))])
                if status == Z_STREAM_END { break }
                if status == Z_BUF_ERROR && stream.avail_in == 0 { return (output, .failed(.truncatedGzip)) }
                if status != Z_OK { return (output, .failed(.corruptGzip)) }
            }
            position = file.count - Int(stream.avail_in)
            inflateReset(&stream)
        }
        return (output, .complete)
    }
}

func read(_ path: String, bufferSize: Int, inflater: Inflater, fileSize: Int) -> (bytes: [UInt8], ending: Ending) {
    var bytes: [UInt8] = []
    do {
        let reader = try InputFileReader(path: path, bufferSize: bufferSize, inflater: inflater)
        do {
            try reader.forEachChunk { chunk in
                require(!chunk.isEmpty, "an empty chunk")
                bytes.append(contentsOf: chunk)
            }
        } catch let error as IngestError {
            require(reader.uncompressedBytes == Int64(bytes.count), "uncompressedBytes")
            return (bytes, .failed(error.code))
        }
        require(reader.uncompressedBytes == Int64(bytes.count), "uncompressedBytes")
        require(reader.compressedBytesRead == Int64(fileSize), "compressedBytesRead \(reader.compressedBytesRead) of \(fileSize)")
    } catch let error as IngestError {
        return (bytes, .failed(error.code))
    } catch {
        require(false, "unexpected error \(error)")
    }
    return (bytes, .complete)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let bufferSize = input.pick([1, 2, 3, 5, 16, 64, 512])
    let file = Array(input.rest)
    let path = ScratchFile.write(input.rest, name: "log.gz")
    let expected = referenceRead(file)
    for inflater in Inflater.allCases where inflater.isAvailable {
        for size in [bufferSize, 1 << 16] {
            let actual = read(path, bufferSize: size, inflater: inflater, fileSize: file.count)
            // ISA-L in a damaged or cut file: it fails too, but how much it hands out first, and
            // whether it finds the file corrupt or cut, depend on its buffers (docs/reliability.md).
            if inflater == .isal && expected.ending != .complete {
                require(actual.ending != .complete, "isal, buffer \(size): complete, reference: \(expected.ending)")
                continue
            }
            require(actual.ending == expected.ending, "\(inflater), buffer \(size): \(actual.ending), reference: \(expected.ending)")
            require(
                actual.bytes == expected.bytes,
                "\(inflater), buffer \(size): \(actual.bytes.count) bytes, reference: \(expected.bytes.count)")
        }
    }
    return 0
}
