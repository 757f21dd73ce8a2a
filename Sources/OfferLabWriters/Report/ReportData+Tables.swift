import OfferLabEvents
import OfferLabJob
import OfferLabSupport

/// Reading a `ReportData` from the night's result tables, whether a run holds them in memory or
/// the database returns them: one path for both, so both give the same report.
extension ReportData {
    /// The tables the report reads. `daily`, `maturity`, the slice tables and `projection` may be
    /// absent (runs before them, or without maturity days or slices).
    static let sourceTables: [ResultSchema] =
        [
            .offerings, .summary, .comparisons, .srm, .products, .quality, .shownProducts, .shownCopy, .daily, .maturity, .rejectedMoney,
            .sources,
        ]
        + sliceTables + [.projection]

    /// The night of `run` from its tables (looked up by name; extra tables are ignored).
    /// `missing` is told of each table the report looks for and `tables` lacks (`"summary"`), and
    /// of each column it reads and a table lacks (`"summary.arpu"`): a night stored by an earlier
    /// offerlab lacks some, a run's own tables none.
    package init(tables: [ResultTable], run: RunRecord, missing: @escaping (String) -> Void = { _ in }) {
        func rows(_ schema: ResultSchema) -> [Row] {
            guard let table = tables.first(where: { $0.name == schema.name }) else {
                missing(schema.name)
                return []
            }
            let index = Dictionary(table.columnNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            let missingColumn = { (column: ResultColumn) in missing("\(schema.name).\(column.name)") }
            return table.rows.map { Row(values: $0, index: index, missing: missingColumn) }
        }
        let summary = rows(.summary)
        let comparisons = rows(.comparisons)
        let srm = rows(.srm)
        let products = rows(.products)
        let quality = rows(.quality)
        let shownProducts = rows(.shownProducts)
        let shownCopy = rows(.shownCopy)
        let daily = rows(.daily)
        let maturity = rows(.maturity)
        let projection = rows(.projection)

        self.run = RunFacts(
            job: run.job, asOf: run.asOf, night: run.night, startedAt: run.startedAt, finishedAt: run.finishedAt,
            toolVersion: run.toolVersion, inputFiles: run.inputFiles.map { InputFile(path: $0.path, bytes: $0.bytes) },
            signaturesVerified: run.signaturesVerified)
        sources = rows(.sources).map {
            SourceCounter(source: $0.text(.source) ?? "", counter: $0.text(.counter) ?? "", count: $0.int(.count))
        }
        self.quality = quality.filter { $0.text(.offeringID) == "" }.map(Row.qualityCounter)
        for row in rows(.rejectedMoney) {
            let currency = row.text(.currency) ?? ""
            if currency.isEmpty {
                rejectedMoney.unreadable += row.int(.lines)
            } else {
                let micros = Int64(exactly: ((row.double(.amount) ?? 0) * 1_000_000).rounded()) ?? .max
                rejectedMoney.amounts[currency] = RejectedMoney.Amount(lines: row.int(.lines), micros: micros)
            }
        }
        offerings = rows(.offerings).map { offering in
            let id = offering.text(.offeringID) ?? ""
            func of(_ rows: [Row]) -> [Row] { rows.filter { $0.text(.offeringID) == id } }
            let groups = of(summary).map { row in
                let name = row.text(.group) ?? ""
                var group = GroupReport(
                    name: name, isControl: row.bool(.isControl) ?? false, weight: row.double(.weight) ?? 0, users: row.int(.users),
                    converters: row.int(.converters), conversionRate: row.double(.conversionRate),
                    conversionCILow: row.double(.conversionCILow), conversionCIHigh: row.double(.conversionCIHigh),
                    trialStarters: row.int(.trialStarters), trialConverters: row.int(.trialConverters),
                    trialConversionRate: row.double(.trialConversionRate), paywallViewers: row.int(.paywallViewers),
                    purchases: row.int(.purchases), renewals: row.int(.renewals), refunds: row.int(.refunds),
                    grossRevenue: row.double(.grossRevenue) ?? 0, refundedRevenue: row.double(.refundedRevenue) ?? 0,
                    netRevenue: row.double(.netRevenue) ?? 0, arpu: row.double(.arpu), arpuSD: row.double(.arpuSD),
                    arppu: row.double(.arppu))
                group.revenueCap = row.double(.revenueCap)
                group.arpuCapped = row.double(.arpuCapped)
                group.cappedUsers = row.value(.cappedUsers).flatMap { if case .integer(let count) = $0 { count } else { nil } }
                group.netProceeds = row.double(.netProceeds)
                group.proceedsPerUser = row.double(.proceedsPerUser)
                (group.trialsConverted, group.trialsPending, group.trialsLapsed, group.trialsUnknown) = (
                    row.int(.trialsConverted), row.int(.trialsPending), row.int(.trialsLapsed), row.int(.trialsUnknown)
                )
                group.trialCompletedConversionRate = row.double(.trialCompletedConversionRate)
                (group.activeSubscribers, group.churnedSubscribers) = (row.int(.activeSubscribers), row.int(.churnedSubscribers))
                group.shownProducts = of(shownProducts).filter { $0.text(.group) == name }
                    .sorted { $0.int(.position) < $1.int(.position) }
                    .map { row in
                        ShownProduct(
                            productID: row.text(.productID) ?? "", type: row.text(.productType),
                            fallbackDisplayPrice: row.text(.fallbackDisplayPrice), isDefault: row.bool(.isDefault) ?? false,
                            badgeText: row.text(.badgeText), subtitleText: row.text(.subtitleText))
                    }
                group.shownCopy = of(shownCopy).first { $0.text(.group) == name }.map { row in
                    ShownCopy(
                        headerTitle: row.text(.headerTitle), headerSubtitle: row.text(.headerSubtitle),
                        ctaButtonText: row.text(.ctaButtonText), supportingText: row.text(.supportingText))
                }
                return group
            }
            var report = OfferingReport(
                offeringID: id, name: offering.text(.offeringName) ?? "", isActive: offering.bool(.isActive) ?? false,
                controlGroup: offering.text(.controlGroup) ?? "", currency: offering.text(.reportCurrency) ?? "",
                alpha: offering.double(.alpha) ?? 0.05, conversionWindowDays: offering.double(.conversionWindowDays),
                groups: groups, comparisons: of(comparisons).compactMap(Row.comparison),
                sampleRatio: of(srm).first.flatMap { row in
                    row.bool(.srmFlag).map { SampleRatio(chi2: row.double(.chi2), pValue: row.double(.srmPValue), flagged: $0) }
                },
                products: of(products).map { row in
                    ProductSales(
                        group: row.text(.group) ?? "", productID: row.text(.productID) ?? "", purchases: row.int(.purchases),
                        renewals: row.int(.renewals), refunds: row.int(.refunds), netRevenue: row.double(.netRevenue) ?? 0)
                },
                quality: of(quality).map(Row.qualityCounter), daily: of(daily).map(Row.dailyPoint),
                decision: offering.text(.decision).flatMap(Decision.init(rawValue:)))
            report.familyComparisons = of(comparisons).compactMap(Row.familyComparison)
            report.matured = of(maturity).map { row in
                MaturedGroup(
                    days: row.int(.days), group: row.text(.group) ?? "", users: row.int(.users),
                    conversionRate: row.double(.conversionRate), arpu: row.double(.arpu))
            }
            (report.projection, report.projectedComparisons) = Self.projection(
                offeringID: id, projection: projection, comparisons: comparisons)
            return report
        }
        slices = Self.sliceReports(
            summary: rows(.sliceSummary), comparisons: rows(.sliceComparisons), srm: rows(.sliceSRM),
            offeringIDs: offerings.map(\.offeringID))
    }

    /// The night `night` (`YYYY-MM-DD`) as the database at `path` holds it: the latest
    /// successful run of that night and the offerings it analysed.
    /// - Throws: `OfferLabError` when the database is missing, has no such night, or was
    ///   written by an offerlab that did not store reports.
    static func load(databasePath path: String, night: String) throws -> ReportData {
        let stored = try ResultsDatabase.readNight(path: path, night: night, tables: sourceTables.map(\.name))
        func rows(_ schema: ResultSchema) -> Int { stored.tables.first { $0.name == schema.name }?.rows.count ?? 0 }
        // A run before reports existed wrote summary rows but no offerings rows.
        guard rows(.offerings) > 0 || rows(.summary) == 0 else {
            throw OfferLabError(
                .nightNotFound, "\(path): the night \(night) was written by an offerlab without reports; run the night again to store one",
                location: .init(path: path))
        }
        return ReportData(tables: stored.tables, run: stored.run)
    }
}

/// A row of a result table, read by column. The getters accept both the values a run builds
/// and what SQLite returns for them (`bool` as 0/1, NULL as `.real(nil)`).
struct Row {
    var values: [ResultValue]
    /// The positions of the table's columns, by name.
    var index: [String: Int]
    /// Told of a column the table lacks (read as no value).
    var missing: (ResultColumn) -> Void

    func value(_ column: ResultColumn) -> ResultValue? {
        guard let position = index[column.name] else {
            missing(column)
            return nil
        }
        // As the database gives it back: money rounded to the micro-unit.
        return column.type.written(values[position])
    }

    func text(_ column: ResultColumn) -> String? {
        if case .text(let text) = value(column) { text } else { nil }
    }

    func double(_ column: ResultColumn) -> Double? {
        switch value(column) {
        case .real(let real): real
        case .integer(let integer): Double(integer)
        default: nil
        }
    }

    /// 0 when absent: counts are never undefined.
    func int(_ column: ResultColumn) -> Int {
        if case .integer(let integer) = value(column) { integer } else { 0 }
    }

    func bool(_ column: ResultColumn) -> Bool? {
        switch value(column) {
        case .bool(let bool): bool
        case .integer(let integer): integer != 0
        default: nil
        }
    }

    func estimate(_ value: ResultColumn, low: ResultColumn, high: ResultColumn) -> Estimate? {
        double(value).map { Estimate(value: $0, low: double(low), high: double(high)) }
    }

    static func qualityCounter(_ row: Row) -> QualityCounter {
        QualityCounter(name: row.text(.counter) ?? "", count: row.int(.count))
    }

    static func comparison(_ row: Row) -> Comparison? {
        guard let metric = row.text(.metric).flatMap(OwnMetric.init(rawValue:)) else { return nil }
        return comparison(row, metric)
    }

    /// A row of a capped or matured metric (`arpu_capped`, `conversion_d7`, `arpu_d7`), read
    /// as a comparison of the metric it is a kind of.
    static func familyComparison(_ row: Row) -> Comparison? {
        guard let name = row.text(.metric), OwnMetric(rawValue: name) == nil else { return nil }
        // Proceeds per user reads as ARPU does, completed trials' conversion as conversion.
        let ownKinds: [String: OwnMetric] = ["proceeds_per_user": .arpu, "trial_completed_conversion": .conversion]
        guard let kind = ownKinds[name] ?? OwnMetric.allCases.first(where: { name.hasPrefix($0.rawValue + "_") }) else { return nil }
        var comparison = comparison(row, kind)
        comparison.familyMetric = name
        return comparison
    }

    private static func comparison(_ row: Row, _ metric: OwnMetric) -> Comparison {
        Comparison(
            group: row.text(.group) ?? "", metric: metric, controlValue: row.double(.controlValue), value: row.double(.value),
            absoluteLift: row.estimate(.absLift, low: .absLiftCILow, high: .absLiftCIHigh),
            relativeLift: row.estimate(.relLift, low: .relLiftCILow, high: .relLiftCIHigh), pValue: row.double(.pValue),
            pValueAdjusted: row.double(.pValueAdjusted), significant: row.bool(.significant),
            chanceToBeatControl: row.double(.chanceToBeatControl), minimumDetectableEffect: row.double(.mdeAbs),
            sequential: row.sequentialValues(),
            adjusted: AdjustedIntervals(
                fixed: .init(
                    absoluteLow: row.double(.absLiftCILowAdjusted), absoluteHigh: row.double(.absLiftCIHighAdjusted),
                    relativeLow: row.double(.relLiftCILowAdjusted), relativeHigh: row.double(.relLiftCIHighAdjusted)),
                sequential: .init(
                    absoluteLow: row.double(.seqAbsLiftCILowAdjusted), absoluteHigh: row.double(.seqAbsLiftCIHighAdjusted),
                    relativeLow: row.double(.seqRelLiftCILowAdjusted), relativeHigh: row.double(.seqRelLiftCIHighAdjusted))))
    }

    func sequentialValues() -> SequentialValues {
        SequentialValues(
            absoluteLow: double(.seqAbsLiftCILow), absoluteHigh: double(.seqAbsLiftCIHigh), relativeLow: double(.seqRelLiftCILow),
            relativeHigh: double(.seqRelLiftCIHigh), pValue: double(.seqPValue), pValueAdjusted: double(.seqPValueAdjusted),
            significant: bool(.seqSignificant))
    }

    static func dailyPoint(_ row: Row) -> DailyPoint {
        /// The relative lift of `metric` with the interval of `low` and `high` (fixed-horizon or sequential).
        func lift(_ metric: OwnMetric, low: ResultColumn, high: ResultColumn) -> Estimate? {
            row.estimate(.daily(.relLift, of: metric), low: .daily(low, of: metric), high: .daily(high, of: metric))
        }
        return DailyPoint(
            date: row.text(.date) ?? "", group: row.text(.group) ?? "", isControl: row.bool(.isControl) ?? false,
            users: row.int(.users), conversionLift: lift(.conversion, low: .relLiftCILow, high: .relLiftCIHigh),
            arpuLift: lift(.arpu, low: .relLiftCILow, high: .relLiftCIHigh),
            conversionSequentialLift: lift(.conversion, low: .seqRelLiftCILow, high: .seqRelLiftCIHigh),
            arpuSequentialLift: lift(.arpu, low: .seqRelLiftCILow, high: .seqRelLiftCIHigh))
    }
}
