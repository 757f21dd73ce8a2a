// Fuzz target `log-file`: `LogFileScanner` over a whole log file, JSON Lines or CSV.
//
// The first byte picks the format (bit 0), the read buffer size and the line length limit;
// the rest is the file. Checks: no crash; with zlib, the same file read with a tiny buffer and
// with a large one gives the same events, rejects and summary (chunk boundaries change nothing);
// ISA-L, with either buffer, reads what zlib reads, except in a damaged or cut gzip file, where
// it only has to fail too (see the `table` target); line numbers increase; counts add up; a
// rejected line's bytes are within the limit. For a plain
// JSON Lines file, the lines are also split independently (by `\n`, one `\r` dropped, blank
// lines skipped) and each must reach the parser exactly, or be rejected as too long. A JSON Lines
// file cut into pieces (`splitJSONLines`, pieces of 1 to 300 bytes), the pieces scanned one after
// the other, gives what the scan gives, line numbers included.

/// What a scan handed out for one line.
struct ScannedLine: Equatable {
    var number: Int
    var record: RecordDigest
    /// The bytes of a malformed line.
    var rejected: [UInt8]?
}

struct Scan: Equatable {
    var lines: [ScannedLine] = []
    var summary: LogFileSummary?
    var error: IngestError.Code?
}

func scan(_ path: String, bufferSize: Int, maxLineLength: Int, inflater: Inflater = .zlib) -> Scan {
    var result = Scan()
    let scanner = LogFileScanner(path: path, maxLineLength: maxLineLength, bufferSize: bufferSize, inflater: inflater)
    do {
        result.summary = try scanner.scan(
            record: { record, number in result.lines.append(ScannedLine(number: number, record: RecordDigest(nil, record.pointee))) },
            malformed: { line in
                require(line.bytes.count <= maxLineLength, "a rejected line of \(line.bytes.count) bytes, over the limit")
                result.lines.append(
                    ScannedLine(number: line.lineNumber, record: RecordDigest(line.reason, LogRecord()), rejected: Array(line.bytes)))
            })
    } catch let error as IngestError {
        result.error = error.code
    } catch {
        require(false, "unexpected error \(error)")
    }
    return result
}

/// `scan` (with zlib) through the pieces of `splitJSONLines`, each scanned on its own, line
/// numbers carried on.
func scanInPieces(_ path: String, bufferSize: Int, maxLineLength: Int, pieceSize: Int) -> Scan {
    var result = Scan()
    let scanner = LogFileScanner(path: path, maxLineLength: maxLineLength, bufferSize: bufferSize, inflater: .zlib)
    var totals = LineCounts()
    do {
        var summary = try scanner.splitJSONLines(pieceSize: pieceSize) { piece in
            let lines = try scanner.scanPiece(
                &piece,
                record: { record, number in
                    result.lines.append(ScannedLine(number: totals.physicalLines + number, record: RecordDigest(nil, record.pointee)))
                },
                malformed: { line in
                    result.lines.append(
                        ScannedLine(
                            number: totals.physicalLines + line.lineNumber, record: RecordDigest(line.reason, LogRecord()),
                            rejected: Array(line.bytes)))
                })
            totals += lines
        }
        summary.lines = totals
        result.summary = summary
    } catch let error as IngestError {
        result.error = error.code
    } catch {
        require(false, "unexpected error \(error)")
    }
    return result
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let parameters = input.byte()
    let isCSV = parameters & 1 == 1
    let bufferSize = [1, 2, 3, 7, 64, 4096][Int(parameters >> 1 & 7) % 6]
    let maxLineLength = [1, 8, 64, 1 << 20][Int(parameters >> 4 & 3)]
    let bytes = input.rest
    let path = ScratchFile.write(bytes, name: isCSV ? "log.csv" : "log.jsonl")

    let small = scan(path, bufferSize: bufferSize, maxLineLength: maxLineLength)
    let large = scan(path, bufferSize: 1 << 16, maxLineLength: maxLineLength)
    if Inflater.isalAvailable {
        let broken = endsInBrokenGzip(path)
        for size in [bufferSize, 1 << 16] {
            let isal = scan(path, bufferSize: size, maxLineLength: maxLineLength, inflater: .isal)
            if broken {
                require(isal.error != nil, "ISA-L (buffer \(size)) reads a broken gzip file without an error")
            } else {
                require(isal == large, "ISA-L (buffer \(size)) reads differently from zlib")
            }
        }
    }
    require(
        small.error == large.error,
        "errors differ with the buffer size: \(String(describing: small.error)) / \(String(describing: large.error))")
    let inPieces =
        isCSV
        ? nil : scanInPieces(path, bufferSize: bufferSize, maxLineLength: maxLineLength, pieceSize: [1, 16, 300][Int(parameters >> 6) % 3])
    if small.error != nil {
        let shorter = min(small.lines.count, large.lines.count)
        require(Array(small.lines.prefix(shorter)) == Array(large.lines.prefix(shorter)), "lines before the error differ")
        if let inPieces {
            require(inPieces.error == small.error, "read in pieces, another error: \(String(describing: inPieces.error))")
            let shorter = min(small.lines.count, inPieces.lines.count)
            require(
                Array(small.lines.prefix(shorter)) == Array(inPieces.lines.prefix(shorter)), "read in pieces, lines before the error differ"
            )
        }
        return 0
    }
    if let inPieces { require(inPieces == small, "read in pieces, the lines or the summary differ") }
    require(small.lines == large.lines, "lines differ with the buffer size")
    require(small.summary == large.summary, "summaries differ with the buffer size")
    guard let summary = small.summary else { return 0 }
    require(summary.lines.nonBlankLines == summary.lines.validRecords + summary.lines.malformed.total, "counts do not add up")
    require(
        summary.lines.nonBlankLines == small.lines.count, "\(summary.lines.nonBlankLines) lines counted, \(small.lines.count) handed out")
    require(summary.lines.validRecords == small.lines.count { $0.record.reason == nil }, "valid records miscounted")
    require(zip(small.lines, small.lines.dropFirst()).allSatisfy { $0.number < $1.number }, "line numbers do not increase")

    guard !isCSV, !summary.isGzip else { return 0 }
    var text = Array(bytes)
    if text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }
    var expected: [ScannedLine] = []
    var parser = JSONLineParser()
    var record = LogRecord()
    for (index, piece) in text.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
        var line = Array(piece)
        if line.last == 0x0D { line.removeLast() }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
        if line.count > maxLineLength {
            expected.append(
                ScannedLine(
                    number: index + 1, record: RecordDigest(.lineTooLong, LogRecord()), rejected: Array(line.prefix(maxLineLength))))
            continue
        }
        let reason = line.withUnsafeBytes { parser.parse($0, into: &record) }
        expected.append(ScannedLine(number: index + 1, record: RecordDigest(reason, record), rejected: reason == nil ? nil : line))
    }
    require(small.lines == expected, "the scanner's lines differ from an independent split")
    return 0
}
