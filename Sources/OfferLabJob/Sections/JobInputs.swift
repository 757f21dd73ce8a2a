import Foundation
import OfferLabStoreSources

/// What to do with a log file whose gzip stream is corrupt or truncated.
public enum CorruptFilePolicy: String, Sendable {
    /// Fail the run, naming the file.
    case fail
    /// Skip the whole file and report it in `quality.csv`.
    case skip
}

/// The job's inputs section: where the night's data is read from (`tables`, `logs`, the stores'
/// maps), and how much bad input a night takes.
public struct JobInputs: Sendable {
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
    /// Every store's map (`app_store`, `revenuecat`, …): how its sources are read.
    public var storeSettings = StoreSettings()
    public var maxBadLineRatio = 0.01
    public var onCorruptFile = CorruptFilePolicy.fail

    static let keys: [JobKey] =
        [
            JobKey(name: "tables", defaultValue: "required", help: "folder of <table>.csv[.gz]/.tsv[.gz], or .sqlite/.db"),
            JobKey(name: "logs", defaultValue: "required", help: "one glob or a list; each must match a file"),
        ]
        // Each store's map, as its settings describe it.
        + StoreSettings.types.map { JobKey(name: $0.jobKey, defaultValue: $0.absentValue, help: $0.help) } + [
            JobKey(name: "max_bad_line_ratio", defaultValue: "0.01", help: "fail above this malformed share"),
            JobKey(name: "on_corrupt_file", defaultValue: "`fail`", help: "fail or skip a corrupt gzip file"),
        ]

    /// Whether the signatures of the job's store sources are checked: nil when none has
    /// signatures (`StoreSourceSettings.signaturesVerified`).
    package var signaturesVerified: Bool? { storeSettings.signaturesVerified(reading: storeSources.map(\.format)) }

    /// Every file the night reads as logs, whatever its format.
    var allFiles: [String] { logFiles + storeSources.flatMap(\.files) }
    var allPatterns: [String] { logPatterns + storeSources.flatMap(\.patterns) }
}

extension JobInputs {
    /// - Parameter filesMayBeMissing: a glob that matches no file here is no error
    ///   (`JobOverrides.inputsReadElsewhere`).
    init(_ reader: JobValues, filesMayBeMissing: Bool) throws {
        tablesPath = reader.resolve(try reader.requiredText("tables"))
        guard FileManager.default.fileExists(atPath: tablesPath) else {
            throw reader.fail("tables", "\(tablesPath) does not exist", code: .missingInput)
        }
        guard let logItems = try reader.logItems("logs") else { throw reader.missing("logs") }
        let items = logItems.map { (pattern: reader.resolveGlob($0.glob), format: $0.format) }
        guard !items.isEmpty else { throw reader.fail("logs", "name at least one glob") }
        var patternsByFormat: [SourceFormat: [String]] = [:]
        var filesByFormat: [SourceFormat: Set<String>] = [:]
        for item in items {
            let matches = try FileGlob.matches(item.pattern)
            guard !matches.isEmpty || filesMayBeMissing else {
                throw reader.fail("logs", "the glob \(item.pattern) matches no file", code: .missingInput)
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
        logPatterns = patternsByFormat[.offerlab] ?? []
        logFiles = sortedFiles(.offerlab)
        storeSources = SourceFormat.allCases.filter { $0 != .offerlab && filesByFormat[$0] != nil }.map { format in
            StoreSourceFiles(format: format, patterns: patternsByFormat[format] ?? [], files: sortedFiles(format))
        }
        storeSettings = try reader.storeSettings(reading: storeSources.map(\.format))
        maxBadLineRatio = try reader.number("max_bad_line_ratio", default: maxBadLineRatio)
        guard maxBadLineRatio >= 0 && maxBadLineRatio <= 1 else {
            throw reader.fail("max_bad_line_ratio", "\(maxBadLineRatio) must be between 0 and 1")
        }
        let policy = try reader.optionalText("on_corrupt_file") ?? onCorruptFile.rawValue
        guard let onCorruptFile = CorruptFilePolicy(rawValue: policy) else {
            throw reader.fail("on_corrupt_file", "'\(policy)' must be fail or skip")
        }
        self.onCorruptFile = onCorruptFile
    }
}
