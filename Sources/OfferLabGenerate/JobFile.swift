import OfferLabStoreSources

/// The job file (`job.yaml`) that runs the analysis of a generated data set.
enum JobFile {
    static let name = "job.yaml"

    /// - Parameter logs: what was written: the job's `max_bad_line_ratio` lets its malformed
    ///   lines pass at every size (the showcase's fixed ones are over 1% of a small data set).
    /// - Parameter written: the log files written, relative to the output folder.
    static func text(configuration: GeneratorConfiguration, logs: LogCounts, written: [String]) -> String {
        let rates = Catalog.rates.map { "\($0.code): \($0.rate)" }.joined(separator: ", ")
        return """
            # OfferLab job for a synthetic data set made by
            #   offerlab generate --users \(configuration.users) --seed \(configuration.seed) \
            --start \(configuration.start) --days \(configuration.days)\(shapeOptions(configuration))
            # Paths are relative to this file. BRL has no rate on purpose (unknown_currency_events).
            # showcase/ holds the fixed malformed lines and every malformed line that names money:
            # without its globs, a job reads no malformed line that names money.
            tables: tables/
            logs:
            \(logGlobs(configuration.shape.layout, written: written))\(storeSource(configuration.shape.sourceFormat))
            as_of: \(configuration.asOfText)   # end of the generated period (excluded)
            report_currency: USD
            rates: {\(rates)}
            alpha: 0.05
            control: control
            conversion_window_days: 14
            \(badLineRatio(logs))
            on_corrupt_file: fail
            output: out/
            database: out/results.sqlite

            """
    }

    /// `max_bad_line_ratio: 0.01`, or, when the malformed lines written are more than 1% of the
    /// lines (a data set of a few hundred users), or the store's own more than 1% of its lines
    /// (`offerlab events` checks those alone; Google Play's users are a fifth of a set), their
    /// share rounded up to a hundredth, and why.
    static func badLineRatio(_ logs: LogCounts) -> String {
        // The store's own malformed lines (a bad signature, another app's) count as the logs' do.
        let storeMalformed = logs.badSignatureLines + logs.otherAppLines
        let malformed = logs.malformed.values.reduce(0, +) + storeMalformed
        let lines = max(1, logs.lines - logs.blankLines + logs.storeLines)
        func hundredths(_ count: Int, of lines: Int) -> Int { Int((100 * Double(count) / Double(max(1, lines))).rounded(.up)) }
        let ofAll = hundredths(malformed, of: lines)
        let ofStore = hundredths(storeMalformed, of: logs.storeLines)
        guard max(ofAll, ofStore) > 1 else { return "max_bad_line_ratio: 0.01" }
        let why =
            ofAll >= ofStore
            ? "\(malformed) malformed of \(lines) lines: the showcase's fixed ones are more than 1% of a data set this small"
            : "\(storeMalformed) malformed of the store's \(logs.storeLines) lines: more than 1% of a store form this small"
        return "max_bad_line_ratio: \(Double(min(100, max(ofAll, ofStore))) / 100)   # \(why)"
    }

    /// The globs of the layout's log files, and of the showcase's, each only when a file it
    /// matches was `written` (paths relative to the output folder): a glob that matches nothing
    /// fails a job, and a data set of a few users may hold no JSON or no CSV log file.
    private static func logGlobs(_ layout: LogLayout, written: [String]) -> String {
        let globs =
            layout == .oneFile
            ? [OneFileLayout.jsonPath, OneFileLayout.csvPath] : ["logs/*/*/*/*.jsonl.gz", "logs/*/*/*/*.csv.gz"]
        let showcase = ["*.jsonl.gz", "*.csv.gz"].map { LogShardWriter.showcaseFolder + "/" + $0 }
        let matched = (globs + showcase).filter { glob in
            let (folder, suffix) = (String(glob.prefix { $0 != "/" }) + "/", glob.hasSuffix(".csv.gz") ? ".csv.gz" : ".jsonl.gz")
            return written.contains { $0.hasPrefix(folder) && $0.hasSuffix(suffix) }
        }
        return matched.map { "  - \"\($0)\"" }.joined(separator: "\n")
    }

    /// The store's files, each glob as a source of its format
    /// (docs/input-formats.md#store-sources-in-a-job); for the App Store, the app and the data
    /// set's own test root certificate; for Google Play, the app.
    private static func storeSource(_ format: SourceFormat) -> String {
        guard !format.sources.isEmpty else { return "" }
        return format.sources.map { "\n  - {path: \"\($0.glob)\", format: \($0.format.rawValue)}" }.joined() + format.jobSettings
    }

    /// The shape options that differ from the defaults, as the command line spells them.
    private static func shapeOptions(_ configuration: GeneratorConfiguration) -> String {
        var text = ""
        if configuration.shape.eventIDs != .uuid { text += " --event-ids \(configuration.shape.eventIDs.rawValue)" }
        if configuration.shape.userIDs != .numeric { text += " --user-ids \(configuration.shape.userIDs.rawValue)" }
        if configuration.shape.layout != .dailyShards { text += " --layout \(configuration.shape.layout.rawValue)" }
        if configuration.shape.playUsers != .oneInFive { text += " --play-users \(configuration.shape.playUsers.rawValue)" }
        if configuration.shape.sourceFormat != .offerlab { text += " --format \(configuration.shape.sourceFormat.rawValue)" }
        return text
    }
}
