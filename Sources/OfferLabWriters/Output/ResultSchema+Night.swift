/// The columns of a night's tables, each named and typed once: the typed rows (`NightTables`)
/// bind each to a field in their table's declaration (`TypedTable`), which writes it to the CSV
/// file and the database and reads it back, so renaming one renames it everywhere.
extension ResultColumn {
    package static let offeringID = ResultColumn("offering_id", .text)
    static let group = ResultColumn("group", .text)
    static let isControl = ResultColumn("is_control", .bool)
    static let weight = ResultColumn("weight", .real)

    // A group's metrics (docs/analysis.md, section 4).
    static let users = ResultColumn("users", .integer, shown: "Users", as: .count)
    static let converters = ResultColumn("converters", .integer, shown: "Paying users", as: .count)
    static let conversionRate = ResultColumn("conversion_rate", .real, shown: "Conversion", as: .share)
    static let conversionCILow = ResultColumn("conversion_ci_low", .real, shown: "Conversion, low", as: .share)
    static let conversionCIHigh = ResultColumn("conversion_ci_high", .real, shown: "Conversion, high", as: .share)
    package static let trialStarters = ResultColumn("trial_starters", .integer, shown: "Trial starters", as: .count)
    package static let trialConverters = ResultColumn("trial_converters", .integer, shown: "Trials converted", as: .count)
    static let trialConversionRate = ResultColumn("trial_conversion_rate", .real, shown: "Trial conversion", as: .share)
    package static let paywallViewers = ResultColumn("paywall_viewers", .integer, shown: "Saw the paywall", as: .count)
    package static let purchases = ResultColumn("purchases", .integer, shown: "Purchases", as: .count)
    package static let renewals = ResultColumn("renewals", .integer, shown: "Renewals", as: .count)
    package static let refunds = ResultColumn("refunds", .integer, shown: "Refunds", as: .count)
    package static let grossRevenue = ResultColumn("gross_revenue", .money, shown: "Gross revenue", as: .money)
    package static let refundedRevenue = ResultColumn("refunded_revenue", .money, shown: "Refunded", as: .money)
    package static let netRevenue = ResultColumn("net_revenue", .money, shown: "Net revenue", as: .money)
    static let arpu = ResultColumn("arpu", .real, shown: "Revenue per user", as: .money)
    static let arpuSD = ResultColumn("arpu_sd", .real, shown: "Revenue per user, std. dev.", as: .money)
    static let arppu = ResultColumn("arppu", .real, shown: "Revenue per paying user", as: .money)

    // What the app keeps (docs/analysis.md §8), and trials and subscriptions as of the night (§9).
    package static let netProceeds = ResultColumn("net_proceeds", .money, shown: "Net proceeds", as: .money)
    static let proceedsPerUser = ResultColumn("proceeds_per_user", .real, shown: "Proceeds per user", as: .money)
    static let proceedsPerUserSD = ResultColumn("proceeds_per_user_sd", .real)
    static let exactProceedsShare = ResultColumn("exact_proceeds_share", .real, shown: "Exact proceeds share", as: .share)
    package static let trialsConverted = ResultColumn("trials_converted", .integer, shown: "Trials converted", as: .count)
    package static let trialsPending = ResultColumn("trials_pending", .integer, shown: "Trials still running", as: .count)
    package static let trialsLapsed = ResultColumn("trials_lapsed", .integer, shown: "Trials lapsed", as: .count)
    package static let trialsUnknown = ResultColumn("trials_unknown", .integer, shown: "Trials without an end date", as: .count)
    static let trialCompletedConversionRate = ResultColumn(
        "trial_completed_conversion_rate", .real, shown: "Conversion of ended trials", as: .share)
    package static let activeSubscribers = ResultColumn("active_subscribers", .integer, shown: "Active subscribers", as: .count)
    package static let churnedSubscribers = ResultColumn("churned_subscribers", .integer, shown: "Churned subscribers", as: .count)
    // Members with a counted refund, the decision's guardrail (docs/statistics.md, "The decision").
    package static let refundUsers = ResultColumn("refund_users", .integer)
    static let refundUserRate = ResultColumn("refund_user_rate", .real)

    // Capped revenue, in `summary`.
    package static let revenueCap = ResultColumn("revenue_cap", .money)
    static let arpuCapped = ResultColumn("arpu_capped", .real)
    static let arpuCappedSD = ResultColumn("arpu_capped_sd", .real)
    package static let cappedUsers = ResultColumn("capped_users", .integer)

    // A comparison of a treatment with the control.
    static let controlGroup = ResultColumn("control_group", .text)
    static let metric = ResultColumn("metric", .text)
    static let controlValue = ResultColumn("control_value", .real)
    static let value = ResultColumn("value", .real)
    static let absLift = ResultColumn("abs_lift", .real)
    static let absLiftCILow = ResultColumn("abs_lift_ci_low", .real)
    static let absLiftCIHigh = ResultColumn("abs_lift_ci_high", .real)
    static let relLift = ResultColumn("rel_lift", .real)
    static let relLiftCILow = ResultColumn("rel_lift_ci_low", .real)
    static let relLiftCIHigh = ResultColumn("rel_lift_ci_high", .real)
    static let pValue = ResultColumn("p_value", .real)
    static let pValueAdjusted = ResultColumn("p_value_adjusted", .real)
    static let significant = ResultColumn("significant", .bool)
    static let chanceToBeatControl = ResultColumn("chance_to_beat_control", .real)
    static let mdeAbs = ResultColumn("mde_abs", .real)

    // The sequential values of a comparison (docs/statistics.md, "Sequential (always-valid) inference").
    static let seqAbsLiftCILow = ResultColumn("seq_abs_lift_ci_low", .real)
    static let seqAbsLiftCIHigh = ResultColumn("seq_abs_lift_ci_high", .real)
    static let seqRelLiftCILow = ResultColumn("seq_rel_lift_ci_low", .real)
    static let seqRelLiftCIHigh = ResultColumn("seq_rel_lift_ci_high", .real)
    static let seqPValue = ResultColumn("seq_p_value", .real)
    static let seqPValueAdjusted = ResultColumn("seq_p_value_adjusted", .real)
    static let seqSignificant = ResultColumn("seq_significant", .bool)

    // The intervals that agree with the verdicts (docs/statistics.md, "Intervals that agree with the verdict"): the
    // report quotes these; the columns above stay as they are
    // (docs/statistics.md#each-treatment-against-control,
    // docs/statistics.md#sequential-always-valid-inference).
    static let absLiftCILowAdjusted = ResultColumn("abs_lift_ci_low_adjusted", .real)
    static let absLiftCIHighAdjusted = ResultColumn("abs_lift_ci_high_adjusted", .real)
    static let relLiftCILowAdjusted = ResultColumn("rel_lift_ci_low_adjusted", .real)
    static let relLiftCIHighAdjusted = ResultColumn("rel_lift_ci_high_adjusted", .real)
    static let seqAbsLiftCILowAdjusted = ResultColumn("seq_abs_lift_ci_low_adjusted", .real)
    static let seqAbsLiftCIHighAdjusted = ResultColumn("seq_abs_lift_ci_high_adjusted", .real)
    static let seqRelLiftCILowAdjusted = ResultColumn("seq_rel_lift_ci_low_adjusted", .real)
    static let seqRelLiftCIHighAdjusted = ResultColumn("seq_rel_lift_ci_high_adjusted", .real)

    /// `daily`'s column of `column` for one compared metric: its name after the metric's
    /// (`conversion_rel_lift`, `arpu_seq_p_value`).
    static func daily(_ column: ResultColumn, of metric: OwnMetric) -> ResultColumn {
        daily(column, of: metric.rawValue)
    }

    /// `daily`'s column of `column` for the compared metric named `metric`.
    static func daily(_ column: ResultColumn, of metric: String) -> ResultColumn {
        ResultColumn("\(metric)_\(column.name)", column.type)
    }

    static let date = ResultColumn("date", .text)

    // The sample-ratio check.
    static let chi2 = ResultColumn("chi2", .real)
    static let srmPValue = ResultColumn("srm_p_value", .real)
    static let srmFlag = ResultColumn("srm_flag", .bool)
    // The always-valid sample ratio (docs/statistics.md, "Sequential sample ratio"), in `srm` only.
    static let seqSRMLogBayesFactor = ResultColumn("seq_srm_log_bayes_factor", .real)
    static let seqSRMPValue = ResultColumn("seq_srm_p_value", .real)
    static let seqSRMFlag = ResultColumn("seq_srm_flag", .bool)

    static let days = ResultColumn("days", .integer)
    package static let productID = ResultColumn("product_id", .text)
    package static let counter = ResultColumn("counter", .text)
    /// A source format of the job's `logs` (docs/input-formats.md#store-sources-in-a-job), in
    /// `sources`.
    static let source = ResultColumn("source", .text)
    // Money named by malformed lines (`rejected_money`).
    static let currency = ResultColumn("currency", .text)
    static let lines = ResultColumn("lines", .integer)
    static let amount = ResultColumn("amount", .money)
    static let negativeAmount = ResultColumn("negative_amount", .money)
    package static let count = ResultColumn("count", .integer)
    static let file = ResultColumn("file", .text)
    static let error = ResultColumn("error", .text)
    static let line = ResultColumn("line", .integer)
    static let reason = ResultColumn("reason", .text)
    static let text = ResultColumn("text", .text)

    // The analysed offerings and their settings.
    static let offeringName = ResultColumn("name", .text)
    static let isActive = ResultColumn("is_active", .bool)
    static let reportCurrency = ResultColumn("report_currency", .text)
    static let alpha = ResultColumn("alpha", .real)
    static let conversionWindowDays = ResultColumn("conversion_window_days", .real)
    static let sequentialTuning = ResultColumn("sequential_tuning", .real)
    static let decision = ResultColumn("decision", .text)

    // What each group was shown.
    static let position = ResultColumn("position", .integer)
    static let productType = ResultColumn("type", .text)
    static let fallbackDisplayPrice = ResultColumn("fallback_display_price", .text)
    static let isDefault = ResultColumn("is_default", .bool)
    static let badgeText = ResultColumn("badge_text", .text)
    static let subtitleText = ResultColumn("subtitle_text", .text)
    static let chargedCurrencies = ResultColumn("charged_currencies", .text)
    static let headerTitle = ResultColumn("header_title", .text)
    static let headerSubtitle = ResultColumn("header_subtitle", .text)
    static let ctaButtonText = ResultColumn("cta_button_text", .text)
    static let supportingText = ResultColumn("supporting_text", .text)

    // A slice level's key after `offering_id`.
    static let dimension = ResultColumn("dimension", .text)
    static let level = ResultColumn("level", .text)
}

/// The schemas of the tables `offerlab stats` reads its optional inputs by.
extension ResultSchema {
    package static var quality: ResultSchema { QualityRow.table.schema }
    package static var products: ResultSchema { ProductRow.table.schema }
}
