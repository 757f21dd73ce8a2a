/// A product's billing period, read from its catalog `type`
/// (`subscription_offering_group_products.csv`): the one rule the period test, the projection and
/// the decision's plan share (docs/statistics.md, "Period tests").
public struct BillingPeriod: Sendable, Hashable {
    /// What a catalog `type` says of a product's charges.
    public enum Kind: Sendable, Hashable {
        /// Renews every so many days: `weekly` 7, `monthly` 365.25/12 (a calendar month on
        /// average, so a year holds 12 charges, as the stores bill), `yearly` 365.25.
        case renewing(everyDays: Double)
        /// One charge, no renewal: `one_time`, or a pass (`3_day_pass`), with the days it covers
        /// when its name says them (`N_day_pass`, `N_week_pass`, `N_month_pass`, `N_year_pass`).
        case oneTime(coversDays: Double?)
        /// A type neither rule knows (`quarterly`, `lifetime_deal`): a period of its own, whose
        /// renewals the projection takes from the members' own rates.
        case unknown
    }

    /// The catalog `type`, as written.
    public let catalogType: String
    public let kind: Kind

    public init(catalogType type: String) {
        catalogType = type
        switch type {
        case "weekly": kind = .renewing(everyDays: 7)
        case "monthly": kind = .renewing(everyDays: 365.25 / 12)
        case "yearly": kind = .renewing(everyDays: 365.25)
        case "one_time": kind = .oneTime(coversDays: nil)
        default:
            guard type.hasSuffix("_pass") else {
                kind = .unknown
                return
            }
            let words = type.split(separator: "_")
            let unit: Double? = ["day": 1, "week": 7, "month": 365.25 / 12, "year": 365.25][words.count == 3 ? String(words[1]) : ""]
            kind = .oneTime(coversDays: unit.flatMap { unit in Double(words[0]).map { $0 * unit } })
        }
    }

    /// The days between renewals; nil for a product that does not renew or a type not known.
    public var renewalPeriodDays: Double? {
        if case .renewing(let days) = kind { days } else { nil }
    }

    /// Whether the type is one the rules know (a renewing period, a pass or `one_time`).
    public var isKnown: Bool { kind != .unknown }

    /// The days one charge covers, when the type says (a period's days, a pass's length).
    public var coveredDays: Double? {
        switch kind {
        case .renewing(let days): days
        case .oneTime(let days): days
        case .unknown: nil
        }
    }

    /// The type in a product lead's words: `3_day_pass` → "3-day pass", `one_time` → "one-time
    /// purchase", `weekly` as it is, `lifetime_deal` → "lifetime deal".
    public var plainName: String {
        if catalogType == "one_time" { return "one-time purchase" }
        let words = catalogType.split(separator: "_").map(String.init)
        if words.count >= 3, words.last == "pass", Int(words[0]) != nil {
            return "\(words[0])-\(words[1...].dropLast().joined(separator: " ")) pass"
        }
        return words.joined(separator: " ")
    }

    /// Shortest first: by the days a charge covers (a pass by its length), then the types whose
    /// days are not known (`one_time`, unknown ones) by name.
    public static func shortestFirst(_ periods: some Sequence<BillingPeriod>) -> [BillingPeriod] {
        periods.sorted { ($0.coveredDays ?? .infinity, $0.catalogType) < ($1.coveredDays ?? .infinity, $1.catalogType) }
    }
}
