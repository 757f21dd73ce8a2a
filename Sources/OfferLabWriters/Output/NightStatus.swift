import Foundation
import OfferLabJob
import OfferLabSupport

/// `offerlab status`: where every test stands, from the results database alone (docs/reliability.md,
/// "Alerts"): per (offering, treatment) of a night its decision, and the night that decision began.
package enum NightStatus {
    /// The columns, in order.
    package static let header = [
        "offering", "group", "status", "goal", "lift", "interval", "days_running", "days_left", "impact_365", "since",
    ]

    /// One line per (offering, treatment) of `night`'s date (nil: the latest successful night), as cells.
    /// - Throws: `OfferLabError`: `.noNights` when the database holds no successful night (or
    ///   does not exist yet), `.nightNotFound` when it lacks `night`.
    package static func rows(databasePath: String, night: Night?) throws -> (night: String, rows: [[String]]) {
        let nights = FileManager.default.fileExists(atPath: databasePath) ? try ResultsDatabase.successfulNights(path: databasePath) : []
        guard let latest = nights.last else {
            throw OfferLabError(
                .noNights, "\(databasePath) holds no successful night yet: run the job first", location: .init(path: databasePath))
        }
        let target = night?.date ?? latest
        let tonight = try storedDecisions(databasePath, night: target)
        // Earlier nights, latest first, each read once.
        var earlier: [(night: String, statuses: [String: String])] = []
        for previous in nights.filter({ $0 < target }).reversed() {
            let statuses = try storedDecisions(databasePath, night: previous).reduce(into: [String: String]()) {
                $0[PreviousNight.key($1.offeringID, $1.group)] = $1.status
            }
            earlier.append((previous, statuses))
        }
        let rows = tonight.map { row -> [String] in
            // The night the status began: the earliest of the unbroken run of nights with it.
            var since = target
            for previous in earlier {
                guard previous.statuses[PreviousNight.key(row.offeringID, row.group)] == row.status else { break }
                since = previous.night
            }
            let interval = row.goalRelLiftCILow.flatMap { low in
                row.goalRelLiftCIHigh.map { "\(ReportFormat.signedPercent(low)) to \(ReportFormat.signedPercent($0))" }
            }
            return [
                row.offeringID, row.group, row.status, row.goalMetric, row.goalRelLift.map(ReportFormat.signedPercent) ?? "",
                interval ?? "", ReportFormat.fixed(row.runtimeDays, decimals: 1), row.daysLeft.map(String.init) ?? "",
                row.impact365.map { ReportFormat.signedMoney($0, "").trimmingCharacters(in: .whitespaces) } ?? "", since,
            ]
        }
        return (target, rows)
    }

    /// The rows as a terminal shows them: columns padded to their widest cell.
    package static func table(_ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }

    /// The rows as a pipe gets them: tab-separated, a header first (no tab or line break is in a cell).
    package static func tabSeparated(_ rows: [[String]]) -> String {
        ([header] + rows).map { $0.map { $0.replacingOccurrences(of: "\t", with: " ") }.joined(separator: "\t") }.joined(separator: "\n")
            + "\n"
    }

    private static func storedDecisions(_ path: String, night: String) throws -> [DecisionRow] {
        let stored = try ResultsDatabase.readNight(path: path, night: night, tables: [DecisionRow.table.schema.name]).tables
        return stored.first.map { DecisionRow.table.rows($0, missing: { _ in }) } ?? []
    }
}
