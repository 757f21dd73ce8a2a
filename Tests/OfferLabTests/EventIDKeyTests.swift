import Foundation
import Testing

@testable import OfferLab
@testable import OfferLabEvents

@Suite struct EventIDKeyTests {
    /// The key as a plain loop computes it (the reference for the word-at-a-time decoder).
    static func reference(_ text: String) -> EventIDKey? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        var value: [UInt8] = []
        var lower = false
        var upper = false
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value.append(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"):
                value.append(byte - UInt8(ascii: "a") + 10)
                lower = true
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                value.append(byte - UInt8(ascii: "A") + 10)
                upper = true
            default: return nil
            }
        }
        if lower && upper { return nil }
        let high = value[0..<16].reduce(UInt64(0)) { $0 << 4 | UInt64($1) }
        let low = value[16..<32].reduce(UInt64(0)) { $0 << 4 | UInt64($1) }
        return EventIDKey(high: high, low: low, form: upper ? .uppercaseUUID : .lowercaseUUID)
    }

    static func key(_ text: String) -> EventIDKey? {
        Array(text.utf8).withUnsafeBytes { EventIDKey.uuid($0) }
    }

    @Test func canonicalUUIDsAreTheirBitsAndCase() {
        let text = "683a856a-5a34-4da5-9f7d-ef4aee85b24a"
        #expect(Self.key(text) == EventIDKey(high: 0x683a_856a_5a34_4da5, low: 0x9f7d_ef4a_ee85_b24a, form: .lowercaseUUID))
        #expect(Self.key(text.uppercased()) == EventIDKey(high: 0x683a_856a_5a34_4da5, low: 0x9f7d_ef4a_ee85_b24a, form: .uppercaseUUID))
        // The same UUID in two cases is two different ids.
        #expect(Self.key(text) != Self.key(text.uppercased()))
        #expect(Self.key("00000000-0000-0000-0000-000000000000")?.form == .lowercaseUUID)
    }

    @Test func otherTextsHaveNoUUIDKey() {
        for text in [
            "683a856a-5a34-4da5-9f7d-ef4aee85b24A",  // mixed case
            "683a856a-5a34-4da5-9f7d-ef4aee85b24",  // short
            "683a856a-5a34-4da5-9f7d-ef4aee85b24aa",  // long
            "683a856a5a34-4da5-9f7d-ef4aee85b24a0",  // dash moved
            "{83a856a-5a34-4da5-9f7d-ef4aee85b24a", "evt_1", "",
        ] {
            #expect(Self.key(text) == nil, "\(text)")
        }
    }

    /// Every position with every byte that could fool a range check: the decoder agrees with
    /// the plain loop.
    @Test func agreesWithAPlainDecoderOnEveryPositionAndByte() {
        var generator = SystemRandomNumberGenerator()
        let alphabets = ["0123456789abcdef", "0123456789ABCDEF"]
        for alphabet in alphabets {
            let characters = Array(alphabet)
            for _ in 0..<20 {
                var base = (0..<32).map { _ in characters[Int.random(in: 0..<16, using: &generator)] }
                base.insert("-", at: 8)
                base.insert("-", at: 13)
                base.insert("-", at: 18)
                base.insert("-", at: 23)
                let text = String(base)
                #expect(Self.key(text) == Self.reference(text))
                var bytes = Array(text.utf8)
                for position in 0..<36 {
                    let original = bytes[position]
                    for byte: UInt8 in [
                        0x00, 0x2F, 0x30, 0x39, 0x3A, 0x40, 0x41, 0x46, 0x47, 0x60, 0x61, 0x66, 0x67, 0x7F, 0x80, 0xB0, 0xC1, 0xE6, 0xFF,
                    ] {
                        bytes[position] = byte
                        let mutated = bytes.withUnsafeBytes { EventIDKey.uuid($0) }
                        let expected = String(bytes: bytes, encoding: .utf8).flatMap(Self.reference)
                        #expect(mutated == expected, "byte \(byte) at \(position) of \(text)")
                    }
                    bytes[position] = original
                }
            }
        }
    }

    static func exact(_ text: String) -> EventIDKey? {
        Array(text.utf8).withUnsafeBytes { EventIDKey.exact($0) }
    }

    @Test func hex32IsItsBitsAndCase() {
        #expect(
            Self.exact("683a856a5a344da59f7def4aee85b24a")
                == EventIDKey(high: 0x683a_856a_5a34_4da5, low: 0x9f7d_ef4a_ee85_b24a, form: .lowercaseHex32))
        #expect(Self.exact("683A856A5A344DA59F7DEF4AEE85B24A")?.form == .uppercaseHex32)
        for text in ["683a856a5a344da59f7def4aee85b24A", "683a856a5a344da59f7def4aee85b24g", "683a856a5a344da59f7def4aee85b24aa"] {
            #expect(Self.exact(text) == nil, "\(text)")
        }
    }

    @Test func decimalsWithoutLeadingZerosAreTheirValue() {
        #expect(Self.exact("1152921504619429889") == EventIDKey(high: 0, low: 1_152_921_504_619_429_889, form: .decimal))
        #expect(Self.exact("9999999999999999999") == EventIDKey(high: 0, low: 9_999_999_999_999_999_999, form: .decimal))
        #expect(Self.exact("0") == EventIDKey(high: 0, low: 0, form: .decimal))
        // A leading zero, a 20th digit or another character: not the value's only text.
        for text in ["0123", "00", "12345678901234567890", "12a", "-1", "1.5", " 1"] {
            #expect(Self.exact(text) == nil, "\(text)")
        }
    }

    @Test func canonicalULIDsAreTheir128Bits() {
        // The generator's ULID of 98ae6468-4b5e-4b43-b86c-ecb320d78363's bits.
        #expect(
            Self.exact("4RNSJ6GJTY9D1VGV7CPCGDF0V3") == EventIDKey(high: 0x98ae_6468_4b5e_4b43, low: 0xb86c_ecb3_20d7_8363, form: .ulid))
        #expect(Self.exact("7ZZZZZZZZZZZZZZZZZZZZZZZZZ") == EventIDKey(high: .max, low: .max, form: .ulid))
        // Over 128 bits, lowercase, and the letters that are not canonical digits.
        for text in [
            "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "4rnsj6gjty9d1vgv7cpcgdf0v3", "4RNSJ6GJTY9D1VGV7CPCGDF0VI", "4RNSJ6GJTY9D1VGV7CPCGDF0VU",
        ] {
            #expect(Self.exact(text) == nil, "\(text)")
        }
    }

    /// Two texts have the same exact key only when they are the same text, whatever their shape.
    @Test func exactKeysAreEqualOnlyForEqualTexts() {
        let texts = [
            "683a856a-5a34-4da5-9f7d-ef4aee85b24a", "683A856A-5A34-4DA5-9F7D-EF4AEE85B24A", "683a856a5a344da59f7def4aee85b24a",
            "683A856A5A344DA59F7DEF4AEE85B24A", "12345678901234567890123456789012", "0", "1", "10", "1000000000000000000",
            "00000000-0000-0000-0000-000000000000", "00000000000000000000000000000000", "00000000000000000000000000",
            "4RNSJ6GJTY9D1VGV7CPCGDF0V3",
        ]
        for first in texts {
            for second in texts {
                let (a, b) = (Self.exact(first), Self.exact(second))
                #expect(a != nil && b != nil)
                #expect((a == b) == (first == second), "\(first) and \(second)")
            }
        }
    }
}
