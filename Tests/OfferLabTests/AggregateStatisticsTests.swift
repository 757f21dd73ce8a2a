import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLab

@Suite struct AggregateStatisticsTests {
    static let header = "offering_id,group,is_control,weight,users,converters,revenue_sum,revenue_sum_squares\n"

    @Test(arguments: [
        ("o,c,true,1,10,2,5,10\no,t,false,1,10,11,5,10\n", "line 3: converters 11 exceed users 10"),
        ("o,c,true,1,10,2,5,10\no,t,true,1,10,1,5,10\n", "line 3: o has a second control group (the first is on line 2)"),
        ("o,c,false,1,10,2,5,10\no,t,false,1,10,1,5,10\n", "offering o has no row with is_control = true"),
        ("o,c,true,1,10,2,5,10\no,c,false,1,10,1,5,10\n", "line 3: group c of o appears twice"),
        ("o,c,yes,1,10,2,5,10\n", "line 2: is_control must be true or false"),
        ("o,c,true,1,-4,2,5,10\n", "line 2: users '-4' is not a whole number ≥ 0"),
        ("o,c,true,1,10,2,abc,10\n", "line 2: revenue_sum 'abc' is not a number"),
        ("o,c,true,1,10,2,10,1\n", "cannot come from 10 users"),
        ("o,c,true,1,10,2,5\n", "line 2: it has 7 fields"),
        ("", "no rows after the header"),
    ])
    func malformedAggregatesAreNamed(body: String, problem: String) throws {
        let folder = try TemporaryFolder()
        let input = try folder.write("agg.csv", Self.header + body)
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("out"), alpha: 0.05)
        }
        #expect(error.message.contains(problem), "\(error.message)")
        #expect(error.exitCode == 65)
    }

    @Test func aMissingColumnIsNamed() throws {
        let folder = try TemporaryFolder()
        let input = try folder.write("agg.csv", "offering_id,group,is_control,weight,users,converters,revenue_sum\n")
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("out"), alpha: 0.05)
        }
        #expect(error.message.contains("revenue_sum_squares"))
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
        #expect(Array(header[firstSequential...]) == ResultTables.sequentialColumns().map(\.0))
        #expect(header[firstSequential - 1] == "mde_abs")
        for (a, b) in zip(tight.dropFirst(), loose.dropFirst()) {
            #expect(a[..<firstSequential] == b[..<firstSequential])
            #expect(a[firstSequential] != b[firstSequential])
        }
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("bad"), alpha: 0.05, sequentialTuning: -1)
        }
        #expect(error.message == "--sequential-tuning -1.0 must be a positive number of users")
    }

    static let summaryHeader = String(header.dropLast()) + "," + AggregateStatistics.summaryColumns.joined(separator: ",") + "\n"

    /// Runs the sample job into `folder` and returns the sufficient statistics it used, at full
    /// precision, as an aggregates file; with `summary`, with summary.csv's count and money
    /// columns too.
    func aggregatesOfTheSampleRun(in folder: TemporaryFolder, summary: Bool) async throws -> String {
        let job = repositoryRoot.appendingPathComponent("jobs/sample.yaml").path
        let run = try runOfferLab(["run", job, "--output", folder.path, "--database", folder.file("results.sqlite")])
        #expect(run.status == 0, "\(run.standardError)")
        let results = try await NightlyRun.compute(JobLoader.load(path: job), progress: nil)
        var aggregates = summary ? Self.summaryHeader : Self.header
        for offering in results.offerings {
            for (index, group) in offering.offering.groups.enumerated() {
                let totals = offering.groups[index]
                let statistics = totals.statistics
                var row: [String] = [
                    offering.offering.offeringID, group.name, index == offering.controlGroup ? "true" : "false",
                    CSVWriter.number(group.weight),
                    String(statistics.users), String(statistics.converters), "\(statistics.revenueSum)", "\(statistics.revenueSumSquares)",
                ]
                if summary {
                    let counts = [
                        totals.trialStarters, totals.trialConverters, totals.paywallViewers, totals.purchases, totals.renewals,
                        totals.refunds,
                    ]
                    row += counts.map { String($0) } + [totals.grossRevenue, totals.refundedRevenue].map { "\($0)" }
                }
                aggregates += row.joined(separator: ",") + "\n"
            }
        }
        return aggregates
    }

    /// `stats` on the sufficient statistics of a run gives that run's comparisons and SRM, byte
    /// for byte.
    @Test func aggregatesOfARunGiveTheRunsStatistics() async throws {
        let folder = try TemporaryFolder()
        let aggregates = try await aggregatesOfTheSampleRun(in: folder, summary: false)
        let input = try folder.write("agg.csv", aggregates)
        let result = try runOfferLab(["stats", "--input", input, "--output", folder.file("stats")])
        #expect(result.status == 0, "\(result.standardError)")
        for file in ["comparisons.csv", "srm.csv"] {
            let fromRun = try String(contentsOfFile: folder.file("2026-03-15/\(file)"), encoding: .utf8)
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
        let aggregates = try await aggregatesOfTheSampleRun(in: folder, summary: true)
        let input = try folder.write("agg.csv", aggregates)
        let result = try runOfferLab([
            "stats", "--input", input, "--output", folder.file("stats"), "--quality", folder.file("2026-03-15/quality.csv"),
            "--products", folder.file("2026-03-15/products.csv"),
        ])
        #expect(result.status == 0, "\(result.standardError)")
        for file in ["summary.csv", "quality.csv", "products.csv", "comparisons.csv"] {
            let fromRun = try String(contentsOfFile: folder.file("2026-03-15/\(file)"), encoding: .utf8)
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
        #expect(error.message.contains("trial_starters"), "\(error.message)")
    }

    @Test func productsOfAnUnknownGroupAreNamed() throws {
        let folder = try TemporaryFolder()
        let input = try folder.write("agg.csv", Self.summaryHeader + "o,c,true,1,10,2,5,10,0,0,0,2,0,0,5,0\n")
        let products = try folder.write(
            "products.csv", "offering_id,group,product_id,purchases,renewals,refunds,net_revenue\no,t,p,1,0,0,2.5\n")
        let error = try #require(throws: OfferLabError.self) {
            try AggregateStatistics.run(input: input, output: folder.file("out"), alpha: 0.05, products: products)
        }
        #expect(error.message.contains("products.csv line 2: group t of o is not in the aggregates"), "\(error.message)")
    }
}
