import OfferLabJob
import OfferLabStatistics
import OfferLabVocabulary
import OfferLabWriters

/// What a product lead reads first: a verdict per offering, a headline per treatment, and the
/// warnings that say when the numbers cannot be trusted. Plain text and a tone; the page
/// decides how they look. The thresholds are documented in docs/report.md.
enum ReportFindings {
    /// Below this many users in a group the numbers swing too much to read.
    static let minimumUsersPerGroup = 100
    /// Share of non-blank log lines rejected as malformed above which the report warns.
    static let rejectedLineShare = 0.005
    /// Share of counted purchases, renewals and refunds in a currency without a rate.
    static let unknownCurrencyShare = 0.01
    /// Share of analysed users with an event the app logged for another group or test than theirs.
    static let mismatchUserShare = 0.01
    /// Users excluded for being in several groups, per user assigned to the offering (kept or excluded).
    static let multiGroupShare = 0.01

    // MARK: Warnings

    struct Warning: Sendable, Equatable {
        enum Severity: Sendable { case critical, caution }
        var severity: Severity
        var title: String
        var detail: String
        /// The `quality.csv` counter behind the warning, if one is.
        var counter: String? = nil
        /// Whether the verdict stands despite it, and why (nil: the warning concerns no verdict).
        var verdictEffect: String? = nil
    }

    /// Problems of the whole run (every offering is affected).
    static func warnings(_ report: ReportData) -> [Warning] {
        func counter(_ name: String) -> Int { report.quality.first { $0.counter == name }?.count ?? 0 }
        var warnings: [Warning] = []
        let skipped = counter("files_skipped_corrupt")
        if skipped > 0 {
            warnings.append(
                Warning(
                    severity: .critical, title: "Log files skipped",
                    detail:
                        "\(ReportFormat.count(skipped)) corrupt log \(skipped == 1 ? "file was" : "files were") skipped whole (on_corrupt_file: skip). Every number below misses their events; skipped_files.csv, next to this report, names them.",
                    counter: "files_skipped_corrupt",
                    verdictEffect: "The verdicts are shown but must not be acted on: the skipped files' events may all belong to one group."
                ))
        }
        if let missingPast = report.run.missingPast {
            warnings.append(
                Warning(
                    severity: .caution, title: "The app's past is missing",
                    detail:
                        "\(missingPast.prefix(1).uppercased() + missingPast.dropFirst()). The job names a past of earlier buyers that this night did not read: fix the glob in the job file and run the night again.",
                    verdictEffect:
                        "Ship and roll back stand on the lift so far, unless the goal is projected_arpu_365; keep running, futile, the days left and what shipping is worth are made without the past, as in a job without history_logs: do not plan on them."
                ))
        }
        let lines = counter("lines_read")
        let rejected = counter("malformed_lines")
        if lines > 0, Double(rejected) / Double(lines) > rejectedLineShare {
            warnings.append(
                Warning(
                    severity: .caution, title: "Rejected log lines",
                    detail:
                        "\(ReportFormat.percent(Double(rejected) / Double(lines))) of the log lines (\(ReportFormat.count(rejected)) of \(ReportFormat.count(lines))) could not be read and were left out; rejects.csv shows examples.",
                    counter: "malformed_lines",
                    verdictEffect:
                        "The verdicts stand: the run stops when more than the job's max_bad_line_ratio of the lines is rejected, and below that the rejected lines are as likely to come from any group."
                ))
        }
        if !report.rejectedMoney.isEmpty {
            warnings.append(
                Warning(
                    severity: .caution, title: "Money in rejected log lines",
                    detail:
                        "\(report.rejectedMoney.summary); none of it is counted below. rejects.csv, next to this report, lists the first lines of each reason.",
                    verdictEffect:
                        "The verdicts stand: the rejected lines are as likely to come from any group, and the run stops when more than the job's max_bad_line_ratio of the lines is rejected. Fix what writes them if the amounts matter."
                ))
        }
        return warnings
    }

    /// Problems of one offering, the most serious first.
    static func warnings(_ offering: OfferingReport) -> [Warning] {
        var warnings: [Warning] = []
        let users = offering.groups.reduce(0) { $0 + $1.users }
        if let srm = offering.decisiveSampleRatio, srm.flagged == true {
            let always = srm.chi2 == nil ? "always-valid " : ""
            let totalWeight = offering.groups.reduce(0) { $0 + $1.weight }
            let split = offering.groups.map { group in
                let planned = totalWeight > 0 ? group.weight / totalWeight : 0
                return
                    "\(group.name) \(ReportFormat.percent(Double(group.users) / Double(max(users, 1)))) (planned \(ReportFormat.percent(planned)))"
            }
            warnings.append(
                Warning(
                    severity: .critical, title: "Sample ratio mismatch",
                    detail:
                        "The groups' sizes do not match the configured split (\(always)\(srm.pValue.map(ReportFormat.pValue) ?? "p unknown")): \(split.joined(separator: ", ")). Assignment or logging is broken somewhere; do not act on these results until it is explained.",
                    verdictEffect: srm.chi2 == nil
                        ? "The verdict is withheld: the always-valid check says the groups are not the ones the test planned."
                        : "The verdict is shown but must not be acted on: the groups are not the ones the test planned."))
        }
        if users == 0 {
            warnings.append(
                Warning(severity: .caution, title: "No users yet", detail: "No user was assigned to this offering before as_of."))
        } else {
            let small = offering.groups.filter { $0.users < minimumUsersPerGroup }
            if !small.isEmpty {
                let list = small.map { "\($0.name) has \(ReportFormat.count($0.users))" }.joined(separator: ", ")
                warnings.append(
                    Warning(
                        severity: .caution, title: "Too few users",
                        detail:
                            "\(list): at least \(minimumUsersPerGroup) users per group are needed before the numbers mean much. Keep the test running.",
                        verdictEffect:
                            "The verdict stands: its intervals already account for the small groups (they are wide), so it rarely names a winner this early."
                    ))
            }
        }
        if let share = unknownCurrencyShare(offering), share > unknownCurrencyShare {
            let unknownCurrency = offering.counter("unknown_currency_events")
            let moneyEvents = offering.groups.reduce(0) { $0 + $1.purchases + $1.renewals + $1.refunds }
            warnings.append(
                Warning(
                    severity: .caution, title: "Revenue incomplete",
                    detail:
                        "\(ReportFormat.count(unknownCurrency)) of \(ReportFormat.count(moneyEvents)) purchases, renewals and refunds (\(ReportFormat.percent(share))) are in currencies without a rate: their money is left out of every revenue number (they still count as conversions). Add the rates to the job.",
                    counter: "unknown_currency_events",
                    verdictEffect: share > VerdictWithheld.unknownCurrencyShare
                        ? "The verdict is withheld: with more than \(ReportFormat.percent(VerdictWithheld.unknownCurrencyShare)) of the money left out, revenue per user cannot say which group earns more."
                        : "The verdict stands: under \(ReportFormat.percent(VerdictWithheld.unknownCurrencyShare)) of the money events are left out (above that it is withheld), and revenue per user is understated in every group alike unless one group sells more in those currencies."
                ))
        }
        if let share = mismatchUserShare(offering), share > mismatchUserShare {
            let mismatches = offering.counter("attribution_mismatches")
            let users = offering.counter("attribution_mismatch_users")
            let limit = ReportFormat.percent(VerdictWithheld.mismatchUserShare)
            warnings.append(
                Warning(
                    severity: .caution, title: "App and server disagree",
                    detail:
                        "\(ReportFormat.count(users)) users (\(ReportFormat.percent(share)) of the offering's) have events the app logged for another group than the server assigned, or for a test they are not in (\(ReportFormat.count(mismatches)) events). Some users may have seen another paywall than their group's.",
                    counter: "attribution_mismatch_users",
                    verdictEffect: share > VerdictWithheld.mismatchUserShare
                        ? "The verdict is withheld: with more than \(limit) of the users affected, too many may have seen another group's paywall for a difference to be this paywall's. Find out why the app logs other ids before reading this test."
                        : "The verdict stands: under \(limit) of the users are affected (above that it is withheld), and a few users who saw another paywall only blur the difference."
                ))
        }
        let multiGroup = offering.counter("multi_group_users")
        if users + multiGroup > 0, Double(multiGroup) / Double(users + multiGroup) > multiGroupShare {
            warnings.append(
                Warning(
                    severity: .caution, title: "Users in several groups",
                    detail:
                        "\(ReportFormat.count(multiGroup)) users were assigned to more than one group and are left out of every number (\(ReportFormat.percent(Double(multiGroup) / Double(users + multiGroup))) of the offering's users).",
                    counter: "multi_group_users",
                    verdictEffect: "The verdict stands: these users are left out of every group alike."))
        }
        return warnings
    }

    /// Counted purchases, renewals and refunds in a currency without a rate, per such event of
    /// the offering; nil without any.
    static func unknownCurrencyShare(_ offering: OfferingReport) -> Double? {
        VerdictWithheld.share(
            offering.counter("unknown_currency_events"), of: offering.groups.reduce(0) { $0 + $1.purchases + $1.renewals + $1.refunds })
    }

    /// The share of analysed users with a disagreeing event; nil without users.
    static func mismatchUserShare(_ offering: OfferingReport) -> Double? {
        VerdictWithheld.share(offering.counter("attribution_mismatch_users"), of: offering.groups.reduce(0) { $0 + $1.users })
    }

    /// Why no verdict is given although the numbers allow one: past the documented levels of
    /// mismatched events or missing money (docs/report.md, Warnings).
    static func withheldReason(_ offering: OfferingReport) -> String? {
        VerdictWithheld.reason(mismatchUserShare: mismatchUserShare(offering), unknownCurrencyShare: unknownCurrencyShare(offering))
    }

    /// Whether a revenue comparison of `groups` lacks money: some of them had counted purchases or
    /// renewals that carry no money at all, and the offering left money out for want of a rate.
    static func moneyIsMissing(_ offering: OfferingReport, groups: [String], withoutMoney: Set<String>) -> Bool {
        offering.counter("unknown_currency_events") > 0 && groups.contains { withoutMoney.contains($0) }
    }

    /// Whether the revenue comparison of `group` with the offering's control lacks money: one of
    /// the two groups' counted purchases and renewals carry none at all, for want of a rate.
    static func moneyIsMissing(_ offering: OfferingReport, group: String) -> Bool {
        let withoutMoney = Set(offering.groups.filter { $0.purchases + $0.renewals > 0 && $0.grossRevenue == 0 }.map(\.name))
        return moneyIsMissing(offering, groups: [offering.controlGroup, group], withoutMoney: withoutMoney)
    }

    /// What a revenue lift without its money says instead of a number.
    static let missingMoney = "revenue unknown: no rate for its currency"

    // MARK: Decision, verdict and headlines

    /// The tone of one status: green for ship, red for roll back and broken data.
    static func tone(status: DecisionStatus) -> Tone {
        switch status {
        case .ship: .better
        case .rollBack, .unhealthy: .worse
        case .tooEarly, .inconclusive, .futile, .keepRunning: .unclear
        }
    }

    /// The treatment's status as a sentence's opening, the treatment named after the verb:
    /// "Ship variant_b", "Stop social_proof: the target lift cannot be found in time".
    static func headline(status: DecisionStatus, group: String) -> String {
        let words = status.words
        guard let colon = words.range(of: ": ") else { return "\(words) \(group)" }
        return "\(words[..<colon.lowerBound]) \(group): \(words[colon.upperBound...])"
    }

    /// The goal's lift with the interval the decision used: "revenue per user +92.5% (likely
    /// +22.5% to +183.4%)", an open end said in words.
    static func goalLift(_ row: DecisionRow) -> String {
        let goal = name(metric: row.goalMetric)
        guard let lift = row.goalRelLift else { return "\(goal): no lift measured yet" }
        let range = ReportFindings.range(row.goalRelLiftCILow, row.goalRelLiftCIHigh, ReportFormat.signedPercent)
        return "\(goal) \(ReportFormat.signedPercent(lift))" + (range.map { " (likely \($0))" } ?? "")
    }

    /// A period test's far ends (contract §2.14): a new user's first year in the treatment against
    /// control with none of what no one has reached yet, or the most the data allow, from the
    /// comparison's `abs_lift_bound_low/high`; nil for another goal or without them. Short: a phone
    /// shows it at a glance and in the sentence, within issue 41's page height.
    static func farEnds(_ row: DecisionRow, in offering: OfferingReport) -> String? {
        guard row.goalMetric == Metric.projectedARPU365.csvName,
            let projected = offering.projectedComparisons.first(where: { $0.comparison.group == row.group }),
            let ends = range(projected.absLiftBoundLow, projected.absLiftBoundHigh, { ReportFormat.signedMoney($0, offering.currency) })
        else { return nil }
        return "far ends \(ends) a new user"
    }

    /// What shipping is worth in the first year of a year of new users, with its currency.
    static func worth(_ row: DecisionRow, currency: String) -> String {
        guard let impact = row.impact365, impact.isFinite else { return "worth: not projected yet" }
        let money = { (amount: Double) in ReportFormat.signedMoney(amount, currency) }
        let range = ReportFindings.range(row.impact365CILow, row.impact365CIHigh, money)
        return "worth \(money(impact)) a year if shipped" + (range.map { " (likely \($0))" } ?? "")
    }

    /// When to look again: the expected decision date of a running test, nil for the others.
    static func when(_ row: DecisionRow, night: Night) -> String? {
        switch (row.status, row.daysLeft) {
        case (.keepRunning, let days?) where row.daysLeftFloor == true: "decision not before \(ReportFormat.date(days, after: night))"
        case (.keepRunning, let days?): "decision expected about \(ReportFormat.date(days, after: night))"
        case (.keepRunning, nil) where row.enrolmentPerDay == 0: "decision date unknown: no one has joined in the last 7 days"
        case (.keepRunning, nil): "decision date unknown: the users still needed cannot be estimated yet"
        case (.tooEarly, let days?): "look again about \(ReportFormat.date(days, after: night))"
        default: nil
        }
    }

    /// What a running test's decision date assumes (docs/statistics.md, "Days left"), nil without
    /// one: the enrolment goes on at tonight's pace, and for revenue per user, that each user's
    /// revenue grows with time in the test as it did for the users already in it that long.
    static func dateAssumes(_ row: DecisionRow) -> String? {
        guard row.status == .keepRunning, row.daysLeft != nil else { return nil }
        let pace = "The decision date assumes that new users keep joining at the pace of the last 7 days"
        guard row.goalMetric == Metric.arpu.csvName else { return pace + "." }
        return pace
            + " and that the revenue of each user grows with time in the test as it did for the users already in it that long, and"
            + " beyond the longest time seen as the revenue of a new user would grow at the renewal rates seen, those of earlier buyers"
            + " included where the job reads them"
            + (row.daysLeftFloor == true
                ? ": renewals no rate has been seen for yet count as none, so the date is the earliest and may move later."
                : ".")
    }

    /// A period test in words (docs/statistics.md, "Period tests"): "the groups bill on different
    /// periods (weekly, monthly against 3-day pass, monthly, yearly), so the first year decides";
    /// nil for a treatment that sells control's periods.
    static func periods(_ row: DecisionRow) -> String? {
        guard !row.periodTest.isEmpty else { return nil }
        let decides =
            row.goalMetric == Metric.projectedARPU365.csvName
            ? "so the first year decides" : "so revenue so far favours the shorter period's early charges"
        return "the groups bill on different periods (\(row.periodTest)), \(decides)"
    }

    /// How likely the test at its size would have found a lift of the target size, in words; the
    /// analyst's terms (power, users still needed) in brackets.
    static func power(_ row: DecisionRow) -> String {
        let target = ReportFormat.percent(row.targetMDE)
        guard let power = row.power else { return "How likely a \(target) change would have been found: unknown." }
        var text = "At its size tonight the test would have found a \(target) change \(ReportFormat.percent(power)) of the time (power)"
        if let needed = row.usersNeeded, needed > 0 { text += "; \(ReportFormat.count(needed)) more users are needed for the target" }
        return text + "."
    }

    /// `low to high` in `format`, "at least low" or "at most high" when one end is open
    /// (missing or infinite), nil when both are: an open end never prints as a dash.
    static func range(_ low: Double?, _ high: Double?, _ format: (Double) -> String) -> String? {
        switch (low.flatMap { $0.isFinite ? $0 : nil }, high.flatMap { $0.isFinite ? $0 : nil }) {
        case (let low?, let high?): "\(format(low)) to \(format(high))"
        case (let low?, nil): "at least \(format(low))"
        case (nil, let high?): "at most \(format(high))"
        case (nil, nil): nil
        }
    }

    /// The tone of an offering's statuses: a roll back or broken data first, then a ship, green
    /// only when every treatment is decided (a ship beside a test still running is not the
    /// offering's decision yet).
    static func tone(_ decisions: [DecisionRow]) -> Tone {
        let statuses = Set(decisions.map(\.status))
        if statuses.contains(.rollBack) || statuses.contains(.unhealthy) { return .worse }
        return statuses.contains(.ship) && statuses.allSatisfy(\.endsTheTest) ? .better : .unclear
    }

    /// One sentence when the revenue of the members who have had longer (the longest matured
    /// `arpu_d<D>`) or the projected first year points the other way from the status's goal: the
    /// status rests on the goal over every member so far; nil when they agree or are missing.
    static func otherResultsPointElsewhere(_ row: DecisionRow, in offering: OfferingReport) -> String? {
        guard row.status == .ship || row.status == .rollBack, let lift = row.goalRelLift, lift != 0 else { return nil }
        let matured = offering.familyComparisons.filter { $0.group == row.group && ($0.familyMetric ?? "").hasPrefix("arpu_d") }.last
        let projected = offering.projectedComparisons.first { $0.comparison.group == row.group }?.comparison
        var others: [String] = []
        if let matured, let other = matured.relativeLift?.value, other * lift < 0 {
            others.append("\(name(matured)) (\(ReportFormat.signedPercent(other)))")
        }
        if let projected, let other = projected.lift.relLift, other * lift < 0 {
            others.append("the projected first year (\(ReportFormat.signedPercent(other)))")
        }
        guard !others.isEmpty, row.goalMetric != matured?.familyMetric else { return nil }
        return
            "This rests on \(name(metric: row.goalMetric)) over every member so far (\(ReportFormat.signedPercent(lift))); \(others.joined(separator: " and ")) \(others.count == 1 ? "points" : "point") the other way."
    }

    /// Why revenue per user moved: ARPU = conversion × revenue per paying user, so
    /// "+92% revenue per user" reads "40% more paying users, each paying 37% more"; nil without both factors.
    static func liftDecomposition(_ row: DecisionRow) -> String? {
        guard let conversion = row.conversionRelLift, let arppu = row.arppuRelLift else { return nil }
        let arpu = (1 + conversion) * (1 + arppu) - 1
        func more(_ ratio: Double) -> String {
            ratio >= 0 ? "\(ReportFormat.percent(ratio)) more" : "\(ReportFormat.percent(-ratio)) less"
        }
        let payers = conversion >= 0 ? "\(ReportFormat.percent(conversion)) more" : "\(ReportFormat.percent(-conversion)) fewer"
        return
            "Revenue per user of \(row.group) \(ReportFormat.signedPercent(arpu)) against \(row.controlGroup): \(payers) paying users, each paying \(more(arppu))."
    }

    enum Tone: Sendable, Equatable {
        /// A treatment is significantly better than control.
        case better
        /// Significantly worse.
        case worse
        /// Not significant, or not testable.
        case unclear
    }

    /// Which group is winning, in one sentence.
    struct Verdict: Sendable, Equatable {
        var tone: Tone
        var text: String
    }

    /// The winner is decided on revenue per user (it weighs conversion and price together),
    /// then on conversion, for a treatment not significantly worse on revenue per user.
    static func verdict(_ offering: OfferingReport) -> Verdict {
        let treatments = offering.groups.filter { !$0.isControl }.map(\.name)
        guard let control = offering.control, !treatments.isEmpty else {
            return Verdict(tone: .unclear, text: "Only one group: there is nothing to compare.")
        }
        guard control.users > 0, offering.groups.contains(where: { !$0.isControl && $0.users > 0 }) else {
            return Verdict(tone: .unclear, text: "No verdict: a group has no users yet.")
        }
        guard !offering.comparisons.isEmpty else {
            return Verdict(tone: .unclear, text: "No verdict: this night has no comparisons with \(control.name).")
        }
        if let reason = withheldReason(offering) { return Verdict(tone: .unclear, text: "Verdict withheld: \(reason)") }
        // With `decision: sequential` the always-valid sample ratio withholds (the χ² only warns).
        if offering.verdictInference == .sequential, let srm = offering.sequentialSampleRatio, srm.flagged == true {
            return Verdict(
                tone: .unclear,
                text:
                    "Verdict withheld: the groups' sizes do not match the configured split (always-valid \(srm.pValue.map(ReportFormat.pValue) ?? "p unknown")); find out why before acting on any result."
            )
        }
        func tone(_ group: String, _ metric: OwnMetric) -> Tone { self.tone(offering.comparison(group, metric)) }
        func best(_ metric: OwnMetric, among groups: [String]) -> Comparison? {
            groups.compactMap { offering.comparison($0, metric) }.max { ($0.absoluteLift?.value ?? 0) < ($1.absoluteLift?.value ?? 0) }
        }
        if let winner = best(.arpu, among: treatments.filter { tone($0, .arpu) == .better }) {
            var text = "\(winner.group) is winning on revenue per user: \(change(winner, in: offering))"
            if let chance = winner.chanceToBeatControl {
                text += ", a \(ReportFormat.chance(chance)) chance that it does better than \(control.name)"
            }
            return Verdict(tone: .better, text: text + ".")
        }
        if let winner = best(.conversion, among: treatments.filter { tone($0, .conversion) == .better && tone($0, .arpu) != .worse }) {
            return Verdict(
                tone: .better,
                text:
                    "\(winner.group) is winning on conversion: \(change(winner, in: offering)); its revenue per user is not significantly different yet."
            )
        }
        if treatments.allSatisfy({ tone($0, .arpu) == .worse || (tone($0, .conversion) == .worse && tone($0, .arpu) != .better) }) {
            return Verdict(tone: .worse, text: "\(control.name) is winning: every variant does significantly worse.")
        }
        var text = "No winner yet: no variant beats \(control.name) significantly."
        let promising = treatments.compactMap { offering.comparison($0, .arpu) }.filter { $0.chanceToBeatControl != nil }
            .max { ($0.chanceToBeatControl ?? 0) < ($1.chanceToBeatControl ?? 0) }
        if let promising, let chance = promising.chanceToBeatControl, chance >= 0.5 {
            text +=
                " Most promising: \(promising.group) (a \(ReportFormat.chance(chance)) chance that its revenue per user is higher than \(control.name)'s)."
        }
        return Verdict(tone: .unclear, text: text)
    }

    /// One metric of a treatment's headline.
    struct MetricHeadline: Sendable, Equatable {
        var metric: OwnMetric
        var tone: Tone
        var text: String
    }

    /// "conversion +12.3% vs control (95% CI +4.1% to +20.5%), significant after correction"
    /// and the same for revenue per user, for `group`.
    static func headline(_ offering: OfferingReport, group: String) -> [MetricHeadline] {
        let treatments = offering.groups.filter { !$0.isControl }.count
        return OwnMetric.allCases.map { metric in
            guard let comparison = offering.comparison(group, metric), comparison.absoluteLift != nil else {
                return MetricHeadline(metric: metric, tone: .unclear, text: "\(name(metric)): not enough data")
            }
            if metric == .arpu,
                moneyIsMissing(offering, group: group)
            {
                return MetricHeadline(metric: metric, tone: .unclear, text: "\(name(metric)): \(missingMoney)")
            }
            var text = "\(name(metric)) \(change(comparison, in: offering)), "
            switch comparison.significant {
            case true?: text += treatments > 1 ? "significant after correction" : "significant"
            case false?: text += "not significant"
            case nil: text += "not testable"
            }
            return MetricHeadline(metric: metric, tone: tone(comparison), text: text)
        }
    }

    /// `revenue per user` / `conversion`.
    /// A comparison's metric in words: its kind's name, and for a capped or matured row what
    /// sets it apart ("revenue per user, capped", "conversion within 7 days").
    static func name(_ comparison: Comparison) -> String {
        comparison.familyMetric.map { name(metric: $0) } ?? name(comparison.metric)
    }

    /// A `comparisons.csv` metric in words (`Metric.plainName(of:)`).
    static func name(metric: String) -> String { Metric.plainName(of: metric) }

    static func name(_ metric: OwnMetric) -> String { metric.metric.plainName }

    /// `95% CI`, or `95% always-valid CI` when the verdicts use the sequential intervals;
    /// `corrected 95% CI` with several variants (Holm's correction widens it as it raises p).
    static func intervalName(_ offering: OfferingReport) -> String {
        let corrected = offering.groups.filter { !$0.isControl }.count > 1 ? "corrected " : ""
        return "\(corrected)\(confidence(offering.alpha)) \(offering.verdictInference == .sequential ? "always-valid " : "")CI"
    }

    /// The sentences that say where the fixed-horizon and the sequential test disagree on
    /// "significant" and which one the verdict used; for a night stored without the sequential
    /// values, the one sentence that says the verdicts fall back to the fixed-horizon test.
    static func inferenceNotes(_ offering: OfferingReport) -> [String] {
        guard let decision = offering.decision else {
            return [
                "This night was stored by an offerlab without the always-valid (sequential) test, so its verdicts use the fixed-horizon test, which holds only when the result is read once, at a size fixed in advance."
            ]
        }
        return offering.comparisons.compactMap { comparison in
            guard let fixed = comparison.significant, let sequential = comparison.sequential.significant, fixed != sequential else {
                return nil
            }
            let (yes, no) = fixed ? ("fixed-horizon", "always-valid (sequential)") : ("always-valid (sequential)", "fixed-horizon")
            let used = decision == .sequential ? "always-valid" : "fixed-horizon"
            return
                "\(comparison.group) on \(name(comparison.metric)): significant by the \(yes) test, not by the \(no) one; the verdict uses the \(used) test (decision: \(decision.rawValue))."
        }
    }

    /// `95%` for alpha 0.05, `99.5%` for 0.005.
    static func confidence(_ alpha: Double) -> String {
        let percent = ((1 - alpha) * 1000).rounded() / 10
        return ReportFormat.fixed(percent, decimals: percent == percent.rounded() ? 0 : 1) + "%"
    }

    static func tone(_ comparison: Comparison?) -> Tone {
        guard let comparison, comparison.significant == true, let lift = comparison.absoluteLift?.value, lift != 0 else { return .unclear }
        return lift > 0 ? .better : .worse
    }

    /// `+12.3% vs control (95% CI +4.1% to +20.5%)`: relative when control's value is not 0 and
    /// the ratio's interval is bounded, otherwise absolute (points for conversion, money for
    /// revenue per user). `comparison` is as the verdicts read it, so its interval agrees with
    /// its significance.
    static func change(_ comparison: Comparison, in offering: OfferingReport) -> String {
        guard let (lift, isRelative) = comparison.quotedLift else { return "not enough data" }
        let format = isRelative ? ReportFormat.signedPercent : ReportFormat.difference(comparison.metric, currency: offering.currency)
        var text = "\(format(lift.value)) vs \(offering.controlGroup)"
        if let low = lift.low, let high = lift.high { text += " (\(intervalName(offering)) \(format(low)) to \(format(high)))" }
        return text
    }
}
