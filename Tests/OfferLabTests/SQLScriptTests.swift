import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabSupport
@testable import OfferLabWarehouse

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

    /// Every part the engines compute.
    static let enginesParts = SQLPart.allCases

    @Test(arguments: SQLDialect.allCases)
    func everyStatementEndsWithASemicolonAtTheEndOfALineAndThePartsShareAllButTheLast(dialect: SQLDialect) throws {
        let folder = try TemporaryFolder()
        let jobPath = try job(in: folder, extra: "revenue_cap: {percentile: 0.9}\nmaturity_days: [7]\nslices: [country, platform]\n")
        let parts = try SQLScriptTests.enginesParts.filter { $0 != .past && $0 != .backtest }.map { try script(jobPath, dialect, $0) }
        for text in parts {
            #expect(text.hasSuffix(";\n"))
            // Outside literals no line holds a `;` but at its end: split on those, the statements are whole.
            let statements = text.components(separatedBy: ";\n").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            #expect(statements.last?.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("SELECT") == true)
        }
        // §3.2's parts share every statement but the last; a night part adds its own before its
        // result, after those (a session that ran one part runs each statement once).
        let setups = parts.map { Array($0.components(separatedBy: ";\n").dropLast(2)) }
        let shared = zip(SQLScriptTests.enginesParts.filter { $0 != .past && $0 != .backtest }, setups).filter { $0.0.nightPart == nil }
            .map(\.1)
        #expect(Set(shared).count == 1)
        for setup in setups { #expect(Array(setup.prefix(shared[0].count)) == shared[0]) }
        #expect(Set(parts).count == parts.count)
    }

    /// Names from the tables become quoted literals, never SQL (docs/reliability.md).
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
        #expect(error.code == .badJob && error.location.jobKey == "tables", "\(error)")
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
        #expect(error.code == .engineCannotRead && error.location == .init(path: log), "\(error)")
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
        #expect(error.code == .engineCannotRead && error.location == .init(path: folder.file("logs/a.jsonl.gz")), "\(error)")
    }

    @Test func aPathSparkWouldReadAsAGlobIsRefused() throws {
        let folder = try TemporaryFolder()
        let jobPath = try job(in: folder, log: "logs/a[1].jsonl")
        let error = try #require(throws: OfferLabError.self) { try script(jobPath, .spark) }
        #expect(error.code == .engineCannotRead && error.location == .init(path: folder.file("logs/a[1].jsonl")), "\(error)")
        #expect(try script(jobPath, .duckdb).contains("a[1].jsonl"))
    }

    /// The job is validated as `run` validates it: the same message.
    @Test func anUnknownOfferingIsRunsError() async throws {
        let folder = try TemporaryFolder()
        let jobPath = try job(in: folder, extra: "offerings: [nope]\n")
        let error = try #require(throws: OfferLabError.self) { try script(jobPath, .duckdb) }
        let run = try runOfferLab(["run", jobPath])
        #expect(run.standardError.contains(error.message))
        #expect(error.code == .badJob && error.location == .init(path: jobPath, jobKey: "offerings"), "\(error)")
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

    /// The slices part needs slices in the job: one line saying so, as a bad job (78).
    @Test func theSlicesPartOfAJobWithoutSlicesIsRefused() throws {
        let folder = try TemporaryFolder()
        let jobPath = try job(in: folder)
        let error = try #require(throws: OfferLabError.self) { try script(jobPath, .duckdb, .slices) }
        #expect(error.code == .badArgument && error.location == .init(path: jobPath), "\(error)")
        #expect(error.exitCode == 78)
        let command = try runOfferLab(["sql", jobPath, "--dialect", "spark", "--part", "slices"])
        #expect(command.status == 78 && command.standardError.split(separator: "\n").count == 1, "\(command.standardError)")
    }

    /// A job without capped, matured or sliced metrics gets the script it got before they were
    /// added: no slice field is read and no working table is added.
    @Test(arguments: SQLDialect.allCases)
    func theNewMetricsCostNothingWhenTheJobDoesNotAskForThem(dialect: SQLDialect) throws {
        let folder = try TemporaryFolder()
        let text = try script(job(in: folder), dialect)
        for name in ["country", "platform", "revenue_caps", "maturities", "matured_values", "slice_members", "slice_levels"] {
            #expect(!text.contains(name), "\(name)")
        }
        // The aggregates have one shape whatever the job: the capped and matured columns are there, empty.
        #expect(text.contains("'' AS metric") && text.contains("CAST(NULL AS DOUBLE) AS revenue_cap"))
    }

    /// docs/analysis.md §8's settings become literals: the VAT rates (and the events' country is read for
    /// them, slicing or not), the commissions, the default store, the Small Business Program.
    @Test func proceedsSettingsBecomeLiterals() throws {
        let folder = try TemporaryFolder()
        let extra = "tax_rates: {DE: 0.19}\ncommission: {amazon: 0.2}\ndefault_store: play_store\napp_store_small_business: true\n"
        let text = try script(job(in: folder, extra: extra), .duckdb)
        #expect(text.contains("SELECT * FROM (VALUES ('DE', CAST('0.19' AS DOUBLE))) AS r(vat_area, rate)"))
        #expect(text.contains("SELECT * FROM (VALUES ('amazon', CAST('0.2' AS DOUBLE))) AS c(store, commission)"))
        #expect(
            text.contains("json_extract_string(doc, '$.country') AS v_country") && text.contains("coalesce(lower(e.store), 'play_store')"))
        #expect(text.contains("CASE WHEN TRUE THEN CAST('0.15' AS DOUBLE)"))
        let plain = try script(job(in: folder), .duckdb)
        #expect(plain.contains("e.ts - s.first_charge >= 31536000000000") && plain.contains("coalesce(lower(e.store), 'app_store')"))
    }

    /// The cap, the maturities and the slice limit become literals: the percentile, D in
    /// microseconds and its metric name, the number of levels kept.
    @Test func cappedMaturedAndSliceSettingsBecomeLiterals() throws {
        let folder = try TemporaryFolder()
        let extra = "revenue_cap: {percentile: 0.95}\nmaturity_days: [14, 7]\nslices: [platform]\nmax_slice_levels: 4\n"
        let text = try script(job(in: folder, extra: extra), .duckdb)
        #expect(text.contains("CAST('0.95' AS DOUBLE) * CAST(count(*) OVER (PARTITION BY offering_key) - 1 AS DOUBLE) AS h"))
        #expect(text.contains("(7, 604800000000, 'd7', 2), (14, 1209600000000, 'd14', 3)"))
        #expect(text.contains("WHEN level_rank <= 4 THEN level_rank ELSE 5 END"))
        #expect(text.contains("json_extract_string(doc, '$.platform') AS v_platform") && !text.contains("country"))
        let value = try script(job(in: folder, extra: "revenue_cap: {value: 12.5}\n"), .spark)
        #expect(value.contains("SELECT offering_key, CAST('12.5' AS DOUBLE) AS cap FROM analysed_offerings"))
    }

    /// With max_unconvertible_money_share, the check every part reads fails on an offering over
    /// it; without, the check is the malformed lines' alone.
    @Test(arguments: SQLDialect.allCases)
    func moneyWithoutARateOverTheLimitFailsEveryPart(dialect: SQLDialect) throws {
        let folder = try TemporaryFolder()
        let limited = try script(job(in: folder, extra: "max_unconvertible_money_share: 0.25\n"), dialect, .quality)
        #expect(limited.contains("CAST(left_out AS DOUBLE) / CAST(money_events AS DOUBLE) > CAST('0.25' AS DOUBLE)"))
        #expect(limited.contains("over max_unconvertible_money_share 0.25"))
        #expect(limited.contains("coalesce(CASE WHEN lines > 0"))
        let unlimited = try script(job(in: folder), dialect, .quality)
        #expect(!unlimited.contains("max_unconvertible_money_share") && !unlimited.contains("money_events"))
    }
}
