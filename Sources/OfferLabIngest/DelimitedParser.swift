import COfferLabSIMD

/// Internal machinery: a resumable CSV (RFC 4180) / TSV (`mysql --batch`) record parser.
///
/// Chunks go in (`start`); records come out one at a time (`nextRecord`, then `finish` at the
/// end of the stream) as `TableRow`s borrowing the parser's buffers and the chunk, valid until
/// the parser is called again. Records may span chunks (and, in CSV, lines). Blank records (one
/// unquoted field of only spaces, tabs and `\r`) are skipped. A record longer than
/// `maxRecordLength` bytes keeps no field bytes beyond the limit: it is handed out with the
/// `tooLong` problem.
///
/// A record that lies in its chunk and whose fields are the chunk's bytes as they are (no `""`,
/// escape or line break inside a field) is sliced from the chunk without copying
/// (`sliceRecord`): the bytes that can end a field are marked 64 at a time, one bit each, and
/// each field ends at the next set bit (`FieldStops`), with no search per field. Any other
/// record goes through the byte-by-byte state machine from its start.
struct DelimitedParser {
    let format: TableFormat
    let maxRecordLength: Int
    let keepRawBytes: Bool
    /// The header's field count, once known: a record with another count has the
    /// `fieldCount` problem.
    var expectedFieldCount: Int?

    /// Decoded bytes of the current record's fields (state machine).
    private var bytes = GrowableBuffer<UInt8>(capacity: 4096)
    /// The current record's fields: in `bytes`, or in the chunk for a sliced record.
    private var spans = GrowableBuffer<FieldSpan>(capacity: 64)
    /// The current record's raw bytes from earlier chunks (when `keepRawBytes`).
    private var rawCarry = GrowableBuffer<UInt8>(capacity: 256)
    /// The current record's `TableRowHeader`, in its first element.
    private let rowHeader = GrowableBuffer<TableRowHeader>(capacity: 1)
    private var byteOrderMark = ByteOrderMarkSkipper()

    /// The chunk being parsed, its length, the next byte to parse, and where the current
    /// record's raw bytes start in it.
    private var chunk: UnsafePointer<UInt8>?
    private var chunkCount = 0
    private var position = 0
    private var rawStart = 0
    /// The fast path's stops in the chunk.
    private var stops = FieldStops()

    private enum State {
        case fieldStart
        case unquoted
        case quoted
        /// CSV: a `"` inside a quoted field (the end of the field, or the first of `""`).
        case quotedQuote
        /// TSV: after a backslash.
        case escape
    }

    private var state = State.fieldStart
    private var fieldStart = 0
    /// CSV: the field started with a quote. TSV: the field holds an escape.
    private var fieldQuoted = false
    /// The field's last byte is a `\r` that was not quoted or escaped (the `\r` of `\r\n`).
    private var fieldEndsWithBareCR = false
    private var fieldCount = 0
    private var firstFieldBlank = false
    private var recordInProgress = false
    /// Current physical line (1-based) and the line on which the current record started.
    private var line = 1
    private var recordLine = 1
    /// Raw bytes of the current record seen in earlier chunks, and the last of them.
    private var carriedLength = 0
    private var lastCarriedByte: UInt8 = 0
    /// False once the record is known to be too long: its bytes are no longer kept.
    private var storing = true

    init(format: TableFormat, maxRecordLength: Int, keepRawBytes: Bool) {
        self.format = format
        self.maxRecordLength = min(max(maxRecordLength, 1), Int.max / 4)
        self.keepRawBytes = keepRawBytes
    }

    /// Makes `chunk` the bytes to parse next, once `nextRecord` has returned nil for the
    /// previous one. The chunk must stay valid until then.
    mutating func start(_ chunk: UnsafeRawBufferPointer) {
        let (heldBack, rest) = byteOrderMark.filter(chunk)
        if !heldBack.isEmpty {
            // Held-back bytes of a partial byte order mark never end a record.
            load(heldBack)
            _ = nextRecord()
        }
        load(rest)
    }

    /// The next record of the chunk, or nil when the chunk is used up (a record it ends
    /// without is carried to the next chunk).
    mutating func nextRecord() -> TableRow? {
        guard let p = chunk else { return nil }
        while position < chunkCount {
            if !recordInProgress {
                switch format == .csv ? sliceRecord(p, isCSV: true) : sliceRecord(p, isCSV: false) {
                case .record(let row): return row
                case .blank: continue
                case .notSliceable: break
                }
            }
            if let row = parseRecord(p) { return row }
        }
        carry(p)
        load(UnsafeRawBufferPointer(start: nil, count: 0))
        return nil
    }

    /// Ends the stream: the last record when it lacks its line ending.
    mutating func finish() -> TableRow? {
        // The held-back bytes of a partial byte order mark (a stream of only `EF` or `EF BB`).
        load(byteOrderMark.finish())
        _ = nextRecord()
        guard recordInProgress else { return nil }
        var unterminated = false
        switch state {
        case .quoted: unterminated = true
        case .escape: append(0x5C)  // a lone backslash at the very end is itself
        default: break
        }
        return endRecord(chunk: nil, rawStart: 0, end: 0, unterminated: unterminated)
    }

    // MARK: - Parsing

    private mutating func load(_ bytes: UnsafeRawBufferPointer) {
        chunk = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        chunkCount = bytes.count
        position = 0
        rawStart = 0
        stops.forgetBlock()
    }

    private enum SlicedRecord {
        case record(TableRow)
        /// A blank record, skipped.
        case blank
        /// The record is left to the state machine.
        case notSliceable
    }

    /// The fast path, at the start of a record: when the record ends in the chunk, is not too
    /// long, and each field is either unquoted (TSV: without a backslash) or, in CSV, quoted
    /// without a `"` or a line feed inside and followed directly by the delimiter or the line
    /// ending, its fields are the chunk's bytes as they are: each ends at one of the stops that
    /// `stops` finds 64 bytes at a time, and they are handed out in place. Changes nothing but
    /// `stops` when the record is not sliceable. Inlined twice, `isCSV` a constant in each copy.
    @inline(__always)
    private mutating func sliceRecord(_ p: UnsafePointer<UInt8>, isCSV: Bool) -> SlicedRecord {
        let n = chunkCount
        let recordStart = position
        let delimiter: UInt8 = isCSV ? 0x2C : 0x09
        // What else stops a plain field: CSV a quote, TSV a backslash.
        let special: UInt8 = isCSV ? 0x22 : 0x5C
        // A local copy stays in registers; written back for the next record.
        var stops = self.stops
        defer { self.stops = stops }
        func nextStop() -> Int { stops.next(in: p, count: n, delimiter: delimiter, special: special) }
        stops.seek(to: recordStart, in: p, count: n, delimiter: delimiter, special: special)
        var i = recordStart
        var end: Int
        while true {
            end = nextStop()
            guard end < n else { return notSliceable() }
            var stop = p[end]
            if stop == special {
                guard isCSV else { return notSliceable() }  // a TSV escape
                if end == i {
                    // Quoted: the field ends at the next stop that is not a delimiter.
                    var close = nextStop()
                    while close < n && p[close] == delimiter { close = nextStop() }
                    guard close < n, p[close] == 0x22 else { return notSliceable() }
                    end = nextStop()
                    guard end < n else { return notSliceable() }
                    stop = p[end]
                    // Directly after the closing quote, or the `\n` of a `\r\n` (the `\r` is no stop).
                    let followsQuote = (stop == delimiter || stop == 0x0A) && end == close + 1
                    let followsQuoteAndCR = stop == 0x0A && end == close + 2 && p[close + 1] == 0x0D
                    guard followsQuote || followsQuoteAndCR else { return notSliceable() }
                    spans.append(FieldSpan(start: i + 1, end: close, isNull: false))
                    if stop == 0x0A { break }
                    i = end + 1
                    continue
                }
                // A `"` inside an unquoted field is kept as it is.
                repeat {
                    end = nextStop()
                    guard end < n else { return notSliceable() }
                    stop = p[end]
                } while stop == 0x22
            }
            var fieldEnd = end
            if stop == 0x0A && fieldEnd > i && p[fieldEnd - 1] == 0x0D { fieldEnd -= 1 }
            spans.append(FieldSpan(start: i, end: fieldEnd, isNull: isNullWord(p + i, fieldEnd - i)))
            if stop == 0x0A { break }
            i = end + 1
        }
        let lineFeed = end
        let rawLength = lineFeed - recordStart - (lineFeed > recordStart && p[lineFeed - 1] == 0x0D ? 1 : 0)
        guard rawLength <= maxRecordLength else { return notSliceable() }
        position = lineFeed + 1
        rawStart = position
        let count = spans.count
        let recordStartLine = line
        line += 1
        recordLine = line
        spans.removeAll()  // the row still reads them: nothing overwrites them before the next call
        if count == 1 && !(isCSV && p[recordStart] == 0x22) {
            let field = spans.base[0]
            if LineSplitter.isBlank(UnsafeRawBufferPointer(start: p + field.start, count: field.end - field.start)) {
                return .blank
            }
        }
        let problem: TableRowProblem? = expectedFieldCount.map { $0 != count } == true ? .fieldCount : nil
        return .record(
            row(
                TableRowHeader(
                    lineNumber: recordStartLine, count: count, spanCount: count,
                    raw: UnsafeRawBufferPointer(start: keepRawBytes ? p + recordStart : nil, count: keepRawBytes ? rawLength : 0),
                    problem: problem),
                bytes: p))
    }

    private mutating func notSliceable() -> SlicedRecord {
        spans.removeAll()
        return .notSliceable
    }

    /// Whether an unquoted field without escapes is NULL: CSV nothing or `\N`, TSV `NULL`.
    @inline(__always)
    private func isNullWord(_ field: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        switch format {
        case .csv: length == 0 || (length == 2 && field[0] == 0x5C && field[1] == 0x4E)
        case .tsv: length == 4 && field[0] == 0x4E && field[1] == 0x55 && field[2] == 0x4C && field[3] == 0x4C
        }
    }

    /// The state machine: parses from `position` until a record ends (returning it, or nil
    /// when it is blank) or the chunk does (nil).
    private mutating func parseRecord(_ p: UnsafePointer<UInt8>) -> TableRow? {
        let n = chunkCount
        let delimiter: UInt8 = format == .csv ? 0x2C : 0x09
        var i = position
        defer { position = i }
        while i < n {
            recordInProgress = true
            switch state {
            case .fieldStart:
                let c = p[i]
                if format == .csv {
                    if c == 0x22 {
                        fieldQuoted = true
                        state = .quoted
                        i += 1
                        continue
                    }
                    if c == 0x2C {
                        endField(atRecordEnd: false)
                        i += 1
                        continue
                    }
                }
                state = .unquoted
            case .unquoted:
                var j = i
                if format == .csv {
                    while j < n {
                        let c = p[j]
                        if c == 0x2C || c == 0x0A { break }
                        j += 1
                    }
                } else {
                    while j < n {
                        let c = p[j]
                        if c == 0x09 || c == 0x0A || c == 0x5C { break }
                        j += 1
                    }
                }
                if j > i {
                    append(p + i, j - i)
                    fieldEndsWithBareCR = p[j - 1] == 0x0D
                }
                i = j
                guard j < n else { break }
                let c = p[j]
                if c == 0x0A {
                    let row = endRecord(chunk: p, rawStart: rawStart, end: j)
                    i = j + 1
                    rawStart = i
                    return row
                } else if c == delimiter {
                    endField(atRecordEnd: false)
                    state = .fieldStart
                    i += 1
                } else {  // TSV backslash
                    fieldQuoted = true
                    fieldEndsWithBareCR = false
                    state = .escape
                    i += 1
                }
            case .quoted:
                var j = i
                while j < n {
                    let c = p[j]
                    if c == 0x22 { break }
                    if c == 0x0A { line += 1 }
                    j += 1
                }
                if j > i { append(p + i, j - i) }
                fieldEndsWithBareCR = false
                i = j
                if j < n {
                    state = .quotedQuote
                    i += 1
                }
            case .quotedQuote:
                let c = p[i]
                if c == 0x22 {
                    append(0x22)
                    state = .quoted
                    i += 1
                } else if c == 0x2C {
                    endField(atRecordEnd: false)
                    state = .fieldStart
                    i += 1
                } else {
                    // A newline ends the record in the unquoted state; anything else after a
                    // closing quote is kept as it is.
                    state = .unquoted
                }
            case .escape:
                let c = p[i]
                switch c {
                case 0x74: append(0x09)  // t
                case 0x6E: append(0x0A)  // n
                case 0x72: append(0x0D)  // r
                case 0x30: append(0x00)  // 0
                case 0x0A:
                    line += 1
                    append(0x0A)
                default: append(c)  // \\ and any other \x: x
                }
                fieldEndsWithBareCR = false
                state = .unquoted
                i += 1
            }
        }
        return nil
    }

    /// The end of the chunk: carries the current record's raw bytes.
    private mutating func carry(_ p: UnsafePointer<UInt8>) {
        let n = chunkCount
        guard rawStart < n else { return }
        let length = n - rawStart
        carriedLength += length
        lastCarriedByte = p[n - 1]
        if keepRawBytes {
            let room = maxRecordLength + 1 - rawCarry.count
            if room > 0 { rawCarry.append(p + rawStart, count: min(room, length)) }
        }
        if storing && carriedLength > maxRecordLength + 1 {
            storing = false
            bytes.removeAll()
            spans.removeAll()
            fieldStart = 0
        }
    }

    @inline(__always)
    private mutating func append(_ source: UnsafePointer<UInt8>, _ count: Int) {
        if storing { bytes.append(source, count: count) }
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        if storing { bytes.append(byte) }
    }

    private mutating func endField(atRecordEnd: Bool) {
        if storing {
            if atRecordEnd && fieldEndsWithBareCR { bytes.removeLast() }
            let end = bytes.count
            let length = end - fieldStart
            var isNull = false
            if !fieldQuoted {
                switch format {
                case .csv:
                    isNull = length == 0 || (length == 2 && bytes[fieldStart] == 0x5C && bytes[fieldStart + 1] == 0x4E)
                case .tsv:
                    isNull =
                        length == 4 && bytes[fieldStart] == 0x4E && bytes[fieldStart + 1] == 0x55
                        && bytes[fieldStart + 2] == 0x4C && bytes[fieldStart + 3] == 0x4C
                }
            }
            if fieldCount == 0 {
                firstFieldBlank =
                    !fieldQuoted && LineSplitter.isBlank(UnsafeRawBufferPointer(start: bytes.base + fieldStart, count: length))
            }
            spans.append(FieldSpan(start: fieldStart, end: end, isNull: isNull))
            fieldStart = end
        }
        fieldCount += 1
        fieldQuoted = false
        fieldEndsWithBareCR = false
    }

    /// Ends the record whose last raw byte in `chunk` is before `end` (the `\n`, or the end of
    /// the stream when `chunk` is nil). Returns it, or nil when it is blank.
    private mutating func endRecord(
        chunk: UnsafePointer<UInt8>?, rawStart: Int, end: Int, unterminated: Bool = false
    ) -> TableRow? {
        endField(atRecordEnd: true)
        let recordStartLine = recordLine
        // The row reads the buffers after the reset: nothing overwrites them before the next call.
        defer {
            if chunk != nil { line += 1 }
            recordLine = line
            resetRecord()
        }
        // Raw length without the final `\r` of a `\r\n`.
        let lastRawByte = end > rawStart ? chunk?[end - 1] : (carriedLength > 0 ? lastCarriedByte : nil)
        var rawLength = carriedLength + (end - rawStart)
        if lastRawByte == 0x0D && !unterminated { rawLength -= 1 }
        let tooLong = rawLength > maxRecordLength || !storing
        if !tooLong && !unterminated && fieldCount == 1 && firstFieldBlank { return nil }
        let problem: TableRowProblem?
        if unterminated {
            problem = .unterminatedQuote
        } else if tooLong {
            problem = .tooLong
        } else if let expectedFieldCount, expectedFieldCount != fieldCount {
            problem = .fieldCount
        } else {
            problem = nil
        }
        let rawKept = min(rawLength, maxRecordLength)
        // The raw bytes: in the chunk when the record did not span chunks, else carried.
        var raw = UnsafeRawBufferPointer(start: nil, count: 0)
        if keepRawBytes {
            if rawCarry.count == 0, let chunk {
                raw = UnsafeRawBufferPointer(start: chunk + rawStart, count: rawKept)
            } else {
                if let chunk, end > rawStart {
                    let room = maxRecordLength + 1 - rawCarry.count
                    if room > 0 { rawCarry.append(chunk + rawStart, count: min(room, end - rawStart)) }
                }
                raw = UnsafeRawBufferPointer(start: rawCarry.base, count: min(rawKept, rawCarry.count))
            }
        }
        return row(
            TableRowHeader(
                lineNumber: recordStartLine, count: fieldCount, spanCount: tooLong ? 0 : spans.count, raw: raw, problem: problem),
            bytes: bytes.base)
    }

    /// A row of the current record's fields (`spans`) in `bytes`, described by `header`.
    @inline(__always)
    private func row(_ header: TableRowHeader, bytes: UnsafePointer<UInt8>) -> TableRow {
        rowHeader.base.initialize(to: header)
        return TableRow(header: rowHeader.base, bytes: bytes, spans: spans.base)
    }

    private mutating func resetRecord() {
        bytes.removeAll()
        spans.removeAll()
        rawCarry.removeAll()
        state = .fieldStart
        fieldStart = 0
        fieldQuoted = false
        fieldEndsWithBareCR = false
        fieldCount = 0
        firstFieldBlank = false
        recordInProgress = false
        carriedLength = 0
        storing = true
    }
}

/// Internal machinery of `DelimitedParser`'s fast path: the stops of a chunk, the bytes that can
/// end or complicate a plain field (the delimiter, `\n`, and `"` in CSV or `\` in TSV), visited
/// in order. They are marked 64 bytes at a time, one bit each (`offerlab_any_of_three_mask64`):
/// the next stop is a bit scan, and the only loop is one step per block, not one per field.
struct FieldStops {
    /// Where the current block starts in the chunk, and its stops (bit k: byte `blockStart + k`);
    /// `Int.min` when there is none.
    private var blockStart = Int.min
    private var blockStops: UInt64 = 0
    /// The block's stops not visited yet.
    private var unvisited: UInt64 = 0

    /// For a new chunk: the block was another chunk's.
    mutating func forgetBlock() {
        blockStart = Int.min
    }

    /// Makes the stops at and after `index` (`index < n`) the ones to visit: the current block's
    /// when it holds `index` (the previous record's block usually does), else a block from `index`.
    @inline(__always)
    mutating func seek(to index: Int, in p: UnsafePointer<UInt8>, count n: Int, delimiter: UInt8, special: UInt8) {
        let offset = index &- blockStart
        if UInt(bitPattern: offset) < 64 {
            unvisited = blockStops & (~0 &<< UInt64(offset))
        } else {
            load(at: index, in: p, count: n, delimiter: delimiter, special: special)
        }
    }

    /// The index of the next stop, now visited; `n` when the chunk has no more.
    @inline(__always)
    mutating func next(in p: UnsafePointer<UInt8>, count n: Int, delimiter: UInt8, special: UInt8) -> Int {
        while unvisited == 0 {
            guard blockStart + 64 < n else { return n }
            load(at: blockStart + 64, in: p, count: n, delimiter: delimiter, special: special)
        }
        let index = blockStart &+ unvisited.trailingZeroBitCount
        unvisited &= unvisited &- 1
        return index
    }

    @inline(__always)
    private mutating func load(at start: Int, in p: UnsafePointer<UInt8>, count n: Int, delimiter: UInt8, special: UInt8) {
        blockStart = start
        blockStops = offerlab_any_of_three_mask64(p, start, n, 0x0A, delimiter, special)
        unvisited = blockStops
    }
}
