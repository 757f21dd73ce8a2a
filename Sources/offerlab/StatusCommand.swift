import ArgumentParser
import Foundation
import OfferLabJob
import OfferLabReport
import OfferLabSupport
import OfferLabWriters

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Where every test stands: one line per offering and treatment, from the results database alone.",
        discussion: """
            For the latest successful night (or --as-of's): each treatment's decision status, its goal \
            metric's relative lift with the interval the decision rests on, the days the test has run, \
            the days left and the day the test should be decided (keep running and too early only), \
            what shipping is worth in its first year (with its currency), and the night the status \
            began; a night whose history_logs matched no file gets a warning on stderr saying the \
            app's past is missing. A table in words on a terminal; piped, tab-separated with a header line, the stored \
            status and metric names, ASCII minus signs, no thousands separators and ISO dates. Exit 66 \
            when the database does not exist or holds no night yet.
            """
    )

    @Option(name: .resultsDatabase, help: ArgumentHelp("The results database (the job's database:).", valueName: "file"))
    var database: String

    @Option(
        name: .customLong("as-of"), help: ArgumentHelp("The night: 2026-03-16, or a timestamp (its UTC date).", valueName: "date"),
        transform: Night.argument)
    var night: Night?

    func run() async throws {
        try await runReportingErrors {
            let reader: NightStatus.Reader = isatty(STDOUT_FILENO) != 0 ? .person : .program
            let status = try NightStatus.rows(databasePath: database, night: night, for: reader)
            let text = reader == .person ? NightStatus.table(status.rows) : NightStatus.tabSeparated(status.rows)
            try StandardStreams.write(text)
            for warning in status.warnings { StandardStreams.writeError("warning: \(warning)\n") }
        }
    }
}
