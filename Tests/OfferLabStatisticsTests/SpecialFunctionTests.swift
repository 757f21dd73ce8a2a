import OfferLabStatistics
import Testing

@Suite("Special functions against mpmath")
struct SpecialFunctionTests {
    @Test("Regularized incomplete beta, a and b from 0.01 to 10⁷")
    func incompleteBeta() throws {
        let rows = try Reference.rows("incomplete_beta.csv")
        #expect(rows.count > 500)
        for row in rows {
            let value = SpecialFunctions.regularizedIncompleteBeta(a: row["a"], b: row["b"], x: row["x"])
            let tolerance = Tolerance.relative(condition: row["condition"])
            #expect(relativeError(value.lower, row["lower"]) <= tolerance, "\(row) got \(value.lower)")
            #expect(relativeError(value.upper, row["upper"]) <= tolerance, "\(row) got \(value.upper)")
        }
    }

    @Test("Regularized incomplete gamma, a from 0.01 to 10⁷")
    func incompleteGamma() throws {
        let rows = try Reference.rows("incomplete_gamma.csv")
        #expect(rows.count > 100)
        for row in rows {
            let value = SpecialFunctions.regularizedIncompleteGamma(a: row["a"], x: row["x"])
            let tolerance = Tolerance.relative(condition: row["condition"])
            #expect(relativeError(value.lower, row["lower"]) <= tolerance, "\(row) got \(value.lower)")
            #expect(relativeError(value.upper, row["upper"]) <= tolerance, "\(row) got \(value.upper)")
        }
    }

    @Test("log Γ: 1e-12 relative, absolute near the zeros at 1 and 2")
    func logGamma() throws {
        let rows = try Reference.rows("log_gamma.csv")
        #expect(rows.count > 20)
        for row in rows {
            let value = SpecialFunctions.logGamma(row["x"])
            let error = abs(value - row["log_gamma"]) / max(abs(row["log_gamma"]), 1)
            #expect(error <= Tolerance.distribution, "\(row) got \(value)")
        }
    }

    @Test("Domain errors are NaN, boundaries exact")
    func domain() {
        #expect(SpecialFunctions.regularizedIncompleteBeta(a: 0, b: 1, x: 0.5).lower.isNaN)
        #expect(SpecialFunctions.regularizedIncompleteBeta(a: 1, b: 1, x: 1.5).lower.isNaN)
        #expect(SpecialFunctions.regularizedIncompleteBeta(a: 2, b: 3, x: 0) == TailProbabilities(lower: 0, upper: 1))
        #expect(SpecialFunctions.regularizedIncompleteBeta(a: 2, b: 3, x: 1) == TailProbabilities(lower: 1, upper: 0))
        #expect(SpecialFunctions.regularizedIncompleteGamma(a: -1, x: 1).upper.isNaN)
        #expect(SpecialFunctions.regularizedIncompleteGamma(a: 2, x: 0) == TailProbabilities(lower: 0, upper: 1))
        // I_x(1, 1) = x.
        #expect(SpecialFunctions.regularizedIncompleteBeta(a: 1, b: 1, x: 0.3).lower.isApproximately(0.3, relative: 1e-15))
    }
}
