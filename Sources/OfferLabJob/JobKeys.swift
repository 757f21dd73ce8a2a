import Foundation
import OfferLabStatistics
import OfferLabStoreSources
import OfferLabSupport

/// One key of the job file: its name, what a run uses without it, and one line of help.
public struct JobKey: Sendable {
    public let name: String
    /// What a run uses when the key is absent (as the README's table says it, Markdown and all);
    /// `required` for a key every job must have.
    public let defaultValue: String
    /// What the key is, for `offerlab run --help`.
    public let help: String
}

extension JobKey {
    /// Every key a job file may have, in the order the README's table ("The job file") and
    /// `offerlab run --help` list them: the one list of them. `JobLoader` rejects any other key,
    /// the help is made from it, and a test holds the README's table to it.
    public static let all: [JobKey] =
        [
            JobKey(name: "tables", defaultValue: "required", help: "folder of <table>.csv[.gz]/.tsv[.gz], or .sqlite/.db"),
            JobKey(name: "logs", defaultValue: "required", help: "one glob or a list; each must match a file"),
            JobKey(name: "history_logs", defaultValue: "no past", help: "earlier logs: how each product renewed before"),
        ]
        // Each store's map, as its settings describe it.
        + StoreSettings.types.map { JobKey(name: $0.jobKey, defaultValue: $0.absentValue, help: $0.help) } + [
            JobKey(
                name: "as_of", defaultValue: "today 00:00 UTC", help: "2026-03-16[T00:00:00Z]: later events are ignored"),
            JobKey(name: "report_currency", defaultValue: "required", help: "e.g. USD: upper-case ISO 4217 codes, as in the rates"),
            JobKey(name: "rates", defaultValue: "report currency only", help: "{EUR: 1.08}: 1 EUR = 1.08 report units"),
            JobKey(name: "rates_file", defaultValue: "report currency only", help: "or a CSV file of rates: currency,rate"),
            JobKey(
                name: "max_unconvertible_money_share", defaultValue: "off: a warning only",
                help: "fail above this share of money events without a rate"),
            JobKey(name: "alpha", defaultValue: "0.05", help: "significance level"),
            JobKey(
                name: "sequential_tuning", defaultValue: "\(Int(SequentialInference.defaultTuning))",
                help: "N* of the sequential intervals: users to decide at"),
            JobKey(
                name: "decision", defaultValue: "`sequential`",
                help: "sequential or fixed: the inference of the verdicts"),
            JobKey(
                name: "goal_metric", defaultValue: "`arpu` (`projected_arpu_365` in a period test)",
                help: "the metric a test is decided on (ship when it wins)"),
            JobKey(
                name: "guardrail_metrics", defaultValue: "`[refund_user_rate]` (none in a period test)",
                help: "metrics that must not get worse (roll back when one loses)"),
            JobKey(name: "target_mde", defaultValue: "0.10", help: "smallest lift of the goal worth finding: 0.10 for 10%"),
            JobKey(name: "target_power", defaultValue: "0.8", help: "chance of finding target_mde the test runs for"),
            JobKey(name: "min_runtime_days", defaultValue: "7", help: "no ship or stop before this many days"),
            JobKey(name: "max_runtime_days", defaultValue: "90", help: "the longest a test may run: futile when it needs longer"),
            JobKey(
                name: "srm_concentration", defaultValue: "100",
                help: "c of the always-valid sample-ratio check"),
            JobKey(
                name: "alert_exit_code", defaultValue: "0",
                help: "N: a successful night with an alert exits N"),
            JobKey(
                name: "control", defaultValue: "`control`, else the lowest group id",
                help: "the control group's name"),
            JobKey(name: "conversion_window_days", defaultValue: "no window", help: "days after assignment that count"),
            JobKey(name: "offerings", defaultValue: "every offering with assignments", help: "offering ids to analyse"),
            JobKey(name: "slices", defaultValue: "no slices", help: "log fields to break results down by: country, platform"),
            JobKey(
                name: "max_slice_levels", defaultValue: "\(SliceField.defaultMaxLevels)",
                help: "levels kept per slice field, the rest as (other)"),
            JobKey(name: "max_bad_line_ratio", defaultValue: "0.01", help: "fail above this malformed share"),
            JobKey(name: "on_corrupt_file", defaultValue: "`fail`", help: "fail or skip a corrupt gzip file"),
            JobKey(
                name: "max_volume_drop", defaultValue: "0.5",
                help: "fail above this fall of lines or users since last night"),
            JobKey(name: "allow_empty_night", defaultValue: "`false`", help: "true: a night with no log event before as_of passes"),
            JobKey(
                name: "allow_stale_logs", defaultValue: "`false`",
                help: "true: logs with nothing since last night's as_of pass"),
            JobKey(name: "allow_empty_offerings", defaultValue: "`false`", help: "true: an analysed offering without users passes"),
            JobKey(
                name: "max_days_after_last_event", defaultValue: "31",
                help: "fail if as_of is more days than this after the last event"),
            JobKey(name: "allow_future_as_of", defaultValue: "`false`", help: "true: an as_of more than a day after now passes"),
            JobKey(name: "output", defaultValue: "required", help: "results go to <output>/<YYYY-MM-DD of as_of>/"),
            JobKey(name: "database", defaultValue: "required", help: "the SQLite file that keeps every night"),
            JobKey(name: "rejects_per_reason", defaultValue: "20", help: "malformed lines kept per reason"),
            JobKey(name: "lock_timeout_seconds", defaultValue: "60", help: "how long to wait for a running run"),
            JobKey(name: "threads", defaultValue: "one per core", help: "files read at once, clean-up threads"),
            JobKey(name: "cache", defaultValue: "none: every file is parsed", help: "folder of parsed log files kept for the next runs"),
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

    /// The keys as `offerlab run --help` lists them: each with its help and its default, in
    /// lines of at most 80 characters (the help's width when it is not on a terminal, where a
    /// longer line wraps to the left margin).
    /// The known key nearest to `typed`, when it is close enough to be the one meant
    /// (`NearestName.among`: `as_off`, `asof`; `output_folder` is no typo of `output`).
    public static func nearest(to typed: String) -> String? { NearestName.among(all.map(\.name), to: typed) }

    public static var helpText: String {
        let column = 22
        let margin = String(repeating: " ", count: column)
        return all.map { key in
            let name = "  " + key.name
            var text = name.count < column ? name.padding(toLength: column, withPad: " ", startingAt: 0) : name + "\n" + margin
            text += key.help
            let absent = key.defaultValue == "required" ? "(required)" : "(default: \(key.defaultValue.filter { $0 != "`" }))"
            let lastLine = text.split(separator: "\n").last ?? ""
            text += lastLine.count + 1 + absent.count <= 80 ? " " + absent : "\n" + margin + absent
            return text
        }.joined(separator: "\n")
    }
}
