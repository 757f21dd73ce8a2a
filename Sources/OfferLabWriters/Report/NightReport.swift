import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabSupport

/// `offerlab report`: a night's `report.html` rebuilt from the results database alone, the
/// same bytes the run wrote (for the latest successful run of that night).
public enum NightReport {
    /// The night (`YYYY-MM-DD`) of `asOf`: a date, or a timestamp of the log grammar (its UTC date).
    /// - Throws: `OfferLabError` (`.badArgument`) when `asOf` is neither.
    public static func night(asOf: String) throws -> String {
        guard let micros = UTCTime.parseAsOf(asOf) else {
            throw OfferLabError(.badArgument, "--as-of '\(asOf)' is not a date like 2026-03-16 or a timestamp like 2026-03-16T00:00:00Z")
        }
        return Timestamp.formatDate(micros)
    }

    /// The report of `night` from the database at `databasePath`.
    /// - Throws: `OfferLabError` when the database is missing or holds no such night.
    public static func html(databasePath: String, night: String) throws -> String {
        HTMLReport.render(try ReportData.load(databasePath: databasePath, night: night))
    }

    /// `report-<night>.html`: where the report goes when no `--output` is given.
    public static func defaultFileName(night: String) -> String { "report-\(night).html" }

    /// Writes `html` to `path` atomically (a reader never sees half a report).
    public static func write(_ html: String, to path: String) throws(OfferLabError) {
        try writeFileWhole(Data(html.utf8), to: path)
    }
}
