// Fuzz target `table`: `TableFileReader`, the CSV and TSV reader of the offering tables (and of
// CSV logs).
//
// The first byte picks the format (bit 0: CSV or TSV), the read buffer size and the record
// length limit; the rest is the file. Checks: no crash; with zlib, a tiny buffer and a large one
// give the same header, rows, problems and raw bytes; keeping raw bytes changes no field; line
// numbers increase; a row without a problem has the header's field count; a too-long row keeps
// no field and at most the limit of raw bytes; a row whose raw text has no quote (CSV) or
// backslash (TSV) has exactly the fields of a plain split of that text; and ISA-L, with either
// buffer, reads what zlib reads, except in a damaged or cut gzip file, where it only has to fail
// too (the `gzip` target compares the inflaters' endings).
//
// The buffer-size check uses zlib: it hands out every byte before the damage whatever its
// buffers. How much ISA-L hands out before it reports damage depends on its buffers (it can
// drop bytes it decoded, or copy a match from before the member's start), the accepted
// behaviour of `LogFileScanner.scanCSV`: a damaged file fails whole, whatever came before.

struct ReadRow: Equatable {
    var line: Int
    var count: Int
    var problem: TableRowProblem?
    /// Decoded fields; nil is NULL.
    var fields: [[UInt8]?]
    var raw: [UInt8]
}

struct Read: Equatable {
    var header: [String] = []
    var headerLine = 0
    var rows: [ReadRow] = []
    var error: IngestError.Code?
}

func read(
    _ path: String, format: TableFormat, bufferSize: Int, maxRecordLength: Int, keepRawBytes: Bool = true, inflater: Inflater = .zlib
) -> Read {
    var result = Read()
    do {
        let reader = try TableFileReader(
            path: path, format: format, maxRecordLength: maxRecordLength, keepRawBytes: keepRawBytes, bufferSize: bufferSize,
            inflater: inflater)
        result.header = reader.header
        result.headerLine = reader.headerLineNumber
        try reader.forEachRow { row in
            let fields = (0..<row.count).map { row.isNull($0) ? nil : Array(row.bytes(at: $0)) }
            result.rows.append(
                ReadRow(line: row.lineNumber, count: row.count, problem: row.problem, fields: fields, raw: Array(row.rawBytes)))
        }
    } catch let error as IngestError {
        result.error = error.code
    } catch {
        require(false, "unexpected error \(error)")
    }
    return result
}

/// The fields of a record with no quoting or escapes: split at the delimiter, NULL words applied.
func plainFields(_ raw: [UInt8], format: TableFormat) -> [[UInt8]?] {
    raw.split(separator: format == .csv ? 0x2C : 0x09, omittingEmptySubsequences: false).map { piece in
        let field = Array(piece)
        switch format {
        case .csv: return field.isEmpty || field == [0x5C, 0x4E] ? nil : field
        case .tsv: return field == Array("NULL".utf8) ? nil : field
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTable(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let parameters = input.byte()
    let format: TableFormat = parameters & 1 == 0 ? .csv : .tsv
    let bufferSize = [1, 2, 3, 7, 64, 4096][Int(parameters >> 1 & 7) % 6]
    let maxRecordLength = [4, 16, 64, 1 << 20][Int(parameters >> 4 & 3)]
    let path = ScratchFile.write(input.rest, name: format == .csv ? "table.csv" : "table.tsv")

    let small = read(path, format: format, bufferSize: bufferSize, maxRecordLength: maxRecordLength)
    let large = read(path, format: format, bufferSize: 1 << 16, maxRecordLength: maxRecordLength)
    var withoutRaw = read(path, format: format, bufferSize: 1 << 16, maxRecordLength: maxRecordLength, keepRawBytes: false)
    require(small == large, "the buffer size changes what is read")
    require(withoutRaw.rows.allSatisfy { $0.raw.isEmpty }, "raw bytes handed out without keepRawBytes")
    for index in withoutRaw.rows.indices { withoutRaw.rows[index].raw = large.rows[index].raw }
    require(withoutRaw == large, "keeping raw bytes changes the fields")
    if Inflater.isalAvailable {
        let broken = endsInBrokenGzip(path)
        for size in [bufferSize, 1 << 16] {
            let isal = read(path, format: format, bufferSize: size, maxRecordLength: maxRecordLength, inflater: .isal)
            if broken {
                require(isal.error != nil, "ISA-L (buffer \(size)) reads a broken gzip file without an error")
            } else {
                require(isal == large, "ISA-L (buffer \(size)) reads differently from zlib")
            }
        }
    }
    guard large.error == nil else { return 0 }

    var previousLine = large.headerLine
    for row in large.rows {
        require(row.line > previousLine, "line \(row.line) after line \(previousLine)")
        previousLine = row.line
        require(row.raw.count <= maxRecordLength, "\(row.raw.count) raw bytes kept, over the limit")
        switch row.problem {
        case nil:
            require(row.count == large.header.count, "a row without a problem has \(row.count) fields, the header \(large.header.count)")
        case .tooLong:
            require(row.fields.allSatisfy { $0 == nil }, "a too-long row kept fields")
        default:
            break
        }
        let special: UInt8 = format == .csv ? 0x22 : 0x5C
        if row.problem == nil || row.problem == .fieldCount, !row.raw.contains(special) {
            require(row.fields == plainFields(row.raw, format: format), "fields differ from a plain split of the raw text")
        }
    }
    return 0
}
