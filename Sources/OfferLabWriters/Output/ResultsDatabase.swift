import Foundation
import OfferLabIngest
import OfferLabJob
import OfferLabStatistics
import OfferLabSupport
import OfferLabVocabulary

/// Facts about one run, stored in the `runs` table.
package struct RunRecord: Sendable {
    /// The job file's identity (`Job.identity`).
    package var job: String
    /// The output folder, absolute: two jobs writing one folder would replace each other's files
    /// (empty in a run read back for a report, which does not show it).
    package var output: String
    /// `as_of`: stored in full (`isoText`) and as the key of the night's rows (`date`).
    package var night: Night
    package var startedAt: String
    package var finishedAt: String
    package var status: String
    package var toolVersion: String
    package var inputFiles: [(path: String, bytes: Int64)]
    /// Whether the App Store notifications' signatures were verified: false when the job said
    /// `app_store.verify: false`; nil without an `app_store_notifications` source.
    package var signaturesVerified: Bool?
    /// The job's `history_logs` globs that matched no file: the night was judged without the
    /// app's past they were to give, which the report and `status` say (`missingPast`).
    package var historyGlobsWithoutFiles: [String] = []

    /// A run's record; `signaturesVerified` is set afterwards for a job with App Store notifications.
    package init(
        job: String, output: String = "", night: Night, startedAt: String, finishedAt: String, status: String,
        toolVersion: String, inputFiles: [(path: String, bytes: Int64)]
    ) {
        self.job = job
        self.output = output
        self.night = night
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.status = status
        self.toolVersion = toolVersion
        self.inputFiles = inputFiles
    }
}

extension RunRecord {
    /// The line a night whose `history_logs` globs matched no file gets on stderr, in the report
    /// and from `status`: the decisions change without the past (a test's days left, its year),
    /// and nothing else would show it. Nil when every glob matched a file.
    package var missingPast: String? { Self.missingPast(historyGlobsWithoutFiles) }

    /// `missingPast` of a run whose `history_logs` globs `globs` matched no file.
    package static func missingPast(_ globs: [String]) -> String? {
        guard !globs.isEmpty else { return nil }
        return "the app's past is missing: history_logs \(globs.map { "'\($0)'" }.joined(separator: ", ")) matched no file; "
            + "the year's projection and the days left are made without it"
    }
}

/// The SQLite database that keeps every night's results.
///
/// Every table is keyed by (`as_of`, `offering_id`, …) where `as_of` is the night
/// (`YYYY-MM-DD`), or, for a run-wide table without `offering_id` (`sources`, `backtest`), by the night
/// alone. A run writes in one transaction: it deletes the rows of its night for the offerings it
/// analysed (and the night's global rows, `offering_id = ''`, and those of the run-wide tables),
/// then inserts its own, so re-running a night replaces that night only.
package enum ResultsDatabase {
    /// Writes the night's rows in one transaction. `beforeCommit` runs last inside it: when it
    /// throws, nothing is committed.
    package static func write(
        path: String, tables: [ResultTable], offeringIDs: [String], run: RunRecord, beforeCommit: () throws -> Void = {}
    ) throws {
        try Folders.create((path as NSString).deletingLastPathComponent, context: "database")
        do {
            let database = try SQLiteDatabase(path: path, create: true)
            try database.execute("PRAGMA journal_mode = WAL")
            try database.transaction {
                try createSchema(database, tables: tables)
                let runID = try insertRun(database, run)
                let scope = offeringIDs + [""]
                // Every row's key, formatted once rather than per row.
                let night = SQLiteValue.text(run.night.date)
                let placeholders = Array(repeating: "?", count: scope.count).joined(separator: ", ")
                for table in tables {
                    if table.columns.contains(where: { $0.name == "offering_id" }) {
                        try database.run(
                            "DELETE FROM \(table.name) WHERE as_of = ? AND offering_id IN (\(placeholders))",
                            [night] + scope.map { .text($0) })
                    } else {
                        try database.run("DELETE FROM \(table.name) WHERE as_of = ?", [night])
                    }
                    let columns = ["as_of"] + table.columnNames.map(quote) + ["run_id"]
                    let insert = try database.prepare(
                        "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
                    )
                    let types = table.columns.map(\.type)
                    for row in table.rows {
                        try insert.run([night] + zip(row, types).map { sqliteValue($1.written($0)) } + [.integer(runID)])
                    }
                }
                TestPause.at(.inTransaction)
                try beforeCommit()
            }
        } catch let error as SQLiteError {
            throw failure(error, path: path, code: .cannotWrite)
        }
    }

    /// A SQLite error on the database at `path` as one line: a file that is no database (a CSV
    /// file given to --db) is named as such, without the statement that met it.
    private static func failure(_ error: SQLiteError, path: String, code: OfferLabError.Code) -> OfferLabError {
        let message =
            error.isNotADatabase
            ? "\(path) is not an offerlab results database (SQLite: \(error.message))" : "database: \(error)"
        return OfferLabError(code, message, location: .init(path: path), cause: error)
    }

    /// The nights with a successful run, ascending; none for a database without runs.
    /// - Throws: `OfferLabError`: `.noNights` when the file is missing, `.badResultsDatabase`
    ///   when it cannot be read.
    static func successfulNights(path: String) throws -> [String] {
        try reading(path) { database in
            guard try database.tableNames().contains("runs") else { return [] }
            var nights: [String] = []
            try database.prepare("SELECT DISTINCT night FROM runs WHERE status = 'succeeded' ORDER BY night").forEachRow { row in
                if case .text(let night) = row.value(at: 0) { nights.append(night) }
            }
            return nights
        }
    }

    /// The latest successful night: the one `status` and `report` read without `--as-of`.
    /// - Throws: `OfferLabError`: `.noNights` when the database is missing or holds no
    ///   successful night, `.badResultsDatabase` when it cannot be read.
    package static func latestNight(path: String) throws -> Night {
        guard let latest = try successfulNights(path: path).last, let night = Night(parsing: latest) else {
            throw noSuccessfulNight(path)
        }
        return night
    }

    /// What `status` and `report` say of a database without a successful night.
    static func noSuccessfulNight(_ path: String) -> OfferLabError {
        OfferLabError(.noNights, "\(path) holds no successful night yet: run the job first", location: .init(path: path))
    }

    /// `body`'s value, reading the database at `path` while no run writes it.
    ///
    /// No run writes while the lock is held shared, so a database without a `-wal` file (every
    /// run's own leaves none) is read as immutable: read-only, and leaving no `-wal` or `-shm`
    /// file beside it. A `-wal` file left by a killed run is read through.
    /// - Throws: `OfferLabError`: `.noNights` when the file is missing, `.badResultsDatabase`
    ///   when SQLite cannot read it, and whatever `body` throws.
    private static func reading<Value>(_ path: String, _ body: (SQLiteDatabase) throws -> Value) throws -> Value {
        guard FileManager.default.fileExists(atPath: path) else {
            throw OfferLabError(.noNights, ResultsDatabase.missingMessage(path), location: .init(path: path))
        }
        do {
            let lock = try RunLock.shared(path: path + ".lock", timeoutSeconds: readerLockTimeoutSeconds)
            defer { withExtendedLifetime(lock) {} }
            return try body(
                try SQLiteDatabase(path: path, readOnly: true, immutable: !FileManager.default.fileExists(atPath: path + "-wal")))
        } catch let error as SQLiteError {
            throw failure(error, path: path, code: .badResultsDatabase)
        }
    }

    /// What `status` and `report` say of a database that is not there: the same words and exit
    /// code (66) from both, since a path cron has not written yet is the usual cause.
    static func missingMessage(_ path: String) -> String {
        "\(path) holds no night yet (the file does not exist): run the job first, or give --db the job's database: file"
    }

    /// How long a reader waits for a run writing the database (the default `lock_timeout_seconds`).
    static let readerLockTimeoutSeconds = 60.0

    /// The latest successful run of `night` and the rows it wrote to each of `tables` (a table
    /// the database lacks is left out), in the order they were written. Column types come from
    /// the schema, so a `bool` column reads back as `integer`.
    /// - Throws: `OfferLabError`: `.noNights` when the file is missing, `.nightNotFound` when it
    ///   holds no successful run of `night` (naming the nights it does hold).
    static func readNight(path: String, night: String, tables: [String]) throws -> (run: RunRecord, tables: [ResultTable]) {
        try reading(path) { database in
            let existing = try database.tableNames()
            guard existing.contains("runs"), existing.contains("run_inputs") else {
                throw OfferLabError(
                    .badResultsDatabase, "\(path) is not an offerlab results database (it has no runs table)", location: .init(path: path))
            }
            var latest: (id: Int64, run: RunRecord)?
            // A database written before the column was added lacks it: its runs read no App Store source.
            let runColumns = try columnNames(database, table: "runs")
            let signatures = runColumns.contains("signatures_verified") ? "signatures_verified" : "NULL"
            // Nor did it say which `history_logs` globs matched no file.
            let missingPast = runColumns.contains("history_globs_without_files") ? "history_globs_without_files" : "NULL"
            try database.prepare(
                """
                SELECT run_id, job, as_of, started_at, finished_at, status, tool_version, \(signatures), \(missingPast) FROM runs
                WHERE night = ? AND status = 'succeeded' ORDER BY run_id DESC LIMIT 1
                """
            ).forEachRow([.text(night)]) { row in
                guard case .integer(let id) = row.value(at: 0) else { return }
                let text = (1..<7).map { column -> String in
                    if case .text(let value) = row.value(at: column) { value } else { "" }
                }
                // Every run writes `as_of` as `Night.isoText`, which parses back to the same night.
                guard let asOf = Night(parsing: text[1]) else { return }
                var run = RunRecord(
                    job: text[0], night: asOf, startedAt: text[2], finishedAt: text[3], status: text[4], toolVersion: text[5],
                    inputFiles: [])
                if case .integer(let verified) = row.value(at: 7) { run.signaturesVerified = verified != 0 }
                if case .text(let globs) = row.value(at: 8) { run.historyGlobsWithoutFiles = globs.split(separator: "\n").map(String.init) }
                latest = (id, run)
            }
            guard let latest else {
                var nights: [String] = []
                try database.prepare("SELECT DISTINCT night FROM runs WHERE status = 'succeeded' ORDER BY night").forEachRow { row in
                    if case .text(let night) = row.value(at: 0) { nights.append(night) }
                }
                let held = nights.isEmpty ? "none" : nights.suffix(10).joined(separator: ", ")
                throw OfferLabError(
                    .nightNotFound, "\(path) holds no successful run for \(night) (nights held: \(held))", location: .init(path: path))
            }
            let runID = latest.id
            var run = latest.run
            try database.prepare("SELECT path, bytes FROM run_inputs WHERE run_id = ? ORDER BY rowid").forEachRow([.integer(runID)]) {
                row in
                if case .text(let path) = row.value(at: 0), case .integer(let bytes) = row.value(at: 1) {
                    run.inputFiles.append((path, bytes))
                }
            }
            let stored = try tables.filter(existing.contains).map { name in
                try readRows(database, table: name, night: night, runID: runID)
            }
            return (run, stored)
        }
    }

    /// The rows of `table` written by run `runID` for `night`, without the `as_of` and `run_id` columns.
    private static func readRows(_ database: SQLiteDatabase, table name: String, night: String, runID: Int64) throws -> ResultTable {
        var columns: [ResultColumn] = []
        try database.prepare("SELECT name, type FROM pragma_table_info(?) ORDER BY cid").forEachRow([.text(name)]) { row in
            guard case .text(let column) = row.value(at: 0), column != "as_of", column != "run_id" else { return }
            let type: ResultColumnType =
                switch row.value(at: 1) {
                case .text("INTEGER"): .integer
                case .text("REAL"): .real
                default: .text
                }
            columns.append(ResultColumn(column, type))
        }
        var table = ResultTable(ResultSchema(name: name, columns: columns, keys: []))
        let select = try database.prepare(
            "SELECT \(table.columnNames.map(quote).joined(separator: ", ")) FROM \(quote(name)) WHERE as_of = ? AND run_id = ? ORDER BY rowid"
        )
        try select.forEachRow([.text(night), .integer(runID)]) { row in
            table.rows.append(
                (0..<row.count).map { column in
                    switch row.value(at: column) {
                    case .null: .real(nil)
                    case .integer(let integer): .integer(Int(integer))
                    case .real(let real): .real(real)
                    case .text(let text): .text(text)
                    }
                })
        }
        return table
    }

    private static func createSchema(_ database: SQLiteDatabase, tables: [ResultTable]) throws {
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS runs (
                run_id INTEGER PRIMARY KEY, job TEXT NOT NULL, as_of TEXT NOT NULL, night TEXT NOT NULL,
                started_at TEXT NOT NULL, finished_at TEXT NOT NULL, status TEXT NOT NULL, tool_version TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS run_inputs (
                run_id INTEGER NOT NULL REFERENCES runs(run_id), path TEXT NOT NULL, bytes INTEGER NOT NULL);
            """)
        try addMissingColumns(
            database, table: "runs",
            columns: [
                ResultColumn("signatures_verified", .integer), ResultColumn("output", .text),
                ResultColumn("history_globs_without_files", .text),
            ])
        for table in tables {
            let columns = table.columns.map { "\(quote($0.name)) \($0.type.sqlType)" }
            let key = ["as_of"] + table.schema.keys.map { quote($0.name) }
            try database.execute(
                "CREATE TABLE IF NOT EXISTS \(table.name) (as_of TEXT NOT NULL, \(columns.joined(separator: ", ")), run_id INTEGER NOT NULL, PRIMARY KEY (\(key.joined(separator: ", "))))"
            )
            try addMissingColumns(database, table: table.name, columns: table.columns)
        }
    }

    /// Migrates a table written by an earlier version in place: a column this version writes and
    /// the table lacks is added (empty for the nights already held), so history is never rebuilt.
    /// Key columns cannot change this way; a new key column is a new table.
    private static func addMissingColumns(_ database: SQLiteDatabase, table: String, columns: [ResultColumn]) throws {
        let existing = try columnNames(database, table: table)
        for column in columns where !existing.contains(column.name) {
            try database.execute("ALTER TABLE \(table) ADD COLUMN \(quote(column.name)) \(column.type.sqlType)")
        }
    }

    /// The columns `table` has.
    private static func columnNames(_ database: SQLiteDatabase, table: String) throws -> Set<String> {
        var names: Set<String> = []
        try database.prepare("SELECT name FROM pragma_table_info(?)").forEachRow([.text(table)]) { row in
            if case .text(let name) = row.value(at: 0) { names.insert(name) }
        }
        return names
    }

    private static func insertRun(_ database: SQLiteDatabase, _ run: RunRecord) throws -> Int64 {
        try database.run(
            """
            INSERT INTO runs (job, output, as_of, night, started_at, finished_at, status, tool_version, signatures_verified,
                history_globs_without_files) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(run.job), .text(run.output), .text(run.night.isoText), .text(run.night.date), .text(run.startedAt),
                .text(run.finishedAt),
                .text(run.status),
                .text(run.toolVersion), sqliteValue(.bool(run.signaturesVerified)),
                // One glob a line (a glob holds no line break); NULL when every glob matched.
                run.historyGlobsWithoutFiles.isEmpty ? .null : .text(run.historyGlobsWithoutFiles.joined(separator: "\n")),
            ])
        var runID: Int64 = 0
        try database.prepare("SELECT last_insert_rowid()").forEachRow { row in
            if case .integer(let id) = row.value(at: 0) { runID = id }
        }
        let insertInput = try database.prepare("INSERT INTO run_inputs (run_id, path, bytes) VALUES (?, ?, ?)")
        for input in run.inputFiles {
            try insertInput.run([.integer(runID), .text(input.path), .integer(input.bytes)])
        }
        return runID
    }

    private static func sqliteValue(_ value: ResultValue) -> SQLiteValue {
        switch value {
        case .text(let text): .text(text)
        case .integer(let integer): .integer(Int64(integer))
        case .real(let real): real.map { .real($0) } ?? .null
        case .bool(let bool): bool.map { .integer($0 ? 1 : 0) } ?? .null
        }
    }

    /// Column names such as `group` are SQL keywords.
    private static func quote(_ name: String) -> String { "\"\(name)\"" }
}

extension ResultsDatabase {
    /// The latest successful night of `output`'s job file before its night (`PreviousNight`), from
    /// its database; nil when there is none (or no database yet). Job files are
    /// compared as files (`JobIdentity`), so a cron line, a person's shell and a link name the
    /// same job.
    ///
    /// A database that cannot be read gives nil: the run's own write then fails on it with
    /// the database's error (exit 73), as it would without these checks.
    package static func previousNight(of output: OutputSettings) -> PreviousNight? {
        let (path, identity) = (output.databasePath, output.jobIdentity)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            // The run holds the job's lock: no other run writes. Read as `readNight` does, so that
            // no `-wal` or `-shm` file is left beside a database that had none.
            let database = try SQLiteDatabase(path: path, readOnly: true, immutable: !FileManager.default.fileExists(atPath: path + "-wal"))
            let tables = try database.tableNames()
            guard tables.contains("runs") else { return nil }
            var previous: PreviousNight?
            var earlierNights: Set<String> = []
            try database.prepare(
                "SELECT job, as_of FROM runs WHERE status = 'succeeded' AND night < ? ORDER BY night DESC, run_id DESC"
            ).forEachRow([.text(output.night.date)]) { row in
                guard case .text(let jobPath) = row.value(at: 0), JobIdentity.matches(stored: jobPath, identity: identity),
                    case .text(let asOf) = row.value(at: 1), let night = Night(parsing: asOf)
                else { return }
                earlierNights.insert(night.date)
                if previous == nil { previous = PreviousNight(night: night, linesRead: nil, users: [:]) }
            }
            guard var found = previous else { return nil }
            // Tables of an earlier offerlab may lack these columns: then they tell nothing.
            if tables.contains("decisions") {
                try? database.prepare("SELECT offering_id, \"group\", status FROM decisions WHERE as_of = ?").forEachRow([
                    .text(found.night.date)
                ]) {
                    row in
                    if case .text(let offering) = row.value(at: 0), case .text(let group) = row.value(at: 1),
                        case .text(let name) = row.value(at: 2), let status = DecisionStatus(rawValue: name)
                    {
                        found.statuses[PreviousNight.key(offering, group)] = status
                    }
                }
            }
            if tables.contains("srm") {
                try? database.prepare("SELECT offering_id, seq_srm_flag FROM srm WHERE as_of = ?").forEachRow([.text(found.night.date)]) {
                    row in
                    if case .text(let offering) = row.value(at: 0), case .integer(let flag) = row.value(at: 1) {
                        found.sequentialSampleRatioFlags[offering] = flag != 0
                    }
                }
                let nights = earlierNights.sorted()
                try? database.prepare(
                    "SELECT offering_id, min(seq_srm_p_value) FROM srm WHERE as_of IN (\(nights.map { _ in "?" }.joined(separator: ", "))) "
                        + "AND seq_srm_p_value IS NOT NULL GROUP BY offering_id"
                ).forEachRow(nights.map { .text($0) }) { row in
                    if case .text(let offering) = row.value(at: 0), case .real(let p) = row.value(at: 1) {
                        found.sequentialSampleRatioMinimum[offering] = p
                    }
                }
            }
            if tables.contains("decisions") {
                let nights = earlierNights.sorted()
                // A floor is no plan (`days_left_floor`; absent in a database of an earlier offerlab).
                let floors =
                    try columnNames(database, table: "decisions").contains("days_left_floor") ? "AND NOT coalesce(days_left_floor, 0) " : ""
                try? database.prepare(
                    "SELECT offering_id, \"group\", as_of, days_left FROM decisions WHERE status = '\(DecisionStatus.keepRunning.rawValue)' AND days_left IS NOT NULL "
                        + floors + "AND as_of IN (\(nights.map { _ in "?" }.joined(separator: ", "))) ORDER BY as_of"
                ).forEachRow(nights.map { .text($0) }) { row in
                    guard case .text(let offering) = row.value(at: 0), case .text(let group) = row.value(at: 1),
                        case .text(let asOf) = row.value(at: 2), let night = Night(parsing: asOf),
                        case .integer(let days) = row.value(at: 3)
                    else { return }
                    let key = PreviousNight.key(offering, group)
                    found.plannedDecisions[key] = PlannedDecision(
                        nights: (found.plannedDecisions[key]?.nights ?? 0) + 1, decidedAt: night.microseconds + days * Microseconds.perDay)
                }
            }
            // The night's rows as they stand (a re-run of that night replaced its own).
            if tables.contains("quality") {
                try database.prepare("SELECT count FROM quality WHERE as_of = ? AND offering_id = '' AND counter = 'lines_read'")
                    .forEachRow([.text(found.night.date)]) { row in
                        if case .integer(let lines) = row.value(at: 0) { found.linesRead = Int(lines) }
                    }
            }
            if tables.contains("summary") {
                try database.prepare("SELECT offering_id, sum(users) FROM summary WHERE as_of = ? GROUP BY offering_id")
                    .forEachRow([.text(found.night.date)]) { row in
                        if case .text(let offering) = row.value(at: 0), case .integer(let users) = row.value(at: 1) {
                            found.users[offering] = Int(users)
                        }
                    }
            }
            return found
        } catch {
            return nil
        }
    }
}

/// What the checks of a broken night compare tonight with: the latest successful night of the
/// same job file before tonight's, from the results database.
package struct PreviousNight: Equatable {
    package var night: Night
    /// Its `lines_read`; nil when the database has none for it.
    package var linesRead: Int?
    /// Each of its offerings' users.
    package var users: [String: Int]
    /// Each (offering, treatment)'s decision status that night, by `key`.
    package var statuses: [String: DecisionStatus] = [:]
    /// Each offering's `seq_srm_flag` that night.
    package var sequentialSampleRatioFlags: [String: Bool] = [:]
    /// Each offering's least `seq_srm_p_value` over every earlier successful night of the job.
    package var sequentialSampleRatioMinimum: [String: Double] = [:]
    /// Per (offering, treatment), by `key`: the earlier successful nights of the job that kept it
    /// running with days left, and the decision date the latest of them planned.
    package var plannedDecisions: [String: PlannedDecision] = [:]

    /// The key of `statuses`.
    package static func key(_ offering: String, _ group: String) -> String { offering + "\u{1F}" + group }

    package init(night: Night, linesRead: Int?, users: [String: Int]) {
        self.night = night
        self.linesRead = linesRead
        self.users = users
    }
}

extension ResultsDatabase {
    /// Whether `output`'s database holds a successful night of its job file after `output`'s
    /// night: tonight is then a back-fill, whose changes are old news (it alerts nothing).
    package static func hasLaterNight(of output: OutputSettings) -> Bool {
        let (path, identity) = (output.databasePath, output.jobIdentity)
        guard FileManager.default.fileExists(atPath: path) else { return false }
        var later = false
        do {
            let database = try SQLiteDatabase(path: path, readOnly: true, immutable: !FileManager.default.fileExists(atPath: path + "-wal"))
            guard try database.tableNames().contains("runs") else { return false }
            try database.prepare("SELECT job FROM runs WHERE status = 'succeeded' AND night > ?").forEachRow([.text(output.night.date)]) {
                row in
                if case .text(let job) = row.value(at: 0), JobIdentity.matches(stored: job, identity: identity) { later = true }
            }
        } catch {
            return false
        }
        return later
    }

    /// Another job file whose successful runs in `output`'s database wrote the same output
    /// folder as `output`'s job (its identity), or nil. Runs stored before the output was recorded are
    /// not compared.
    package static func otherJob(sharingOutputOf settings: OutputSettings) -> String? {
        let (path, identity) = (settings.databasePath, settings.jobIdentity)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let output = JobIdentity.resolved(settings.outputPath)
        var other: String?
        do {
            let database = try SQLiteDatabase(path: path, readOnly: true, immutable: !FileManager.default.fileExists(atPath: path + "-wal"))
            var columns: Set<String> = []
            try database.prepare("SELECT name FROM pragma_table_info('runs')").forEachRow { row in
                if case .text(let name) = row.value(at: 0) { columns.insert(name) }
            }
            guard columns.contains("output") else { return nil }
            try database.prepare("SELECT DISTINCT job, output FROM runs WHERE status = 'succeeded' AND output IS NOT NULL").forEachRow {
                row in
                guard other == nil, case .text(let storedJob) = row.value(at: 0), case .text(let storedOutput) = row.value(at: 1),
                    JobIdentity.resolved(storedOutput) == output, !JobIdentity.matches(stored: storedJob, identity: identity)
                else { return }
                other = storedJob
            }
        } catch {
            return nil
        }
        return other
    }
}
