import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabSupport

/// The real binary on real files, against the outputs of the independent Python reference
/// (tools/reference): its hand-made data set (every number worked out by hand there) and the
/// shipped sample data set.
@Suite struct EndToEndTests {
    struct DataSet: Sendable, CustomTestStringConvertible {
        var job: String
        var night: String
        var expected: String
        /// The run's stderr: its warnings (the counts are those of quality.csv and summary.csv);
        /// `OUTPUT` stands for the run's output folder.
        var warnings: [String]
        var testDescription: String { job }
    }

    static let dataSets = [
        DataSet(
            job: "tools/reference/tests/data/main/job.yaml", night: "2026-03-16", expected: "tools/reference/tests/data/main/expected",
            warnings: [
                "2 malformed log lines named a price or a money event: USD 1 (-1 of it as negative prices), and 1 of an amount that cannot be read; left out like every malformed line, the first of each reason are listed in OUTPUT/2026-03-16/rejects.csv",
                "control: offerings without a group named 'baseline' fall back to control, else their lowest group id: spring (control: control)",
                "offering spring: the money of 3 of 9 money events (33.33%) is left out, for want of a rate to USD: JPY 33.33% (3); give their rates (rates: {JPY: …}, or rates_file:)",
                // Its tables list no products: the renewal in its logs has no billing period.
                "offering -winter: renewals of products without a billing period in the catalog (type weekly, monthly, yearly, one_time or …_pass): products no group lists (1 renewal; projected with no further renewal): give them a type",
                "offering spring: renewals of products without a billing period in the catalog (type weekly, monthly, yearly, one_time or …_pass): products no group lists (1 renewal; projected with no further renewal): give them a type",
            ]),
        // The sample job runs clean (issue 41): exit 0 and nothing on stderr.
        DataSet(
            job: "jobs/sample.yaml", night: "2026-03-15", expected: "Tests/OfferLabTests/Fixtures/sample-data-expected", warnings: []),
    ]

    /// The run's stderr for `warnings` written to `output`.
    static func standardError(_ warnings: [String], output: String) -> String {
        warnings.map { "warning: \($0.replacingOccurrences(of: "OUTPUT", with: output))\n" }.joined()
    }

    /// The sample job reads the logs and the Google Play share; its data set's malformed lines that
    /// name money are in showcase/, which only the warnings job lists (docs/generator.md, Malformed
    /// lines).
    @Test func theSampleJobRunsClean() throws {
        let folder = try TemporaryFolder()
        let job = repositoryRoot.appendingPathComponent("jobs/sample.yaml").path
        let result = try runOfferLab(["run", job, "--output", folder.path, "--database", folder.file("results.sqlite")])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput.hasPrefix("wrote \(folder.path)/2026-03-15 "))
        // Both Play feeds are read: the data set's 4,040 notifications (one of another app; plan
        // changes' new tokens among them, docs/generator.md) and 1,558 Orders (their files' non-blank
        // lines).
        let sources = parseCSV(try String(contentsOfFile: folder.file("2026-03-15/sources.csv"), encoding: .utf8))
        let counts = Dictionary(uniqueKeysWithValues: sources.dropFirst().filter { $0.count == 3 }.map { ("\($0[0]) \($0[1])", $0[2]) })
        #expect(counts["google_play lines_read"] == "4040" && counts["google_play malformed_other_app"] == "1")
        #expect(counts["google_play_orders lines_read"] == "1558")
        #expect(sources.filter { $0.first == "google_play_orders" && $0[1] != "lines_read" }.allSatisfy { $0[2] == "0" })
        // spring_2026_price_test's variant_b sells a 3-day pass, monthly and yearly plans against
        // control's weekly and monthly: a period test, decided by its year; variant_a sells
        // control's periods at other prices (docs/statistics.md, "Period tests").
        let decisions = parseCSV(try String(contentsOfFile: folder.file("2026-03-15/decisions.csv"), encoding: .utf8))
        let header = try #require(decisions.first)
        let rows = decisions.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
        let variantB = try #require(rows.first { $0["offering_id"] == "spring_2026_price_test" && $0["group"] == "variant_b" })
        #expect(variantB["goal_metric"] == "projected_arpu_365")
        #expect(variantB["period_test"] == "weekly, monthly against 3-day pass, monthly, yearly")
        let reason = try #require(variantB["reason"])
        #expect(
            reason.contains(
                "Decided on revenue per user in the first year because the groups bill on different periods (weekly, monthly against 3-day pass, monthly, yearly)"
            ))
        #expect(result.standardOutput.contains("spring_2026_price_test variant_b: \(variantB["status"] ?? ""): \(reason)\n"))
        // It ships exactly when its interval lies above 0; without one (its year is not identified
        // tonight) it keeps running and names what is not seen yet.
        let low = variantB["goal_rel_lift_ci_low"].flatMap(Double.init)
        #expect((variantB["status"] == "ship") == (low.map { $0 > 0 } ?? false), "\(variantB)")
        #expect(low != nil || (variantB["status"] == "keep_running" && reason.contains("not been seen yet")), "\(variantB)")
        let others = rows.filter { $0["group"] != "variant_b" }
        #expect(others.count == 3 && others.allSatisfy { $0["goal_metric"] == "arpu" && $0["period_test"] == "" })
    }

    /// jobs/sample-with-warnings.yaml: the sample data with the warnings on purpose (README).
    @Test func theSampleWithWarningsShowsThem() throws {
        let folder = try TemporaryFolder()
        let job = repositoryRoot.appendingPathComponent("jobs/sample-with-warnings.yaml").path
        let result = try runOfferLab(["run", job, "--output", folder.path, "--database", folder.file("results.sqlite")])
        #expect(result.status == 0, "\(result.standardError)")
        let showcase = repositoryRoot.appendingPathComponent("sample-data/showcase").path
        #expect(
            result.standardError
                == Self.standardError(
                    [
                        // showcase/ holds malformed lines only.
                        "6 log files yielded no valid line: \(showcase)/malformed-0.csv.gz (2 lines, all malformed), "
                            + "\(showcase)/malformed-0.jsonl.gz (14 lines, all malformed), \(showcase)/malformed-1.jsonl.gz (2 lines, all malformed), "
                            + "\(showcase)/malformed-2.csv.gz (1 line, all malformed), \(showcase)/malformed-2.jsonl.gz (2 lines, all malformed), "
                            + "\(showcase)/malformed-3.jsonl.gz (3 lines, all malformed)",
                        // The showcase's broken purchases (USD 15.98 = 7.99 twice) and the copies of purchases,
                        // renewals and refunds that name money.
                        "11 malformed log lines named a price or a money event: EUR 21.99, JPY 1500, USD 23.97 (-7.99 of it as negative prices), and 6 of an amount that cannot be read; left out like every malformed line, the first of each reason are listed in OUTPUT/2026-03-15/rejects.csv",
                        "offering onboarding_copy_test: the money of 159 of 2634 money events (6.04%) is left out, for want of a rate to USD: BRL 6.04% (159); give their rates (rates: {BRL: …}, or rates_file:)",
                        "offering spring_2026_price_test: the money of 272 of 4610 money events (5.90%) is left out, for want of a rate to USD: BRL 5.90% (272); give their rates (rates: {BRL: …}, or rates_file:)",
                    ], output: folder.path))
        // maturity_days: 30 is longer than the data: no user has matured.
        let maturity = parseCSV(try String(contentsOfFile: folder.file("2026-03-15/maturity.csv"), encoding: .utf8))
        let thirty = maturity.dropFirst().filter { $0.count > 3 && $0[2] == "30" }
        #expect(thirty.count == 6 && thirty.allSatisfy { $0[3] == "0" })
    }

    /// The sample job's matured windows are ones its data fills: every group has matured users.
    @Test func theSampleJobsMaturedWindowsAreFilled() throws {
        let maturity = parseCSV(
            try String(
                contentsOf: repositoryRoot.appendingPathComponent("Tests/OfferLabTests/Fixtures/sample-data-expected/maturity.csv"),
                encoding: .utf8))
        #expect(maturity.count > 1)
        #expect(maturity.dropFirst().allSatisfy { $0.count > 3 && (Int($0[3]) ?? 0) > 100 })
    }

    /// The sample data shows proceeds and subscription state (docs/generator.md): Google Play users
    /// keep their revenue's proceeds above the App Store's 70 %, part of which their Orders state
    /// exactly, trials still run at `as_of` and others have lapsed, and some payers are still
    /// subscribed.
    @Test func theSampleDataShowsProceedsTrialsAndSubscribers() throws {
        let rows = parseCSV(
            try String(
                contentsOf: repositoryRoot.appendingPathComponent("Tests/OfferLabTests/Fixtures/sample-data-expected/summary.csv"),
                encoding: .utf8))
        let header = try #require(rows.first)
        func column(_ name: String) throws -> Int { try #require(header.firstIndex(of: name)) }
        let (revenue, proceeds, exact) = (try column("net_revenue"), try column("net_proceeds"), try column("exact_proceeds_share"))
        let (pending, lapsed, active) = (try column("trials_pending"), try column("trials_lapsed"), try column("active_subscribers"))
        let groups = rows.dropFirst().filter { $0.count == header.count && (Double($0[revenue]) ?? 0) > 0 }
        #expect(groups.count >= 6)
        for row in groups {
            let share = (Double(row[proceeds]) ?? 0) / (Double(row[revenue]) ?? 1)
            #expect(share > 0.7 && share < 0.85, "\(row[0]) \(row[1]): proceeds \(share) of revenue")
            // The Play Store's users are one in five, and pay 15 % where Apple's pay 30 %.
            let stated = try #require(Double(row[exact]))
            #expect(stated > 0.1 && stated < 0.4, "\(row[0]) \(row[1]): exact_proceeds_share \(stated)")
            #expect((Int(row[lapsed]) ?? 0) > 0 && (Int(row[active]) ?? 0) > 0, "\(row[0]) \(row[1])")
        }
        #expect(groups.contains { (Int($0[pending]) ?? 0) > 0 })
    }

    static let moneyColumns: Set = ["gross_revenue", "refunded_revenue", "net_revenue", "arpu", "arppu"]
    /// Money too, on both sides: the cap is the same interpolation of the same exact per-user values.
    static let cappedColumns: Set = ["revenue_cap", "arpu_capped"]

    @Test(arguments: dataSets)
    func outputsMatchTheReference(dataSet: DataSet) throws {
        let folder = try TemporaryFolder()
        let result = try runOfferLab([
            "run", repositoryRoot.appendingPathComponent(dataSet.job).path, "--output", folder.path, "--database",
            folder.file("results.sqlite"),
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == Self.standardError(dataSet.warnings, output: folder.path))
        // The slice files where the job slices (the sample job does).
        let sliceFiles = ["slice_summary.csv", "slice_comparisons.csv", "slice_srm.csv"].filter { file in
            FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent("\(dataSet.expected)/\(file)").path)
        }
        #expect(dataSet.job != "jobs/sample.yaml" || sliceFiles.count == 3)
        for file in ["summary.csv", "products.csv", "quality.csv", "comparisons.csv", "srm.csv", "maturity.csv"] + sliceFiles {
            // The projection's rows are a model's draws the reference does not make (ProjectionRunTests checks them).
            let actual = withoutProjectedRows(try String(contentsOfFile: folder.file("\(dataSet.night)/\(file)"), encoding: .utf8))
            let expected = try String(contentsOf: repositoryRoot.appendingPathComponent("\(dataSet.expected)/\(file)"), encoding: .utf8)
            // Chance to beat control is exact to 1e-4 (docs/statistics.md#methods); money sums are
            // exact, rounded once, on both sides; the rest to 1e-9.
            let differences = csvDifferences(
                actual: actual, expected: expected, relativeTolerance: file.hasSuffix("comparisons.csv") ? 1e-6 : 1e-9,
                exactColumns: Self.moneyColumns.union(Self.cappedColumns))
            #expect(differences.isEmpty, "\(file):\n\(differences.prefix(20).joined(separator: "\n"))")
        }
    }

    /// The lift-over-time series ends at the night: its last day's rows hold the same text as
    /// `summary.csv` in every column they share, money to the last digit; and an earlier day's
    /// rows are the night a run with `as_of` at that day's end gives.
    @Test func eachDayOfTheSeriesIsTheNightAsOfItsEnd() throws {
        let folder = try TemporaryFolder()
        let job = repositoryRoot.appendingPathComponent("jobs/sample.yaml").path
        let result = try runOfferLab(["run", job, "--output", folder.path, "--database", folder.file("results.sqlite")])
        #expect(result.status == 0, "\(result.standardError)")
        let daily = parseCSV(try String(contentsOfFile: folder.file("2026-03-15/daily.csv"), encoding: .utf8))
        let lastDate = try #require(daily.dropFirst().map { $0[1] }.max())
        try expectDay(lastDate, of: daily, equals: folder.file("2026-03-15"))

        let earlier = try TemporaryFolder()
        let early = try runOfferLab([
            "run", job, "--as-of", "2026-03-10T00:00:00Z", "--output", earlier.path, "--database", earlier.file("results.sqlite"),
        ])
        #expect(early.status == 0, "\(early.standardError)")
        try expectDay("2026-03-09", of: daily, equals: earlier.file("2026-03-10"))
    }

    /// The rows of `date` in `daily` against the night in `nightFolder`: the groups' columns are
    /// `summary.csv`'s, the treatments' `conversion_…`/`arpu_…` columns `comparisons.csv`'s, the
    /// sequential ones included.
    private func expectDay(_ date: String, of daily: [[String]], equals nightFolder: String) throws {
        let summary = parseCSV(try String(contentsOfFile: nightFolder + "/summary.csv", encoding: .utf8))
        let (summaryHeader, dailyHeader) = (summary[0], daily[0])
        let day = daily.dropFirst().filter { $0[1] == date }
        #expect(day.count == summary.count - 1)
        for (dayRow, night) in zip(day, summary.dropFirst()) {
            #expect(dayRow[0] == night[0] && dayRow[2] == night[1])
            for (column, name) in summaryHeader.enumerated() {
                guard let dailyColumn = dailyHeader.firstIndex(of: name) else { continue }
                #expect(dayRow[dailyColumn] == night[column], "\(date) \(night[0]) \(night[1]) \(name)")
            }
        }
        #expect(Set(summaryHeader).intersection(dailyHeader).isSuperset(of: Self.moneyColumns.union(["arpu_sd"])))

        let comparisons = parseCSV(try String(contentsOfFile: nightFolder + "/comparisons.csv", encoding: .utf8))
        // The capped and matured rows have no daily series (docs/analysis.md §4b–§4c).
        let ownComparisons = comparisons.dropFirst().filter { ["conversion", "arpu"].contains($0[3]) }
        var compared = 0
        for row in ownComparisons {
            let dayRow = try #require(day.first { $0[0] == row[0] && $0[2] == row[1] })
            for (column, name) in comparisons[0].enumerated() {
                guard let dailyColumn = dailyHeader.firstIndex(of: "\(row[3])_\(name)") else { continue }
                #expect(dayRow[dailyColumn] == row[column], "\(date) \(row[0]) \(row[1]) \(row[3])_\(name)")
                if name.hasPrefix("seq_") { compared += 1 }
            }
        }
        #expect(compared == 7 * ownComparisons.count && compared > 0)
    }

    /// The same inputs give the same bytes, whatever the number of threads reading the files.
    @Test func outputsAreByteIdenticalWhateverTheThreads() throws {
        let first = try TemporaryFolder()
        let second = try TemporaryFolder()
        let job = repositoryRoot.appendingPathComponent("jobs/sample.yaml").path
        for (folder, threads) in [(first, "1"), (second, "3")] {
            let result = try runOfferLab([
                "run", job, "--output", folder.path, "--database", folder.file("results.sqlite"), "--threads", threads,
            ])
            #expect(result.status == 0, "\(result.standardError)")
        }
        for file in [
            "summary.csv", "products.csv", "quality.csv", "comparisons.csv", "srm.csv", "daily.csv", "maturity.csv", "rejects.csv",
        ] {
            let a = try Data(contentsOf: URL(fileURLWithPath: first.file("2026-03-15/\(file)")))
            let b = try Data(contentsOf: URL(fileURLWithPath: second.file("2026-03-15/\(file)")))
            #expect(a == b, "\(file) differs between runs")
        }
    }
}

/// Tables given as one SQLite file give the same results as the same tables as CSV/TSV files.
@Suite struct SQLiteTablesTests {
    @Test func sqliteTablesGiveTheSameOutputs() throws {
        let dataSet = repositoryRoot.appendingPathComponent("tools/reference/tests/data/main")
        let folder = try TemporaryFolder()
        let database = try SQLiteDatabase(path: folder.file("tables.db"), create: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: dataSet.appendingPathComponent("tables").path).sorted() {
            guard let format = TableFormat(fileName: file) else { continue }
            let table = String(file.prefix { $0 != "." })
            let reader = try TableFileReader(path: dataSet.appendingPathComponent("tables/\(file)").path, format: format)
            let columns = reader.header.map { "\"\($0)\"" }.joined(separator: ", ")
            try database.execute("CREATE TABLE \(table) (\(columns))")
            let insert = try database.prepare(
                "INSERT INTO \(table) VALUES (\(Array(repeating: "?", count: reader.header.count).joined(separator: ", ")))")
            try reader.forEachRow { row in
                try insert.run((0..<reader.header.count).map { row.isNull($0) ? .null : .text(row.string(at: $0) ?? "") })
            }
        }
        let job = try String(contentsOf: dataSet.appendingPathComponent("job.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "tables: tables/", with: "tables: tables.db")
            .replacingOccurrences(of: "logs/", with: dataSet.path + "/logs/")
        let jobPath = try folder.write("job.yaml", job)
        for (job, output) in [(jobPath, "sqlite"), (dataSet.appendingPathComponent("job.yaml").path, "files")] {
            let result = try runOfferLab(["run", job, "--output", folder.file(output), "--database", folder.file("\(output).sqlite")])
            #expect(result.status == 0, "\(result.standardError)")
        }
        for file in ["summary.csv", "products.csv", "quality.csv", "comparisons.csv", "srm.csv", "daily.csv"] {
            let fromSQLite = try String(contentsOfFile: folder.file("sqlite/2026-03-16/\(file)"), encoding: .utf8)
            let fromFiles = try String(contentsOfFile: folder.file("files/2026-03-16/\(file)"), encoding: .utf8)
            #expect(fromSQLite == fromFiles, "\(file)")
            #expect(fromSQLite.split(separator: "\r\n").count > 1, "\(file) has rows")
        }
    }
}
