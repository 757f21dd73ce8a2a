import Foundation
import Testing

@testable import OfferLabReport
@testable import OfferLabWriters

/// The decision as the report shows it (docs/report.md, "What to do tonight"): the sentence that
/// names the results pointing elsewhere, the statuses at a glance, the log files' paths.
@Suite struct ReportDecisionTests {
    static func row(status: String, goalRelLift: Double?, daysLeft: Int? = nil) -> DecisionRow {
        DecisionRow(
            offeringID: "spring", group: "variant_b", controlGroup: "control", status: status, reason: "Ship variant_b.",
            goalMetric: "arpu", goalRelLift: goalRelLift, daysLeft: daysLeft)
    }

    /// variant_b ships on revenue per user (+50%) while its projected first year is −20%: one
    /// sentence says what the status rests on; a projection pointing the same way says nothing.
    @Test func aProjectionPointingTheOtherWayIsNamed() {
        var offering = reportFixture().offerings[0]
        var projected = ComparisonValues(group: "variant_b", controlGroup: "control", metric: "projected_arpu_365")
        projected.lift.relLift = -0.2
        offering.projectedComparisons = [projected]
        #expect(
            ReportFindings.otherResultsPointElsewhere(Self.row(status: "ship", goalRelLift: 0.5), in: offering)
                == "This rests on arpu over every member so far (+50.0%); the projected first year (−20.0%) points the other way.")
        #expect(ReportFindings.otherResultsPointElsewhere(Self.row(status: "keep_running", goalRelLift: 0.5), in: offering) == nil)
        offering.projectedComparisons[0].lift.relLift = 0.1
        #expect(ReportFindings.otherResultsPointElsewhere(Self.row(status: "ship", goalRelLift: 0.5), in: offering) == nil)
    }

    @Test func statusesReadInPlainWords() {
        #expect(
            ReportFindings.statusWords(Self.row(status: "keep_running", goalRelLift: nil, daysLeft: 9)) == "keep running (about 9 days)")
        #expect(ReportFindings.statusWords(Self.row(status: "keep_running", goalRelLift: nil)) == "keep running")
        #expect(ReportFindings.statusWords(Self.row(status: "roll_back", goalRelLift: nil)) == "roll back")
        #expect(ReportFindings.tone([Self.row(status: "ship", goalRelLift: 1), Self.row(status: "roll_back", goalRelLift: -1)]) == .worse)
        #expect(ReportFindings.tone([Self.row(status: "ship", goalRelLift: 1)]) == .better)
    }

    /// A paywall's fallback price has no currency (the app adds it): the report gives it the
    /// currency the group's charges of the product were paid in.
    @Test func paywallPricesCarryTheCurrencyTheyWerePaidIn() {
        var product = ShownProductRow(offeringID: "spring", group: "control", productID: "weekly", fallbackDisplayPrice: "7.99")
        #expect(OfferingSection.price(product) == ("7.99", "no charge yet"))
        product.chargedCurrencies = "EUR"
        #expect(OfferingSection.price(product) == ("EUR 7.99", nil))
        product.chargedCurrencies = "EUR;USD"
        #expect(OfferingSection.price(product) == ("7.99", "paid in EUR, USD"))
        product.fallbackDisplayPrice = nil
        #expect(OfferingSection.price(product) == ("–", nil))
    }

    /// With `decision: sequential` the always-valid sample ratio withholds the verdict and its
    /// warning says so; with `decision: fixed` the night's χ² (not flagged here) decides, and the
    /// always-valid flag changes nothing.
    @Test func theAlwaysValidSampleRatioWithholdsTheSequentialVerdict() {
        var offering = ReportHTMLTests().sequentialNight(.sequential).offerings[0]
        offering.sequentialSampleRatio = SampleRatioValues(chi2: nil, pValue: 0.0002, flagged: true)
        #expect(
            ReportFindings.verdict(offering).text
                == "Verdict withheld: the groups' sizes do not match the configured split (always-valid p < 0.001); find out why before acting on any result."
        )
        let warning = ReportFindings.warnings(offering).first { $0.title == "Sample ratio mismatch" }
        #expect(warning?.detail.contains("(always-valid p < 0.001)") == true)
        #expect(warning?.verdictEffect?.hasPrefix("The verdict is withheld") == true)
        offering.decision = .fixed
        #expect(!ReportFindings.verdict(offering).text.hasPrefix("Verdict withheld"))
        #expect(!ReportFindings.warnings(offering).contains { $0.title == "Sample ratio mismatch" })
    }

    /// Under the job's folder a log file reads as the job's `logs:` glob names it; elsewhere whole.
    @Test func logFilesArePathsRelativeToTheJob() {
        #expect(
            HTMLReport.relative("/srv/offerlab/logs/2026/03/a.jsonl.gz", toFolderOf: "/srv/offerlab/job.yaml") == "logs/2026/03/a.jsonl.gz")
        #expect(HTMLReport.relative("/data/logs/a.jsonl.gz", toFolderOf: "/srv/offerlab/job.yaml") == "/data/logs/a.jsonl.gz")
        #expect(HTMLReport.relative("/srv/offerlab-old/a.gz", toFolderOf: "/srv/offerlab/job.yaml") == "/srv/offerlab-old/a.gz")
    }
}
