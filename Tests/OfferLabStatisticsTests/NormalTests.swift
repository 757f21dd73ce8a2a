import OfferLabStatistics
import Testing

@Suite("Standard normal against mpmath")
struct NormalTests {
    @Test("Φ(x) and 1 − Φ(x), each to 1e-12 relative, tails down to 1e-300")
    func tails() throws {
        let rows = try Reference.rows("normal.csv")
        #expect(rows.count > 200)
        for row in rows {
            let tails = StandardNormal.tails(row["x"])
            let tolerance = Tolerance.relative(condition: row["condition"])
            #expect(relativeError(tails.lower, row["cdf"]) <= tolerance, "\(row) got \(tails.lower)")
            #expect(relativeError(tails.upper, row["sf"]) <= tolerance, "\(row) got \(tails.upper)")
            #expect(StandardNormal.cdf(row["x"]) == tails.lower)
            #expect(StandardNormal.survival(row["x"]) == tails.upper)
        }
    }

    @Test("φ(x) to 1e-12 relative")
    func density() throws {
        for row in try Reference.rows("normal.csv") {
            let tolerance = Tolerance.relative(condition: row["x"] * row["x"])
            #expect(relativeError(StandardNormal.density(row["x"]), row["pdf"]) <= tolerance, "\(row)")
        }
    }

    @Test("Φ⁻¹(p) to 1e-12 relative, p from 1e-300 to 1 − 1e-10")
    func quantile() throws {
        let rows = try Reference.rows("normal_quantile.csv")
        #expect(rows.count > 100)
        for row in rows {
            let z = StandardNormal.quantile(row["p"])
            // Near p = ½ the quantile is near 0: judge it against the scale of the argument.
            let error = abs(z - row["quantile"]) / max(abs(row["quantile"]), 1e-3)
            #expect(error <= Tolerance.distribution, "\(row) got \(z)")
            if row["p"] < 0.5 {
                #expect(StandardNormal.upperQuantile(row["p"]) == -z)
            }
        }
    }

    @Test("Edges: ±∞, 0, 1, NaN")
    func edges() {
        #expect(StandardNormal.cdf(.infinity) == 1)
        #expect(StandardNormal.survival(.infinity) == 0)
        #expect(StandardNormal.cdf(-.infinity) == 0)
        #expect(StandardNormal.cdf(0) == 0.5)
        #expect(StandardNormal.cdf(.nan).isNaN)
        #expect(StandardNormal.quantile(0) == -.infinity)
        #expect(StandardNormal.quantile(1) == .infinity)
        #expect(StandardNormal.quantile(0.5) == 0)
        #expect(StandardNormal.quantile(-0.1).isNaN)
        #expect(StandardNormal.quantile(1.1).isNaN)
    }

    @Test(
        "Symmetry Φ(−x) = 1 − Φ(x), and the upper quantile inverts the survival function",
        arguments: [0.3, 1.0, 2.5, 8.0, 30.0])
    func symmetry(x: Double) {
        #expect(StandardNormal.cdf(-x) == StandardNormal.survival(x))
        #expect(StandardNormal.upperQuantile(StandardNormal.survival(x)).isApproximately(x, relative: 1e-12))
        #expect(StandardNormal.quantile(StandardNormal.cdf(-x)).isApproximately(-x, relative: 1e-12))
    }
}

extension Double {
    func isApproximately(_ other: Double, relative: Double) -> Bool {
        self == other || abs(self - other) <= relative * Swift.max(abs(self), abs(other))
    }
}
