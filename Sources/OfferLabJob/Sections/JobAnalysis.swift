import OfferLabStatistics
import OfferLabSupport

/// The job's analysis section: which offerings and groups, in which currency, over which window,
/// with which extra metrics (a capped revenue, matured ones, slices, proceeds).
public struct JobAnalysis: Sendable {
    public var reportCurrency: String
    /// 1 unit of the currency = rate units of the report currency (the report currency is 1).
    public var rates: [String: Double] = [:]
    /// The run fails when an offering's counted money events without a rate are more than
    /// this share of its money events; nil: never (a warning only).
    public var maxUnconvertibleMoneyShare: Double?
    public var control: String?
    public var conversionWindowDays: Double?
    /// Offering ids to analyse; nil: every offering with assignments before the night.
    public var offerings: [String]?
    /// The log fields results are sliced by (docs/analysis.md §7), in the job's order; empty: no slices.
    public var slices: [SliceField] = []
    /// How many levels of a slice field are kept before the rest are merged into `(other)`.
    public var maxSliceLevels = SliceField.defaultMaxLevels
    /// How per-user revenue is capped for `arpu_capped` (docs/analysis.md §4b); nil: no capping.
    public var revenueCap: RevenueCapRule?
    /// The D of the matured metrics (docs/analysis.md §4c), ascending and distinct; empty: none.
    public var maturityDays: [Int] = []
    /// VAT rates, stores and commissions for proceeds (docs/analysis.md §8).
    public var proceeds = ProceedsSettings()

    static let keys = [
        JobKey(name: "report_currency", defaultValue: "required", help: "e.g. USD: upper-case ISO 4217 codes, as in the rates"),
        JobKey(name: "rates", defaultValue: "report currency only", help: "{EUR: 1.08}: 1 EUR = 1.08 report units"),
        JobKey(name: "rates_file", defaultValue: "report currency only", help: "or a CSV file of rates: currency,rate"),
        JobKey(
            name: "max_unconvertible_money_share", defaultValue: "off: a warning only",
            help: "fail above this share of money events without a rate"),
        JobKey(
            name: "control", defaultValue: "`control`, else the lowest group id",
            help: "the control group's name"),
        JobKey(name: "conversion_window_days", defaultValue: "no window", help: "days after assignment that count"),
        JobKey(name: "offerings", defaultValue: "every offering with assignments", help: "offering ids to analyse"),
        JobKey(name: "slices", defaultValue: "no slices", help: "log fields to break results down by: country, platform"),
        JobKey(
            name: "max_slice_levels", defaultValue: "\(SliceField.defaultMaxLevels)",
            help: "levels kept per slice field, the rest as (other)"),
        JobKey(
            name: "revenue_cap", defaultValue: "no capping",
            help: "{percentile: 0.99} or {value: 500}: arpu_capped's cap"),
        JobKey(name: "maturity_days", defaultValue: "none", help: "e.g. [7, 14, 30]: conversion and revenue in D days"),
        JobKey(name: "tax_rates", defaultValue: "no VAT", help: "{DE: 0.19}: VAT in the prices paid in a country"),
        JobKey(name: "tax_rates_file", defaultValue: "no VAT", help: "or a CSV file of VAT rates: country,rate"),
        JobKey(name: "default_store", defaultValue: "`app_store`", help: "the store of an event without store"),
        JobKey(
            name: "app_store_small_business", defaultValue: "`false`",
            help: "true: the App Store takes 15 % (Small Business Program)"),
        JobKey(name: "commission", defaultValue: "none", help: "{amazon: 0.2}: other stores' commissions"),
    ]

    /// The slice fields whose values the events keep: the job's, and `country` when a VAT rate
    /// depends on it.
    package var keptSliceFields: SliceFields {
        SliceFields(proceeds.taxRates.isEmpty || slices.contains(.country) ? slices : slices + [.country])
    }
}

extension JobAnalysis {
    init(_ reader: JobValues) throws {
        reportCurrency = try reader.requiredText("report_currency")
        if let problem = CurrencyCode.problem(reportCurrency) { throw reader.fail("report_currency", problem) }
        rates = try reader.rates()
        rates[reportCurrency] = 1
        maxUnconvertibleMoneyShare = try reader.optionalNumber("max_unconvertible_money_share")
        if let share = maxUnconvertibleMoneyShare, !(share >= 0 && share <= 1) {
            throw reader.fail("max_unconvertible_money_share", "\(share) must be from 0 to 1 (a share of the money events)")
        }
        control = try reader.optionalText("control")
        conversionWindowDays = try reader.optionalNumber("conversion_window_days")
        if let window = conversionWindowDays, !(window > 0) {
            throw reader.fail("conversion_window_days", "\(window) must be positive")
        }
        offerings = reader.has("offerings") ? try reader.textList("offerings") : nil
        slices = try reader.slices()
        let levels = try reader.number("max_slice_levels", default: Double(maxSliceLevels))
        guard levels >= 1, levels == levels.rounded(), levels <= 10_000 else {
            throw reader.fail("max_slice_levels", "\(levels) must be a whole number from 1 to 10000")
        }
        maxSliceLevels = Int(levels)
        revenueCap = try reader.revenueCap()
        maturityDays = try reader.maturityDays()
        proceeds = try reader.proceeds()
    }
}

extension JobValues {
    /// `rates` or `rates_file` (not both): each currency's rate to the report currency.
    fileprivate func rates() throws -> [String: Double] {
        if has("rates") && has("rates_file") {
            throw OfferLabError(
                .badJob, "job file \(path): give rates or rates_file, not both", location: .init(path: path, jobKey: "rates_file"))
        }
        if let node = values["rates"] {
            guard let mapping = node.mapping else { throw fail("rates", "expected a mapping like {EUR: 1.08}") }
            var rates: [String: Double] = [:]
            for (currencyNode, rateNode) in mapping {
                guard let currency = currencyNode.string, !currency.isEmpty else { throw fail("rates", "a currency is not text") }
                if let problem = CurrencyCode.problem(currency) { throw fail("rates", problem) }
                rates[currency] = try positiveRate(rateNode.string, currency: currency, source: "rates")
            }
            return rates
        }
        guard let ratesFile = try optionalText("rates_file") else { return [:] }
        return try RatesFile.read(path: resolve(ratesFile))
    }

    /// `revenue_cap: {percentile: p}` (0 < p < 1) or `{value: C}` (C > 0), or nil when absent.
    fileprivate func revenueCap() throws -> RevenueCapRule? {
        guard let node = values["revenue_cap"], node.null == nil else { return nil }
        let form = "expected {percentile: 0.99} or {value: 500}"
        guard let mapping = node.mapping else { throw fail("revenue_cap", form) }
        var given: [String: Double] = [:]
        for (keyNode, valueNode) in mapping {
            guard let key = keyNode.string, key == "percentile" || key == "value" else {
                throw fail("revenue_cap", "unknown key '\(keyNode.string ?? "")': \(form)")
            }
            guard let text = valueNode.scalar?.string, let number = Double(text), number.isFinite else {
                throw fail("revenue_cap", "\(key) '\(valueNode.scalar?.string ?? "")' is not a number")
            }
            given[key] = number
        }
        switch (given["percentile"], given["value"]) {
        case (let p?, nil):
            guard p > 0 && p < 1 else { throw fail("revenue_cap", "percentile \(p) must be between 0 and 1 (exclusive), e.g. 0.99") }
            return .percentile(p)
        case (nil, let amount?):
            guard amount > 0 else { throw fail("revenue_cap", "value \(amount) must be a positive amount of the report currency") }
            return .value(amount)
        case (.some, .some): throw fail("revenue_cap", "give percentile or value, not both")
        case (nil, nil): throw fail("revenue_cap", form)
        }
    }

    /// `maturity_days: [7, 14, 30]`: positive whole days up to 100 years, each once; ascending.
    fileprivate func maturityDays() throws -> [Int] {
        guard let node = values["maturity_days"], node.null == nil else { return [] }
        guard let sequence = node.sequence else { throw fail("maturity_days", "expected a list of whole days, like [7, 14, 30]") }
        var days: [Int] = []
        for item in sequence {
            let text = item.scalar?.string ?? ""
            guard let day = Int(text), day > 0 else { throw fail("maturity_days", "'\(text)' is not a positive whole number of days") }
            // Days as microseconds added to assignment times must not overflow.
            guard day <= 36_500 else { throw fail("maturity_days", "\(day) days is more than 100 years") }
            guard !days.contains(day) else { throw fail("maturity_days", "\(day) is given twice") }
            days.append(day)
        }
        return days.sorted()
    }

    /// `slices: [country, platform]`: log fields results can be sliced by, each once, in order.
    fileprivate func slices() throws -> [SliceField] {
        guard has("slices") else { return [] }
        var fields: [SliceField] = []
        for name in try textList("slices") {
            guard let field = SliceField(rawValue: name) else {
                let known = SliceField.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail("slices", "'\(name)' is not a log field results can be sliced by (known: \(known))")
            }
            guard !fields.contains(field) else { throw fail("slices", "'\(name)' is named twice") }
            fields.append(field)
        }
        return fields
    }

    /// `tax_rates` or `tax_rates_file`, `default_store`, `app_store_small_business`, `commission`.
    fileprivate func proceeds() throws -> ProceedsSettings {
        var settings = ProceedsSettings()
        if has("tax_rates") && has("tax_rates_file") {
            throw fail("tax_rates_file", "give tax_rates or tax_rates_file, not both")
        }
        if let node = values["tax_rates"], node.null == nil {
            guard let mapping = node.mapping else { throw fail("tax_rates", "expected a mapping like {DE: 0.19, FR: 0.2}") }
            for (countryNode, rateNode) in mapping {
                let country = countryNode.string ?? ""
                if let problem = ProceedsSettings.countryProblem(country) { throw fail("tax_rates", problem) }
                let text = rateNode.scalar?.string ?? ""
                guard let rate = Double(text) else { throw fail("tax_rates", "the rate of \(country) '\(text)' is not a number") }
                if let problem = ProceedsSettings.rateProblem(rate) {
                    throw fail("tax_rates", "the rate of \(country) (\(text)) \(problem)")
                }
                settings.taxRates[country] = rate
            }
        } else if let file = try optionalText("tax_rates_file") {
            settings.taxRates = try TaxRatesFile.read(path: resolve(file))
        }
        if let store = try optionalText("default_store") {
            guard !store.isEmpty else { throw fail("default_store", "name a store: app_store, play_store or one of commission:") }
            settings.defaultStore = store.lowercased()
        }
        settings.appStoreSmallBusiness = try flag("app_store_small_business")
        if let node = values["commission"], node.null == nil {
            guard let mapping = node.mapping else { throw fail("commission", "expected a mapping like {amazon: 0.2}") }
            for (storeNode, rateNode) in mapping {
                let store = (storeNode.string ?? "").lowercased()
                guard !store.isEmpty else { throw fail("commission", "a store is not text") }
                guard store != ProceedsSettings.appStore && store != ProceedsSettings.playStore else {
                    throw fail(
                        "commission",
                        "\(store)'s commission is the store's own (app_store 30 %, 15 % with app_store_small_business: true or after a year; play_store 15 %)"
                    )
                }
                let text = rateNode.scalar?.string ?? ""
                guard let rate = Double(text) else { throw fail("commission", "the commission of \(store) '\(text)' is not a number") }
                if let problem = ProceedsSettings.rateProblem(rate) {
                    throw fail("commission", "the commission of \(store) (\(text)) \(problem)")
                }
                settings.commissions[store] = rate
            }
        }
        return settings
    }

    fileprivate func positiveRate(_ text: String?, currency: String, source: String) throws -> Double {
        guard let text, let rate = Double(text), rate.isFinite, rate > 0 else {
            throw fail(source, "the rate of \(currency) must be a positive number")
        }
        return rate
    }
}
