/// The JSON Lines logs (docs/input-formats.md#json-lines): one JSON object per line
/// (`JSONLineParser`), split by `LineSplitter`; a file whose share of the cores is worth it is also
/// read in pieces (`LogFileScanner.splitJSONLines`, `scanPiece`).
public enum JSONLinesLog: LogFormatReader {
    public static func scan(
        _ file: LogFileScanner, record onRecord: (UnsafePointer<LogRecord>, Int) throws -> Void,
        malformed onMalformed: (MalformedLine) throws -> Void
    ) throws -> LogFileSummary {
        let reader = try InputFileReader(path: file.path, bufferSize: file.bufferSize, inflater: file.inflater, readAhead: file.readAhead)
        var summary = LogFileSummary(path: file.path, format: .jsonLines, isGzip: reader.isGzip)
        let lines = try scanLines(
            maxLineLength: file.maxLineLength, keepsSliceFields: file.keepsSliceFields, record: onRecord, malformed: onMalformed
        ) { feed in
            try reader.forEachTextChunk { text in
                try feed(text)
                file.onBytesRead?(reader.compressedBytesRead)
            }
        }
        summary.lines = lines
        summary.compressedBytes = reader.compressedBytesRead
        summary.uncompressedBytes = reader.uncompressedBytes
        return summary
    }

    /// Splits the bytes that `text` feeds into lines and parses them; lines are numbered from 1.
    static func scanLines(
        maxLineLength: Int, keepsSliceFields: Bool, record onRecord: (UnsafePointer<LogRecord>, Int) throws -> Void,
        malformed onMalformed: (MalformedLine) throws -> Void,
        text: (_ feed: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> LineCounts {
        var splitter = LineSplitter(maxLineLength: maxLineLength)
        // The record is handed on only while its line is in memory: it borrows plain lines.
        var parser = JSONLineParser(borrowsPlainLines: true, keepsSliceFields: keepsSliceFields)
        var record = LogRecord()
        var lines = LineCounts()
        // The record is passed in and out, not captured: a captured record would be copied (its
        // text retained and released) for every callback.
        func handle(_ line: Line, _ record: inout LogRecord) throws {
            let reason: MalformedReason?
            if line.isTooLong {
                reason = .lineTooLong
            } else {
                reason = parser.parse(line.bytes, into: &record)
            }
            if let reason {
                lines.malformed[reason] += 1
                try onMalformed(MalformedLine(reason: reason, lineNumber: line.number, bytes: line.bytes))
            } else {
                lines.validRecords += 1
                try withUnsafePointer(to: &record) { try onRecord($0, line.number) }
            }
        }
        func handle(_ line: Line) throws { try handle(line, &record) }
        // `handle` does not escape: `text` reaches it only through `feed`, while it runs.
        try withoutActuallyEscaping(handle) { handle in
            try text { try splitter.feed($0, handle) }
        }
        try splitter.finish(handle)
        lines.nonBlankLines = splitter.nonBlankLineCount
        lines.physicalLines = splitter.lineCount
        return lines
    }
}
