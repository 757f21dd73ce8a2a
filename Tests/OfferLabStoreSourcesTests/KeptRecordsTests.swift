import OfferLabIngest
import Testing

@testable import OfferLabStoreSources

/// A kept store's records across nights (`KeptRecords`, `KeptColumn`, `KeptHashSet`): each night
/// reads the earlier nights' segments in place and writes only what it adds; past
/// `KeptSegmentList.atMost` segments a night joins them into one. Every record reads back as last
/// written, night after night.
@Suite struct KeptRecordsTests {
    /// A segment made tonight, as a later night maps it: bytes of its own, freed with it.
    static func segment(_ records: [UInt8]) -> KeptSegment {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: records.count, alignment: 8)
        memory.copyBytes(from: records)
        let address = Int(bitPattern: memory.baseAddress)
        return KeptSegment(bytes: UnsafeRawBufferPointer(memory)) { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }
    }

    static func decode(_ state: [UInt8], segments: [KeptSegment]) throws -> KeptRecords {
        try state.withUnsafeBytes { bytes in
            var reader = CacheEntryReader(bytes)
            return try KeptRecords(entry: &reader, segments: segments)
        }
    }

    @Test func recordsReadBackAsLastWrittenAcrossNightsAndJoinedSegments() throws {
        var expected: [String] = []
        var records = KeptRecords()
        var segmentCounts: [Int] = []
        for night in 0..<(2 * KeptSegmentList.atMost + 3) {
            #expect(records.count == expected.count)
            for (index, text) in expected.enumerated() { #expect(records.record(index) { try $0.requiredText() } == text) }
            // Two records a night, one of them from the night before written again (the night
            // after a join, too).
            for record in 0..<2 {
                let text = "night \(night) record \(record)"
                records.append { $0.append(text: text) }
                expected.append(text)
            }
            if night > 0 {
                let replaced = expected.count - 3
                expected[replaced] += " again at night \(night)"
                records.replace(replaced) { [text = expected[replaced]] in $0.append(text: text) }
            }
            let (kept, segments) = try Self.night({ records.encode(into: &$0, segmentSources: &$1) }) {
                try KeptRecords(entry: &$0, segments: $1)
            }
            records = kept
            // Each night adds one segment, then the night past the bound joins them all.
            #expect(segments <= KeptSegmentList.atMost)
            segmentCounts.append(segments)
        }
        #expect(segmentCounts.prefix(KeptSegmentList.atMost) == ArraySlice(1...KeptSegmentList.atMost))
        #expect(segmentCounts[KeptSegmentList.atMost] == 1 && segmentCounts.last == 3)
    }

    @Test func aStateNamingASegmentItWasNotGivenIsRefused() throws {
        var records = KeptRecords()
        records.append { $0.append(text: "a record") }
        var entry = CacheEntryWriter(bytes: [])
        var sources: [KeptSegmentSource] = []
        records.encode(into: &entry, segmentSources: &sources)
        #expect(throws: CacheEntryReader.Damaged.self) { try Self.decode(entry.bytes, segments: []) }
        // A segment shorter than the offsets reach.
        #expect(throws: CacheEntryReader.Damaged.self) { try Self.decode(entry.bytes, segments: [Self.segment([])]) }
    }

    /// The state's structures made of segments as a later night reads them: `encode`'s bytes and
    /// its segments, each made one mapped.
    static func night<Kept>(
        _ encode: (inout CacheEntryWriter, inout [KeptSegmentSource]) -> Void,
        decode: (inout CacheEntryReader, [KeptSegment]) throws -> Kept
    ) throws -> (kept: Kept, segments: Int) {
        var entry = CacheEntryWriter(bytes: [])
        var sources: [KeptSegmentSource] = []
        encode(&entry, &sources)
        let segments = sources.map { source in
            switch source {
            case .kept(let segment): segment
            case .made(let bytes): Self.segment(bytes)
            }
        }
        return (
            try entry.bytes.withUnsafeBytes { bytes in
                var reader = CacheEntryReader(bytes)
                return try decode(&reader, segments)
            }, segments.count
        )
    }

    /// Notifications delivered (`KeptHashSet`) and each charge's chain (`KeptColumn`), a few a
    /// night over more nights than segments are kept: every one found, none other.
    @Test func hashesAndColumnsAcrossNightsAndJoinedSegments() throws {
        var delivered = KeptHashSet()
        var chains = KeptColumn<IDHash>()
        var ids: [String] = []
        for night in 0..<(KeptSegmentList.atMost + 4) {
            // Delivered out of order, as a night's files are.
            let tonight = (0..<3).map { "night \(night) id \(2 - $0)" }
            // With an earlier night's id delivered again: held once.
            delivered.insert(contentsOf: (tonight + ids.suffix(1)).map(IDHash.init))
            for id in tonight { chains.append(IDHash("chain of " + id)) }
            ids += tonight
            let (keptDelivered, deliveredSegments) = try Self.night({ delivered.encode(into: &$0, segmentSources: &$1) }) {
                try KeptHashSet(entry: &$0, segments: $1)
            }
            let (keptChains, chainSegments) = try Self.night({ chains.encode(into: &$0, segmentSources: &$1) }) {
                try KeptColumn<IDHash>(entry: &$0, segments: $1)
            }
            (delivered, chains) = (keptDelivered, keptChains)
            #expect(deliveredSegments == chainSegments && deliveredSegments == (night < KeptSegmentList.atMost ? night + 1 : night - 15))
            #expect(ids.allSatisfy { delivered.contains(IDHash($0)) } && !delivered.contains(IDHash("night \(night) id 3")))
            #expect(chains.count == ids.count && ids.indices.allSatisfy { chains[$0] == IDHash("chain of " + ids[$0]) })
            #expect(chains.indices { $0 == IDHash("chain of " + ids[1]) } == [1])
        }
    }
}
