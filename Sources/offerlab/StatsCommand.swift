import ArgumentParser
import OfferLabStatistics
import OfferLabSupport
import OfferLabWarehouse

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Compute comparisons.csv and srm.csv (and summary.csv) from per-group sufficient statistics computed elsewhere.",
        discussion: """
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

    @Option(help: "The aggregates file (CSV or TSV, gzipped or not).")
    var input: String

    @Option(help: "The folder to write comparisons.csv and srm.csv into.")
    var output: String

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
        guard alpha > 0, alpha < 1 else { throw ValidationError("--alpha must be greater than 0 and less than 1, got \(alpha)") }
        guard sequentialTuning.isFinite, sequentialTuning > 0 else {
            throw ValidationError("--sequential-tuning \(sequentialTuning) must be a positive number of users")
        }
        guard srmConcentration.isFinite, srmConcentration > 0 else {
            throw ValidationError("--srm-concentration \(srmConcentration) must be a positive number")
        }
    }

    func run() async throws {
        try await runReportingErrors {
            let offerings = try AggregateStatistics.run(
                input: input, output: output, alpha: alpha, sequentialTuning: sequentialTuning, srmConcentration: srmConcentration,
                quality: quality, products: products, slices: slices)
            try StandardStreams.writeLine("wrote the results into \(output) (\(offerings.joined(separator: ", ")))")
        }
    }
}
