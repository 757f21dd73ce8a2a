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

    @Argument(help: "The job file (YAML).")
    var job: String

    @Option(help: "The folder the events go to (created when missing).")
    var out: String

    @Option(name: .customLong("as-of"), help: "Override the job's as_of (a refund reversal from it on does not count yet).")
    var asOf: String?

    @Flag(name: .customLong("no-cache"), help: "Read every store file, neither reading nor writing the job's cache folder.")
    var noCache = false

    @OptionGroup var inflaterOptions: InflaterOptions

    func validate() throws {
        if let asOf, UTCTime.parseAsOf(asOf) == nil {
            throw ValidationError("--as-of '\(asOf)' is not a date like 2026-03-16 or a timestamp like 2026-03-16T00:00:00Z")
        }
    }

    func run() async throws {
        let inflater = try inflaterOptions.resolved()
        try await runReportingErrors {
            var loaded = try JobLoader.load(path: job, asOf: asOf)
            loaded.inflater = inflater
            if noCache { loaded.cachePath = nil }
            try StandardStreams.writeLine(try await StoreEventExport.run(job: loaded, folder: out).line)
        }
    }
}
