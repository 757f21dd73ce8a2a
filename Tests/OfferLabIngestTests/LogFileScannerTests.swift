import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLabIngest

/// What a scan handed out, as plain values.
struct ScanResult: Sendable {
    var records: [(line: Int, user: String, type: EventType?, timestamp: Int64)] = []
    var malformed: [(line: Int, reason: MalformedReason, bytes: String)] = []
    var summary: LogFileSummary?
}

func scanLog(_ path: String, maxLineLength: Int = 1 << 20, bufferSize: Int = 1 << 20) throws -> ScanResult {
    let scanner = LogFileScanner(path: path, maxLineLength: maxLineLength, bufferSize: bufferSize)
    var result = ScanResult()
    result.summary = try scanner.scan(
        record: { pointer, line in
            let record = pointer.pointee
            result.records.append((line, record.string(record.userID) ?? "", record.eventType, record.timestamp))
        },
        malformed: { line in
            result.malformed.append((line.lineNumber, line.reason, String(line.bytes)))
        })
    return result
}

@Suite struct LogFileScannerTests {
    static let jsonLines = """
        {"ts":1772366401000,"user_id":"a","event":"paywall_view"}\r

        {"ts":1772366402000,"user_id":"b","event":"purchase"}
        not json
           \t
        {"ts":"2026-03-01T12:00:00Z","userId":42,"event":"cancel"}\r
        {"ts":1772366403000,"user_id":"c","event":"refund","product_id":"p","transaction_id":"t","price":-1,"currency":"USD"}
        {"ts":1772366404000,"user_id":"d","event":"mystery"}
        """

    static func expectJSONLinesResult(_ result: ScanResult, path: String) {
        #expect(result.records.map(\.line) == [1, 6, 8])
        #expect(result.records.map(\.user) == ["a", "42", "d"])
        #expect(result.records.map(\.type) == [.paywallView, .cancel, nil])
        #expect(result.records.map(\.timestamp) == [march1Noon + 1_000_000, march1Noon, march1Noon + 4_000_000])
        #expect(result.malformed.map(\.line) == [3, 4, 7])
        #expect(result.malformed.map(\.reason) == [.missingField, .invalidJSON, .negativePrice])
        #expect(result.malformed[1].bytes == "not json")
        #expect(result.malformed[0].bytes == #"{"ts":1772366402000,"user_id":"b","event":"purchase"}"#)
        let summary = result.summary
        #expect(summary?.path == path)
        #expect(summary?.format == .jsonLines)
        #expect(summary?.lines.nonBlankLines == 6)
        #expect(summary?.lines.validRecords == 3)
        #expect(summary?.lines.malformed.total == 3)
        #expect(summary?.lines.malformed[.missingField] == 1)
        #expect(summary?.lines.malformed[.invalidJSON] == 1)
        #expect(summary?.lines.malformed[.negativePrice] == 1)
        #expect(summary?.lines.malformed[.badTimestamp] == 0)
        #expect(summary?.uncompressedBytes == Int64(jsonLines.utf8.count))
    }

    @Test(arguments: [1, 7, 1 << 20])
    func plainJSONLines(bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("events.jsonl", Self.jsonLines)
        let result = try scanLog(path, bufferSize: bufferSize)
        Self.expectJSONLinesResult(result, path: path)
        #expect(result.summary?.isGzip == false)
        #expect(result.summary?.compressedBytes == Int64(Self.jsonLines.utf8.count))
    }

    @Test(arguments: [1, 7, 1 << 20])
    func gzipMultiMemberWithABoundaryInsideALine(bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        let text = Self.jsonLines
        let cut = text.utf8.index(text.utf8.startIndex, offsetBy: 70)
        try FileManager.default.createDirectory(atPath: folder.file("2026/03/01"), withIntermediateDirectories: true)
        let path = try folder.writeGzip("2026/03/01/events.gz", members: [String(text[..<cut]), String(text[cut...])])
        let result = try scanLog(path, bufferSize: bufferSize)
        Self.expectJSONLinesResult(result, path: path)
        #expect(result.summary?.isGzip == true)
        #expect(result.summary?.compressedBytes == Int64(try fileBytes(path).count))
    }

    @Test func aLongLineIsLineTooLongWithItsFirstBytes() throws {
        let folder = try TemporaryFolder()
        let long = #"{"ts":1772366400000,"user_id":"u","event":"x","pad":""# + String(repeating: "x", count: 100) + #""}"#
        let path = try folder.write("long.jsonl", "\(long)\n{\"ts\":1772366400000,\"user_id\":\"v\",\"event\":\"x\"}\n")
        let result = try scanLog(path, maxLineLength: 64, bufferSize: 16)
        #expect(result.malformed.map(\.reason) == [.lineTooLong])
        #expect(result.malformed.map(\.line) == [1])
        #expect(result.malformed.first?.bytes == String(long.prefix(64)))
        #expect(result.records.map(\.user) == ["v"])
        #expect(result.summary?.lines.nonBlankLines == 2)
        #expect(result.summary?.lines.malformed[.lineTooLong] == 1)
    }

    @Test func byteOrderMarkAtTheStartIsDropped() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("bom.jsonl", "\u{FEFF}{\"ts\":1772366400000,\"user_id\":\"u\",\"event\":\"x\"}\n")
        for bufferSize in [1, 2, 1 << 20] {
            #expect(try scanLog(path, bufferSize: bufferSize).records.map(\.user) == ["u"])
        }
    }

    @Test func csvLogGzipped() throws {
        let folder = try TemporaryFolder()
        let text =
            "ts,user_id,event,price,currency,product_id,transaction_id\r\n\r\n1772366401000,u1,purchase,7.99,USD,p,t\r\n1772366402000,u2,purchase,-1,USD,p,t2\r\n1772366403000,\"u\r\n3\",cancel\r\n1772366404000,u4,trial_start,,,p,t4"
        let path = try folder.writeGzip("logs.csv.gz", members: [text])
        let result = try scanLog(path, bufferSize: 5)
        #expect(result.records.map(\.line) == [3, 7])
        #expect(result.records.map(\.user) == ["u1", "u4"])
        #expect(result.malformed.map(\.line) == [4, 5])
        #expect(result.malformed.map(\.reason) == [.negativePrice, .invalidCSV])
        #expect(result.malformed.map(\.bytes) == ["1772366402000,u2,purchase,-1,USD,p,t2", "1772366403000,\"u\r\n3\",cancel"])
        #expect(result.summary?.format == .csv)
        #expect(result.summary?.isGzip == true)
        #expect(result.summary?.lines.nonBlankLines == 4)
        #expect(result.summary?.lines.validRecords == 2)
        #expect(result.summary?.uncompressedBytes == Int64(text.utf8.count))
    }

    @Test func plainCSVLogWithAnUppercaseName() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("LOGS.CSV", "userId,ts,event\nu,2026-03-01T12:00:00Z,paywall_view\n")
        let result = try scanLog(path)
        #expect(result.records.map(\.timestamp) == [march1Noon])
        #expect(result.summary?.format == .csv)
    }

    @Test func emptyFiles() throws {
        let folder = try TemporaryFolder()
        for name in ["empty.jsonl", "empty.csv", "empty.gz"] {
            let result = try scanLog(try folder.write(name, ""))
            #expect(result.records.isEmpty)
            #expect(result.malformed.isEmpty)
            #expect(result.summary?.lines.nonBlankLines == 0)
        }
        let gzipEmpty = try scanLog(try folder.writeGzip("empty-member.jsonl.gz", members: [""]))
        #expect(gzipEmpty.summary?.lines.nonBlankLines == 0)
        #expect(gzipEmpty.summary?.isGzip == true)
    }

    @Test func corruptAndMissingFilesThrowErrorsNamingThem() throws {
        let folder = try TemporaryFolder()
        var bytes = try gzipBytes(#"{"ts":1772366400000,"user_id":"u","event":"x"}"# + "\n", folder: folder)
        let truncated = try folder.write("truncated.jsonl.gz", bytes: Array(bytes.dropLast(3)))
        bytes[bytes.count - 6] ^= 0x55
        let badCRC = try folder.write("bad.csv.gz", bytes: bytes)
        let missing = folder.file("missing.jsonl")
        for (path, code) in [(truncated, IngestError.Code.truncatedGzip), (badCRC, .corruptGzip), (missing, .cannotOpen)] {
            let error = #expect(throws: IngestError.self) { try scanLog(path) }
            #expect(error?.code == code)
            #expect(error?.path == path)
            #expect(error?.description.contains(path) == true)
        }
    }

    @Test func callbackErrorsAreRethrown() throws {
        struct Stop: Error {}
        let folder = try TemporaryFolder()
        let path = try folder.write("events.jsonl", Self.jsonLines)
        var seen = 0
        #expect(throws: Stop.self) {
            _ = try LogFileScanner(path: path).scan(
                record: { _, _ in
                    seen += 1
                    throw Stop()
                }, malformed: { _ in })
        }
        #expect(seen == 1)
    }

    @Test(arguments: [
        ("a.csv", LogFileFormat.csv), ("a.csv.gz", .csv), ("a.CSV.GZ", .csv), ("logs/2026/a.csv", .csv),
        ("a.jsonl", .jsonLines), ("a.jsonl.gz", .jsonLines), ("a.gz", .jsonLines), ("a.csv.gz.gz", .jsonLines),
        ("a.log", .jsonLines), ("csv", .jsonLines), ("a.tsv", .jsonLines), ("a.csv.bz2", .jsonLines),
    ])
    func formatByName(name: String, format: LogFileFormat) {
        #expect(LogFileFormat(fileName: name) == format)
        #expect(LogFileScanner(path: name).format == format)
    }

    @Test func filesScanInParallel() async throws {
        let folder = try TemporaryFolder()
        var paths: [String] = []
        for file in 0..<4 {
            var text = ""
            for line in 0..<5_000 {
                text += #"{"ts":\#(1_772_366_400_000 + line),"user_id":"f\#(file)-\#(line)","event":"paywall_view"}"# + "\n"
            }
            paths.append(try folder.writeGzip("part-\(file).jsonl.gz", members: [text]))
        }
        let summaries = try await withThrowingTaskGroup(of: LogFileSummary.self) { group in
            for path in paths {
                group.addTask {
                    var users = 0
                    let summary = try LogFileScanner(path: path).scan(record: { _, _ in users += 1 }, malformed: { _ in })
                    #expect(users == 5_000)
                    return summary
                }
            }
            var all: [LogFileSummary] = []
            for try await summary in group { all.append(summary) }
            return all
        }
        #expect(summaries.count == 4)
        #expect(summaries.allSatisfy { $0.lines.validRecords == 5_000 && $0.lines.nonBlankLines == 5_000 })
        var total = MalformedCounts()
        for summary in summaries { total += summary.lines.malformed }
        #expect(total.total == 0)
    }
}

@Suite struct MalformedReasonTests {
    @Test func countersAndOrder() {
        #expect(
            MalformedReason.allCases.map(\.counterName) == [
                "malformed_invalid_json", "malformed_missing_field", "malformed_invalid_field", "malformed_bad_timestamp",
                "malformed_negative_price", "malformed_invalid_csv", "malformed_line_too_long",
            ])
        #expect(MalformedReason.invalidJSON < .missingField)
        #expect(MalformedReason.invalidCSV < .lineTooLong)
    }
}

/// A damaged gzipped CSV log fails as a corrupt gzip file, whatever the inflater and its
/// buffers hand out before noticing the damage (a header too long for the limit must not hide
/// it: `on_corrupt_file: skip` depends on it).
@Suite struct DamagedCSVLogTests {
    @Test(arguments: testedInflaters, [1, 7, 4096, 1 << 16])
    func gzipDamageWinsOverAnUnreadableHeader(inflater: Inflater, bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        var bytes = try gzipBytes("user_id,ts,event,product_id\nu1,1700000000000,paywall_view,\n", folder: folder)
        bytes[bytes.count - 6] ^= 0xFF  // the CRC-32 in the trailer
        let path = try folder.write("log.csv.gz", bytes: bytes)
        var scanner = LogFileScanner(path: path, maxLineLength: 8, bufferSize: bufferSize)
        scanner.inflater = inflater
        let error = try #require(throws: IngestError.self) { _ = try scanner.scan(record: { _, _ in }, malformed: { _ in }) }
        #expect(error.code == .corruptGzip)
    }
}
