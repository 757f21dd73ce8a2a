import ArgumentParser
import Foundation
import OfferLabJob
import OfferLabReport
import OfferLabSupport
import OfferLabWriters

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Rebuild a night's report.html from the results database alone.",
        discussion: """
            Reads the latest successful run of the night (without --as-of, the latest successful night, as \
            `status` does) from the SQLite database written by `offerlab run` and writes the same \
            report.html that run wrote. Without --output the report goes to \
            report-<YYYY-MM-DD>.html in the current folder; --output - prints it.
            """
    )

    @Option(name: .resultsDatabase, help: ArgumentHelp("The results database (the job's database:).", valueName: "file"))
    var database: String

    @Option(
        name: .customLong("as-of"),
        help: ArgumentHelp(
            "The night: 2026-03-16, or a timestamp (its UTC date); default: the latest successful night.", valueName: "date"),
        transform: Night.argument)
    var night: Night?

    @Option(help: ArgumentHelp("Where to write the report; - for standard output.", valueName: "file"))
    var output: String?

    func run() async throws {
        try await runReportingErrors {
            // As `status` does: without --as-of, the night cron wrote last.
            let night = try night ?? ResultsDatabase.latestNight(path: database)
            let html = try NightReport.html(databasePath: database, night: night)
            if output == "-" {
                try StandardStreams.write(html)
            } else {
                let path = output ?? NightReport.defaultFileName(night: night)
                try NightReport.write(html, to: path)
                try StandardStreams.writeLine("wrote \(path)")
            }
        }
    }
}
