import Foundation
import OfferLabAnalysis
import OfferLabIngest
import OfferLabJob
import OfferLabResults
import OfferLabStatistics
import OfferLabSupport
import OfferLabTables
import OfferLabVocabulary
import OfferLabWriters

/// `offerlab stats`: comparisons and SRM from per-group sufficient statistics computed
/// elsewhere, by the same code `run` uses.
///
/// An optional `metric` column adds the sums of docs/analysis.md §4b and §4c: a row whose `metric` is
/// `arpu_capped` holds a group's sums of capped revenue (the `arpu_capped` comparisons), one
/// whose `metric` is `d<D>` (`d7`) the sums of its members matured after D days
/// (`conversion_d<D>`, `arpu_d<D>`); an empty `metric` (or no such column) is the group's own
/// row. Every group of an offering then needs a row for each metric the offering has.
package enum AggregateStatistics {
    /// The sums every row has: a group's sufficient statistics.
    static let statisticsCounts: [GroupCount] = [.users, .converters]
    static let statisticsMoney: [GroupMoneySum] = [.revenueSum, .revenueSumSquares]
    static let columns = ["offering_id", "group", "is_control", "weight"] + statisticsCounts.map(\.column) + statisticsMoney.map(\.column)

    /// What a row's non-empty `metric` names: a group's capped sums, or its matured ones.
    enum FamilyMetric: Hashable, Comparable {
        case capped
        case matured(days: Int)
        /// Σ and Σ² of per-user net proceeds (docs/analysis.md §8), users and converters as the group's.
        case proceeds
        /// The members whose trial has ended (users) and those converted (converters) (docs/analysis.md §9).
        case trialCompleted
        /// The members (users) and those with a counted refund (converters).
        case refundUsers

        init?(_ text: String) {
            if text == Metric.arpuCapped.csvName {
                self = .capped
            } else if text == Metric.proceedsPerUser.csvName {
                self = .proceeds
            } else if text == Metric.trialCompletedConversion.csvName {
                self = .trialCompleted
            } else if text == Metric.refundUserRate.csvName {
                self = .refundUsers
            } else if text.hasPrefix("d"), text.dropFirst().allSatisfy(\.isASCII), let days = Int(text.dropFirst()), days > 0 {
                self = .matured(days: days)
            } else {
                return nil
            }
        }

        var text: String {
            switch self {
            case .capped: Metric.arpuCapped.csvName
            case .matured(let days): "d\(days)"
            case .proceeds: Metric.proceedsPerUser.csvName
            case .trialCompleted: Metric.trialCompletedConversion.csvName
            case .refundUsers: Metric.refundUserRate.csvName
            }
        }

        /// The family compared on these sums.
        func family(_ statistics: [GroupSufficientStatistics]) -> ComparisonFamily {
            switch self {
            case .capped: .cappedRevenue(statistics)
            case .matured(let days): .matured(days: days, statistics)
            case .proceeds: .proceedsPerUser(statistics)
            case .trialCompleted: .trialCompletedConversion(statistics)
            case .refundUsers: .refundUserRate(statistics)
            }
        }
    }

    /// One row of an aggregates file, with the line it came from.
    private struct Row {
        var line: Int
        var group: AnalysisGroup
    }

    /// Reads `input` (CSV or TSV, see the README), writes `comparisons.csv` and `srm.csv` into
    /// `output`, the sequential columns at N* = `sequentialTuning`, and `summary.csv` and
    /// `maturity.csv` when `input` has every column of `summaryColumns` (summary.csv's capped
    /// columns from the `arpu_capped` rows when it also has `cappedColumns`). With `quality`,
    /// `products` and `slices` (the other results of `offerlab sql`), writes `quality.csv`,
    /// `products.csv` and the three slice files from them. Returns the offering ids.
    /// - Throws: `OfferLabError` naming the file, the line and the problem.
    @discardableResult
    package static func run(
        input: String, output: String, alpha: Double, sequentialTuning: Double = SequentialInference.defaultTuning,
        srmConcentration: Double = SequentialSampleRatio.defaultConcentration, quality: String? = nil, products: String? = nil,
        slices: String? = nil
    ) throws -> [String] {
        guard alpha > 0 && alpha < 1 else { throw OfferLabError(.badArgument, "--alpha \(alpha) must be greater than 0 and less than 1") }
        guard sequentialTuning > 0, sequentialTuning.isFinite else {
            throw OfferLabError(.badArgument, "--sequential-tuning \(sequentialTuning) must be a positive number of users")
        }
        let settings = StatisticsSettings(alpha: alpha, sequentialTuning: sequentialTuning)
        let offerings = try read(input)
        guard !offerings.isEmpty else {
            throw OfferLabError(
                .badAggregates, "\(input): no rows after the header, so no offering to compute", location: .init(path: input))
        }
        let analyses = try offerings.map { offering in
            do {
                return (
                    offeringID: offering.id,
                    statistics: try analyzeOffering(
                        offering.groups, alpha: alpha, sequentialTuning: sequentialTuning,
                        families: offering.metrics.map { $0.metric.family($0.statistics) })
                )
            } catch {
                throw OfferLabError(
                    .rejectedTotals, "\(input): offering \(offering.id): \(error)", location: .init(path: input), cause: error)
            }
        }
        var tables = [
            ResultTables.comparisonsTable(analyses),
            ResultTables.srmTable(analyses, groups: offerings.map(\.groups), concentration: srmConcentration),
        ]
        let results = try summaryResults(input, offerings: offerings)
        if let results {
            let statistics = try results.map { try OfferingStatistics($0, settings: settings) }
            tables += [
                ResultTables.summaryTable(results, statistics: statistics), ResultTables.maturityTable(results, statistics: statistics),
            ]
        }
        if let quality { tables.append(try qualityTable(quality)) }
        /// The results that products and slices name their groups in.
        func groupsOfResults(option: String, path: String) throws -> [OfferingResult] {
            guard let results else {
                throw OfferLabError(
                    .badArgument,
                    "--\(option) \(path): \(input) lacks the summary columns that name its groups (\(summaryColumns.joined(separator: ", ")))",
                    location: .init(path: input)
                )
            }
            return results
        }
        if let products { tables.append(try productsTable(products, results: groupsOfResults(option: "products", path: products))) }
        if let slices {
            let sliced = try sliceResults(slices, results: groupsOfResults(option: "slices", path: slices))
            tables += ResultTables.sliceTables(
                sliced, statistics: try sliced.map { try OfferingStatistics($0, settings: settings) })
        }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw OfferLabError(
                .cannotWrite, "cannot create \(output): \(error.localizedDescription)", location: .init(path: output), cause: error)
        }
        for table in tables {
            try writeWhole(CSVWriter.csv(table), to: (output as NSString).appendingPathComponent("\(table.name).csv"))
        }
        return offerings.map(\.id)
    }

    /// Writes `text` to `path` whole or not at all: a temporary file beside it, renamed.
    /// - Throws: `OfferLabError` (`.cannotWrite`, exit 73).
    package static func writeWhole(_ text: String, to path: String) throws {
        let temporary = path + ".partial-\(getpid())"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else {
                throw OfferLabError(.cannotWrite, "cannot write \(path): \(String(cString: strerror(errno)))", location: .init(path: path))
            }
        } catch let error as OfferLabError {
            throw error
        } catch {
            throw OfferLabError(
                .cannotWrite, "cannot write \(path): \(error.localizedDescription)", location: .init(path: path), cause: error)
        }
    }

    /// The offerings of an aggregates file, in byte order of `offering_id`, groups in file order,
    /// with the sums of their `metric` rows (capped first, then D ascending).
    package static func read(_ path: String) throws -> [AggregateOffering] {
        guard let format = TableFormat(fileName: path) else {
            throw OfferLabError(.badArgument, "--input \(path): expected a .csv or .tsv file (gzipped or not)")
        }
        var offerings: [String: [AnalysisGroup]] = [:]
        var controlLine: [String: Int] = [:]
        /// Per offering and non-empty metric: its rows in file order.
        var metricRows: [String: [FamilyMetric: [Row]]] = [:]
        do {
            let reader = try TableFileReader(path: path, format: format)
            _ = try reader.requireColumns(columns)
            let metricColumn = reader.header.firstIndex(of: "metric")
            let positions = RowCells.positions(reader.header)
            try reader.forEachRow { row in
                let cells = RowCells(row: row, path: path, columns: positions)
                let fail = cells.fail
                guard row.problem == nil else { throw fail("it has \(row.count) fields where the header has \(reader.header.count)") }
                let offering = try cells.text("offering_id")
                let group = try cells.text("group")
                let metricText = metricColumn.flatMap { row.string(at: $0) } ?? ""
                let metric = FamilyMetric(metricText)
                guard metric != nil || metricText.isEmpty else {
                    throw fail(
                        "metric '\(metricText)' is not empty, arpu_capped, d<days> (like d7), proceeds_per_user, trial_completed_conversion or refund_user_rate"
                    )
                }
                guard let isControl = cells.bool("is_control") else { throw fail("is_control must be true or false") }
                let weight = try cells.number("weight")
                guard weight >= 0 else { throw fail("weight \(weight) is negative") }
                let parsed = AnalysisGroup(
                    name: group, isControl: isControl, weight: weight, statistics: try cells.statistics())
                if let metric {
                    if metricRows[offering]?[metric]?.contains(where: { $0.group.name == group }) == true {
                        throw fail("group \(group) of \(offering) appears twice with metric \(metric.text)")
                    }
                    metricRows[offering, default: [:]][metric, default: []].append(Row(line: row.lineNumber, group: parsed))
                    return
                }
                if offerings[offering]?.contains(where: { $0.name == group }) == true {
                    throw fail("group \(group) of \(offering) appears twice")
                }
                if isControl {
                    if let first = controlLine[offering] {
                        throw fail("\(offering) has a second control group (the first is on line \(first))")
                    }
                    controlLine[offering] = row.lineNumber
                }
                offerings[offering, default: []].append(parsed)
            }
        } catch let error as IngestError {
            throw OfferLabError(.badAggregates, context: "", error)
        }
        let orphans = metricRows.filter { offerings[$0.key] == nil }.flatMap { $0.value.values.flatMap { $0 } }
        if let orphan = orphans.min(by: { $0.line < $1.line }) {
            throw OfferLabError(
                .badAggregates, "\(path) line \(orphan.line): group \(orphan.group.name) has no row with an empty metric",
                location: .init(path: path, line: orphan.line))
        }
        if let missing = offerings.keys.sorted().first(where: { controlLine[$0] == nil }) {
            throw OfferLabError(
                .badAggregates, "\(path): offering \(missing) has no row with is_control = true", location: .init(path: path))
        }
        return try offerings.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { id in
            let groups = offerings[id] ?? []
            let metrics = try (metricRows[id] ?? [:]).sorted { $0.key < $1.key }.map { metric, rows in
                (metric, try statistics(of: metric, rows: rows, of: groups, offering: id, path: path))
            }
            return AggregateOffering(id: id, groups: groups, metrics: metrics)
        }
    }

    /// The sums of one offering's `metric` rows, parallel to its groups: one per group of its own
    /// rows, with the same `is_control` and `weight`.
    private static func statistics(
        of metric: FamilyMetric, rows: [Row], of groups: [AnalysisGroup], offering: String, path: String
    ) throws -> [GroupSufficientStatistics] {
        for row in rows {
            func fail(_ problem: String) -> OfferLabError {
                OfferLabError(.badAggregates, "\(path) line \(row.line): \(problem)", location: .init(path: path, line: row.line))
            }
            let name = row.group.name
            guard let own = groups.first(where: { $0.name == name }) else {
                throw fail("group \(name) of \(offering) has no row with an empty metric")
            }
            guard own.isControl == row.group.isControl, own.weight == row.group.weight else {
                throw fail("is_control and weight must be those of group \(name)'s row with an empty metric")
            }
            let (users, ownUsers) = (row.group.statistics.users, own.statistics.users)
            switch metric {
            case .capped where users != ownUsers, .proceeds where users != ownUsers, .refundUsers where users != ownUsers:
                throw fail("users \(users) of \(metric.text) must be the \(ownUsers) of group \(name)'s own row")
            case .matured where users > ownUsers: throw fail("\(users) matured users exceed the \(ownUsers) of group \(name)'s own row")
            case .trialCompleted where users > ownUsers:
                throw fail("\(users) users whose trial ended exceed the \(ownUsers) of group \(name)'s own row")
            default: break
            }
        }
        return try groups.map { group in
            guard let row = rows.first(where: { $0.group.name == group.name }) else {
                throw OfferLabError(
                    .badAggregates, "\(path): offering \(offering): group \(group.name) has no row with metric \(metric.text)",
                    location: .init(path: path))
            }
            return row.group.statistics
        }
    }

    /// summary.csv's counts and money in a group's own row (all or none).
    static let summaryCounts: [GroupCount] = [.trialStarters, .trialConverters, .paywallViewers, .purchases, .renewals, .refunds]
    static let summaryMoney: [GroupMoneySum] = [.grossRevenue, .refundedRevenue]
    static let summaryColumns = summaryCounts.map(\.column) + summaryMoney.map(\.column)

    /// The columns of an `arpu_capped` row that summary.csv's capped columns take beyond its
    /// sums: the offering's cap (empty: none) and the group's members lowered to it.
    static let cappedColumns = [ResultColumn.revenueCap, .cappedUsers].map(\.name)

    /// Every other count (docs/analysis.md §9's trial and subscriber counts, refund users, and
    /// any count declared after them) in a group's own row: with them (all or none) and the
    /// offering's `proceeds_per_user` rows, summary.csv's proceeds and trial columns are written;
    /// without, they are empty (never zeros that were not counted).
    static let trialCounts = GroupCount.allCases.filter { !statisticsCounts.contains($0) && !summaryCounts.contains($0) }
    static let trialColumns = trialCounts.map(\.column)

    /// Σ and Σ² of per-user net proceeds: the sums of the `proceeds_per_user` rows, and in a
    /// slices file columns of their own.
    static let proceedsMoney: [GroupMoneySum] = [.proceedsSum, .proceedsSumSquares]
    /// The optional columns of a slices file beyond the summary columns: `proceedsMoney`, then
    /// `trialColumns`.
    static let sliceProceedsColumns = proceedsMoney.map(\.column) + trialColumns

    /// Every other money sum (docs/analysis.md §8: the proceeds of the counted charges before
    /// refunds and their exact part, and any sum declared after them): optional columns (all or
    /// none) of a group's own row and of a slices row; without them `exact_proceeds_share` is
    /// empty, as it is for a group whose charges have no proceeds.
    static let chargeProceedsMoney = GroupMoneySum.allCases.filter {
        !statisticsMoney.contains($0) && !summaryMoney.contains($0) && !proceedsMoney.contains($0)
    }
    static let chargeProceedsColumns = chargeProceedsMoney.map(\.column)

    /// Every group's totals from its own row (empty `metric`), with the offering's capped (when
    /// `path` has `cappedColumns`) and matured sums, when `path` has the summary columns (nil
    /// when it has none of them).
    /// Read in a second pass over the (small) file, after `read` has checked every row.
    package static func summaryResults(_ path: String, offerings: [AggregateOffering]) throws -> [OfferingResult]? {
        var totals: [String: [String: GroupTotals]] = [:]
        /// Per offering: its cap, and per group its capped users.
        var capped: [String: (cap: Double?, users: [String: Int])] = [:]
        var hasTrialColumns = false
        var hasChargeProceeds = false
        do {
            let reader = try TableFileReader(path: path, format: TableFormat(fileName: path) ?? .csv)
            let present = summaryColumns.filter { reader.columnIndex($0) != nil }
            guard !present.isEmpty else { return nil }
            _ = try reader.requireColumns(summaryColumns + ["offering_id", "group"])
            let hasCappedColumns = cappedColumns.allSatisfy { reader.columnIndex($0) != nil }
            hasTrialColumns = trialColumns.contains { reader.columnIndex($0) != nil }
            if hasTrialColumns { _ = try reader.requireColumns(trialColumns) }
            hasChargeProceeds = chargeProceedsColumns.contains { reader.columnIndex($0) != nil }
            if hasChargeProceeds { _ = try reader.requireColumns(chargeProceedsColumns) }
            let positions = RowCells.positions(reader.header)
            try reader.forEachRow { row in
                let cells = RowCells(row: row, path: path, columns: positions)
                let (offering, group) = (cells.string("offering_id") ?? "", cells.string("group") ?? "")
                switch cells.string("metric") ?? "" {
                case "":
                    var total = GroupTotals()
                    try cells.read(summaryCounts + (hasTrialColumns ? trialCounts : []), summaryMoney, into: &total)
                    if hasChargeProceeds { try cells.readChargeProceeds(into: &total) }
                    totals[offering, default: [:]][group] = total
                case FamilyMetric.capped.text where hasCappedColumns:
                    let cap = cells.string(cappedColumns[0])?.isEmpty == false ? try cells.number(cappedColumns[0]) : nil
                    if let known = capped[offering], known.cap != cap {
                        throw cells.fail(
                            "revenue_cap \(cap.map { "\($0)" } ?? "(empty)") differs from the offering's other arpu_capped rows")
                    }
                    capped[offering, default: (cap, [:])].users[group] = try cells.count(cappedColumns[1])
                // A matured row's sums are its metric's; its summary columns are not the group's.
                default: return
                }
            }
        } catch let error as IngestError {
            throw OfferLabError(.badAggregates, context: "", error)
        }
        return offerings.map { offering in
            let groups = offering.groups.map { group in
                var total = totals[offering.id]?[group.name] ?? GroupTotals()
                total.statistics = group.statistics
                return total
            }
            var result = OfferingResult(
                offering: Offering(
                    id: 0, offeringID: offering.id, name: offering.id, isActive: true,
                    groups: offering.groups.map { OfferingGroup(id: 0, name: $0.name, weight: $0.weight, products: [], copy: nil) }),
                controlGroup: offering.groups.firstIndex { $0.isControl } ?? 0, groups: groups, products: [], quality: OfferingQuality())
            var hasProceeds = false
            for (metric, statistics) in offering.metrics {
                switch metric {
                case .capped:
                    guard let rows = capped[offering.id] else { continue }
                    result.cappedRevenue = CappedRevenue(
                        cap: rows.cap, groups: statistics, cappedUsers: offering.groups.map { rows.users[$0.name] ?? 0 })
                case .matured(let days): result.matured.append(MaturedGroups(days: days, groups: statistics))
                case .proceeds:
                    hasProceeds = true
                    for index in result.groups.indices {
                        (result.groups[index].proceedsSum, result.groups[index].proceedsSumSquares) = (
                            statistics[index].revenueSum, statistics[index].revenueSumSquares
                        )
                    }
                case .trialCompleted, .refundUsers: break
                }
            }
            result.hasProceedsAndTrials = hasProceeds && hasTrialColumns
            return result
        }
    }

    /// Each offering's slices (docs/analysis.md §7) from a file of `offerlab sql --part slices`: one row per
    /// (offering, dimension, level, group) with the statistics and summary columns; levels in
    /// the order of their first row, every group of the offering in every level.
    package static func sliceResults(_ path: String, results: [OfferingResult]) throws -> [OfferingResult] {
        struct LevelKey: Hashable {
            var offering: Int
            var field: SliceField
            var level: String
        }
        var levels: [LevelKey] = []
        var groupTotals: [LevelKey: [Int: GroupTotals]] = [:]
        // The proceeds sums and trial counts of docs/analysis.md §8–§9 are optional (all or none).
        let header = (try? TableFileReader(path: path, format: TableFormat(fileName: path) ?? .csv))?.header ?? []
        let hasProceedsAndTrials = sliceProceedsColumns.contains(where: header.contains)
        let hasChargeProceeds = chargeProceedsColumns.contains(where: header.contains)
        try forEachRow(
            of: path,
            columns: ["offering_id", "dimension", "level", "group"] + columns[4...] + summaryColumns
                + (hasProceedsAndTrials ? sliceProceedsColumns : []) + (hasChargeProceeds ? chargeProceedsColumns : [])
        ) { cells in
            let fail = cells.fail
            let (offering, group) = try groupIndex(cells, in: results)
            let dimension = cells.string("dimension") ?? ""
            guard let field = SliceField(rawValue: dimension) else {
                throw fail("dimension '\(dimension)' is not one of \(SliceField.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let level = try cells.text("level")
            let key = LevelKey(offering: offering, field: field, level: level)
            if groupTotals[key] == nil { levels.append(key) }
            guard groupTotals[key]?[group] == nil else {
                throw fail(
                    "group \(cells.string("group") ?? "") of \(cells.string("offering_id") ?? "") appears twice in \(dimension) \(level)")
            }
            var totals = GroupTotals()
            try cells.read(summaryCounts + (hasProceedsAndTrials ? trialCounts : []), summaryMoney, into: &totals)
            if hasProceedsAndTrials {
                // Numbers, as the `proceeds_per_user` rows' sums are read.
                for sum in proceedsMoney { totals.money[sum] = try cells.number(sum.column) }
            }
            if hasChargeProceeds { try cells.readChargeProceeds(into: &totals) }
            totals.statistics = try cells.statistics()
            groupTotals[key, default: [:]][group] = totals
        }
        var offerings = results
        for key in levels {
            let groups = try offerings[key.offering].offering.groups.indices.map { group in
                guard let totals = groupTotals[key]?[group] else {
                    throw OfferLabError(
                        .badAggregates,
                        "\(path): offering \(offerings[key.offering].offering.offeringID): group \(offerings[key.offering].offering.groups[group].name) has no row in \(key.field.rawValue) \(key.level)",
                        location: .init(path: path)
                    )
                }
                return totals
            }
            offerings[key.offering].slices.append(
                SliceResult(field: key.field, level: key.level, groups: groups, hasProceedsAndTrials: hasProceedsAndTrials))
        }
        return offerings
    }

    /// `quality.csv` from a file with its columns (`ResultSchema.quality`), rows kept in order.
    static func qualityTable(_ path: String) throws -> ResultTable {
        var table = ResultTable(.quality)
        table.rows = try qualityCounters(path).map { [.text($0.offeringID), .text($0.counter), .integer($0.count)] }
        return table
    }

    /// The counters of a file with `quality.csv`'s columns, in file order (with the line of each).
    package static func qualityCounters(_ path: String) throws -> [(offeringID: String, counter: String, count: Int, line: Int)] {
        var counters: [(offeringID: String, counter: String, count: Int, line: Int)] = []
        try forEachRow(of: path, columns: ResultSchema.quality.columns.map(\.name)) { cells in
            let counter = try cells.text(ResultColumn.counter.name)
            let count = try cells.count(ResultColumn.count.name)
            counters.append((cells.string(ResultColumn.offeringID.name) ?? "", counter, count, cells.row.lineNumber))
        }
        return counters
    }

    /// `products.csv` from a file with its columns, rows kept in order; every (offering, group)
    /// must be one of the aggregates'.
    static func productsTable(_ path: String, results: [OfferingResult]) throws -> ResultTable {
        ResultTables.productsTable(try withProducts(path, results: results))
    }

    /// `results` with the products of a file with `products.csv`'s columns, in file order.
    package static func withProducts(_ path: String, results: [OfferingResult]) throws -> [OfferingResult] {
        var offerings = results
        // net_proceeds is optional: products from aggregates that lack it leave it empty.
        let columns = ResultSchema.products.columns.map(\.name).filter { $0 != ResultColumn.netProceeds.name }
        try forEachRow(of: path, columns: columns) { cells in
            let (offering, group) = try groupIndex(cells, in: offerings)
            let hasProceeds = cells.columns[ResultColumn.netProceeds.name] != nil
            var product = ProductTotals(
                group: group, productID: try cells.text(ResultColumn.productID.name),
                purchases: try cells.count(ResultColumn.purchases.name), renewals: try cells.count(ResultColumn.renewals.name),
                refunds: try cells.count(ResultColumn.refunds.name), netRevenue: try cells.number(ResultColumn.netRevenue.name),
                netProceeds: hasProceeds ? try cells.number(ResultColumn.netProceeds.name) : nil)
            // The currencies its charges were paid in, for the report (`offerlab run --parts`, the night's parts).
            product.chargeCurrencies = (cells.string("charge_currencies") ?? "").split(separator: ";").map(String.init)
            offerings[offering].products.append(product)
        }
        return offerings
    }

    /// The offering and group (indices into `results` and its groups) that a row's `offering_id`
    /// and `group` name.
    /// - Throws: when the aggregates have no such group.
    private static func groupIndex(_ cells: RowCells, in results: [OfferingResult]) throws -> (offering: Int, group: Int) {
        let offeringID = cells.string("offering_id") ?? ""
        let groupName = cells.string("group") ?? ""
        guard let offering = results.firstIndex(where: { $0.offering.offeringID == offeringID }),
            let group = results[offering].offering.groups.firstIndex(where: { $0.name == groupName })
        else { throw cells.fail("group \(groupName) of \(offeringID) is not in the aggregates") }
        return (offering, group)
    }

    /// Calls `body` with the cells of each row of a CSV/TSV file that has `columns` (they make
    /// errors naming the row, and are read by column name).
    private static func forEachRow(of path: String, columns: [String], _ body: (RowCells) throws -> Void) throws {
        guard let format = TableFormat(fileName: path) else {
            throw OfferLabError(.badArgument, "\(path): expected a .csv or .tsv file (gzipped or not)", location: .init(path: path))
        }
        do {
            let reader = try TableFileReader(path: path, format: format)
            _ = try reader.requireColumns(columns)
            let positions = RowCells.positions(reader.header)
            try reader.forEachRow { row in
                let cells = RowCells(row: row, path: path, columns: positions)
                guard row.problem == nil else { throw cells.fail("it has \(row.count) fields where the header has \(reader.header.count)") }
                try body(cells)
            }
        } catch let error as IngestError {
            throw OfferLabError(.badAggregates, context: "", error)
        }
    }
}

/// One offering of an aggregates file: its groups (their own rows) and the sums of each of its
/// `metric` rows, parallel to the groups.
package struct AggregateOffering {
    var id: String
    var groups: [AnalysisGroup]
    var metrics: [(metric: AggregateStatistics.FamilyMetric, statistics: [GroupSufficientStatistics])]
}

/// The cells of one row of an input file, read by column name, with errors naming the file,
/// the line and the column.
private struct RowCells {
    let row: TableRow
    let path: String
    /// Each column's position, by name.
    let columns: [String: Int]

    /// The positions of `header`'s columns (the first of a repeated name).
    static func positions(_ header: [String]) -> [String: Int] {
        Dictionary(header.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
    }

    func fail(_ problem: String) -> OfferLabError {
        OfferLabError(.badAggregates, "\(path) line \(row.lineNumber): \(problem)", location: .init(path: path, line: row.lineNumber))
    }

    /// The cell of column `name`; nil when the file has no such column.
    func string(_ name: String) -> String? {
        columns[name].flatMap { row.string(at: $0) }
    }

    func bool(_ name: String) -> Bool? {
        columns[name].flatMap { row.bool(at: $0) }
    }

    func text(_ name: String) throws -> String {
        guard let value = string(name), !value.isEmpty else { throw fail("\(name) is empty") }
        return value
    }

    func count(_ name: String) throws -> Int {
        guard let value = columns[name].flatMap({ row.int64(at: $0) }), value >= 0 else {
            throw fail("\(name) '\(string(name) ?? "")' is not a whole number ≥ 0")
        }
        return Int(value)
    }

    func number(_ name: String) throws -> Double {
        guard let value = columns[name].flatMap({ row.double(at: $0) }) else {
            throw fail("\(name) '\(string(name) ?? "")' is not a number")
        }
        return value
    }

    func money(_ name: String) throws -> Double {
        guard let value = columns[name].flatMap({ row.double(at: $0) }), value >= 0 else {
            throw fail("\(name) '\(string(name) ?? "")' is not a number ≥ 0")
        }
        return value
    }

    /// `users`, `converters`, `revenue_sum` and `revenue_sum_squares`, checked to be sums that
    /// some users' values can have.
    func statistics() throws -> GroupSufficientStatistics {
        let users = try count(GroupCount.users.column)
        let converters = try count(GroupCount.converters.column)
        guard converters <= users else { throw fail("converters \(converters) exceed users \(users)") }
        let sum = try number(GroupMoneySum.revenueSum.column)
        let squares = try number(GroupMoneySum.revenueSumSquares.column)
        // Σx² ≥ (Σx)²/n for any real values: anything clearly below is not a sum of squares.
        guard squares >= 0, users > 0 || (sum == 0 && squares == 0), users == 0 || squares * Double(users) >= sum * sum * (1 - 1e-9) else {
            throw fail("revenue_sum \(sum) and revenue_sum_squares \(squares) cannot come from \(users) users")
        }
        return GroupSufficientStatistics(users: users, converters: converters, revenueSum: sum, revenueSumSquares: squares)
    }

    /// The cells of `counts` (whole numbers ≥ 0) and `money` (amounts ≥ 0), each by its column,
    /// into `totals`.
    func read(_ counts: [GroupCount], _ money: [GroupMoneySum], into totals: inout GroupTotals) throws {
        for count in counts { totals.counts[count] = try self.count(count.column) }
        for sum in money { totals.money[sum] = try self.money(sum.column) }
    }

    /// The cells of `chargeProceedsMoney` into `totals`: amounts ≥ 0, the exact part no more
    /// than the charges' proceeds (to the rounding of an engine's sums).
    func readChargeProceeds(into totals: inout GroupTotals) throws {
        try read([], AggregateStatistics.chargeProceedsMoney, into: &totals)
        let (charges, exact) = (totals.money[.chargeProceedsSum], totals.money[.exactProceedsSum])
        guard exact <= charges * (1 + 1e-9) else {
            throw fail(
                "\(GroupMoneySum.exactProceedsSum.column) \(CSVWriter.number(exact)) exceeds \(GroupMoneySum.chargeProceedsSum.column) \(CSVWriter.number(charges))"
            )
        }
    }
}
