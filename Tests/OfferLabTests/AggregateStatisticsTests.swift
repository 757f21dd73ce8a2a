import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabSupport
@testable import OfferLabWarehouse
@testable import OfferLabWriters

@Suite struct AggregateStatisticsTests {
    static let header = "offering_id,group,is_control,weight,users,converters,revenue_sum,revenue_sum_squares\n"

    static let metricHeader = "offering_id,group,is_control,weight,users,converters,revenue_sum,revenue_sum_squares,metric\n"
    static let ownRows = "o,c,true,1,10,2,5,10,\no,t,false,1,10,1,5,10,\n"
    static let summaryHeader = String(header.dropLast()) + "," + AggregateStatistics.summaryColumns.joined(separator: ",") + "\n"

    /// Rows of both forms, without a `metric` column and with one.
    @Test(
        arguments: [
            // converters 11 exceed users 10
            (header + "o,c,true,1,10,2,5,10\no,t,false,1,10,11,5,10\n", .badAggregates, 3),
            // o has a second control group (the first is on line 2)
            (header + "o,c,true,1,10,2,5,10\no,t,true,1,10,1,5,10\n", .badAggregates, 3),
            // offering o has no row with is_control = true
            (header + "o,c,false,1,10,2,5,10\no,t,false,1,10,1,5,10\n", .badAggregates, nil),
            // group c of o appears twice
            (header + "o,c,true,1,10,2,5,10\no,c,false,1,10,1,5,10\n", .badAggregates, 3),
            // is_control must be true or false
            (header + "o,c,yes,1,10,2,5,10\n", .badAggregates, 2),
            // users '-4' is not a whole number ≥ 0
            (header + "o,c,true,1,-4,2,5,10\n", .badAggregates, 2),
            // revenue_sum 'abc' is not a number
            (header + "o,c,true,1,10,2,abc,10\n", .badAggregates, 2),
            // cannot come from 10 users
            (header + "o,c,true,1,10,2,10,1\n", .badAggregates, 2),
            // it has 7 fields
            (header + "o,c,true,1,10,2,5\n", .badAggregates, 2),
            // metric 'capped' is not empty, arpu_capped or d<days> (like d7)
            (metricHeader + ownRows + "o,c,true,1,10,2,5,10,capped\n", .badAggregates, 4),
            // metric 'd0' is not empty
            (metricHeader + ownRows + "o,c,true,1,10,2,5,10,d0\n", .badAggregates, 4),
            // group t has no row with metric arpu_capped
            (metricHeader + ownRows + "o,c,true,1,10,2,4,8,arpu_capped\n", .badAggregates, nil),
            // group x of o has no row with an empty metric
            (metricHeader + ownRows + "o,x,false,1,10,2,4,8,d7\n", .badAggregates, 4),
            // group c of o appears twice with metric d7
            (metricHeader + ownRows + "o,c,true,1,5,1,4,8,d7\no,c,true,1,5,1,4,8,d7\n", .badAggregates, 5),
            // is_control and weight must be those of group t's row
            (metricHeader + ownRows + "o,t,true,1,5,1,4,8,d7\no,c,true,1,5,1,4,8,d7\n", .badAggregates, 4),
            // converters 6 exceed users 5
            (metricHeader + ownRows + "o,t,false,1,5,6,4,8,d7\n", .badAggregates, 4),
            // group c has no row with an empty metric
            (metricHeader + "p,c,true,1,5,1,4,8,d7\n" + ownRows, .badAggregates, 2),
            // users 9 of arpu_capped must be the 10 of group c's own row
            (metricHeader + ownRows + "o,c,true,1,9,2,4,8,arpu_capped\n", .badAggregates, 4),
            // 11 matured users exceed the 10 of group t's own row
            (metricHeader + ownRows + "o,t,false,1,11,1,4,8,d7\n", .badAggregates, 4),
            // no rows after the header
            (header, .badAggregates, nil),
        ] as [(String, OfferLabError.Code, Int?)])
    func malformedAggregatesAreNamed(file: String, code: OfferLabError.Code, line: Int?) throws {
        let folder = try TemporaryFolder()
        let input = try folder.write("agg.csv", file)
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("out"), alpha: 0.05)
        }
        #expect(error.code == code, "\(error)")
        #expect(error.location == .init(path: input, line: line), "\(error)")
        #expect(error.exitCode == 65)
    }

    /// Metric rows give their families' comparisons, capped first, then D ascending, whatever
    /// their order in the file; the groups' own rows give the same comparisons as without them.
    @Test func metricRowsAddTheirComparisons() throws {
        let folder = try TemporaryFolder()
        let body =
            Self.ownRows + "o,t,false,1,4,1,9,81,d14\no,c,true,1,4,2,6,18,d14\no,c,true,1,10,2,4,8,arpu_capped\n"
            + "o,t,false,1,10,1,3,9,arpu_capped\n"
        let plain = try folder.write("plain.csv", Self.header + "o,c,true,1,10,2,5,10\no,t,false,1,10,1,5,10\n")
        let withMetrics = try folder.write("metrics.csv", Self.metricHeader + body)
        try AggregateStatistics.run(input: plain, output: folder.file("plain"), alpha: 0.05)
        try AggregateStatistics.run(input: withMetrics, output: folder.file("metrics"), alpha: 0.05)
        let plainRows = parseCSV(try String(contentsOfFile: folder.file("plain/comparisons.csv"), encoding: .utf8))
        let rows = parseCSV(try String(contentsOfFile: folder.file("metrics/comparisons.csv"), encoding: .utf8))
        #expect(rows.map { $0[3] } == ["metric", "conversion", "arpu", "arpu_capped", "conversion_d14", "arpu_d14"])
        #expect(Array(rows.prefix(3)) == plainRows)
        // arpu_d14: control 6/4 = 1.5, treatment 9/4 = 2.25.
        #expect(rows[5][4] == "1.5" && rows[5][5] == "2.25")
        // arpu_capped: control 4/10, treatment 3/10.
        #expect(rows[3][4] == "0.4" && rows[3][5] == "0.3")
    }

    @Test func aMissingColumnIsNamed() throws {
        let folder = try TemporaryFolder()
        let input = try folder.write("agg.csv", "offering_id,group,is_control,weight,users,converters,revenue_sum\n")
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("out"), alpha: 0.05)
        }
        #expect(error.code == .badAggregates)
        let missing = try #require(error.cause as? IngestError)
        #expect(missing.code == .missingColumn && missing.path == input)
    }

    /// The job's `sequential_tuning` reaches `offerlab run`'s comparisons: only their sequential
    /// columns change with it.
    @Test func aRunsSequentialTuningChangesOnlyTheSequentialColumns() throws {
        let night = try NightFixture(job: ["offerings": "[test]"])
        func comparisons() throws -> [[String]] {
            let result = try night.run()
            #expect(result.status == 0, "\(result.standardError)")
            // The night has no trial, so trial_completed_conversion rows are empty whatever N*; the
            // projection's rows have no sequential columns (docs/statistics.md, "The projection in a run").
            return try night.csv("comparisons").filter {
                $0.count > 3 && $0[3] != "trial_completed_conversion" && !$0.contains("projected_arpu_365")
            }
        }
        let byDefault = try comparisons()
        try night.writeJob(["sequential_tuning": "50"])
        let tuned = try comparisons()
        let firstSequential = try #require(byDefault.first?.firstIndex(of: "seq_abs_lift_ci_low"))
        // The header, then conversion, arpu, proceeds_per_user and refund_user_rate.
        #expect(byDefault.count == 5 && tuned.count == 5)
        #expect(byDefault.map { $0[..<firstSequential] } == tuned.map { $0[..<firstSequential] })
        #expect(byDefault.dropFirst().map { $0[firstSequential] } != tuned.dropFirst().map { $0[firstSequential] })
        // refund_user_rate: no refund in the night, so no variance and no interval.
        #expect(tuned.dropFirst().filter { $0[3] != "refund_user_rate" }.allSatisfy { !$0[firstSequential].isEmpty })
    }

    @Test func sequentialTuningChangesOnlyTheSequentialColumns() throws {
        let folder = try TemporaryFolder()
        let input = try folder.write("agg.csv", Self.header + "o,c,true,1,2000,100,998,9970\no,t,false,1,2000,140,1397,13950\n")
        func comparisons(_ tuning: Double) throws -> [[String]] {
            let output = folder.file("out-\(tuning)")
            try AggregateStatistics.run(input: input, output: output, alpha: 0.05, sequentialTuning: tuning)
            let text = try String(contentsOfFile: output + "/comparisons.csv", encoding: .utf8)
            return text.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        }
        let tight = try comparisons(4000)
        let loose = try comparisons(1e6)
        let header = try #require(tight.first)
        let firstSequential = try #require(header.firstIndex(of: "seq_abs_lift_ci_low"))
        #expect(
            Array(header[firstSequential...]) == OfferLabWriters.SequentialValues.columns.map(\.column.name)
                + OfferLabWriters.AdjustedIntervals.columns.map(\.column.name) + ["abs_lift_bound_low", "abs_lift_bound_high"])
        #expect(header[firstSequential - 1] == "mde_abs")
        // The fixed-horizon adjusted intervals do not depend on N* either; the sequential ones do.
        let fixedAdjusted = try #require(header.firstIndex(of: "abs_lift_ci_low_adjusted"))
        let sequentialAdjusted = try #require(header.firstIndex(of: "seq_abs_lift_ci_low_adjusted"))
        for (a, b) in zip(tight.dropFirst(), loose.dropFirst()) {
            #expect(a[..<firstSequential] == b[..<firstSequential])
            #expect(a[firstSequential] != b[firstSequential])
            #expect(a[fixedAdjusted..<sequentialAdjusted] == b[fixedAdjusted..<sequentialAdjusted])
            #expect(a[sequentialAdjusted] != b[sequentialAdjusted])
        }
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("bad"), alpha: 0.05, sequentialTuning: -1)
        }
        #expect(error.code == .badArgument)
    }

    /// Runs `job` (relative to the repository) into `folder` and returns the sufficient
    /// statistics it used, at full precision, as an aggregates file with a `metric` column: each
    /// group's own row, then its capped and matured rows when the job sets `revenue_cap` and
    /// `maturity_days`; with `summary`, the own rows carry summary.csv's count and money columns
    /// and the capped rows the cap and the capped users.
    func aggregatesOfARun(job: String, in folder: TemporaryFolder, summary: Bool) async throws -> String {
        let job = repositoryRoot.appendingPathComponent(job).path
        let run = try runOfferLab(["run", job, "--output", folder.path, "--database", folder.file("results.sqlite")])
        #expect(run.status == 0, "\(run.standardError)")
        let results = try await NightlyRun.compute(JobLoader.load(path: job), progress: nil)
        let summaryColumns =
            summary
            ? AggregateStatistics.summaryColumns + AggregateStatistics.cappedColumns + AggregateStatistics.trialColumns
                + AggregateStatistics.chargeProceedsColumns : []
        var aggregates = (AggregateStatistics.columns + ["metric"] + summaryColumns).joined(separator: ",") + "\n"
        for offering in results.offerings {
            let metrics =
                [("", offering.groups.map(\.statistics))] + (offering.cappedRevenue.map { [("arpu_capped", $0.groups)] } ?? [])
                + offering.matured.map { ("d\($0.days)", $0.groups) }
                + [
                    ("proceeds_per_user", offering.groups.map(\.proceedsStatistics)),
                    ("trial_completed_conversion", offering.groups.map(\.trialCompletedStatistics)),
                    ("refund_user_rate", offering.groups.map(\.refundUserStatistics)),
                ]
            for (metric, groups) in metrics {
                for (index, group) in offering.offering.groups.enumerated() {
                    let statistics = groups[index]
                    var row: [String] = [
                        offering.offering.offeringID, group.name, index == offering.controlGroup ? "true" : "false",
                        CSVWriter.number(group.weight),
                        String(statistics.users), String(statistics.converters), "\(statistics.revenueSum)",
                        "\(statistics.revenueSumSquares)",
                        metric,
                    ]
                    if summary {
                        let totals = offering.groups[index]
                        let counts = [
                            totals.trialStarters, totals.trialConverters, totals.paywallViewers, totals.purchases, totals.renewals,
                            totals.refunds,
                        ]
                        let capped = offering.cappedRevenue
                        let trials = [
                            totals.trialsConverted, totals.trialsPending, totals.trialsLapsed, totals.trialsUnknown,
                            totals.activeSubscribers,
                            totals.churnedSubscribers, totals.refundUsers,
                        ].map { String($0) }
                        switch metric {
                        case "":
                            row +=
                                counts.map { String($0) } + [totals.grossRevenue, totals.refundedRevenue].map { "\($0)" } + ["", ""]
                                + trials + AggregateStatistics.chargeProceedsMoney.map { "\(totals.money[$0])" }
                        case "arpu_capped":
                            row += Array(repeating: "", count: AggregateStatistics.summaryColumns.count)
                            row += [capped?.cap.map { "\($0)" } ?? "", capped.map { String($0.cappedUsers[index]) } ?? ""]
                            row += Array(
                                repeating: "",
                                count: AggregateStatistics.trialColumns.count + AggregateStatistics.chargeProceedsColumns.count)
                        default: row += Array(repeating: "", count: summaryColumns.count)
                        }
                    }
                    aggregates += row.joined(separator: ",") + "\n"
                }
            }
        }
        return aggregates
    }

    /// `stats` on the sufficient statistics of a run gives that run's comparisons and SRM, byte
    /// for byte.
    @Test func aggregatesOfARunGiveTheRunsStatistics() async throws {
        let folder = try TemporaryFolder()
        let aggregates = try await aggregatesOfARun(job: "jobs/sample.yaml", in: folder, summary: false)
        let input = try folder.write("agg.csv", aggregates)
        let result = try runOfferLab(["stats", "--input", input, "--output", folder.file("stats")])
        #expect(result.status == 0, "\(result.standardError)")
        for file in ["comparisons.csv", "srm.csv"] {
            // `stats` has sums, not members: no projection (docs/statistics.md, "The projection in a run").
            let fromRun = withoutProjectedRows(try String(contentsOfFile: folder.file("2026-03-15/\(file)"), encoding: .utf8))
            let fromStats = try String(contentsOfFile: folder.file("stats/\(file)"), encoding: .utf8)
            #expect(fromRun == fromStats, "\(file)")
            #expect(fromRun.split(separator: "\r\n").count > 2, "\(file) has rows")
        }
    }

    /// With summary.csv's count and money columns (what `offerlab sql` returns), `stats` writes
    /// the run's summary.csv byte for byte; run's quality.csv and products.csv, given back,
    /// come out the same.
    @Test func summaryQualityAndProductsOfARun() async throws {
        let folder = try TemporaryFolder()
        let aggregates = try await aggregatesOfARun(job: "sample-data/job.yaml", in: folder, summary: true)
        let input = try folder.write("agg.csv", aggregates)
        let result = try runOfferLab([
            "stats", "--input", input, "--output", folder.file("stats"), "--quality", folder.file("2026-03-15/quality.csv"),
            "--products", folder.file("2026-03-15/products.csv"),
        ])
        #expect(result.status == 0, "\(result.standardError)")
        for file in ["summary.csv", "quality.csv", "products.csv", "comparisons.csv"] {
            // `stats` has sums, not members: no projection (docs/statistics.md, "The projection in a run").
            let fromRun = withoutProjectedRows(try String(contentsOfFile: folder.file("2026-03-15/\(file)"), encoding: .utf8))
            let fromStats = try String(contentsOfFile: folder.file("stats/\(file)"), encoding: .utf8)
            #expect(fromRun == fromStats, "\(file)")
            #expect(fromRun.split(separator: "\r\n").count > 5, "\(file) has rows")
        }
    }

    @Test func summaryColumnsComeAllOrNone() throws {
        let folder = try TemporaryFolder()
        let input = try folder.write("agg.csv", String(Self.header.dropLast()) + ",purchases\no,c,true,1,10,2,5,10,3\n")
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("out"), alpha: 0.05)
        }
        // The first of the summary columns it lacks.
        #expect(error.code == .badAggregates && error.location == .init(path: input, line: 1), "\(error)")
        #expect((error.cause as? IngestError)?.code == .missingColumn)
    }

    @Test func productsOfAnUnknownGroupAreNamed() throws {
        let folder = try TemporaryFolder()
        let input = try folder.write("agg.csv", Self.summaryHeader + "o,c,true,1,10,2,5,10,0,0,0,2,0,0,5,0\n")
        let products = try folder.write(
            "products.csv", "offering_id,group,product_id,purchases,renewals,refunds,net_revenue,net_proceeds\no,t,p,1,0,0,2.5,1.75\n")
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("out"), alpha: 0.05, products: products)
        }
        #expect(error.code == .badAggregates && error.location == .init(path: products, line: 2), "\(error)")
    }

    /// A night with a revenue cap, maturities and slices: `stats` on its sums writes the run's
    /// summary.csv (the capped columns included), maturity.csv and the three slice files byte
    /// for byte.
    @Test func cappedMaturedAndSlicedFilesOfARun() async throws {
        let folder = try TemporaryFolder()
        let aggregates = try await aggregatesOfARun(job: "jobs/sample.yaml", in: folder, summary: true)
        let results = try await NightlyRun.compute(
            JobLoader.load(path: repositoryRoot.appendingPathComponent("jobs/sample.yaml").path), progress: nil)
        var slices =
            (["offering_id", "dimension", "level", "group"] + AggregateStatistics.columns[4...] + AggregateStatistics.summaryColumns
            + AggregateStatistics.sliceProceedsColumns + AggregateStatistics.chargeProceedsColumns)
            .joined(separator: ",") + "\n"
        for offering in results.offerings {
            for slice in offering.slices {
                for (index, group) in offering.offering.groups.enumerated() {
                    let totals = slice.groups[index]
                    let counts = [
                        totals.users, totals.converters, totals.trialStarters, totals.trialConverters, totals.paywallViewers,
                        totals.purchases, totals.renewals, totals.refunds,
                    ].map { String($0) }
                    let row =
                        [offering.offering.offeringID, slice.field.rawValue, slice.level, group.name] + counts[0..<2]
                        + [totals.netRevenue, totals.statistics.revenueSumSquares].map { "\($0)" } + counts[2...]
                        + [totals.grossRevenue, totals.refundedRevenue, totals.proceedsSum, totals.proceedsSumSquares].map { "\($0)" }
                        + [
                            totals.trialsConverted, totals.trialsPending, totals.trialsLapsed, totals.trialsUnknown,
                            totals.activeSubscribers, totals.churnedSubscribers, totals.refundUsers,
                        ].map { String($0) }
                    let chargeProceeds: [String] = AggregateStatistics.chargeProceedsMoney.map { "\(totals.money[$0])" }
                    slices += (row + chargeProceeds).joined(separator: ",") + "\n"
                }
            }
        }
        let result = try runOfferLab([
            "stats", "--input", try folder.write("agg.csv", aggregates), "--output", folder.file("stats"), "--slices",
            try folder.write("slices.csv", slices),
        ])
        #expect(result.status == 0, "\(result.standardError)")
        for file in ["summary.csv", "maturity.csv", "comparisons.csv", "slice_summary.csv", "slice_comparisons.csv", "slice_srm.csv"] {
            // `stats` has sums, not members: no projection (docs/statistics.md, "The projection in a run").
            let fromRun = withoutProjectedRows(try String(contentsOfFile: folder.file("2026-03-15/\(file)"), encoding: .utf8))
            let fromStats = try String(contentsOfFile: folder.file("stats/\(file)"), encoding: .utf8)
            #expect(fromRun == fromStats, "\(file)")
        }
        let summary = try String(contentsOfFile: folder.file("stats/summary.csv"), encoding: .utf8)
        let header = try #require(parseCSV(summary).first)
        let (cap, cappedUsers) = (try #require(header.firstIndex(of: "revenue_cap")), try #require(header.firstIndex(of: "capped_users")))
        #expect(
            parseCSV(summary).dropFirst().allSatisfy { !$0[cap].isEmpty && !$0[cappedUsers].isEmpty },
            "revenue_cap and capped_users are filled")
    }

    static let sliceHeader =
        "offering_id,dimension,level,group,users,converters,revenue_sum,revenue_sum_squares,"
        + AggregateStatistics.summaryColumns.joined(separator: ",") + "\n"

    /// A slices file's rows must name the aggregates' groups, a known dimension, and every group
    /// once in every level.
    @Test(
        arguments: [
            // group x of o is not in the aggregates
            (sliceHeader + "o,country,US,x,1,0,0,0,0,0,0,0,0,0,0,0\n", .badAggregates, 2),
            // dimension 'os' is not one of country, platform
            (sliceHeader + "o,os,US,c,1,0,0,0,0,0,0,0,0,0,0,0\n", .badAggregates, 2),
            // group t has no row in country US
            (sliceHeader + "o,country,US,c,1,0,0,0,0,0,0,0,0,0,0,0\n", .badAggregates, nil),
            // group c of o appears twice in country US
            (sliceHeader + "o,country,US,c,1,0,0,0,0,0,0,0,0,0,0,0\no,country,US,c,1,0,0,0,0,0,0,0,0,0,0,0\n", .badAggregates, 3),
            // converters 2 exceed users 1
            (sliceHeader + "o,country,US,c,1,2,0,0,0,0,0,0,0,0,0,0\n", .badAggregates, 2),
            // level is empty
            (sliceHeader + "o,country,,c,1,0,0,0,0,0,0,0,0,0,0,0\n", .badAggregates, 2),
        ] as [(String, OfferLabError.Code, Int?)])
    func malformedSlicesAreNamed(file: String, code: OfferLabError.Code, line: Int?) throws {
        let folder = try TemporaryFolder()
        let input = try folder.write(
            "agg.csv", Self.summaryHeader + "o,c,true,1,10,2,5,10,0,0,0,2,0,0,5,0\no,t,false,1,10,1,5,10,0,0,0,1,0,0,5,0\n")
        let slices = try folder.write("slices.csv", file)
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("out"), alpha: 0.05, slices: slices)
        }
        #expect(error.code == code, "\(error)")
        #expect(error.location == .init(path: slices, line: line), "\(error)")
        #expect(error.exitCode == 65)
    }

    /// The cap is the offering's: one value on all its arpu_capped rows.
    @Test func aCapThatDiffersBetweenGroupsIsNamed() throws {
        let folder = try TemporaryFolder()
        let header = Self.summaryHeader.dropLast() + ",metric,revenue_cap,capped_users\n"
        let input = try folder.write(
            "agg.csv",
            header + "o,c,true,1,10,2,5,10,0,0,0,2,0,0,5,0,,,\no,t,false,1,10,1,5,10,0,0,0,1,0,0,5,0,,,\n"
                + "o,c,true,1,10,2,4,8,,,,,,,,,arpu_capped,2.5,1\no,t,false,1,10,1,4,8,,,,,,,,,arpu_capped,3,1\n")
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("out"), alpha: 0.05)
        }
        #expect(error.code == .badAggregates && error.location == .init(path: input, line: 5), "\(error)")
    }
}
