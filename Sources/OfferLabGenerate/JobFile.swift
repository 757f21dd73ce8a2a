/// The job file (`job.yaml`) that runs the analysis of a generated data set.
enum JobFile {
    static let name = "job.yaml"

    static func text(configuration: GeneratorConfiguration) -> String {
        let rates = Catalog.rates.map { "\($0.code): \($0.rate)" }.joined(separator: ", ")
        return """
            # OfferLab job for a synthetic data set made by
            #   offerlab generate --users \(configuration.users) --seed \(configuration.seed) \
            --start \(configuration.start) --days \(configuration.days)
            # Paths are relative to this file. BRL has no rate on purpose (unknown_currency_events).
            tables: tables/
            logs:
              - "logs/*/*/*/*.jsonl.gz"
              - "logs/*/*/*/*.csv.gz"
            as_of: \(configuration.asOfText)   # end of the generated period (excluded)
            report_currency: USD
            rates: {\(rates)}
            alpha: 0.05
            control: control
            conversion_window_days: 14
            max_bad_line_ratio: 0.01
            on_corrupt_file: fail
            output: out/
            database: out/results.sqlite

            """
    }
}
