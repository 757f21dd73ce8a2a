import ArgumentParser
import OfferLabJob
import OfferLabSupport
import OfferLabWarehouse

extension SQLDialect: ExpressibleByArgument {}
extension SQLPart: ExpressibleByArgument {}

struct SQLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Write a SQL script that computes a part of a job's night in DuckDB or Spark, for `offerlab stats`.",
        discussion: """
            The script reads the job's log files and assignment table with the engine's own readers (the \
            small catalog tables are written into it as values), applies the same rules as `offerlab run`, \
            and ends with one result: `aggregates` (one row per offering, group and metric: the columns \
            `offerlab stats` reads plus every count and money column of summary.csv, with the capped and \
            matured rows the job asks for), `quality` (quality.csv's counters), `products` (products.csv's \
            rows) or `slices` (one row per offering, slice field, level and group, for a job with slices), \
            or one of the night's own parts (observations, past, assignments, tenure, daily_totals, events, \
            backtest; in one long form: docs/warehouse.md). --list-parts prints the parts the job needs, which \
            `offerlab stats --job JOB --parts DIR` reads as DIR/<part>.csv. \
            Statements end with `;` at the end of a line. See docs/warehouse.md.

            Exit codes: 0 success; 64 bad command line; 65 a table or log file the engine cannot read as \
            `offerlab run` does; 78 bad job file (or a SQLite tables file, --part slices for a job without slices, or --part past or backtest for a job \
            without history_logs).
            """
    )

    @OptionGroup var jobOptions: JobOptions

    @Option(help: "The engine: duckdb or spark.")
    var dialect: SQLDialect

    @Option(
        help:
            "The result the script ends with: aggregates, quality, products or slices (§3.2), or one of the night's own parts (observations, past, assignments, tenure, daily_totals, events)."
    )
    var part: SQLPart = .aggregates

    @Flag(help: "Print the parts this job needs, one a line (what `offerlab stats --job JOB --parts DIR` reads), and nothing else.")
    var listParts = false

    func run() async throws {
        try await runReportingErrors {
            let job = try jobOptions.load()
            if listParts {
                for name in RunParts.names(of: job) { try StandardStreams.writeLine(name) }
                return
            }
            try StandardStreams.write(try SQLScript.generate(job: job, dialect: dialect, part: part))
        }
    }
}
