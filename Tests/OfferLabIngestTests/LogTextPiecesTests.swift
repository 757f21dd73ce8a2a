import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLabIngest

/// `scanLog`'s result from the pieces of `splitJSONLines`, each scanned on its own and its lines
/// numbered on from the pieces before it: what a run that reads a file in pieces hands out.
func scanLogInPieces(_ path: String, maxLineLength: Int = 1 << 20, bufferSize: Int = 1 << 20, pieceSize: Int) throws
    -> (result: ScanResult, pieces: [LogTextPiece])
{
    let scanner = LogFileScanner(path: path, maxLineLength: maxLineLength, bufferSize: bufferSize)
    var result = ScanResult()
    var pieces: [LogTextPiece] = []
    var totals = LineCounts()
    var summary = try scanner.splitJSONLines(pieceSize: pieceSize) { piece in
        pieces.append(piece)
        let lines = try scanner.scanPiece(
            &piece,
            record: { pointer, line in
                let record = pointer.pointee
                result.records.append((totals.physicalLines + line, record.string(record.userID) ?? "", record.eventType, record.timestamp))
            },
            malformed: { line in result.malformed.append((totals.physicalLines + line.lineNumber, line.reason, String(line.bytes))) })
        totals += lines
    }
    summary.lines = totals
    result.summary = summary
    return (result, pieces)
}

/// A file cut into pieces (`splitJSONLines`) and parsed piece by piece gives what `scan` gives.
@Suite struct LogTextPiecesTests {
    static let limit = 64

    /// Lines around the limit (`limit` bytes): a blank one that is too long (skipped), one blank
    /// in the bytes a piece keeps of it and not after them, one of exactly the limit before
    /// `\r\n`, one a byte over it, two with a `\r` where a piece keeps its last byte of a long
    /// line (blank in those bytes, and not), a long blank one of that kind, and a long last line
    /// without `\n`: five lines too long, two skipped.
    static let longLines = [
        #"{"ts":1772366401000,"user_id":"a","event":"paywall_view"}"#,
        String(repeating: " ", count: limit + 24),
        String(repeating: " ", count: limit + 14) + "x",
        #"{"ts":1772366402000,"user_id":"b","event":"x"}"#,
        String(repeating: "a", count: limit) + "\r",
        String(repeating: "a", count: limit + 1) + "\r",
        String(repeating: "y", count: limit + 1) + "\r" + String(repeating: " ", count: 20),
        String(repeating: " ", count: limit + 1) + "\r" + String(repeating: " ", count: 20) + "z",
        String(repeating: " ", count: limit + 1) + "\r" + String(repeating: " ", count: 20),
        #"{"ts":1772366404000,"user_id":"c","event":"x"}"#,
        "",
        String(repeating: "w", count: limit + 36),
    ].joined(separator: "\n")

    /// Every combination of chunk and piece size, on a plain file, a gzip file of two members cut
    /// inside a line, and a file that starts with a byte order mark.
    @Test(arguments: [1, 7, 64, 1 << 20], [1, 50, 300, 1 << 22])
    func piecesScannedInOrderGiveTheFilesScan(bufferSize: Int, pieceSize: Int) throws {
        let folder = try TemporaryFolder()
        let text = LogFileScannerTests.jsonLines + "\n" + Self.longLines
        let cut = text.utf8.index(text.utf8.startIndex, offsetBy: 70)
        let paths = [
            try folder.write("events.jsonl", text),
            try folder.writeGzip("events.jsonl.gz", members: [String(text[..<cut]), String(text[cut...])]),
            try folder.write("bom.jsonl", "\u{FEFF}" + text + "\n"),
        ]
        for path in paths {
            let whole = try scanLog(path, maxLineLength: Self.limit, bufferSize: bufferSize)
            let (inPieces, pieces) = try scanLogInPieces(path, maxLineLength: Self.limit, bufferSize: bufferSize, pieceSize: pieceSize)
            #expect(whole.records.count == 6)
            // Those five, and the refund line of `jsonLines`.
            #expect(whole.malformed.filter { $0.reason == .lineTooLong }.count == 6)
            #expect("\(inPieces.records)" == "\(whole.records)")
            #expect("\(inPieces.malformed)" == "\(whole.malformed)")
            #expect(inPieces.summary == whole.summary)
            #expect(pieces.map(\.index) == Array(pieces.indices))
            // Every piece but the last ends with a whole line; small pieces make many of them.
            for piece in pieces.dropLast() { #expect(piece.bytes.last == 0x0A) }
            if pieceSize == 1 && bufferSize <= 64 { #expect(pieces.count > 10) }
            if pieceSize == 1 << 22 { #expect(pieces.count == 1) }
        }
    }

    /// A line far longer than the limit is not held whole by its piece.
    @Test func aVeryLongLineIsNotKeptWhole() throws {
        let folder = try TemporaryFolder()
        let long = String(repeating: "x", count: 100_000)
        let path = try folder.write("long.jsonl", "\(long)\n{\"ts\":1772366400000,\"user_id\":\"v\",\"event\":\"x\"}\n")
        let (result, pieces) = try scanLogInPieces(path, maxLineLength: 64, bufferSize: 1000, pieceSize: 10)
        #expect(pieces.allSatisfy { $0.count < 2000 })
        #expect(result.malformed.map(\.reason) == [.lineTooLong])
        #expect(result.malformed.first?.bytes == String(long.prefix(64)))
        #expect(result.records.map(\.user) == ["v"])
        #expect(result.records.map(\.line) == [2])
    }

    /// A damaged gzip file fails as it does when scanned whole, after the pieces before the damage.
    @Test func aDamagedFileFailsTheSameWay() throws {
        let folder = try TemporaryFolder()
        let text = String(repeating: #"{"ts":1772366401000,"user_id":"a","event":"paywall_view"}"# + "\n", count: 2000)
        var bytes = try gzipBytes(text, folder: folder)
        bytes[bytes.count - 6] ^= 0xFF  // the CRC-32
        let corrupt = try folder.write("corrupt.jsonl.gz", bytes: bytes)
        let truncated = try folder.write("truncated.jsonl.gz", bytes: Array(bytes.prefix(bytes.count / 2)))
        for (path, code) in [(corrupt, IngestError.Code.corruptGzip), (truncated, .truncatedGzip)] {
            #expect(throws: IngestError.self) { try scanLog(path) }
            var pieces = 0
            let error = #expect(throws: IngestError.self) {
                _ = try LogFileScanner(path: path).splitJSONLines(pieceSize: 1000) { _ in pieces += 1 }
            }
            #expect(error?.code == code)
            #expect(path == truncated || pieces > 0)
        }
    }
}
