import Testing

@testable import OfferLab
@testable import OfferLabReport
@testable import OfferLabWriters

@Suite struct ReportFormatTests {
    @Test(arguments: [
        (0, "0"), (999, "999"), (1000, "1,000"), (3118, "3,118"), (1_234_567, "1,234,567"), (-44_146, "−44,146"),
    ])
    func counts(value: Int, text: String) {
        #expect(ReportFormat.count(value) == text)
    }

    @Test(arguments: [
        (0.07312379730596537, "7.3%"), (0.0, "0.0%"), (1.0, "100.0%"), (0.12345, "12.3%"), (0.00049, "0.0%"), (-0.0004, "0.0%"),
    ])
    func percents(value: Double, text: String) {
        #expect(ReportFormat.percent(value) == text)
    }

    @Test(arguments: [
        (0.123, "+12.3%"), (-0.1058367071524966, "−10.6%"), (0.0, "0.0%"), (-0.0004, "0.0%"), (0.0004, "0.0%"),
        (1.460887953294308, "+146.1%"),
    ])
    func relativeChanges(value: Double, text: String) {
        #expect(ReportFormat.signedPercent(value) == text)
    }

    @Test func moneyCarriesTheCurrencyCode() {
        #expect(ReportFormat.money(1.0497600705580465, "USD") == "USD 1.05")
        #expect(ReportFormat.money(3273.1518999999894, "USD") == "USD 3,273.15")
        #expect(ReportFormat.money(-1.004, "EUR") == "EUR −1.00")
        #expect(ReportFormat.money(-0.001, "EUR") == "EUR 0.00")
        #expect(ReportFormat.signedMoney(0.15766, "USD") == "USD +0.16")
        #expect(ReportFormat.signedMoney(-0.0304, "USD") == "USD −0.03")
        #expect(ReportFormat.points(0.029391925964474888) == "+2.9 pp")
    }

    @Test(arguments: [
        (9.25e-06, "p < 0.001"), (0.001, "p = 0.001"), (0.0054777, "p = 0.005"), (0.32976, "p = 0.33"), (1.0, "p = 1.00"),
    ])
    func pValues(value: Double, text: String) {
        #expect(ReportFormat.pValue(value) == text)
    }

    @Test(arguments: [(0.9999956, ">99.9%"), (0.9994, "99.9%"), (0.726316, "72.6%"), (0.0001, "<0.1%")])
    func chancesNeverRoundToCertainty(value: Double, text: String) {
        #expect(ReportFormat.chance(value) == text)
    }

    @Test func timesSizesAndDays() {
        #expect(ReportFormat.timestamp("2026-03-15T02:30:07.123456Z") == "2026-03-15 02:30:07 UTC")
        #expect(ReportFormat.timestamp("2026-03-15T00:00:00Z") == "2026-03-15 00:00:00 UTC")
        #expect(ReportFormat.bytes(1_234_567) == "1.2 MB")
        #expect(ReportFormat.bytes(512) == "512 B")
        #expect(ReportFormat.days(14) == "14 days")
        #expect(ReportFormat.days(1) == "1 day")
        #expect(ReportFormat.days(0.5) == "0.5 days")
        #expect(ReportFindings.confidence(0.05) == "95%")
        #expect(ReportFindings.confidence(0.005) == "99.5%")
    }

    @Test func axisTicksAreRoundAndCoverTheValues() {
        let expected = [0.04, 0.06, 0.08, 0.1, 0.12]
        let rates = SVGCharts.niceTicks([0.054, 0.118])
        #expect(rates.count == expected.count && zip(rates, expected).allSatisfy { abs($0 - $1) < 1e-12 }, "\(rates)")
        let ticks = SVGCharts.niceTicks([-1.35, 0.0, 1.46])
        #expect(ticks.first! <= -1.35 && ticks.last! >= 1.46 && ticks.contains(0))
        #expect(SVGCharts.niceTicks([2, 2]).count >= 2)
        #expect(SVGCharts.dateLabelIndices(14) == [0, 3, 6, 9, 13])
        #expect(SVGCharts.dateLabelIndices(1) == [0])
        #expect(SVGCharts.shortDate("2026-03-05") == "Mar 5")
    }

    /// Issue 47: a lift chart whose band reaches −6,000% stops its axis at −100%, and every label,
    /// signed, fits left of the plot (they lost their minus sign past the edge).
    @Test func liftAxesStopAtMinusAHundredPercentAndTheirLabelsFit() throws {
        let band = SVGCharts.Series(
            label: "variant", color: "#000",
            points: [Estimate(value: -0.2, low: -60, high: 0.3), Estimate(value: 12, low: 1, high: 24)])
        let chart = SVGCharts.liftOverTime(
            dates: ["2026-03-01", "2026-03-02"], series: [band], domain: [-60, -0.2, 0.3, 24], label: "lift", clipID: "c")
        let labels = chart.svg.markup.matches(of: /text-anchor="end"[^>]*>([^<]*%)</).map { String($0.1) }
        #expect(labels.first == "−100%", "\(labels)")
        #expect(
            !labels.contains { $0.hasPrefix("−") && (Double($0.dropFirst().dropLast().replacingOccurrences(of: ",", with: "")) ?? 0) > 100 }
        )
        let firstX = try #require(chart.svg.markup.firstMatch(of: /<text x="([0-9.]+)" y="[0-9.]+" text-anchor="end"/)).1
        let labelEnd = try #require(Double(firstX))
        #expect(labels.allSatisfy { labelEnd - 6.6 * Double($0.count) >= 0 }, "\(labels) end at \(labelEnd)")
    }
}
