import OfferLabVocabulary

/// A group's metrics (docs/analysis.md §4, and §8–§9's proceeds, trials and subscribers, empty
/// where the source cannot tell them): `summary`, `daily` and `slice_summary` hold them in this
/// order.
package struct GroupMetrics: TypedRow, Equatable {
    package var users = 0
    package var converters = 0
    package var conversionRate: Double?
    package var conversionCILow: Double?
    package var conversionCIHigh: Double?
    package var trialStarters = 0
    package var trialConverters = 0
    package var trialConversionRate: Double?
    package var paywallViewers = 0
    package var purchases = 0
    package var renewals = 0
    package var refunds = 0
    package var grossRevenue = 0.0
    package var refundedRevenue = 0.0
    package var netRevenue = 0.0
    package var arpu: Double?
    package var arpuSD: Double?
    package var arppu: Double?
    package var netProceeds: Double?
    package var proceedsPerUser: Double?
    package var proceedsPerUserSD: Double?
    /// Of the charges' proceeds before refunds, the share the records state exactly.
    package var exactProceedsShare: Double?
    package var trialsConverted: Int?
    package var trialsPending: Int?
    package var trialsLapsed: Int?
    package var trialsUnknown: Int?
    package var trialCompletedConversionRate: Double?
    package var activeSubscribers: Int?
    package var churnedSubscribers: Int?
    package var refundUsers: Int?
    package var refundUserRate: Double?

    package static let columns: [TableColumn<GroupMetrics>] = [
        .init(.users, \.users), .init(.converters, \.converters), .init(.conversionRate, \.conversionRate),
        .init(.conversionCILow, \.conversionCILow), .init(.conversionCIHigh, \.conversionCIHigh),
        .init(.trialStarters, \.trialStarters), .init(.trialConverters, \.trialConverters),
        .init(.trialConversionRate, \.trialConversionRate), .init(.paywallViewers, \.paywallViewers),
        .init(.purchases, \.purchases), .init(.renewals, \.renewals), .init(.refunds, \.refunds),
        .init(.grossRevenue, \.grossRevenue), .init(.refundedRevenue, \.refundedRevenue), .init(.netRevenue, \.netRevenue),
        .init(.arpu, \.arpu), .init(.arpuSD, \.arpuSD), .init(.arppu, \.arppu), .init(.netProceeds, \.netProceeds),
        .init(.proceedsPerUser, \.proceedsPerUser), .init(.proceedsPerUserSD, \.proceedsPerUserSD),
        .init(.exactProceedsShare, \.exactProceedsShare),
        .init(.trialsConverted, \.trialsConverted), .init(.trialsPending, \.trialsPending), .init(.trialsLapsed, \.trialsLapsed),
        .init(.trialsUnknown, \.trialsUnknown), .init(.trialCompletedConversionRate, \.trialCompletedConversionRate),
        .init(.activeSubscribers, \.activeSubscribers), .init(.churnedSubscribers, \.churnedSubscribers),
        .init(.refundUsers, \.refundUsers), .init(.refundUserRate, \.refundUserRate),
    ]
}

/// A row of `summary`: per group its metrics, then its capped revenue (docs/analysis.md §4b;
/// empty without a `revenue_cap`).
package struct SummaryRow: TypedRow, Equatable {
    package var offeringID = ""
    package var group = ""
    package var isControl = false
    package var weight = 0.0
    package var metrics = GroupMetrics()
    /// The offering's revenue cap (nil: none set, or nobody paid).
    package var revenueCap: Double?
    /// Revenue per user with each user's revenue capped; nil when no cap is set.
    package var arpuCapped: Double?
    package var arpuCappedSD: Double?
    /// Users whose revenue the cap lowered; nil when no cap is set.
    package var cappedUsers: Int?

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
package struct DailyComparison: Sendable, Equatable {
    package var lift = LiftValues()
    package var sequential = SequentialValues()
}

/// A row of `daily`: per (offering, day, group), the group's metrics as of the end of the day
/// and, for treatments, each compared metric's comparison with control as of then.
package struct DailyRow: TypedRow, Equatable {
    package var offeringID = ""
    /// `YYYY-MM-DD`.
    package var date = ""
    package var group = ""
    package var isControl = false
    package var metrics = GroupMetrics()
    package var conversion = DailyComparison()
    package var arpu = DailyComparison()
    /// Proceeds per user, beside ARPU (docs/analysis.md §8).
    package var proceedsPerUser = DailyComparison()
    /// Conversion's minimum detectable effect.
    package var conversionMDE: Double?

    /// The compared metrics by their `comparisons.csv` names, which prefix their columns
    /// (`conversion_rel_lift`, `arpu_seq_p_value`).
    static let comparedMetrics: [(name: String, field: WritableKeyPath<DailyRow, DailyComparison> & Sendable)] = [
        (Metric.conversion.csvName, \.conversion), (Metric.arpu.csvName, \.arpu), (Metric.proceedsPerUser.csvName, \.proceedsPerUser),
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
package struct MaturityRow: TypedRow, Equatable {
    package var offeringID = ""
    package var group = ""
    package var days = 0
    package var users = 0
    package var converters = 0
    package var conversionRate: Double?
    package var netRevenue = 0.0
    package var arpu: Double?
    package var arpuSD: Double?

    static let table = TypedTable<MaturityRow>(
        name: "maturity", keys: [.offeringID, .group, .days],
        columns: [
            .init(.offeringID, \.offeringID), .init(.group, \.group), .init(.days, \.days), .init(.users, \.users),
            .init(.converters, \.converters), .init(.conversionRate, \.conversionRate), .init(.netRevenue, \.netRevenue),
            .init(.arpu, \.arpu), .init(.arpuSD, \.arpuSD),
        ])
}

/// A row of `products`: a group's sales of one product.
package struct ProductRow: TypedRow, Equatable {
    package var offeringID = ""
    package var group = ""
    package var productID = ""
    package var purchases = 0
    package var renewals = 0
    package var refunds = 0
    package var netRevenue = 0.0
    package var netProceeds: Double?

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
package struct ProjectionRow: TypedRow, Equatable {
    package var offeringID = ""
    package var group = ""
    package var users = 0
    /// The members' mean of min(as_of − assigned_at, 365 days), in days.
    package var observedDaysMean: Double?
    package var realizedARPU: Double?
    package var projectedARPU365: Double?
    /// The interval at the rates seen; empty without a value.
    package var low: Double?
    package var high: Double?
    /// The far ends (none of what the data cannot identify, the most they allow); present
    /// without a value too.
    package var boundLow: Double?
    package var boundHigh: Double?
    /// Why `projectedARPU365` is empty ("" when it has a value).
    package var reason = ""
    /// What the projected year rests on (docs/statistics.md#what-the-year-rests-on): the shares
    /// realised, still to come at the members' own rates, from follow-on chains, from the app's
    /// past and continued at the rates seen (these five add up to the year), and between the
    /// bounds; which products' renewals come from the past; which needed renewals the past does
    /// not identify either ("" when none).
    package var observedShare: Double?
    package var ownRatesShare: Double?
    package var followOnShare: Double?
    package var pastShare: Double?
    package var continuedShare: Double?
    package var boundedShare: Double?
    package var pastDetail = ""
    package var pastMissing = ""

    static let table = TypedTable<ProjectionRow>(
        name: "projection", keys: [.offeringID, .group],
        columns: [
            .init(.offeringID, \.offeringID), .init(.group, \.group), .init(.users, \.users),
            .init(.observedDaysMean, \.observedDaysMean), .init(.realizedARPU, \.realizedARPU),
            .init(.projectedARPU365, \.projectedARPU365), .init(.projectedARPU365CILow, \.low),
            .init(.projectedARPU365CIHigh, \.high), .init(.projectedARPU365BoundLow, \.boundLow),
            .init(.projectedARPU365BoundHigh, \.boundHigh), .init(.reason, \.reason), .init(.observedShare, \.observedShare),
            .init(.ownRatesShare, \.ownRatesShare), .init(.followOnShare, \.followOnShare), .init(.pastShare, \.pastShare),
            .init(.continuedShare, \.continuedShare), .init(.boundedShare, \.boundedShare), .init(.pastDetail, \.pastDetail),
            .init(.pastMissing, \.pastMissing),
        ])
}
