import Foundation
import OfferLabAnalysis
import OfferLabEvents
import OfferLabIngest
import OfferLabJob
import OfferLabProjection
import OfferLabResults
import OfferLabStatistics
import OfferLabSupport
import OfferLabTables
import OfferLabVocabulary
import OfferLabWriters

/// The night's own parts (contract §3.3, docs/warehouse.md "The night's parts"): beyond §3.2's,
/// what the projection, the decision, the days left and the daily series rest on, per offering
/// and group, in one long form. Their size grows with offerings × groups × (tenure days, products
/// × renewals, assignment days, days of the test), never with the members.
package enum NightPart: String, CaseIterable, Sendable {
    /// Each group's observation (`GroupObservation`, `ObservationStatistic`), and per product the
    /// catalog gives no billing period its renewals and the period its members' charges show.
    case observations
    /// The app's past per product (`ProductPast`): only for a job with `history_logs`.
    case past
    /// Each group's members by whole days before `as_of` (`AssignmentDays`).
    case assignments
    /// Each group's goal (net revenue within the window) by whole days of tenure (`TenureProfile`).
    case tenure
    /// Each group's totals at the end of each day of the test (`DailyTotals`), by the day's number
    /// since 1970-01-01.
    case dailyTotals = "daily_totals"
    /// The night's valid log events before `as_of` and the latest one's time (the checks of a
    /// broken night): rows of no offering.
    case events
    /// The app's own track record's cohorts (`ObservedCohort`): rows of no offering, each
    /// cohort's `group` its month, read day and product (`2026-01 30 monthly`); only for a job
    /// with `history_logs`.
    case backtest

    /// The columns of every night part, in order.
    package static let columns = [
        "night", "offering_id", "group", "statistic", "product_id", "next_product_id", "key_1", "key_2", "key_3", "value",
    ]
    /// The version of the parts' form: parts of another are refused.
    package static let version = "parts-1"
}

/// One row of a night part: a statistic of an offering's group (or of the offering, `group`
/// empty), by product and by up to three whole-number keys.
package struct NightPartRow: Sendable, Equatable {
    package var offeringID: String
    /// Empty: the offering's own (the past, the products without a period, the first day).
    package var group: String
    package var statistic: String
    /// The product (empty: the products the catalog does not list, for a statistic that names one).
    package var productID: String
    package var nextProductID: String
    package var keys: [Int]
    package var value: Double
    /// The line of its file (0: made here), for the errors that name it; not compared.
    package var line = 0

    package static func == (first: NightPartRow, second: NightPartRow) -> Bool {
        (first.offeringID, first.group, first.statistic, first.productID, first.nextProductID, first.value)
            == (second.offeringID, second.group, second.statistic, second.productID, second.nextProductID, second.value)
            && first.keys == second.keys
    }

    package init(
        offeringID: String, group: String = "", statistic: String, productID: String = "", nextProductID: String = "", keys: [Int] = [],
        value: Double, line: Int = 0
    ) {
        self.offeringID = offeringID
        self.group = group
        self.statistic = statistic
        self.productID = productID
        self.nextProductID = nextProductID
        self.keys = keys
        self.value = value
        self.line = line
    }
}

/// What every part of a night carries in its `night` column: the night's `as_of`, the version of
/// the parts' form and the job file's fingerprint, so that a part of another night, version or
/// job is refused (contract §3.3).
package struct NightPartsIdentity: Sendable, Equatable {
    package var asOf: String
    package var version: String
    package var job: String

    package init(job: Job) throws {
        asOf = job.run.night.isoText
        version = NightPart.version
        self.job = try Self.fingerprint(ofJobFile: job.jobPath)
    }

    init(asOf: String, version: String, job: String) {
        self.asOf = asOf
        self.version = version
        self.job = job
    }

    /// `<as_of> <version> job-<16 hex digits>`.
    package var text: String { "\(asOf) \(version) \(job)" }

    /// The identity in a part's `night` cell; nil when it is not one.
    init?(text: String) {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 3 else { return nil }
        (asOf, version, job) = (String(fields[0]), String(fields[1]), String(fields[2]))
    }

    /// What keeps a part's `night` cell from being this night's, for the refusal: not the form
    /// `offerlab sql` writes, or another night's, version's or job's; nil when it is this night's.
    package func problem(withCell text: String) -> String? {
        guard let cell = NightPartsIdentity(text: text) else {
            return "night '\(text)' is not '<as_of> <version> <job>' as `offerlab sql` writes it"
        }
        return cell.difference(from: self)
    }

    /// FNV-1a over the job file's bytes: a part written for this file, whatever its path.
    static func fingerprint(ofJobFile path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OfferLabError(.missingInput, "\(path): cannot read the job file", location: .init(path: path))
        }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let hex = String(hash, radix: 16)
        return "job-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// What differs between a part's identity and the night's, for the refusal.
    func difference(from night: NightPartsIdentity) -> String? {
        if version != night.version { return "is of version \(version), this offerlab reads \(night.version)" }
        if job != night.job { return "was computed for another job file (\(job), this one is \(night.job))" }
        if asOf != night.asOf { return "was computed for as_of \(asOf), the night is \(night.asOf)" }
        return nil
    }
}

/// The night parts of offerings computed by `run` (the rows an engine's parts must equal), and
/// their reading back into the layer every night is computed from.
package enum NightParts {
    /// The night parts a job needs: `past` only with `history_logs`.
    package static func parts(of job: Job) -> [NightPart] {
        NightPart.allCases.filter { ($0 != .past && $0 != .backtest) || !job.history.patterns.isEmpty }
    }

    // MARK: From the layer

    /// Each night part's rows for the night `results` and its track record's `cohorts` (in the
    /// offerings' order; every value that is not 0).
    package static func rows(of results: NightResults, cohorts: [ObservedCohort]?, part: NightPart) -> [NightPartRow] {
        switch part {
        case .events:
            eventRows(eventsBeforeAsOf: results.eventsBeforeAsOf, latestEvent: results.latestEvent, history: results.historyIngest)
        case .backtest: backtestRows(cohorts ?? [])
        case .observations, .past, .assignments, .tenure, .dailyTotals: rows(of: results.offerings, part: part)
        }
    }

    /// The rows of a part kept per offering, for `offerings` (none for the night's `events` and
    /// the track record's `backtest`).
    package static func rows(of offerings: [OfferingResult], part: NightPart) -> [NightPartRow] {
        offerings.flatMap { result -> [NightPartRow] in
            let offeringID = result.offering.offeringID
            let groups = result.offering.groups.map(\.name)
            switch part {
            case .observations:
                guard let projection = result.projection else { return [] }
                let ids = projection.productIDs
                return zip(groups, projection.groups).flatMap { name, observed in
                    observed.rows.map { row($0, offeringID: offeringID, group: name, productIDs: ids) }
                }
                    + projection.renewalsWithoutPeriod.flatMap { product in
                        [
                            NightPartRow(
                                offeringID: offeringID, statistic: "renewals_without_period", productID: product.productID,
                                value: Double(product.renewals))
                        ]
                            + (product.periodDays.map {
                                [NightPartRow(offeringID: offeringID, statistic: "period_days", productID: product.productID, value: $0)]
                            } ?? [])
                    }
            case .past:
                guard let projection = result.projection else { return [] }
                return projection.past.enumerated().flatMap { product, past in
                    past.rows(product: product).map { row($0, offeringID: offeringID, group: "", productIDs: projection.productIDs) }
                }
            case .assignments:
                return zip(groups, result.assignments ?? []).flatMap { name, days in
                    var rows =
                        days.first.map {
                            [NightPartRow(offeringID: offeringID, group: name, statistic: "first_assigned_at", value: Double($0))]
                        } ?? []
                    for (before, members) in days.byDaysBefore.enumerated() where members > 0 {
                        rows.append(
                            NightPartRow(
                                offeringID: offeringID, group: name, statistic: "members_by_days_before", keys: [before],
                                value: Double(members)))
                    }
                    for (before, members) in days.exactlyDaysBefore.enumerated() where members > 0 {
                        rows.append(
                            NightPartRow(
                                offeringID: offeringID, group: name, statistic: "members_exactly_days_before", keys: [before],
                                value: Double(members)))
                    }
                    return rows
                }
            case .tenure:
                return zip(groups, result.revenueByTenure).flatMap { name, profile in
                    [
                        ("members_by_tenure_day", profile.members), ("goal_sum_by_tenure_day", profile.sums),
                        ("goal_squares_by_tenure_day", profile.squares),
                    ]
                    .flatMap { statistic, values in
                        values.enumerated().filter { $0.element != 0 }.map {
                            NightPartRow(offeringID: offeringID, group: name, statistic: statistic, keys: [$0.offset], value: $0.element)
                        }
                    }
                }
            case .events, .backtest: return []
            case .dailyTotals:
                guard let first = result.daily.first.flatMap({ Timestamp.parse($0.date + "T00:00:00Z") }) else { return [] }
                let firstDay = Int(first / Microseconds.perDay)
                var rows = [NightPartRow(offeringID: offeringID, statistic: "first_day", value: Double(firstDay))]
                for (day, totals) in result.daily.enumerated() {
                    for (name, group) in zip(groups, totals.groups) {
                        for count in GroupCount.allCases where group.counts[count] != 0 {
                            rows.append(
                                NightPartRow(
                                    offeringID: offeringID, group: name, statistic: count.column, keys: [firstDay + day],
                                    value: Double(group.counts[count])))
                        }
                        for sum in GroupMoneySum.allCases where group.money[sum] != 0 {
                            rows.append(
                                NightPartRow(
                                    offeringID: offeringID, group: name, statistic: sum.column, keys: [firstDay + day],
                                    value: group.money[sum]))
                        }
                    }
                }
                return rows
            }
        }
    }

    /// The `events` part's rows: the valid log events before `as_of`, and the latest one's time
    /// (µs) when there is one.
    /// and, with `history_logs`, their files' lines read and malformed by reason (`history_…`).
    static func eventRows(eventsBeforeAsOf: Int, latestEvent: Int64?, history: IngestCounters?) -> [NightPartRow] {
        var rows = [NightPartRow(offeringID: "", statistic: "valid_before_as_of", value: Double(eventsBeforeAsOf))]
        if let latestEvent { rows.append(NightPartRow(offeringID: "", statistic: "latest_at", value: Double(latestEvent))) }
        if let history {
            let counts =
                [("lines_read", history.nonBlankLines)]
                + MalformedReason.allCases.map { ($0.counterName, history.malformed[Int($0.rawValue)]) }
            for (counter, count) in counts where count > 0 {
                rows.append(NightPartRow(offeringID: "", statistic: "history_" + counter, value: Double(count)))
            }
        }
        return rows
    }

    /// The night's events from the `events` part's rows (`eventRows`), the `history_logs` files'
    /// counters when `hasHistory`.
    /// - Throws: `OfferLabError` (exit 65) naming the line of a row that is not one of them.
    package static func events(_ rows: [NightPartRow], path: String, hasHistory: Bool) throws -> (
        eventsBeforeAsOf: Int, latestEvent: Int64?, history: IngestCounters?
    ) {
        var before: Int?
        var latest: Int64?
        var history = hasHistory ? IngestCounters() : nil
        let reasons = Dictionary(uniqueKeysWithValues: MalformedReason.allCases.map { ("history_" + $0.counterName, $0) })
        for row in rows {
            guard row.offeringID.isEmpty, row.group.isEmpty, row.keys.isEmpty, row.value == row.value.rounded(), row.value >= 0,
                row.value < 9e15,
                ["valid_before_as_of", "latest_at"].contains(row.statistic)
                    || (hasHistory && (row.statistic == "history_lines_read" || reasons[row.statistic] != nil))
            else {
                throw OfferLabError(
                    .badAggregates,
                    "part events: \(path) line \(row.line): a row of no offering and group: valid_before_as_of (a count), latest_at (µs), or with history_logs history_lines_read and history_<malformed reason> (counts)",
                    location: .init(path: path, line: row.line))
            }
            switch row.statistic {
            case "latest_at": latest = Int64(row.value)
            case "valid_before_as_of": before = Int(row.value)
            case "history_lines_read": history?.nonBlankLines = Int(row.value)
            default: if let reason = reasons[row.statistic] { history?.malformed[Int(reason.rawValue)] = Int(row.value) }
            }
        }
        guard let before else {
            throw OfferLabError(.badAggregates, "part events: \(path): no valid_before_as_of row", location: .init(path: path))
        }
        return (before, latest, history)
    }

    private static func row(_ row: ObservationRow, offeringID: String, group: String, productIDs: [String]) -> NightPartRow {
        NightPartRow(
            offeringID: offeringID, group: group, statistic: row.statistic.rawValue, productID: row.product.map { productIDs[$0] } ?? "",
            nextProductID: row.nextProduct.map { productIDs[$0] } ?? "", keys: row.keys, value: row.value)
    }

    /// A night part as CSV (a header row; values in their shortest exact text, text quoted when it
    /// must be and otherwise as it is: a file for `offerlab stats`, not for a spreadsheet).
    package static func csv(_ rows: [NightPartRow], identity: NightPartsIdentity) -> String {
        var text = NightPart.columns.joined(separator: ",") + "\n"
        for row in rows {
            let keys = (0..<3).map { $0 < row.keys.count ? String(row.keys[$0]) : "" }
            text +=
                ([identity.text, row.offeringID, row.group, row.statistic, row.productID, row.nextProductID].map(CSVWriter.quoted) + keys
                + [
                    number(row.value)
                ])
                .joined(separator: ",") + "\n"
        }
        return text
    }

    /// Whole numbers below 2⁵³ as integers, others in Swift's shortest round-trip text.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 9_007_199_254_740_992 ? String(Int64(value)) : String(value)
    }

}

extension NightParts {
    // MARK: Back into the layer

    /// A night part's rows from `path`, every row's `night` checked against `identity`.
    /// - Throws: `OfferLabError` (exit 65) naming the file, and the line of a row it cannot read:
    ///   a missing file or column, another night's, version's or job's row, an empty (NULL) or
    ///   malformed value or key.
    package static func read(_ part: NightPart, path: String, identity: NightPartsIdentity) throws -> [NightPartRow] {
        func refuse(_ problem: String, line: Int? = nil) -> OfferLabError {
            OfferLabError(
                .badAggregates, "part \(part.rawValue): \(path)\(line.map { " line \($0)" } ?? ""): \(problem)",
                location: .init(path: path, line: line))
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw refuse("missing (`offerlab sql JOB --dialect D --part \(part.rawValue)` writes its script)")
        }
        var rows: [NightPartRow] = []
        do {
            let reader = try TableFileReader(path: path, format: TableFormat(fileName: path) ?? .csv)
            let positions = try reader.requireColumns(NightPart.columns)
            try reader.forEachRow { row in
                let line = row.lineNumber
                guard row.problem == nil else {
                    throw refuse("it has \(row.count) fields where the header has \(reader.header.count)", line: line)
                }
                func text(_ column: Int) -> String { row.string(at: positions[column]) ?? "" }
                if let problem = identity.problem(withCell: text(0)) { throw refuse(problem, line: line) }
                guard !text(1).isEmpty || part == .events || part == .backtest else { throw refuse("offering_id is empty", line: line) }
                guard !text(3).isEmpty else { throw refuse("statistic is empty", line: line) }
                var keys: [Int] = []
                for column in 6...8 {
                    let cell = text(column)
                    if cell.isEmpty { continue }
                    guard keys.count == column - 6, let key = row.int64(at: positions[column]), key >= 0, key < Int64(Int32.max) else {
                        throw refuse(
                            "\(NightPart.columns[column]) '\(cell)' is not a whole number ≥ 0 after the keys before it", line: line)
                    }
                    keys.append(Int(key))
                }
                guard !text(9).isEmpty else { throw refuse("value is empty (NULL): a count or sum is never taken as 0", line: line) }
                guard let value = row.double(at: positions[9]), value.isFinite else {
                    throw refuse("value '\(text(9))' is not a finite number", line: line)
                }
                rows.append(
                    NightPartRow(
                        offeringID: text(1), group: text(2), statistic: text(3), productID: text(4), nextProductID: text(5), keys: keys,
                        value: value, line: line))
            }
        } catch let error as IngestError {
            throw OfferLabError(.badAggregates, context: "part \(part.rawValue): ", error)
        }
        return rows
    }

    /// Sets each offering's projection inputs, assignments, tenure profiles and daily series from
    /// the night parts' rows (`read`), as `run` sets them from its members; `paths` name the files
    /// in errors. The products are the catalog's (`ProjectionCatalog`), at `asOf`; the tenure's
    /// final day is the window's (`windowMicroseconds`).
    /// - Throws: `OfferLabError` (exit 65) naming the file and line of a row that names an
    ///   offering, group, statistic or product the night does not have, or that the statistic
    ///   cannot hold.
    package static func apply(
        _ rows: [NightPart: [NightPartRow]], paths: [NightPart: String], to results: inout [OfferingResult], catalog: ProjectionCatalog,
        asOf: Int64, windowMicroseconds: Int64?
    ) throws {
        var byOffering: [String: [NightPart: [NightPartRow]]] = [:]
        for (part, partRows) in rows where part != .events && part != .backtest {
            for row in partRows {
                guard results.contains(where: { $0.offering.offeringID == row.offeringID }) else {
                    throw OfferingParts.refusal(
                        part, row, paths: paths,
                        "offering \(row.offeringID) is not one of the night's (\(results.map(\.offering.offeringID).joined(separator: ", ")))"
                    )
                }
                byOffering[row.offeringID, default: [:]][part, default: []].append(row)
            }
        }
        let productIndex = Dictionary(uniqueKeysWithValues: catalog.productIDs.enumerated().map { ($1, $0) })
        for index in results.indices {
            let offeringID = results[index].offering.offeringID
            let parts = OfferingParts(
                offeringID: offeringID, groups: results[index].offering.groups.map(\.name), rows: byOffering[offeringID] ?? [:],
                hasPast: rows[.past] != nil, paths: paths, productIndex: productIndex, asOf: asOf)
            results[index].projection = try parts.projection(catalog: catalog)
            results[index].assignments = try parts.assignments()
            results[index].revenueByTenure = try parts.tenure(
                finalFrom: AttributionRules.finalTenureDay(windowMicroseconds: windowMicroseconds))
            results[index].daily = try parts.daily()
        }
    }
}

/// One offering's rows of the night parts read back into its layer (`NightParts.apply`): the
/// checks every part shares, then one reader per part.
private struct OfferingParts {
    let offeringID: String
    let groups: [String]
    /// The offering's rows, by part.
    let rows: [NightPart: [NightPartRow]]
    /// Whether the night has a `past` part (a job with `history_logs`).
    let hasPast: Bool
    /// The files, for errors.
    let paths: [NightPart: String]
    let productIndex: [String: Int]
    let asOf: Int64

    /// The refusal of a row (exit 65), naming its file and line.
    static func refusal(_ part: NightPart, _ row: NightPartRow, paths: [NightPart: String], _ problem: String) -> OfferLabError {
        let path = paths[part] ?? part.rawValue
        return OfferLabError(
            .badAggregates, "part \(part.rawValue): \(path) line \(row.line): \(problem)", location: .init(path: path, line: row.line))
    }

    /// The refusal of a part's counts as a whole, naming its file.
    func refusal(_ part: NightPart, _ problem: String) -> OfferLabError {
        let path = paths[part] ?? part.rawValue
        return OfferLabError(.badAggregates, "part \(part.rawValue): \(path): \(problem)", location: .init(path: path))
    }

    func refuse(_ part: NightPart, _ row: NightPartRow, _ problem: String) -> OfferLabError {
        Self.refusal(part, row, paths: paths, problem)
    }

    func rowsOf(_ part: NightPart) -> [NightPartRow] { rows[part] ?? [] }

    /// The index of the row's group; nil for the offering's own rows.
    func group(_ part: NightPart, _ row: NightPartRow, own: Bool) throws -> Int? {
        if row.group.isEmpty {
            guard own else { throw refuse(part, row, "\(row.statistic) is a group's: group is empty") }
            return nil
        }
        guard let position = groups.firstIndex(of: row.group) else {
            throw refuse(part, row, "group \(row.group) is not a group of \(offeringID) (\(groups.joined(separator: ", ")))")
        }
        return position
    }

    func product(_ part: NightPart, _ row: NightPartRow, _ id: String) throws -> Int {
        guard let position = productIndex[id] else { throw refuse(part, row, "product \(id) is not in the catalog") }
        return position
    }

    func keys(_ part: NightPart, _ row: NightPartRow, _ count: Int) throws {
        guard row.keys.count == count else {
            throw refuse(part, row, "\(row.statistic) takes \(count) keys, the row has \(row.keys.count)")
        }
    }

    func count(_ part: NightPart, _ row: NightPartRow) throws -> Int {
        guard row.value >= 0, row.value == row.value.rounded(), row.value < 9e15 else {
            throw refuse(part, row, "\(row.statistic) \(NightParts.number(row.value)) is not a count (a whole number, 0 or more)")
        }
        return Int(row.value)
    }

    /// The projection's inputs: the products without a period first (their period is the members'),
    /// each group's observation, the app's past.
    func projection(catalog: ProjectionCatalog) throws -> ProjectionInputs {
        let configuration = ProjectionConfiguration(asOf: asOf)
        var products = catalog.products
        var withoutPeriod: [Int: ProductWithoutPeriod] = [:]
        var groupRows = Array(repeating: [ObservationRow](), count: groups.count)
        var groupLines = Array(repeating: [Int](), count: groups.count)
        for row in rowsOf(.observations) {
            guard let position = try group(.observations, row, own: true) else {
                let productPosition = try product(.observations, row, row.productID)
                try keys(.observations, row, 0)
                var entry =
                    withoutPeriod[productPosition] ?? ProductWithoutPeriod(productID: row.productID, renewals: 0, periodDays: nil)
                switch row.statistic {
                case "renewals_without_period": entry.renewals = try count(.observations, row)
                case "period_days":
                    guard row.value >= 1 else { throw refuse(.observations, row, "period_days \(row.value) is under a day") }
                    entry.periodDays = row.value
                    products[productPosition] = ProjectionProduct(renewalPeriodDays: row.value)
                default:
                    throw refuse(
                        .observations, row, "statistic \(row.statistic) is not an offering's (renewals_without_period, period_days)")
                }
                withoutPeriod[productPosition] = entry
                continue
            }
            guard let statistic = ObservationStatistic(rawValue: row.statistic) else {
                throw refuse(.observations, row, "statistic \(row.statistic) is not one of the observation's (docs/warehouse.md)")
            }
            groupRows[position].append(
                ObservationRow(
                    statistic, product: statistic.hasProduct ? try product(.observations, row, row.productID) : nil,
                    nextProduct: statistic == .followOnProducts ? try product(.observations, row, row.nextProductID) : nil,
                    keys: row.keys,
                    value: row.value))
            groupLines[position].append(row.line)
        }
        var observations: [GroupObservation] = []
        for (position, name) in groups.enumerated() {
            do {
                observations.append(
                    try GroupObservation(name: name, rows: groupRows[position], products: products, configuration: configuration))
            } catch {
                let line = groupRows[position].firstIndex(of: error.row).map { groupLines[position][$0] } ?? 0
                let path = paths[.observations] ?? "observations"
                throw OfferLabError(
                    .badAggregates, "part observations: \(path) line \(line): group \(name): \(error)",
                    location: .init(path: path, line: line))
            }
        }
        var past: [ProductPast] = []
        if hasPast {
            let pastRows = rowsOf(.past)
            var observationRows: [ObservationRow] = []
            for row in pastRows {
                guard try group(.past, row, own: true) == nil else {
                    throw refuse(.past, row, "the past is the offering's: group must be empty")
                }
                guard let statistic = ObservationStatistic(rawValue: row.statistic), ObservationStatistic.past.contains(statistic)
                else {
                    throw refuse(
                        .past, row,
                        "statistic \(row.statistic) is not one of the past's (\(ObservationStatistic.past.map(\.rawValue).joined(separator: ", ")))"
                    )
                }
                observationRows.append(
                    ObservationRow(statistic, product: try product(.past, row, row.productID), keys: row.keys, value: row.value))
            }
            do {
                past = try ProductPast.fromRows(observationRows, products: products.count)
            } catch {
                let line = observationRows.firstIndex(of: error.row).map { pastRows[$0].line } ?? 0
                let path = paths[.past] ?? "past"
                throw OfferLabError(
                    .badAggregates, "part past: \(path) line \(line): \(error)", location: .init(path: path, line: line))
            }
        }
        return ProjectionInputs(
            groups: observations, products: products, productIDs: catalog.productIDs, asOf: asOf,
            renewalsWithoutPeriod: withoutPeriod.sorted { $0.key < $1.key }.map(\.value), past: past)
    }

    /// The decision's assignment days, per group.
    func assignments() throws -> [AssignmentDays] {
        var first = Array(repeating: Int64?.none, count: groups.count)
        var byDays = Array(repeating: [Int](), count: groups.count)
        var exactly = Array(repeating: [Int](), count: groups.count)
        for row in rowsOf(.assignments) {
            guard let position = try group(.assignments, row, own: false) else { continue }
            switch row.statistic {
            case "first_assigned_at":
                try keys(.assignments, row, 0)
                guard row.value == row.value.rounded(), row.value < Double(asOf) else {
                    throw refuse(.assignments, row, "first_assigned_at \(NightParts.number(row.value)) is not a time (µs) before as_of")
                }
                first[position] = Int64(row.value)
            case "members_by_days_before", "members_exactly_days_before":
                try keys(.assignments, row, 1)
                let day = row.keys[0]
                guard day < 100_000 else { throw refuse(.assignments, row, "\(day) days before as_of is out of range") }
                let members = try count(.assignments, row)
                if row.statistic == "members_by_days_before" {
                    if byDays[position].count <= day {
                        byDays[position] += Array(repeating: 0, count: day + 1 - byDays[position].count)
                    }
                    byDays[position][day] = members
                } else {
                    if exactly[position].count <= day {
                        exactly[position] += Array(repeating: 0, count: day + 1 - exactly[position].count)
                    }
                    exactly[position][day] = members
                }
            default:
                throw refuse(
                    .assignments, row,
                    "statistic \(row.statistic) is not one of first_assigned_at, members_by_days_before, members_exactly_days_before")
            }
        }
        return try groups.indices.map { position in
            let days = max(byDays[position].count, exactly[position].count)
            guard
                let assigned = AssignmentDays(
                    asOf: asOf, first: first[position],
                    byDaysBefore: byDays[position] + Array(repeating: 0, count: days - byDays[position].count),
                    exactlyDaysBefore: exactly[position] + Array(repeating: 0, count: days - exactly[position].count))
            else {
                throw refusal(
                    .assignments,
                    "group \(groups[position]) of \(offeringID): its counts disagree (more members exactly k days before than k to k + 1 days, or first_assigned_at not in the earliest day)"
                )
            }
            return assigned
        }
    }

    /// The days left's goal by tenure, per group; its final day is the window's (`finalFrom`).
    func tenure(finalFrom: Int?) throws -> [TenureProfile] {
        var tenure = Array(repeating: (members: [Double](), sums: [Double](), squares: [Double]()), count: groups.count)
        for row in rowsOf(.tenure) {
            guard let position = try group(.tenure, row, own: false) else { continue }
            try keys(.tenure, row, 1)
            let day = row.keys[0]
            guard day < 100_000 else { throw refuse(.tenure, row, "tenure day \(day) is out of range") }
            func set(_ values: inout [Double]) {
                if values.count <= day { values += Array(repeating: 0, count: day + 1 - values.count) }
                values[day] = row.value
            }
            switch row.statistic {
            case "members_by_tenure_day":
                _ = try count(.tenure, row)
                set(&tenure[position].members)
            case "goal_sum_by_tenure_day": set(&tenure[position].sums)
            case "goal_squares_by_tenure_day": set(&tenure[position].squares)
            default:
                throw refuse(
                    .tenure, row,
                    "statistic \(row.statistic) is not one of members_by_tenure_day, goal_sum_by_tenure_day, goal_squares_by_tenure_day"
                )
            }
        }
        return try groups.indices.map { position in
            let days = max(tenure[position].members.count, tenure[position].sums.count, tenure[position].squares.count)
            func padded(_ values: [Double]) -> [Double] { values + Array(repeating: 0, count: days - values.count) }
            guard
                let profile = TenureProfile(
                    members: padded(tenure[position].members), sums: padded(tenure[position].sums),
                    squares: padded(tenure[position].squares), finalFrom: finalFrom)
            else {
                throw refusal(
                    .tenure,
                    "group \(groups[position]) of \(offeringID): a tenure day has sums but no member, or a negative sum of squares")
            }
            return profile
        }
    }

    /// The daily series: the offering's first day, then each group's totals by day.
    func daily() throws -> [DailyTotals] {
        let dailyRows = rowsOf(.dailyTotals)
        guard let firstRow = dailyRows.first(where: { $0.group.isEmpty }) else {
            if let row = dailyRows.first { throw refuse(.dailyTotals, row, "the offering has totals but no first_day row") }
            return []
        }
        guard firstRow.statistic == "first_day", firstRow.keys.isEmpty, firstRow.value == firstRow.value.rounded(),
            abs(firstRow.value) < 1e7
        else { throw refuse(.dailyTotals, firstRow, "the offering's row must be first_day, a day number since 1970-01-01") }
        let firstDay = Int64(firstRow.value) * Microseconds.perDay
        guard firstDay < asOf else { throw refuse(.dailyTotals, firstRow, "first_day is not before as_of") }
        let dayCount = Int((asOf - 1 - firstDay) / Microseconds.perDay) + 1
        var days = (0..<dayCount).map {
            DailyTotals(
                date: Timestamp.formatDate(firstDay + Int64($0) * Microseconds.perDay),
                groups: Array(repeating: GroupTotals(), count: groups.count))
        }
        let counts = Dictionary(uniqueKeysWithValues: GroupCount.allCases.map { ($0.column, $0) })
        let sums = Dictionary(uniqueKeysWithValues: GroupMoneySum.allCases.map { ($0.column, $0) })
        for row in dailyRows where row.line != firstRow.line || row != firstRow {
            guard let position = try group(.dailyTotals, row, own: false) else {
                throw refuse(.dailyTotals, row, "the offering has a second row of its own")
            }
            try keys(.dailyTotals, row, 1)
            let day = row.keys[0] - Int(firstRow.value)
            guard days.indices.contains(day) else {
                throw refuse(.dailyTotals, row, "day \(row.keys[0]) is not a day of the test (first_day to as_of)")
            }
            if let counted = counts[row.statistic] {
                days[day].groups[position].counts[counted] = try count(.dailyTotals, row)
            } else if let summed = sums[row.statistic] {
                days[day].groups[position].money[summed] = row.value
            } else {
                throw refuse(.dailyTotals, row, "statistic \(row.statistic) is not a column of the aggregates")
            }
        }
        return days
    }
}

extension NightParts {
    /// The facts of a track record's cohort, beside its observation's rows and its past's
    /// (`past_` and the past's statistic).
    static let cohortFacts = ["cohort_buyers", "cohort_horizon_days", "cohort_read_at", "cohort_realized_revenue"]

    /// The `backtest` part's rows: per cohort its facts (always), its buyers' observation and the
    /// past at its cut (values not 0).
    static func backtestRows(_ cohorts: [ObservedCohort]) -> [NightPartRow] {
        cohorts.flatMap { cohort -> [NightPartRow] in
            let group = "\(cohort.monthText) \(cohort.readDay) \(cohort.productID)"
            let facts = zip(
                cohortFacts,
                [Double(cohort.buyers), Double(cohort.horizonDays), Double(cohort.readAt), cohort.realizedRevenue]
            ).map { NightPartRow(offeringID: "", group: group, statistic: $0, value: $1) }
            return facts + cohort.observation.rows.map { row($0, offeringID: "", group: group, productIDs: cohort.productIDs) }
                + cohort.past.enumerated().flatMap { product, past in
                    past.rows(product: product).map { pastRow in
                        var written = row(pastRow, offeringID: "", group: group, productIDs: cohort.productIDs)
                        written.statistic = "past_" + written.statistic
                        return written
                    }
                }
        }
    }

    /// The track record's cohorts from the `backtest` part's rows (`backtestRows`), in `run`'s
    /// order (product, read day, month), the products the catalog's.
    /// - Throws: `OfferLabError` (exit 65) naming the file and line of a row it cannot read.
    package static func cohorts(_ rows: [NightPartRow], catalog: ProjectionCatalog, path: String) throws -> [ObservedCohort] {
        func refuse(_ row: NightPartRow?, _ problem: String) -> OfferLabError {
            OfferLabError(
                .badAggregates, "part backtest: \(path)\(row.map { " line \($0.line)" } ?? ""): \(problem)",
                location: .init(path: path, line: row?.line))
        }
        let productIndex = Dictionary(uniqueKeysWithValues: catalog.productIDs.enumerated().map { ($1, $0) })
        var byCohort: [String: [NightPartRow]] = [:]
        var order: [String] = []
        for row in rows {
            guard row.offeringID.isEmpty else { throw refuse(row, "a cohort's row has no offering_id") }
            if byCohort[row.group] == nil { order.append(row.group) }
            byCohort[row.group, default: []].append(row)
        }
        var cohorts: [ObservedCohort] = []
        for key in order {
            let cohortRows = byCohort[key] ?? []
            let fields = key.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            let monthFields = fields.first?.split(separator: "-").compactMap { Int($0) } ?? []
            guard fields.count == 3, monthFields.count == 2, (1...12).contains(monthFields[1]), let readDay = Int(fields[1]),
                let product = productIndex[fields[2]]
            else { throw refuse(cohortRows.first, "group '\(key)' is not '<YYYY-MM> <read day> <catalog product_id>'") }
            var facts: [String: Double] = [:]
            var observed: [(ObservationRow, NightPartRow)] = []
            var past: [(ObservationRow, NightPartRow)] = []
            for row in cohortRows {
                if cohortFacts.contains(row.statistic) {
                    guard row.keys.isEmpty, row.value >= 0, row.value.isFinite else {
                        throw refuse(row, "\(row.statistic) \(row.value) is out of range")
                    }
                    facts[row.statistic] = row.value
                    continue
                }
                let isPast = row.statistic.hasPrefix("past_")
                guard let statistic = ObservationStatistic(rawValue: isPast ? String(row.statistic.dropFirst(5)) : row.statistic) else {
                    throw refuse(row, "statistic \(row.statistic) is not a cohort's (docs/warehouse.md)")
                }
                func index(_ id: String) throws -> Int? {
                    guard statistic.hasProduct || statistic == .followOnProducts else { return nil }
                    guard let position = productIndex[id] else { throw refuse(row, "product \(id) is not in the catalog") }
                    return position
                }
                let converted = ObservationRow(
                    statistic, product: try index(row.productID),
                    nextProduct: statistic == .followOnProducts ? try index(row.nextProductID) : nil,
                    keys: row.keys, value: row.value)
                if isPast { past.append((converted, row)) } else { observed.append((converted, row)) }
            }
            let missing = cohortFacts.filter { facts[$0] == nil }
            guard missing.isEmpty, let buyers = facts["cohort_buyers"], buyers >= 1, buyers == buyers.rounded(),
                let horizon = facts["cohort_horizon_days"], horizon >= 1, horizon == horizon.rounded(),
                let readAt = facts["cohort_read_at"],
                readAt == readAt.rounded(), let realized = facts["cohort_realized_revenue"]
            else {
                throw refuse(
                    cohortRows.first,
                    "cohort \(key): \(missing.isEmpty ? "its buyers and horizon must be whole numbers ≥ 1" : "no \(missing.joined(separator: ", "))")"
                )
            }
            let configuration = ObservedCohort.configuration(readAt: Int64(readAt), horizonDays: Int(horizon), alpha: 0.05)
            let observation: GroupObservation
            let pastCounts: [ProductPast]
            do {
                observation = try GroupObservation(
                    name: "cohort", rows: observed.map(\.0), products: catalog.products, configuration: configuration)
            } catch {
                throw refuse(observed.first { $0.0 == error.row }?.1, "cohort \(key): \(error)")
            }
            do {
                pastCounts = try ProductPast.fromRows(past.map(\.0), products: catalog.products.count)
            } catch {
                throw refuse(past.first { $0.0 == error.row }?.1, "cohort \(key): past: \(error)")
            }
            cohorts.append(
                ObservedCohort(
                    facts: ObservedCohort.Facts(
                        productID: fields[2], product: product, month: monthFields[0] * 12 + monthFields[1] - 1, readDay: readDay,
                        buyers: Int(buyers), horizonDays: Int(horizon), readAt: Int64(readAt), realizedRevenue: realized),
                    products: catalog.products, productIDs: catalog.productIDs, past: pastCounts, observation: observation))
        }
        return cohorts.sorted { ($0.product, $0.readDay, $0.month) < ($1.product, $1.readDay, $1.month) }
    }
}
