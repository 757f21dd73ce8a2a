import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `SQLITE_TRANSIENT`: SQLite copies bound text. The C macro does not import into Swift.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A failed SQLite call, with the statement and SQLite's own message.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public var resultCode: Int32
    public var message: String
    public var sql: String?
    public var path: String

    /// Whether SQLite found no database in the file (a CSV file given where one was meant).
    public var isNotADatabase: Bool { resultCode == SQLITE_NOTADB }

    public var description: String {
        var text = "\(path): SQLite error \(resultCode): \(message)"
        if let sql { text += " (in: \(sql.prefix(120)))" }
        return text
    }
}

/// A value read from or bound to SQLite.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// One SQLite connection. All statements bind parameters; nothing from the data is spliced
/// into SQL text.
public final class SQLiteDatabase {
    public let path: String
    private var handle: OpaquePointer?

    /// Opens (and with `create`, creates) the database at `path`.
    /// `busyTimeoutMilliseconds`: how long a statement waits for another writer's lock.
    /// `immutable` (read-only) promises SQLite that nothing changes the file while it is open:
    /// it then takes no lock and creates no `-wal` or `-shm` file.
    public init(
        path: String, readOnly: Bool = false, immutable: Bool = false, create: Bool = false, busyTimeoutMilliseconds: Int32 = 10_000
    ) throws {
        self.path = path
        var flags = readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly && !immutable { flags |= SQLITE_OPEN_CREATE }
        var name = path
        if immutable {
            // A URI: the characters that end or escape a URI path are percent-encoded, and an
            // absolute path gets an empty authority (`//`) so that its own `//` is not one.
            var escaped = path.hasPrefix("/") ? "//" : ""
            for character in path {
                switch character {
                case "%": escaped += "%25"
                case "?": escaped += "%3f"
                case "#": escaped += "%23"
                default: escaped.append(character)
                }
            }
            name = "file:\(escaped)?immutable=1"
            flags |= SQLITE_OPEN_URI
        }
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(name, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map(Self.message) ?? "cannot open"
            sqlite3_close(handle)
            throw SQLiteError(resultCode: status, message: message, sql: nil, path: path)
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one or more statements that take no parameters (schema, pragmas).
    public func execute(_ sql: String) throws {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        if status != SQLITE_OK { throw error(status, sql: sql) }
    }

    /// Runs `sql` once with `parameters` bound in order.
    public func run(_ sql: String, _ parameters: [SQLiteValue] = []) throws {
        let statement = try prepare(sql)
        try statement.run(parameters)
    }

    /// Compiles `sql` for repeated use.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw error(status, sql: sql)
        }
        return SQLiteStatement(database: self, statement: statement, sql: sql)
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`): committed when it returns, rolled
    /// back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The names of the tables in the database.
    public func tableNames() throws -> Set<String> {
        var names = Set<String>()
        try prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").forEachRow { row in
            if case .text(let name) = row.value(at: 0) { names.insert(name) }
        }
        return names
    }

    fileprivate func error(_ status: Int32, sql: String?) -> SQLiteError {
        SQLiteError(resultCode: status, message: handle.map(Self.message) ?? "closed", sql: sql, path: path)
    }

    /// SQLite's message for the last failure, with what the system said for an I/O error ("No
    /// space left on device", "File too large", "Is a directory").
    private static func message(_ handle: OpaquePointer) -> String {
        let message = String(cString: sqlite3_errmsg(handle))
        let systemError = sqlite3_system_errno(handle)
        return systemError == 0 ? message : "\(message) (\(String(cString: strerror(systemError))))"
    }
}

/// A compiled statement. Used by one thread at a time.
public final class SQLiteStatement {
    private let database: SQLiteDatabase
    private let statement: OpaquePointer
    public let sql: String

    fileprivate init(database: SQLiteDatabase, statement: OpaquePointer, sql: String) {
        self.database = database
        self.statement = statement
        self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    /// The column names of the result.
    public var columnNames: [String] {
        (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
    }

    /// Binds `parameters` and steps to completion, discarding any rows.
    public func run(_ parameters: [SQLiteValue] = []) throws {
        try bind(parameters)
        while try step() {}
    }

    /// Binds `parameters` and calls `body` for every result row.
    public func forEachRow(_ parameters: [SQLiteValue] = [], _ body: (SQLiteRow) throws -> Void) throws {
        try bind(parameters)
        let row = SQLiteRow(statement: statement)
        while try step() { try body(row) }
    }

    private func bind(_ parameters: [SQLiteValue]) throws {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (offset, value) in parameters.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32 =
                switch value {
                case .null: sqlite3_bind_null(statement, index)
                case .integer(let integer): sqlite3_bind_int64(statement, index, integer)
                case .real(let real): sqlite3_bind_double(statement, index, real)
                // The length in bytes, not -1: text may hold NUL characters (a TSV `\0`).
                case .text(let text): sqlite3_bind_text(statement, index, text, Int32(text.utf8.count), sqliteTransient)
                }
            guard status == SQLITE_OK else { throw database.error(status, sql: sql) }
        }
    }

    private func step() throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status: throw database.error(status, sql: sql)
        }
    }
}

/// The current row of a statement; valid only inside `forEachRow`.
public struct SQLiteRow {
    fileprivate let statement: OpaquePointer

    public var count: Int { Int(sqlite3_column_count(statement)) }

    public func value(at index: Int) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        default:
            guard let text = sqlite3_column_text(statement, column) else { return .null }
            let count = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self))
        }
    }
}
