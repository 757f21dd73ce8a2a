import Foundation
import OfferLabIngest
import OfferLabStatistics
import OfferLabStoreSources
import OfferLabSupport
import OfferLabVocabulary
import Yams

/// What to do with a log file whose gzip stream is corrupt or truncated.
public enum CorruptFilePolicy: String, Sendable {
    /// Fail the run, naming the file.
    case fail
    /// Skip the whole file and report it in `quality.csv`.
    case skip
}

/// A validated job: every path resolved and checked, every value parsed.
public struct Job: Sendable {
    /// The job file, as given (for messages).
    public var jobPath: String
    /// The job file's absolute, symlink-resolved path: what identifies the job in the database,
    /// however it was typed (`job.yaml`, `/abs/job.yaml`, a link to it).
    public var identity: String { JobIdentity.resolved(jobPath) }
    /// A folder of table files, or a `.sqlite`/`.db` file.
    public var tablesPath: String
    /// The log globs of the purchase-log format (docs/input-formats.md#purchase-logs), resolved
    /// against the job file's folder.
    public var logPatterns: [String]
    /// Every file those globs match, in byte-wise sorted order, without repeats.
    public var logFiles: [String]
    /// The `logs` items of the stores' formats (docs/input-formats.md#store-sources-in-a-job), one
    /// per format named, in the order of `SourceFormat`; empty for a job of purchase logs
    /// (docs/input-formats.md#purchase-logs) only.
    public var storeSources: [StoreSourceFiles] = []
    /// The `history_logs` globs, resolved as `logPatterns`; empty without the key (no past).
    public var historyPatterns: [String] = []
    /// `history_logs`: every file its globs match that `logs` does not, sorted as `logFiles`
    /// (docs/statistics.md#the-apps-past).
    public var historyFiles: [String] = []
    /// The `history_logs` globs that match no file (a warning of the run).
    public var historyGlobsWithoutFiles: [String] = []
    /// Every store's map (`app_store`, `revenuecat`, …): how its sources are read.
    public var storeSettings = StoreSettings()
    /// `as_of`: events and assignments at or after its instant are ignored.
    public var night: Night
    public var reportCurrency: String
    /// 1 unit of the currency = rate units of the report currency (the report currency is 1).
    public var rates: [String: Double]
    public var alpha: Double
    /// N* of the sequential intervals (docs/statistics.md, Sequential): the total users of two groups at which they are tightest.
    public var sequentialTuning: Double = SequentialInference.defaultTuning
    /// Which inference the report's verdicts use.
    public var decision: Decision = .sequential
    public var control: String?
    public var conversionWindowDays: Double?
    /// Offering ids to analyse; nil: every offering with assignments before `night`.
    public var offerings: [String]?
    public var maxBadLineRatio: Double
    /// The run fails when an offering's counted money events without a rate are more than
    /// this share of its money events; nil: never (a warning only).
    public var maxUnconvertibleMoneyShare: Double?
    public var onCorruptFile: CorruptFilePolicy
    /// The checks of a night whose inputs look broken (docs/reliability.md, A broken night):
    /// the largest share by which lines read, or an offering's users, may fall since the
    /// previous successful night of the job; and which of the other checks are waived.
    public var maxVolumeDrop = 0.5
    public var allowEmptyNight = false
    public var allowStaleLogs = false
    public var allowEmptyOfferings = false
    /// Work is bounded by the data (docs/reliability.md, A broken night): `as_of` may be at most
    /// this many days after the latest event read, and at most a day in the future unless allowed.
    public var maxDaysAfterLastEvent = 31.0
    public var allowFutureAsOf = false
    /// Results go to `outputPath/<night.date>/`.
    public var outputPath: String
    public var databasePath: String
    /// How many rejected lines of each reason the rejects file keeps.
    public var rejectsPerReason: Int
    /// How long a run waits for another run of the same job to finish.
    public var lockTimeoutSeconds: Double
    /// How many log files are read at once (and the cores shared out among their pieces,
    /// `LogIngest.SpareCores`), and how many threads clean the events up; nil: one per core.
    public var threads: Int?
    /// The library that inflates gzipped inputs (a property of the machine, not of the job
    /// file: the command line chooses it). Every number is the same whichever it is.
    public var inflater: Inflater = .fastestAvailable
    /// The parsed-log cache's folder (`ParsedLogCache`); nil: every log file is parsed.
    public var cachePath: String?
    /// How per-user revenue is capped for `arpu_capped` (docs/analysis.md §4b); nil: no capping.
    public var revenueCap: RevenueCapRule?
    /// The D of the matured metrics (docs/analysis.md §4c), ascending and distinct; empty: none.
    public var maturityDays: [Int] = []
    /// The log fields results are sliced by (docs/analysis.md §7), in the job's order; empty: no slices.
    public var slices: [SliceField] = []
    /// How many levels of a slice field are kept before the rest are merged into `(other)`.
    public var maxSliceLevels = SliceField.defaultMaxLevels

    /// VAT rates, stores and commissions for proceeds (docs/analysis.md §8).
    public var proceeds = ProceedsSettings()
    /// What a treatment is decided on, every night (docs/statistics.md, "The decision").
    public var decisionSettings = DecisionSettings()
    /// c of the always-valid sample-ratio check's Dirichlet mixture (docs/statistics.md, "Sequential sample ratio").
    public var srmConcentration = SequentialSampleRatio.defaultConcentration
    /// The exit code of a successful night with an alert (docs/reliability.md, "Alerts"); 0: none.
    public var alertExitCode: Int32 = 0

    /// Whether the signatures of the job's store sources are checked: nil when none has
    /// signatures (`StoreSourceSettings.signaturesVerified`).
    package var signaturesVerified: Bool? { storeSettings.signaturesVerified(reading: storeSources.map(\.format)) }

    /// The slice fields whose values the events keep: the job's, and `country` when a VAT rate
    /// depends on it.
    package var keptSliceFields: SliceFields {
        SliceFields(proceeds.taxRates.isEmpty || slices.contains(.country) ? slices : slices + [.country])
    }
}

/// What a command line changes in a job file: each nil (or false) keeps the file's value.
public struct JobOverrides: Sendable {
    /// `--as-of`.
    public var asOf: Night?
    public var output: String?
    public var database: String?
    public var threads: Int?
    /// The gzip library, a property of the machine rather than of the job file; nil: the
    /// fastest available.
    public var inflater: Inflater?
    /// `--no-cache`: parse every log file, neither reading nor writing the job's cache folder
    /// (the folder is still checked, as the next run with the cache will use it).
    public var ignoresCache = false
    /// The inputs are read elsewhere (`offerlab stats --job --parts`: an engine read them): a
    /// `logs` or `history_logs` glob that matches no file here is neither an error nor a missing past.
    public var inputsReadElsewhere = false

    public init(
        asOf: Night? = nil, output: String? = nil, database: String? = nil, threads: Int? = nil, inflater: Inflater? = nil,
        ignoresCache: Bool = false
    ) {
        self.asOf = asOf
        self.output = output
        self.database = database
        self.threads = threads
        self.inflater = inflater
        self.ignoresCache = ignoresCache
    }
}

/// Reads and validates a job file (YAML), before any work starts.
public enum JobLoader {
    static let knownKeys = Set(JobKey.all.map(\.name))

    /// Loads `path`, with the command line's `overrides` in it: the one place a `Job` is made.
    /// `now` gives the default `as_of` (today 00:00 UTC).
    /// - Throws: `OfferLabError` (`.badJob`, `.missingInput` or `.badArgument`) with one line naming the problem.
    public static func load(
        path: String, overriding overrides: JobOverrides = JobOverrides(), now: Date = Date()
    ) throws -> Job {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw OfferLabError(
                .missingInput, "job file \(path): cannot read it (\(error.localizedDescription))", location: .init(path: path),
                cause: error)
        }
        // YAML indents with spaces only; Yams' own message for a tab does not say so.
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") {
            throw OfferLabError(
                .badJob, "job file \(path): line \(index + 1): a tab in the indentation; YAML indents with spaces",
                location: .init(path: path, line: index + 1))
        }
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw OfferLabError.job(path, "it is empty")
            }
            root = node
        } catch let error as OfferLabError {
            throw error
        } catch {
            throw OfferLabError(
                .badJob, "job file \(path): not valid YAML: \(yamlProblem(error))", location: .init(path: path), cause: error)
        }
        guard let mapping = root.mapping else {
            throw OfferLabError.job(path, "expected a mapping of keys (tables:, logs:, …)")
        }
        var values: [String: Node] = [:]
        for (keyNode, value) in mapping {
            guard let key = keyNode.string else { throw OfferLabError.job(path, "a key is not text") }
            guard knownKeys.contains(key) else {
                let suggestion = JobKey.nearest(to: key).map { "; did you mean \($0)?" } ?? ""
                throw OfferLabError(
                    .badJob,
                    "job file \(path): unknown key '\(key)'\(suggestion) (known: \(JobKey.all.map(\.name).joined(separator: ", ")))",
                    location: .init(path: path, jobKey: key))
            }
            values[key] = value
        }
        let reader = JobValues(path: path, values: values)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path

        let tablesPath = resolve(try reader.requiredText("tables"), against: folder)
        guard FileManager.default.fileExists(atPath: tablesPath) else {
            throw OfferLabError.job(path, key: "tables", "\(tablesPath) does not exist", code: .missingInput)
        }

        guard let logItems = try reader.logItems("logs") else { throw reader.missing("logs") }
        let items = logItems.map { (pattern: resolve($0.glob, against: FileGlob.escaped(folder)), format: $0.format) }
        guard !items.isEmpty else { throw reader.fail("logs", "name at least one glob") }
        var patternsByFormat: [SourceFormat: [String]] = [:]
        var filesByFormat: [SourceFormat: Set<String>] = [:]
        for item in items {
            let matches = try FileGlob.matches(item.pattern)
            guard !matches.isEmpty || overrides.inputsReadElsewhere else {
                throw OfferLabError.job(path, key: "logs", "the glob \(item.pattern) matches no file", code: .missingInput)
            }
            patternsByFormat[item.format, default: []].append(item.pattern)
            filesByFormat[item.format, default: []].formUnion(matches)
        }
        // A file read in two formats would be counted twice, or fail as one of them.
        var formatOfFile: [String: SourceFormat] = [:]
        for format in SourceFormat.allCases {
            for file in filesByFormat[format] ?? [] {
                if let other = formatOfFile.updateValue(format, forKey: file) {
                    throw reader.fail(
                        "logs", "\(file) is matched as format \(other.rawValue) and as \(format.rawValue); give each file one format")
                }
            }
        }
        func sortedFiles(_ format: SourceFormat) -> [String] {
            (filesByFormat[format] ?? []).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
        let patterns = patternsByFormat[.offerlab] ?? []
        let logFiles = sortedFiles(.offerlab)
        let storeSources = SourceFormat.allCases.filter { $0 != .offerlab && filesByFormat[$0] != nil }.map { format in
            StoreSourceFiles(format: format, patterns: patternsByFormat[format] ?? [], files: sortedFiles(format))
        }
        let storeSettings = try reader.storeSettings(folder: folder, reading: storeSources.map(\.format))

        // The app's past (docs/statistics.md#the-apps-past): a glob that matches nothing is a
        // warning of the run, never a failed night; a file `logs` matches too is read once, as logs.
        var historyPatterns: [String] = []
        var historyMatches: Set<String> = []
        var historyGlobsWithoutFiles: [String] = []
        for item in try reader.logItems("history_logs") ?? [] {
            guard item.format == .offerlab else {
                throw reader.fail(
                    "history_logs", "\(item.format.rawValue): the past is read in the purchase-log format (offerlab) only, so far")
            }
            let pattern = resolve(item.glob, against: FileGlob.escaped(folder))
            let matches = try FileGlob.matches(pattern)
            if matches.isEmpty && !overrides.inputsReadElsewhere { historyGlobsWithoutFiles.append(pattern) }
            historyPatterns.append(pattern)
            historyMatches.formUnion(matches)
        }
        let historyFiles = historyMatches.subtracting(filesByFormat.values.joined()).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }

        let night: Night
        if let asOfOverride = overrides.asOf {
            night = asOfOverride
        } else if let text = try reader.optionalText("as_of") {
            guard let parsed = Night(parsing: text) else {
                throw reader.fail("as_of", "'\(text)' is not a timestamp (use 2026-03-16 or 2026-03-16T00:00:00Z)")
            }
            night = parsed
        } else {
            night = Night(microseconds: Timestamp.startOfDay(Int64(now.timeIntervalSince1970 * 1_000_000)))
        }

        let reportCurrency = try reader.requiredText("report_currency")
        if let problem = CurrencyCode.problem(reportCurrency) { throw reader.fail("report_currency", problem) }
        var rates: [String: Double] = [:]
        if values["rates"] != nil && values["rates_file"] != nil {
            throw OfferLabError(
                .badJob, "job file \(path): give rates or rates_file, not both", location: .init(path: path, jobKey: "rates_file"))
        }
        if let node = values["rates"] {
            guard let rateMapping = node.mapping else {
                throw reader.fail("rates", "expected a mapping like {EUR: 1.08}")
            }
            for (currencyNode, rateNode) in rateMapping {
                guard let currency = currencyNode.string, !currency.isEmpty else {
                    throw reader.fail("rates", "a currency is not text")
                }
                if let problem = CurrencyCode.problem(currency) { throw reader.fail("rates", problem) }
                rates[currency] = try reader.positiveRate(rateNode.string, currency: currency, source: "rates")
            }
        } else if let ratesFile = try reader.optionalText("rates_file") {
            let ratesPath = resolve(ratesFile, against: folder)
            rates = try RatesFile.read(path: ratesPath)
        }
        rates[reportCurrency] = 1

        let alpha = try reader.number("alpha", default: 0.05)
        guard alpha > 0 && alpha < 1 else {
            throw reader.fail("alpha", "\(alpha) must be greater than 0 and less than 1")
        }
        let tuning = try reader.number("sequential_tuning", default: SequentialInference.defaultTuning)
        guard tuning > 0 else {
            throw reader.fail("sequential_tuning", "\(tuning) must be a positive number of users")
        }
        let decisionText = try reader.optionalText("decision") ?? Decision.sequential.rawValue
        guard let decision = Decision(rawValue: decisionText) else {
            throw reader.fail("decision", "'\(decisionText)' must be sequential or fixed")
        }
        let window = try reader.optionalNumber("conversion_window_days")
        if let window, !(window > 0) {
            throw reader.fail("conversion_window_days", "\(window) must be positive")
        }
        let maxBad = try reader.number("max_bad_line_ratio", default: 0.01)
        guard maxBad >= 0 && maxBad <= 1 else {
            throw reader.fail("max_bad_line_ratio", "\(maxBad) must be between 0 and 1")
        }
        let maxUnconvertible = try reader.optionalNumber("max_unconvertible_money_share")
        if let maxUnconvertible, !(maxUnconvertible >= 0 && maxUnconvertible <= 1) {
            throw reader.fail("max_unconvertible_money_share", "\(maxUnconvertible) must be from 0 to 1 (a share of the money events)")
        }
        let maxVolumeDrop = try reader.number("max_volume_drop", default: 0.5)
        guard maxVolumeDrop >= 0 && maxVolumeDrop <= 1 else {
            throw reader.fail(
                "max_volume_drop", "\(maxVolumeDrop) must be from 0 to 1 (a share of the previous night's volume; 1 allows any drop)")
        }
        let maxDaysAfterLastEvent = try reader.number("max_days_after_last_event", default: 31)
        guard maxDaysAfterLastEvent >= 0 && maxDaysAfterLastEvent.isFinite else {
            throw reader.fail("max_days_after_last_event", "\(maxDaysAfterLastEvent) must be a number of days, 0 or more")
        }
        let policyText = try reader.optionalText("on_corrupt_file") ?? "fail"
        guard let policy = CorruptFilePolicy(rawValue: policyText) else {
            throw reader.fail("on_corrupt_file", "'\(policyText)' must be fail or skip")
        }
        let offerings = values["offerings"] == nil ? nil : try reader.textList("offerings")
        let rejects = try reader.number("rejects_per_reason", default: 20)
        guard rejects >= 0, rejects == rejects.rounded() else {
            throw OfferLabError(
                .badJob, "job file \(path): rejects_per_reason must be a whole number",
                location: .init(path: path, jobKey: "rejects_per_reason"))
        }

        let lockTimeout = try reader.number("lock_timeout_seconds", default: 60)
        guard lockTimeout >= 0 else {
            throw OfferLabError(
                .badJob, "job file \(path): lock_timeout_seconds must not be negative",
                location: .init(path: path, jobKey: "lock_timeout_seconds"))
        }

        let threads =
            try overrides.threads
            ?? reader.optionalNumber("threads").map { value -> Int in
                guard value >= 1, value == value.rounded() else {
                    throw OfferLabError(
                        .badJob, "job file \(path): threads must be a whole number ≥ 1", location: .init(path: path, jobKey: "threads"))
                }
                return Int(value)
            }
        if let threads, threads < 1 { throw OfferLabError(.badArgument, "--threads \(threads) must be at least 1") }

        let outputPath = try overrides.output ?? resolve(reader.requiredText("output"), against: folder)
        let databasePath = try overrides.database ?? resolve(reader.requiredText("database"), against: folder)
        let cachePath = try reader.optionalText("cache").map { resolve($0, against: folder) }
        // Entries in a folder the globs reach would be read as logs by the next run: a bad job
        // from the first night, when the folder may not even exist yet.
        let allInputFiles = logFiles + storeSources.flatMap(\.files) + historyFiles
        let allPatterns = patterns + storeSources.flatMap(\.patterns) + historyPatterns
        if let cachePath, let entry = allInputFiles.first(where: { $0.hasPrefix(cachePath + "/") }) {
            throw reader.fail(
                "cache", "\(cachePath) holds \(entry), which logs: matches; give the cache a folder the log globs do not reach")
        }
        // The night's outputs and the database likewise: night 2 would read night 1's report as logs.
        let outputs = ["summary.csv", "report.html", "rejects.csv"].map { "\(outputPath)/\(night.date)/\($0)" }
        for (key, paths) in [("output", outputs), ("database", [databasePath, databasePath + "-wal"])] {
            let folder = key == "output" ? outputPath + "/" : nil
            if let entry = allInputFiles.first(where: { file in paths.contains(file) || folder.map { file.hasPrefix($0) } == true }) {
                throw reader.fail(
                    key, "\(entry) is written by the run and matched by logs:; give \(key) a place the log globs do not reach")
            }
            if let pattern = allPatterns.first(where: { pattern in paths.contains { FileGlob.wouldMatch(pattern, $0) } }) {
                throw reader.fail(
                    key,
                    "the log glob \(pattern) would match what the run writes there (\(paths[0])); give \(key) a place the log globs do not reach"
                )
            }
        }
        let entry = (cachePath.map { $0 + "/" } ?? "") + CacheEntryName.example
        if let cachePath, let pattern = allPatterns.first(where: { FileGlob.wouldMatch($0, entry) }) {
            throw reader.fail(
                "cache",
                "the log glob \(pattern) would match the entries the cache keeps in \(cachePath) (\(entry)); give the cache a folder the log globs do not reach"
            )
        }

        let revenueCap = try reader.revenueCap()
        let maturityDays = try reader.maturityDays()
        let slices = try reader.slices()
        let maxSliceLevels = try reader.number("max_slice_levels", default: Double(SliceField.defaultMaxLevels))
        guard maxSliceLevels >= 1, maxSliceLevels == maxSliceLevels.rounded(), maxSliceLevels <= 10_000 else {
            throw reader.fail("max_slice_levels", "\(maxSliceLevels) must be a whole number from 1 to 10000")
        }

        var job = Job(
            jobPath: path, tablesPath: tablesPath, logPatterns: patterns, logFiles: logFiles, night: night,
            reportCurrency: reportCurrency, rates: rates, alpha: alpha, sequentialTuning: tuning, decision: decision,
            control: try reader.optionalText("control"), conversionWindowDays: window, offerings: offerings, maxBadLineRatio: maxBad,
            maxUnconvertibleMoneyShare: maxUnconvertible, onCorruptFile: policy,
            outputPath: outputPath, databasePath: databasePath, rejectsPerReason: Int(rejects),
            lockTimeoutSeconds: lockTimeout, threads: threads, cachePath: cachePath, revenueCap: revenueCap, maturityDays: maturityDays,
            slices: slices, maxSliceLevels: Int(maxSliceLevels))
        job.maxVolumeDrop = maxVolumeDrop
        job.allowEmptyNight = try reader.flag("allow_empty_night")
        job.allowStaleLogs = try reader.flag("allow_stale_logs")
        job.allowEmptyOfferings = try reader.flag("allow_empty_offerings")
        job.maxDaysAfterLastEvent = maxDaysAfterLastEvent
        job.allowFutureAsOf = try reader.flag("allow_future_as_of")
        job.storeSources = storeSources
        job.storeSettings = storeSettings
        job.historyPatterns = historyPatterns
        job.historyFiles = historyFiles
        job.historyGlobsWithoutFiles = historyGlobsWithoutFiles
        job.proceeds = try reader.proceeds(folder: folder)
        job.decisionSettings = try reader.decisionSettings(maturityDays: maturityDays, hasRevenueCap: revenueCap != nil)
        job.srmConcentration = try reader.number("srm_concentration", default: SequentialSampleRatio.defaultConcentration)
        guard job.srmConcentration > 0, job.srmConcentration.isFinite else {
            throw reader.fail("srm_concentration", "\(job.srmConcentration) must be a positive number, like 100")
        }
        let alertExitCode = try reader.number("alert_exit_code", default: 0)
        // 64–78 and 1 are the run's failures (sysexits and a crash); 114 and up are the shell's.
        guard alertExitCode == alertExitCode.rounded(), alertExitCode >= 0, alertExitCode <= 113,
            alertExitCode == 0 || !(1 == alertExitCode || (64...78).contains(alertExitCode))
        else {
            throw reader.fail(
                "alert_exit_code", "\(alertExitCode) must be 0 or a whole number from 2 to 63 or 79 to 113 (1 and 64–78 are failures)")
        }
        job.alertExitCode = Int32(alertExitCode)
        if let inflater = overrides.inflater { job.inflater = inflater }
        if overrides.ignoresCache { job.cachePath = nil }
        return job
    }

    /// A YAML error on one line: where, what, and what the parser was reading. (Yams's own
    /// description puts the problem after the position and a line break, with a snippet.)
    static func yamlProblem(_ error: Error) -> String {
        let (context, problem, mark): (YamlError.Context?, String, Mark)
        switch error as? YamlError {
        case .scanner(let c, let p, let m, _), .parser(let c, let p, let m, _), .composer(let c, let p, let m, _):
            (context, problem, mark) = (c, p, m)
        case .duplicatedKeysInMapping(let duplicates, let c):
            return "line \(c.mark.line), column \(c.mark.column): duplicate key(s) \(duplicates.sorted().joined(separator: ", "))"
        default:
            return String(describing: error).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }
        let reading = context.map { " (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? ""
        return "line \(mark.line), column \(mark.column): \(problem)\(reading)"
    }

    /// `path` made absolute against `folder`; a leading `~` is the home folder, as a shell has it.
    package static func resolve(_ path: String, against folder: String) -> String {
        if path == "~" || path.hasPrefix("~/") {
            return NSString(string: path).expandingTildeInPath
        }
        return path.hasPrefix("/") ? path : URL(fileURLWithPath: folder).appendingPathComponent(path).standardizedFileURL.path
    }
}

/// Typed access to the job file's values, with errors naming the file and key.
struct JobValues {
    let path: String
    let values: [String: Node]

    func fail(_ key: String, _ problem: String) -> OfferLabError {
        OfferLabError.job(path, key: key, problem)
    }

    func missing(_ key: String) -> OfferLabError {
        OfferLabError(.badJob, "job file \(path): the key '\(key)' is missing", location: .init(path: path, jobKey: key))
    }

    func optionalText(_ key: String) throws -> String? {
        guard let node = values[key], node.null == nil else { return nil }
        guard let text = node.scalar?.string else { throw fail(key, "expected a single value") }
        return text
    }

    func requiredText(_ key: String) throws -> String {
        guard let text = try optionalText(key), !text.isEmpty else {
            throw missing(key)
        }
        return text
    }

    /// One text or a list of texts.
    func textList(_ key: String) throws -> [String] {
        guard let node = values[key] else { throw missing(key) }
        if let text = node.scalar?.string { return [text] }
        guard let sequence = node.sequence else { throw fail(key, "expected a text or a list of texts") }
        return try sequence.map { item in
            guard let text = item.scalar?.string, !text.isEmpty else { throw fail(key, "every item must be a text") }
            return text
        }
    }

    /// `logs` (or `history_logs`, of the same forms): one glob or a list, each item a glob (the
    /// purchase-log format, docs/input-formats.md#purchase-logs) or `{path: glob, format: name}`
    /// (docs/input-formats.md#store-sources-in-a-job); nil when the key is absent.
    func logItems(_ key: String) throws -> [(glob: String, format: SourceFormat)]? {
        guard let node = values[key] else { return nil }
        if let text = node.scalar?.string { return [(text, .offerlab)] }
        guard let sequence = node.sequence else { throw fail(key, "expected a glob or a list of globs") }
        let form = "every item must be a glob, or {path: glob, format: name}"
        return try sequence.map { item in
            if let text = item.scalar?.string, !text.isEmpty { return (text, .offerlab) }
            guard let mapping = item.mapping else { throw fail(key, form) }
            var glob: String?
            var format = SourceFormat.offerlab
            for (keyNode, valueNode) in mapping {
                let text = valueNode.scalar?.string ?? ""
                switch keyNode.string {
                case "path" where !text.isEmpty: glob = text
                case "format":
                    guard let named = SourceFormat(rawValue: text) else {
                        let known = SourceFormat.allCases.map(\.rawValue).joined(separator: ", ")
                        throw fail(key, "unknown format '\(text)' (known: \(known))")
                    }
                    format = named
                default: throw fail(key, form)
                }
            }
            guard let glob else { throw fail(key, form) }
            return (glob, format)
        }
    }

    func optionalNumber(_ key: String) throws -> Double? {
        guard let text = try optionalText(key) else { return nil }
        guard let number = Double(text), number.isFinite else { throw fail(key, "'\(text)' is not a number") }
        return number
    }

    func number(_ key: String, default defaultValue: Double) throws -> Double {
        try optionalNumber(key) ?? defaultValue
    }

    /// `true` or `false`; false when absent.
    func flag(_ key: String) throws -> Bool {
        guard let text = try optionalText(key) else { return false }
        switch text {
        case "true": return true
        case "false": return false
        default: throw fail(key, "'\(text)' must be true or false")
        }
    }

    /// `revenue_cap: {percentile: p}` (0 < p < 1) or `{value: C}` (C > 0), or nil when absent.
    func revenueCap() throws -> RevenueCapRule? {
        guard let node = values["revenue_cap"], node.null == nil else { return nil }
        let form = "expected {percentile: 0.99} or {value: 500}"
        guard let mapping = node.mapping else { throw fail("revenue_cap", form) }
        var given: [String: Double] = [:]
        for (keyNode, valueNode) in mapping {
            guard let key = keyNode.string, key == "percentile" || key == "value" else {
                throw fail("revenue_cap", "unknown key '\(keyNode.string ?? "")': \(form)")
            }
            guard let text = valueNode.scalar?.string, let number = Double(text), number.isFinite else {
                throw fail("revenue_cap", "\(key) '\(valueNode.scalar?.string ?? "")' is not a number")
            }
            given[key] = number
        }
        switch (given["percentile"], given["value"]) {
        case (let p?, nil):
            guard p > 0 && p < 1 else { throw fail("revenue_cap", "percentile \(p) must be between 0 and 1 (exclusive), e.g. 0.99") }
            return .percentile(p)
        case (nil, let amount?):
            guard amount > 0 else { throw fail("revenue_cap", "value \(amount) must be a positive amount of the report currency") }
            return .value(amount)
        case (.some, .some): throw fail("revenue_cap", "give percentile or value, not both")
        case (nil, nil): throw fail("revenue_cap", form)
        }
    }

    /// `maturity_days: [7, 14, 30]`: positive whole days up to 100 years, each once; ascending.
    func maturityDays() throws -> [Int] {
        guard let node = values["maturity_days"], node.null == nil else { return [] }
        guard let sequence = node.sequence else { throw fail("maturity_days", "expected a list of whole days, like [7, 14, 30]") }
        var days: [Int] = []
        for item in sequence {
            let text = item.scalar?.string ?? ""
            guard let day = Int(text), day > 0 else { throw fail("maturity_days", "'\(text)' is not a positive whole number of days") }
            // Days as microseconds added to assignment times must not overflow.
            guard day <= 36_500 else { throw fail("maturity_days", "\(day) days is more than 100 years") }
            guard !days.contains(day) else { throw fail("maturity_days", "\(day) is given twice") }
            days.append(day)
        }
        return days.sorted()
    }

    /// `slices: [country, platform]`: log fields results can be sliced by, each once, in order.
    func slices() throws -> [SliceField] {
        guard values["slices"] != nil else { return [] }
        var fields: [SliceField] = []
        for name in try textList("slices") {
            guard let field = SliceField(rawValue: name) else {
                let known = SliceField.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail("slices", "'\(name)' is not a log field results can be sliced by (known: \(known))")
            }
            guard !fields.contains(field) else { throw fail("slices", "'\(name)' is named twice") }
            fields.append(field)
        }
        return fields
    }

    /// `tax_rates` or `tax_rates_file`, `default_store`, `app_store_small_business`, `commission`.
    func proceeds(folder: String) throws -> ProceedsSettings {
        var settings = ProceedsSettings()
        if values["tax_rates"] != nil && values["tax_rates_file"] != nil {
            throw fail("tax_rates_file", "give tax_rates or tax_rates_file, not both")
        }
        if let node = values["tax_rates"], node.null == nil {
            guard let mapping = node.mapping else { throw fail("tax_rates", "expected a mapping like {DE: 0.19, FR: 0.2}") }
            for (countryNode, rateNode) in mapping {
                let country = countryNode.string ?? ""
                if let problem = ProceedsSettings.countryProblem(country) { throw fail("tax_rates", problem) }
                let text = rateNode.scalar?.string ?? ""
                guard let rate = Double(text) else { throw fail("tax_rates", "the rate of \(country) '\(text)' is not a number") }
                if let problem = ProceedsSettings.rateProblem(rate) {
                    throw fail("tax_rates", "the rate of \(country) (\(text)) \(problem)")
                }
                settings.taxRates[country] = rate
            }
        } else if let file = try optionalText("tax_rates_file") {
            settings.taxRates = try TaxRatesFile.read(path: JobLoader.resolve(file, against: folder))
        }
        if let store = try optionalText("default_store") {
            guard !store.isEmpty else { throw fail("default_store", "name a store: app_store, play_store or one of commission:") }
            settings.defaultStore = store.lowercased()
        }
        settings.appStoreSmallBusiness = try flag("app_store_small_business")
        if let node = values["commission"], node.null == nil {
            guard let mapping = node.mapping else { throw fail("commission", "expected a mapping like {amazon: 0.2}") }
            for (storeNode, rateNode) in mapping {
                let store = (storeNode.string ?? "").lowercased()
                guard !store.isEmpty else { throw fail("commission", "a store is not text") }
                guard store != ProceedsSettings.appStore && store != ProceedsSettings.playStore else {
                    throw fail(
                        "commission",
                        "\(store)'s commission is the store's own (app_store 30 %, 15 % with app_store_small_business: true or after a year; play_store 15 %)"
                    )
                }
                let text = rateNode.scalar?.string ?? ""
                guard let rate = Double(text) else { throw fail("commission", "the commission of \(store) '\(text)' is not a number") }
                if let problem = ProceedsSettings.rateProblem(rate) {
                    throw fail("commission", "the commission of \(store) (\(text)) \(problem)")
                }
                settings.commissions[store] = rate
            }
        }
        return settings
    }

    func positiveRate(_ text: String?, currency: String, source: String) throws -> Double {
        guard let text, let rate = Double(text), rate.isFinite, rate > 0 else {
            throw fail(source, "the rate of \(currency) must be a positive number")
        }
        return rate
    }
}

/// Job files compared as files, not as typed paths.
public enum JobIdentity {
    /// The absolute, symlink-resolved, standardized form of `path`.
    public static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Whether `stored` (a `runs.job` value) names the job file whose identity is `identity`.
    /// Earlier versions stored the path as typed: a relative one matches when its components
    /// are the identity's last ones (`jobs/nightly.yaml` matches `/srv/app/jobs/nightly.yaml`).
    public static func matches(stored: String, identity: String) -> Bool {
        if stored.hasPrefix("/") { return resolved(stored) == identity }
        let storedParts = URL(fileURLWithPath: "/" + stored).standardizedFileURL.pathComponents.dropFirst()
        let identityParts = URL(fileURLWithPath: identity).pathComponents.dropFirst()
        return !storedParts.isEmpty && identityParts.count >= storedParts.count
            && Array(identityParts.suffix(storedParts.count)) == Array(storedParts)
    }
}
