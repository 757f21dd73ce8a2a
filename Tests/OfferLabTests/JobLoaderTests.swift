import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabSupport

@Suite struct JobLoaderTests {
    /// A job folder with tables/ and two log files, and a job file with `extra` lines added.
    /// The folder is returned with the path: the files live as long as it does.
    func job(_ extra: String = "", omit: [String] = []) throws -> (folder: TemporaryFolder, path: String) {
        let folder = try TemporaryFolder()
        try folder.write("tables/subscription_offerings.csv", "id,offering_id,name,is_active\n")
        try folder.write("logs/2026/03/02/b.jsonl", "")
        try folder.write("logs/2026/03/01/a.jsonl.gz", "")
        var lines = [
            "tables: tables/", "logs: [\"logs/*/*/*/*\"]", "as_of: 2026-03-16T00:00:00Z", "report_currency: USD",
            "rates: {EUR: 1.08}", "output: out/", "database: out/results.sqlite",
        ]
        lines.removeAll { line in omit.contains { line.hasPrefix($0 + ":") } }
        let path = try folder.write("job.yaml", (lines + [extra]).joined(separator: "\n"))
        return (folder, path)
    }

    @Test func pathsAreRelativeToTheJobFileAndLogsSorted() throws {
        let fixture = try job()
        let folder = fixture.folder
        let loaded = try JobLoader.load(path: fixture.path)
        #expect(loaded.inputs.tablesPath == folder.file("tables"))
        #expect(loaded.inputs.logFiles == [folder.file("logs/2026/03/01/a.jsonl.gz"), folder.file("logs/2026/03/02/b.jsonl")])
        #expect(loaded.outputs.outputPath == folder.file("out"))
        #expect(loaded.run.night.date == "2026-03-16")
        #expect(loaded.analysis.rates == ["EUR": 1.08, "USD": 1])
        #expect(loaded.estimators.alpha == 0.05 && loaded.inputs.maxBadLineRatio == 0.01 && loaded.inputs.onCorruptFile == .fail)
        #expect(loaded.analysis.conversionWindowDays == nil && loaded.analysis.offerings == nil)
        #expect(loaded.estimators.sequentialTuning == 5000 && loaded.estimators.inference == .sequential)
    }

    @Test func sequentialTuningAndDecisionAreRead() throws {
        let fixture = try job("sequential_tuning: 120000\ndecision: fixed")
        let loaded = try JobLoader.load(path: fixture.path)
        #expect(loaded.estimators.sequentialTuning == 120_000 && loaded.estimators.inference == .fixed)
    }

    @Test func revenueCapAndMaturityDays() throws {
        let plain = try job()
        let absent = try JobLoader.load(path: plain.path)
        #expect(absent.analysis.revenueCap == nil && absent.analysis.maturityDays.isEmpty)
        let both = try job("revenue_cap: {percentile: 0.99}\nmaturity_days: [30, 7, 14]")
        let percentile = try JobLoader.load(path: both.path)
        #expect(percentile.analysis.revenueCap == .percentile(0.99) && percentile.analysis.maturityDays == [7, 14, 30])
        let value = try job("revenue_cap: {value: 500}")
        #expect(try JobLoader.load(path: value.path).analysis.revenueCap == .value(500))
    }

    @Test func commandLineOverridesTheFile() throws {
        let fixture = try job()
        let loaded = try JobLoader.load(
            path: fixture.path, overriding: JobOverrides(asOf: Night(parsing: "2026-04-01"), output: "/tmp/elsewhere"))
        #expect(loaded.run.night.date == "2026-04-01")
        #expect(loaded.outputs.outputPath == "/tmp/elsewhere")
        let cached = try job("cache: parsed-logs")
        #expect(try JobLoader.load(path: cached.path).outputs.cachePath != nil)
        let overridden = try JobLoader.load(
            path: cached.path, overriding: JobOverrides(database: "/tmp/else.sqlite", threads: 3, inflater: .zlib, ignoresCache: true))
        #expect(overridden.outputs.databasePath == "/tmp/else.sqlite" && overridden.run.threads == 3)
        #expect(overridden.run.inflater == .zlib && overridden.outputs.cachePath == nil)
    }

    @Test func asOfDefaultsToTodayMidnightUTC() throws {
        let fixture = try job(omit: ["as_of"])
        let now = Date(timeIntervalSince1970: 1_773_650_000)  // 2026-03-16T08:33:20Z
        let loaded = try JobLoader.load(path: fixture.path, now: now)
        #expect(loaded.run.night.isoText == "2026-03-16T00:00:00Z")
    }

    @Test(arguments: [
        ("colour: blue", "colour"),
        ("alpha: 2", "alpha"),
        ("alpha: 0", "alpha"),
        ("on_corrupt_file: ignore", "on_corrupt_file"),
        ("conversion_window_days: -1", "conversion_window_days"),
        ("rates_file: rates.csv", "rates_file"),
        ("sequential_tuning: 0", "sequential_tuning"),
        ("sequential_tuning: many", "sequential_tuning"),
        ("decision: bayesian", "decision"),
        ("target_mde: 10", "target_mde"),
        ("revenue_cap: {percentile: 1.5}", "revenue_cap"),
        ("revenue_cap: {value: -5}", "revenue_cap"),
        ("revenue_cap: {percentile: 0.99, value: 500}", "revenue_cap"),
        ("revenue_cap: 0.99", "revenue_cap"),
        ("revenue_cap: {quantile: 0.99}", "revenue_cap"),
        ("maturity_days: [0]", "maturity_days"),
        ("maturity_days: [7, 7]", "maturity_days"),
        ("maturity_days: [7.5]", "maturity_days"),
        ("maturity_days: 7", "maturity_days"),
        ("maturity_days: [99999999999999]", "maturity_days"),
        ("tax_rates: {DE: 1.2}", "tax_rates"),
        ("tax_rates: {DE: -0.1}", "tax_rates"),
        ("tax_rates: {XX: 0.2}", "tax_rates"),
        ("tax_rates: {de: 0.19}", "tax_rates"),
        ("tax_rates: 0.19", "tax_rates"),
        ("commission: {amazon: 1}", "commission"),
        ("commission: {amazon: -0.2}", "commission"),
        ("commission: {app_store: 0.1}", "commission"),
        ("commission: {Play_Store: 0.1}", "commission"),
        ("default_store: \"\"", "default_store"),
        ("app_store_small_business: yes", "app_store_small_business"),
    ])
    func badValuesAreNamed(extra: String, key: String) throws {
        let fixture = try job(extra)
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: fixture.path) }
        #expect(error.code == .badJob && error.category == .configuration)
        #expect(error.location == .init(path: fixture.path, jobKey: key), "\(error)")
    }

    /// Currency codes are upper-case ISO 4217 codes (README, The job file); `usd` would never match the
    /// logs' `USD`, and its money would be left out.
    @Test(
        arguments: [
            ("report_currency: usd", "report_currency", nil),
            ("rates: {eur: 1.08}", "rates", nil),
            ("rates: {EURO: 1.08}", "rates", nil),
            ("rates_file: rates.csv", "rates", 3),
        ] as [(String, String, Int?)])
    func aCurrencyCodeNotInISOFormIsABadJob(line: String, replacing key: String, ratesFileLine: Int?) throws {
        let fixture = try job(line, omit: [key])
        try fixture.folder.write("rates.csv", "currency,rate\nEUR,1.08\ngbp,1.27\n")
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: fixture.path) }
        #expect(error.code == .badJob)
        let expected: OfferLabError.Location =
            if let ratesFileLine {
                .init(path: fixture.folder.file("rates.csv"), line: ratesFileLine, jobKey: "rates_file")
            } else {
                .init(path: fixture.path, jobKey: key)
            }
        #expect(error.location == expected, "\(error)")
    }

    /// The problem with a currency code says what would do, when its upper-case form would.
    /// docs/analysis.md §8: the VAT rates, stores and commissions; a bad one names the key and the
    /// country, store or line.
    @Test func proceedsSettingsAreReadAndBadOnesNamed() throws {
        let fixture = try job(
            "tax_rates: {DE: 0.19, FR: 0.2}\ndefault_store: play_store\napp_store_small_business: true\ncommission: {amazon: 0.2}")
        let proceeds = try JobLoader.load(path: fixture.path).analysis.proceeds
        #expect(proceeds.taxRates == ["DE": 0.19, "FR": 0.2] && proceeds.defaultStore == "play_store")
        #expect(proceeds.appStoreSmallBusiness && proceeds.commissions == ["amazon": 0.2])
        #expect(proceeds.commission(store: nil, pastFirstYear: false) == 0.15)
        #expect(proceeds.commission(store: "app_store", pastFirstYear: false) == 0.15)
        #expect(proceeds.commission(store: "web", pastFirstYear: false) == 0)
        expectMessage(try job("tax_rates: {DE: 1.2}"), contains: "the rate of DE (1.2) must be from 0 to less than 1")
        expectMessage(try job("tax_rates: {XX: 0.2}"), contains: "'XX' is not an ISO 3166-1 alpha-2 country code")

        let file = try job("tax_rates_file: vat.csv")
        try file.folder.write("vat.csv", "country,rate\nDE,0.19\nZZ,0.2\n")
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: file.path) }
        #expect(error.code == .badJob && error.location.line == 3 && error.message.contains("'ZZ'"), "\(error)")
        try file.folder.write("vat.csv", "country,rate\nDE,0.19\nFR,1\n")
        let rate = try #require(throws: OfferLabError.self) { try JobLoader.load(path: file.path) }
        #expect(rate.location.line == 3 && rate.message.contains("the rate of FR (1.0)"), "\(rate)")
        try file.folder.write("vat.csv", "country,rate\nDE,0.19\n")
        #expect(try JobLoader.load(path: file.path).analysis.proceeds.taxRates == ["DE": 0.19])
        // A VAT rate needs the events' country, kept without slicing by it.
        #expect(try JobLoader.load(path: file.path).analysis.keptSliceFields.contains(.country))
    }

    /// `target_mde: 10`, meant as 10%, would be a lift of 1,000% and turn every test
    /// inconclusive: a lift of 100% or more is refused, naming the share meant (README, The job file).
    @Test func aTargetMDEWrittenAsAPercentIsRefused() throws {
        expectMessage(try job("target_mde: 10"), contains: "target_mde: 10 is a lift of 1000%")
        expectMessage(try job("target_mde: 10"), contains: "did you mean 0.1 (10%)?")
        expectMessage(try job("target_mde: 1"), contains: "did you mean 0.01 (1%)?")
        let half = try job("target_mde: 0.5")
        #expect(try JobLoader.load(path: half.path).decision.targetMDE == 0.5)
    }

    /// `history_logs` (docs/statistics.md#the-apps-past): the forms of `logs`; a file `logs`
    /// matches too is left to the logs; a glob that matches nothing is kept for a warning.
    @Test func historyLogsAreReadLikeLogs() throws {
        let fixture = try job("history_logs: [\"past/*.gz\", {path: \"logs/*/*/*/*\"}, \"none/*.gz\"]")
        try fixture.folder.write("past/h.gz", "")
        let loaded = try JobLoader.load(path: fixture.path)
        #expect(loaded.history.files == [fixture.folder.file("past/h.gz")])
        #expect(loaded.history.globsWithoutFiles == [fixture.folder.file("none/*.gz")])
        #expect(loaded.history.patterns.count == 3)
        let without = try job()
        #expect(try JobLoader.load(path: without.path).history.patterns.isEmpty)
        expectMessage(try job("history_logs: {a: b}"), contains: "history_logs: expected a glob or a list of globs")
        expectMessage(try job("history_logs: [{path: \"p/*\", format: nope}]"), contains: "history_logs: unknown format 'nope'")
        expectMessage(
            try job("history_logs: [{path: \"p/*\", format: revenuecat_export}]"),
            contains: "revenuecat_export: the past is read in the purchase-log format (offerlab) only")
    }

    private func expectMessage(
        _ fixture: (folder: TemporaryFolder, path: String), contains text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: OfferLabError.self, sourceLocation: sourceLocation) { try JobLoader.load(path: fixture.path) }
        #expect(
            error?.code == .badJob && error?.message.contains(text) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test func aCurrencyCodeProblemSuggestsTheUpperCaseForm() {
        #expect(CurrencyCode.problem("USD") == nil)
        #expect(CurrencyCode.problem("usd") == "'usd': currency codes are upper-case ISO 4217 codes: did you mean USD?")
        #expect(CurrencyCode.problem("EURO") == "'EURO': currency codes are upper-case ISO 4217 codes (three letters, like USD)")
    }

    @Test func maxUnconvertibleMoneyShareIsOffByDefaultAndAShare() throws {
        let plain = try job()
        #expect(try JobLoader.load(path: plain.path).analysis.maxUnconvertibleMoneyShare == nil)
        let fixture = try job("max_unconvertible_money_share: 0.05")
        #expect(try JobLoader.load(path: fixture.path).analysis.maxUnconvertibleMoneyShare == 0.05)
        let bad = try job("max_unconvertible_money_share: 5")
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: bad.path) }
        #expect(error.code == .badJob && error.location == .init(path: bad.path, jobKey: "max_unconvertible_money_share"))
    }

    /// The problem and where it is, on one line (Yams's own text puts the problem after a line
    /// break).
    @Test(arguments: [
        (
            "logs: [a, b\nalpha: 0.1",
            "not valid YAML: line 8, column 6: did not find expected ',' or ']' (while parsing a flow sequence at line 7, column 7)"
        ),
        ("  alpha: 0.1", "not valid YAML: line 7, column 8: mapping values are not allowed in this context"),
    ])
    func aYAMLErrorSaysWhatAndWhere(extra: String, expected: String) throws {
        let fixture = try job(extra, omit: ["logs"])
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: fixture.path) }
        #expect(error.message == "job file \(fixture.path): \(expected)")
    }

    /// docs/input-formats.md#store-sources-in-a-job: `{path:, format: offerlab}` is a glob like a
    /// plain one (the store formats: StoreSourceJobTests), and an unknown format lists the known
    /// names.
    @Test func logEntriesNameTheirFormat() throws {
        let fixture = try job(#"logs: ["logs/2026/03/01/*", {path: "logs/2026/03/02/*", format: offerlab}]"#, omit: ["logs"])
        let loaded = try JobLoader.load(path: fixture.path)
        #expect(
            loaded.inputs.logFiles == [fixture.folder.file("logs/2026/03/01/a.jsonl.gz"), fixture.folder.file("logs/2026/03/02/b.jsonl")])
        #expect(loaded.inputs.storeSources.isEmpty)

        let unknown = try job(#"logs: [{path: "logs/*/*/*/*", format: parquet}]"#, omit: ["logs"])
        let unknownError = try #require(throws: OfferLabError.self) { try JobLoader.load(path: unknown.path) }
        #expect(unknownError.code == .badJob && unknownError.location.jobKey == "logs")
        #expect(
            unknownError.message.hasSuffix(
                "unknown format 'parquet' (known: offerlab, app_store_notifications, revenuecat_export, revenuecat_webhooks, "
                    + "google_play, google_play_orders)"))

        let noPath = try job(#"logs: [{format: offerlab}]"#, omit: ["logs"])
        #expect(throws: OfferLabError.self) { try JobLoader.load(path: noPath.path) }
    }

    @Test func aGlobThatMatchesNothingIsNamed() throws {
        let fixture = try job("logs: [\"logs/*/*/*/*\", \"missing/*.gz\"]", omit: ["logs"])
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: fixture.path) }
        #expect(error.code == .missingInput && error.location == .init(path: fixture.path, jobKey: "logs"), "\(error)")
    }

    @Test func missingKeysAndPathsAreNamed() throws {
        let noDatabase = try job(omit: ["database"])
        let missing = try #require(throws: OfferLabError.self) { try JobLoader.load(path: noDatabase.path) }
        #expect(missing.code == .badJob && missing.location == .init(path: noDatabase.path, jobKey: "database"), "\(missing)")
        let badTables = try job("tables: nowhere/", omit: ["tables"])
        let error = try #require(throws: OfferLabError.self) { try JobLoader.load(path: badTables.path) }
        #expect(error.code == .missingInput && error.location == .init(path: badTables.path, jobKey: "tables"), "\(error)")
        let badAsOf = try job("as_of: 2026-02-30", omit: ["as_of"])
        let asOf = try #require(throws: OfferLabError.self) { try JobLoader.load(path: badAsOf.path) }
        #expect(asOf.code == .badJob && asOf.location == .init(path: badAsOf.path, jobKey: "as_of"), "\(asOf)")
    }
}
