// TEMPORARY stand-ins until the ingest and statistics work is merged. Deleted at merge.
import OfferLabIngest
import OfferLabStatistics

enum TimestampParser {
    static func parse(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(whereSeparator: { "-T :Z".contains($0) }).compactMap { Int64($0) }
        guard parts.count == 6 else { return nil }
        let (y, m, d) = (parts[0], parts[1], parts[2])
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return ((days * 24 + parts[3]) * 60 + parts[4]) * 60_000_000 + parts[5] * 1_000_000
    }
}

enum DelimitedFormat { case csv, tsv }

extension TableSource {
    func forEachFileRow(of table: String, columns: [String], _ body: (TableRowValues) throws -> Void) throws {
        throw OfferLabError(.data, "pending")
    }
}

enum RatesFile {
    static func read(path: String) throws -> [String: Double] { [:] }
}

enum LogIngest {
    static func read(job: Job, users: ByteStringInterner, progress: ProgressReporter?) throws -> EventStore { EventStore() }
}

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
    struct OfferingStatistics {
        var comparisons: [ComparisonRow]
        var srmChi2, srmPValue: Double?
        var srmFlag: Bool?
    }
    static func groupMetrics(_ statistics: GroupSufficientStatistics, alpha: Double) -> GroupMetrics {
        GroupMetrics()
    }
    static func analyse(_ result: OfferingResult, alpha: Double) -> OfferingStatistics {
        OfferingStatistics(comparisons: [])
    }
}
