import Testing

@testable import OfferLabStoreSources

@Suite struct Base64Tests {
    @Test func eachAlphabetInItsPlace() {
        // 0xFB 0xFF: "+/8" in the standard alphabet, "-_8" in base64url.
        #expect(Base64.decode("-_8", urlSafe: true) == [0xFB, 0xFF])
        #expect(Base64.decode("+/8=", urlSafe: false) == [0xFB, 0xFF])
        #expect(Base64.decode("+/8", urlSafe: true) == nil)
        #expect(Base64.decode("-_8=", urlSafe: false) == nil)
    }

    @Test func malformedTextIsRefused() {
        #expect(Base64.decode("aGVsbG8", urlSafe: true) == Array("hello".utf8))
        #expect(Base64.decode("", urlSafe: true) == [])
        #expect(Base64.decode("aGVsbG8h!", urlSafe: true) == nil)  // not in the alphabet
        #expect(Base64.decode("aGVsb", urlSafe: true) == nil)  // 4n+1 characters
        #expect(Base64.decode("aGVsbG9", urlSafe: true) == nil)  // bits left over: not canonical
        #expect(Base64.decode("aGV sbG8", urlSafe: true) == nil)
    }
}
