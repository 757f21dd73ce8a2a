// TEMPORARY stand-ins until the ingest and statistics work is merged. Deleted at merge.
import OfferLabIngest
import OfferLabStatistics

enum StatisticsBridge {
    struct GroupMetrics {
        var conversionRate, conversionCILow, conversionCIHigh, arpu, arpuSD, arppu: Double?
    }
    struct ComparisonRow {
        var group, metric, controlGroup: String
        var controlValue, value, absLift, absLiftCILow, absLiftCIHigh, relLift, relLiftCILow, relLiftCIHigh, pValue, pValueAdjusted: Double?
        var significant: Bool?
        var chanceToBeatControl, mdeAbs: Double?
    }
    struct GroupInput {
        var name: String
        var isControl: Bool
        var weight: Double
        var statistics: GroupSufficientStatistics
    }
    struct OfferingStatistics {
        var comparisons: [ComparisonRow]
        var srmChi2, srmPValue: Double?
        var srmFlag: Bool?
    }
    static func groupMetrics(_ statistics: GroupSufficientStatistics, alpha: Double) -> GroupMetrics {
        GroupMetrics()
    }
    static func analyse(groups: [GroupInput], alpha: Double) -> OfferingStatistics {
        OfferingStatistics(comparisons: [])
    }
}
