import Foundation
import OfferLabGenerate
import OfferLabStatistics
import Testing

@testable import OfferLabIngest

/// Our validator against Foundation's `JSONSerialization` on mutated lines: both must agree on
/// whether a line is a JSON object.
@Suite struct JSONDifferentialTests {
    static let seeds = [
        #"{"ts":"2026-03-01T12:00:00Z","user_id":"u1","event":"purchase","price":7.99,"x":[1,{"y":null},true,false,-0.5e+3]}"#,
        #"{"a":{"b":[[],{}]},"c":"d\n\"e","f":-12,"g":0.125,"h":1E9}"#,
        #"{"userId":42,"event":"cancel","ts":1772366400000,"n":[1,2,3],"s":"\\\/"}"#,
    ]

    static func foundationAcceptsObject(_ bytes: [UInt8]) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: []) else { return false }
        return object is [String: Any]
    }

    /// Where Foundation departs from RFC 8259: it accepts trailing commas (`[1,]`, `{…,}`) and
    /// rejects numbers too large for a Double (`1e400`, valid JSON). Such lines are not compared.
    static func isFoundationQuirk(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.range(of: #",\s*[\]}]"#, options: .regularExpression) != nil { return true }
        return text.range(of: #"[0-9][eE][+-]?[0-9]{3,}"#, options: .regularExpression) != nil
    }

    @Test func foundationQuirksAreInvalidOrValidForUs() {
        #expect(parseJSON(#"{"ts":1772366400000,"user_id":"u","event":"x","n":[1,2,]}"#).reason == .invalidJSON)
        #expect(parseJSON(#"{"ts":1772366400000,"user_id":"u","event":"x",}"#).reason == .invalidJSON)
        #expect(parseJSON(#"{"ts":1772366400000,"user_id":"u","event":"x","n":1e400}"#).reason == nil)
    }

    @Test func mutatedLinesAgreeWithFoundation() {
        let alphabet = Array(#"{}[]":,0123456789.eE+-tfnlrua \/\bx"#.utf8)
        var random = SplitMix64(state: 2026)
        var disagreements: [String] = []
        for seed in Self.seeds {
            let original = Array(seed.utf8)
            for _ in 0..<4_000 {
                var bytes = original
                for _ in 0..<(1 + random.below(3)) {
                    let position = random.below(bytes.count + 1)
                    switch random.below(3) {
                    case 0 where position < bytes.count: bytes.remove(at: position)
                    case 1: bytes.insert(alphabet[random.below(alphabet.count)], at: position)
                    default: if position < bytes.count { bytes[position] = alphabet[random.below(alphabet.count)] }
                    }
                }
                if Self.isFoundationQuirk(bytes) { continue }
                let ours = parseJSON(bytes).reason != .invalidJSON
                let theirs = Self.foundationAcceptsObject(bytes)
                if ours != theirs { disagreements.append("ours=\(ours) foundation=\(theirs): \(String(decoding: bytes, as: UTF8.self))") }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(20).joined(separator: "\n"))")
    }
}
