import OfferLabStatistics
import Testing

@Suite("Holm–Bonferroni")
struct HolmBonferroniTests {
    @Test("Matches the reference lists exactly (to 1e-15)")
    func reference() throws {
        let rows = try Reference.rows("holm.csv")
        #expect(rows.count >= 20)
        let lists = Dictionary(grouping: rows) { Int($0["list"]) }
        for (_, list) in lists {
            let adjusted = holmBonferroni(list.map { $0["p"] })
            for (value, row) in zip(adjusted, list) {
                #expect(abs(value - row["adjusted"]) <= 1e-15 * max(1, row["adjusted"]), "\(row) got \(value)")
            }
        }
    }

    @Test("Never below the raw p-value, never above 1, order-independent", arguments: [1, 2, 3, 5, 17])
    func properties(count: Int) {
        var generator = SplitMix64(state: UInt64(count))
        for _ in 0..<200 {
            let p = (0..<count).map { _ in pow10Uniform(&generator) }
            let adjusted = holmBonferroni(p)
            for (raw, value) in zip(p, adjusted) {
                #expect(value >= raw)
                #expect(value <= 1)
            }
            // A permutation of the input permutes the output the same way.
            let reversed = holmBonferroni(p.reversed())
            #expect(Array(reversed.reversed()) == adjusted)
            // Monotone: a smaller raw p never gets a larger adjusted p.
            for i in p.indices {
                for j in p.indices where p[i] < p[j] {
                    #expect(adjusted[i] <= adjusted[j])
                }
            }
        }
    }

    @Test("One p-value is unchanged; the smallest of m is multiplied by m")
    func simple() {
        #expect(holmBonferroni([0.03]) == [0.03])
        #expect(holmBonferroni([]) == [])
        #expect(holmBonferroni([0.01, 0.5, 0.2])[0] == 0.03)
    }
}

/// A p-value spread over many orders of magnitude (and sometimes exactly 1 or tied).
func pow10Uniform(_ generator: inout SplitMix64) -> Double {
    switch Int.random(in: 0..<10, using: &generator) {
    case 0: return 1
    case 1: return 0.05
    default: return Double.random(in: 0...1, using: &generator) * [1, 1e-3, 1e-8][Int.random(in: 0..<3, using: &generator)]
    }
}
