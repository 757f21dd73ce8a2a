/// Reading a `ReportData` from the night's result tables, whether a run holds them in memory or
/// the database returns them: one path for both, so both give the same report.
extension ReportData {
    /// The tables the report reads. `daily` may be absent (runs without the daily series).
    static let tableNames = ["offerings", "summary", "comparisons", "srm", "products", "quality", "shown_products", "shown_copy", "daily"]

    /// The night of `run` from its tables (looked up by name; extra tables are ignored).
    init(tables: [ResultTable], run: RunRecord) {
        func rows(_ name: String) -> [Row] {
            guard let table = tables.first(where: { $0.name == name }) else { return [] }
            let index = Dictionary(table.columnNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            return table.rows.map { Row(values: $0, index: index) }
        }
        let summary = rows("summary")
        let comparisons = rows("comparisons")
        let srm = rows("srm")
        let products = rows("products")
        let quality = rows("quality")
        let shownProducts = rows("shown_products")
        let shownCopy = rows("shown_copy")
        let daily = rows("daily")

        self.run = RunFacts(
            job: run.job, asOf: run.asOf, night: run.night, startedAt: run.startedAt, finishedAt: run.finishedAt,
            toolVersion: run.toolVersion, inputFiles: run.inputFiles.map { InputFile(path: $0.path, bytes: $0.bytes) })
        self.quality = quality.filter { $0.text("offering_id") == "" }.map(Row.qualityCounter)
        offerings = rows("offerings").map { offering in
            let id = offering.text("offering_id") ?? ""
            func of(_ rows: [Row]) -> [Row] { rows.filter { $0.text("offering_id") == id } }
            let groups = of(summary).map { row in
                let name = row.text("group") ?? ""
                var group = GroupReport(
                    name: name, isControl: row.bool("is_control") ?? false, weight: row.double("weight") ?? 0, users: row.int("users"),
                    converters: row.int("converters"), conversionRate: row.double("conversion_rate"),
                    conversionCILow: row.double("conversion_ci_low"), conversionCIHigh: row.double("conversion_ci_high"),
                    trialStarters: row.int("trial_starters"), trialConverters: row.int("trial_converters"),
                    trialConversionRate: row.double("trial_conversion_rate"), paywallViewers: row.int("paywall_viewers"),
                    purchases: row.int("purchases"), renewals: row.int("renewals"), refunds: row.int("refunds"),
                    grossRevenue: row.double("gross_revenue") ?? 0, refundedRevenue: row.double("refunded_revenue") ?? 0,
                    netRevenue: row.double("net_revenue") ?? 0, arpu: row.double("arpu"), arpuSD: row.double("arpu_sd"),
                    arppu: row.double("arppu"))
                group.shownProducts = of(shownProducts).filter { $0.text("group") == name }
                    .sorted { $0.int("position") < $1.int("position") }
                    .map { row in
                        ShownProduct(
                            productID: row.text("product_id") ?? "", type: row.text("type"),
                            fallbackDisplayPrice: row.text("fallback_display_price"), isDefault: row.bool("is_default") ?? false,
                            badgeText: row.text("badge_text"), subtitleText: row.text("subtitle_text"))
                    }
                group.shownCopy = of(shownCopy).first { $0.text("group") == name }.map { row in
                    ShownCopy(
                        headerTitle: row.text("header_title"), headerSubtitle: row.text("header_subtitle"),
                        ctaButtonText: row.text("cta_button_text"), supportingText: row.text("supporting_text"))
                }
                return group
            }
            return OfferingReport(
                offeringID: id, name: offering.text("name") ?? "", isActive: offering.bool("is_active") ?? false,
                controlGroup: offering.text("control_group") ?? "", currency: offering.text("report_currency") ?? "",
                alpha: offering.double("alpha") ?? 0.05, conversionWindowDays: offering.double("conversion_window_days"),
                groups: groups, comparisons: of(comparisons).compactMap(Row.comparison),
                sampleRatio: of(srm).first.flatMap { row in
                    row.bool("srm_flag").map { SampleRatio(chi2: row.double("chi2"), pValue: row.double("srm_p_value"), flagged: $0) }
                },
                products: of(products).map { row in
                    ProductSales(
                        group: row.text("group") ?? "", productID: row.text("product_id") ?? "", purchases: row.int("purchases"),
                        renewals: row.int("renewals"), refunds: row.int("refunds"), netRevenue: row.double("net_revenue") ?? 0)
                },
                quality: of(quality).map(Row.qualityCounter), daily: of(daily).map(Row.dailyPoint),
                decision: offering.text("decision").flatMap(Decision.init(rawValue:)))
        }
    }

    /// The night `night` (`YYYY-MM-DD`) as the database at `path` holds it: the latest
    /// successful run of that night and the offerings it analysed.
    /// - Throws: `OfferLabError` when the database is missing, has no such night, or was
    ///   written by an offerlab that did not store reports.
    static func load(databasePath path: String, night: String) throws -> ReportData {
        let stored = try ResultsDatabase.readNight(path: path, night: night, tables: tableNames)
        func rows(_ name: String) -> Int { stored.tables.first { $0.name == name }?.rows.count ?? 0 }
        // A run before reports existed wrote summary rows but no offerings rows.
        guard rows("offerings") > 0 || rows("summary") == 0 else {
            throw OfferLabError(
                .data, "\(path): the night \(night) was written by an offerlab without reports; run the night again to store one")
        }
        return ReportData(tables: stored.tables, run: stored.run)
    }
}

/// A row of a result table, read by column name. The getters accept both the values a run
/// builds and what SQLite returns for them (`bool` as 0/1, NULL as `.real(nil)`).
private struct Row {
    var values: [ResultValue]
    var index: [String: Int]

    func value(_ column: String) -> ResultValue? { index[column].map { values[$0] } }

    func text(_ column: String) -> String? {
        if case .text(let text) = value(column) { text } else { nil }
    }

    func double(_ column: String) -> Double? {
        switch value(column) {
        case .real(let real): real
        case .integer(let integer): Double(integer)
        default: nil
        }
    }

    /// 0 when absent: counts are never undefined.
    func int(_ column: String) -> Int {
        if case .integer(let integer) = value(column) { integer } else { 0 }
    }

    func bool(_ column: String) -> Bool? {
        switch value(column) {
        case .bool(let bool): bool
        case .integer(let integer): integer != 0
        default: nil
        }
    }

    func estimate(_ prefix: String) -> Estimate? {
        double(prefix).map { Estimate(value: $0, low: double(prefix + "_ci_low"), high: double(prefix + "_ci_high")) }
    }

    static func qualityCounter(_ row: Row) -> QualityCounter {
        QualityCounter(name: row.text("counter") ?? "", count: row.int("count"))
    }

    static func comparison(_ row: Row) -> Comparison? {
        guard let metric = row.text("metric").flatMap(Metric.init(rawValue:)) else { return nil }
        return Comparison(
            group: row.text("group") ?? "", metric: metric, controlValue: row.double("control_value"), value: row.double("value"),
            absoluteLift: row.estimate("abs_lift"), relativeLift: row.estimate("rel_lift"), pValue: row.double("p_value"),
            pValueAdjusted: row.double("p_value_adjusted"), significant: row.bool("significant"),
            chanceToBeatControl: row.double("chance_to_beat_control"), minimumDetectableEffect: row.double("mde_abs"),
            sequential: row.sequentialValues(prefix: ""))
    }

    func sequentialValues(prefix: String) -> SequentialValues {
        SequentialValues(
            absoluteLow: double(prefix + "seq_abs_lift_ci_low"), absoluteHigh: double(prefix + "seq_abs_lift_ci_high"),
            relativeLow: double(prefix + "seq_rel_lift_ci_low"), relativeHigh: double(prefix + "seq_rel_lift_ci_high"),
            pValue: double(prefix + "seq_p_value"), pValueAdjusted: double(prefix + "seq_p_value_adjusted"),
            significant: bool(prefix + "seq_significant"))
    }

    /// The relative lift of `metric` (a daily row's prefix) with its sequential interval.
    func sequentialLift(_ metric: String) -> Estimate? {
        let band = sequentialValues(prefix: metric + "_")
        return double(metric + "_rel_lift").map { Estimate(value: $0, low: band.relativeLow, high: band.relativeHigh) }
    }

    static func dailyPoint(_ row: Row) -> DailyPoint {
        DailyPoint(
            date: row.text("date") ?? "", group: row.text("group") ?? "", isControl: row.bool("is_control") ?? false,
            users: row.int("users"), conversionLift: row.estimate("conversion_rel_lift"), arpuLift: row.estimate("arpu_rel_lift"),
            conversionSequentialLift: row.sequentialLift("conversion"), arpuSequentialLift: row.sequentialLift("arpu"))
    }
}
