import Foundation
import OfferLabStatistics
import Testing

/// One offering of `Reference/comparisons.json`: input groups and the mpmath answer.
struct OfferingCase: Decodable, Sendable, CustomTestStringConvertible {
    struct Group: Decodable, Sendable {
        let name: String
        let isControl: Bool
        let weight: String
        let users: String
        let converters: String
        let revenueSum: String
        let revenueSumSquares: String
    }

    struct Summary: Decodable, Sendable {
        let conversionRate: String?
        let conversionCiLow: String?
        let conversionCiHigh: String?
        let arpu: String?
        let arpuSd: String?
        let arppu: String?
    }

    struct Comparison: Decodable, Sendable {
        let group: String
        let controlGroup: String
        let metric: String
        let controlValue: String?
        let value: String?
        let absLift: String?
        let absLiftCiLow: String?
        let absLiftCiHigh: String?
        let relLift: String?
        let relLiftCiLow: String?
        let relLiftCiHigh: String?
        let pValue: String?
        let pValueAdjusted: String?
        let significant: Bool?
        let chanceToBeatControl: String?
        let mdeAbs: String?
        let seqAbsLiftCiLow: String?
        let seqAbsLiftCiHigh: String?
        let seqRelLiftCiLow: String?
        let seqRelLiftCiHigh: String?
        let seqPValue: String?
        let seqPValueAdjusted: String?
        let seqSignificant: Bool?
    }

    struct SampleRatio: Decodable, Sendable {
        let chi2: String
        let df: String
        let pValue: String
        let flag: Bool
    }

    struct Expected: Decodable, Sendable {
        let summaries: [Summary]
        let comparisons: [Comparison]
        let srm: SampleRatio?
    }

    let name: String
    let alpha: String
    let sequentialTuning: String
    let groups: [Group]
    let expected: Expected

    var testDescription: String { name }

    /// Every case of the file; empty if it cannot be read (``OfferingAnalysisReferenceTests/fileIsComplete()`` fails then).
    static let all: [OfferingCase] = (try? load()) ?? []

    static func load() throws -> [OfferingCase] {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode([OfferingCase].self, from: Reference.data("comparisons.json"))
    }

    func analysisGroups() -> [AnalysisGroup] {
        groups.map { group in
            AnalysisGroup(
                name: group.name, isControl: group.isControl, weight: number(group.weight),
                statistics: GroupSufficientStatistics(
                    users: Int(number(group.users)), converters: Int(number(group.converters)),
                    revenueSum: number(group.revenueSum), revenueSumSquares: number(group.revenueSumSquares)))
        }
    }
}

/// The double a reference field holds (NaN if the text is not a number, which then fails).
func number(_ text: String) -> Double { Double(text) ?? .nan }

@Suite("Offering analysis against the mpmath reference")
struct OfferingAnalysisReferenceTests {
    @Test("The reference file holds every corner")
    func fileIsComplete() throws {
        let cases = try OfferingCase.load()
        #expect(cases.count >= 25)
        #expect(OfferingCase.all.count == cases.count)
    }

    @Test("Summaries, comparisons and SRM: p-values and interval ends to 1e-9 absolute", arguments: OfferingCase.all)
    func offering(_ reference: OfferingCase) throws {
        let analysis = try analyzeOffering(
            reference.analysisGroups(), alpha: number(reference.alpha), sequentialTuning: number(reference.sequentialTuning))

        #expect(analysis.summaries.count == reference.expected.summaries.count)
        for (summary, expected) in zip(analysis.summaries, reference.expected.summaries) {
            check(summary.conversionRate, expected.conversionRate, "conversion_rate")
            check(summary.conversionCILow, expected.conversionCiLow, "conversion_ci_low")
            check(summary.conversionCIHigh, expected.conversionCiHigh, "conversion_ci_high")
            check(summary.arpu, expected.arpu, "arpu")
            check(summary.arpuSD, expected.arpuSd, "arpu_sd")
            check(summary.arppu, expected.arppu, "arppu")
        }

        #expect(analysis.comparisons.count == reference.expected.comparisons.count)
        for (row, expected) in zip(analysis.comparisons, reference.expected.comparisons) {
            let label = "\(row.group) \(row.metric.csvName)"
            #expect(row.group == expected.group)
            #expect(row.controlGroup == expected.controlGroup)
            #expect(row.metric.csvName == expected.metric)
            check(row.controlValue, expected.controlValue, "\(label) control_value")
            check(row.value, expected.value, "\(label) value")
            check(row.absLift, expected.absLift, "\(label) abs_lift")
            check(row.absLiftCILow, expected.absLiftCiLow, "\(label) abs_lift_ci_low")
            check(row.absLiftCIHigh, expected.absLiftCiHigh, "\(label) abs_lift_ci_high")
            check(row.relLift, expected.relLift, "\(label) rel_lift")
            check(row.relLiftCILow, expected.relLiftCiLow, "\(label) rel_lift_ci_low")
            check(row.relLiftCIHigh, expected.relLiftCiHigh, "\(label) rel_lift_ci_high")
            check(row.pValue, expected.pValue, "\(label) p_value")
            check(row.pValueAdjusted, expected.pValueAdjusted, "\(label) p_value_adjusted")
            #expect(row.significant == expected.significant, "\(label) significant")
            check(row.chanceToBeatControl, expected.chanceToBeatControl, "\(label) chance_to_beat_control", tolerance: 1e-8)
            check(row.mdeAbs, expected.mdeAbs, "\(label) mde_abs")
            check(row.seqAbsLiftCILow, expected.seqAbsLiftCiLow, "\(label) seq_abs_lift_ci_low")
            check(row.seqAbsLiftCIHigh, expected.seqAbsLiftCiHigh, "\(label) seq_abs_lift_ci_high")
            check(row.seqRelLiftCILow, expected.seqRelLiftCiLow, "\(label) seq_rel_lift_ci_low")
            check(row.seqRelLiftCIHigh, expected.seqRelLiftCiHigh, "\(label) seq_rel_lift_ci_high")
            check(row.seqPValue, expected.seqPValue, "\(label) seq_p_value")
            check(row.seqPValueAdjusted, expected.seqPValueAdjusted, "\(label) seq_p_value_adjusted")
            #expect(row.seqSignificant == expected.seqSignificant, "\(label) seq_significant")
            // Tiny p-values are kept, not rounded to 0: relative agreement where they are small.
            if let p = row.pValue, let e = expected.pValue.map(number), e > 0, e < 1e-6 {
                #expect(relativeError(p, e) <= 1e-9, "\(label) p_value relative")
            }
        }

        if let expected = reference.expected.srm {
            let srm = try #require(analysis.sampleRatioMismatch)
            check(srm.chiSquared, expected.chi2, "chi2", relative: true)
            #expect(srm.degreesOfFreedom == Int(number(expected.df)))
            check(srm.pValue, expected.pValue, "srm_p_value")
            #expect(srm.isFlagged == expected.flag)
        } else {
            #expect(analysis.sampleRatioMismatch == nil)
        }
    }

    /// nil must match nil; a number must match to `tolerance` absolute (or relative, for χ²).
    private func check(
        _ actual: Double?, _ expected: String?, _ label: String, tolerance: Double = Tolerance.reported,
        relative: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch (actual, expected.map(number)) {
        case (nil, nil):
            break
        case (let a?, let e?):
            let close = a == e || abs(a - e) <= tolerance * (relative ? max(1, abs(e)) : 1)
            #expect(close, "\(label): got \(a), expected \(e)", sourceLocation: sourceLocation)
        case (let a, let e):
            Issue.record("\(label): got \(String(describing: a)), expected \(String(describing: e))", sourceLocation: sourceLocation)
        }
    }
}
