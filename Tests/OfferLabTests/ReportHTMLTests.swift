import Foundation
import OfferLabVocabulary
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabReport
@testable import OfferLabWarehouse
@testable import OfferLabWriters

/// The page's content from hand-made nights: values, verdicts, warnings, charts, escaping.
@Suite struct ReportHTMLTests {
    /// The page's text, tags removed and entities decoded, so a phrase is found however it is marked up.
    func text(_ html: String) -> String {
        var text = html.replacingOccurrences(of: "</?(span|strong|code|a)\\b[^>]*>", with: "", options: .regularExpression)
        text = text.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text.replacingOccurrences(of: "\\s+", with: " ", options: .regularExpression)
    }

    @Test func theNumbersAreFormattedForPeople() {
        let page = text(HTMLReport.render(reportFixture()))
        for expected in [
            "Offering tests, night of 2026-03-15", "data up to 2026-03-15 00:00:00 UTC", "Spring price test", "spring",
            "3,118", "7.3%", "likely 6.5% to 8.3%", "USD 1.05", "USD 3,273.15", "+40.2%", "likely +13.3% to +67.1%", "+97.1%",
            ">99.9% chance it is better",
            "p < 0.001", "p = 0.33", "±2.3 pp", "49.7% of users", "planned 50.0%", "14 days conversion window",
            "weekly_799", "7.99", "That's 40% Off Weekly!", "Study AI", "Join now. Learn anything.", "Start now", "Cancel Anytime",
            "BEST VALUE", "pre-selected", "USD 625.13", "/jobs/nightly.yaml", "0.1.0", "2026-03-15 02:30:00 UTC", "1.2 MB",
            "/logs/2026/03/14/a.jsonl.gz", "attribution_mismatches",
        ] {
            #expect(page.contains(expected), "missing: \(expected)")
        }
    }

    @Test func verdictAndHeadlinesInPlainWords() {
        let report = reportFixture()
        let offering = report.offerings[0]
        #expect(
            ReportFindings.verdict(offering).text
                == "variant_b is winning on revenue per user: +97.1% vs control (corrected 95% CI +48.1% to +146.1%), a >99.9% chance that it does better than control."
        )
        #expect(
            ReportFindings.headline(offering, group: "variant_b").map(\.text) == [
                "conversion +40.2% vs control (corrected 95% CI +13.3% to +67.1%), significant after correction",
                "revenue per user +97.1% vs control (corrected 95% CI +48.1% to +146.1%), significant after correction",
            ])
        #expect(
            ReportFindings.headline(offering, group: "variant_a").map(\.text) == [
                "conversion −10.6% vs control (corrected 95% CI −30.7% to +9.6%), not significant",
                "revenue per user +15.0% vs control (corrected 95% CI −13.5% to +43.6%), not significant",
            ])
        let page = text(HTMLReport.render(report))
        #expect(
            page.contains(
                "variant_b: conversion +40.2% vs control (corrected 95% CI +13.3% to +67.1%), significant after correction; revenue per user +97.1%"
            ))
    }

    @Test func verdictWhenNothingIsSignificant() {
        let offering = reportFixture().withOffering { offering in
            for index in offering.comparisons.indices { offering.comparisons[index].significant = false }
        }.offerings[0]
        #expect(
            ReportFindings.verdict(offering).text
                == "No winner yet: no variant beats control significantly. Most promising: variant_b (a >99.9% chance that its revenue per user is higher than control's)."
        )
        #expect(ReportFindings.headline(offering, group: "variant_b")[0].text.hasSuffix(", not significant"))
    }

    @Test func verdictOnConversionAloneAndForControl() {
        let conversionOnly = reportFixture().withOffering { offering in
            offering.comparisons[3].significant = false
        }.offerings[0]
        #expect(ReportFindings.verdict(conversionOnly).text.hasPrefix("variant_b is winning on conversion: +40.2% vs control"))
        let controlWins = reportFixture().withOffering { offering in
            for index in offering.comparisons.indices {
                offering.comparisons[index].significant = true
                offering.comparisons[index].absoluteLift?.value = -0.01
                offering.comparisons[index].relativeLift?.value = -0.1
            }
        }.offerings[0]
        #expect(
            ReportFindings.verdict(controlWins)
                == ReportFindings.Verdict(tone: .worse, text: "control is winning: every variant does significantly worse."))
    }

    @Test func withoutStatisticsThereIsNoVerdictButTheGroupsShow() {
        let report = reportFixture().withOffering { $0.comparisons = [] }
        #expect(ReportFindings.verdict(report.offerings[0]).text == "No verdict: this night has no comparisons with control.")
        let page = text(HTMLReport.render(report))
        #expect(page.contains("variant_b: conversion: not enough data; revenue per user: not enough data"))
        #expect(page.contains("3,118"))
    }

    @Test func aCleanNightHasNoWarning() {
        let html = HTMLReport.render(reportFixture())
        #expect(ReportFindings.warnings(reportFixture()).isEmpty)
        #expect(ReportFindings.warnings(reportFixture().offerings[0]).isEmpty)
        #expect(!html.contains("class=\"banner"))
        #expect(!html.contains("role=\"alert\""))
    }

    struct WarningCase: Sendable, CustomTestStringConvertible {
        var title: String
        var severity: ReportFindings.Warning.Severity
        var expectedText: String
        var make: @Sendable () -> ReportData
        var testDescription: String { title }
    }

    static let warningCases = [
        WarningCase(title: "Sample ratio mismatch", severity: .critical, expectedText: "control 49.7% (planned 50.0%)") {
            reportFixture().withOffering { $0.sampleRatio = SampleRatioValues(chi2: 20, pValue: 0.0002, flagged: true) }
        },
        WarningCase(title: "Too few users", severity: .caution, expectedText: "variant_a has 99: at least 100 users per group") {
            reportFixture().withOffering { $0.groups[1].users = 99 }
        },
        WarningCase(title: "Revenue incomplete", severity: .caution, expectedText: "32 of 564 purchases, renewals and refunds (5.7%)") {
            reportFixture().withOffering { offering in
                offering.setCounter("unknown_currency_events", 32)
                offering.groups[0].purchases += 564 - offering.groups.reduce(0) { $0 + $1.purchases + $1.renewals + $1.refunds }
            }
        },
        WarningCase(title: "App and server disagree", severity: .caution, expectedText: "2,163 users (34.5% of the offering's)") {
            reportFixture().withOffering { $0.setCounter("attribution_mismatch_users", 2163) }
        },
        WarningCase(title: "Users in several groups", severity: .caution, expectedText: "200 users were assigned to more than one group") {
            reportFixture().withOffering { $0.setCounter("multi_group_users", 200) }
        },
        WarningCase(title: "Rejected log lines", severity: .caution, expectedText: "1.1% of the log lines (500 of 44,146)") {
            reportFixture().withCounter("malformed_lines", 500)
        },
        WarningCase(title: "Log files skipped", severity: .critical, expectedText: "2 corrupt log files were skipped whole") {
            reportFixture().withCounter("files_skipped_corrupt", 2)
        },
    ]

    @Test(arguments: warningCases)
    func aProblemShowsAsABanner(warning: WarningCase) throws {
        let report = warning.make()
        let warnings = ReportFindings.warnings(report) + report.offerings.flatMap(ReportFindings.warnings)
        let found = try #require(warnings.first { $0.title == warning.title }, "\(warnings.map(\.title))")
        #expect(found.severity == warning.severity)
        #expect(warnings.count == 1, "\(warnings.map(\.title))")
        let html = HTMLReport.render(report)
        let kind = warning.severity == .critical ? "critical" : "caution"
        #expect(html.contains("<div class=\"banner \(kind)\">"))
        #expect(text(html).contains(warning.title))
        #expect(text(html).contains(warning.expectedText), "\(found.detail)")
        // Issue 41: every banner says whether the verdict stands.
        let effect = try #require(found.verdictEffect)
        #expect(effect.hasPrefix("The verdict") || effect.hasPrefix("The verdicts"))
        let effectLine: HTML = "<p class=\"effect\">\(effect)</p>"
        #expect(html.contains(effectLine.markup))
        // The overview names the offering's warnings too; a red one puts the verdict in doubt.
        if report.offerings[0] != reportFixture().offerings[0] { #expect(html.contains("1 warning</span>")) }
        #expect(text(html).contains("Do not act on this yet") == (warning.severity == .critical))
    }

    @Test func thresholdsAreNotWarnings() {
        // Exactly 1% unknown currency, 0.5% rejected lines, 1% of the users with a mismatch, 100 users: no warning.
        let report = reportFixture().withCounter("malformed_lines", 220).withCounter("lines_read", 44_000).withOffering { offering in
            offering.groups[1].users = 100
            let moneyEvents = offering.groups.reduce(0) { $0 + $1.purchases + $1.renewals + $1.refunds }
            offering.groups[0].purchases += 1000 - moneyEvents
            offering.setCounter("unknown_currency_events", 10)
            offering.setCounter("attribution_mismatch_users", offering.groups.reduce(0) { $0 + $1.users } / 100)
        }
        #expect(ReportFindings.warnings(report).isEmpty)
        #expect(ReportFindings.warnings(report.offerings[0]).isEmpty)
    }

    /// Issues 41 and 47: past 10% of the users with a mismatched event, or 10% of the money events
    /// without a rate, the verdict is withheld with its reason; at the level, it stands and says so.
    @Test func pastTheirLevelsMismatchesAndMissingMoneyWithholdTheVerdict() throws {
        let users = reportFixture().offerings[0].groups.reduce(0) { $0 + $1.users }  // 6,268
        func mismatched(_ count: Int) -> OfferingReport {
            reportFixture().withOffering { $0.setCounter("attribution_mismatch_users", count) }.offerings[0]
        }
        let atLevel = mismatched(users / 10 - 1)
        #expect(ReportFindings.verdict(atLevel).text.hasPrefix("variant_b is winning"))
        #expect(
            ReportFindings.warnings(atLevel).first?.verdictEffect?.hasPrefix("The verdict stands: under 10.0% of the users are affected")
                == true)
        let past = mismatched(users / 10 + 1)
        #expect(
            ReportFindings.verdict(past)
                == ReportFindings.Verdict(
                    tone: .unclear,
                    text:
                        "Verdict withheld: 10.0% of the users have events the app logged for another group than the server assigned, or for a test they are not in (more than 10.0%)."
                ))
        #expect(
            ReportFindings.warnings(past).first?.verdictEffect?.hasPrefix("The verdict is withheld: with more than 10.0% of the users")
                == true)

        func unrated(_ count: Int) -> OfferingReport {
            reportFixture().withOffering { offering in
                offering.groups[0].purchases += 1000 - offering.groups.reduce(0) { $0 + $1.purchases + $1.renewals + $1.refunds }
                offering.setCounter("unknown_currency_events", count)
            }.offerings[0]
        }
        #expect(ReportFindings.verdict(unrated(100)).text.hasPrefix("variant_b is winning"))
        #expect(ReportFindings.warnings(unrated(100)).first?.verdictEffect?.hasPrefix("The verdict stands") == true)
        #expect(
            ReportFindings.verdict(unrated(101)).text
                == "Verdict withheld: 10.1% of the purchases, renewals and refunds are in currencies without a rate (more than 10.0%): add their rates to the job."
        )
        let page = text(HTMLReport.render(ReportData(run: reportFixture().run, quality: reportFixture().quality, offerings: [past])))
        #expect(
            page.contains("At a glance Spring price test spring 1 warning App and server disagree Verdict withheld: 10.0% of the users"))
    }

    /// Issue 41: a revenue lift whose groups' charges carry no money (a currency without a rate)
    /// says so instead of a 0.00 change.
    @Test func aRevenueLiftWithoutItsMoneySaysSo() {
        let report = reportFixture().withOffering { offering in
            offering.groups[2].grossRevenue = 0
            offering.setCounter("unknown_currency_events", 1)
        }
        let offering = report.offerings[0]
        #expect(
            ReportFindings.headline(offering, group: "variant_b")[1].text == "revenue per user: revenue unknown: no rate for its currency")
        #expect(ReportFindings.headline(offering, group: "variant_a")[1].text.hasPrefix("revenue per user +15.0%"))
        #expect(text(HTMLReport.render(report)).contains("–revenue unknown: no rate for its currency"))
        // Money left out for another reason than a missing rate (a product priced 0) is no such case.
        let free = reportFixture().withOffering { $0.groups[2].grossRevenue = 0 }.offerings[0]
        #expect(ReportFindings.headline(free, group: "variant_b")[1].text.hasPrefix("revenue per user +97.1%"))
    }

    /// What each group was shown: a product a treatment shows as control does is not
    /// highlighted, whatever group and position its row has; one that differs is.
    @Test func onlyWhatDiffersFromControlIsHighlighted() {
        let html = HTMLReport.render(reportFixture())
        // Per group: weekly_799 as control shows it, monthly_1999 with a badge control's lacks.
        #expect(html.components(separatedBy: "<li class=\"option default\">").count - 1 == 3)
        #expect(!html.contains("<li class=\"option default changed\">"))
        #expect(html.components(separatedBy: "<li class=\"option changed\">").count - 1 == 2)
        #expect(html.components(separatedBy: "<li class=\"option\">").count - 1 == 1)
    }

    @Test func hostileTextFromTheDataIsShownAsText() {
        let script = "<script>alert(1)</script>"
        let attribute = "x\" onmouseover=\"alert(2)"
        let report = reportFixture().withOffering { offering in
            offering.offeringID = script
            offering.name = "<img src=x onerror=alert(3)>"
            offering.controlGroup = script
            offering.groups[0].name = script
            offering.groups[1].name = attribute
            offering.groups[1].shownProducts[0].productID = "</code><script>alert(4)</script>"
            offering.groups[1].shownProducts[1].badgeText = "<b>'BEST'</b> & more"
            offering.groups[1].shownCopy?.headerTitle = "<style>body{display:none}</style>"
            offering.comparisons = offering.comparisons.map { comparison in
                var comparison = comparison
                if comparison.group == "variant_a" { comparison.group = attribute }
                return comparison
            }
            offering.daily = offering.daily.map { point in
                var point = point
                if point.group == "variant_a" { point.group = attribute }
                return point
            }
            offering.currency = "<u>USD</u>"
        }
        let html = HTMLReport.render(report)
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<b>"))
        #expect(!html.contains("<u>"))
        #expect(!html.contains("<style>body"))
        #expect(!html.contains("\" onmouseover=\""))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("x&quot; onmouseover=&quot;alert(2)"))
        #expect(html.contains("&lt;b&gt;&#39;BEST&#39;&lt;/b&gt; &amp; more"))
        #expect(text(html).contains("vs \(script) (corrected 95% CI"))
        // Inline SVG labels are escaped too.
        let label = "x&quot; onmouseover=&quot;alert(2)"
        #expect(html.contains("<title>\(label)</title>") || html.contains(">\(label)</text>"))
    }

    @Test func thePageIsSelfContained() {
        let html = HTMLReport.render(reportFixture())
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\""))
        #expect(html.contains("@media print"))
        for external in ["<script", "<link", "src=", "@import", "url(http", "https://", "http://"] {
            #expect(!html.contains(external), "\(external)")
        }
    }

    @Test func liftOverTimeChartFromTheDailySeries() {
        let html = HTMLReport.render(reportFixture())
        let charts = html.components(separatedBy: "Lift over time")[1]
        #expect(charts.components(separatedBy: "<polyline").count - 1 == 4)  // 2 treatments × 2 metrics
        #expect(charts.components(separatedBy: "<polygon").count - 1 == 4)  // their bands
        #expect(charts.contains("Mar 12") && charts.contains("Mar 14"))
        #expect(text(charts).contains("variant_b +40.2% by Mar 14"))
        #expect(!text(html).contains("No daily series"))
    }

    /// The fixture as a night with the sequential values (docs/statistics.md, Sequential): wider intervals, and variant_b's
    /// conversion significant by the fixed-horizon test only.
    func sequentialNight(_ decision: Decision) -> ReportData {
        reportFixture().withOffering { offering in
            offering.decision = decision
            for index in offering.comparisons.indices {
                let comparison = offering.comparisons[index]
                let lift = comparison.relativeLift?.value ?? 0
                let onlyFixed = comparison.group == "variant_b" && comparison.metric == .conversion
                offering.comparisons[index].sequential = SequentialValues(
                    absoluteLow: nil, absoluteHigh: nil, relativeLow: lift - 0.5, relativeHigh: lift + 0.5,
                    pValue: onlyFixed ? 0.2 : comparison.pValue,
                    pValueAdjusted: onlyFixed ? 0.4 : comparison.pValueAdjusted, significant: onlyFixed ? false : comparison.significant)
                offering.comparisons[index].adjusted.sequential = .init(relativeLow: lift - 0.5, relativeHigh: lift + 0.5)
            }
            offering.daily = offering.daily.map { point in
                var point = point
                point.conversionSequentialLift = point.conversionLift.map { Estimate(value: $0.value, low: nil, high: nil) }
                point.arpuSequentialLift = point.arpuLift.map { Estimate(value: $0.value, low: $0.value - 1, high: $0.value + 1) }
                return point
            }
        }
    }

    @Test func verdictsFollowTheDecision() {
        let sequential = sequentialNight(.sequential).offerings[0]
        #expect(
            ReportFindings.headline(sequential, group: "variant_b").map(\.text) == [
                "conversion +40.2% vs control (corrected 95% always-valid CI −9.8% to +90.2%), not significant",
                "revenue per user +97.1% vs control (corrected 95% always-valid CI +47.1% to +147.1%), significant after correction",
            ])
        #expect(
            ReportFindings.inferenceNotes(sequential) == [
                "variant_b on conversion: significant by the fixed-horizon test, not by the always-valid (sequential) one; the verdict uses the always-valid test (decision: sequential)."
            ])
        let page = text(HTMLReport.render(ReportData(run: reportFixture().run, quality: reportFixture().quality, offerings: [sequential])))
        #expect(page.contains("the verdict uses the always-valid test (decision: sequential)."))
        #expect(page.contains("always-valid verdicts"))
        #expect(page.contains("+40.2%likely −9.8% to +90.2%not significant"))  // the results table's mark, spans joined
        #expect(page.contains("−9.8% to +90.2% p = 0.40"))  // the details table: the always-valid columns

        let fixed = sequentialNight(.fixed).offerings[0]
        #expect(
            ReportFindings.headline(fixed, group: "variant_b")[0].text
                == "conversion +40.2% vs control (corrected 95% CI +13.3% to +67.1%), significant after correction")
        #expect(ReportFindings.inferenceNotes(fixed)[0].hasSuffix("the verdict uses the fixed-horizon test (decision: fixed)."))
        #expect(ReportFindings.verdict(fixed).text.hasPrefix("variant_b is winning on revenue per user"))
    }

    @Test func aNightStoredWithoutTheSequentialValuesFallsBackToTheFixedOnes() {
        let old = reportFixture().offerings[0]
        #expect(old.decision == nil && old.verdictInference == .fixed)
        #expect(ReportFindings.headline(old, group: "variant_b")[0].text.contains("(corrected 95% CI +13.3% to +67.1%), significant"))
        let page = text(HTMLReport.render(reportFixture()))
        #expect(
            page.contains(
                "This night was stored by an offerlab without the always-valid (sequential) test, so its verdicts use the fixed-horizon test"
            ))
        #expect(page.contains("band: its 95% fixed-horizon interval (this night was stored without the always-valid one)"))
    }

    @Test func theLiftOverTimeChartDrawsTheSequentialBand() {
        let html = HTMLReport.render(sequentialNight(.fixed))
        let charts = html.components(separatedBy: "Lift over time")[1]
        // Conversion's sequential band is absent in the fixture, arpu's present: only arpu's two bands are drawn.
        #expect(charts.components(separatedBy: "<polyline").count - 1 == 4)
        #expect(charts.components(separatedBy: "<polygon").count - 1 == 2)
        #expect(text(charts).contains("band: its 95% always-valid interval, which holds on every day at once"))
    }

    /// The axis keeps the latest lifts and what lies near them: a first night of +8,000% on 500
    /// users per group is off the scale, marked at its edge, and the chart says so.
    @Test func aFirstNightsSwingIsClippedAndMarked() throws {
        let html = HTMLReport.render(
            reportFixture().withOffering { offering in
                for index in offering.daily.indices where offering.daily[index].date == "2026-03-12" && !offering.daily[index].isControl {
                    offering.daily[index].arpuLift = Estimate(value: 80, low: -40, high: 200)
                }
            })
        let charts = html.components(separatedBy: "Lift over time")[1].components(separatedBy: "What each group saw")[0]
        let revenue = try #require(charts.components(separatedBy: "<figure>").last)
        #expect(revenue.components(separatedBy: "class=\"off-scale\"").count - 1 == 2)  // one per treatment
        #expect(text(revenue).contains("▲▼ 2 days’ lifts are off the scale (early days on few users), marked at its edge."))
        #expect(revenue.contains("<title>variant_a, Mar 12: +8,000.0%, off the scale</title>"))
        // The axis follows the latest lifts (variant_b +97%, up to +146%), not the first night.
        #expect(revenue.contains(">+150%<") && !revenue.contains(">+200%<"), "\(revenue)")
        let conversion = try #require(charts.components(separatedBy: "<figure>").dropFirst().first)
        #expect(!conversion.contains("off-scale") && !text(conversion).contains("off the scale"))
    }

    @Test func theAxisKeepsTheLatestLiftsAndWhatLiesNearThem() {
        let latest = [Estimate(value: 0.05, low: -0.1, high: 0.2)]
        // The latest span, 0 included, is −10%…+20%: values within 30 points of it stay.
        #expect(SVGCharts.liftAxisDomain([-80, 0.5, 0.51, -0.4, -0.41, 0.1], latest: latest) == [0.05, -0.1, 0.2, 0, 0.5, -0.4, 0.1])
        // A narrow span is widened by at least 10 points.
        #expect(SVGCharts.liftAxisDomain([0.09, 0.11], latest: [Estimate(value: 0, low: nil, high: nil)]) == [0, 0, 0.09])
    }

    @Test func withoutTheDailySeriesANoteInsteadOfTheChart() {
        let html = HTMLReport.render(reportFixture().withOffering { $0.daily = [] })
        #expect(text(html).contains("No daily series in this night’s results, so no lift-over-time chart."))
        #expect(!html.contains("<polyline"))
        let noLifts = HTMLReport.render(
            reportFixture().withOffering { offering in
                offering.daily = offering.daily.map { point in
                    var point = point
                    (point.conversionLift, point.arpuLift) = (nil, nil)
                    return point
                }
            })
        #expect(text(noLifts).contains("No day has a conversion lift yet."))
    }

    @Test func whatEachGroupSawMarksTheDifferencesFromControl() throws {
        let html = HTMLReport.render(reportFixture())
        let paywalls = html.components(separatedBy: "What each group saw")[1].components(separatedBy: "Statistical details")[0]
        #expect(paywalls.contains("<p class=\"cta changed\">Start now</p>"))
        #expect(paywalls.contains("<p class=\"cta\">Next</p>"))
        #expect(paywalls.contains("<li class=\"option default\">"))
        #expect(paywalls.contains("<li class=\"option changed\">"))  // the monthly product got a badge
        // Products in display order: weekly before monthly.
        let control = paywalls.components(separatedBy: "<figure")[1]
        let weekly = try #require(control.range(of: "weekly_799"))
        let monthly = try #require(control.range(of: "monthly_1999"))
        #expect(weekly.lowerBound < monthly.lowerBound)
    }

    @Test func renderingIsDeterministic() {
        #expect(HTMLReport.render(reportFixture()) == HTMLReport.render(reportFixture()))
    }
}

/// "All numbers by group" takes its rows from the column declarations (`ResultColumn.shown`).
@Suite struct ReportAllNumbersTests {
    @Test func everyLabelledGroupMetricIsARowInSummaryOrder() throws {
        let html = HTMLReport.render(reportFixture())
        let start = try #require(html.range(of: "All numbers by group"))
        let table = html[start.upperBound...].prefix { $0 != "§" }.components(separatedBy: "</table>")[0]
        let rows = table.components(separatedBy: "<tr><th scope=\"row\">").dropFirst()
        let shown = GroupMetrics.columns.filter { $0.column.shown != nil }
        #expect(rows.map { $0.components(separatedBy: "<code>")[1].components(separatedBy: "</code>")[0] } == shown.map(\.column.name))
        #expect(rows.first?.hasPrefix("Users <code>users</code>") == true)
        // A group metric without a label is left out of the page on purpose: a new one is a decision.
        #expect(
            GroupMetrics.columns.filter { $0.column.shown == nil }.map(\.column.name) == [
                "proceeds_per_user_sd", "refund_users", "refund_user_rate",
            ])
    }
}
