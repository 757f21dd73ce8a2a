import OfferLabIngest
import OfferLabStoreSources
import OfferLabSupport

/// What the stores and the states keep of a charge (docs/analysis.md §8): the job's VAT rates
/// per country, the store an event without `store` was charged by, and the commissions.
public struct ProceedsSettings: Sendable, Equatable {
    /// The VAT rate r per country code (as the logs write it); a country not named: 0.
    public var taxRates: [String: Double] = [:]
    /// The store of an event without `store` (lower-case).
    public var defaultStore = ProceedsSettings.appStore
    /// The App Store Small Business Program: 15 % on every charge.
    public var appStoreSmallBusiness = false
    /// The commission of every store but `app_store` and `play_store` (lower-case names); a
    /// store not named: 0.
    public var commissions: [String: Double] = [:]

    public static let appStore = "app_store"
    public static let playStore = "play_store"
    /// The App Store's commission, its reduced one (Small Business Program, and a renewal after
    /// the chain's first year of paid service), and Google Play's.
    public static let appStoreCommission = 0.30
    public static let reducedCommission = 0.15
    public static let playStoreCommission = 0.15

    public init() {}

    /// The commission of a charge by `store` (nil: `defaultStore`); `pastFirstYear`: a renewal
    /// whose chain's first paid charge is at least 365 days before it. Stores are matched in any
    /// case (docs/input-formats.md#the-export-column-by-column: RevenueCat's `PLAY_STORE` is
    /// `play_store`); the job's names are kept lower-case.
    public func commission(store: String?, pastFirstYear: Bool) -> Double {
        switch store?.lowercased() ?? defaultStore {
        case Self.appStore: appStoreSmallBusiness || pastFirstYear ? Self.reducedCommission : Self.appStoreCommission
        case Self.playStore: Self.playStoreCommission
        case let other: commissions[other] ?? 0
        }
    }

    /// The VAT share t = r/(1+r) of a VAT-inclusive price paid in `country` (nil: 0).
    public func taxShare(country: String?) -> Double {
        guard let country, let rate = taxRates[country] else { return 0 }
        return rate / (1 + rate)
    }

    /// Why `rate` cannot be a VAT rate or a commission, or nil.
    static func rateProblem(_ rate: Double) -> String? {
        rate.isFinite && rate >= 0 && rate < 1 ? nil : "must be from 0 to less than 1 (0.2 for 20 %)"
    }

    /// Why `country` cannot be a country of `tax_rates`, or nil.
    static func countryProblem(_ country: String) -> String? {
        CountryCode.alpha2.contains(country)
            ? nil : "'\(country)' is not an ISO 3166-1 alpha-2 country code (as the logs' country: US, DE, JP)"
    }
}

/// A tax rates file: the columns `country` (ISO 3166-1 alpha-2) and `rate` (the VAT rate r).
enum TaxRatesFile {
    static func read(path: String) throws -> [String: Double] {
        try KeyedRatesFile.read(path: path, jobKey: "tax_rates_file", keyColumn: "country", keyName: "country code") { country, rate in
            ProceedsSettings.countryProblem(country) ?? ProceedsSettings.rateProblem(rate).map { "the rate of \(country) (\(rate)) \($0)" }
        }
    }
}
