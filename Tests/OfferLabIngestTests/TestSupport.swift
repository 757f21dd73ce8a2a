import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLabIngest

/// `gzip` of `text` as one member, in memory.
func gzipBytes(_ text: String, folder: TemporaryFolder) throws -> [UInt8] {
    let path = try folder.writeGzip("scratch-\(UUID().uuidString).gz", members: [text])
    return try fileBytes(path)
}

/// The inflaters this machine can test: zlib, and ISA-L where `libisal2` is installed.
let testedInflaters = Inflater.allCases.filter(\.isAvailable)

/// Everything an `InputFileReader` hands out.
func readAll(_ path: String, bufferSize: Int = 1 << 20, inflater: Inflater = .zlib) throws -> [UInt8] {
    let reader = try InputFileReader(path: path, bufferSize: bufferSize, inflater: inflater)
    var bytes: [UInt8] = []
    try reader.forEachChunk { chunk in
        #expect(!chunk.isEmpty)
        bytes.append(contentsOf: chunk)
    }
    return bytes
}

/// Runs `body` on the UTF-8 bytes of `text`.
func withBytes<R>(_ text: String, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try Array(text.utf8).withUnsafeBytes(body)
}

extension String {
    init(_ bytes: UnsafeRawBufferPointer) { self = String(decoding: bytes, as: UTF8.self) }
}
