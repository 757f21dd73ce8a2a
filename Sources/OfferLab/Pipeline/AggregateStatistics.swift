import Foundation
import OfferLabIngest
import OfferLabStatistics

/// `offerlab stats`: comparisons and SRM from per-group sufficient statistics computed
/// elsewhere, by the same code `run` uses.
public enum AggregateStatistics {
    static let columns = ["offering_id", "group", "is_control", "weight", "users", "converters", "revenue_sum", "revenue_sum_squares"]

    /// Reads `input` (CSV or TSV, see the README), writes `comparisons.csv` and `srm.csv` into
    /// `output`, the sequential columns at N* = `sequentialTuning`, and `summary.csv` when `input`
    /// has every column of `summaryColumns`. With `quality` and `products` (the other results of
    /// `offerlab sql`), writes `quality.csv` and `products.csv` from them. Returns the offering ids.
    /// - Throws: `OfferLabError` naming the file, the line and the problem.
    @discardableResult
    public static func run(
        input: String, output: String, alpha: Double, sequentialTuning: Double = SequentialInference.defaultTuning,
        quality: String? = nil, products: String? = nil
    ) throws -> [String] {
        guard alpha > 0 && alpha < 1 else { throw OfferLabError(.configuration, "--alpha \(alpha) must be greater than 0 and less than 1") }
        guard sequentialTuning > 0, sequentialTuning.isFinite else {
            throw OfferLabError(.configuration, "--sequential-tuning \(sequentialTuning) must be a positive number of users")
        }
        let offerings = try read(input)
        guard !offerings.isEmpty else { throw OfferLabError(.data, "\(input): no rows after the header, so no offering to compute") }
        let analyses = try offerings.map { offering in
            do {
                return (
                    offeringID: offering.id,
                    statistics: try analyzeOffering(offering.groups, alpha: alpha, sequentialTuning: sequentialTuning)
                )
            } catch {
                throw OfferLabError(.data, "\(input): offering \(offering.id): \(error)")
            }
        }
        var tables = [ResultTables.comparisonsTable(analyses), ResultTables.srmTable(analyses)]
        let results = try summaryResults(input, offerings: offerings)
        if let results { tables.append(ResultTables.summaryTable(results, alpha: alpha)) }
        if let quality { tables.append(try qualityTable(quality)) }
        if let products {
            guard let results else {
                throw OfferLabError(
                    .configuration,
                    "--products \(products): \(input) lacks the summary columns that name its groups (\(summaryColumns.joined(separator: ", ")))"
                )
            }
            tables.append(try productsTable(products, results: results))
        }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw OfferLabError(.output, "cannot create \(output): \(error.localizedDescription)")
        }
        for table in tables {
            let path = (output as NSString).appendingPathComponent("\(table.name).csv")
            let temporary = path + ".partial-\(getpid())"
            do {
                try Data(CSVWriter.csv(table).utf8).write(to: URL(fileURLWithPath: temporary))
                guard rename(temporary, path) == 0 else {
                    throw OfferLabError(.output, "cannot write \(path): \(String(cString: strerror(errno)))")
                }
            } catch let error as OfferLabError {
                throw error
            } catch {
                throw OfferLabError(.output, "cannot write \(path): \(error.localizedDescription)")
            }
        }
        return offerings.map(\.id)
    }

    /// The offerings of an aggregates file, in byte order of `offering_id`, groups in file order.
    static func read(_ path: String) throws -> [(id: String, groups: [AnalysisGroup])] {
        guard let format = TableFormat(fileName: path) else {
            throw OfferLabError(.configuration, "--input \(path): expected a .csv or .tsv file (gzipped or not)")
        }
        var offerings: [String: [AnalysisGroup]] = [:]
        var controlLine: [String: Int] = [:]
        do {
            let reader = try TableFileReader(path: path, format: format)
            let index = try reader.requireColumns(columns)
            try reader.forEachRow { row in
                func fail(_ problem: String) -> OfferLabError {
                    OfferLabError(.data, "\(path) line \(row.lineNumber): \(problem)")
                }
                guard row.problem == nil else { throw fail("it has \(row.count) fields where the header has \(reader.header.count)") }
                func text(_ column: Int) throws -> String {
                    guard let value = row.string(at: index[column]), !value.isEmpty else { throw fail("\(columns[column]) is empty") }
                    return value
                }
                func count(_ column: Int) throws -> Int {
                    guard let value = row.int64(at: index[column]), value >= 0 else {
                        throw fail("\(columns[column]) '\(row.string(at: index[column]) ?? "")' is not a whole number ≥ 0")
                    }
                    return Int(value)
                }
                func number(_ column: Int) throws -> Double {
                    guard let value = row.double(at: index[column]) else {
                        throw fail("\(columns[column]) '\(row.string(at: index[column]) ?? "")' is not a number")
                    }
                    return value
                }
                let offering = try text(0)
                let group = try text(1)
                guard let isControl = row.bool(at: index[2]) else { throw fail("is_control must be true or false") }
                let weight = try number(3)
                guard weight >= 0 else { throw fail("weight \(weight) is negative") }
                let users = try count(4)
                let converters = try count(5)
                guard converters <= users else { throw fail("converters \(converters) exceed users \(users)") }
                let sum = try number(6)
                let squares = try number(7)
                // Σx² ≥ (Σx)²/n for any real values: anything clearly below is not a sum of squares.
                guard squares >= 0, users > 0 || (sum == 0 && squares == 0),
                    users == 0 || squares * Double(users) >= sum * sum * (1 - 1e-9)
                else { throw fail("revenue_sum \(sum) and revenue_sum_squares \(squares) cannot come from \(users) users") }
                if offerings[offering]?.contains(where: { $0.name == group }) == true {
                    throw fail("group \(group) of \(offering) appears twice")
                }
                if isControl {
                    if let first = controlLine[offering] {
                        throw fail("\(offering) has a second control group (the first is on line \(first))")
                    }
                    controlLine[offering] = row.lineNumber
                }
                offerings[offering, default: []].append(
                    AnalysisGroup(
                        name: group, isControl: isControl, weight: weight,
                        statistics: GroupSufficientStatistics(
                            users: users, converters: converters, revenueSum: sum, revenueSumSquares: squares)))
            }
        } catch let error as IngestError {
            throw OfferLabError(.data, "\(error)")
        }
        if let missing = offerings.keys.sorted().first(where: { controlLine[$0] == nil }) {
            throw OfferLabError(.data, "\(path): offering \(missing) has no row with is_control = true")
        }
        return offerings.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { ($0, offerings[$0] ?? []) }
    }

    /// The count and money columns of `summary.csv` beyond the sufficient statistics (the
    /// aggregates of `offerlab sql` have them); `net_revenue` is `revenue_sum`.
    static let summaryColumns = [
        "trial_starters", "trial_converters", "paywall_viewers", "purchases", "renewals", "refunds", "gross_revenue", "refunded_revenue",
    ]

    /// Every group's totals, when `path` has the summary columns (nil when it has none of them).
    /// Read in a second pass over the (small) file, after `read` has checked every row.
    static func summaryResults(_ path: String, offerings: [(id: String, groups: [AnalysisGroup])]) throws -> [OfferingResult]? {
        var totals: [String: [String: GroupTotals]] = [:]
        do {
            let reader = try TableFileReader(path: path, format: TableFormat(fileName: path) ?? .csv)
            let present = summaryColumns.filter { reader.columnIndex($0) != nil }
            guard !present.isEmpty else { return nil }
            let index = try reader.requireColumns(summaryColumns + ["offering_id", "group"])
            try reader.forEachRow { row in
                func count(_ column: Int) throws -> Int {
                    guard let value = row.int64(at: index[column]), value >= 0 else {
                        throw OfferLabError(
                            .data,
                            "\(path) line \(row.lineNumber): \(summaryColumns[column]) '\(row.string(at: index[column]) ?? "")' is not a whole number ≥ 0"
                        )
                    }
                    return Int(value)
                }
                func money(_ column: Int) throws -> Double {
                    guard let value = row.double(at: index[column]), value >= 0 else {
                        throw OfferLabError(
                            .data,
                            "\(path) line \(row.lineNumber): \(summaryColumns[column]) '\(row.string(at: index[column]) ?? "")' is not a number ≥ 0"
                        )
                    }
                    return value
                }
                var group = GroupTotals()
                (group.trialStarters, group.trialConverters, group.paywallViewers) = (try count(0), try count(1), try count(2))
                (group.purchases, group.renewals, group.refunds) = (try count(3), try count(4), try count(5))
                (group.grossRevenue, group.refundedRevenue) = (try money(6), try money(7))
                totals[row.string(at: index[8]) ?? "", default: [:]][row.string(at: index[9]) ?? ""] = group
            }
        } catch let error as IngestError {
            throw OfferLabError(.data, "\(error)")
        }
        return offerings.map { offering in
            let groups = offering.groups.map { group in
                var total = totals[offering.id]?[group.name] ?? GroupTotals()
                total.statistics = group.statistics
                return total
            }
            return OfferingResult(
                offering: Offering(
                    id: 0, offeringID: offering.id, name: offering.id, isActive: true,
                    groups: offering.groups.map { OfferingGroup(id: 0, name: $0.name, weight: $0.weight, products: [], copy: nil) }),
                controlGroup: offering.groups.firstIndex { $0.isControl } ?? 0, groups: groups, products: [], quality: OfferingQuality())
        }
    }

    /// `quality.csv` from a file with its columns (`offering_id`, `counter`, `count`), rows kept in order.
    static func qualityTable(_ path: String) throws -> ResultTable {
        var table = ResultTables.emptyQualityTable()
        try forEachRow(of: path, columns: ["offering_id", "counter", "count"]) { row, index, fail in
            guard let counter = row.string(at: index[1]), !counter.isEmpty else { throw fail("counter is empty") }
            guard let count = row.int64(at: index[2]), count >= 0 else {
                throw fail("count '\(row.string(at: index[2]) ?? "")' is not a whole number ≥ 0")
            }
            table.rows.append([.text(row.string(at: index[0]) ?? ""), .text(counter), .integer(Int(count))])
        }
        return table
    }

    /// `products.csv` from a file with its columns, rows kept in order; every (offering, group)
    /// must be one of the aggregates'.
    static func productsTable(_ path: String, results: [OfferingResult]) throws -> ResultTable {
        var offerings = results
        try forEachRow(of: path, columns: ["offering_id", "group", "product_id", "purchases", "renewals", "refunds", "net_revenue"]) {
            row, index, fail in
            let offeringID = row.string(at: index[0]) ?? ""
            let groupName = row.string(at: index[1]) ?? ""
            guard let offering = offerings.firstIndex(where: { $0.offering.offeringID == offeringID }),
                let group = offerings[offering].offering.groups.firstIndex(where: { $0.name == groupName })
            else { throw fail("group \(groupName) of \(offeringID) is not in the aggregates") }
            guard let productID = row.string(at: index[2]), !productID.isEmpty else { throw fail("product_id is empty") }
            var counts: [Int] = []
            for column in 3...5 {
                guard let value = row.int64(at: index[column]), value >= 0 else {
                    throw fail(
                        "\(["purchases", "renewals", "refunds"][column - 3]) '\(row.string(at: index[column]) ?? "")' is not a whole number ≥ 0"
                    )
                }
                counts.append(Int(value))
            }
            guard let net = row.double(at: index[6]) else { throw fail("net_revenue '\(row.string(at: index[6]) ?? "")' is not a number") }
            offerings[offering].products.append(
                ProductTotals(
                    group: group, productID: productID, purchases: counts[0], renewals: counts[1], refunds: counts[2], netRevenue: net))
        }
        return ResultTables.productsTable(offerings)
    }

    /// Calls `body` with each row of a CSV/TSV file that has `columns`, their indices, and a
    /// maker of errors naming the row.
    private static func forEachRow(
        of path: String, columns: [String], _ body: (TableRow, [Int], (String) -> OfferLabError) throws -> Void
    ) throws {
        guard let format = TableFormat(fileName: path) else {
            throw OfferLabError(.configuration, "\(path): expected a .csv or .tsv file (gzipped or not)")
        }
        do {
            let reader = try TableFileReader(path: path, format: format)
            let index = try reader.requireColumns(columns)
            try reader.forEachRow { row in
                let fail = { (problem: String) in OfferLabError(.data, "\(path) line \(row.lineNumber): \(problem)") }
                guard row.problem == nil else { throw fail("it has \(row.count) fields where the header has \(reader.header.count)") }
                try body(row, index, fail)
            }
        } catch let error as IngestError {
            throw OfferLabError(.data, "\(error)")
        }
    }
}
