import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabSupport

/// A night on disk for tests that run the binary: the tables of a `TablesFixture` in
/// `tables.sqlite`, log files under `logs/`, and `job.yaml`, whose paths are all relative to
/// it. Outputs go to `out/<night>/`, the database is `out/results.sqlite`.
final class NightFixture {
    let folder: TemporaryFolder
    var jobPath: String { folder.file("job.yaml") }
    var outputPath: String { folder.file("out") }
    var databasePath: String { folder.file("out/results.sqlite") }

    /// The job's keys, in order; `job:` in `init` replaces or adds keys.
    private(set) var jobKeys: [(key: String, value: String)] = [
        ("tables", "tables.sqlite"), ("logs", "[\"logs/*\"]"), ("as_of", "2026-03-16T00:00:00Z"), ("report_currency", "USD"),
        ("rates", "{EUR: 2}"), ("output", "out/"), ("database", "out/results.sqlite"), ("lock_timeout_seconds", "1"),
    ]

    /// `u1`, `u2` in `test`/control, `u3`, `u4` in `test`/variant, `o1`, `o2` in `other`/a and b,
    /// all assigned on 2026-03-01.
    static let standardTables = TablesFixture(assignments: [
        ("u1", "1", "10", "2026-03-01 00:00:00"), ("u2", "1", "10", "2026-03-01 00:00:00"),
        ("u3", "1", "11", "2026-03-01 00:00:00"), ("u4", "1", "11", "2026-03-01 00:00:00"),
        ("o1", "2", "20", "2026-03-01 00:00:00"), ("o2", "2", "21", "2026-03-01 00:00:00"),
    ])

    /// A few events of the standard users before 2026-03-16 (one in EUR).
    static let standardEvents = [
        event("paywall_view", user: "u1", ts: "2026-03-02T10:00:00Z"),
        event("purchase", user: "u1", ts: "2026-03-02T10:01:00Z", product: "weekly", transaction: "t1", price: "7.99"),
        event("purchase", user: "u3", ts: "2026-03-03T10:00:00Z", product: "monthly", transaction: "t2", price: "19.99", currency: "EUR"),
        event("paywall_view", user: "u4", ts: "2026-03-03T11:00:00Z"),
        event("purchase", user: "o1", ts: "2026-03-04T10:00:00Z", product: "weekly", transaction: "t3", price: "7.99"),
    ]

    /// Writes the tables, `logs/a.jsonl.gz` with `events` and the job file.
    init(tables: TablesFixture = NightFixture.standardTables, events: [String] = NightFixture.standardEvents, job: [String: String] = [:])
        throws
    {
        folder = try TemporaryFolder()
        try tables.write(to: folder.file("tables.sqlite"))
        try writeLog("a.jsonl.gz", events)
        try writeJob(job)
    }

    /// Replaces or adds job keys and rewrites the job file.
    func writeJob(_ changes: [String: String]) throws {
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let index = jobKeys.firstIndex(where: { $0.key == key }) {
                jobKeys[index].value = value
            } else {
                jobKeys.append((key, value))
            }
        }
        try folder.write("job.yaml", jobKeys.map { "\($0.key): \($0.value)" }.joined(separator: "\n") + "\n")
    }

    /// Writes `logs/<name>` with `lines` (gzipped when the name ends in `.gz`); returns its path.
    @discardableResult
    func writeLog(_ name: String, _ lines: [String]) throws -> String {
        let text = lines.map { $0 + "\n" }.joined()
        guard name.hasSuffix(".gz") else { return try folder.write("logs/\(name)", text) }
        let path = folder.file("logs/\(name)")
        try FileManager.default.createDirectory(atPath: folder.file("logs"), withIntermediateDirectories: true)
        let writer = try GzipWriter(path: path)
        try writer.write(text)
        try writer.finish()
        return path
    }

    /// Runs the job (quietly) with the extra `arguments`.
    func run(_ arguments: [String] = [], environment: [String: String] = [:], fileSizeLimitKiB: Int? = nil) throws -> ProcessResult {
        try runOfferLab(["run", jobPath, "--quiet"] + arguments, environment: environment, fileSizeLimitKiB: fileSizeLimitKiB)
    }

    /// Starts the job and waits until it stops itself at `stage` (`OFFERLAB_TEST_PAUSE_AT`).
    func start(pausingAt stage: String, _ arguments: [String] = []) throws -> OfferLabProcess {
        let process = try OfferLabProcess(["run", jobPath, "--quiet"] + arguments, environment: ["OFFERLAB_TEST_PAUSE_AT": stage])
        try process.waitForPause(at: stage)
        return process
    }

    /// The rows of `out/<night>/<name>.csv`, header first.
    func csv(_ name: String, night: String = "2026-03-16") throws -> [[String]] {
        parseCSV(try String(contentsOfFile: folder.file("out/\(night)/\(name).csv"), encoding: .utf8))
    }

    /// The `count` of a `quality.csv` counter (global when `offering` is empty).
    func quality(_ counter: String, offering: String = "", night: String = "2026-03-16") throws -> Int? {
        try csv("quality", night: night).first { $0.count == 3 && $0[0] == offering && $0[1] == counter }.flatMap { Int($0[2]) }
    }

    /// Everything a reader of the outputs sees: the files of every night folder (hidden staging
    /// folders left out) and every row of the database.
    func snapshot() throws -> OutputSnapshot {
        var files: [String: Data] = [:]
        let root = URL(fileURLWithPath: outputPath)
        for night in try FileManager.default.contentsOfDirectory(atPath: outputPath) where !night.hasPrefix(".") {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.appendingPathComponent(night).path, isDirectory: &isFolder),
                isFolder.boolValue
            else { continue }
            for name in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(night).path) {
                files["\(night)/\(name)"] = try Data(contentsOf: root.appendingPathComponent(night).appendingPathComponent(name))
            }
        }
        return OutputSnapshot(files: files, database: try databaseRows())
    }

    /// Every row of every table of the database, as text, by table.
    func databaseRows() throws -> [String: [String]] {
        let database = try SQLiteDatabase(path: databasePath, readOnly: true)
        var tables: [String: [String]] = [:]
        for table in try database.tableNames() {
            tables[table] = try Self.rows(database, "SELECT * FROM \(table)")
        }
        return tables
    }

    /// The rows of the result tables (those keyed by offering) that meet `condition`, without
    /// their `run_id`, by table; from the job's database or the one at `path`.
    func resultRows(where condition: String, in path: String? = nil) throws -> [String: [String]] {
        let database = try SQLiteDatabase(path: path ?? databasePath, readOnly: true)
        var tables: [String: [String]] = [:]
        for table in try database.tableNames() {
            let columns = try database.prepare("SELECT * FROM \(table) LIMIT 0").columnNames
            guard columns.contains("offering_id") else { continue }
            let selected = columns.filter { $0 != "run_id" }.map { "\"\($0)\"" }.joined(separator: ", ")
            tables[table] = try Self.rows(database, "SELECT \(selected) FROM \(table) WHERE \(condition)")
        }
        return tables
    }

    private static func rows(_ database: SQLiteDatabase, _ sql: String) throws -> [String] {
        var rows: [String] = []
        try database.prepare(sql).forEachRow { row in
            rows.append((0..<row.count).map { "\(row.value(at: $0))" }.joined(separator: "|"))
        }
        return rows.sorted()
    }

    /// The names in the output folder, hidden ones included (staging folders are hidden).
    func outputEntries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: outputPath).sorted()
    }
}

/// The outputs of a job as a reader sees them (see `NightFixture.snapshot`).
struct OutputSnapshot: Equatable {
    var files: [String: Data]
    var database: [String: [String]]
}

/// One JSON Lines event (`currency` is USD when a price is given without one).
func event(
    _ name: String, user: String, ts: String, product: String? = nil, transaction: String? = nil, price: String? = nil,
    currency: String? = nil
) -> String {
    var fields = ["\"ts\":\"\(ts)\"", "\"user_id\":\"\(user)\"", "\"event\":\"\(name)\""]
    if let product { fields.append("\"product_id\":\"\(product)\"") }
    if let transaction { fields.append("\"transaction_id\":\"\(transaction)\"") }
    if let price { fields += ["\"price\":\(price)", "\"currency\":\"\(currency ?? "USD")\""] }
    return "{" + fields.joined(separator: ",") + "}"
}
