import Foundation
import OfferLabJob
import OfferLabVocabulary
import Testing

@testable import OfferLabReport
@testable import OfferLabWriters

/// The decision as the report shows it (docs/report.md, "What to do tonight"): the sentence that
/// names the results pointing elsewhere, the statuses at a glance, the log files' paths.
@Suite struct ReportDecisionTests {
    static func row(status: DecisionStatus, goalRelLift: Double?, daysLeft: Int? = nil) -> DecisionRow {
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
        offering.projectedComparisons = [ComparisonRow(offeringID: "spring", comparison: projected)]
        #expect(
            ReportFindings.otherResultsPointElsewhere(Self.row(status: .ship, goalRelLift: 0.5), in: offering)
                == "This rests on revenue per user over every member so far (+50.0%); the projected first year (−20.0%) points the other way."
        )
        #expect(ReportFindings.otherResultsPointElsewhere(Self.row(status: .keepRunning, goalRelLift: 0.5), in: offering) == nil)
        offering.projectedComparisons[0].comparison.lift.relLift = 0.1
        #expect(ReportFindings.otherResultsPointElsewhere(Self.row(status: .ship, goalRelLift: 0.5), in: offering) == nil)
    }

    /// A period test's line at a glance carries the far ends of a new user's year against
    /// control (the comparison's abs_lift_bound_low/high), an open end in words; a test decided on
    /// another goal, or a comparison without them, shows none.
    @Test func aPeriodTestShowsItsFarEnds() {
        var offering = reportFixture().offerings[0]
        let projected = ComparisonValues(group: "variant_b", controlGroup: "control", metric: "projected_arpu_365")
        offering.projectedComparisons = [
            ComparisonRow(offeringID: "spring", comparison: projected, absLiftBoundLow: -33.05, absLiftBoundHigh: 78.07)
        ]
        var row = Self.row(status: .keepRunning, goalRelLift: 0.466)
        #expect(ReportFindings.farEnds(row, in: offering) == nil)
        row.goalMetric = "projected_arpu_365"
        #expect(
            ReportFindings.farEnds(row, in: offering)
                == "far ends USD −33.05 to USD +78.07 a new user")
        offering.projectedComparisons[0].absLiftBoundHigh = .infinity
        #expect(ReportFindings.farEnds(row, in: offering) == "far ends at least USD −33.05 a new user")
        offering.projectedComparisons[0].absLiftBoundLow = nil
        #expect(ReportFindings.farEnds(row, in: offering) == nil)
        var report = reportFixture()
        report.offerings[0].projectedComparisons = [
            ComparisonRow(offeringID: "spring", comparison: projected, absLiftBoundLow: -1, absLiftBoundHigh: 2)
        ]
        report.offerings[0].decisions = [row]
        #expect(
            HTMLReport.render(report).contains(
                "<span class=\"far-ends\">far ends USD −1.00 to USD +2.00 a new user</span></span>"
            ))
    }

    /// A status reads in words (`DecisionStatus.words`); its tone and whether it ends the test
    /// are the status's own.
    @Test func statusesReadInPlainWords() {
        #expect(DecisionStatus.keepRunning.words == "Keep running")
        #expect(DecisionStatus.rollBack.words == "Roll back")
        #expect(DecisionStatus.futile.words == "Stop: the target lift cannot be found in time")
        #expect(ReportFindings.tone(status: .unhealthy) == .worse)
        #expect(ReportFindings.tone(status: .futile) == .unclear)
        #expect(ReportFindings.tone([Self.row(status: .ship, goalRelLift: 1), Self.row(status: .rollBack, goalRelLift: -1)]) == .worse)
        #expect(ReportFindings.tone([Self.row(status: .ship, goalRelLift: 1)]) == .better)
        #expect(ReportFindings.tone([Self.row(status: .ship, goalRelLift: 1), Self.row(status: .futile, goalRelLift: 0)]) == .better)
    }

    /// The report's own two metrics are the catalogue's, by name.
    @Test func ownMetricsAreTheCatalogues() {
        #expect(OwnMetric.allCases.map(\.metric.csvName) == OwnMetric.allCases.map(\.rawValue))
        #expect(ReportFindings.name(.arpu) == "revenue per user")
    }

    /// A status is stored by its name and read back as the same status; a name this offerlab does
    /// not know (a later version's) reads as `unhealthy`, never as a running test.
    @Test func statusesAreStoredByName() {
        for status in DecisionStatus.allCases { #expect(DecisionStatus(resultValue: status.resultValue) == status) }
        #expect(DecisionStatus(resultValue: .text("wait_for_data")) == .unhealthy)
        #expect(DecisionStatus(resultValue: .real(nil)) == .unhealthy)
    }

    /// A ship beside a treatment still running, or a stop beside one, is not the offering's
    /// decision yet: neither the box at a glance nor "What to do tonight" is green.
    @Test func anOfferingWithATreatmentUndecidedIsNeverShownDecided() {
        var report = reportFixture()
        var running = Self.row(status: .keepRunning, goalRelLift: 0.25, daysLeft: 40)
        running.group = "variant_a"
        for status in [DecisionStatus.ship, .futile] {
            report.offerings[0].decisions = [running, Self.row(status: status, goalRelLift: 0.5)]
            #expect(ReportFindings.tone(report.offerings[0].decisions) == .unclear, "\(status)")
            let page = HTMLReport.render(report)
            #expect(!page.contains("class=\"glance decided\""), "\(status)")
            #expect(page.contains("<div class=\"verdict decision open\"><p class=\"label\">What to do tonight</p>"), "\(status)")
        }
        report.offerings[0].decisions[0].status = .inconclusive
        report.offerings[0].decisions[1].status = .ship
        #expect(HTMLReport.render(report).contains("<div class=\"verdict decision win\"><p class=\"label\">What to do tonight</p>"))
    }

    /// The first screen's line of a treatment: the goal's lift and its interval, what shipping
    /// is worth with its currency, and the date a running test is expected to be decided
    /// (as_of + days_left).
    @Test func aTreatmentAtAGlance() {
        var row = Self.row(status: .keepRunning, goalRelLift: 0.0952, daysLeft: 30)
        (row.goalRelLiftCILow, row.goalRelLiftCIHigh) = (-0.423, 0.6547)
        (row.impact365, row.impact365CILow, row.impact365CIHigh) = (1951.64, -30562.5, 42342.17)
        let night = Night(parsing: "2026-03-15")!
        #expect(ReportFindings.goalLift(row) == "revenue per user +9.5% (likely −42.3% to +65.5%)")
        #expect(
            ReportFindings.worth(row, currency: "USD") == "worth USD +1,951.64 a year if shipped (likely USD −30,562.50 to USD +42,342.17)")
        #expect(ReportFindings.when(row, night: night) == "decision expected about 14 April")
        row.daysLeft = 733
        #expect(ReportFindings.when(row, night: night) == "decision expected about 17 March 2028")
        row.daysLeft = nil
        #expect(ReportFindings.when(row, night: night) == "decision date unknown: no one has joined in the last 7 days")
        row.enrolmentPerDay = 214.7
        #expect(ReportFindings.when(row, night: night) == "decision date unknown: the users still needed cannot be estimated yet")
        row.status = .ship
        #expect(ReportFindings.when(row, night: night) == nil)
        row.goalMetric = "conversion_d7"
        row.goalRelLift = nil
        row.impact365 = nil
        #expect(ReportFindings.goalLift(row) == "conversion within 7 days: no lift measured yet")
        #expect(ReportFindings.worth(row, currency: "USD") == "worth: not projected yet")
    }

    /// An open end of an interval (missing, or infinite as a bounded projection may be) is said
    /// in words; it never prints a dash where a number should be ("USD – to USD –").
    @Test func anOpenBoundIsNeverADash() {
        let money = { (amount: Double) in ReportFormat.money(amount, "USD") }
        #expect(ReportFindings.range(1, 3, money) == "USD 1.00 to USD 3.00")
        #expect(ReportFindings.range(1, .infinity, money) == "at least USD 1.00")
        #expect(ReportFindings.range(nil, 3, money) == "at most USD 3.00")
        #expect(ReportFindings.range(-.infinity, .nan, money) == nil)
        var row = Self.row(status: .ship, goalRelLift: 0.5)
        (row.goalRelLiftCILow, row.goalRelLiftCIHigh) = (0.1, .infinity)
        (row.impact365, row.impact365CILow, row.impact365CIHigh) = (100, -.infinity, .infinity)
        #expect(ReportFindings.goalLift(row) == "revenue per user +50.0% (likely at least +10.0%)")
        #expect(ReportFindings.worth(row, currency: "USD") == "worth USD +100.00 a year if shipped")
    }

    /// "Would have found a 10% change": power in words, the analyst's term in brackets.
    @Test func powerReadsAsAChanceOfFindingTheTarget() {
        var row = Self.row(status: .keepRunning, goalRelLift: 0.01)
        (row.targetMDE, row.power, row.usersNeeded) = (0.1, 0.0036, 157_357)
        #expect(
            ReportFindings.power(row)
                == "At its size tonight the test would have found a 10.0% change 0.4% of the time (power); 157,357 more users are needed for the target."
        )
    }

    /// "Fewer paying users", never "less payers".
    @Test func theLiftSplitsIntoPayingUsersAndWhatEachPays() {
        var row = Self.row(status: .ship, goalRelLift: 0.1)
        (row.conversionRelLift, row.arppuRelLift) = (-0.349, 0.4)
        #expect(
            ReportFindings.liftDecomposition(row)
                == "Revenue per user of variant_b −8.9% against control: 34.9% fewer paying users, each paying 40.0% more.")
    }

    /// The first screen ("At a glance") holds every treatment's status, lift, worth and decision
    /// date; the offering's box is green (`decided`) only when every treatment is decided, and a
    /// status the report does not know is shown in words.
    @Test func theFirstScreenHoldsEveryTreatment() {
        var report = reportFixture()
        var running = Self.row(status: .keepRunning, goalRelLift: 0.0952, daysLeft: 30)
        running.group = "variant_a"
        (running.impact365, running.impact365CILow, running.impact365CIHigh) = (1951.64, -30562.5, 42342.17)
        var futile = Self.row(status: .futile, goalRelLift: 0.5)
        (futile.goalRelLiftCILow, futile.goalRelLiftCIHigh) = (0.1, 0.9)
        report.offerings[0].decisions = [running, futile]
        let page = HTMLReport.render(report)
        let glance = String(page[page.range(of: "At a glance")!.lowerBound..<page.range(of: "What to do tonight")!.lowerBound])
        #expect(
            glance.contains(
                "<div class=\"treatment\" data-group=\"variant_a\" data-status=\"keep_running\"><span class=\"group\">variant_a</span>"
                    + "<span class=\"status unclear\">Keep running</span><span class=\"goal\">revenue per user +9.5%</span>"
                    + "<span class=\"worth\">worth USD +1,951.64 a year if shipped (likely USD −30,562.50 to USD +42,342.17)</span>"
                    + "<span class=\"when\">decision expected about 14 April</span></div>"))
        #expect(
            glance.contains(
                "<span class=\"status unclear\">Stop: the target lift cannot be found in time</span>"
                    + "<span class=\"goal\">revenue per user +50.0% (likely +10.0% to +90.0%)</span>"
                    + "<span class=\"worth\">worth: not projected yet</span></div>"))
        #expect(!page.contains("class=\"glance decided\""))
        #expect(ReportFindings.headline(status: .ship, group: "variant_b") == "Ship variant_b")
        #expect(ReportFindings.headline(status: .unhealthy, group: "b") == "Do not act b: the data looks broken")
        // What the running test's date assumes, in its detail; none for a test without a date.
        #expect(
            page.contains(
                "<p class=\"note\">The decision date assumes that new users keep joining at the pace of the last 7 days and that the revenue of each user "
                    + "grows with time in the test as it did for the users already in it that long, and beyond the longest time seen as "
                    + "the revenue of a new user would grow at the renewal rates seen, those of earlier buyers included where the job "
                    + "reads them.</p></details>"))
        #expect(page.components(separatedBy: "The decision date assumes").count == 2)
        running.goalMetric = "conversion"
        #expect(
            ReportFindings.dateAssumes(running) == "The decision date assumes that new users keep joining at the pace of the last 7 days.")
        report.offerings[0].decisions[0].status = .inconclusive
        #expect(HTMLReport.render(report).contains("class=\"glance decided\""))
        // The analyst's terms stay in the expandable detail under the plain sentence.
        #expect(
            page.contains(
                "<p class=\"sentence\"><strong>Stop variant_b: the target lift cannot be found in time</strong> — revenue per user +50.0% "
                    + "(likely +10.0% to +90.0%); worth: not projected yet.</p>\n<details class=\"why\"><summary>How this was decided</summary>"
                    + "<p>Ship variant_b.</p>"))
    }

    /// A group whose year is bounded without end: the report says what is unknown, never "USD –".
    @Test func anUnboundedProjectionSaysWhatIsUnknown() {
        var report = reportFixture()
        report.offerings[0].projection = [
            ProjectionRow(
                offeringID: "spring", group: "control", users: 10, realizedARPU: 1, boundLow: 1, boundHigh: .infinity,
                reason: "renewals unseen"),
            ProjectionRow(
                offeringID: "spring", group: "variant_b", users: 10, realizedARPU: 1, boundLow: -.infinity, boundHigh: .infinity,
                reason: "renewals unseen"),
        ]
        let page = HTMLReport.render(report)
        #expect(
            page.contains("<span class=\"detail\">cannot be projected yet</span><span class=\"detail\">far ends at least USD 1.00</span>"))
        #expect(page.contains("<span class=\"detail\">how high it may go is unknown</span>"))
        #expect(!page.contains("USD –"))
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
