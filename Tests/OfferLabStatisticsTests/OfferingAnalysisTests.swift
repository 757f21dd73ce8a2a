import OfferLabStatistics
import OfferLabVocabulary
import Testing

/// A group whose converters each paid `price` (everybody else 0).
private func group(
    _ name: String, users: Int, converters: Int, price: Double = 9.99, weight: Double = 1, control: Bool = false
) -> AnalysisGroup {
    let revenue = Double(converters) * price
    return AnalysisGroup(
        name: name, isControl: control, weight: weight,
        statistics: GroupSufficientStatistics(
            users: users, converters: converters, revenueSum: revenue, revenueSumSquares: revenue * price))
}

@Suite("Offering analysis: shape, corners and properties")
struct OfferingAnalysisTests {
    @Test("Rows: each treatment in input order, conversion before arpu; control rows absent")
    func order() throws {
        let analysis = try analyzeOffering(
            [
                group("b", users: 100, converters: 5), group("control", users: 100, converters: 4, control: true),
                group("a", users: 100, converters: 6),
            ], alpha: 0.05)
        #expect(analysis.comparisons.map(\.group) == ["b", "b", "a", "a"])
        #expect(analysis.comparisons.map(\.metric) == [.conversion, .arpu, .conversion, .arpu])
        #expect(analysis.comparisons.allSatisfy { $0.controlGroup == "control" })
        #expect(analysis.summaries.count == 3)
        #expect(Metric.conversion.csvName == "conversion" && Metric.arpu.csvName == "arpu")
    }

    @Test("Holm: adjusted ≥ raw, significant ⇔ adjusted < alpha, nil together")
    func holm() throws {
        let analysis = try analyzeOffering(
            [
                group("control", users: 5000, converters: 250, control: true),
                group("t1", users: 5000, converters: 320), group("t2", users: 5000, converters: 255),
                group("t3", users: 5000, converters: 0), group("t4", users: 1, converters: 1),
            ], alpha: 0.05)
        for row in analysis.comparisons {
            #expect((row.pValue == nil) == (row.pValueAdjusted == nil))
            #expect((row.pValueAdjusted == nil) == (row.significant == nil))
            if let p = row.pValue, let adjusted = row.pValueAdjusted {
                #expect(adjusted >= p)
                #expect(row.significant == (adjusted < 0.05))
            }
        }
        // t4 has 1 user: its ARPU row has no p-value and does not count in Holm's m.
        let arpu = analysis.comparisons.filter { $0.metric == .arpu }
        #expect(arpu.last?.pValue == nil)
        let withP = arpu.compactMap(\.pValue)
        #expect(withP.count == 3)
        #expect(arpu.compactMap(\.pValueAdjusted) == holmBonferroni(withP))
    }

    @Test(
        "Swapping treatment and control: same p, lifts and intervals mirrored, chance 1 − P",
        arguments: [(500, 10_000, 560, 10_000), (3, 20, 9, 25), (0, 50, 4, 60), (40, 40, 35, 45)])
    func swapSymmetry(_ sizes: (Int, Int, Int, Int)) throws {
        let (xa, na, xb, nb) = sizes
        let forward = try analyzeOffering(
            [
                group("a", users: na, converters: xa, price: 4.99, control: true),
                group("b", users: nb, converters: xb, price: 7.49),
            ], alpha: 0.05
        ).comparisons
        let backward = try analyzeOffering(
            [
                group("b", users: nb, converters: xb, price: 7.49, control: true),
                group("a", users: na, converters: xa, price: 4.99),
            ], alpha: 0.05
        ).comparisons
        for (f, b) in zip(forward, backward) {
            #expect(f.metric == b.metric)
            #expect(f.controlValue == b.value && f.value == b.controlValue)
            expectClose(f.pValue, b.pValue, 1e-12)
            expectClose(f.absLift, b.absLift.map { -$0 }, 1e-15)
            expectClose(f.absLiftCILow, b.absLiftCIHigh.map { -$0 }, 1e-12)
            expectClose(f.absLiftCIHigh, b.absLiftCILow.map { -$0 }, 1e-12)
            expectClose(f.chanceToBeatControl, b.chanceToBeatControl.map { 1 - $0 }, 1e-9)
        }
    }

    @Test(
        "Monotone in effect size: more treatment converters, lower p above control, higher chance", arguments: [Metric.conversion, .arpu])
    func monotone(metric: Metric) throws {
        var previousP = 1.0
        var previousChance = 0.0
        var previousLift = -Double.infinity
        for converters in stride(from: 500, through: 700, by: 25) {
            let rows = try analyzeOffering(
                [
                    group("control", users: 10_000, converters: 500, control: true),
                    group("t", users: 10_000, converters: converters),
                ], alpha: 0.05
            ).comparisons
            let row = try #require(rows.first { $0.metric == metric })
            let p = try #require(row.pValue)
            let chance = try #require(row.chanceToBeatControl)
            let lift = try #require(row.absLift)
            #expect(p <= previousP, "\(converters)")
            #expect(chance >= previousChance, "\(converters)")
            #expect(lift > previousLift, "\(converters)")
            #expect(try #require(row.absLiftCILow) < lift && lift < (try #require(row.absLiftCIHigh)))
            previousP = p
            previousChance = chance
            previousLift = lift
        }
        #expect(previousP < 1e-8)
    }

    @Test("A group with 0 users: its values nil, no comparison values, SRM computed")
    func emptyGroup() throws {
        let analysis = try analyzeOffering(
            [group("control", users: 0, converters: 0, control: true), group("t", users: 100, converters: 2)], alpha: 0.05)
        #expect(analysis.summaries[0] == GroupSummary(GroupSufficientStatistics(), alpha: 0.05))
        #expect(analysis.summaries[0].conversionRate == nil && analysis.summaries[0].arpu == nil)
        for row in analysis.comparisons {
            #expect(row.controlValue == nil)
            #expect(row.value != nil)
            #expect(row.absLift == nil && row.pValue == nil && row.chanceToBeatControl == nil && row.mdeAbs == nil)
        }
        #expect(analysis.sampleRatioMismatch?.isFlagged == true)
    }

    @Test("One user per group: conversion compared, ARPU only the means")
    func singleUsers() throws {
        let analysis = try analyzeOffering(
            [group("control", users: 1, converters: 1, control: true), group("t", users: 1, converters: 0)], alpha: 0.05)
        let conversion = analysis.comparisons[0]
        let arpu = analysis.comparisons[1]
        #expect(conversion.pValue != nil && conversion.chanceToBeatControl != nil)
        #expect(arpu.controlValue == 9.99 && arpu.value == 0)
        #expect(arpu.absLift == nil && arpu.relLift == nil && arpu.pValue == nil && arpu.mdeAbs == nil)
        #expect(analysis.summaries[0].arpuSD == nil)
        #expect(analysis.summaries[0].arppu == 9.99)
        #expect(analysis.summaries[1].arppu == nil)
    }

    @Test("Zero variance in both groups: ARPU p, absolute interval and chance nil; conversion p = 1")
    func zeroVariance() throws {
        let nobody = try analyzeOffering(
            [group("control", users: 100, converters: 0, control: true), group("t", users: 80, converters: 0)], alpha: 0.05)
        let conversion = nobody.comparisons[0]
        #expect(conversion.pValue == 1)
        #expect(conversion.relLift == nil)  // control rate 0
        #expect(conversion.absLiftCILow == 0 && conversion.absLiftCIHigh == 0)
        #expect(conversion.mdeAbs == 0)
        let arpu = nobody.comparisons[1]
        #expect(arpu.absLift == 0)
        #expect(arpu.pValue == nil && arpu.absLiftCILow == nil && arpu.chanceToBeatControl == nil)
        #expect(arpu.relLift == nil)  // control ARPU 0

        // Everybody paid the same price: the variance is rounding noise and counts as 0.
        let same = try analyzeOffering(
            [group("control", users: 30, converters: 30, control: true), group("t", users: 70, converters: 70)], alpha: 0.05)
        #expect(same.summaries[0].arpuSD == 0)
        let sameArpu = same.comparisons[1]
        #expect(sameArpu.pValue == nil)
        #expect(sameArpu.relLift != nil && sameArpu.relLiftCILow == sameArpu.relLiftCIHigh)
    }

    @Test("Zero variance in one group: Welch degrees of freedom are the other group's n − 1")
    func oneZeroVariance() throws {
        let control = SampleMoments(count: 50, mean: 0, variance: 0)
        let treatment = SampleMoments(count: 30, mean: 1, variance: 4)
        let test = try #require(welchTest(control: control, treatment: treatment))
        #expect(test.degreesOfFreedom == 29)
        let expected = 2 * StudentT(degreesOfFreedom: 29).survival(1 / (4.0 / 30).squareRoot())
        #expect(abs(test.pValue - expected) <= 1e-15)
    }

    @Test("A single group: no comparisons, SRM χ² = 0 with p = 1")
    func singleGroup() throws {
        let analysis = try analyzeOffering([group("control", users: 10, converters: 1, control: true)], alpha: 0.05)
        #expect(analysis.comparisons.isEmpty)
        #expect(analysis.sampleRatioMismatch == SampleRatioMismatchResult(chiSquared: 0, degreesOfFreedom: 0, pValue: 1, isFlagged: false))
    }

    @Test("Huge n (10⁸ users per group) stays finite and exact enough")
    func huge() throws {
        let analysis = try analyzeOffering(
            [
                group("control", users: 100_000_000, converters: 5_000_000, control: true),
                group("t", users: 100_000_000, converters: 5_010_000),
            ], alpha: 0.05)
        for row in analysis.comparisons {
            #expect(row.pValue.map { $0 > 0 && $0 < 1 } == true)
            #expect(row.chanceToBeatControl.map { $0 > 0.99 } == true)
        }
        let summary = analysis.summaries[0]
        #expect(try #require(summary.conversionCIHigh) - 0.05 < 1e-4)
    }

    @Test("Invalid input is a clear error naming the group")
    func errors() {
        #expect(throws: AnalysisInputError.noControl) {
            try analyzeOffering([group("a", users: 1, converters: 0)], alpha: 0.05)
        }
        #expect(throws: AnalysisInputError.multipleControls(["a", "b"])) {
            try analyzeOffering(
                [group("a", users: 1, converters: 0, control: true), group("b", users: 1, converters: 0, control: true)], alpha: 0.05)
        }
        #expect(throws: AnalysisInputError.invalidCounts(group: "a", users: 1, converters: 2)) {
            try analyzeOffering([group("a", users: 1, converters: 2, control: true)], alpha: 0.05)
        }
        #expect(throws: AnalysisInputError.invalidAlpha(1)) {
            try analyzeOffering([group("a", users: 1, converters: 0, control: true)], alpha: 1)
        }
        #expect(throws: AnalysisInputError.invalidWeight(group: "a", weight: -1)) {
            try analyzeOffering([group("a", users: 1, converters: 0, weight: -1, control: true)], alpha: 0.05)
        }
        let nan = AnalysisGroup(
            name: "x", isControl: true, weight: 1,
            statistics: GroupSufficientStatistics(users: 2, converters: 0, revenueSum: .nan, revenueSumSquares: 0))
        #expect(throws: AnalysisInputError.invalidRevenue(group: "x")) { try analyzeOffering([nan], alpha: 0.05) }
        #expect(AnalysisInputError.noControl.description.contains("control"))
    }
}

@Suite("Sample ratio mismatch corners")
struct SampleRatioMismatchTests {
    @Test("Weights need not sum to 1")
    func scale() throws {
        let a = try #require(sampleRatioMismatch(users: [510, 250, 240], weights: [2, 1, 1]))
        let b = try #require(sampleRatioMismatch(users: [510, 250, 240], weights: [50, 25, 25]))
        let c = try #require(sampleRatioMismatch(users: [510, 250, 240], weights: [0.5, 0.25, 0.25]))
        #expect(abs(a.chiSquared - b.chiSquared) <= 1e-12 && abs(a.chiSquared - c.chiSquared) <= 1e-12)
        #expect(a.degreesOfFreedom == 2)
        // χ² = (10²/500) + (0²/250) + (10²/250) = 0.6.
        #expect(abs(a.chiSquared - 0.6) <= 1e-12)
        #expect(abs(a.pValue - ChiSquared(degreesOfFreedom: 2).survival(0.6)) <= 1e-15)
        #expect(!a.isFlagged)
    }

    @Test("No users or no weights: nil")
    func empty() {
        #expect(sampleRatioMismatch(users: [0, 0], weights: [1, 1]) == nil)
        #expect(sampleRatioMismatch(users: [5, 5], weights: [0, 0]) == nil)
        #expect(sampleRatioMismatch(users: [], weights: []) == nil)
    }

    @Test("Weight 0: without users it is left out of k, with users the mismatch is total")
    func zeroWeight() throws {
        let without = try #require(sampleRatioMismatch(users: [100, 0, 100], weights: [1, 0, 1]))
        #expect(without.degreesOfFreedom == 1 && without.chiSquared == 0 && without.pValue == 1)
        let with = try #require(sampleRatioMismatch(users: [100, 1, 100], weights: [1, 0, 1]))
        #expect(with.chiSquared == .infinity && with.pValue == 0 && with.isFlagged)
    }

    @Test("Flag below 0.001 only")
    func flag() throws {
        let flagged = try #require(sampleRatioMismatch(users: [10_000, 10_600], weights: [1, 1]))
        #expect(flagged.isFlagged && flagged.pValue < 0.001)
        let fine = try #require(sampleRatioMismatch(users: [10_000, 10_100], weights: [1, 1]))
        #expect(!fine.isFlagged)
    }
}

private func expectClose(_ a: Double?, _ b: Double?, _ tolerance: Double, sourceLocation: SourceLocation = #_sourceLocation) {
    switch (a, b) {
    case (nil, nil): break
    case (let x?, let y?): #expect(abs(x - y) <= tolerance, "\(x) vs \(y)", sourceLocation: sourceLocation)
    default: Issue.record("\(String(describing: a)) vs \(String(describing: b))", sourceLocation: sourceLocation)
    }
}
