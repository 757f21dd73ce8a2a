import Foundation
import OfferLabIngest
import Testing

@testable import OfferLabGenerate

@Suite struct LogFileTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("logfile-\(UUID().uuidString).jsonl.gz").path
    }

    @Test func membersCRLFAndMissingFinalNewline() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = LogFile(path: path, format: .jsonLines, usesCRLF: true, omitsFinalNewline: true, memberSize: 1000, level: 6)
        var expected = ""
        for index in 0..<300 {
            let line = #"{"n":\#(index),"pad":"\#(String(repeating: "x", count: index % 37))"}"#
            try file.appendLine(Array(line.utf8))
            expected += (index > 0 ? "\r\n" : "") + line
            if index == 100 {
                file.appendBlankLine()
                expected += "\r\n"
            }
        }
        #expect(try file.finish())
        let raw = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let members = try GzipMembers.uncompressedSizes(of: raw)
        #expect(members.count == file.members)
        #expect(members.count > 5)
        #expect(members.first == 1000)
        let reader = try InputFileReaderBytes.read(path)
        #expect(String(decoding: reader, as: UTF8.self) == expected)
        #expect(file.lines == 300)
        #expect(file.blankLines == 1)
    }

    @Test func aFileWithoutLinesIsNotCreated() throws {
        let path = temporaryPath()
        let file = LogFile(path: path, format: .csv, usesCRLF: false, omitsFinalNewline: false, memberSize: nil, level: 1)
        #expect(try file.finish() == false)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func csvFilesStartWithTheirHeader() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = LogFile(path: path, format: .csv, usesCRLF: false, omitsFinalNewline: false, memberSize: nil, level: 1)
        try file.appendLine(Array("a,b".utf8))
        try file.finish()
        let text = String(decoding: try InputFileReaderBytes.read(path), as: UTF8.self)
        #expect(text == "\(LogFile.csvHeader)\na,b\n")
    }
}

enum InputFileReaderBytes {
    static func read(_ path: String) throws -> [UInt8] {
        let reader = try InputFileReader(path: path, bufferSize: 333)
        var bytes: [UInt8] = []
        try reader.forEachChunk { bytes.append(contentsOf: $0) }
        return bytes
    }
}
