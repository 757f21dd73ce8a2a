import ArgumentParser
import OfferLab
import OfferLabJob
import OfferLabSupport

struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Write the events of a job's store sources in the log format, for SQL engines and other tools.",
        discussion: """
            Reads the job's logs of the stores' formats (app_store_notifications, revenuecat_export, \
            revenuecat_webhooks), verifies and decodes them as `offerlab run` does, and writes their events \
            as gzip JSON Lines in the log format: one file per input file, \
            DIR/<format>/<input path relative to the job file>.jsonl.gz, each replaced whole by a run again. \
            A job whose logs name DIR/**/*.jsonl.gz beside the app's own logs has the same night; \
            `offerlab sql` needs such a job. With the job's `cache`, App Store files read before are read \
            back verified and decoded rather than verified again. See docs/input-formats.md.

            Exit codes: 0 success; 64 bad command line; 65 a store file cannot be read (a corrupt gzip \
            file, an export without a required column) or too many malformed lines; 73 the files cannot be \
            written; 78 bad job file (or a job without a store source, or a DIR its logs would read).
            """
    )

    @OptionGroup var jobOptions: JobOptions

    @Option(help: "The folder the events go to (created when missing).")
    var out: String

    @OptionGroup var inputOptions: InputOptions

    func run() async throws {
        try await runReportingErrors {
            let job = try jobOptions.load(inputOptions)
            try StandardStreams.writeLine(try await StoreEventExport.run(job: job, folder: out).line)
        }
    }
}
