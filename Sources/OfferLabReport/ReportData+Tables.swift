import OfferLabEvents
import OfferLabJob
import OfferLabSupport
import OfferLabVocabulary
import OfferLabWriters

/// A `ReportData` from the typed night (`NightTables`), whether a run made it or the database
/// gave it back: one path for both, so both give the same report.
extension ReportData {
    /// The report of `night`, run by `run`.
    package init(night: NightTables, run: RunRecord) {
        self.run = RunFacts(
            job: run.job, night: run.night, startedAt: run.startedAt, finishedAt: run.finishedAt,
            toolVersion: run.toolVersion, inputFiles: run.inputFiles.map { InputFile(path: $0.path, bytes: $0.bytes) },
            signaturesVerified: run.signaturesVerified, missingPast: run.missingPast)
        sources = night.sources
        quality = night.quality.filter { $0.offeringID.isEmpty }
        for row in night.rejectedMoney {
            if row.currency.isEmpty {
                rejectedMoney.unreadable += row.lines
            } else {
                let micros = Int64(exactly: ((row.amount ?? 0) * 1_000_000).rounded()) ?? .max
                let negative = Int64(exactly: ((row.negativeAmount ?? 0) * 1_000_000).rounded()) ?? .min
                rejectedMoney.amounts[row.currency] = RejectedMoney.Amount(lines: row.lines, micros: micros, negativeMicros: negative)
            }
        }
        offerings = night.offerings.map { OfferingReport($0, night: night) }
        slices = Self.sliceReports(night, offeringIDs: offerings.map(\.offeringID))
        trackRecord = Self.trackRecord(night.backtest)
    }

    /// Per product (in the rows' order): "weekly_799: on this app's past, the year projected at day
    /// 30 held the paid amount in 11 of 12 months; at day 60 in 10 of 11", counting the months
    /// with an interval, and those the past then could not project.
    static func trackRecord(_ rows: [BacktestRow]) -> [String] {
        var products: [String] = []
        for row in rows where products.last != row.productID { products.append(row.productID) }
        return products.map { product in
            let readDays = rows.filter { $0.productID == product }.reduce(into: [Int]()) {
                if !$0.contains($1.readDay) { $0.append($1.readDay) }
            }
            let parts = readDays.enumerated().map { index, readDay in
                let cohorts = rows.filter { $0.productID == product && $0.readDay == readDay }
                let projected = cohorts.filter { $0.covered != nil }
                let held = projected.filter { $0.covered == true }.count
                let unprojected = cohorts.count - projected.count
                let months = "\(held) of \(projected.count) month\(projected.count == 1 ? "" : "s")"
                let lead = index == 0 ? "the year projected at day \(readDay) held the paid amount in" : "at day \(readDay) in"
                return "\(lead) \(months)" + (unprojected > 0 ? " (\(unprojected) more it could not project yet)" : "")
            }
            return "\(product): on this app's past, " + parts.joined(separator: "; ")
        }
    }

    /// `night` as the database at `path` holds it: the latest successful run of its date and the
    /// offerings it analysed.
    /// - Throws: `OfferLabError` when the database is missing, has no such night, or was
    ///   written by an offerlab that did not store reports.
    static func load(databasePath path: String, night: Night) throws -> ReportData {
        let (tables, run) = try NightTables.read(databasePath: path, night: night.date)
        // A run before reports existed wrote summary rows but no offerings rows.
        guard !tables.offerings.isEmpty || tables.summary.isEmpty else {
            throw OfferLabError(
                .nightNotFound,
                "\(path): the night \(night.date) was written by an offerlab without reports; run the night again to store one",
                location: .init(path: path))
        }
        return ReportData(night: tables, run: run)
    }
}

extension OfferingReport {
    /// The offering of `row` with its rows of `night`.
    init(_ row: OfferingRow, night: NightTables) {
        let id = row.offeringID
        let shownProducts = night.shownProducts.filter { $0.offeringID == id }
        let shownCopy = night.shownCopy.filter { $0.offeringID == id }
        let comparisonRows = night.comparisons.filter { $0.offeringID == id }
        let comparisons = comparisonRows.map(\.comparison)
        (offeringID, name, isActive, controlGroup) = (id, row.name, row.isActive, row.controlGroup)
        (currency, alpha, conversionWindowDays) = (row.reportCurrency, row.alpha ?? 0.05, row.conversionWindowDays)
        decision = row.decision.flatMap(Decision.init(rawValue:))
        groups = night.summary.filter { $0.offeringID == id }.map { summary in
            GroupReport(
                summary: summary,
                shownProducts: shownProducts.filter { $0.group == summary.group }.sorted { $0.position < $1.position },
                shownCopy: shownCopy.first { $0.group == summary.group })
        }
        self.comparisons = comparisons.compactMap(Comparison.init(own:))
        sampleRatio = night.sampleRatios.first { $0.offeringID == id }?.check
        products = night.products.filter { $0.offeringID == id }
        quality = night.quality.filter { $0.offeringID == id }
        daily = night.daily.filter { $0.offeringID == id }.map(DailyPoint.init)
        familyComparisons = comparisons.compactMap(Comparison.init(family:))
        matured = night.maturity.filter { $0.offeringID == id }
        projection = night.projection.filter { $0.offeringID == id }
        projectedComparisons = comparisonRows.filter { $0.comparison.metric == Metric.projectedARPU365.csvName }
        decisions = night.decisions.filter { $0.offeringID == id }
        sequentialSampleRatio = night.sampleRatios.first { $0.offeringID == id }.flatMap { row in
            row.seqFlagged.map { SampleRatioValues(chi2: nil, pValue: row.seqPValue, flagged: $0) }
        }
    }
}

extension Comparison {
    /// A comparison on one of the offering's own metrics; nil for any other.
    init?(own values: ComparisonValues) {
        guard let metric = OwnMetric(rawValue: values.metric) else { return nil }
        self.init(values, metric)
    }

    /// A comparison of a capped or matured metric (`arpu_capped`, `conversion_d7`, `arpu_d7`),
    /// read as one of the metric it is a kind of; nil for an own metric and for one of no
    /// known kind (the projection's).
    init?(family values: ComparisonValues) {
        let name = values.metric
        guard OwnMetric(rawValue: name) == nil, let metric = Metric(csvName: name), metric != .projectedARPU365 else { return nil }
        // A revenue metric (proceeds per user among them) reads as ARPU does, a rate (completed
        // trials' conversion, the refund user rate) as conversion.
        self.init(values, metric.kind == .revenue ? .arpu : .conversion)
        familyMetric = name
    }

    private init(_ values: ComparisonValues, _ metric: OwnMetric) {
        self.init(
            group: values.group, metric: metric, controlValue: values.controlValue, value: values.value,
            absoluteLift: values.lift.absolute, relativeLift: values.lift.relative, pValue: values.lift.pValue,
            pValueAdjusted: values.lift.pValueAdjusted, significant: values.lift.significant,
            chanceToBeatControl: values.lift.chanceToBeatControl, minimumDetectableEffect: values.mdeAbs, sequential: values.sequential,
            adjusted: values.adjusted)
    }
}

extension DailyPoint {
    /// A `daily` row's relative lifts with their fixed-horizon and their sequential intervals.
    init(_ row: DailyRow) {
        func sequential(_ comparison: DailyComparison) -> Estimate? {
            comparison.lift.relLift.map {
                Estimate(value: $0, low: comparison.sequential.relativeLow, high: comparison.sequential.relativeHigh)
            }
        }
        self.init(
            date: row.date, group: row.group, isControl: row.isControl, users: row.metrics.users,
            conversionLift: row.conversion.lift.relative, arpuLift: row.arpu.lift.relative,
            conversionSequentialLift: sequential(row.conversion), arpuSequentialLift: sequential(row.arpu))
    }
}
