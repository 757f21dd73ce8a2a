import ArgumentParser
import Foundation
import OfferLab

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a nightly job: ingest the tables and logs, compute every group's results, write CSVs and SQLite.",
        discussion: """
            JOB is a YAML job file (see jobs/sample.yaml and jobs/production.example.yaml). Relative paths \
            in it are relative to the job file. Keys:
              tables              folder of <table>.csv[.gz]/.tsv[.gz], or .sqlite/.db
              logs                one glob or a list; each must match a file
              as_of               2026-03-16[T00:00:00Z] (default: today 00:00 UTC)
              report_currency     e.g. USD (upper-case ISO 4217 codes, here and in the rates)
              rates | rates_file  {EUR: 1.08}, or a CSV file: currency,rate
              max_unconvertible_money_share  fail above this share of money events without a rate (default: warn only)
              alpha               significance level (default 0.05)
              sequential_tuning   N* of the sequential intervals: users at which you expect to decide (default 5000)
              decision            sequential (default) or fixed: which inference the report's verdicts use
              control             control group (default: control, else lowest id; a name no offering has is an error)
              conversion_window_days  days after assignment that count (default: all)
              offerings           offering ids (default: all with assignments)
              max_bad_line_ratio  fail above this malformed share (default 0.01)
              on_corrupt_file     fail (default) or skip a corrupt gzip file
              output, database    where results go
              rejects_per_reason  malformed lines kept per reason (default 20)
              lock_timeout_seconds  wait for a running run (default 60)
              threads             files read at once, clean-up threads (default: cores)
              cache               folder of parsed log files kept for the next run (default: none)

            Results go to <output>/<YYYY-MM-DD of as_of>/ (summary.csv, comparisons.csv, srm.csv, \
            products.csv, daily.csv, quality.csv, rejects.csv, skipped_files.csv, and report.html, the \
            page product leads read) and to the SQLite database, which keeps every night. A failed run \
            leaves earlier outputs untouched.

            Exit codes: 0 success; 64 bad command line; 65 bad input data (too many malformed lines, \
            corrupt gzip, unreadable tables); 73 outputs cannot be written; 75 another run holds the lock; \
            78 bad job file.
            """
    )

    @Argument(help: "The job file (YAML).")
    var job: String

    @Option(name: .customLong("as-of"), help: "Override the job's as_of (2026-03-16 or 2026-03-16T00:00:00Z).")
    var asOf: String?

    @Option(help: "Override the job's output folder.")
    var output: String?

    @Option(help: "Override the job's SQLite database file.")
    var database: String?

    @Option(
        help:
            "How many log files to read at once (fewer files: threads per file), and threads to clean the events up (default: one per core)."
    )
    var threads: Int?

    @Flag(name: .customLong("no-cache"), help: "Parse every log file, neither reading nor writing the job's cache folder.")
    var noCache = false

    @Flag(help: "Print no progress, even on a terminal.")
    var quiet = false

    @OptionGroup var inflaterOptions: InflaterOptions

    func validate() throws {
        if let asOf, UTCTime.parseAsOf(asOf) == nil {
            throw ValidationError("--as-of '\(asOf)' is not a date like 2026-03-16 or a timestamp like 2026-03-16T00:00:00Z")
        }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1, got \(threads)") }
    }

    func run() async throws {
        let inflater = try inflaterOptions.resolved()
        // Under a file size limit (`ulimit -f`) a write past it must fail with EFBIG, reported as
        // an output error (exit 73), not kill the run without a word. The worker threads that
        // write block SIGXFSZ already; ignoring it keeps that true for a write on any thread.
        signal(SIGXFSZ, SIG_IGN)
        try await runReportingErrors {
            var job = try JobLoader.load(path: job, asOf: asOf, output: output, database: database, threads: threads)
            job.inflater = inflater
            if noCache { job.cachePath = nil }
            let progress = !quiet && isatty(STDERR_FILENO) != 0 ? ProgressReporter() : nil
            let report = try await NightlyRun.run(job, progress: progress)
            print("wrote \(report.outputFolder) (\(report.offerings.joined(separator: ", "))) and \(report.databasePath)")
            if let cache = report.cache {
                var line = "cache \(cache.folder): \(cache.filesReused) log file(s) reused, \(cache.filesStored) parsed and kept"
                if cache.entriesDiscarded > 0 { line += ", \(cache.entriesDiscarded) damaged entr(ies) parsed again" }
                print(line)
                if let failure = cache.firstWriteFailure {
                    FileHandle.standardError.write(
                        Data(
                            "warning: \(cache.failedWrites) cache entr(ies) not written, the next run parses those files again: \(failure)\n"
                                .utf8))
                }
            }
            for warning in report.warnings {
                FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
            }
            if !report.skippedFiles.isEmpty {
                let paths = report.skippedFiles.joined(separator: ", ")
                FileHandle.standardError.write(
                    Data("warning: skipped \(report.skippedFiles.count) corrupt file(s), listed in skipped_files.csv: \(paths)\n".utf8))
            }
        }
    }
}

/// `body`'s value; a library error becomes one line on stderr and its exit code.
@discardableResult
func runReportingErrors<Value>(_ body: () async throws -> Value) async throws -> Value {
    do {
        return try await body()
    } catch let error as OfferLabError {
        FileHandle.standardError.write(Data("offerlab: error: \(error.message)\n".utf8))
        throw ExitCode(error.exitCode)
    }
}
