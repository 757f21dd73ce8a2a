import ArgumentParser
import OfferLabGenerate
import OfferLabStoreSources
import OfferLabSupport

/// `offerlab generate`: writes a synthetic, deterministic data set (tables, logs, job file).
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Writes a synthetic, deterministic data set: offering tables, purchase logs and a job file.",
        discussion: """
            The same options give byte-identical files. The folder receives tables/, logs/YYYY/MM/DD/ \
            and job.yaml; run it with `offerlab run DIR/job.yaml`. --event-ids, --user-ids and --layout \
            change how ids and files are shaped, never the users, events and quirks: every shape but \
            --event-ids none gives the same numbers. --play-users all makes every user an Android \
            user, paying through Google Play: other platforms, proceeds and stores.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The folder to write into.", valueName: "dir"))
    var out: String

    @Option(name: .long, help: ArgumentHelp("Number of simulated users (1M users ≈ 1 GB of JSON).", valueName: "n"))
    var users: Int

    @Option(name: .long, help: ArgumentHelp("Seed of the random streams.", valueName: "s"))
    var seed: UInt64

    @Option(name: .long, help: ArgumentHelp("First UTC day of the period (YYYY-MM-DD).", valueName: "date"))
    var start: String = GeneratorConfiguration.defaultStart.description

    @Option(name: .long, help: ArgumentHelp("Days in the period; as_of is start + days.", valueName: "d"))
    var days: Int = 14

    @Option(name: .long, help: ArgumentHelp("Worker threads (the files do not depend on it).", valueName: "n"))
    var jobs: Int = 2

    @Option(
        name: .customLong("event-ids"),
        help: ArgumentHelp(
            "How event_id is written: a dashed UUID, 32 hex digits, a ULID, a 19-digit integer, a 40-byte evt_ key, or not at all.",
            valueName: EventIDShape.allCases.map(\.rawValue).joined(separator: "|")))
    var eventIDs: EventIDShape = .uuid

    @Option(
        name: .customLong("user-ids"),
        help: ArgumentHelp(
            "How user_id is written: 10000001 + index, u + base 36 (6 characters), or usr_ + 32 hex digits.",
            valueName: UserIDShape.allCases.map(\.rawValue).joined(separator: "|")))
    var userIDs: UserIDShape = .numeric

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Log files: 4 a day, 20 a day (cut by user), or one JSON Lines file and one CSV log.",
            valueName: LogLayout.allCases.map(\.rawValue).joined(separator: "|")))
    var layout: LogLayout = .dailyShards

    @Option(
        name: .customLong("play-users"),
        help: ArgumentHelp(
            "Who pays through Google Play: one user in five (the others through the App Store), or every user (an Android app: with --format google_play every store fact is Play's).",
            valueName: PlayUsers.allCases.map(\.rawValue).joined(separator: "|")))
    var playUsers: PlayUsers = .oneInFive

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The form of the store's facts (trials, charges, refunds; with webhooks and notifications also cancels and expires): the logs, RevenueCat's export or webhooks in revenuecat/, signed App Store Server Notifications in appstore/ (with a test CA and tables/user_transactions.csv; best with --user-ids uuid), or Google Play's notifications and Orders in googleplay/ (with tables/user_transactions.csv), beside the app's logs.",
            valueName: SourceFormat.generated.map(\.rawValue).joined(separator: "|")))
    var format: SourceFormat = .offerlab

    @Flag(
        name: .long,
        help: "Replace tables/, logs/, showcase/, revenuecat/, appstore/, googleplay/ and job.yaml left in the folder by an earlier run.")
    var force = false

    func run() async throws {
        guard SourceFormat.generated.contains(format) else {
            if let writer = format.generatedWith {
                throw ValidationError("--format \(format.rawValue) is written with --format \(writer.rawValue), beside its notifications")
            }
            throw ValidationError("--format \(format.rawValue) is read by offerlab run, not written by generate")
        }
        guard let startDate = CivilDate(parsing: start) else {
            throw ValidationError("--start must be a date like 2026-03-01 (got '\(start)')")
        }
        let configuration = GeneratorConfiguration(
            outputDirectory: out, users: users, seed: seed, start: startDate, days: days, jobs: jobs, overwrite: force,
            shape: DataSetShape(eventIDs: eventIDs, userIDs: userIDs, layout: layout, playUsers: playUsers, sourceFormat: format))
        do {
            try configuration.validate()
        } catch let error as GeneratorError {
            throw ValidationError(error.description)
        }
        // A folder that already holds a data set, or files that cannot be written: the
        // outputs cannot be written (73), in the same one-line form as every other command.
        let report = try await runReportingErrors {
            do {
                return try await DataSetGenerator.generate(configuration)
            } catch let error as GeneratorError {
                throw OfferLabError(.cannotWrite, error.description, cause: error)
            }
        }
        func megabytes(_ bytes: Int64) -> String {
            let tenths = (bytes + 50_000) / 100_000
            return "\(tenths / 10).\(tenths % 10) MB"
        }
        let size = "\(megabytes(report.totalBytes)); logs \(megabytes(report.logs.uncompressedBytes)) uncompressed"
        let otherFiles = report.files.count - report.logs.files
        try StandardStreams.writeLine(
            "Wrote \(report.users) users, \(report.assignmentRows) assignment rows and \(report.logs.lines) log lines")
        try StandardStreams.writeLine(
            "  in \(report.logs.files) log files + \(otherFiles) other files (\(size)) to \(report.outputDirectory)/")
        try StandardStreams.writeLine(
            "  of which \(report.logs.showcaseLines) malformed lines in \(report.logs.showcaseFiles) files of showcase/ "
                + "(a job reads them when it lists them: the fixed showcase and every malformed line that names money)")
        if report.logs.storeFiles > 0 {
            try StandardStreams.writeLine(
                "  and \(report.logs.storeLines) \(format.rawValue) lines in \(report.logs.storeFiles) files "
                    + "(\(megabytes(report.logs.storeUncompressedBytes)) uncompressed)")
        }
        try StandardStreams.writeLine(
            "  and the app's past: \(report.logs.historyLines) lines of earlier buyers in \(report.logs.historyFiles) files of "
                + "\(HistoryWriter.folder)/ (the job's history_logs)")
        try StandardStreams.writeLine("Job file: \(report.jobFile) (as_of \(report.asOf))")
    }
}

extension EventIDShape: ExpressibleByArgument {}
extension UserIDShape: ExpressibleByArgument {}
extension LogLayout: ExpressibleByArgument {}
extension PlayUsers: ExpressibleByArgument {}
extension SourceFormat: ExpressibleByArgument {}
