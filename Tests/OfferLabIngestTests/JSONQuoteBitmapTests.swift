import COfferLabSIMD
import Foundation
import OfferLabGenerate
import OfferLabStatistics
import Testing

@testable import OfferLabIngest

/// The quote-bitmap scan of plain lines (`offerlab_json_plain_quotes`, `PlainLineStrings`)
/// against the byte-by-byte scan, which decides every other line.
@Suite struct JSONQuoteBitmapTests {
    /// An implementation of `offerlab_json_plain_quotes`: bytes, length, words.
    typealias QuoteBitmap = (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt64>?) -> Int32

    /// What `offerlab_json_plain_quotes` must return: nil when the bytes are not plain.
    static func expectedQuoteWords(_ bytes: ArraySlice<UInt8>) -> [UInt64]? {
        var words = [UInt64](repeating: 0, count: (bytes.count + 63) / 64)
        for (offset, byte) in bytes.enumerated() {
            if byte == 0x5C || byte < 0x20 || byte >= 0x80 { return nil }
            if byte == 0x22 { words[offset / 64] |= 1 << UInt64(offset % 64) }
        }
        return words
    }

    @Test func quoteBitmapOfEveryLengthAndAlignmentWithSSE2() {
        Self.checkEveryLengthAndAlignment(offerlab_json_plain_quotes_sse2)
    }

    #if arch(x86_64)
        @Test(.enabled(if: offerlab_cpu_has_avx2() != 0, "the CPU has no AVX2"))
        func quoteBitmapOfEveryLengthAndAlignmentWithAVX2() {
            Self.checkEveryLengthAndAlignment(offerlab_json_plain_quotes_avx2)
        }
    #endif

    static func checkEveryLengthAndAlignment(_ quoteBitmap: QuoteBitmap) {
        var random = SplitMix64(state: 64)
        let plain = Array(#"ab"c:,{}[] 09"#.utf8)
        let unusual: [UInt8] = [0x5C, 0x00, 0x09, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        for length in 0...300 {
            for alignment in 0..<3 {
                var buffer = [UInt8](repeating: 0x22, count: alignment + length + 64)
                for index in 0..<length {
                    buffer[alignment + index] = plain[random.below(plain.count)]
                }
                // The bytes after the line are not its own: quotes, line feeds and backslashes.
                for index in (alignment + length)..<buffer.count { buffer[index] = [0x22, 0x0A, 0x5C][random.below(3)] }
                // Half the lines get one unusual byte, anywhere (0x7F is plain).
                if length > 0 && random.below(2) == 0 { buffer[alignment + random.below(length)] = unusual[random.below(unusual.count)] }
                let expected = Self.expectedQuoteWords(buffer[alignment..<(alignment + length)])
                var words = [UInt64](repeating: 0xDEAD, count: (length + 63) / 64 + 1)
                let isPlain = buffer.withUnsafeBufferPointer { bytes in
                    words.withUnsafeMutableBufferPointer { quoteBitmap(bytes.baseAddress! + alignment, length, $0.baseAddress!) }
                }
                #expect((isPlain != 0) == (expected != nil), "length \(length), alignment \(alignment)")
                if let expected, isPlain != 0 {
                    #expect(Array(words.prefix(expected.count)) == expected, "length \(length), alignment \(alignment)")
                    #expect(words[expected.count] == 0xDEAD, "wrote past its words")
                }
            }
        }
    }

    /// The last block of a line is read whole only within the line's memory page: a line that
    /// ends where readable memory ends must not fault.
    @Test func linesEndingAtAnUnreadablePageWithSSE2() {
        Self.checkLinesEndingAtAnUnreadablePage(offerlab_json_plain_quotes_sse2)
    }

    #if arch(x86_64)
        @Test(.enabled(if: offerlab_cpu_has_avx2() != 0, "the CPU has no AVX2"))
        func linesEndingAtAnUnreadablePageWithAVX2() {
            Self.checkLinesEndingAtAnUnreadablePage(offerlab_json_plain_quotes_avx2)
        }
    #endif

    /// Also parses each line, with whichever implementation the parser uses.
    static func checkLinesEndingAtAnUnreadablePage(_ quoteBitmap: QuoteBitmap) {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let memory = mmap(nil, 2 * pageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            memory != MAP_FAILED
        else {
            Issue.record("mmap failed")
            return
        }
        defer { munmap(memory, 2 * pageSize) }
        #expect(mprotect(memory + pageSize, pageSize, PROT_NONE) == 0)
        let pageEnd = memory.assumingMemoryBound(to: UInt8.self) + pageSize
        var parser = JSONLineParser()
        var record = LogRecord()
        for padding in 0..<70 {
            let line = Array(#"{"ts":1772366400000,"user_id":"u\#(String(repeating: "x", count: padding))","event":"cancel"}"#.utf8)
            let start = pageEnd - line.count
            line.withUnsafeBufferPointer { start.update(from: $0.baseAddress!, count: line.count) }
            var words = [UInt64](repeating: 0, count: 4)
            #expect(quoteBitmap(start, line.count, &words) == 1)
            #expect(parser.parse(UnsafeRawBufferPointer(start: start, count: line.count), into: &record) == nil)
            #expect(record.string(record.userID) == "u" + String(repeating: "x", count: padding))
        }
    }

    /// Every field of a parse, for comparing two parsers: the reason, the event type, the
    /// timestamp, the price, the sandbox flag, then each text field's value ("-": absent).
    static func outcome(_ parser: inout JSONLineParser, _ line: [UInt8]) -> [String] {
        var record = LogRecord()
        let reason = line.withUnsafeBytes { parser.parse($0, into: &record) }
        let ranges = [
            record.eventID, record.userID, record.eventName, record.productID, record.transactionID,
            record.originalTransactionID, record.currency, record.offeringID, record.testGroupID,
        ]
        return [
            "\(String(describing: reason))", "\(String(describing: record.eventType))", "\(record.timestamp)",
            "\(String(describing: record.price))", "\(record.isSandbox)",
        ] + ranges.map { record.string($0) ?? "-" }
    }

    /// The JSON lines of the sample data set: every variation the generator writes (camelCase,
    /// spaces, unknown keys of every type, escapes, malformed lines).
    static func sampleLines() throws -> [[UInt8]] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let logs = root.appendingPathComponent("sample-data/logs")
        let files =
            FileManager.default.enumerator(atPath: logs.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".jsonl.gz") } ?? []
        var lines: [[UInt8]] = []
        for file in files.sorted() {
            let bytes = try readAll(logs.appendingPathComponent(file).path)
            // As `LineSplitter` hands them out: without the `\r` of a `\r\n`.
            lines += bytes.split(separator: 0x0A, omittingEmptySubsequences: true).map {
                $0.last == 0x0D ? Array($0.dropLast()) : Array($0)
            }
        }
        return lines
    }

    @Test func bitmapScanAgreesWithByteByByteScanOnSampleLines() throws {
        let lines = try Self.sampleLines()
        var withBitmap = JSONLineParser()
        var byteByByte = JSONLineParser(usesQuoteBitmap: false)
        for line in lines {
            #expect(Self.outcome(&withBitmap, line) == Self.outcome(&byteByByte, line), "\(String(decoding: line, as: UTF8.self))")
        }
        // Most lines are taken by the bitmap scan: the comparison covers it.
        #expect(lines.count > 10_000)
        #expect(withBitmap.linesAcceptedByQuoteBitmap * 10 > lines.count * 9)
        #expect(byteByByte.linesAcceptedByQuoteBitmap == 0)
    }

    @Test func bitmapScanAgreesWithByteByByteScanOnMutatedLines() {
        let seeds = [
            #"{"event_id":"6285d6d6-ad3c-47e3-bf3a-60c80d7f4b3f","ts":"2026-03-03T20:55:16.105Z","user_id":"10000020","event":"purchase","product_id":"p.monthly","transaction_id":"t1","price":7.99,"currency":"USD","offering_id":"spring","test_group_id":"urgency","environment":"Sandbox","platform":"ios"}"#,
            #"{ "userId" : 42 , "event" : "renewal" , "ts" : 1772366400000 , "productId" : "p" , "transactionId" : 7 , "price" : "9.99" , "currency" : "EUR" , "flag" : true , "n" : null , "x" : -1.5e-7 }"#,
            #"{"ts":"2026-03-01 12:00:00","user_id":"u","event":"refund","product_id":"p","transaction_id":"t","test_group_id":null,"offering_id":"","a":[1],"b":{"c":"d"}}"#,
        ]
        // No backslash: mutated lines stay plain as long as they can.
        let alphabet = Array(#"{}[]":,0123456789.eE+-tfnlrua x"#.utf8)
        var random = SplitMix64(state: 2027)
        var withBitmap = JSONLineParser()
        var byteByByte = JSONLineParser(usesQuoteBitmap: false)
        var disagreements: [String] = []
        for seed in seeds {
            let original = Array(seed.utf8)
            for round in 0..<6_000 {
                var bytes = original
                // Some lines get a long string, so that strings and quotes cross 64-byte words.
                if round % 4 == 0 {
                    let position = original.firstIndex(of: 0x3A).map { $0 + 2 } ?? 0
                    bytes.insert(contentsOf: Array(repeating: UInt8(ascii: "y"), count: random.below(200)), at: position)
                }
                for _ in 0..<random.below(4) {
                    let position = random.below(bytes.count + 1)
                    switch random.below(3) {
                    case 0 where position < bytes.count: bytes.remove(at: position)
                    case 1: bytes.insert(alphabet[random.below(alphabet.count)], at: position)
                    default: if position < bytes.count { bytes[position] = alphabet[random.below(alphabet.count)] }
                    }
                }
                if Self.outcome(&withBitmap, bytes) != Self.outcome(&byteByByte, bytes) {
                    disagreements.append(String(decoding: bytes, as: UTF8.self))
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10).joined(separator: "\n"))")
        // Lines of every length up to 400 bytes, a good part of them valid and plain.
        #expect(withBitmap.linesAcceptedByQuoteBitmap > 3_000)
    }

    /// A plain line's nested values are skipped with its quote bitmap up to 64 containers deep;
    /// a deeper one is left to the byte-by-byte scan. Either way the line gets the same outcome.
    @Test func nestedValuesOfPlainLinesUpToSixtyFourDeep() {
        var withBitmap = JSONLineParser()
        var byteByByte = JSONLineParser(usesQuoteBitmap: false)
        func line(_ value: String) -> [UInt8] {
            Array(
                #"{"ts":"2026-03-01T12:00:00Z","user_id":"u7","device":\#(value),"event":"purchase","product_id":"p","transaction_id":"t","price":1.5,"currency":"EUR"}"#
                    .utf8)
        }
        for depth in 1...66 {
            // Arrays and objects taking turns, a string and a number at every level.
            var value = #""leaf""#
            for level in 0..<depth {
                value = level % 2 == 0 ? #"[1.5e3,"s\#(level)",\#(value),{}]"# : #"{"k":"v","n":\#(value),"e":[],"t":true}"#
            }
            let accepted = withBitmap.linesAcceptedByQuoteBitmap
            let outcome = Self.outcome(&withBitmap, line(value))
            #expect(outcome == Self.outcome(&byteByByte, line(value)), "depth \(depth)")
            #expect(outcome[0] == "nil", "depth \(depth)")
            // The known values around the nested one.
            #expect(
                outcome.dropFirst() == [
                    "Optional(OfferLabIngest.EventType.purchase)", "1772366400000000", "Optional(1500000)", "false",
                    "-", "u7", "purchase", "p", "t", "-", "EUR", "-", "-",
                ], "depth \(depth)")
            #expect(withBitmap.linesAcceptedByQuoteBitmap == accepted + (depth <= 64 ? 1 : 0), "depth \(depth)")
        }
        for invalid in [#"[1,]"#, #"{"a"}"#, #"{"a":}"#, #"[tru]"#, #"{"a":1,}"#, #"[[1]"#, #"{"a":[1}}"#, #"[01]"#, #"{1:2}"#, "[1 2]"] {
            let outcome = Self.outcome(&withBitmap, line(invalid))
            #expect(outcome == Self.outcome(&byteByByte, line(invalid)), "\(invalid)")
            #expect(outcome[0] == "Optional(OfferLabIngest.MalformedReason.invalidJSON)", "\(invalid)")
        }
    }
}
