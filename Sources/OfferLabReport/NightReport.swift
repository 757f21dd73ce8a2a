import Foundation
import OfferLabJob
import OfferLabSupport
import OfferLabWriters

/// `offerlab report`: a night's `report.html` rebuilt from the results database alone, the
/// same bytes the run wrote (for the latest successful run of that night).
package enum NightReport {
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
