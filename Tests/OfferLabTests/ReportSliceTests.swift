import Foundation
import OfferLabResults
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabReport
@testable import OfferLabWriters

/// The report's slice sections (docs/analysis.md §7): a section per field, a compact table per offering, the
/// levels whose own SRM flags, and the caveat.
@Suite struct ReportSliceTests {
    static func report() -> ReportData {
        var report = reportFixture()
        func comparison(_ group: String, _ metric: OwnMetric, lift: Double?, low: Double?, high: Double?) -> Comparison {
            Comparison(
                group: group, metric: metric, controlValue: 0.1, value: 0.1, absoluteLift: Estimate(value: 0.01, low: -0.02, high: 0.04),
                relativeLift: lift.map { Estimate(value: $0, low: low, high: high) }, pValue: 0.5, pValueAdjusted: 0.5, significant: false,
                chanceToBeatControl: 0.6, minimumDetectableEffect: nil,
                sequential: SequentialValues(relativeLow: -0.9, relativeHigh: 0.9),
                adjusted: AdjustedIntervals(
                    fixed: .init(absoluteLow: -0.02, absoluteHigh: 0.04, relativeLow: low, relativeHigh: high),
                    sequential: .init(absoluteLow: -0.05, absoluteHigh: 0.07, relativeLow: -0.9, relativeHigh: 0.9)))
        }
        let groups = ["control", "variant_a", "variant_b"]
        report.slices = [
            SliceFieldReport(
                dimension: "country",
                offerings: [
                    SliceOfferingReport(
                        offeringID: "spring",
                        levels: [
                            SliceLevelReport(
                                level: "US", users: zip(groups, [1200, 600, 610]).map { ($0, $1) },
                                comparisons: groups.dropFirst().flatMap { group in
                                    [
                                        comparison(group, .conversion, lift: 0.125, low: -0.05, high: 0.3),
                                        comparison(group, .arpu, lift: -0.02, low: -0.2, high: 0.16),
                                    ]
                                }, sampleRatioFlagged: false),
                            SliceLevelReport(
                                level: "JP <b>", users: zip(groups, [10, 0, 40]).map { ($0, $1) }, comparisons: [], sampleRatioFlagged: true
                            ),
                        ])
                ])
        ]
        return report
    }

    @Test func aSectionPerFieldWithATablePerOffering() {
        let html = HTMLReport.render(Self.report())
        #expect(html.contains("<h2>By country</h2>"))
        #expect(html.contains("Slices are for exploring, not for picking a winner after the fact: with 2 levels per offering"))
        #expect(html.contains("Users (control · variant_a · variant_b)"))
        #expect(html.contains("variant_a: conversion, change in pp (corrected 95% CI)"))
        #expect(html.contains("<td class=\"num\" data-label=\"Users (control · variant_a · variant_b)\">1,200 · 600 · 610</td>"))
        // Fixed-horizon intervals: the fixture's decision is the fixed one. One unit per column:
        // the absolute change, in pp and in the currency, never a ratio beside them.
        #expect(html.contains("<span class=\"main\">+1.0 pp</span><span class=\"detail\">−2.0 pp to +4.0 pp</span>"))
        #expect(html.contains("<span class=\"main\">USD +0.01</span><span class=\"detail\">USD −0.02 to USD +0.04</span>"))
        #expect(!html.contains("−5.0% to +30.0%"))
        // A level without comparisons: dashes; its text escaped; its SRM named.
        #expect(
            html.contains(
                "<th scope=\"row\">JP &lt;b&gt;</th><td class=\"num\" data-label=\"Users (control · variant_a · variant_b)\">10 · 0 · 40</td>"
                    + "<td class=\"num\" data-label=\"variant_a: conversion, change in pp\">–</td>"))
        // On a phone, where the headings are hidden, each cell shows its own heading: the
        // columns vary with the groups, so the details table's fixed labels do not fit.
        #expect(html.contains("table.details.slice td::before{content:attr(data-label)}"))
        #expect(html.contains("<strong>Sample ratio mismatch</strong> within JP &lt;b&gt;"))
        #expect(html.firstRange(of: "By country")!.lowerBound > html.firstRange(of: "Revenue by product")!.lowerBound)
    }

    @Test func theVerdictsInferenceChoosesTheIntervals() {
        let report = Self.report().withOffering { $0.decision = .sequential }
        let html = HTMLReport.render(report)
        #expect(html.contains("<span class=\"main\">+1.0 pp</span><span class=\"detail\">−5.0 pp to +7.0 pp</span>"))
        #expect(html.contains("variant_a: conversion, change in pp (corrected 95% always-valid CI)"))
        #expect(!html.contains("−2.0 pp to +4.0 pp"))
    }

    @Test func noSectionWithoutSlices() {
        let html = HTMLReport.render(reportFixture())
        #expect(!html.contains("Slices are for exploring"))
        #expect(!html.contains("class=\"offering slices\""))
    }

    /// From the tables a run builds: the levels, users and SRM flag of a real slice analysis.
    @Test func readFromTheSliceTables() async throws {
        let tables = TablesFixture(assignments: [
            ("c1", "1", "10", "2026-03-01 09:00:00"), ("v1", "1", "11", "2026-03-01 09:00:00"), ("v2", "1", "11", "2026-03-01 09:00:00"),
        ])
        let events = [
            logRecord("paywall_view", user: "c1", ts: "2026-03-02T00:00:00Z", platform: "ios"),
            logRecord("paywall_view", user: "v1", ts: "2026-03-02T00:00:00Z", platform: "ios"),
            logRecord("paywall_view", user: "v2", ts: "2026-03-02T00:00:00Z", platform: "android"),
        ]
        let results = try await analyse(tables, events, slices: [.platform])
        let night = try NightFixture()
        var job = try JobLoader.load(path: night.jobPath)
        job.analysis.slices = [.platform]
        var sliced = NightTables()
        (sliced.sliceSummary, sliced.sliceComparisons, sliced.sliceSampleRatios) = ResultTables.slices(
            results.offerings,
            statistics: try await NightlyRun.statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run)))
        sliced.offerings = ResultTables.offerings(results.offerings, settings: ResultTableSettings(job))
        let run = RunRecord(
            job: "j", night: Night("2026-03-20"), startedAt: "", finishedAt: "", status: "succeeded",
            toolVersion: "0",
            inputFiles: [])
        let report = ReportData(night: sliced, run: run)
        #expect(report.slices.count == 1)
        let levels = try #require(report.slices.first?.offerings.first?.levels)
        #expect(levels.map(\.level) == ["ios", "android"])
        #expect(levels[0].users.map(\.count) == [1, 1])
        #expect(levels[1].users.map(\.count) == [0, 1])
        #expect(levels[0].comparisons.map(\.metric) == [.conversion, .arpu])
        #expect(levels.map(\.sampleRatioFlagged) == [false, false])
    }
}
