import OfferLabStatistics
import Testing

@Suite("χ² against mpmath")
struct ChiSquaredTests {
    @Test("P(X ≤ x) and P(X > x) to 1e-12 relative, k from 1 to 10⁷, tails down to 1e-300")
    func tails() throws {
        let rows = try Reference.rows("chi_squared.csv")
        #expect(rows.count > 150)
        for row in rows {
            let tails = ChiSquared(degreesOfFreedom: row["df"]).tails(row["x"])
            let tolerance = Tolerance.relative(condition: row["condition"])
            #expect(relativeError(tails.lower, row["cdf"]) <= tolerance, "\(row) got \(tails.lower)")
            #expect(relativeError(tails.upper, row["sf"]) <= tolerance, "\(row) got \(tails.upper)")
        }
    }

    @Test("Edges")
    func edges() {
        let chi = ChiSquared(degreesOfFreedom: 3)
        #expect(chi.survival(0) == 1)
        #expect(chi.cdf(0) == 0)
        #expect(chi.survival(.infinity) == 0)
        #expect(chi.survival(-1) == 1)
        #expect(ChiSquared(degreesOfFreedom: 0).survival(1).isNaN)
        // k = 2: P(X > x) = e^(−x/2) exactly.
        #expect(ChiSquared(degreesOfFreedom: 2).survival(1000).isApproximately(7.124576406741286e-218, relative: 1e-12))  // e^(−500)
    }
}
