import OfferLabGenerate
import OfferLabStatistics
import OfferLabTestSupport
import Testing

@testable import OfferLabIngest

/// One record as plain values (nil for NULL).
struct ReadRow: Equatable, CustomStringConvertible {
    var line: Int
    var fields: [String?]
    var problem: TableRowProblem?
    var raw: String

    init(_ line: Int, _ fields: [String?], _ problem: TableRowProblem? = nil, raw: String = "") {
        self.line = line
        self.fields = fields
        self.problem = problem
        self.raw = raw
    }

    var description: String {
        "\(line): \(fields.map { $0.map { "\"\($0)\"" } ?? "NULL" }) \(problem.map { "\($0)" } ?? "") raw=\(raw.debugDescription)"
    }
}

func readTable(
    _ path: String, format: TableFormat, maxRecordLength: Int = 1 << 20, keepRawBytes: Bool = false, bufferSize: Int = 1 << 20
) throws -> (header: [String], rows: [ReadRow]) {
    let reader = try TableFileReader(
        path: path, format: format, maxRecordLength: maxRecordLength, keepRawBytes: keepRawBytes, bufferSize: bufferSize)
    var rows: [ReadRow] = []
    try reader.forEachRow { row in
        let fields = (0..<row.count).map { row.string(at: $0) }
        rows.append(ReadRow(row.lineNumber, row.problem == .tooLong ? [] : fields, row.problem, raw: String(row.rawBytes)))
    }
    // A second call does nothing.
    try reader.forEachRow { _ in Issue.record("a row after the end") }
    return (reader.header, rows)
}

@Suite struct TableFileReaderTests {
    /// Reads `text` with every small buffer size and the default one; all must agree.
    static func expectTable(
        _ text: String, format: TableFormat, maxRecordLength: Int = 1 << 20, header: [String], _ expected: [ReadRow],
        gzip: Bool = false
    ) throws {
        let folder = try TemporaryFolder()
        let path = gzip ? try folder.writeGzip("t.csv", members: [text]) : try folder.write("t.csv", text)
        for bufferSize in [1, 2, 3, 5, 8, 13, 1 << 20] {
            let (readHeader, rows) = try readTable(path, format: format, maxRecordLength: maxRecordLength, bufferSize: bufferSize)
            #expect(readHeader == header, "buffer \(bufferSize)")
            #expect(rows == expected.map { ReadRow($0.line, $0.fields, $0.problem) }, "buffer \(bufferSize)")
        }
    }

    @Test func csvQuotingAndNulls() throws {
        let text =
            [
                "id,name,note",
                "1,plain,\"with, comma\"",
                "2,\"say \"\"hi\"\"\",\"\"",
                "3,,\\N",
                "4,\"\\N\",\"multi",
                "line \"\"quoted\"\"",
                "text\"",
                "5, spaced ,x",
            ].joined(separator: "\r\n") + "\r\n"
        try Self.expectTable(
            text, format: .csv, header: ["id", "name", "note"],
            [
                ReadRow(2, ["1", "plain", "with, comma"]),
                ReadRow(3, ["2", "say \"hi\"", ""]),
                ReadRow(4, ["3", nil, nil]),
                ReadRow(5, ["4", "\\N", "multi\r\nline \"quoted\"\r\ntext"]),
                ReadRow(8, ["5", " spaced ", "x"]),
            ])
    }

    @Test func csvWithLineFeedsAndNoFinalNewline() throws {
        try Self.expectTable(
            "a,b\n1,2\n\"x\ny\",\n,\"\"", format: .csv, header: ["a", "b"],
            [ReadRow(2, ["1", "2"]), ReadRow(3, ["x\ny", nil]), ReadRow(5, [nil, ""])])
    }

    @Test func blankLinesAreSkippedAndLeadingOnesBeforeTheHeader() throws {
        try Self.expectTable(
            "\n  \r\nid,v\n\n1,a\n \t \n2,b\n\n", format: .csv, header: ["id", "v"],
            [ReadRow(5, ["1", "a"]), ReadRow(7, ["2", "b"])])
        // A quoted empty field is not a blank line.
        try Self.expectTable("v\n\"\"\n", format: .csv, header: ["v"], [ReadRow(2, [""])])
    }

    @Test func fieldCountDifferencesAreReported() throws {
        try Self.expectTable(
            "a,b,c\n1,2\n1,2,3\n1,2,3,4\n,,\n", format: .csv, header: ["a", "b", "c"],
            [
                ReadRow(2, ["1", "2"], .fieldCount), ReadRow(3, ["1", "2", "3"]), ReadRow(4, ["1", "2", "3", "4"], .fieldCount),
                ReadRow(5, [nil, nil, nil]),
            ])
    }

    @Test func unterminatedQuoteAtTheEnd() throws {
        try Self.expectTable(
            "a,b\n1,2\n3,\"open\nstill open", format: .csv, header: ["a", "b"],
            [ReadRow(2, ["1", "2"]), ReadRow(3, ["3", "open\nstill open"], .unterminatedQuote)])
    }

    @Test func lenientQuotes() throws {
        // A quote inside an unquoted field, and text after a closing quote, are kept.
        try Self.expectTable(
            "a,b\nsay \"x\",\"ab\"c\n", format: .csv, header: ["a", "b"], [ReadRow(2, ["say \"x\"", "abc"])])
    }

    @Test func byteOrderMarkIsDropped() throws {
        try Self.expectTable("\u{FEFF}id,name\n1,a\n", format: .csv, header: ["id", "name"], [ReadRow(2, ["1", "a"])])
        try Self.expectTable("\u{FEFF}\"id\",name\n1,a\n", format: .csv, header: ["id", "name"], [ReadRow(2, ["1", "a"])])
        // Only at the very start, and a partial mark is data.
        try Self.expectTable("id\n\u{FEFF}x\n", format: .csv, header: ["id"], [ReadRow(2, ["\u{FEFF}x"])])
    }

    @Test func partialByteOrderMarkIsKept() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("t.csv", bytes: [0xEF, 0xBB, 0x41, 0x0A, 0x31, 0x0A])
        for bufferSize in [1, 2, 1 << 20] {
            let (header, rows) = try readTable(path, format: .csv, bufferSize: bufferSize)
            #expect(header == [String(decoding: [0xEF, 0xBB, 0x41], as: UTF8.self)])
            #expect(rows == [ReadRow(2, ["1"])])
        }
    }

    @Test func gzipCSVNamedCSV() throws {
        try Self.expectTable("id,v\n1,\"a,b\"\n", format: .csv, header: ["id", "v"], [ReadRow(2, ["1", "a,b"])], gzip: true)
    }

    @Test func tooLongRecordsAreReportedWithoutTheirFields() throws {
        // Limit 8 bytes: "1,abcdef" (8) fits, "2,abcdefg" (9) does not; "\r\n" does not count.
        try Self.expectTable(
            "id,v\r\n1,abcdef\r\n2,abcdefg\r\n3,\"x\ny\"\r\n4,\"quoted,\nand,long\"\r\n5,z\r\n", format: .csv, maxRecordLength: 8,
            header: ["id", "v"],
            [
                ReadRow(2, ["1", "abcdef"]), ReadRow(3, [], .tooLong), ReadRow(4, ["3", "x\ny"]), ReadRow(6, [], .tooLong),
                ReadRow(8, ["5", "z"]),
            ])
    }

    @Test func rawBytesAreKeptOnRequest() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("t.csv", "id,v\r\n1,\"a\r\nb\"\r\n2,abcdefghijkl\r\n3,c")
        for bufferSize in [1, 3, 1 << 20] {
            let (_, rows) = try readTable(path, format: .csv, maxRecordLength: 10, keepRawBytes: true, bufferSize: bufferSize)
            #expect(rows.map(\.raw) == ["1,\"a\r\nb\"", "2,abcdefgh", "3,c"])
            #expect(rows.map(\.problem) == [nil, .tooLong, nil])
        }
    }

    @Test func hugeLimitIsClamped() throws {
        try Self.expectTable("a,b\n1,2\n", format: .csv, maxRecordLength: Int.max, header: ["a", "b"], [ReadRow(2, ["1", "2"])])
    }

    @Test func headerThatIsTooLongIsAnError() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("t.csv", "a_long_column,another\n1,2\n")
        let error = #expect(throws: IngestError.self) { try TableFileReader(path: path, format: .csv, maxRecordLength: 10) }
        #expect(error?.code == .invalidHeader)
        #expect(error?.path == path)
        #expect(error?.line == 1)
    }

    @Test func headerWithAnOpenQuoteIsAnError() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("t.csv", "a,\"b\n")
        let error = #expect(throws: IngestError.self) { try TableFileReader(path: path, format: .csv) }
        #expect(error?.code == .invalidHeader)
    }

    @Test func emptyFileAndHeaderOnly() throws {
        let folder = try TemporaryFolder()
        let empty = try readTable(try folder.write("empty.csv", ""), format: .csv)
        #expect(empty.header.isEmpty)
        #expect(empty.rows.isEmpty)
        let headerOnly = try readTable(try folder.write("header.tsv", "a\tb"), format: .tsv)
        #expect(headerOnly.header == ["a", "b"])
        #expect(headerOnly.rows.isEmpty)
    }

    @Test func tsvEscapesAndNulls() throws {
        let text =
            "id\tname\tnote\n1\ta\\tb\tline\\nbreak\n2\tNULL\t\n3\t\\NULL\tnull\n4\tback\\\\slash\tnul\\0 \\r \\x \\N\r\n5\t\"q\"\t,\n"
        try Self.expectTable(
            text, format: .tsv, header: ["id", "name", "note"],
            [
                ReadRow(2, ["1", "a\tb", "line\nbreak"]),
                ReadRow(3, ["2", nil, ""]),
                ReadRow(4, ["3", "NULL", "null"]),
                ReadRow(5, ["4", "back\\slash", "nul\u{0} \r x N"]),
                ReadRow(6, ["5", "\"q\"", ","]),
            ])
    }

    @Test func tsvFieldCountAndTrailingBackslash() throws {
        try Self.expectTable(
            "a\tb\n1\n1\t2\t3\nx\ty\\", format: .tsv, header: ["a", "b"],
            [ReadRow(2, ["1"], .fieldCount), ReadRow(3, ["1", "2", "3"], .fieldCount), ReadRow(4, ["x", "y\\"])])
    }

    @Test func tsvEscapedNewlineContinuesTheRecord() throws {
        try Self.expectTable(
            "a\tb\nx\\\ny\tz\nq\tr\n", format: .tsv, header: ["a", "b"], [ReadRow(2, ["x\ny", "z"]), ReadRow(4, ["q", "r"])])
    }

    @Test func rowAccessors() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("t.csv", "id,name,extra\n7,é,\n")
        let reader = try TableFileReader(path: path, format: .csv)
        #expect(reader.columnIndex("name") == 1)
        #expect(reader.columnIndex("missing") == nil)
        #expect(reader.headerLineNumber == 1)
        var seen = 0
        try reader.forEachRow { row in
            seen += 1
            #expect(row.count == 3)
            #expect(row.problem == nil)
            #expect(!row.isNull(0))
            #expect(row.isNull(2))
            #expect(row.isNull(3))  // beyond the record
            #expect(row.isNull(-1))
            #expect(row.string(at: 1) == "é")
            #expect(row.string(at: 2) == nil)
            #expect(row.withBytes(at: 0) { Array($0) } == [0x37])
            #expect(row.bytes(at: 2).isEmpty)
            #expect(row.bytes(at: 9).isEmpty)
        }
        #expect(seen == 1)
        #expect(!reader.isGzip)
        #expect(reader.uncompressedBytes == 20)
    }

    @Test func typedAccessors() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "t.tsv",
            """
            id\tactive\tweight\tassigned_at
            42\t1\t0.5\t2026-03-16 12:34:56
            -9223372036854775808\tTRUE\t2\t2026-03-16T12:34:56Z
            9223372036854775808\tFalse\t1e2\tNULL
            007\t0\t-0.25\t2026-03-16
            4 2\tyes\tinf\t
            \t2\t0x10\tx
            -\ttru\t.5\t1

            """)
        let reader = try TableFileReader(path: path, format: .tsv)
        var ints: [Int64?] = []
        var bools: [Bool?] = []
        var doubles: [Double?] = []
        var times: [Int64?] = []
        try reader.forEachRow { row in
            ints.append(row.int64(at: 0))
            bools.append(row.bool(at: 1))
            doubles.append(row.double(at: 2))
            times.append(row.timestamp(at: 3))
        }
        let noon = TimestampTests.micros(2026, 3, 16, 12, 34, 56)
        #expect(ints == [42, Int64.min, nil, 7, nil, nil, nil])
        #expect(bools == [true, true, false, false, nil, nil, nil])
        #expect(doubles == [0.5, 2, 100, -0.25, nil, nil, nil])
        #expect(times == [noon, noon, nil, nil, nil, nil, nil])
    }

    @Test func nullFieldsHaveNoBytes() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("t.csv", "a,b\n\\N,\n")
        let reader = try TableFileReader(path: path, format: .csv)
        try reader.forEachRow { row in
            #expect(row.isNull(0))
            #expect(row.bytes(at: 0).isEmpty)
            #expect(row.withBytes(at: 1) { $0.count } == 0)
            #expect(row.int64(at: 0) == nil)
            #expect(row.bool(at: 0) == nil)
        }
    }

    @Test func requiredColumns() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("subscription_offerings.csv", "\nname,id,offering_id\n")
        let reader = try TableFileReader(path: path, format: .csv)
        #expect(try reader.requireColumns(["id", "offering_id", "name"]) == [1, 2, 0])
        let error = #expect(throws: IngestError.self) { try reader.requireColumns(["id", "is_active"]) }
        #expect(error?.code == .missingColumn)
        #expect(error?.path == path)
        #expect(error?.line == 2)
        #expect(error?.description == "\(path):2: missing required column 'is_active'")
    }

    @Test(arguments: [
        ("t.csv", TableFormat.csv), ("t.csv.gz", .csv), ("T.CSV", .csv), ("t.tsv", .tsv), ("dir/t.tsv.gz", .tsv),
        ("t.TSV.GZ", .tsv),
    ])
    func formatByName(name: String, format: TableFormat) {
        #expect(TableFormat(fileName: name) == format)
    }

    @Test func otherNamesHaveNoTableFormat() {
        for name in ["t.sqlite", "t.db", "t.gz", "t.csv.gz.gz", "csv", "t.txt", "t.csvx"] {
            #expect(TableFormat(fileName: name) == nil, "\(name)")
        }
    }

    /// Reads `text` with every buffer size from 1 byte to the whole text, so that every byte
    /// (a quote, a delimiter, the `\r` of a `\r\n`) falls at a chunk boundary once, raw bytes
    /// kept or not. Records that lie in one chunk are sliced from it (the fast path, its stops
    /// marked in blocks of 64 bytes from where it starts in the chunk); the others go through
    /// the state machine: both must read the same.
    static func expectAtEveryBoundary(_ text: String, format: TableFormat, header: [String], _ expected: [ReadRow]) throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(format == .csv ? "t.csv" : "t.tsv", text)
        for bufferSize in 1...text.utf8.count + 1 {
            for keepRawBytes in [false, true] {
                let (readHeader, rows) = try readTable(path, format: format, keepRawBytes: keepRawBytes, bufferSize: bufferSize)
                #expect(readHeader == header, "buffer \(bufferSize)")
                #expect(
                    rows == expected.map { ReadRow($0.line, $0.fields, $0.problem, raw: keepRawBytes ? $0.raw : "") },
                    "buffer \(bufferSize), raw bytes \(keepRawBytes)")
            }
        }
    }

    @Test func csvFieldsAcrossBlocksAndChunks() throws {
        let text =
            "id,text,note\n"
            + "1,abcdefghijklmnopq,0123456789abcdef0123456789abcdef\n"
            + "2,\"quoted field, past sixteen\",\\N\r\n"
            + "3,x,\"quoted, then CR LF\"\r\n"
            + "4,plain text before an escape,\"say \"\"hi\"\"\"\n"
            + "5,\"two\nlines\",\"ab\"c\n"
            + "6,bare\rcr,last field before CR LF\r\n"
            + "   \r\n"
            + "7,,\"\"\n"
            + "8,abcdefghijklmnopqrstuvwxyz0123456789\n"
            + "9,0123456789abcdef,0123456789abcdefg\n"
            + "10,\\N,\"0123456789abcdef\""
        try Self.expectAtEveryBoundary(
            text, format: .csv, header: ["id", "text", "note"],
            [
                ReadRow(
                    2, ["1", "abcdefghijklmnopq", "0123456789abcdef0123456789abcdef"],
                    raw: "1,abcdefghijklmnopq,0123456789abcdef0123456789abcdef"),
                ReadRow(3, ["2", "quoted field, past sixteen", nil], raw: "2,\"quoted field, past sixteen\",\\N"),
                ReadRow(4, ["3", "x", "quoted, then CR LF"], raw: "3,x,\"quoted, then CR LF\""),
                ReadRow(5, ["4", "plain text before an escape", "say \"hi\""], raw: "4,plain text before an escape,\"say \"\"hi\"\"\""),
                ReadRow(6, ["5", "two\nlines", "abc"], raw: "5,\"two\nlines\",\"ab\"c"),
                ReadRow(8, ["6", "bare\rcr", "last field before CR LF"], raw: "6,bare\rcr,last field before CR LF"),
                ReadRow(10, ["7", nil, ""], raw: "7,,\"\""),
                ReadRow(11, ["8", "abcdefghijklmnopqrstuvwxyz0123456789"], .fieldCount, raw: "8,abcdefghijklmnopqrstuvwxyz0123456789"),
                ReadRow(12, ["9", "0123456789abcdef", "0123456789abcdefg"], raw: "9,0123456789abcdef,0123456789abcdefg"),
                ReadRow(13, ["10", nil, "0123456789abcdef"], raw: "10,\\N,\"0123456789abcdef\""),
            ])
    }

    @Test func tsvFieldsAcrossBlocksAndChunks() throws {
        let text =
            "id\ttext\n1\tabcdefghijklmnopqrstuvwxyz\n2\tplain text for 16+ bytes\\tthen escaped\r\n3\tNULL\n"
            + "4\t\"quoted\" is plain, and so is \\N\n5\t0123456789abcdef\n6\t0123456789abcdefg\n"
        try Self.expectAtEveryBoundary(
            text, format: .tsv, header: ["id", "text"],
            [
                ReadRow(2, ["1", "abcdefghijklmnopqrstuvwxyz"], raw: "1\tabcdefghijklmnopqrstuvwxyz"),
                ReadRow(3, ["2", "plain text for 16+ bytes\tthen escaped"], raw: "2\tplain text for 16+ bytes\\tthen escaped"),
                ReadRow(4, ["3", nil], raw: "3\tNULL"),
                ReadRow(5, ["4", "\"quoted\" is plain, and so is N"], raw: "4\t\"quoted\" is plain, and so is \\N"),
                ReadRow(6, ["5", "0123456789abcdef"], raw: "5\t0123456789abcdef"),
                ReadRow(7, ["6", "0123456789abcdefg"], raw: "6\t0123456789abcdefg"),
            ])
    }

    /// `count` bytes that stop no field.
    static func filler(_ count: Int) -> String { String(repeating: "x", count: count) }

    /// Expects `text` to hold `byte` at each offset: the layouts below put stops on the edges of
    /// the fast path's 64-byte blocks, which start at 0 when the file is one chunk.
    static func expectLayout(_ text: String, _ bytes: [(offset: Int, byte: Character)]) {
        let utf8 = Array(text.utf8)
        for (offset, byte) in bytes { #expect(utf8[offset] == byte.asciiValue, "offset \(offset)") }
    }

    @Test func csvStopsOnBlockEdges() throws {
        let x = Self.filler
        let text =
            "id,text,note\n"
            + "1,\(x(48)),note\n"  // a delimiter ends block 0, its field starts block 1
            + "2,\(x(169)),\(x(14))\n"  // block 2 has no stop; the line feed ends block 3
            + "3,\"\(x(30)),\(x(29))\",\(x(62))\r\n"  // a closing quote ends block 4; \r and \n on both sides of 384
            + "4,\(x(60))\"\(x(61))\",\\N\n"  // quotes inside an unquoted field, the first ending block 6; \N across 512
            + "5,\"\(x(58))\"\"\",z\n"  // `""` across 576: the state machine
            + "6,last,\"quoted at the end\""
        Self.expectLayout(
            text,
            [
                (63, ","), (64, "n"), (255, "\n"), (256, "3"), (319, "\""), (320, ","), (383, "\r"), (384, "\n"), (447, "\""),
                (509, "\""), (511, "\\"), (512, "N"), (575, "\""), (576, "\""),
            ])
        try Self.expectAtEveryBoundary(
            text, format: .csv, header: ["id", "text", "note"],
            [
                ReadRow(2, ["1", x(48), "note"], raw: "1,\(x(48)),note"),
                ReadRow(3, ["2", x(169), x(14)], raw: "2,\(x(169)),\(x(14))"),
                ReadRow(4, ["3", "\(x(30)),\(x(29))", x(62)], raw: "3,\"\(x(30)),\(x(29))\",\(x(62))"),
                ReadRow(5, ["4", "\(x(60))\"\(x(61))\"", nil], raw: "4,\(x(60))\"\(x(61))\",\\N"),
                ReadRow(6, ["5", "\(x(58))\"", "z"], raw: "5,\"\(x(58))\"\"\",z"),
                ReadRow(7, ["6", "last", "quoted at the end"], raw: "6,last,\"quoted at the end\""),
            ])
    }

    @Test func tsvStopsOnBlockEdges() throws {
        let x = Self.filler
        let text =
            "id\ttext\tnote\n"
            + "1\t\(x(48))\tnote\n"  // a delimiter ends block 0, its field starts block 1
            + "2\t\(x(169))\t\(x(14))\n"  // block 2 has no stop; the line feed ends block 3
            + "3\t\(x(59))\tNULL\r\n"  // NULL across 320
            + "4\t\(x(55))\tz\r\n"  // \r and \n on both sides of 384
            + "5\t\(x(60))\\t\(x(60))\tNULL\n"  // an escape across 448: the state machine
            + "6\tlast\tend"
        Self.expectLayout(
            text,
            [
                (63, "\t"), (64, "n"), (255, "\n"), (256, "3"), (319, "U"), (320, "L"), (383, "\r"), (384, "\n"), (447, "\\"),
                (448, "t"),
            ])
        try Self.expectAtEveryBoundary(
            text, format: .tsv, header: ["id", "text", "note"],
            [
                ReadRow(2, ["1", x(48), "note"], raw: "1\t\(x(48))\tnote"),
                ReadRow(3, ["2", x(169), x(14)], raw: "2\t\(x(169))\t\(x(14))"),
                ReadRow(4, ["3", x(59), nil], raw: "3\t\(x(59))\tNULL"),
                ReadRow(5, ["4", x(55), "z"], raw: "4\t\(x(55))\tz"),
                ReadRow(6, ["5", "\(x(60))\t\(x(60))", nil], raw: "5\t\(x(60))\\t\(x(60))\tNULL"),
                ReadRow(7, ["6", "last", "end"], raw: "6\tlast\tend"),
            ])
    }

    /// Random records of every kind of field, many longer than a block: read in one chunk (the
    /// fast path wherever it applies) and in chunks of a few sizes, they must read as with
    /// 1-byte chunks, where every record but an empty line goes through the state machine.
    @Test(arguments: [TableFormat.csv, .tsv])
    func fastPathReadsAsTheStateMachine(format: TableFormat) throws {
        var random = SplitMix64(state: format == .csv ? 1 : 2)
        let delimiter = format == .csv ? "," : "\t"
        let pieces =
            format == .csv
            ? ["a", " ", "\r", ",", "\"", "\"\"", "\n", "\\N"]
            : ["a", " ", "\r", "\\", "\\t", "\\n", "\\\n", "NULL", "\""]
        var text = ["id", "text", "note"].joined(separator: delimiter) + "\n"
        for _ in 0..<300 {
            let fieldCount = random.below(3) == 0 ? 1 + random.below(5) : 3
            var fields: [String] = []
            for _ in 0..<fieldCount {
                // Mostly plain text of 0 to 99 bytes; now and then a piece that complicates it.
                var field = ""
                for _ in 0..<random.below(100) { field += random.below(40) == 0 ? pieces[random.below(pieces.count)] : "x" }
                if format == .csv && random.below(4) == 0 {
                    field = "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                }
                fields.append(field)
            }
            text += fields.joined(separator: delimiter) + (random.below(4) == 0 ? "\r\n" : "\n")
        }
        let folder = try TemporaryFolder()
        let path = try folder.write(format == .csv ? "t.csv" : "t.tsv", text)
        for keepRawBytes in [false, true] {
            let reference = try readTable(path, format: format, keepRawBytes: keepRawBytes, bufferSize: 1)
            #expect(reference.rows.count > 250)
            for bufferSize in [63, 64, 65, 1000, 1 << 20] {
                let read = try readTable(path, format: format, keepRawBytes: keepRawBytes, bufferSize: bufferSize)
                #expect(read.header == reference.header, "buffer \(bufferSize)")
                #expect(read.rows == reference.rows, "buffer \(bufferSize), raw bytes \(keepRawBytes)")
            }
        }
    }

    @Test func nextRowPullsEveryRowThenNil() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("t.csv", "a,b\n1,2\n\"3\",4")
        let reader = try TableFileReader(path: path, format: .csv)
        var rows: [[String?]] = []
        while let row = try reader.nextRow() { rows.append([row.string(at: 0), row.string(at: 1)]) }
        #expect(rows == [["1", "2"], ["3", "4"]])
        #expect(try reader.nextRow() == nil)
    }

    @Test func manyRowsStreamInOrder() throws {
        let folder = try TemporaryFolder()
        var text = "user_id,subscription_offering_id,offering_group_id,assigned_at\n"
        for index in 0..<20_000 { text += "u\(index),1,\(index % 3 + 1),2026-03-01 00:00:\(String(format: "%02d", index % 60))\n" }
        let path = try folder.writeGzip("user_offering_assignments.csv.gz", members: [text])
        let reader = try TableFileReader(path: path, format: .csv, bufferSize: 4096)
        var count = 0
        try reader.forEachRow { row in
            #expect(row.lineNumber == count + 2)
            #expect(row.string(at: 0) == "u\(count)")
            #expect(row.withBytes(at: 3) { Timestamp.parse($0) } != nil)
            count += 1
        }
        #expect(count == 20_000)
        #expect(reader.isGzip)
    }
}
