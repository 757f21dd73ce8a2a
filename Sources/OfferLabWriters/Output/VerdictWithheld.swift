/// When an offering's verdict is withheld although its numbers allow one: the decision
/// (`status` `unhealthy`) and the report's warnings read the same levels (docs/report.md, Warnings).
package enum VerdictWithheld {
    /// Share of analysed users with a disagreeing event above which the verdict is withheld: the
    /// groups may not have seen the paywalls they are named after.
    package static let mismatchUserShare = 0.1
    /// Share of money events in a currency without a rate above which the verdict is withheld:
    /// too much revenue is missing to say which group earns more.
    package static let unknownCurrencyShare = 0.1

    /// part/whole; nil when whole is 0.
    package static func share(_ part: Int, of whole: Int) -> Double? {
        whole > 0 ? Double(part) / Double(whole) : nil
    }

    /// Why no verdict is given, from the shares of users with a disagreeing event and of money
    /// events in a currency without a rate (nil: no users, no money events); nil below both levels.
    package static func reason(mismatchUserShare: Double?, unknownCurrencyShare: Double?) -> String? {
        if let share = mismatchUserShare, share > Self.mismatchUserShare {
            return
                "\(ReportFormat.percent(share)) of the users have events the app logged for another group than the server assigned, or for a test they are not in (more than \(ReportFormat.percent(Self.mismatchUserShare)))."
        }
        if let share = unknownCurrencyShare, share > Self.unknownCurrencyShare {
            return
                "\(ReportFormat.percent(share)) of the purchases, renewals and refunds are in currencies without a rate (more than \(ReportFormat.percent(Self.unknownCurrencyShare))): add their rates to the job."
        }
        return nil
    }
}
