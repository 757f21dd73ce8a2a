import COfferLabSIMD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Internal machinery: validating JSON (RFC 8259) scanning over borrowed bytes.
///
/// Every function takes an index and returns the index just after what it scanned, or -1 when
/// the bytes are not valid JSON there. Reading past the end yields 0, which is invalid wherever
/// it appears, so most bounds checks fold into the byte tests.
struct JSONScanner {
    let p: UnsafePointer<UInt8>
    let n: Int

    @inline(__always)
    init(_ base: UnsafeRawPointer, count: Int) {
        p = base.assumingMemoryBound(to: UInt8.self)
        n = count
    }

    @inline(__always)
    func peek(_ i: Int) -> UInt8 { i < n ? p[i] : 0 }

    /// Moves `i` past whitespace and returns the byte there (0 at the end): one bounds check and
    /// one load when there is no whitespace, as in compact JSON.
    @inline(__always)
    func nextByte(_ i: inout Int) -> UInt8 {
        if i < n {
            let c = p[i]
            if c > 0x20 { return c }
        }
        i = skipWhitespace(i)
        return peek(i)
    }

    @inline(__always)
    func skipWhitespace(_ start: Int) -> Int {
        var i = start
        // Compact JSON: the byte is mostly not whitespace (every whitespace byte is 0x20 or below).
        if i < n && p[i] > 0x20 { return i }
        while i < n {
            let c = p[i]
            guard c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A else { break }
            i += 1
        }
        return i
    }

    /// Scans a string whose opening quote is just before `start`: validates escapes, control
    /// characters and UTF-8. Returns the index after the closing quote; `escaped` is set when
    /// the string holds a backslash.
    @inline(__always)
    func scanString(_ start: Int, _ escaped: inout Bool) -> Int {
        var i = start
        while true {
            // Up to a quote, a backslash, a control character or a non-ASCII byte.
            i = offerlab_json_string_stop(p, i, n)
            guard i < n else { return -1 }
            let c = p[i]
            if c == 0x22 { return i + 1 }
            if c == 0x5C {
                escaped = true
                i = scanEscape(i)
            } else if c < 0x20 {
                return -1
            } else {
                i = scanUTF8(i)
            }
            if i < 0 { return -1 }
        }
    }

    /// Scans an escape sequence starting at the backslash at `i`.
    @inline(__always)
    func scanEscape(_ i: Int) -> Int {
        switch peek(i + 1) {
        case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:  // " \ / b f n r t
            return i + 2
        case 0x75:  // u
            let unit = hex4(i + 2)
            if unit < 0 { return -1 }
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard peek(i + 6) == 0x5C, peek(i + 7) == 0x75 else { return -1 }
                let low = hex4(i + 8)
                guard low >= 0xDC00, low <= 0xDFFF else { return -1 }
                return i + 12
            }
            if unit >= 0xDC00 && unit <= 0xDFFF { return -1 }
            return i + 6
        default:
            return -1
        }
    }

    /// Four hex digits at `i` as a code unit, or -1.
    @inline(__always)
    func hex4(_ i: Int) -> Int {
        guard i + 4 <= n else { return -1 }
        var value = 0
        for k in i..<(i + 4) {
            let c = p[k]
            let digit: Int
            switch c {
            case 0x30...0x39: digit = Int(c - 0x30)
            case 0x41...0x46: digit = Int(c - 0x41 + 10)
            case 0x61...0x66: digit = Int(c - 0x61 + 10)
            default: return -1
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Validates one UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF) at `i`.
    @inline(__always)
    func scanUTF8(_ i: Int) -> Int {
        let c = p[i]
        @inline(__always) func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            let b = peek(k)
            return b >= low && b <= high
        }
        switch c {
        case 0xC2...0xDF:
            return continuation(i + 1) ? i + 2 : -1
        case 0xE0:
            return continuation(i + 1, 0xA0) && continuation(i + 2) ? i + 3 : -1
        case 0xE1...0xEC, 0xEE, 0xEF:
            return continuation(i + 1) && continuation(i + 2) ? i + 3 : -1
        case 0xED:
            return continuation(i + 1, 0x80, 0x9F) && continuation(i + 2) ? i + 3 : -1
        case 0xF0:
            return continuation(i + 1, 0x90) && continuation(i + 2) && continuation(i + 3) ? i + 4 : -1
        case 0xF1...0xF3:
            return continuation(i + 1) && continuation(i + 2) && continuation(i + 3) ? i + 4 : -1
        case 0xF4:
            return continuation(i + 1, 0x80, 0x8F) && continuation(i + 2) && continuation(i + 3) ? i + 4 : -1
        default:
            return -1
        }
    }

    /// Scans a number at `i`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    /// `isInteger` tells whether it had neither fraction nor exponent.
    @inline(__always)
    func scanNumber(_ start: Int, _ isInteger: inout Bool) -> Int {
        var i = start
        if peek(i) == 0x2D { i += 1 }
        let first = peek(i)
        if first == 0x30 {
            i += 1
        } else if first &- 0x31 < 9 {
            i += 1
            while peek(i) &- 0x30 < 10 { i += 1 }
        } else {
            return -1
        }
        isInteger = true
        if peek(i) == 0x2E {
            i += 1
            guard peek(i) &- 0x30 < 10 else { return -1 }
            while peek(i) &- 0x30 < 10 { i += 1 }
            isInteger = false
        }
        let e = peek(i)
        if e == 0x65 || e == 0x45 {
            i += 1
            let sign = peek(i)
            if sign == 0x2B || sign == 0x2D { i += 1 }
            guard peek(i) &- 0x30 < 10 else { return -1 }
            while peek(i) &- 0x30 < 10 { i += 1 }
            isInteger = false
        }
        return i
    }

    /// Scans `true`, `false` or `null` at `i`.
    @inline(__always)
    func scanLiteral(_ i: Int) -> Int {
        switch peek(i) {
        case 0x74:  // true
            return i + 4 <= n && p[i + 1] == 0x72 && p[i + 2] == 0x75 && p[i + 3] == 0x65 ? i + 4 : -1
        case 0x66:  // false
            return i + 5 <= n && p[i + 1] == 0x61 && p[i + 2] == 0x6C && p[i + 3] == 0x73 && p[i + 4] == 0x65 ? i + 5 : -1
        case 0x6E:  // null
            return i + 4 <= n && p[i + 1] == 0x75 && p[i + 2] == 0x6C && p[i + 3] == 0x6C ? i + 4 : -1
        default:
            return -1
        }
    }

    /// Validates and skips any value at `start` (whitespace already skipped), nested objects
    /// and arrays included, without recursion: `containers` holds the open ones. Strings end
    /// where `strings` says. Returns -1 when the value is invalid, or nested deeper than
    /// `containers` holds.
    func skipValue<Strings: JSONStringEnds, Containers: OpenContainers>(
        _ start: Int, strings: Strings, containers: inout Containers
    ) -> Int {
        var i = start
        containers.closeAll()
        var escaped = false
        while true {
            // A value at i.
            switch peek(i) {
            case 0x22:
                i = strings.stringEnd(self, i + 1, &escaped)
            case 0x7B:  // {
                i = skipWhitespace(i + 1)
                if peek(i) == 0x7D {
                    i += 1
                } else {
                    guard containers.push(isObject: true) else { return -1 }
                    i = scanMemberStart(i, strings: strings)
                    if i < 0 { return -1 }
                    continue
                }
            case 0x5B:  // [
                i = skipWhitespace(i + 1)
                if peek(i) == 0x5D {
                    i += 1
                } else {
                    guard containers.push(isObject: false) else { return -1 }
                    continue
                }
            case 0x74, 0x66, 0x6E:
                i = scanLiteral(i)
            default:
                var isInteger = false
                i = scanNumber(i, &isInteger)
            }
            if i < 0 { return -1 }
            // After a value: close containers until one continues with a comma.
            while true {
                guard let isObject = containers.innermostIsObject else { return i }
                i = skipWhitespace(i)
                let c = peek(i)
                if c == 0x2C {
                    i = skipWhitespace(i + 1)
                    if isObject {
                        i = scanMemberStart(i, strings: strings)
                        if i < 0 { return -1 }
                    }
                    break
                } else if c == (isObject ? 0x7D : 0x5D) {
                    i += 1
                    containers.pop()
                } else {
                    return -1
                }
            }
        }
    }

    /// Scans `"key" :` and the whitespace after it; returns the index of the value.
    @inline(__always)
    private func scanMemberStart<Strings: JSONStringEnds>(_ start: Int, strings: Strings) -> Int {
        guard peek(start) == 0x22 else { return -1 }
        var escaped = false
        var i = strings.stringEnd(self, start + 1, &escaped)
        if i < 0 { return -1 }
        i = skipWhitespace(i)
        guard peek(i) == 0x3A else { return -1 }
        return skipWhitespace(i + 1)
    }

    /// Decodes the validated string content `start..<end` (between the quotes) into `out`;
    /// returns the number of bytes written (never more than `end - start`).
    func decodeString(_ start: Int, _ end: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var i = start
        var written = 0
        while i < end {
            guard let found = memchr(p + i, 0x5C, end - i) else {
                memcpy(out + written, p + i, end - i)
                return written + end - i
            }
            let backslash = (p + i).distance(to: found.assumingMemoryBound(to: UInt8.self)) + i
            memcpy(out + written, p + i, backslash - i)
            written += backslash - i
            let c = p[backslash + 1]
            i = backslash + 2
            switch c {
            case 0x62: out[written] = 0x08
            case 0x66: out[written] = 0x0C
            case 0x6E: out[written] = 0x0A
            case 0x72: out[written] = 0x0D
            case 0x74: out[written] = 0x09
            case 0x75:
                var scalar = UInt32(hex4(backslash + 2))
                i = backslash + 6
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = UInt32(hex4(backslash + 8))
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i = backslash + 12
                }
                written += encodeUTF8(scalar, out + written)
                continue
            default: out[written] = c  // " \ /
            }
            written += 1
        }
        return written
    }

    @inline(__always)
    private func encodeUTF8(_ scalar: UInt32, _ out: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0..<0x80:
            out[0] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out[0] = UInt8(0xC0 | scalar >> 6)
            out[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            out[0] = UInt8(0xE0 | scalar >> 12)
            out[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            out[0] = UInt8(0xF0 | scalar >> 18)
            out[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            out[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }
}

/// Where a string ends: the index after the closing quote of the string whose opening quote is
/// just before `start`, or -1; `escaped` is set when the string holds a backslash.
protocol JSONStringEnds {
    func stringEnd(_ json: JSONScanner, _ start: Int, _ escaped: inout Bool) -> Int
}

/// Where `JSONScanner.skipValue` keeps the containers it has opened.
protocol OpenContainers {
    /// Whether the innermost open container is an object (an array otherwise); nil when none is.
    var innermostIsObject: Bool? { get }
    /// Opens a container; false when there is no room for it.
    mutating func push(isObject: Bool) -> Bool
    mutating func pop()
    /// Forgets every open container (a value that was not valid may leave some).
    mutating func closeAll()
}

/// Any number of containers, in an array that keeps its room from value to value.
struct ContainerList: OpenContainers {
    private var isObject: [Bool] = []

    var innermostIsObject: Bool? { isObject.last }

    mutating func push(isObject object: Bool) -> Bool {
        isObject.append(object)
        return true
    }

    mutating func pop() { isObject.removeLast() }

    // Clearing an empty array still costs a call per value.
    mutating func closeAll() { if !isObject.isEmpty { isObject.removeAll(keepingCapacity: true) } }
}

/// Up to 64 containers, one bit each, in registers: no allocation, no memory traffic.
struct ContainerBits: OpenContainers {
    private var bits: UInt64 = 0
    private var depth = 0

    var innermostIsObject: Bool? { depth == 0 ? nil : bits & 1 != 0 }

    mutating func push(isObject: Bool) -> Bool {
        guard depth < 64 else { return false }
        bits = bits << 1 | (isObject ? 1 : 0)
        depth += 1
        return true
    }

    mutating func pop() {
        bits >>= 1
        depth -= 1
    }

    mutating func closeAll() {
        bits = 0
        depth = 0
    }
}

/// How `JSONLineParser` finds the end of a string and skips the value of an unknown key.
protocol JSONStringScanning: JSONStringEnds {
    /// The index after the value at `start`, or -1.
    mutating func skipValue(_ json: JSONScanner, _ start: Int) -> Int
}

/// Any line: strings validated byte by byte (escapes, control characters, UTF-8), nested values
/// skipped whole.
struct ValidatingStrings: JSONStringScanning {
    /// Open containers while skipping a nested value.
    private var containers = ContainerList()

    @inline(__always)
    func stringEnd(_ json: JSONScanner, _ start: Int, _ escaped: inout Bool) -> Int {
        ByteByByte().stringEnd(json, start, &escaped)
    }

    @inline(__always)
    mutating func skipValue(_ json: JSONScanner, _ start: Int) -> Int {
        json.skipValue(start, strings: ByteByByte(), containers: &containers)
    }

    /// The string ends without the containers, for `skipValue` to use while it changes them.
    private struct ByteByByte: JSONStringEnds {
        @inline(__always)
        func stringEnd(_ json: JSONScanner, _ start: Int, _ escaped: inout Bool) -> Int {
            json.scanString(start, &escaped)
        }
    }
}

/// A plain line (`offerlab_json_plain_quotes`: no backslash, no control character, no byte from
/// 0x80): no quote is escaped and every string is valid, so a string ends at the first quote
/// after its start, found in the quote bitmap from the start's position alone (a load, a mask,
/// a bit count) instead of a scan of the string's bytes. Nested values are skipped the same way,
/// up to 64 deep (`ContainerBits`); a line nested deeper is left to `ValidatingStrings`.
struct PlainLineStrings: JSONStringScanning {
    private let words: UnsafePointer<UInt64>
    private let count: Int

    init(words: UnsafePointer<UInt64>, count: Int) {
        self.words = words
        self.count = count
    }

    @inline(__always)
    func stringEnd(_ json: JSONScanner, _ start: Int, _ escaped: inout Bool) -> Int {
        var word = start >> 6
        guard word < count else { return -1 }
        // The quotes at or after `start` in its word, then in the words after it.
        var quotes = words[word] & (UInt64.max &<< UInt64(start & 63))
        while quotes == 0 {
            word += 1
            guard word < count else { return -1 }
            quotes = words[word]
        }
        return (word << 6 | quotes.trailingZeroBitCount) + 1
    }

    @inline(__always)
    func skipValue(_ json: JSONScanner, _ start: Int) -> Int {
        switch json.peek(start) {
        case 0x22:
            var escaped = false
            return stringEnd(json, start + 1, &escaped)
        case 0x74, 0x66, 0x6E:
            return json.scanLiteral(start)
        case 0x7B, 0x5B:
            var containers = ContainerBits()
            return json.skipValue(start, strings: self, containers: &containers)
        default:
            var isInteger = false
            return json.scanNumber(start, &isInteger)
        }
    }
}
