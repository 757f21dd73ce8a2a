import Foundation
import OfferLabStatistics
import Testing

/// One offering of `Reference/adjusted_intervals.json` (make_adjusted_intervals.py, scipy).
struct AdjustedIntervalCase: Decodable, Sendable, CustomTestStringConvertible {
    struct Expected: Decodable, Sendable {
        let group: String
        let metric: String
        let absLiftCiLowAdjusted: String?
        let absLiftCiHighAdjusted: String?
        let relLiftCiLowAdjusted: String?
        let relLiftCiHighAdjusted: String?
        let seqAbsLiftCiLowAdjusted: String?
        let seqAbsLiftCiHighAdjusted: String?
        let seqRelLiftCiLowAdjusted: String?
        let seqRelLiftCiHighAdjusted: String?
    }

    let name: String
    let alpha: String
    let sequentialTuning: String
    let groups: [OfferingCase.Group]
    let expected: [Expected]

    var testDescription: String { name }

    static let all: [AdjustedIntervalCase] = (try? load()) ?? []

    static func load() throws -> [AdjustedIntervalCase] {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode([AdjustedIntervalCase].self, from: Reference.data("adjusted_intervals.json"))
    }

    func analysis() throws -> OfferingAnalysis {
        let groups = groups.map { group in
            AnalysisGroup(
                name: group.name, isControl: group.isControl, weight: number(group.weight),
                statistics: GroupSufficientStatistics(
                    users: Int(number(group.users)), converters: Int(number(group.converters)),
                    revenueSum: number(group.revenueSum), revenueSumSquares: number(group.revenueSumSquares)))
        }
        return try analyzeOffering(groups, alpha: number(alpha), sequentialTuning: number(sequentialTuning))
    }
}

/// Whether 0 lies strictly outside [low, high].
private func excludesZero(_ low: Double, _ high: Double) -> Bool { low > 0 || high < 0 }

@Suite("Intervals that agree with the verdict (docs/statistics.md)")
struct AdjustedIntervalTests {
    @Test("The reference file holds the comparisons' offerings, the issue's two and the random ones")
    func fileIsComplete() throws {
        let cases = try AdjustedIntervalCase.load()
        #expect(cases.count >= 67)
        #expect(AdjustedIntervalCase.all.count == cases.count)
    }

    @Test("Every adjusted interval end as scipy computes it, to 1e-9 (relative above 1)", arguments: AdjustedIntervalCase.all)
    func reference(_ reference: AdjustedIntervalCase) throws {
        let rows = try reference.analysis().comparisons
        #expect(rows.count == reference.expected.count)
        for (row, expected) in zip(rows, reference.expected) {
            let label = "\(row.group) \(row.metric.csvName)"
            #expect(row.group == expected.group && row.metric.csvName == expected.metric)
            check(row.absLiftCILowAdjusted, expected.absLiftCiLowAdjusted, "\(label) abs_lift_ci_low_adjusted")
            check(row.absLiftCIHighAdjusted, expected.absLiftCiHighAdjusted, "\(label) abs_lift_ci_high_adjusted")
            check(row.relLiftCILowAdjusted, expected.relLiftCiLowAdjusted, "\(label) rel_lift_ci_low_adjusted")
            check(row.relLiftCIHighAdjusted, expected.relLiftCiHighAdjusted, "\(label) rel_lift_ci_high_adjusted")
            check(row.seqAbsLiftCILowAdjusted, expected.seqAbsLiftCiLowAdjusted, "\(label) seq_abs_lift_ci_low_adjusted")
            check(row.seqAbsLiftCIHighAdjusted, expected.seqAbsLiftCiHighAdjusted, "\(label) seq_abs_lift_ci_high_adjusted")
            check(row.seqRelLiftCILowAdjusted, expected.seqRelLiftCiLowAdjusted, "\(label) seq_rel_lift_ci_low_adjusted")
            check(row.seqRelLiftCIHighAdjusted, expected.seqRelLiftCiHighAdjusted, "\(label) seq_rel_lift_ci_high_adjusted")
        }
    }

    @Test(
        "0 is outside each adjusted interval exactly when the Holm-adjusted p-value is below alpha; relative ones never below −100%",
        arguments: AdjustedIntervalCase.all)
    func agreesWithTheVerdict(_ reference: AdjustedIntervalCase) throws {
        let alpha = number(reference.alpha)
        for row in try reference.analysis().comparisons {
            let label = "\(row.group) \(row.metric.csvName)"
            let pairs: [(String, Double?, Double?, Double?, Double?, Double?, Bool?)] = [
                (
                    "fixed", row.pValueAdjusted, row.absLiftCILowAdjusted, row.absLiftCIHighAdjusted, row.relLiftCILowAdjusted,
                    row.relLiftCIHighAdjusted, row.significant
                ),
                (
                    "sequential", row.seqPValueAdjusted, row.seqAbsLiftCILowAdjusted, row.seqAbsLiftCIHighAdjusted,
                    row.seqRelLiftCILowAdjusted, row.seqRelLiftCIHighAdjusted, row.seqSignificant
                ),
            ]
            for (kind, adjusted, absLow, absHigh, relLow, relHigh, significant) in pairs {
                guard let absLow, let absHigh, let adjusted, let significant else {
                    #expect(relLow == nil && relHigh == nil, "\(label) \(kind): a relative interval without an absolute one")
                    continue
                }
                // Exactly at alpha the two sides are one rounding apart; no reference row is that close.
                #expect(abs(adjusted / alpha - 1) > 1e-9, "\(label) \(kind): p̃ is alpha to 1e-9")
                #expect(excludesZero(absLow, absHigh) == significant, "\(label) \(kind): [\(absLow), \(absHigh)], p̃ = \(adjusted)")
                if let relLow, let relHigh {
                    #expect(excludesZero(relLow, relHigh) == significant, "\(label) \(kind) relative: [\(relLow), \(relHigh)]")
                    #expect(relLow >= -1, "\(label) \(kind) relative starts below −100%: \(relLow)")
                    if let lift = row.relLift { #expect(relLow <= lift && lift <= relHigh, "\(label) \(kind): rel_lift outside") }
                }
            }
        }
    }

    @Test("Issue 41: variant_b's conversion, significant after correction, gets a relative interval above 0 (it was −1.4% to +81.8%)")
    func theSampleNightsContradiction() throws {
        let reference = try #require(AdjustedIntervalCase.all.first { $0.name.hasPrefix("issue 41: the sample night") })
        let row = try #require(try reference.analysis().comparisons.first { $0.group == "variant_b" && $0.metric == .conversion })
        #expect(row.seqSignificant == true)
        // The delta-method interval (docs/statistics.md#sequential-always-valid-inference) still crosses 0.
        #expect(try #require(row.seqRelLiftCILow) < 0)
        #expect(try #require(row.seqRelLiftCILowAdjusted) > 0)
        #expect(try #require(row.seqAbsLiftCILowAdjusted) > 0)
    }

    @Test("Issue 41: a slice of 96 and 63 users gets no relative interval below −100% (it was −478.2% to +684.5%)")
    func theSlicesUnboundedRatio() throws {
        let reference = try #require(AdjustedIntervalCase.all.first { $0.name.hasPrefix("issue 41: onboarding") })
        let row = try #require(try reference.analysis().comparisons.first { $0.group == "social_proof" && $0.metric == .conversion })
        // The delta-method interval (docs/statistics.md#sequential-always-valid-inference):
        #expect(try #require(row.seqRelLiftCILow) < -1)
        // Control's 6 converters of 96 are within the sequence's width of 0: the ratio is unbounded, so no relative interval.
        #expect(row.seqRelLiftCILowAdjusted == nil && row.seqRelLiftCIHighAdjusted == nil)
        #expect(row.seqAbsLiftCILowAdjusted != nil)
        #expect(try #require(row.relLiftCILowAdjusted) >= -1)
    }

    @Test("The level is alpha over the row's Holm multiplier: m − i + 1, or more when an earlier step carries over")
    func levelsOfTheHolmSteps() {
        let raw = [0.001, 0.01, 0.03, 0.012]
        let adjusted = holmBonferroni(raw)  // 0.004, 0.03, 0.03, and 2 × 0.012 = 0.024 carried up to step 2's 0.03
        let levels = zip(raw, adjusted).map {
            adjustedIntervalLevel(alpha: 0.05, intervalPValue: $0, adjustedPValue: $1, familySize: raw.count)
        }
        #expect(levels[0].map { abs($0 - 0.05 / 4) < 1e-15 } == true)  // step 1: m = 4
        #expect(levels[1].map { abs($0 - 0.05 / 3) < 1e-15 } == true)  // step 2: m − 1 = 3
        #expect(levels[3].map { abs($0 - 0.05 / 2.5) < 1e-15 } == true)  // step 3 carries step 2's 0.03: 2.5, not 2
        #expect(levels[2].map { abs($0 - 0.05) < 1e-15 } == true)  // step 4: 1
        #expect(adjustedIntervalLevel(alpha: 0.05, intervalPValue: 0, adjustedPValue: 0, familySize: 4) == 0.0125)
        #expect(adjustedIntervalLevel(alpha: 0.05, intervalPValue: 0, adjustedPValue: 0.01, familySize: 4) == nil)
        #expect(adjustedIntervalLevel(alpha: 0.05, intervalPValue: 0.5, adjustedPValue: 0.01, familySize: 1) == nil)
    }

    @Test("Fieller's interval crosses 0 exactly where the absolute interval at the same quantile does")
    func fiellerAgreesWithTheAbsoluteInterval() throws {
        let control = SampleMoments(count: 1000, mean: 0.05, variance: 0.05 * 0.95)
        // The treatment mean at which |m_t − m_c| = q·se: the absolute interval's end is at 0.
        let q = 1.96
        for treatmentMean in stride(from: 0.0, through: 0.2, by: 0.0025) {
            let treatment = SampleMoments(count: 800, mean: treatmentMean, variance: treatmentMean * (1 - treatmentMean))
            let absolute = absoluteLiftInterval(control: control, treatment: treatment, quantile: q)
            let relative = try #require(fiellerRelativeLiftInterval(control: control, treatment: treatment, quantile: q))
            #expect(excludesZero(relative.low, relative.high) == excludesZero(absolute.low, absolute.high), "m_t = \(treatmentMean)")
            #expect(relative.low >= -1)
        }
        // Control's mean within q standard errors of 0: the ratio is unbounded.
        let tiny = SampleMoments(count: 10, mean: 0.1, variance: 0.09)
        #expect(fiellerRelativeLiftInterval(control: tiny, treatment: control, quantile: q) == nil)
    }

    private func check(_ actual: Double?, _ expected: String?, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        switch (actual, expected.map(number)) {
        case (nil, nil):
            break
        case (let a?, let e?):
            #expect(abs(a - e) <= Tolerance.reported * max(1, abs(e)), "\(label): got \(a), expected \(e)", sourceLocation: sourceLocation)
        case (let a, let e):
            Issue.record("\(label): got \(String(describing: a)), expected \(String(describing: e))", sourceLocation: sourceLocation)
        }
    }
}
