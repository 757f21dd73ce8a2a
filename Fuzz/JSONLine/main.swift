// Fuzz target `json-line`: `JSONLineParser` against the plain reference reader.
//
// Checks, for every input: the parser never crashes; it calls the line a valid JSON object
// exactly when the reference does; ranges stay inside the record's text; a parser and record
// reused after another line give the same result as fresh ones, and so does a parser that
// borrows plain lines; the SSE2 and AVX2 quote bitmaps agree (where the CPU has AVX2, the parser
// uses the latter only); on a valid event, the user, event name and optional id fields hold the
// reference's decoded values (snake_case over camelCase, the last repeat wins, an empty string
// or null is absent).

import COfferLabSIMD

/// Parsed before each input by the reused parser, so that state leaking from one line to the
/// next would show.
private let warmUp = Array(
    #"{"ts":"2026-03-01T12:00:00.123456789+05:30","userId":"u\u00e9\ud83d\ude00","event":"purchase","product_id":"p","transaction_id":"t","price":"7.99","currency":"EUR","x":[{"y":[1,2,{"z":null}]}]}"#
        .utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let line = FuzzInput(data, size).rest
    var parser = JSONLineParser()
    var record = LogRecord()
    let reason = parser.parse(line, into: &record)
    let digest = RecordDigest(reason, record)

    var reusedParser = JSONLineParser()
    var reusedRecord = LogRecord()
    warmUp.withUnsafeBytes { _ = reusedParser.parse($0, into: &reusedRecord) }
    let reusedReason = reusedParser.parse(line, into: &reusedRecord)
    require(RecordDigest(reusedReason, reusedRecord) == digest, "a reused parser disagrees with a fresh one")

    // As `LogFileScanner` parses: plain lines borrowed, not copied (the line outlives the digest).
    var borrowingParser = JSONLineParser(borrowsPlainLines: true)
    warmUp.withUnsafeBytes { _ = borrowingParser.parse($0, into: &reusedRecord) }
    let borrowedReason = borrowingParser.parse(line, into: &reusedRecord)
    require(RecordDigest(borrowedReason, reusedRecord) == digest, "a parser that borrows plain lines disagrees with one that copies them")

    #if arch(x86_64)
        if offerlab_cpu_has_avx2() != 0, let bytes = line.baseAddress?.assumingMemoryBound(to: UInt8.self) {
            var sse2Words = [UInt64](repeating: 0, count: (line.count + 63) / 64)
            var avx2Words = sse2Words
            let sse2Plain = offerlab_json_plain_quotes_sse2(bytes, line.count, &sse2Words)
            let avx2Plain = offerlab_json_plain_quotes_avx2(bytes, line.count, &avx2Words)
            require(sse2Plain == avx2Plain && (sse2Plain == 0 || sse2Words == avx2Words), "the SSE2 and AVX2 quote bitmaps differ")
        }
    #endif

    let members = ReferenceJSON.members(Array(line))
    require(
        (members != nil) == (reason != .invalidJSON), "reference says valid=\(members != nil), parser says \(String(describing: reason))")
    guard let members else { return 0 }

    func value(_ key: String) -> ReferenceJSON.Value? {
        let key = Array(key.utf8)
        guard let value = members.last(where: { $0.key == key })?.value, value != .null else { return nil }
        return value
    }
    guard value("ts") != nil, let user = value("user_id") ?? value("userId"), let event = value("event") else {
        require(reason == .missingField, "a required key is absent but the reason is \(String(describing: reason))")
        return 0
    }
    guard reason == nil else { return 0 }

    func text(_ value: ReferenceJSON.Value?) -> [UInt8]? {
        switch value {
        case .string(let bytes): bytes
        case .number(let bytes, isInteger: true): bytes
        default: nil
        }
    }
    require(text(user) == digest.fields[1] && !(text(user) ?? []).isEmpty, "user_id differs from the reference")
    require(event == .string(digest.fields[2] ?? []), "event differs from the reference")
    func optional(_ key: String) -> [UInt8]? {
        guard let bytes = text(value(key)), !bytes.isEmpty else { return nil }
        return bytes
    }
    let expected: [[UInt8]?] = [
        optional("event_id") ?? optional("eventId"), text(user), digest.fields[2],
        optional("product_id") ?? optional("productId"), optional("transaction_id") ?? optional("transactionId"),
        optional("original_transaction_id") ?? optional("originalTransactionId"), optional("currency"),
        optional("offering_id") ?? optional("offeringId"), optional("test_group_id") ?? optional("testGroupId"),
    ]
    require(expected == digest.fields, "decoded fields differ from the reference")
    return 0
}
