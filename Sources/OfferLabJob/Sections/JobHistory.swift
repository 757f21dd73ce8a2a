/// The job's history section: the app's past (`history_logs`, docs/statistics.md#the-apps-past).
public struct JobHistory: Sendable {
    /// The `history_logs` globs, resolved as `JobInputs.logPatterns`; empty without the key (no past).
    public var patterns: [String] = []
    /// Every file its globs match that `logs` does not, sorted as `JobInputs.logFiles`.
    public var files: [String] = []
    /// The globs that match no file (a warning of the run).
    public var globsWithoutFiles: [String] = []

    static let keys = [JobKey(name: "history_logs", defaultValue: "no past", help: "earlier logs: how each product renewed before")]
}

extension JobHistory {
    /// A glob that matches nothing is a warning of the run, never a failed night; a file the
    /// night reads as logs (`readAsLogs`) is read once, as logs. `filesMayBeMissing`: no warning
    /// for a glob that matches nothing here (`JobOverrides.inputsReadElsewhere`).
    init(_ reader: JobValues, readAsLogs: [String], filesMayBeMissing: Bool) throws {
        var matched: Set<String> = []
        for item in try reader.logItems("history_logs") ?? [] {
            guard item.format == .offerlab else {
                throw reader.fail(
                    "history_logs", "\(item.format.rawValue): the past is read in the purchase-log format (offerlab) only, so far")
            }
            let pattern = reader.resolveGlob(item.glob)
            let matches = try FileGlob.matches(pattern)
            if matches.isEmpty && !filesMayBeMissing { globsWithoutFiles.append(pattern) }
            patterns.append(pattern)
            matched.formUnion(matches)
        }
        files = matched.subtracting(readAsLogs).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
