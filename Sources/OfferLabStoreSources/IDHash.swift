import COfferLabSystem

/// 128 bits of hash of an id (two XXH64 of its bytes): what a night kept in the parsed-log cache
/// matches ids by (`KeptStoreNight`, `KeptFeedsNight`, in OfferLabEvents), as file contents are
/// by the cache's names.
package struct IDHash: Hashable, Comparable, BitwiseCopyable, Sendable {
    package var first: UInt64
    package var second: UInt64

    package init(first: UInt64, second: UInt64) {
        self.first = first
        self.second = second
    }

    package init(_ text: String) {
        func xxh64(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
            var state = offerlab_xxh64_state()
            offerlab_xxh64_reset(&state, seed)
            offerlab_xxh64_update(&state, bytes.baseAddress, bytes.count)
            return offerlab_xxh64_digest(&state)
        }
        func hash(_ bytes: UnsafeRawBufferPointer) -> IDHash {
            IDHash(first: xxh64(bytes, seed: 0), second: xxh64(bytes, seed: 0x5bd1_e995))
        }
        self = text.utf8.withContiguousStorageIfAvailable { hash(UnsafeRawBufferPointer($0)) } ?? Array(text.utf8).withUnsafeBytes(hash)
    }

    /// The `user_transactions` table's digest, whatever the order of its rows.
    package static func digest(_ table: [String: String]) -> IDHash {
        var digest = IDHash(first: UInt64(table.count), second: 0)
        for (chain, user) in table {
            let row = IDHash(chain + "\u{0}" + user)
            digest.first &+= row.first
            digest.second &+= row.second
        }
        return digest
    }

    package static func < (lhs: IDHash, rhs: IDHash) -> Bool { (lhs.first, lhs.second) < (rhs.first, rhs.second) }
}
