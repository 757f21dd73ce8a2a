/// A metric a treatment is compared on: what kind of comparison it is, and the name written in
/// the `metric` column of `comparisons.csv` (`conversion`, `arpu`, `arpu_capped`,
/// `conversion_d7`, `arpu_d7`, …).
public struct Metric: Sendable, Hashable, CustomStringConvertible {
    /// How a metric's rows are computed (docs/statistics.md, Each treatment against control).
    public enum Kind: Sendable, Hashable {
        /// A rate of converters among users: pooled z-test, normal intervals, Beta posteriors,
        /// minimum detectable effect.
        case conversion
        /// A mean of per-user revenue: Welch t-test, Student-t interval, normal chance.
        case revenue
    }

    public let kind: Kind
    /// The name written in the `metric` column of `comparisons.csv`.
    public let csvName: String
    /// The metric as a product lead reads it, without the analyst's column name: "revenue per
    /// user", "conversion within 7 days" (the report's and `offerlab status`' words).
    public let plainName: String

    private init(kind: Kind, csvName: String, plainName: String) {
        self.kind = kind
        self.csvName = csvName
        self.plainName = plainName
    }

    /// Conversion rate: converters/users.
    public static let conversion = Metric(kind: .conversion, csvName: "conversion", plainName: "conversion")
    /// Average revenue per user: Σ net revenue/users.
    public static let arpu = Metric(kind: .revenue, csvName: "arpu", plainName: "revenue per user")
    /// ARPU on revenue capped at the offering's cap (docs/analysis.md §4b).
    public static let arpuCapped = Metric(kind: .revenue, csvName: "arpu_capped", plainName: "revenue per user, capped")

    /// Net proceeds (what the app keeps) per user (docs/analysis.md §8).
    public static let proceedsPerUser = Metric(kind: .revenue, csvName: "proceeds_per_user", plainName: "proceeds per user")
    /// Conversion among the members whose trial has ended, converted or lapsed (docs/analysis.md §9).
    public static let trialCompletedConversion = Metric(
        kind: .conversion, csvName: "trial_completed_conversion", plainName: "conversion of ended trials")
    /// The share of members with at least one counted refund (docs/statistics.md, "The decision"):
    /// compared as conversion, and the one metric whose harmful direction is up.
    public static let refundUserRate = Metric(kind: .conversion, csvName: "refund_user_rate", plainName: "users refunded (lower is better)")

    /// The expected revenue per user over a newcomer's first year (docs/statistics.md, "Projected
    /// revenue per user after 365 days"): the goal of a period test.
    public static let projectedARPU365 = Metric(
        kind: .revenue, csvName: "projected_arpu_365", plainName: "revenue per user in the first year")

    /// Whether a rise of the metric is the harm (`refund_user_rate`); every other metric's harm is a fall.
    public var isHarmfulWhenUp: Bool { self == .refundUserRate }

    /// Conversion within `days` of assignment, among users assigned at least `days` ago (docs/analysis.md §4c).
    public static func conversion(maturedDays days: Int) -> Metric {
        Metric(kind: .conversion, csvName: "conversion_d\(days)", plainName: "conversion" + within(days))
    }
    /// ARPU within `days` of assignment, among users assigned at least `days` ago (docs/analysis.md §4c).
    public static func arpu(maturedDays days: Int) -> Metric {
        Metric(kind: .revenue, csvName: "arpu_d\(days)", plainName: "revenue per user" + within(days))
    }

    private static func within(_ days: Int) -> String { " within \(days) day\(days == 1 ? "" : "s")" }

    public var description: String { csvName }

    /// The metrics of a fixed name, in the order `comparisons.csv` writes them (the matured ones,
    /// `conversion_d<D>` and `arpu_d<D>`, are made per D).
    public static let fixedNames: [Metric] = [
        .conversion, .arpu, .arpuCapped, .proceedsPerUser, .trialCompletedConversion, .refundUserRate, .projectedARPU365,
    ]

    /// The metric written as `name` in `comparisons.csv`; nil for a name this offerlab does not know.
    public init?(csvName name: String) {
        if let days = Self.maturedDays(of: name), days > 0, name == "conversion_d\(days)" || name == "arpu_d\(days)" {
            self = name.hasPrefix("conversion") ? .conversion(maturedDays: days) : .arpu(maturedDays: days)
        } else if let metric = Self.fixedNames.first(where: { $0.csvName == name }) {
            self = metric
        } else {
            return nil
        }
    }

    /// The metrics with comparison rows in a run with these `maturityDays` and (with
    /// `hasRevenueCap`) a revenue cap, in the order `comparisons.csv` writes them; the projected
    /// year (`projectedARPU365`) is compared apart, on the projection.
    public static func compared(maturityDays: [Int], hasRevenueCap: Bool) -> [Metric] {
        [.conversion, .arpu] + (hasRevenueCap ? [.arpuCapped] : [])
            + maturityDays.flatMap { [Metric.conversion(maturedDays: $0), .arpu(maturedDays: $0)] }
            + [.proceedsPerUser, .trialCompletedConversion, .refundUserRate]
    }

    /// `plainName` of the metric named `name` in `comparisons.csv` (`arpu_d7` → "revenue per user
    /// within 7 days"); a name this offerlab does not know stays as it is.
    public static func plainName(of name: String) -> String { Metric(csvName: name)?.plainName ?? name }

    /// D of `conversion_d<D>` and `arpu_d<D>`; nil for every other metric.
    public var maturedDays: Int? { Self.maturedDays(of: csvName) }

    /// D of a metric named `conversion_d<D>` or `arpu_d<D>`; nil for every other name.
    public static func maturedDays(of name: String) -> Int? {
        for prefix in ["conversion_d", "arpu_d"] where name.hasPrefix(prefix) {
            return Int(name.dropFirst(prefix.count))
        }
        return nil
    }
}
