import Foundation

/// Facts about one run, stored in the `runs` table.
public struct RunRecord: Sendable {
    public var job: String
    /// The full `as_of` timestamp (ISO 8601, UTC).
    public var asOf: String
    /// `YYYY-MM-DD` of `as_of`: the key of the night's rows.
    public var night: String
    public var startedAt: String
    public var finishedAt: String
    public var status: String
    public var toolVersion: String
    public var inputFiles: [(path: String, bytes: Int64)]
}

/// The SQLite database that keeps every night's results.
///
/// Every table is keyed by (`as_of`, `offering_id`, …) where `as_of` is the night
/// (`YYYY-MM-DD`). A run writes in one transaction: it deletes the rows of its night for the
/// offerings it analysed (and the night's global rows, `offering_id = ''`), then inserts its
/// own, so re-running a night replaces that night only.
enum ResultsDatabase {
    static func write(path: String, tables: [ResultTable], offeringIDs: [String], run: RunRecord) throws {
        try Folders.create((path as NSString).deletingLastPathComponent, context: "database")
        do {
            let database = try SQLiteDatabase(path: path, create: true)
            try database.execute("PRAGMA journal_mode = WAL")
            try database.transaction {
                try createSchema(database, tables: tables)
                let runID = try insertRun(database, run)
                let scope = offeringIDs + [""]
                let placeholders = Array(repeating: "?", count: scope.count).joined(separator: ", ")
                for table in tables {
                    try database.run(
                        "DELETE FROM \(table.name) WHERE as_of = ? AND offering_id IN (\(placeholders))",
                        [.text(run.night)] + scope.map { .text($0) })
                    let columns = ["as_of"] + table.columnNames.map(quote) + ["run_id"]
                    let insert = try database.prepare(
                        "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))")
                    for row in table.rows {
                        try insert.run([.text(run.night)] + row.map(sqliteValue) + [.integer(runID)])
                    }
                }
                TestPause.at(.inTransaction)
            }
        } catch let error as SQLiteError {
            throw OfferLabError(.output, "database: \(error)")
        }
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
        for table in tables {
            let columns = table.columns.map { "\(quote($0.name)) \($0.type.sqlType)" }
            let key = ["as_of"] + table.keys.map(quote)
            try database.execute(
                "CREATE TABLE IF NOT EXISTS \(table.name) (as_of TEXT NOT NULL, \(columns.joined(separator: ", ")), run_id INTEGER NOT NULL, PRIMARY KEY (\(key.joined(separator: ", "))))")
        }
    }

    private static func insertRun(_ database: SQLiteDatabase, _ run: RunRecord) throws -> Int64 {
        try database.run(
            "INSERT INTO runs (job, as_of, night, started_at, finished_at, status, tool_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.text(run.job), .text(run.asOf), .text(run.night), .text(run.startedAt), .text(run.finishedAt), .text(run.status), .text(run.toolVersion)])
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
