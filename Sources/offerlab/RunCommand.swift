import ArgumentParser
import Foundation
import OfferLab
import OfferLabJob
import OfferLabSupport
import OfferLabVocabulary

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a nightly job: ingest the tables and logs, compute every group's results, write CSVs and SQLite.",
        discussion: """
            JOB is a YAML job file (see jobs/sample.yaml and jobs/production.example.yaml). Relative paths \
            in it are relative to the job file. Keys:
            \(JobKey.helpText)

            A log file whose name (without a final .gz) ends in .csv is a CSV log; any other is JSON Lines.

            Results go to <output>/<YYYY-MM-DD of as_of>/ (summary.csv, comparisons.csv, srm.csv, \
            products.csv, daily.csv, quality.csv, sources.csv, projection.csv, decisions.csv, \
            alerts.csv, rejects.csv, skipped_files.csv, maturity.csv (rows with maturity_days); slice_summary.csv, \
            slice_comparisons.csv and slice_srm.csv with slices; and report.html, the page product leads \
            read) and to the SQLite database, which keeps every night. A failed run leaves earlier \
            outputs untouched. On stdout, after the folder: one line per treatment, \
            `<offering> <group>: <status>: <reason>` \
            (\(DecisionStatus.allCases.map(\.rawValue).joined(separator: ", "))); then one `alert: …` line per change since the previous \
            night (a status, a sample-ratio flag), and with alert_exit_code N such a night exits N.

            Warnings (stderr, `warning: …`; the run still succeeds): money left out for want of a rate; \
            money named by malformed lines; log files that yielded no valid line; offerings without the \
            job's control group; renewals of products without a billing period (the projection); corrupt \
            files skipped; cache entries not written; history_logs globs that match no file (the app's \
            past is missing: the report and status say so too).

            Exit codes: 0 success; 64 bad command line; 65 bad input data (too many malformed lines, \
            corrupt gzip, unreadable tables); 73 outputs cannot be written; 75 another run holds the lock; \
            78 bad job file.
            """
    )

    @OptionGroup var jobOptions: JobOptions

    @OptionGroup var outputOptions: RunOutputOptions

    @OptionGroup var inputOptions: InputOptions

    @Flag(help: "Print no progress, even on a terminal.")
    var quiet = false

    @Option(
        help: ArgumentHelp(
            "Also write the night's parts into this folder: what `offerlab stats --parts` reads, and what an engine's parts (`offerlab sql --part`) must equal.",
            valueName: "folder"))
    var parts: String?

    func run() async throws {
        // Under a file size limit (`ulimit -f`) a write past it must fail with EFBIG, reported as
        // an output error (exit 73), not kill the run without a word. Dispatch's workers block
        // SIGXFSZ, other threads do not (the CSV files are written on a thread of their own):
        // ignored, it leaves every thread's write to fail with EFBIG.
        signal(SIGXFSZ, SIG_IGN)
        let alertExitCode = try await runReportingErrors { () async throws -> Int32 in
            let job = try jobOptions.load(outputOptions, inputOptions)
            let progress = !quiet && isatty(STDERR_FILENO) != 0 ? ProgressReporter() : nil
            return try Self.tell(try await NightlyRun.run(job, progress: progress, parts: parts), job: job)
        }
        // A successful night with an alert, when the job asks cron to mail it.
        if alertExitCode != 0 { throw ExitCode(alertExitCode) }
    }

    /// Prints what a written night says (its folder and report, each decision and alert, the
    /// cache's use, the warnings) and returns the exit code its alerts ask for: `run`'s and
    /// `stats --parts`'s lines.
    static func tell(_ report: RunReport, job: Job) throws -> Int32 {
        try StandardStreams.writeLine(
            "wrote \(report.outputFolder) (\(report.offerings.joined(separator: ", "))) and \(report.databasePath)")
        try StandardStreams.writeLine(
            "report: \((report.outputFolder as NSString).appendingPathComponent("report.html")) (the page to open first)")
        for decision in report.decisions { try StandardStreams.writeLine(decision) }
        for alert in report.alerts { try StandardStreams.writeLine(alert) }
        if let cache = report.cache {
            var line = "cache \(cache.folder): \(cache.filesReused) log file(s) reused, \(cache.filesStored) parsed and kept"
            if cache.entriesDiscarded > 0 { line += ", \(cache.entriesDiscarded) damaged entr(ies) parsed again" }
            try StandardStreams.writeLine(line)
            if let failure = cache.firstWriteFailure {
                StandardStreams.writeError(
                    "warning: \(cache.failedWrites) cache entr(ies) not written, the next run parses those files again: \(failure)\n")
            }
        }
        for warning in report.warnings {
            StandardStreams.writeError("warning: \(warning)\n")
        }
        if !report.skippedFiles.isEmpty {
            let paths = report.skippedFiles.joined(separator: ", ")
            StandardStreams.writeError(
                "warning: skipped \(report.skippedFiles.count) corrupt file(s), listed in skipped_files.csv: \(paths)\n")
        }
        return report.alerts.isEmpty ? 0 : job.outputs.alertExitCode
    }
}

/// Where `run` writes, and how wide it reads.
struct RunOutputOptions: ParsableArguments, JobOverriding {
    @Option(help: "Override the job's output folder.")
    var output: String?

    @Option(
        name: .resultsDatabase,
        help: ArgumentHelp("Override the job's SQLite database file (the one `status --db` and `report --db` read).", valueName: "file"))
    var database: String?

    @Option(
        help:
            "How many log files to read at once (fewer files: threads per file), and threads to clean the events up (default: one per core)."
    )
    var threads: Int?

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
    }

    func override(_ overrides: inout JobOverrides) {
        (overrides.output, overrides.database, overrides.threads) = (output, database, threads)
    }
}

extension NameSpecification {
    /// The results database's option on every command that takes one: `--db`, or `--database`,
    /// which `run` took first and cron lines and scripts still give.
    static var resultsDatabase: NameSpecification { [.customLong("db"), .customLong("database")] }
}

/// `body`'s value; a library error becomes one line on stderr and its exit code.
@discardableResult
func runReportingErrors<Value>(_ body: () async throws -> Value) async throws -> Value {
    do {
        return try await body()
    } catch let error as OfferLabError {
        StandardStreams.writeError("offerlab: error: \(error.message)\n")
        throw ExitCode(error.exitCode)
    }
}
