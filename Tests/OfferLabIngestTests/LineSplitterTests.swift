import Testing

@testable import OfferLabIngest

@Suite struct LineSplitterTests {
    struct Split: Equatable, CustomStringConvertible {
        var number: Int
        var text: String
        var tooLong: Bool
        var description: String { "\(number):\(text)\(tooLong ? "(too long)" : "")" }
    }

    /// Splits `text` fed in chunks of `chunkSize` bytes.
    static func split(_ text: String, chunkSize: Int, maxLineLength: Int = 1 << 20) -> (lines: [Split], splitter: LineSplitter) {
        var splitter = LineSplitter(maxLineLength: maxLineLength)
        var lines: [Split] = []
        let collect: (Line) -> Void = { lines.append(Split(number: $0.number, text: String($0.bytes), tooLong: $0.isTooLong)) }
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(start + chunkSize, bytes.count)
            bytes[start..<end].withUnsafeBytes { splitter.feed($0, collect) }
            start = end
        }
        splitter.finish(collect)
        return (lines, splitter)
    }

    /// Every chunk size from 1 to the whole text gives the same lines.
    static func expectSplit(_ text: String, maxLineLength: Int = 1 << 20, _ expected: [Split]) {
        for chunkSize in 1...max(1, text.utf8.count) {
            let (lines, _) = split(text, chunkSize: chunkSize, maxLineLength: maxLineLength)
            #expect(lines == expected, "chunk size \(chunkSize)")
        }
    }

    @Test func splitsOnNewlinesAcrossChunks() {
        Self.expectSplit(
            "{\"a\":1}\n{\"b\":2}\n",
            [Split(number: 1, text: "{\"a\":1}", tooLong: false), Split(number: 2, text: "{\"b\":2}", tooLong: false)])
    }

    @Test func dropsOneCarriageReturnBeforeTheNewline() {
        Self.expectSplit(
            "a\r\nb\r\r\nc\rd\n",
            [
                Split(number: 1, text: "a", tooLong: false), Split(number: 2, text: "b\r", tooLong: false),
                Split(number: 3, text: "c\rd", tooLong: false),
            ])
    }

    @Test func lastLineMayLackItsNewline() {
        Self.expectSplit("a\nlast", [Split(number: 1, text: "a", tooLong: false), Split(number: 2, text: "last", tooLong: false)])
        Self.expectSplit("last\r", [Split(number: 1, text: "last", tooLong: false)])
    }

    @Test func blankLinesAreSkippedButNumbered() {
        let text = "\na\n\n  \t\r\n\r\n \nb\n\t"
        Self.expectSplit(text, [Split(number: 2, text: "a", tooLong: false), Split(number: 7, text: "b", tooLong: false)])
        let (_, splitter) = Self.split(text, chunkSize: 3)
        #expect(splitter.lineCount == 8)  // 7 newlines, then the blank "\t" line
        #expect(splitter.nonBlankLineCount == 2)
    }

    @Test func aLineWithSpacesAroundTextIsNotBlank() {
        Self.expectSplit("  x \n", [Split(number: 1, text: "  x ", tooLong: false)])
    }

    @Test func emptyInputHasNoLines() {
        let (lines, splitter) = Self.split("", chunkSize: 1)
        #expect(lines.isEmpty)
        #expect(splitter.lineCount == 0)
    }

    @Test func longLinesAreMarkedAndCutToTheLimit() {
        // Limit 5: "12345" fits; "123456" does not (only its first 5 bytes are kept); "\r\n"
        // does not count towards the length.
        Self.expectSplit(
            "12345\n123456\n12345\r\nabcdefghijklmnop\r\nxyz",
            maxLineLength: 5,
            [
                Split(number: 1, text: "12345", tooLong: false), Split(number: 2, text: "12345", tooLong: true),
                Split(number: 3, text: "12345", tooLong: false), Split(number: 4, text: "abcde", tooLong: true),
                Split(number: 5, text: "xyz", tooLong: false),
            ])
    }

    @Test func aLongLastLineWithoutNewlineIsMarked() {
        Self.expectSplit(
            "ok\n1234567", maxLineLength: 5, [Split(number: 1, text: "ok", tooLong: false), Split(number: 2, text: "12345", tooLong: true)])
    }

    @Test func aLongBlankLineIsStillBlank() {
        Self.expectSplit("        \t   \nx\n", maxLineLength: 3, [Split(number: 2, text: "x", tooLong: false)])
    }

    @Test func extremeLimitsAreClamped() {
        Self.expectSplit(
            "ab\nc", maxLineLength: Int.max, [Split(number: 1, text: "ab", tooLong: false), Split(number: 2, text: "c", tooLong: false)])
        Self.expectSplit(
            "ab\nc", maxLineLength: 0, [Split(number: 1, text: "a", tooLong: true), Split(number: 2, text: "c", tooLong: false)])
    }

    @Test func defaultLimitIsOneMebibyte() {
        #expect(LineSplitter().maxLineLength == 1_048_576)
        let long = String(repeating: "x", count: 1_048_577)
        let (lines, _) = Self.split("\(long)\n\(long.dropLast())\n", chunkSize: 65_536)
        #expect(lines.map(\.tooLong) == [true, false])
        #expect(lines.map(\.text.utf8.count) == [1_048_576, 1_048_576])
    }
}
