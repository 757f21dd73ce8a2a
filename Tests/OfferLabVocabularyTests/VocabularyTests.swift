import OfferLabVocabulary
import Testing

@Suite("The vocabulary: billing periods, statuses, the unit of time")
struct VocabularyTests {
    @Test("A catalog type is read once: a renewing period, a pass or one_time, or a type of its own")
    func billingPeriods() {
        #expect(BillingPeriod(catalogType: "weekly").kind == .renewing(everyDays: 7))
        #expect(BillingPeriod(catalogType: "monthly").renewalPeriodDays == 365.25 / 12)
        #expect(BillingPeriod(catalogType: "yearly").renewalPeriodDays == 365.25)
        #expect(BillingPeriod(catalogType: "3_day_pass").kind == .oneTime(coversDays: 3))
        #expect(BillingPeriod(catalogType: "2_week_pass").kind == .oneTime(coversDays: 14))
        #expect(BillingPeriod(catalogType: "1_year_pass").kind == .oneTime(coversDays: 365.25))
        // A pass whose name gives no length is still one charge; so is one_time.
        #expect(BillingPeriod(catalogType: "weekend_pass").kind == .oneTime(coversDays: nil))
        #expect(BillingPeriod(catalogType: "one_time").kind == .oneTime(coversDays: nil))
        #expect(BillingPeriod(catalogType: "3_fortnight_pass").kind == .oneTime(coversDays: nil))
        // Neither rule knows it: no renewal period, not known.
        let quarterly = BillingPeriod(catalogType: "quarterly")
        #expect(quarterly.kind == .unknown && !quarterly.isKnown && quarterly.renewalPeriodDays == nil)
        #expect(BillingPeriod(catalogType: "weekly") == BillingPeriod(catalogType: "weekly"))
        #expect(BillingPeriod(catalogType: "3_day_pass") != BillingPeriod(catalogType: "7_day_pass"))
    }

    @Test("Types in words, shortest first")
    func words() {
        let words = { (type: String) in BillingPeriod(catalogType: type).plainName }
        #expect(words("3_day_pass") == "3-day pass" && words("2_week_pass") == "2-week pass")
        #expect(words("one_time") == "one-time purchase" && words("weekly") == "weekly")
        #expect(words("lifetime_deal") == "lifetime deal")
        let periods = ["yearly", "one_time", "monthly", "2_week_pass", "weekly", "30_day_pass"].map(BillingPeriod.init(catalogType:))
        #expect(
            BillingPeriod.shortestFirst(periods).map(\.catalogType) == [
                "weekly", "2_week_pass", "30_day_pass", "monthly", "yearly", "one_time",
            ])
    }

    @Test("Statuses: their stored names, which end a test and which run on")
    func statuses() {
        #expect(
            DecisionStatus.allCases.map(\.rawValue) == [
                "unhealthy", "roll_back", "too_early", "ship", "inconclusive", "futile", "keep_running",
            ])
        #expect(DecisionStatus.allCases.filter(\.endsTheTest) == [.rollBack, .ship, .inconclusive, .futile])
        #expect(DecisionStatus.allCases.filter(\.isRunning) == [.tooEarly, .keepRunning])
        #expect(DecisionStatus.unhealthy.words == "Do not act: the data looks broken")
        #expect(Set(DecisionStatus.allCases.map(\.words)).count == DecisionStatus.allCases.count)
    }

    @Test("Metrics: read back by their names, with their words; an unknown name stays as it is")
    func metrics() {
        for metric in Metric.fixedNames + [.conversion(maturedDays: 7), .arpu(maturedDays: 1)] {
            #expect(Metric(csvName: metric.csvName) == metric)
        }
        #expect(Set(Metric.fixedNames.map(\.plainName)).count == Metric.fixedNames.count)
        #expect(Metric.plainName(of: "arpu_d7") == "revenue per user within 7 days")
        #expect(Metric.plainName(of: "conversion_d1") == "conversion within 1 day")
        #expect(Metric(csvName: "arpu_d0") == nil && Metric(csvName: "arpu_d+7") == nil && Metric(csvName: "ltv") == nil)
        #expect(Metric.plainName(of: "ltv") == "ltv")
        #expect(
            Metric.compared(maturityDays: [7], hasRevenueCap: false).map(\.csvName) == [
                "conversion", "arpu", "conversion_d7", "arpu_d7", "proceeds_per_user", "trial_completed_conversion", "refund_user_rate",
            ])
        #expect(Metric.fixedNames.filter(\.isHarmfulWhenUp) == [.refundUserRate])
    }

    @Test("A day is 86,400 seconds of microseconds")
    func day() {
        #expect(Microseconds.perDay == 86_400 * 1_000_000 && Microseconds.perDayAsDouble == 86_400e6)
    }
}
