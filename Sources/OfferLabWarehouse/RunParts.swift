import Foundation
import OfferLabAnalysis
import OfferLabEvents
import OfferLabJob
import OfferLabResults
import OfferLabStatistics
import OfferLabSupport
import OfferLabVocabulary
import OfferLabWriters

/// `offerlab run --parts DIR`: the night's parts as `run` computes them, in the columns an
/// engine's scripts return (contract §3.3): what `offerlab stats --parts` reads, and what an
/// engine's parts must equal, part by part (docs/warehouse.md "The night's parts").
package enum RunParts {
    /// §3.2's parts a job has (`slices` with slices), then the night's own (`NightParts.parts`).
    package static func names(of job: Job) -> [String] {
        ["aggregates", "quality", "products"] + (job.analysis.slices.isEmpty ? [] : ["slices"]) + NightParts.parts(of: job).map(\.rawValue)
    }

    /// Writes every part of `results` into `folder` (created when missing), each file whole.
    /// - Throws: `OfferLabError` (`.cannotWrite`, exit 73).
    package static func write(_ results: NightResults, cohorts: [ObservedCohort]?, job: Job, to folder: String) throws {
        let identity = try NightPartsIdentity(job: job)
        var files: [(String, String)] = [
            ("aggregates", table(aggregates(results.offerings), identity: identity)),
            ("quality", table(quality(results), identity: identity)),
            ("products", table(products(results.offerings), identity: identity)),
        ]
        if !job.analysis.slices.isEmpty { files.append(("slices", table(slices(results.offerings), identity: identity))) }
        for part in NightParts.parts(of: job) {
            files.append((part.rawValue, NightParts.csv(NightParts.rows(of: results, cohorts: cohorts, part: part), identity: identity)))
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw OfferLabError(
                .cannotWrite, "--parts \(folder): cannot create it: \(error.localizedDescription)", location: .init(path: folder))
        }
        for (name, text) in files {
            try AggregateStatistics.writeWhole(text, to: (folder as NSString).appendingPathComponent("\(name).csv"))
        }
    }

    /// A part's columns and rows (nil: empty, an engine's NULL), and the `night` column last.
    private static func table(_ part: (columns: [String], rows: [[String?]]), identity: NightPartsIdentity) -> String {
        var text = (part.columns + ["night"]).joined(separator: ",") + "\n"
        for row in part.rows {
            text += (row.map { $0.map(CSVWriter.quoted) ?? "" } + [identity.text]).joined(separator: ",") + "\n"
        }
        return text
    }

    private static func number(_ value: Double) -> String { NightParts.number(value) }

    /// The statistics columns of a row: users, converters, Σ and Σ² of revenue.
    private static func statistics(_ sums: GroupSufficientStatistics) -> [String?] {
        [String(sums.users), String(sums.converters), number(sums.revenueSum), number(sums.revenueSumSquares)]
    }

    /// `offerlab sql --part aggregates`'s rows: each group's own row with every count and money
    /// column, then per metric (capped, each maturity, proceeds, completed trials, refund users).
    static func aggregates(_ offerings: [OfferingResult]) -> (columns: [String], rows: [[String?]]) {
        let columns =
            ["offering_id", "group", "metric"] + AggregateStatistics.columns[2...] + AggregateStatistics.summaryColumns + ["net_revenue"]
            + AggregateStatistics.cappedColumns + AggregateStatistics.trialColumns + AggregateStatistics.chargeProceedsColumns
        let summaryOnly = AggregateStatistics.summaryColumns.count + 1
        let trailing = AggregateStatistics.trialColumns.count + AggregateStatistics.chargeProceedsColumns.count
        var rows: [[String?]] = []
        for result in offerings {
            let id = result.offering.offeringID
            func row(_ group: Int, metric: String, _ sums: GroupSufficientStatistics, capped: [String?] = [nil, nil]) -> [String?] {
                [
                    id, result.offering.groups[group].name, metric, result.controlGroup == group ? "true" : "false",
                    number(result.offering.groups[group].weight),
                ]
                    + statistics(sums) + Array(repeating: nil, count: summaryOnly) + capped + Array(repeating: nil, count: trailing)
            }
            for (index, totals) in result.groups.enumerated() {
                let own: [String?] =
                    AggregateStatistics.summaryCounts.map { String(totals.counts[$0]) }
                    + AggregateStatistics.summaryMoney.map { number(totals.money[$0]) }
                    + [number(totals.netRevenue)]
                let trials: [String?] =
                    AggregateStatistics.trialCounts.map { String(totals.counts[$0]) }
                    + AggregateStatistics.chargeProceedsMoney.map { number(totals.money[$0]) }
                rows.append(
                    [
                        id, result.offering.groups[index].name, "", result.controlGroup == index ? "true" : "false",
                        number(result.offering.groups[index].weight),
                    ]
                        + statistics(totals.statistics) + own + [nil, nil] + trials)
            }
            if let capped = result.cappedRevenue {
                for index in result.groups.indices {
                    rows.append(
                        row(
                            index, metric: Metric.arpuCapped.csvName, capped.groups[index],
                            capped: [capped.cap.map(number), String(capped.cappedUsers[index])]))
                }
            }
            for matured in result.matured {
                for index in result.groups.indices { rows.append(row(index, metric: "d\(matured.days)", matured.groups[index])) }
            }
            for (metric, sums) in [
                (Metric.proceedsPerUser.csvName, result.groups.map(\.proceedsStatistics)),
                (Metric.trialCompletedConversion.csvName, result.groups.map(\.trialCompletedStatistics)),
                (Metric.refundUserRate.csvName, result.groups.map(\.refundUserStatistics)),
            ] {
                for index in result.groups.indices { rows.append(row(index, metric: metric, sums[index])) }
            }
        }
        return (columns, rows)
    }

    /// `quality.csv`'s rows, as `offerlab sql --part quality` returns them.
    static func quality(_ results: NightResults) -> (columns: [String], rows: [[String?]]) {
        (["offering_id", "counter", "count"], ResultTables.quality(results).map { [$0.offeringID, $0.counter, String($0.count)] })
    }

    /// `products.csv`'s rows, as `offerlab sql --part products` returns them.
    static func products(_ offerings: [OfferingResult]) -> (columns: [String], rows: [[String?]]) {
        let columns = [
            "offering_id", "group", "product_id", "purchases", "renewals", "refunds", "net_revenue", "net_proceeds", "charge_currencies",
        ]
        let rows = offerings.flatMap { result in
            result.products.map { product -> [String?] in
                [
                    result.offering.offeringID, result.offering.groups[product.group].name, product.productID, String(product.purchases),
                    String(product.renewals), String(product.refunds), number(product.netRevenue), product.netProceeds.map(number),
                    product.chargeCurrencies.joined(separator: ";"),
                ]
            }
        }
        return (columns, rows)
    }

    /// `offerlab sql --part slices`'s rows: per offering, field, level and group.
    static func slices(_ offerings: [OfferingResult]) -> (columns: [String], rows: [[String?]]) {
        let columns =
            ["offering_id", "dimension", "level", "group"] + AggregateStatistics.columns[2...] + AggregateStatistics.summaryColumns
            + AggregateStatistics.sliceProceedsColumns + AggregateStatistics.chargeProceedsColumns
        let rows = offerings.flatMap { result in
            result.slices.flatMap { slice in
                slice.groups.enumerated().map { index, totals -> [String?] in
                    let group: [String?] = [
                        result.offering.offeringID, slice.field.rawValue, slice.level, result.offering.groups[index].name,
                        result.controlGroup == index ? "true" : "false", number(result.offering.groups[index].weight),
                    ]
                    let counts: [String?] = AggregateStatistics.summaryCounts.map { String(totals.counts[$0]) }
                    let money: [String?] = AggregateStatistics.summaryMoney.map { number(totals.money[$0]) }
                    let proceeds: [String?] = AggregateStatistics.proceedsMoney.map { number(totals.money[$0]) }
                    let trials: [String?] = AggregateStatistics.trialCounts.map { String(totals.counts[$0]) }
                    let charges: [String?] = AggregateStatistics.chargeProceedsMoney.map { number(totals.money[$0]) }
                    return group + statistics(totals.statistics) + counts + money + proceeds + trials + charges
                }
            }
        }
        return (columns, rows)
    }
}
