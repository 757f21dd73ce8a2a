/// Internal machinery: a resumable CSV (RFC 4180) / TSV (`mysql --batch`) record parser.
///
/// Chunks go in; records come out as `TableRow`s borrowing the parser's buffers. Records may
/// span chunks (and, in CSV, lines). Blank records (one unquoted field of only spaces, tabs
/// and `\r`) are skipped. A record longer than `maxRecordLength` bytes keeps no field bytes
/// beyond the limit: it is handed out with the `tooLong` problem.
struct DelimitedParser {
    let format: TableFormat
    let maxRecordLength: Int
    let keepRawBytes: Bool
    /// The header's field count, once known: a record with another count has the
    /// `fieldCount` problem.
    var expectedFieldCount: Int?

    /// Decoded bytes of the current record's fields.
    private var bytes = GrowableBuffer<UInt8>(capacity: 4096)
    private var spans = GrowableBuffer<FieldSpan>(capacity: 64)
    /// The current record's raw bytes from earlier chunks (when `keepRawBytes`).
    private var rawCarry: [UInt8] = []
    private var byteOrderMark = ByteOrderMarkSkipper()

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

    /// Parses `chunk`, calling `body` per record while it returns true. Returns the bytes not
    /// yet parsed when `body` returned false (nil when the whole chunk was parsed).
    mutating func feed(
        _ chunk: UnsafeRawBufferPointer, _ body: (TableRow) throws -> Bool
    ) rethrows -> UnsafeRawBufferPointer? {
        // Held-back bytes of a partial byte order mark never end a record.
        let (heldBack, rest) = byteOrderMark.filter(chunk)
        _ = try feedCore(heldBack, body)
        guard let stop = try feedCore(rest, body) else { return nil }
        return UnsafeRawBufferPointer(rebasing: rest[stop...])
    }

    /// Ends the stream: hands out the last record when it lacks its line ending.
    mutating func finish(_ body: (TableRow) throws -> Bool) rethrows {
        _ = try feedCore(byteOrderMark.finish(), body)
        guard recordInProgress else { return }
        var unterminated = false
        switch state {
        case .quoted: unterminated = true
        case .escape: append(0x5C)  // a lone backslash at the very end is itself
        default: break
        }
        _ = try endRecord(chunk: nil, rawStart: 0, end: 0, unterminated: unterminated, body)
    }

    // MARK: - Parsing

    private mutating func feedCore(_ chunk: UnsafeRawBufferPointer, _ body: (TableRow) throws -> Bool) rethrows -> Int? {
        guard let base = chunk.baseAddress, chunk.count > 0 else { return nil }
        let p = base.assumingMemoryBound(to: UInt8.self)
        let n = chunk.count
        let delimiter: UInt8 = format == .csv ? 0x2C : 0x09
        var i = 0
        var rawStart = 0
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
                    let keepGoing = try endRecord(chunk: p, rawStart: rawStart, end: j, body)
                    i = j + 1
                    rawStart = i
                    if !keepGoing { return i }
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
        // The end of the chunk: carry the current record's raw bytes.
        if rawStart < n {
            let length = n - rawStart
            carriedLength += length
            lastCarriedByte = p[n - 1]
            if keepRawBytes {
                let room = maxRecordLength + 1 - rawCarry.count
                if room > 0 { rawCarry.append(contentsOf: UnsafeRawBufferPointer(start: p + rawStart, count: min(room, length))) }
            }
            if storing && carriedLength > maxRecordLength + 1 {
                storing = false
                bytes.removeAll()
                spans.removeAll()
                fieldStart = 0
            }
        }
        return nil
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
                firstFieldBlank = !fieldQuoted && LineSplitter.isBlank(UnsafeRawBufferPointer(start: bytes.base + fieldStart, count: length))
            }
            spans.append(FieldSpan(start: fieldStart, end: end, isNull: isNull))
            fieldStart = end
        }
        fieldCount += 1
        fieldQuoted = false
        fieldEndsWithBareCR = false
    }

    /// Ends the record whose last raw byte in `chunk` is before `end` (the `\n`, or the end of
    /// the stream when `chunk` is nil). Returns whether to go on.
    private mutating func endRecord(
        chunk: UnsafePointer<UInt8>?, rawStart: Int, end: Int, unterminated: Bool = false,
        _ body: (TableRow) throws -> Bool
    ) rethrows -> Bool {
        endField(atRecordEnd: true)
        let recordStartLine = recordLine
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
        if !tooLong && !unterminated && fieldCount == 1 && firstFieldBlank { return true }
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
        let count = fieldCount
        let spanCount = tooLong ? 0 : spans.count
        // The raw bytes: in the chunk when the record did not span chunks, else carried.
        var rawInChunk: UnsafeRawBufferPointer?
        if keepRawBytes {
            if rawCarry.isEmpty, let chunk {
                rawInChunk = UnsafeRawBufferPointer(start: chunk + rawStart, count: rawKept)
            } else if let chunk, end > rawStart {
                let room = maxRecordLength + 1 - rawCarry.count
                if room > 0 {
                    rawCarry.append(contentsOf: UnsafeRawBufferPointer(start: chunk + rawStart, count: min(room, end - rawStart)))
                }
            }
        } else {
            rawInChunk = UnsafeRawBufferPointer(start: nil, count: 0)
        }
        let bytesBase = UnsafePointer(bytes.base)
        let spansBase = UnsafePointer(spans.base)
        if let rawInChunk {
            return try body(
                TableRow(
                    lineNumber: recordStartLine, count: count, problem: problem, bytes: bytesBase, spans: spansBase,
                    spanCount: spanCount, raw: rawInChunk))
        }
        return try rawCarry.withUnsafeBytes { carried in
            try body(
                TableRow(
                    lineNumber: recordStartLine, count: count, problem: problem, bytes: bytesBase, spans: spansBase,
                    spanCount: spanCount, raw: UnsafeRawBufferPointer(rebasing: carried[0..<min(rawKept, carried.count)])))
        }
    }

    private mutating func resetRecord() {
        bytes.removeAll()
        spans.removeAll()
        if !rawCarry.isEmpty { rawCarry.removeAll(keepingCapacity: true) }
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
