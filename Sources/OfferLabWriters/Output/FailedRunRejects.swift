import Foundation
import OfferLabEvents
import OfferLabJob
import OfferLabSupport

/// The rejects of a run that failed for too many malformed lines, kept so that the bad file can
/// be found without a rerun: `<output>/<night.date>.failed-rejects.csv` (the columns of
/// `rejects.csv`), beside the night's folder, never in it, so the last good outputs stay
/// exactly as they were. The next failure of the night replaces it; a success removes it.
package enum FailedRunRejects {
    static func path(output: String, night: Night) -> String {
        (output as NSString).appendingPathComponent("\(night.date).failed-rejects.csv")
    }

    /// Writes the file whole or not at all (a temporary file renamed).
    /// - Throws: `.cannotWrite` naming the path and the system's reason.
    package static func write(_ counters: IngestCounters, output: String, night: Night) throws -> String {
        let target = path(output: output, night: night)
        try Folders.create(output, context: "output")
        do {
            try Data(CSVWriter.csv(RejectRow.table.table(ResultTables.rejects(counters.rejects, storeNotes: counters.storeNotes))).utf8)
                .write(
                    to: URL(fileURLWithPath: target), options: .atomic)
        } catch {
            throw OfferLabError(
                .cannotWrite, "cannot write \(target): \(error.localizedDescription)", location: .init(path: target), cause: error)
        }
        return target
    }

    /// Removes the file of an earlier failure of `night`, if any.
    package static func remove(output: String, night: Night) {
        try? FileManager.default.removeItem(atPath: path(output: output, night: night))
    }
}
