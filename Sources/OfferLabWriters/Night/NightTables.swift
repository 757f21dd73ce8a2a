/// A night's results as typed rows, one array per output table: the one value the CSV files,
/// the database's rows and the report are all derived from. A run makes it from its results
/// (`ResultTables.make`); `offerlab report --db` reads it back from the database through the same
/// column declarations (`init(database:missing:)`), so both give the same report.
///
/// Money amounts are held as they are written (rounded to the micro-unit), so the report a run
/// writes reads the amounts the database gives back.
package struct NightTables: Sendable, Equatable {
    package var summary: [SummaryRow] = []
    /// The offerings' own comparisons, capped and matured ones, then `projected_arpu_365`'s, per offering.
    package var comparisons: [ComparisonRow] = []
    package var sampleRatios: [SampleRatioRow] = []
    package var products: [ProductRow] = []
    package var quality: [QualityRow] = []
    package var sources: [SourceRow] = []
    package var daily: [DailyRow] = []
    package var maturity: [MaturityRow] = []
    package var rejects: [RejectRow] = []
    package var skippedFiles: [SkippedFileRow] = []
    package var rejectedMoney: [RejectedMoneyRow] = []
    package var offerings: [OfferingRow] = []
    package var shownProducts: [ShownProductRow] = []
    package var shownCopy: [ShownCopyRow] = []
    package var sliceSummary: [SliceSummaryRow] = []
    package var sliceComparisons: [SliceComparisonRow] = []
    package var sliceSampleRatios: [SliceSampleRatioRow] = []
    package var projection: [ProjectionRow] = []
    /// What to do with each treatment tonight (docs/statistics.md, "The decision").
    package var decisions: [DecisionRow] = []
    /// What changed since the job's previous successful night (docs/reliability.md, "Alerts").
    package var alerts: [AlertRow] = []
    /// The app's own track record (docs/statistics.md#the-apps-own-track-record).
    package var backtest: [BacktestRow] = []

    /// Whether the job sliced: only then are the slice tables written as CSV files.
    package var writesSliceFiles = false
    /// Whether the night read a past with its charges (a job with `history_logs`): only then is
    /// `backtest.csv` written, its rows or its header alone.
    package var writesBacktestFile = false

    init() {}

    /// The CSV files, in the order they are written.
    package var files: [ResultTable] {
        Self.csvTables.map { $0.encode(self) } + (writesSliceFiles ? Self.sliceTables.map { $0.encode(self) } : [])
            + [Self.projectionTable.encode(self), Self.decisionsTable.encode(self), Self.alertsTable.encode(self)]
            + (writesBacktestFile ? [Self.backtestTable.encode(self)] : [])
    }

    /// One line per (offering, treatment): its decision and why, as `offerlab run` prints them.
    package var decisionLines: [String] { decisions.map(\.line) }

    /// One `alert: …` line per change since the job's previous successful night.
    package var alertLines: [String] { alerts.map(\.line) }

    /// The tables the database keeps. The slice tables are always among them, empty without
    /// slices, so that a night re-run without them drops its old rows.
    package var databaseTables: [ResultTable] { Self.stored.map { $0.encode(self) } }

    /// The night as the database's `tables` hold it (tables looked up by name, extra ones
    /// ignored). `missing` is told of each table it lacks (`"summary"`) and each column a table
    /// lacks (`"summary.arpu"`): a night stored by an earlier offerlab lacks some, a run's own
    /// tables none. What is missing reads as empty.
    package init(database tables: [ResultTable], missing: (String) -> Void = { _ in }) {
        for stored in Self.stored {
            guard let table = tables.first(where: { $0.name == stored.schema.name }) else {
                missing(stored.schema.name)
                continue
            }
            stored.decode(&self, table, missing)
        }
    }

    /// The night of `date` as the database at `path` holds it (its latest successful run, and
    /// that run), read through the column declarations.
    /// - Throws: `OfferLabError` when the database is missing or holds no such night.
    package static func read(databasePath path: String, night date: String) throws -> (tables: NightTables, run: RunRecord) {
        let stored = try ResultsDatabase.readNight(path: path, night: date, tables: Self.stored.map(\.schema.name))
        return (NightTables(database: stored.tables), stored.run)
    }

    /// The night with each money amount as the CSV files and the database write it.
    func asWritten() -> NightTables {
        var night = self
        for table in Self.stored + [Self.rejectsTable, Self.skippedFilesTable] { table.round(&night) }
        return night
    }
}

/// One table of the night: its declaration and where its rows are in `NightTables`.
struct NightTable: Sendable {
    var schema: ResultSchema
    let encode: @Sendable (NightTables) -> ResultTable
    let decode: @Sendable (inout NightTables, ResultTable, (String) -> Void) -> Void
    let round: @Sendable (inout NightTables) -> Void

    init<Row>(_ table: TypedTable<Row>, _ rows: WritableKeyPath<NightTables, [Row]> & Sendable) {
        schema = table.schema
        encode = { table.table($0[keyPath: rows]) }
        decode = { night, stored, missing in night[keyPath: rows] = table.rows(stored, missing: missing) }
        round = { $0[keyPath: rows] = table.asWritten($0[keyPath: rows]) }
    }
}

extension NightTables {
    static let summaryTable = NightTable(SummaryRow.table, \.summary)
    static let comparisonsTable = NightTable(ComparisonRow.table, \.comparisons)
    static let sampleRatioTable = NightTable(SampleRatioRow.table, \.sampleRatios)
    static let productsTable = NightTable(ProductRow.table, \.products)
    static let qualityTable = NightTable(QualityRow.table, \.quality)
    static let sourcesTable = NightTable(SourceRow.table, \.sources)
    static let dailyTable = NightTable(DailyRow.table, \.daily)
    static let maturityTable = NightTable(MaturityRow.table, \.maturity)
    static let rejectsTable = NightTable(RejectRow.table, \.rejects)
    static let skippedFilesTable = NightTable(SkippedFileRow.table, \.skippedFiles)
    static let projectionTable = NightTable(ProjectionRow.table, \.projection)
    static let decisionsTable = NightTable(DecisionRow.table, \.decisions)
    static let alertsTable = NightTable(AlertRow.table, \.alerts)
    static let backtestTable = NightTable(BacktestRow.table, \.backtest)

    /// The CSV files before the slices', the projection's and the decisions'.
    static let csvTables = [
        summaryTable, comparisonsTable, sampleRatioTable, productsTable, qualityTable, sourcesTable, dailyTable, maturityTable,
        rejectsTable, skippedFilesTable,
    ]

    /// docs/analysis.md §7: the columns of `summary`, `comparisons` and `srm` with `dimension`
    /// and `level` after `offering_id`.
    static let sliceTables = [
        NightTable(SliceSummaryRow.table, \.sliceSummary), NightTable(SliceComparisonRow.table, \.sliceComparisons),
        NightTable(SliceSampleRatioRow.table, \.sliceSampleRatios),
    ]

    /// What the database keeps: the CSV tables but the rejects and skipped files (the backtest's
    /// always, empty without a past, as the slices'), and the
    /// tables that exist for `offerlab report --db` alone (the rejected money, the offerings
    /// with their settings, what each group was shown), so it can rebuild the report without the
    /// job file or the offering tables.
    static let stored =
        [
            summaryTable, comparisonsTable, sampleRatioTable, productsTable, qualityTable, sourcesTable, dailyTable, maturityTable,
            NightTable(RejectedMoneyRow.table, \.rejectedMoney), NightTable(OfferingRow.table, \.offerings),
            NightTable(ShownProductRow.table, \.shownProducts), NightTable(ShownCopyRow.table, \.shownCopy),
        ] + sliceTables + [projectionTable, decisionsTable, alertsTable, backtestTable]
}
