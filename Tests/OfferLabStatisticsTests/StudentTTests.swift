import OfferLabStatistics
import Testing

@Suite("Student t against mpmath")
struct StudentTTests {
    @Test("P(T ≤ t) and P(T > t) to 1e-12 relative, ν from ½ to 10⁹, tails down to 1e-300")
    func tails() throws {
        let rows = try Reference.rows("student_t.csv")
        #expect(rows.count > 400)
        for row in rows {
            let distribution = StudentT(degreesOfFreedom: row["df"])
            let tails = distribution.tails(row["t"])
            let tolerance = Tolerance.relative(condition: row["condition"])
            #expect(relativeError(tails.lower, row["cdf"]) <= tolerance, "\(row) got \(tails.lower)")
            #expect(relativeError(tails.upper, row["sf"]) <= tolerance, "\(row) got \(tails.upper)")
        }
    }

    @Test("Density to 1e-12 relative")
    func density() throws {
        for row in try Reference.rows("student_t.csv") {
            let distribution = StudentT(degreesOfFreedom: row["df"])
            let tolerance = Tolerance.relative(condition: row["condition"])
            #expect(relativeError(distribution.density(row["t"]), row["pdf"]) <= tolerance, "\(row)")
        }
    }

    @Test("Quantile to 1e-12 relative, ν from 1 to 10⁸, p from 1e-300")
    func quantile() throws {
        let rows = try Reference.rows("student_t_quantile.csv")
        #expect(rows.count > 250)
        for row in rows {
            let distribution = StudentT(degreesOfFreedom: row["df"])
            let t = distribution.quantile(row["p"])
            #expect(relativeError(t, row["quantile"]) <= Tolerance.distribution, "\(row) got \(t)")
            if row["p"] < 0.5 {
                #expect(distribution.upperQuantile(row["p"]).isApproximately(-row["quantile"], relative: 1e-12))
            }
        }
    }

    @Test("ν = ∞ is the standard normal; invalid ν is NaN")
    func limits() {
        let normal = StudentT(degreesOfFreedom: .infinity)
        #expect(normal.cdf(1.5) == StandardNormal.cdf(1.5))
        #expect(normal.upperQuantile(0.025) == StandardNormal.upperQuantile(0.025))
        #expect(StudentT(degreesOfFreedom: 0).cdf(1).isNaN)
        #expect(StudentT(degreesOfFreedom: -1).quantile(0.3).isNaN)
        #expect(StudentT(degreesOfFreedom: 5).cdf(.infinity) == 1)
        #expect(StudentT(degreesOfFreedom: 5).cdf(-.infinity) == 0)
        #expect(StudentT(degreesOfFreedom: 5).quantile(0.5) == 0)
    }

    @Test("Quantile inverts the distribution function", arguments: [0.5, 1.0, 2.0, 2.7, 9.0, 123.4, 5e6, 1e12])
    func roundTrip(df: Double) {
        let distribution = StudentT(degreesOfFreedom: df)
        for p in [1e-12, 0.001, 0.025, 0.3, 0.7, 0.975] {
            let t = distribution.quantile(p)
            #expect(distribution.cdf(t).isApproximately(p, relative: 1e-12), "df \(df) p \(p)")
        }
    }
}
