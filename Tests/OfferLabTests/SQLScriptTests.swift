import Foundation
import OfferLabGenerate
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab

/// What `offerlab sql` writes, checked without an engine (scripts/test-sql.sh runs the scripts
/// on DuckDB and Spark and compares their numbers with `run`'s).
@Suite struct SQLScriptTests {
    /// A job over a folder of CSV tables and one JSON log; `tables` and `log` name the files.
    func job(
        in folder: TemporaryFolder, assignments: String = "user_offering_assignments.csv", log: String = "logs/a.jsonl", extra: String = ""
    ) throws
        -> String
    {
        try folder.write("tables/subscription_offerings.csv", "id,offering_id,name,is_active\n1,o'; DROP TABLE x; --,Name,1\n")
        try folder.write(
            "tables/subscription_offering_groups.csv", "id,subscription_offering_id,group_name,weight\n10,1,control,2\n11,1,it's,1\n")
        try folder.write(
            "tables/" + assignments, "user_id,subscription_offering_id,offering_group_id,assigned_at\nu1,1,10,2026-03-01 00:00:00\n")
        try folder.write(log, #"{"ts":"2026-03-02T00:00:00Z","user_id":"u1","event":"paywall_view"}"# + "\n")
        return try folder.write(
            "job.yaml",
            "tables: tables/\nlogs: [\"logs/*\"]\nas_of: 2026-03-15\nreport_currency: USD\noutput: out/\ndatabase: out/r.sqlite\n" + extra)
    }

    func script(_ jobPath: String, _ dialect: SQLDialect, _ part: SQLPart = .aggregates) throws -> String {
        try SQLScript.generate(job: JobLoader.load(path: jobPath), dialect: dialect, part: part)
    }

    @Test(arguments: SQLDialect.allCases)
    func everyStatementEndsWithASemicolonAtTheEndOfALineAndThePartsShareAllButTheLast(dialect: SQLDialect) throws {
        let folder = try TemporaryFolder()
        let jobPath = try job(in: folder)
        let parts = try SQLPart.allCases.map { try script(jobPath, dialect, $0) }
        for text in parts {
            #expect(text.hasSuffix(";\n"))
            // Outside literals no line holds a `;` but at its end: split on those, the statements are whole.
            let statements = text.components(separatedBy: ";\n").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            #expect(statements.last?.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("SELECT") == true)
        }
        let setups = parts.map { $0.components(separatedBy: ";\n").dropLast(2) }
        #expect(setups[0] == setups[1] && setups[1] == setups[2])
        #expect(parts[0] != parts[1] && parts[1] != parts[2])
    }

    /// Names from the tables become quoted literals, never SQL (contract §4).
    @Test func catalogTextIsQuoted() throws {
        let folder = try TemporaryFolder()
        let text = try script(job(in: folder), .duckdb)
        #expect(text.contains("'o''; DROP TABLE x; --'"))
        #expect(text.contains("'it''s'"))
        let spark = try script(job(in: folder), .spark)
        #expect(spark.contains(#"'o\'; DROP TABLE x; --'"#))
    }

    @Test func aSQLiteTablesFileIsAClearError() throws {
        let folder = try TemporaryFolder()
        try TablesFixture().write(to: folder.file("tables.sqlite"))
        try folder.write("logs/a.jsonl", "\n")
        let jobPath = try folder.write(
            "job.yaml", "tables: tables.sqlite\nlogs: [\"logs/*\"]\nreport_currency: USD\noutput: out/\ndatabase: out/r.sqlite\n")
        let error = try #require(throws: OfferLabError.self) { try script(jobPath, .duckdb) }
        #expect(error.message.contains("is a SQLite file"))
        #expect(error.exitCode == 78)
    }

    /// Spark inflates by name, `run` by content: a gzipped file without `.gz` is refused,
    /// naming it; DuckDB is told to inflate it.
    @Test func aGzippedFileWithoutGzSuffix() throws {
        let folder = try TemporaryFolder()
        let jobPath = try job(in: folder)
        let log = folder.file("logs/a.jsonl")
        let writer = try GzipWriter(path: log)
        try writer.write(#"{"ts":"2026-03-02T00:00:00Z","user_id":"u1","event":"paywall_view"}"# + "\n")
        try writer.finish()
        let error = try #require(throws: OfferLabError.self) { try script(jobPath, .spark) }
        #expect(error.message.contains(log) && error.message.contains("gzipped without a .gz suffix"))
        #expect(error.exitCode == 65)
        #expect(
            try script(jobPath, .duckdb).contains(
                "read_csv(\(SQLDialect.duckdb.text(log)), columns = {'line': 'VARCHAR'}, header = false, auto_detect = false, delim = '\u{1}\u{2}\u{3}\u{4}', quote = '', escape = '', new_line = '\\n', compression = 'gzip'"
            ))
    }

    @Test func thePlainFileNamedGzIsRefusedBySpark() throws {
        let folder = try TemporaryFolder()
        let jobPath = try job(in: folder, log: "logs/a.jsonl.gz")
        let error = try #require(throws: OfferLabError.self) { try script(jobPath, .spark) }
        #expect(error.message.contains("not gzipped but has a .gz suffix"))
    }

    @Test func aPathSparkWouldReadAsAGlobIsRefused() throws {
        let folder = try TemporaryFolder()
        let jobPath = try job(in: folder, log: "logs/a[1].jsonl")
        let error = try #require(throws: OfferLabError.self) { try script(jobPath, .spark) }
        #expect(error.message.contains("a[1].jsonl: Spark reads a path as a glob, and this one has '[' in it"))
        #expect(try script(jobPath, .duckdb).contains("a[1].jsonl"))
    }

    /// The job is validated as `run` validates it: the same message.
    @Test func anUnknownOfferingIsRunsError() async throws {
        let folder = try TemporaryFolder()
        let jobPath = try job(in: folder, extra: "offerings: [nope]\n")
        let error = try #require(throws: OfferLabError.self) { try script(jobPath, .duckdb) }
        let run = try runOfferLab(["run", jobPath])
        #expect(run.standardError.contains(error.message))
        #expect(error.message.contains("'nope' is not in subscription_offerings"))
    }

    /// The job's settings become literals: as_of in microseconds, the window in microseconds,
    /// the limit on malformed lines.
    @Test func settingsBecomeLiterals() throws {
        let folder = try TemporaryFolder()
        let text = try script(job(in: folder, extra: "conversion_window_days: 2.5\nmax_bad_line_ratio: 0.125\n"), .duckdb)
        #expect(text.contains("ts < 1773532800000000"))
        #expect(text.contains("m.assigned_at + 216000000000"))
        #expect(text.contains("CAST('0.125' AS DOUBLE)"))
    }
}
