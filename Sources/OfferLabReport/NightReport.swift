import Foundation
import OfferLabJob
import OfferLabSupport
import OfferLabWriters

/// `offerlab report`: a night's `report.html` rebuilt from the results database alone, the
/// same bytes the run wrote (for the latest successful run of that night).
package enum NightReport {
    /// The night of `asOf`: a date, or a timestamp of the log grammar (the night of its UTC date).
    /// - Throws: `OfferLabError` (`.badArgument`) when `asOf` is neither.
    package static func night(asOf: String) throws -> Night {
        guard let night = Night(parsing: asOf) else {
            throw OfferLabError(.badArgument, "--as-of '\(asOf)' is not a date like 2026-03-16 or a timestamp like 2026-03-16T00:00:00Z")
        }
        return night
    }

    /// The report of `night` (the latest successful run of its date) from the database at `databasePath`.
    /// - Throws: `OfferLabError` when the database is missing or holds no such night.
    package static func html(databasePath: String, night: Night) throws -> String {
        HTMLReport.render(try ReportData.load(databasePath: databasePath, night: night))
    }

    /// `report-<night>.html`: where the report goes when no `--output` is given.
    package static func defaultFileName(night: Night) -> String { "report-\(night.date).html" }

    /// Writes `html` to `path` atomically (a reader never sees half a report).
    package static func write(_ html: String, to path: String) throws(OfferLabError) {
        try writeFileWhole(Data(html.utf8), to: path)
    }
}
