import OfferLabJob

@testable import OfferLab
@testable import OfferLabReport
@testable import OfferLabWriters

/// A hand-made night for report tests: one offering `spring` with control (3,118 users), `variant_a`
/// (1,560, no significant change) and `variant_b` (1,590, significantly better on both metrics),
/// clean data (no warning), and a three-day daily series. Tests change what they examine.
func reportFixture() -> ReportData {
    func group(
        _ name: String, control: Bool, weight: Double, users: Int, converters: Int, rate: Double, low: Double, high: Double, arpu: Double
    )
        -> GroupReport
    {
        GroupReport(
            summary: SummaryRow(
                offeringID: "spring", group: name, isControl: control, weight: weight,
                metrics: GroupMetrics(
                    users: users, converters: converters, conversionRate: rate, conversionCILow: low, conversionCIHigh: high,
                    trialStarters: 100, trialConverters: 40, trialConversionRate: 0.4, paywallViewers: users, purchases: converters,
                    renewals: 10, refunds: 2, grossRevenue: arpu * Double(users) + 10, refundedRevenue: 10,
                    netRevenue: arpu * Double(users),
                    arpu: arpu, arpuSD: 4.2, arppu: arpu * Double(users) / Double(converters))),
            shownProducts: [
                ShownProductRow(
                    offeringID: "spring", group: name, position: 0, productID: "weekly_799", type: "weekly", fallbackDisplayPrice: "7.99",
                    isDefault: true, badgeText: nil,
                    subtitleText: nil),
                ShownProductRow(
                    offeringID: "spring", group: name, position: 1, productID: "monthly_1999", type: "monthly",
                    fallbackDisplayPrice: "19.99", isDefault: false,
                    badgeText: control ? nil : "BEST VALUE",
                    subtitleText: "That's 40% Off Weekly!"),
            ],
            shownCopy: ShownCopyRow(
                offeringID: "spring", group: name, headerTitle: "Study AI", headerSubtitle: "Join now. Learn anything.",
                ctaButtonText: control ? "Next" : "Start now",
                supportingText: "Cancel Anytime"))
    }
    func comparison(_ group: String, _ metric: OwnMetric, lift: Double, low: Double, high: Double, significant: Bool, chance: Double)
        -> Comparison
    {
        Comparison(
            group: group, metric: metric, controlValue: 0.07, value: 0.07 * (1 + lift),
            absoluteLift: Estimate(value: 0.07 * lift, low: nil, high: nil),
            relativeLift: Estimate(value: lift, low: low, high: high), pValue: significant ? 0.0005 : 0.33,
            pValueAdjusted: significant ? 0.001 : 0.33,
            significant: significant, chanceToBeatControl: chance, minimumDetectableEffect: metric == .conversion ? 0.0226 : nil,
            adjusted: AdjustedIntervals(fixed: .init(relativeLow: low, relativeHigh: high)))
    }
    let daily = ["2026-03-12", "2026-03-13", "2026-03-14"].enumerated().flatMap { day, date in
        [
            DailyPoint(date: date, group: "control", isControl: true, users: 1000 * (day + 1), conversionLift: nil, arpuLift: nil),
            DailyPoint(
                date: date, group: "variant_a", isControl: false, users: 500 * (day + 1),
                conversionLift: Estimate(value: -0.1, low: -0.4, high: 0.2), arpuLift: Estimate(value: 0.15, low: -0.2, high: 0.5)),
            DailyPoint(
                date: date, group: "variant_b", isControl: false, users: 500 * (day + 1),
                conversionLift: Estimate(value: 0.4 + 0.001 * Double(day), low: 0.1, high: 0.7),
                arpuLift: Estimate(value: 0.97, low: 0.48, high: 1.46)),
        ]
    }
    let offering = OfferingReport(
        offeringID: "spring", name: "Spring price test", isActive: true, controlGroup: "control", currency: "USD", alpha: 0.05,
        conversionWindowDays: 14,
        groups: [
            group(
                "control", control: true, weight: 2, users: 3118, converters: 228, rate: 0.07312379730596537, low: 0.0646, high: 0.0828,
                arpu: 1.0497600705580465),
            group(
                "variant_a", control: false, weight: 1, users: 1560, converters: 102, rate: 0.0654, low: 0.0542, high: 0.0788, arpu: 1.2074),
            group(
                "variant_b", control: false, weight: 1, users: 1590, converters: 163, rate: 0.1025, low: 0.0886, high: 0.1184, arpu: 2.0689),
        ],
        comparisons: [
            comparison("variant_a", .conversion, lift: -0.1058, low: -0.3074, high: 0.0957, significant: false, chance: 0.17),
            comparison("variant_a", .arpu, lift: 0.1502, low: -0.1354, high: 0.4358, significant: false, chance: 0.858),
            comparison("variant_b", .conversion, lift: 0.4019, low: 0.1331, high: 0.6708, significant: true, chance: 0.99969),
            comparison("variant_b", .arpu, lift: 0.9708, low: 0.4807, high: 1.4609, significant: true, chance: 0.999996),
        ],
        sampleRatio: SampleRatioValues(chi2: 0.45, pValue: 0.798, flagged: false),
        products: [ProductRow(group: "control", productID: "weekly_799", purchases: 61, renewals: 18, refunds: 0, netRevenue: 625.13)],
        quality: [
            QualityRow(counter: "invalid_assignments", count: 0), QualityRow(counter: "multi_group_users", count: 0),
            QualityRow(counter: "pre_assignment_events", count: 3), QualityRow(counter: "orphan_refunds", count: 1),
            QualityRow(counter: "attribution_mismatches", count: 10), QualityRow(counter: "attribution_mismatch_users", count: 8),
            QualityRow(counter: "unknown_currency_events", count: 0),
        ],
        daily: daily)
    return ReportData(
        run: RunFacts(
            job: "/jobs/nightly.yaml", night: Night("2026-03-15"), startedAt: "2026-03-15T02:30:00.123456Z",
            finishedAt: "2026-03-15T02:31:10Z", toolVersion: "0.1.0",
            inputFiles: [InputFile(path: "/logs/2026/03/14/a.jsonl.gz", bytes: 1_234_567)]),
        quality: [
            QualityRow(counter: "files_read", count: 1), QualityRow(counter: "files_skipped_corrupt", count: 0),
            QualityRow(counter: "lines_read", count: 44_146), QualityRow(counter: "malformed_lines", count: 46),
        ],
        offerings: [offering])
}

extension ReportData {
    /// The fixture's only offering, changed by `change`.
    func withOffering(_ change: (inout OfferingReport) -> Void) -> ReportData {
        var copy = self
        change(&copy.offerings[0])
        return copy
    }

    /// A run-wide counter set to `count`.
    func withCounter(_ name: String, _ count: Int) -> ReportData {
        var copy = self
        if let index = copy.quality.firstIndex(where: { $0.counter == name }) {
            copy.quality[index].count = count
        } else {
            copy.quality.append(QualityRow(counter: name, count: count))
        }
        return copy
    }
}

extension OfferingReport {
    mutating func setCounter(_ name: String, _ count: Int) {
        if let index = quality.firstIndex(where: { $0.counter == name }) { quality[index].count = count }
    }
}
