/// The job's outputs section: where the night is written and kept, and how it is signalled.
public struct JobOutputs: Sendable {
    /// Results go to `outputPath/<night.date>/`.
    public var outputPath: String
    public var databasePath: String
    /// The parsed-log cache's folder (`ParsedLogCache`); nil: every log file is parsed.
    public var cachePath: String?
    /// How many rejected lines of each reason the rejects file keeps.
    public var rejectsPerReason = 20
    /// The exit code of a successful night with an alert (docs/reliability.md, "Alerts"); 0: none.
    public var alertExitCode: Int32 = 0

    static let keys = [
        JobKey(name: "output", defaultValue: "required", help: "results go to <output>/<YYYY-MM-DD of as_of>/"),
        JobKey(name: "database", defaultValue: "required", help: "the SQLite file that keeps every night"),
        JobKey(name: "cache", defaultValue: "none: every file is parsed", help: "folder of parsed log files kept for the next runs"),
        JobKey(name: "rejects_per_reason", defaultValue: "20", help: "malformed lines kept per reason"),
        JobKey(
            name: "alert_exit_code", defaultValue: "0",
            help: "N: a successful night with an alert exits N"),
    ]
}

extension JobOutputs {
    /// `output` and `database` from the command line when it gives them (`overrides`).
    init(_ reader: JobValues, overrides: JobOverrides) throws {
        outputPath = try overrides.output ?? reader.resolve(reader.requiredText("output"))
        databasePath = try overrides.database ?? reader.resolve(reader.requiredText("database"))
        cachePath = try reader.optionalText("cache").map(reader.resolve)
        let rejects = try reader.number("rejects_per_reason", default: Double(rejectsPerReason))
        guard rejects >= 0, rejects == rejects.rounded() else {
            throw reader.fail(saying: "rejects_per_reason must be a whole number", key: "rejects_per_reason")
        }
        rejectsPerReason = Int(rejects)
        let alertExitCode = try reader.number("alert_exit_code", default: 0)
        // 64–78 and 1 are the run's failures (sysexits and a crash); 114 and up are the shell's.
        guard alertExitCode == alertExitCode.rounded(), alertExitCode >= 0, alertExitCode <= 113,
            alertExitCode == 0 || !(1 == alertExitCode || (64...78).contains(alertExitCode))
        else {
            throw reader.fail(
                "alert_exit_code", "\(alertExitCode) must be 0 or a whole number from 2 to 63 or 79 to 113 (1 and 64–78 are failures)")
        }
        self.alertExitCode = Int32(alertExitCode)
    }
}
