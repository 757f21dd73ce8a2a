import ArgumentParser
import Foundation
import OfferLab
import OfferLabJob
import OfferLabStatistics
import OfferLabSupport
import OfferLabWarehouse

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract:
            "Write the whole night from its parts (--job JOB --parts DIR), or comparisons.csv and srm.csv (and summary.csv) from per-group sufficient statistics (--input AGG.csv).",
        discussion: """
            With --job JOB --parts DIR: DIR holds one CSV file per part the job needs (`offerlab sql JOB \
            --dialect D --list-parts` lists them, `--part P` writes each script; `offerlab run JOB --parts DIR` \
            writes them as run computes them), and the night is written as `offerlab run` writes it: every \
            file of the night folder but the rejects, report.html and the night's rows in the database, \
            into the job's output and database unless --output and --db say otherwise; the decisions and \
            alerts print as run prints them (and alert_exit_code applies). A part missing, of another \
            night, version or job, or with a row it cannot read is refused naming the file and line \
            (exit 65) and nothing is written. See docs/warehouse.md.

            With --input AGG.csv --output DIR:
            AGG.csv has a header row and one row per (offering, group): offering_id, group, is_control \
            (true on exactly one row per offering), weight, users, converters, revenue_sum (the sum of \
            per-user net revenue) and revenue_sum_squares (the sum of its squares). An optional metric \
            column adds rows of capped revenue (arpu_capped) and of users matured after D days (d7): \
            the same columns, one row per (offering, group, metric); an empty metric is the group's own \
            row. The statistics are computed exactly as `offerlab run` computes them, the sequential \
            (seq_…) columns at --sequential-tuning, srm.csv's always-valid check at --srm-concentration \
            (its p-value tonight's alone: `stats` keeps no nights). When AGG.csv also has the count and money \
            columns of summary.csv (trial_starters, trial_converters, paywall_viewers, purchases, renewals, \
            refunds, gross_revenue, refunded_revenue; `offerlab sql`'s aggregates have them), summary.csv and \
            maturity.csv are written too (summary.csv's capped columns from the arpu_capped rows' revenue_cap \
            and capped_users columns, when AGG.csv has them); --quality, --products and --slices turn the \
            other results of `offerlab sql` into quality.csv, products.csv and slice_summary.csv, \
            slice_comparisons.csv and slice_srm.csv. A malformed file gets one line naming the row and the \
            problem (exit 65).
            """
    )

    @Option(help: "The job file whose night the parts are (with --parts).")
    var job: String?

    @Option(help: ArgumentHelp("The folder of the night's parts, one <part>.csv each (with --job).", valueName: "folder"))
    var parts: String?

    @Option(
        name: .customLong("as-of"), help: ArgumentHelp("Override the job's as_of (with --job).", valueName: "date"),
        transform: Night.argument)
    var asOf: Night?

    @Option(
        name: .resultsDatabase,
        help: ArgumentHelp("Override the job's SQLite database file (with --job).", valueName: "file"))
    var database: String?

    @Option(help: "The aggregates file (CSV or TSV, gzipped or not).")
    var input: String?

    @Option(help: "The folder to write into (with --input: comparisons.csv and srm.csv; with --job: overrides the job's output).")
    var output: String?

    @Option(help: "Significance level.")
    var alpha: Double = 0.05

    @Option(
        name: .customLong("sequential-tuning"),
        help: "N* of the sequential columns: the total users of two groups at which you expect to decide.")
    var sequentialTuning: Double = SequentialInference.defaultTuning

    @Option(
        name: .customLong("srm-concentration"),
        help: "c of the always-valid sample-ratio check's Dirichlet mixture (the job's srm_concentration).")
    var srmConcentration: Double = SequentialSampleRatio.defaultConcentration

    @Option(help: "quality.csv's counters (offering_id, counter, count), e.g. from `offerlab sql --part quality`.")
    var quality: String?

    @Option(help: "products.csv's rows, e.g. from `offerlab sql --part products` (needs the summary columns in AGG.csv).")
    var products: String?

    @Option(
        help:
            "Per (offering, dimension, level, group) sums, e.g. from `offerlab sql --part slices`, for the slice files (needs the summary columns in AGG.csv)."
    )
    var slices: String?

    func validate() throws {
        if job != nil || parts != nil {
            guard job != nil, parts != nil else { throw ValidationError("--job and --parts go together") }
            guard input == nil, quality == nil, products == nil, slices == nil else {
                throw ValidationError("--input, --quality, --products and --slices are the other route: with --job, the parts hold them")
            }
            guard alpha == 0.05, sequentialTuning == SequentialInference.defaultTuning,
                srmConcentration == SequentialSampleRatio.defaultConcentration
            else { throw ValidationError("with --job, alpha, the sequential tuning and the SRM concentration are the job's") }
            return
        }
        guard input != nil, output != nil else { throw ValidationError("give --job JOB --parts DIR, or --input AGG.csv --output DIR") }
        guard asOf == nil, database == nil else { throw ValidationError("--as-of and --db go with --job") }
        guard alpha > 0, alpha < 1 else { throw ValidationError("--alpha must be greater than 0 and less than 1, got \(alpha)") }
        guard sequentialTuning.isFinite, sequentialTuning > 0 else {
            throw ValidationError("--sequential-tuning \(sequentialTuning) must be a positive number of users")
        }
        guard srmConcentration.isFinite, srmConcentration > 0 else {
            throw ValidationError("--srm-concentration \(srmConcentration) must be a positive number")
        }
    }

    func run() async throws {
        if let job, let parts {
            let alertExitCode = try await runReportingErrors { () async throws -> Int32 in
                var overrides = JobOverrides(asOf: asOf, output: output, database: database)
                overrides.inputsReadElsewhere = true
                let loaded = try JobLoader.load(path: job, overriding: overrides)
                return try RunCommand.tell(try await PartsNight.run(loaded, parts: parts), job: loaded)
            }
            if alertExitCode != 0 { throw ExitCode(alertExitCode) }
            return
        }
        guard let input, let output else { return }
        try await runReportingErrors {
            let offerings = try AggregateStatistics.run(
                input: input, output: output, alpha: alpha, sequentialTuning: sequentialTuning, srmConcentration: srmConcentration,
                quality: quality, products: products, slices: slices)
            try StandardStreams.writeLine("wrote the results into \(output) (\(offerings.joined(separator: ", ")))")
        }
    }
}
