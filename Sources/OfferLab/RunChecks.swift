import OfferLabAnalysis
import OfferLabSupport
import OfferLabTables
import OfferLabWriters

/// Checks of a night's settings and results that warn, or fail the run, before anything is
/// written. A warning is one line without its `warning: ` prefix (the command line adds it).
enum RunChecks {
    /// The job's `control` against the analysed offerings' groups: a name no analysed offering
    /// has is a typo, and the job is bad; offerings without it fall back (`control`, else the
    /// lowest group id), one warning naming them and the group each falls back to.
    /// - Throws: `.badJob` when no analysed offering has a group of that name.
    static func control(_ name: String?, offerings: [Offering], jobPath: String) throws -> [String] {
        guard let name, !offerings.isEmpty else { return [] }
        let lacking = offerings.filter { offering in !offering.groups.contains { $0.name == name } }
        guard lacking.count < offerings.count else {
            let groups = offerings.map { "\($0.offeringID): \($0.groups.map(\.name).joined(separator: ", "))" }.joined(separator: "; ")
            throw OfferLabError.job(jobPath, key: "control", "no analysed offering has a group named '\(name)' (groups: \(groups))")
        }
        guard !lacking.isEmpty else { return [] }
        let fallbacks = lacking.map { offering in
            "\(offering.offeringID) (control: \(offering.controlGroupIndex(preferred: nil).map { offering.groups[$0].name } ?? "none"))"
        }
        return [
            "control: offerings without a group named '\(name)' fall back to control, else their lowest group id: \(fallbacks.joined(separator: ", "))"
        ]
    }

    /// Money left out for want of a rate (docs/reliability.md): per offering with any, one warning
    /// naming the currencies and their share of the offering's counted money events
    /// (purchases, renewals, refunds).
    /// - Throws: `.unconvertibleMoney` when an offering's share is over `maxShare`.
    static func unconvertibleMoney(_ offerings: [OfferingResult], reportCurrency: String, maxShare: Double?) throws -> [String] {
        try offerings.compactMap { result -> String? in
            guard !result.unconvertibleEvents.isEmpty else { return nil }
            let moneyEvents = result.groups.reduce(0) { $0 + $1.purchases + $1.renewals + $1.refunds }
            let leftOut = result.unconvertibleEvents.reduce(0) { $0 + $1.events }
            func share(_ events: Int) -> String { NightlyRun.percent(Double(events) / Double(moneyEvents)) }
            let currencies = result.unconvertibleEvents.map { "\($0.currency) \(share($0.events)) (\($0.events))" }.joined(separator: ", ")
            let line =
                "offering \(result.offering.offeringID): the money of \(leftOut) of \(moneyEvents) money events (\(share(leftOut))) is left out, for want of a rate to \(reportCurrency): \(currencies); give their rates (rates:, rates_file:)"
            if let maxShare, Double(leftOut) / Double(moneyEvents) > maxShare {
                throw OfferLabError(.unconvertibleMoney, "\(line); over max_unconvertible_money_share \(CSVWriter.number(maxShare))")
            }
            return line
        }
    }
}
