import OfferLabStatistics
import Testing

@Suite("Sequential inference (contract §2.8) against the mpmath reference")
struct SequentialInferenceTests {
    static let rows: [ReferenceRow] = (try? Reference.rows("sequential.csv")) ?? []

    @Test("The reference covers alpha 0.01, 0.05 and 0.10, one user to 2·10^8")
    func fileIsComplete() throws {
        let rows = try Reference.rows("sequential.csv")
        #expect(rows.count > 1000)
        #expect(Set(rows.map { $0["alpha"] }) == [0.01, 0.05, 0.10])
        #expect(rows.contains { $0["n"] == 1 } && rows.contains { $0["n"] == 2e8 })
        #expect(Self.rows.count == rows.count)
    }

    @Test("ρ, the half-width and the p-value", arguments: rows)
    func formulas(_ row: ReferenceRow) {
        let rho = sequentialRho(alpha: row["alpha"], tuning: row["tuning"])
        #expect(relativeError(rho, row["rho"]) <= Tolerance.distribution, "\(row)")
        let n = Int(row["n"])
        let halfWidth = sequentialHalfWidth(standardError: row["se"], totalUsers: n, rho: rho, alpha: row["alpha"])
        #expect(relativeError(halfWidth, row["half_width"]) <= Tolerance.distribution, "\(row): half width \(halfWidth)")
        let p = sequentialPValue(estimate: row["estimate"], standardError: row["se"], totalUsers: n, rho: rho)
        // z² multiplies the rounding of the estimate's double in the exponent.
        let z = row["estimate"] / row["se"]
        #expect(relativeError(p, row["p_value"]) <= Tolerance.relative(condition: z * z), "\(row): p \(p)")
    }

    @Test("The p-value is below alpha exactly when 0 is outside the interval", arguments: rows)
    func pValueMatchesInterval(_ row: ReferenceRow) {
        let alpha = row["alpha"]
        let rho = sequentialRho(alpha: alpha, tuning: row["tuning"])
        let n = Int(row["n"])
        let estimate = row["estimate"]
        let halfWidth = sequentialHalfWidth(standardError: row["se"], totalUsers: n, rho: rho, alpha: alpha)
        let p = sequentialPValue(estimate: estimate, standardError: row["se"], totalUsers: n, rho: rho)
        // On the edge itself (|estimate| = h to rounding) either side is right.
        guard abs(abs(estimate) - halfWidth) > 1e-9 * halfWidth else { return }
        #expect((p < alpha) == (abs(estimate) > halfWidth), "\(row): p \(p), h \(halfWidth)")
    }

    @Test("N* must be a positive finite number")
    func tuningIsValidated() {
        let groups = [
            AnalysisGroup(
                name: "control", isControl: true, weight: 1,
                statistics: GroupSufficientStatistics(users: 10, converters: 1, revenueSum: 9.99, revenueSumSquares: 99.8)),
            AnalysisGroup(
                name: "t", isControl: false, weight: 1,
                statistics: GroupSufficientStatistics(users: 10, converters: 2, revenueSum: 19.98, revenueSumSquares: 199.6)),
        ]
        for tuning in [0, -5000, Double.infinity, Double.nan] {
            #expect(throws: AnalysisInputError.self) { try analyzeOffering(groups, alpha: 0.05, sequentialTuning: tuning) }
        }
        #expect(AnalysisInputError.invalidSequentialTuning(0).description == "sequential_tuning must be a positive number, got 0.0")
    }

    @Test("The sequential interval contains the fixed one and narrows as users arrive")
    func widerThanFixedAndNarrowing() throws {
        func row(users: Int) throws -> ComparisonResult {
            let groups = [
                AnalysisGroup(
                    name: "control", isControl: true, weight: 1,
                    statistics: GroupSufficientStatistics(users: users, converters: users / 20, revenueSum: 0, revenueSumSquares: 0)),
                AnalysisGroup(
                    name: "t", isControl: false, weight: 1,
                    statistics: GroupSufficientStatistics(users: users, converters: users / 16, revenueSum: 0, revenueSumSquares: 0)),
            ]
            return try #require(analyzeOffering(groups, alpha: 0.05).comparisons.first)
        }
        var previousWidth = Double.infinity
        for users in [400, 4000, 40000, 400_000] {
            let comparison = try row(users: users)
            let low = try #require(comparison.seqAbsLiftCILow)
            let high = try #require(comparison.seqAbsLiftCIHigh)
            #expect(low < (comparison.absLiftCILow ?? .nan) && high > (comparison.absLiftCIHigh ?? .nan))
            #expect(high - low < previousWidth)
            #expect((comparison.seqPValue ?? 0) >= (comparison.pValue ?? 1))
            previousWidth = high - low
        }
    }
}
