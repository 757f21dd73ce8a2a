import ArgumentParser
import OfferLab

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Compute comparisons.csv and srm.csv from per-group sufficient statistics computed elsewhere.",
        discussion: """
            AGG.csv has a header row and one row per (offering, group): offering_id, group, is_control \
            (true on exactly one row per offering), weight, users, converters, revenue_sum (the sum of \
            per-user net revenue) and revenue_sum_squares (the sum of its squares). An optional metric \
            column adds rows of capped revenue (arpu_capped) and of users matured after D days (d7): \
            the same columns, one row per (offering, group, metric); an empty metric is the group's own \
            row. The statistics are computed exactly as `offerlab run` computes them. A malformed file \
            gets one line naming the row and the problem (exit 65).
            """
    )

    @Option(help: "The aggregates file (CSV or TSV, gzipped or not).")
    var input: String

    @Option(help: "The folder to write comparisons.csv and srm.csv into.")
    var output: String

    @Option(help: "Significance level.")
    var alpha: Double = 0.05

    func run() async throws {
        try await runReportingErrors {
            let offerings = try AggregateStatistics.run(input: input, output: output, alpha: alpha)
            print("wrote \(output)/comparisons.csv and srm.csv (\(offerings.joined(separator: ", ")))")
        }
    }
}
