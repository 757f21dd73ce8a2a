import Foundation
import OfferLabIngest

/// A validated job: every path resolved and checked, every value parsed, in the sections of the
/// job file (README, "The job file"): each section read and checked by its own reader, what
/// spans sections checked by `JobLoader.load`.
public struct Job: Sendable {
    /// The job file, as given (for messages).
    public var jobPath: String
    public var inputs: JobInputs
    public var history: JobHistory
    public var analysis: JobAnalysis
    public var estimators: JobEstimators
    public var decision: DecisionSettings
    public var outputs: JobOutputs
    public var run: JobRun

    /// The job file's absolute, symlink-resolved path: what identifies the job in the database,
    /// however it was typed (`job.yaml`, `/abs/job.yaml`, a link to it).
    public var identity: String { JobIdentity.resolved(jobPath) }

    /// The sections' names and keys, in the order the README's table and `offerlab run --help`
    /// list them.
    static let sections: [(name: String, keys: [JobKey])] = [
        ("inputs", JobInputs.keys), ("history", JobHistory.keys), ("analysis", JobAnalysis.keys),
        ("estimators", JobEstimators.keys), ("decision", DecisionSettings.keys), ("outputs", JobOutputs.keys), ("run", JobRun.keys),
    ]
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
    /// Loads `path`, with the command line's `overrides` in it: the one place a `Job` is made.
    /// `now` gives the default `as_of` (today 00:00 UTC). Each section reads its own keys; this
    /// orders them and checks what spans them.
    /// - Throws: `OfferLabError` (`.badJob`, `.missingInput` or `.badArgument`) with one line naming the problem.
    public static func load(
        path: String, overriding overrides: JobOverrides = JobOverrides(), now: Date = Date()
    ) throws -> Job {
        let reader = try JobValues(readingFileAt: path)
        let inputs = try JobInputs(reader, filesMayBeMissing: overrides.inputsReadElsewhere)
        let history = try JobHistory(reader, readAsLogs: inputs.allFiles, filesMayBeMissing: overrides.inputsReadElsewhere)
        let run = try JobRun(reader, overrides: overrides, now: now)
        let analysis = try JobAnalysis(reader)
        let estimators = try JobEstimators(reader)
        let decision = try DecisionSettings(reader, maturityDays: analysis.maturityDays, hasRevenueCap: analysis.revenueCap != nil)
        var outputs = try JobOutputs(reader, overrides: overrides)
        try checkNothingWrittenIsRead(
            outputs, files: inputs.allFiles + history.files, globs: inputs.allPatterns + history.patterns, night: run.night, reader)
        // The folder is checked all the same: the next run with the cache uses it.
        if overrides.ignoresCache { outputs.cachePath = nil }
        return Job(
            jobPath: path, inputs: inputs, history: history, analysis: analysis, estimators: estimators, decision: decision,
            outputs: outputs, run: run)
    }

    /// The cache's entries, the night's outputs and the database must be where no log glob
    /// reaches: the next run would read them as logs (night 2 would read night 1's report). A bad
    /// job from the first night, when the folders may not even exist yet.
    private static func checkNothingWrittenIsRead(
        _ outputs: JobOutputs, files: [String], globs: [String], night: Night, _ reader: JobValues
    ) throws {
        if let cachePath = outputs.cachePath, let entry = files.first(where: { $0.hasPrefix(cachePath + "/") }) {
            throw reader.fail(
                "cache", "\(cachePath) holds \(entry), which logs: matches; give the cache a folder the log globs do not reach")
        }
        let written = ["summary.csv", "report.html", "rejects.csv"].map { "\(outputs.outputPath)/\(night.date)/\($0)" }
        for (key, paths) in [("output", written), ("database", [outputs.databasePath, outputs.databasePath + "-wal"])] {
            let folder = key == "output" ? outputs.outputPath + "/" : nil
            if let entry = files.first(where: { file in paths.contains(file) || folder.map { file.hasPrefix($0) } == true }) {
                throw reader.fail(
                    key, "\(entry) is written by the run and matched by logs:; give \(key) a place the log globs do not reach")
            }
            if let pattern = globs.first(where: { pattern in paths.contains { FileGlob.wouldMatch(pattern, $0) } }) {
                throw reader.fail(
                    key,
                    "the log glob \(pattern) would match what the run writes there (\(paths[0])); give \(key) a place the log globs do not reach"
                )
            }
        }
        guard let cachePath = outputs.cachePath else { return }
        let entry = cachePath + "/" + CacheEntryName.example
        if let pattern = globs.first(where: { FileGlob.wouldMatch($0, entry) }) {
            throw reader.fail(
                "cache",
                "the log glob \(pattern) would match the entries the cache keeps in \(cachePath) (\(entry)); give the cache a folder the log globs do not reach"
            )
        }
    }

    /// `path` made absolute against `folder`; a leading `~` is the home folder, as a shell has it.
    package static func resolve(_ path: String, against folder: String) -> String {
        if path == "~" || path.hasPrefix("~/") {
            return NSString(string: path).expandingTildeInPath
        }
        return path.hasPrefix("/") ? path : URL(fileURLWithPath: folder).appendingPathComponent(path).standardizedFileURL.path
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
