import Foundation
import OfferLabGenerate
import Testing
@testable import OfferLabIngest

/// A temporary folder removed when the value is released.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("offerlab-ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `bytes` as they are to `name`; returns the path.
    @discardableResult
    func write(_ name: String, bytes: [UInt8]) throws -> String {
        let path = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @discardableResult
    func write(_ name: String, text: String) throws -> String {
        try write(name, bytes: Array(text.utf8))
    }

    /// Writes `members` as consecutive gzip members to `name`; returns the path.
    @discardableResult
    func writeGzip(_ name: String, members: [String]) throws -> String {
        let path = path(name)
        let writer = try GzipWriter(path: path)
        for member in members {
            try writer.write(member)
            try writer.finishMember()
        }
        try writer.finish()
        return path
    }
}

/// The bytes of a file.
func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

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
