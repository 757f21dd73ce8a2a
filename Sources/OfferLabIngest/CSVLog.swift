/// The CSV logs (docs/input-formats.md#csv-logs): a header naming the fields, a record per row
/// (`CSVLogParser`), read by `TableFileReader` (a quoted field may hold a line break).
public enum CSVLog: LogFormatReader {
    public static func scan(
        _ file: LogFileScanner, record onRecord: (UnsafePointer<LogRecord>, Int) throws -> Void,
        malformed onMalformed: (MalformedLine) throws -> Void
    ) throws -> LogFileSummary {
        let reader: TableFileReader
        do {
            reader = try TableFileReader(
                path: file.path, format: .csv, maxRecordLength: file.maxLineLength, keepRawBytes: true, bufferSize: file.bufferSize,
                inflater: file.inflater, readAhead: file.readAhead)
        } catch let error as IngestError where error.code == .invalidHeader {
            // How much an inflater hands out before it reports damage depends on its buffers, so a
            // damaged gzip file could fail here or in the inflater. Damage is what the file has:
            // report it, so that `on_corrupt_file: skip` treats the file the same way every time.
            try InputFileReader(path: file.path, bufferSize: file.bufferSize, inflater: file.inflater).forEachChunk { _ in }
            throw error
        }
        var summary = LogFileSummary(path: file.path, format: .csv, isGzip: reader.isGzip)
        var parser = CSVLogParser(header: reader.header, keepsSliceFields: file.keepsSliceFields)
        if !reader.header.isEmpty && parser.readsNoField {
            // Damage is what a damaged file has, whatever its first line reads as (as above).
            try InputFileReader(path: file.path, bufferSize: file.bufferSize, inflater: file.inflater).forEachChunk { _ in }
            let found = reader.header.prefix(6).map { "'\($0)'" }.joined(separator: ", ") + (reader.header.count > 6 ? ", …" : "")
            throw IngestError(
                code: .invalidHeader, path: file.path,
                message: "the CSV header names no log field (ts, user_id, event, …); it has \(found)", line: reader.headerLineNumber)
        }
        var record = LogRecord()
        var lines = LineCounts()
        // Rows are pulled, not pushed to a closure: a closure's captured state would be retained
        // and released around every row.
        while let row = try reader.nextRow() {
            lines.nonBlankLines += 1
            // Every 4096 rows: about a megabyte of text.
            if lines.nonBlankLines & 4095 == 0, let onBytesRead = file.onBytesRead { onBytesRead(reader.compressedBytesRead) }
            if let reason = parser.parse(row, into: &record) {
                lines.malformed[reason] += 1
                try onMalformed(MalformedLine(reason: reason, lineNumber: row.lineNumber, bytes: row.rawBytes))
            } else {
                lines.validRecords += 1
                try withUnsafePointer(to: &record) { try onRecord($0, row.lineNumber) }
            }
        }
        summary.lines = lines
        summary.compressedBytes = reader.compressedBytesRead
        summary.uncompressedBytes = reader.uncompressedBytes
        return summary
    }
}
