import OfferLabStatistics
import OfferLabVocabulary
import Testing

/// `n` users of whom `converters` paid `price` once.
private func statistics(users: Int, converters: Int, price: Double) -> GroupSufficientStatistics {
    let revenue = Double(converters) * price
    return GroupSufficientStatistics(users: users, converters: converters, revenueSum: revenue, revenueSumSquares: revenue * price)
}

private let groups = [
    AnalysisGroup(name: "control", isControl: true, weight: 1, statistics: statistics(users: 4000, converters: 200, price: 9.99)),
    AnalysisGroup(name: "a", isControl: false, weight: 1, statistics: statistics(users: 4000, converters: 260, price: 9.99)),
    AnalysisGroup(name: "b", isControl: false, weight: 1, statistics: statistics(users: 4000, converters: 215, price: 12.99)),
]

/// The rows of `rows` on `metric`, with `metric` replaced, so that they compare with other rows.
private func rows(_ rows: [ComparisonResult], _ metric: Metric, renamedTo other: Metric) -> [ComparisonResult] {
    rows.filter { $0.metric == metric }.map { row in
        var renamed = row
        renamed.metric = other
        return renamed
    }
}

@Suite("Comparison families: capped and matured metrics (docs/analysis.md §4b, §4c)")
struct ComparisonFamilyTests {
    @Test("Names of the metrics in comparisons.csv")
    func names() {
        #expect(Metric.arpuCapped.csvName == "arpu_capped")
        #expect(Metric.conversion(maturedDays: 7).csvName == "conversion_d7" && Metric.arpu(maturedDays: 30).csvName == "arpu_d30")
        #expect(Metric.conversion(maturedDays: 7).kind == .conversion && Metric.arpu(maturedDays: 7).kind == .revenue)
        #expect(Metric.arpu(maturedDays: 7) != Metric.arpu(maturedDays: 14))
    }

    @Test("A family's rows follow the offering's own, in the same order; the own rows do not change")
    func order() throws {
        let plain = try analyzeOffering(groups, alpha: 0.05)
        let capped = groups.map { statistics(users: $0.statistics.users, converters: $0.statistics.converters, price: 8) }
        let matured = groups.map { statistics(users: $0.statistics.users / 2, converters: $0.statistics.converters / 3, price: 9.99) }
        let analysis = try analyzeOffering(groups, alpha: 0.05, families: [.cappedRevenue(capped), .matured(days: 7, matured)])
        #expect(Array(analysis.comparisons.prefix(4)) == plain.comparisons)
        #expect(
            analysis.comparisons.map(\.metric.csvName) == [
                "conversion", "arpu", "conversion", "arpu", "arpu_capped", "arpu_capped", "conversion_d7", "arpu_d7", "conversion_d7",
                "arpu_d7",
            ])
        #expect(analysis.comparisons.map(\.group) == ["a", "a", "b", "b", "a", "b", "a", "a", "b", "b"])
        #expect(analysis.summaries == plain.summaries)
    }

    @Test("A family's rows are computed exactly as the offering's own rows on the same statistics")
    func sameAsOwnRows() throws {
        let plain = try analyzeOffering(groups, alpha: 0.05)
        let analysis = try analyzeOffering(
            groups, alpha: 0.05, families: [.matured(days: 14, groups.map(\.statistics)), .cappedRevenue(groups.map(\.statistics))])
        let d14 = Metric.conversion(maturedDays: 14)
        #expect(rows(analysis.comparisons, d14, renamedTo: .conversion) == rows(plain.comparisons, .conversion, renamedTo: .conversion))
        #expect(rows(analysis.comparisons, .arpu(maturedDays: 14), renamedTo: .arpu) == rows(plain.comparisons, .arpu, renamedTo: .arpu))
        #expect(rows(analysis.comparisons, .arpuCapped, renamedTo: .arpu) == rows(plain.comparisons, .arpu, renamedTo: .arpu))
        // The conversion rows carry the minimum detectable effect, the revenue rows none.
        #expect(analysis.comparisons.filter { $0.metric == d14 }.allSatisfy { $0.mdeAbs != nil })
        #expect(analysis.comparisons.filter { $0.metric == .arpuCapped }.allSatisfy { $0.mdeAbs == nil })
    }

    @Test("Holm–Bonferroni within each family's metric only")
    func holmPerFamily() throws {
        let capped = [
            statistics(users: 4000, converters: 200, price: 5), statistics(users: 4000, converters: 300, price: 5),
            statistics(users: 4000, converters: 210, price: 5),
        ]
        let analysis = try analyzeOffering(groups, alpha: 0.05, families: [.cappedRevenue(capped)])
        let cappedRows = analysis.comparisons.filter { $0.metric == .arpuCapped }
        let p = cappedRows.compactMap(\.pValue)
        #expect(p.count == 2)
        #expect(cappedRows.compactMap(\.pValueAdjusted) == holmBonferroni(p))
        #expect(cappedRows.map(\.significant) == holmBonferroni(p).map { $0 < 0.05 })
        let arpu = analysis.comparisons.filter { $0.metric == .arpu }
        #expect(arpu.compactMap(\.pValueAdjusted) == holmBonferroni(arpu.compactMap(\.pValue)))
    }

    @Test("A family's statistics are checked like the groups' own, naming the group")
    func invalidFamily() {
        #expect(throws: AnalysisInputError.familyGroupCount(metric: "arpu_capped", expected: 3, got: 2)) {
            try analyzeOffering(groups, alpha: 0.05, families: [.cappedRevenue(Array(groups.map(\.statistics).prefix(2)))])
        }
        var matured = groups.map(\.statistics)
        matured[2].converters = matured[2].users + 1
        #expect(throws: AnalysisInputError.invalidCounts(group: "b", users: 4000, converters: 4001)) {
            try analyzeOffering(groups, alpha: 0.05, families: [.matured(days: 7, matured)])
        }
    }
}
