import Testing

@testable import OfferLab
@testable import OfferLabSupport

@Suite struct ByteStringInternerTests {
    /// Strings of every length up to 40, and for each the same string with one byte changed at
    /// every position. The comparison reads words, halves and single bytes by length, and must
    /// see a difference wherever it is: tested through `intern(_:recent:)` guessing the
    /// unchanged string, which compares without a hash.
    @Test func stringsDifferingInOneByteGetTheirOwnIds() {
        var interner = ByteStringInterner()
        var ids: [[UInt8]: Int32] = [:]
        for length in 0...40 {
            let base = (0..<length).map { UInt8(0x61 + $0 % 26) }
            let baseID = base.withUnsafeBytes { interner.intern($0) }
            #expect(Int(baseID) == ids.count)
            ids[base] = baseID
            for position in 0..<length {
                var changed = base
                changed[position] = 0x30
                var recent = baseID
                let id = changed.withUnsafeBytes { interner.intern($0, recent: &recent) }
                #expect(id != baseID)
                #expect(recent == id)
                #expect(Int(id) == ids.count)
                ids[changed] = id
                var sameGuess = id
                #expect(changed.withUnsafeBytes { interner.intern($0, recent: &sameGuess) } == id)
            }
        }
        #expect(interner.count == ids.count)
        for (string, id) in ids {
            #expect(string.withUnsafeBytes { interner.lookup($0) } == id)
            #expect(string.withUnsafeBytes { interner.intern($0) } == id)
            #expect(interner.withBytes(of: id) { Array($0) } == string)
        }
        #expect([UInt8]("zzz".utf8).withUnsafeBytes { interner.lookup($0) } == nil)
    }

    /// An interner made again from another's `tables` (the parsed-log cache's past files) finds
    /// every string at its id and goes on interning after them; tables that cannot be an
    /// interner's are refused.
    @Test func anInternerMadeFromAnothersTablesIsTheSame() throws {
        var interner = ByteStringInterner()
        let strings = (0..<1000).map { [UInt8]("transaction-\($0 * 7919)".utf8) }
        for string in strings { _ = string.withUnsafeBytes { interner.intern($0) } }
        var copy = try #require(ByteStringInterner(tables: interner.tables))
        #expect(copy.count == strings.count)
        for (id, string) in strings.enumerated() {
            #expect(string.withUnsafeBytes { copy.lookup($0) } == Int32(id))
            #expect(copy.withBytes(of: Int32(id)) { Array($0) } == string)
        }
        #expect([UInt8]("new".utf8).withUnsafeBytes { copy.intern($0) } == Int32(strings.count))
        let tables = interner.tables
        #expect(ByteStringInterner(tables: (tables.arena, tables.starts, Array(tables.slots.dropLast()))) == nil)
        #expect(ByteStringInterner(tables: (Array(tables.arena.dropLast(tables.arena.count - 4)), tables.starts, tables.slots)) == nil)
        #expect(ByteStringInterner(tables: (tables.arena, tables.starts + tables.starts, tables.slots)) == nil)
    }

    /// `prefetch(_:unlessRecent:)` hands `intern(_:hash:recent:)` the string's own hash (a wrong
    /// one would file it under another slot, and the same string could get two ids), or nil
    /// when the guess is right.
    @Test func prefetchGivesTheHashUnlessTheGuessIsRight() {
        var interner = ByteStringInterner()
        let first = [UInt8]("user-1".utf8)
        let second = [UInt8]("user-2".utf8)
        let firstID = first.withUnsafeBytes { interner.intern($0) }
        first.withUnsafeBytes { bytes in
            #expect(interner.prefetch(bytes, unlessRecent: firstID) == nil)
            #expect(interner.prefetch(bytes, unlessRecent: -1) == ByteStringInterner.hash(bytes))
            #expect(interner.prefetch(bytes, unlessRecent: 7) == ByteStringInterner.hash(bytes))
        }
        second.withUnsafeBytes { bytes in
            var recent = firstID
            let hash = interner.prefetch(bytes, unlessRecent: recent)
            #expect(hash == ByteStringInterner.hash(bytes))
            #expect(interner.intern(bytes, hash: hash, recent: &recent) == 1)
            #expect(recent == 1)
            #expect(interner.lookup(bytes) == 1)
            #expect(interner.intern(bytes) == 1)
        }
    }
}
