// Generates synthetic purchase logs and tables, then measures how fast the ingest layer reads
// them (single thread). Usage: ingest-benchmark [MEGABYTES] [FOLDER]
//                          or: ingest-benchmark --file LOG.jsonl[.gz]  (the parser on real lines)
//                          or: ingest-benchmark --parser LOG.jsonl[.gz] PASSES  (for perf stat)
import OfferLabIngest
import OfferLabStatistics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A log file's bytes, decompressed, and its lines' ranges.
func loadLines(_ path: String) throws -> (bytes: [UInt8], lines: [Range<Int>]) {
    let reader = try InputFileReader(path: path)
    var all: [UInt8] = []
    try reader.forEachChunk { all.append(contentsOf: $0) }
    var lineRanges: [Range<Int>] = []
    var start = 0
    for (index, byte) in all.enumerated() where byte == 0x0A {
        lineRanges.append(start..<index)
        start = index + 1
    }
    return (all, lineRanges)
}

/// Parses every line once with `parser`; returns a checksum of the valid records' timestamps.
func parseLines(_ bytes: [UInt8], _ lines: [Range<Int>], _ parser: inout JSONLineParser, _ record: inout LogRecord) -> Int64 {
    var checksum: Int64 = 0
    bytes.withUnsafeBytes { raw in
        for range in lines where parser.parse(UnsafeRawBufferPointer(rebasing: raw[range]), into: &record) == nil {
            checksum &+= record.timestamp
        }
    }
    return checksum
}

/// `--file PATH`: the JSON Lines parser alone (lines already in memory), then the whole scanner,
/// on a real log file (for example one made by `offerlab generate`).
func measureFile(_ path: String) throws {
    let (all, lineRanges) = try loadLines(path)
    var checksum: Int64 = 0
    measure("\(path): JSONLineParser only, \(lineRanges.count) lines in memory", bytes: { Int64(all.count) }) {
        var parser = JSONLineParser()
        var record = LogRecord()
        checksum &+= parseLines(all, lineRanges, &parser, &record)
    }
    var summary: LogFileSummary?
    try measure("\(path): LogFileScanner (read, inflate, split, parse)", bytes: { summary?.uncompressedBytes ?? 0 }) {
        summary = try LogFileScanner(path: path).scan(record: { record, _ in checksum &+= record.pointee.timestamp }, malformed: { _ in })
    }
    print("checksum \(checksum)")
}

/// `--parser PATH PASSES`: the parser alone, PASSES times over the file's lines and nothing else
/// once they are read, so that `perf stat` of two pass counts gives the parser's instructions and
/// cycles per line: (count at 40 passes − count at 10) / 30 / lines.
func parseRepeatedly(_ path: String, passes: Int) throws {
    let (all, lineRanges) = try loadLines(path)
    var parser = JSONLineParser()
    var record = LogRecord()
    var checksum: Int64 = 0
    let clock = ContinuousClock()
    let elapsed = clock.measure {
        for _ in 0..<passes { checksum &+= parseLines(all, lineRanges, &parser, &record) }
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let nanosecondsPerLine = seconds * 1e9 / Double(max(passes * lineRanges.count, 1))
    print(
        "\(path): \(lineRanges.count) lines, \(passes) passes, \((nanosecondsPerLine * 10).rounded() / 10) ns per line (checksum \(checksum))"
    )
}

if CommandLine.arguments.count > 2 && (CommandLine.arguments[1] == "--file" || CommandLine.arguments[1] == "--parser") {
    do {
        if CommandLine.arguments[1] == "--file" {
            try measureFile(CommandLine.arguments[2])
        } else {
            try parseRepeatedly(
                CommandLine.arguments[2], passes: CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 10 : 10)
        }
    } catch {
        print("error: \(error)")
        exit(1)
    }
    exit(0)
}

let megabytes = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100 : 100
let folder = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : "/tmp"
let targetBytes = megabytes * 1_000_000

func writeFile(_ path: String, gzip: Bool, _ produce: (inout [UInt8]) -> Bool) throws {
    var buffer: [UInt8] = []
    buffer.reserveCapacity(1 << 20)
    if gzip {
        let writer = try GzipWriter(path: path, level: 1)
        var more = true
        while more {
            buffer.removeAll(keepingCapacity: true)
            more = produce(&buffer)
            try writer.write(buffer)
        }
        try writer.finish()
    } else {
        guard let file = fopen(path, "w") else { fatalError("cannot write \(path)") }
        var more = true
        while more {
            buffer.removeAll(keepingCapacity: true)
            more = produce(&buffer)
            _ = buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        }
        fclose(file)
    }
}

/// Realistic event lines: mostly snake_case, some camelCase, integer and text timestamps,
/// prices as numbers and strings, a few escapes, unknown keys.
func makeEventLines(into buffer: inout [UInt8], random: inout SplitMix64, written: inout Int) -> Bool {
    let events = ["paywall_view", "paywall_view", "paywall_view", "trial_start", "purchase", "renewal", "refund", "cancel", "expire"]
    for _ in 0..<5_000 {
        let user = random.below(2_000_000)
        let event = events[random.below(events.count)]
        let second = random.below(86_400 * 28)
        let camel = random.below(10) == 0
        var line = "{\"event_id\":\"evt_\(random.next() % 1_000_000_000_000)\","
        if random.below(3) == 0 {
            line += "\"ts\":\(1_772_323_200_000 + second * 1000 + random.below(1000)),"
        } else {
            let day = 1 + second / 86_400
            let hour = second / 3600 % 24
            let minute = second / 60 % 60
            let sec = second % 60
            func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
            line += "\"ts\":\"2026-03-\(two(day))T\(two(hour)):\(two(minute)):\(two(sec)).\(100 + random.below(900))Z\","
        }
        line += camel ? "\"userId\":\"user_\(user)\"," : "\"user_id\":\"user_\(user)\","
        line += "\"event\":\"\(event)\","
        if event != "paywall_view" && event != "cancel" && event != "expire" {
            let product = ["com.example.pro.monthly", "com.example.pro.annual", "com.example.pass.3day"][random.below(3)]
            line += camel ? "\"productId\":\"\(product)\"," : "\"product_id\":\"\(product)\","
            line += "\"transaction_id\":\"\(2_000_000_000_000 + random.below(1_000_000_000))\","
            line += "\"original_transaction_id\":\"\(2_000_000_000_000 + random.below(1_000_000_000))\","
            if event != "trial_start" {
                line += random.below(2) == 0 ? "\"price\":\(["7.99", "59.99", "2.99"][random.below(3)])," : "\"price\":\"9.99\","
                line += "\"currency\":\"\(["USD", "EUR", "GBP", "JPY"][random.below(4)])\","
            }
        }
        line +=
            "\"offering_id\":\"spring_2026_price_test\",\"test_group_id\":\"\(["control", "treatment_a", "treatment_b"][random.below(3)])\","
        line += "\"environment\":\"\(random.below(50) == 0 ? "Sandbox" : "Production")\","
        line += "\"platform\":\"ios\",\"country\":\"\(["US", "DE", "GB", "JP", "FR"][random.below(5)])\","
        line += random.below(20) == 0 ? "\"app_version\":\"3.2.1 \\\"beta\\\" \\u00e9\"}\n" : "\"app_version\":\"3.2.1\"}\n"
        buffer.append(contentsOf: line.utf8)
    }
    written += buffer.count
    return written < targetBytes
}

func makeAssignmentRows(into buffer: inout [UInt8], random: inout SplitMix64, written: inout Int) -> Bool {
    if written == 0 { buffer.append(contentsOf: "id,user_id,subscription_offering_id,offering_group_id,assigned_at\n".utf8) }
    for _ in 0..<10_000 {
        let id = written / 60 + random.below(1000)
        let second = random.below(86_400 * 28)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let row =
            "\(id),user_\(random.below(20_000_000)),1,\(1 + random.below(3)),2026-03-\(two(1 + second / 86_400)) \(two(second / 3600 % 24)):\(two(second / 60 % 60)):\(two(second % 60))\n"
        buffer.append(contentsOf: row.utf8)
    }
    written += buffer.count
    return written < targetBytes
}

func measure(_ name: String, bytes: () -> Int64, _ body: () throws -> Void) rethrows {
    let clock = ContinuousClock()
    var best = Duration.seconds(1_000_000)
    for _ in 0..<5 {
        let start = clock.now
        try body()
        best = min(best, clock.now - start)
    }
    let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
    let megabytes = Double(bytes()) / 1e6
    print("\(name): \(Int(megabytes)) MB in \(Int(seconds * 1000)) ms = \(Int(megabytes / seconds)) MB/s (best of 5)")
}

let jsonPath = "\(folder)/offerlab-bench-events.jsonl"
let gzipPath = "\(folder)/offerlab-bench-events.jsonl.gz"
let tablePath = "\(folder)/offerlab-bench-assignments.csv"
do {
    var random = SplitMix64(state: 42)
    var written = 0
    try writeFile(jsonPath, gzip: false) { makeEventLines(into: &$0, random: &random, written: &written) }
    random = SplitMix64(state: 42)
    written = 0
    try writeFile(gzipPath, gzip: true) { makeEventLines(into: &$0, random: &random, written: &written) }
    random = SplitMix64(state: 7)
    written = 0
    try writeFile(tablePath, gzip: false) { makeAssignmentRows(into: &$0, random: &random, written: &written) }

    var lastSummary: LogFileSummary?
    var checksum: Int64 = 0
    for bufferSize in [1 << 16, 1 << 18, 1 << 20] {
        try measure(
            "JSON Lines, plain file, LogFileScanner, \(bufferSize >> 10) KiB buffers", bytes: { lastSummary?.uncompressedBytes ?? 0 }
        ) {
            lastSummary = try LogFileScanner(path: jsonPath, bufferSize: bufferSize).scan(
                record: { record, _ in checksum &+= record.pointee.timestamp },
                malformed: { _ in })
        }
    }
    if let lastSummary {
        print(
            "  \(lastSummary.lines.nonBlankLines) lines, \(lastSummary.lines.validRecords) valid, \(lastSummary.lines.malformed.total) malformed"
        )
    }

    // The parser alone, on lines already in memory.
    let (all, lineRanges) = try loadLines(jsonPath)
    measure("JSON Lines, in memory, JSONLineParser only", bytes: { Int64(all.count) }) {
        var parser = JSONLineParser()
        var record = LogRecord()
        checksum &+= parseLines(all, lineRanges, &parser, &record)
    }
    for bufferSize in [1 << 16, 1 << 18, 1 << 20] {
        try measure(
            "JSON Lines, gzip (level 1), LogFileScanner, \(bufferSize >> 10) KiB buffers", bytes: { lastSummary?.uncompressedBytes ?? 0 }
        ) {
            lastSummary = try LogFileScanner(path: gzipPath, bufferSize: bufferSize).scan(
                record: { record, _ in checksum &+= record.pointee.timestamp }, malformed: { _ in })
        }
    }
    var gunzipped: Int64 = 0
    try measure("gzip (level 1) decompression alone, InputFileReader", bytes: { gunzipped }) {
        let reader = try InputFileReader(path: gzipPath)
        try reader.forEachChunk { checksum &+= Int64($0.count) }
        gunzipped = reader.uncompressedBytes
    }
    var tableBytes: Int64 = 0
    try measure("CSV table, plain file, TableFileReader", bytes: { tableBytes }) {
        let table = try TableFileReader(path: tablePath, format: .csv)
        try table.forEachRow { row in
            if let micros = row.withBytes(at: 4, { Timestamp.parse($0) }) { checksum &+= micros }
        }
        tableBytes = table.uncompressedBytes
    }
    print("checksum \(checksum)")
} catch {
    print("error: \(error)")
    exit(1)
}
for path in [jsonPath, gzipPath, tablePath] { unlink(path) }
