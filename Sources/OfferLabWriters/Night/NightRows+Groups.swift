/// A group's metrics (docs/analysis.md §4, and §8–§9's proceeds, trials and subscribers, empty
/// where the source cannot tell them): `summary`, `daily` and `slice_summary` hold them in this
/// order.
struct GroupMetrics: TypedRow, Equatable {
    var users = 0
    var converters = 0
    var conversionRate: Double?
    var conversionCILow: Double?
    var conversionCIHigh: Double?
    var trialStarters = 0
    var trialConverters = 0
    var trialConversionRate: Double?
    var paywallViewers = 0
    var purchases = 0
    var renewals = 0
    var refunds = 0
    var grossRevenue = 0.0
    var refundedRevenue = 0.0
    var netRevenue = 0.0
    var arpu: Double?
    var arpuSD: Double?
    var arppu: Double?
    var netProceeds: Double?
    var proceedsPerUser: Double?
    var proceedsPerUserSD: Double?
    var trialsConverted: Int?
    var trialsPending: Int?
    var trialsLapsed: Int?
    var trialsUnknown: Int?
    var trialCompletedConversionRate: Double?
    var activeSubscribers: Int?
    var churnedSubscribers: Int?
    var refundUsers: Int?
    var refundUserRate: Double?

    static let columns: [TableColumn<GroupMetrics>] = [
        .init(.users, \.users), .init(.converters, \.converters), .init(.conversionRate, \.conversionRate),
        .init(.conversionCILow, \.conversionCILow), .init(.conversionCIHigh, \.conversionCIHigh),
        .init(.trialStarters, \.trialStarters), .init(.trialConverters, \.trialConverters),
        .init(.trialConversionRate, \.trialConversionRate), .init(.paywallViewers, \.paywallViewers),
        .init(.purchases, \.purchases), .init(.renewals, \.renewals), .init(.refunds, \.refunds),
        .init(.grossRevenue, \.grossRevenue), .init(.refundedRevenue, \.refundedRevenue), .init(.netRevenue, \.netRevenue),
        .init(.arpu, \.arpu), .init(.arpuSD, \.arpuSD), .init(.arppu, \.arppu), .init(.netProceeds, \.netProceeds),
        .init(.proceedsPerUser, \.proceedsPerUser), .init(.proceedsPerUserSD, \.proceedsPerUserSD),
        .init(.trialsConverted, \.trialsConverted), .init(.trialsPending, \.trialsPending), .init(.trialsLapsed, \.trialsLapsed),
        .init(.trialsUnknown, \.trialsUnknown), .init(.trialCompletedConversionRate, \.trialCompletedConversionRate),
        .init(.activeSubscribers, \.activeSubscribers), .init(.churnedSubscribers, \.churnedSubscribers),
        .init(.refundUsers, \.refundUsers), .init(.refundUserRate, \.refundUserRate),
    ]
}

/// A row of `summary`: per group its metrics, then its capped revenue (docs/analysis.md §4b;
/// empty without a `revenue_cap`).
struct SummaryRow: TypedRow, Equatable {
    var offeringID = ""
    var group = ""
    var isControl = false
    var weight = 0.0
    var metrics = GroupMetrics()
    /// The offering's revenue cap (nil: none set, or nobody paid).
    var revenueCap: Double?
    /// Revenue per user with each user's revenue capped; nil when no cap is set.
    var arpuCapped: Double?
    var arpuCappedSD: Double?
    /// Users whose revenue the cap lowered; nil when no cap is set.
    var cappedUsers: Int?

    static let table = TypedTable<SummaryRow>(
        name: "summary", keys: [.offeringID, .group],
        columns: [.init(.offeringID, \.offeringID), .init(.group, \.group), .init(.isControl, \.isControl), .init(.weight, \.weight)]
            + GroupMetrics.columns.map { $0.of(\.metrics) }
            + [
                .init(.revenueCap, \.revenueCap), .init(.arpuCapped, \.arpuCapped), .init(.arpuCappedSD, \.arpuCappedSD),
                .init(.cappedUsers, \.cappedUsers),
            ])
}

/// A compared metric of a `daily` row: its fixed-horizon and its sequential values.
struct DailyComparison: Sendable, Equatable {
    var lift = LiftValues()
    var sequential = SequentialValues()
}

/// A row of `daily`: per (offering, day, group), the group's metrics as of the end of the day
/// and, for treatments, each compared metric's comparison with control as of then.
struct DailyRow: TypedRow, Equatable {
    var offeringID = ""
    /// `YYYY-MM-DD`.
    var date = ""
    var group = ""
    var isControl = false
    var metrics = GroupMetrics()
    var conversion = DailyComparison()
    var arpu = DailyComparison()
    /// Proceeds per user, beside ARPU (docs/analysis.md §8).
    var proceedsPerUser = DailyComparison()
    /// Conversion's minimum detectable effect.
    var conversionMDE: Double?

    /// The compared metrics by their `comparisons.csv` names, which prefix their columns
    /// (`conversion_rel_lift`, `arpu_seq_p_value`).
    static let comparedMetrics: [(name: String, field: WritableKeyPath<DailyRow, DailyComparison> & Sendable)] = [
        ("conversion", \.conversion), ("arpu", \.arpu), ("proceeds_per_user", \.proceedsPerUser),
    ]

    /// The key and metrics, each compared metric's fixed-horizon values, conversion's minimum
    /// detectable effect, then each metric's sequential values.
    static let table = TypedTable<DailyRow>(
        name: "daily", keys: [.offeringID, .date, .group],
        columns: [.init(.offeringID, \.offeringID), .init(.date, \.date), .init(.group, \.group), .init(.isControl, \.isControl)]
            + GroupMetrics.columns.map { $0.of(\.metrics) }
            + comparedMetrics.flatMap { metric in
                LiftValues.columns.map { $0.of(\DailyComparison.lift).of(metric.field).named(.daily($0.column, of: metric.name)) }
            }
            + [TableColumn(.daily(.mdeAbs, of: .conversion), \.conversionMDE)]
            + comparedMetrics.flatMap { metric in
                SequentialValues.columns.map {
                    $0.of(\DailyComparison.sequential).of(metric.field).named(.daily($0.column, of: metric.name))
                }
            })
}

/// A row of `maturity`: per (offering, group, D), the members assigned at least D days before
/// the night (docs/analysis.md §4c).
struct MaturityRow: TypedRow, Equatable {
    var offeringID = ""
    var group = ""
    var days = 0
    var users = 0
    var converters = 0
    var conversionRate: Double?
    var netRevenue = 0.0
    var arpu: Double?
    var arpuSD: Double?

    static let table = TypedTable<MaturityRow>(
        name: "maturity", keys: [.offeringID, .group, .days],
        columns: [
            .init(.offeringID, \.offeringID), .init(.group, \.group), .init(.days, \.days), .init(.users, \.users),
            .init(.converters, \.converters), .init(.conversionRate, \.conversionRate), .init(.netRevenue, \.netRevenue),
            .init(.arpu, \.arpu), .init(.arpuSD, \.arpuSD),
        ])
}

/// A row of `products`: a group's sales of one product.
struct ProductRow: TypedRow, Equatable {
    var offeringID = ""
    var group = ""
    var productID = ""
    var purchases = 0
    var renewals = 0
    var refunds = 0
    var netRevenue = 0.0
    var netProceeds: Double?

    static let table = TypedTable<ProductRow>(
        name: "products", keys: [.offeringID, .group, .productID],
        columns: [
            .init(.offeringID, \.offeringID), .init(.group, \.group), .init(.productID, \.productID), .init(.purchases, \.purchases),
            .init(.renewals, \.renewals), .init(.refunds, \.refunds), .init(.netRevenue, \.netRevenue),
            .init(.netProceeds, \.netProceeds),
        ])
}

/// A row of `projection`: per (offering, group), the projection
/// (docs/statistics.md#the-projection-in-a-run).
struct ProjectionRow: TypedRow, Equatable {
    var offeringID = ""
    var group = ""
    var users = 0
    /// The members' mean of min(as_of − assigned_at, 365 days), in days.
    var observedDaysMean: Double?
    var realizedARPU: Double?
    var projectedARPU365: Double?
    /// Present without a projection when the renewals are bounded, not estimated.
    var low: Double?
    var high: Double?
    /// Why `projectedARPU365` is empty ("" when it has a value).
    var reason = ""

    static let table = TypedTable<ProjectionRow>(
        name: "projection", keys: [.offeringID, .group],
        columns: [
            .init(.offeringID, \.offeringID), .init(.group, \.group), .init(.users, \.users),
            .init(.observedDaysMean, \.observedDaysMean), .init(.realizedARPU, \.realizedARPU),
            .init(.projectedARPU365, \.projectedARPU365), .init(.projectedARPU365CILow, \.low),
            .init(.projectedARPU365CIHigh, \.high), .init(.reason, \.reason),
        ])
}
