import OfferLabAnalysis
import OfferLabEvents
import OfferLabIngest
import OfferLabJob
import OfferLabResults
import OfferLabSupport
import OfferLabTables
import OfferLabVocabulary
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

    /// Products that renewed although the catalog gives them no billing period (no `type`, one
    /// the projection does not know, or no group lists them), one warning per offering
    /// (docs/statistics.md, "The projection in a run"): a listed product's year continues at
    /// the period and rates of its members' own charges; the products no group lists are
    /// projected with no further renewal.
    static func projectionWithoutPeriods(_ offerings: [OfferingResult]) -> [String] {
        offerings.compactMap { result in
            guard let renewed = result.projection?.renewalsWithoutPeriod, !renewed.isEmpty else { return nil }
            let products = renewed.map { product in
                let name = product.productID.isEmpty ? "products no group lists" : product.productID
                let projected =
                    product.periodDays.map {
                        "projected on its members' own renewals, every \(ReportFormat.days($0.rounded())) as their charges show"
                    }
                    ?? "projected with no further renewal"
                return "\(name) (\(product.renewals) renewal\(product.renewals == 1 ? "" : "s"); \(projected))"
            }
            return "offering \(result.offering.offeringID): renewals of products without a billing period in the catalog "
                + "(type weekly, monthly, yearly, one_time or …_pass): \(products.joined(separator: ", ")): give them a type"
        }
    }

    /// The app's past (docs/statistics.md#the-apps-past): one warning naming the `history_logs`
    /// globs that match no file (`RunRecord.missingPast`, as the report and `status` say it), and
    /// one when its malformed lines are over `max_bad_line_ratio`, naming the files with the most.
    /// Never a failure: the night is judged on its logs alone.
    static func history(job: Job, counters: IngestCounters?) -> [String] {
        var warnings = RunRecord.missingPast(job.history.globsWithoutFiles).map { [$0] } ?? []
        guard let counters, counters.nonBlankLines > 0 else { return warnings }
        let ratio = Double(counters.malformedLines) / Double(counters.nonBlankLines)
        if ratio > job.inputs.maxBadLineRatio {
            let worst = counters.malformedFiles.enumerated().sorted { ($0.element.lines, $1.offset) > ($1.element.lines, $0.offset) }
                .prefix(3)
            warnings.append(
                "history_logs: \(counters.malformedLines) of \(counters.nonBlankLines) lines are malformed "
                    + "(\(NightlyRun.percent(ratio))), over max_bad_line_ratio \(job.inputs.maxBadLineRatio); most in "
                    + "\(worst.map { "\($0.element.path) (\($0.element.lines))" }.joined(separator: ", ")); "
                    + "left out of the past, the night is judged on its logs alone")
        }
        return warnings
    }

    /// A past whose files were read but too short for any cohort of the app's own track record
    /// (docs/statistics.md#the-apps-own-track-record): one line; the night goes on.
    static func backtest<Cohort>(_ cohorts: [Cohort]?, job: Job) -> [String] {
        guard let cohorts, cohorts.isEmpty, !job.history.files.isEmpty else { return [] }
        return [
            "the app's past is too short for a backtest: no month of a renewing product's first charges has more than "
                + "\(BacktestCohorts.readDays[0]) days of past after its last first charge before as_of; backtest.csv is empty"
        ]
    }

    /// Log files that yielded no valid line (a file of junk bytes, a CSV file with a foreign
    /// header, an empty file): one warning naming them, as the night may well pass without them.
    static func filesWithoutValidLines(_ ingest: IngestCounters) -> [String] {
        guard !ingest.filesWithoutValidLines.isEmpty else { return [] }
        let files = ingest.filesWithoutValidLines.map { file in
            "\(file.path) (\(file.lines == 0 ? "empty" : "\(file.lines) line\(file.lines == 1 ? "" : "s"), all malformed"))"
        }
        let count = files.count
        return ["\(count) log file\(count == 1 ? "" : "s") yielded no valid line: \(files.joined(separator: ", "))"]
    }

    /// Malformed lines that named money (`RejectedMoney`): one warning saying how many, how much
    /// they named, and where the first lines of each reason are listed.
    static func rejectedMoney(_ money: RejectedMoney, rejectsFile: String) -> [String] {
        guard !money.isEmpty else { return [] }
        return ["\(money.summary); left out like every malformed line, the first of each reason are listed in \(rejectsFile)"]
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
            // Advice that can be followed: a rate for each ISO 4217 code (the codes are upper-case
            // already), and for any other text the logs to be fixed, as no rate can name it.
            let codes = result.unconvertibleEvents.map(\.currency).filter { CurrencyCode.problem($0) == nil }
            let others = result.unconvertibleEvents.map(\.currency).filter { CurrencyCode.problem($0) != nil }
            var advice: [String] = []
            if !codes.isEmpty {
                advice.append("give their rates (rates: {\(codes.map { "\($0): …" }.joined(separator: ", "))}, or rates_file:)")
            }
            if !others.isEmpty {
                advice.append(
                    "\(others.map { "'\($0)'" }.joined(separator: ", ")) \(others.count == 1 ? "is" : "are") no ISO 4217 code, so no rate can be given: fix the logs"
                )
            }
            let line =
                "offering \(result.offering.offeringID): the money of \(leftOut) of \(moneyEvents) money events (\(share(leftOut))) is left out, for want of a rate to \(reportCurrency): \(currencies); \(advice.joined(separator: "; "))"
            if let maxShare, Double(leftOut) / Double(moneyEvents) > maxShare {
                throw OfferLabError(.unconvertibleMoney, "\(line); over max_unconvertible_money_share \(CSVWriter.number(maxShare))")
            }
            return line
        }
    }
}

extension RunChecks {
    /// Work bounded by the data, never by the calendar (docs/reliability.md, A broken night): an
    /// `as_of` more than a day after now unless `allow_future_as_of`, or more than
    /// `max_days_after_last_event` days after the latest event read, fails before the night's
    /// per-day work is sized by it.
    /// - Throws: `.brokenNight` naming the key that allows it.
    static func boundedAsOf(_ job: Job, latestEvent: Int64?, nowMicroseconds: Int64) throws {
        if !job.run.allowFutureAsOf && job.run.night.microseconds > nowMicroseconds + Microseconds.perDay {
            throw OfferLabError(
                .brokenNight,
                "as_of \(job.run.night.isoText) is more than a day after the current time \(Timestamp.format(nowMicroseconds)); "
                    + "allow_future_as_of: true allows it", location: .init(jobKey: "allow_future_as_of"))
        }
        guard let latestEvent else { return }
        let daysAfter = Double(job.run.night.microseconds - latestEvent) / Microseconds.perDayAsDouble
        if daysAfter > job.run.maxDaysAfterLastEvent {
            throw OfferLabError(
                .brokenNight,
                "as_of \(job.run.night.isoText) is \(CSVWriter.number((daysAfter * 10).rounded(.down) / 10)) days after the latest event read "
                    + "(\(Timestamp.format(latestEvent))), more than max_days_after_last_event \(CSVWriter.number(job.run.maxDaysAfterLastEvent)); "
                    + "a larger max_days_after_last_event allows it", location: .init(jobKey: "max_days_after_last_event"))
        }
    }

    /// An `as_of` before the first member of every offering the night would analyse (`offerings`,
    /// by id): no test had begun. Named as such before `boundedAsOf`, which would otherwise blame
    /// `max_days_after_last_event` for the gap back to some earlier event of the logs.
    /// `allow_empty_offerings: true` lets such a night run, as it lets an offering without users.
    /// - Throws: `.brokenNight` naming `as_of`.
    static func asOfBeforeEveryMember(_ job: Job, offerings: [String], haveMembers: Bool) throws {
        guard !offerings.isEmpty, !haveMembers, !job.run.allowEmptyOfferings else { return }
        throw OfferLabError(
            .brokenNight,
            "as_of \(job.run.night.isoText) is before the first member of every offering (\(offerings.joined(separator: ", "))): "
                + "no valid assignment row is before it, so no test had begun; give as_of (or --as-of) a night after the test began",
            location: .init(jobKey: "as_of"))
    }

    /// A night whose inputs look broken never looks like a normal night (docs/reliability.md,
    /// A broken night): no valid log line before `as_of`; an analysed offering without users; no
    /// event at or after the previous night's `as_of`; lines read or an offering's users down by
    /// more than `max_volume_drop` since the previous night. Each names the key that allows it.
    /// - Throws: `.brokenNight`, for the first that applies, in that order.
    static func brokenNight(_ results: NightResults, previous: PreviousNight?, job: Job) throws {
        let ingest = results.ingest
        if results.eventsBeforeAsOf == 0 && !job.run.allowEmptyNight {
            let what =
                ingest.nonBlankLines == 0
                ? "the logs hold no line (\(ingest.filesRead) log file\(ingest.filesRead == 1 ? "" : "s") read)"
                : "no valid log line is before as_of \(job.run.night.isoText) (\(ingest.nonBlankLines) lines read, \(ingest.malformedLines) malformed, \(ingest.nonBlankLines - ingest.malformedLines) at or after as_of)"
            throw OfferLabError(
                .brokenNight, "\(what): the logs look empty, or as_of is before them; allow_empty_night: true allows it",
                location: .init(jobKey: "allow_empty_night"))
        }
        if !job.run.allowEmptyOfferings, let empty = results.offerings.first(where: { $0.groups.allSatisfy { $0.users == 0 } }) {
            let invalid = empty.quality.invalidAssignments
            let why =
                invalid > 0
                ? "its \(invalid) assignment row\(invalid == 1 ? " is" : "s are") invalid (invalid_assignments)"
                : "it has no assignment before as_of \(job.run.night.isoText)"
            throw OfferLabError(
                .brokenNight, "offering \(empty.offering.offeringID) has no users: \(why); allow_empty_offerings: true allows it",
                location: .init(jobKey: "allow_empty_offerings"))
        }
        guard let previous else { return }
        if !job.run.allowStaleLogs, results.latestEvent.map({ $0 < previous.night.microseconds }) ?? false {
            throw OfferLabError(
                .brokenNight,
                "no log event is at or after the previous night's as_of \(previous.night.isoText) (\(previous.night.date)); the latest is \(Timestamp.format(results.latestEvent ?? 0)): the logs look stale; allow_stale_logs: true allows it",
                location: .init(jobKey: "allow_stale_logs")
            )
        }
        func checkDrop(_ what: String, from before: Int, to now: Int) throws {
            guard before > 0, Double(now) < Double(before) * (1 - job.run.maxVolumeDrop) else { return }
            throw OfferLabError(
                .brokenNight,
                "\(what) fell from \(before) on the previous night (\(previous.night.date)) to \(now), by \(NightlyRun.percent(1 - Double(now) / Double(before))), more than max_volume_drop \(CSVWriter.number(job.run.maxVolumeDrop)); a larger max_volume_drop (up to 1) allows it",
                location: .init(jobKey: "max_volume_drop")
            )
        }
        if let lines = previous.linesRead { try checkDrop("log lines read", from: lines, to: ingest.nonBlankLines) }
        for result in results.offerings {
            guard let before = previous.users[result.offering.offeringID] else { continue }
            try checkDrop("offering \(result.offering.offeringID)'s users", from: before, to: result.groups.reduce(0) { $0 + $1.users })
        }
    }
}
