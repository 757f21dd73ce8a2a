import Foundation
import Testing
@testable import OfferLabIngest

@Suite struct GzipRoundTripTests {
    @Test func multiMemberFileReadsAsOneStream() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mm-\(UUID()).gz").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try GzipWriter(path: path)
        try writer.write("first line\nsecond ")
        try writer.finishMember()
        try writer.write("half\nthird\n")
        try writer.finish()
        let reader = try InputFileReader(path: path, bufferSize: 7)
        var bytes: [UInt8] = []
        try reader.forEachChunk { bytes.append(contentsOf: $0) }
        #expect(reader.isGzip)
        #expect(String(decoding: bytes, as: UTF8.self) == "first line\nsecond half\nthird\n")
    }
}
