import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabStatistics
import OfferLabSupport
import OfferLabVocabulary

/// `offerlab status`: where every test stands, from the results database alone (docs/reliability.md,
/// "Alerts"): per (offering, treatment) of a night its decision, and the night that decision began.
package enum NightStatus {
    /// The columns, in order.
    package static let header = [
        "offering", "group", "status", "goal", "lift", "interval", "days_running", "days_left", "decided_around", "impact_365",
        "since", "periods",
    ]

    /// Who reads the cells: a person at a terminal (words, grouped digits, a real minus sign, dates
    /// as "about 4 Dec 2026") or another program through a pipe (the stored names, ASCII `-`, no
    /// thousands separators, ISO dates).
    package enum Reader: Sendable {
        case person
        case program
    }

    /// One line per (offering, treatment) of `night`'s date (nil: the latest successful night), as
    /// cells, and the night's warnings for stderr (`RunRecord.missingPast`), without a `warning: ` prefix.
    /// - Throws: `OfferLabError`: `.noNights` when the database holds no successful night (or
    ///   does not exist), `.nightNotFound` when it lacks `night`.
    package static func rows(
        databasePath: String, night: Night?, for reader: Reader
    ) throws -> (night: String, rows: [[String]], warnings: [String]) {
        let nights = try ResultsDatabase.successfulNights(path: databasePath)
        guard let latest = nights.last else { throw ResultsDatabase.noSuccessfulNight(databasePath) }
        let target = night?.date ?? latest
        let stored = try storedNight(databasePath, night: target)
        // Earlier nights, latest first, each read once.
        var earlier: [(night: String, statuses: [String: DecisionStatus])] = []
        for previous in nights.filter({ $0 < target }).reversed() {
            let statuses = try storedNight(databasePath, night: previous).decisions.reduce(into: [String: DecisionStatus]()) {
                $0[PreviousNight.key($1.offeringID, $1.group)] = $1.status
            }
            earlier.append((previous, statuses))
        }
        let rows = stored.decisions.map { row -> [String] in
            // The night the status began: the earliest of the unbroken run of nights with it.
            var since = target
            for previous in earlier {
                guard previous.statuses[PreviousNight.key(row.offeringID, row.group)] == row.status else { break }
                since = previous.night
            }
            let cells = StatusCells(reader: reader, currency: stored.currencies[row.offeringID] ?? "")
            return [
                row.offeringID, row.group, cells.status(row.status), cells.metric(row.goalMetric),
                row.goalRelLift.map(cells.percent) ?? "", cells.interval(row.goalRelLiftCILow, row.goalRelLiftCIHigh),
                cells.number(ReportFormat.fixed(row.runtimeDays, decimals: 1)), row.daysLeft.map(String.init) ?? "",
                row.daysLeft.flatMap { cells.date(night: target, plusDays: $0, floor: row.daysLeftFloor == true) } ?? "",
                row.impact365.map(cells.money) ?? "", since,
                // A period test (docs/statistics.md, "Period tests"): control's billing periods against the treatment's.
                row.periodTest,
            ]
        }
        return (target, rows, stored.run.missingPast.map { [$0] } ?? [])
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

    /// The night's run, its decisions, and each offering's report currency (a night stored before
    /// the `offerings` table names none).
    private static func storedNight(
        _ path: String, night: String
    ) throws -> (run: RunRecord, decisions: [DecisionRow], currencies: [String: String]) {
        let tables = [DecisionRow.table.schema.name, OfferingRow.table.schema.name]
        let (run, stored) = try ResultsDatabase.readNight(path: path, night: night, tables: tables)
        let rows = { (name: String) in stored.first { $0.schema.name == name } }
        let decisions = rows(DecisionRow.table.schema.name).map { DecisionRow.table.rows($0, missing: { _ in }) } ?? []
        let offerings = rows(OfferingRow.table.schema.name).map { OfferingRow.table.rows($0, missing: { _ in }) } ?? []
        return (run, decisions, Dictionary(offerings.map { ($0.offeringID, $0.reportCurrency) }, uniquingKeysWith: { first, _ in first }))
    }
}

/// One status line's cells as its `NightStatus.Reader` reads them.
struct StatusCells {
    let reader: NightStatus.Reader
    let currency: String

    /// `Keep running` for a person (`DecisionStatus.words`, as the report says it);
    /// `keep_running`, as stored, for a program.
    func status(_ status: DecisionStatus) -> String {
        reader == .program ? status.rawValue : status.words
    }

    /// `revenue per user` for a person; `arpu`, as stored, for a program.
    func metric(_ stored: String) -> String {
        reader == .program ? stored : Metric.plainName(of: stored)
    }

    func percent(_ ratio: Double) -> String { number(ReportFormat.signedPercent(ratio)) }

    /// `−4.0% to +12.3%`; empty when a bound is unknown.
    func interval(_ low: Double?, _ high: Double?) -> String {
        guard let low, let high else { return "" }
        return "\(percent(low)) to \(percent(high))"
    }

    /// `USD +41,200` for a person (whole units: a year's estimate has no cents worth reading);
    /// `USD +41200.00` for a program.
    func money(_ amount: Double) -> String {
        let shown = ReportFormat.signedMoney(reader == .program ? amount : amount.rounded(), currency).trimmingCharacters(in: .whitespaces)
        return number(reader == .program ? shown : shown.replacingOccurrences(of: ".00", with: ""))
    }

    /// The day `night` + `days`: `about 4 December` (`ReportFormat.date`, the year when it is
    /// another), or for a `floor` `not before 4 December`, for a person; `2026-12-04` for a program.
    func date(night: String, plusDays days: Int, floor: Bool) -> String? {
        guard let start = Night(parsing: night) else { return nil }
        return reader == .program
            ? Timestamp.formatDate(start.microseconds + Int64(days) * Microseconds.perDay)
            : (floor ? "not before " : "about ") + ReportFormat.date(days, after: start)
    }

    /// A number formatted for people, made plain for a program: ASCII `-`, no thousands separators.
    func number(_ text: String) -> String {
        reader == .program ? text.replacingOccurrences(of: ReportFormat.minus, with: "-").replacingOccurrences(of: ",", with: "") : text
    }
}
