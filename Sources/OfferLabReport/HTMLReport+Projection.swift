import OfferLabWriters

/// The 365-day projection (docs/statistics.md#the-projection-in-a-run) in an offering's section: a
/// forecast beside what was realised, never styled as a result (no better/worse colours, no
/// "significant"), and plainly empty where the data cannot say.
extension OfferingSection {
    /// What the projection assumes, in one sentence the report always shows with it.
    static let projectionAssumes =
        "A forecast, not a result: it assumes that later buyers and long-staying subscribers behave as those seen so far "
        + "(the users who joined later buy, renew and ask for refunds as those who joined earlier did; renewals no user has "
        + "reached yet go on as the latest renewals seen, or as the app's past went; purchases after the longest time in the "
        + "test go on at the latest rate). The far ends show the risk of that assumption: none of what is unseen, or the most "
        + "the data allow; a year that rests on no rate seen at all is not projected. A change of audience, a promotion ending "
        + "or a price rise breaks it (docs/statistics.md)."

    /// An interval wider than this factor (high / low) says too little to project the year on.
    static let projectableIntervalFactor = 3.0

    /// Why the year of a group cannot be projected yet: the value is empty (its reason), or its
    /// interval spans more than `projectableIntervalFactor`; nil when it can.
    static func unprojectableReason(_ row: ProjectionRow) -> String? {
        guard row.projectedARPU365 != nil else { return row.reason.isEmpty ? "no projection" : row.reason }
        guard let low = row.low, let high = row.high else { return nil }
        guard low > 0, high <= projectableIntervalFactor * low else {
            return "its interval spans more than a factor of \(Int(projectableIntervalFactor)), too wide to decide on"
        }
        return nil
    }

    var projection: HTML {
        guard !offering.projection.isEmpty else { return "" }
        let money = { (amount: Double) in ReportFormat.money(amount, currency) }
        let level = ReportFindings.confidence(offering.alpha)
        var html: HTML = "<p class=\"note projection-assumes\">\(Self.projectionAssumes)</p>\n"
        if !yearDecides { html += yearMakeUp }
        html += """
            <table class="projection">
            <thead><tr><th scope="col">Group</th><th scope="col" class="num">Revenue per user so far</th>\
            <th scope="col" class="num">Projected after 365 days (\(level) interval)</th>\
            <th scope="col" class="num">A new user's 365 days vs control</th></tr></thead>
            <tbody>

            """
        for row in offering.projection {
            let group = offering.groups.first { $0.name == row.group }
            html += "<tr><th scope=\"row\">\(group.map(swatch) ?? "")\(row.group)"
            if group?.isControl == true { html += " <span class=\"tag\">control</span>" }
            html += "</th>"
            html += cell(row.realizedARPU.map(money) ?? "–", ["realised"])
            let observed = row.observedDaysMean.map { "projected from \(ReportFormat.fixed($0, decimals: 0)) of 365 days" } ?? ""
            let interval = ReportFindings.range(row.low, row.high, money)
            let farEnds = ReportFindings.range(row.boundLow, row.boundHigh, money)
            if let value = row.projectedARPU365, Self.unprojectableReason(row) == nil {
                html += cell(money(value), [interval.map { "interval \($0)" } ?? "", farEnds.map { "far ends \($0)" } ?? "", observed])
            } else {
                html += forecastGap([
                    "cannot be projected yet", farEnds.map { "far ends \($0)" } ?? "how high it may go is unknown", observed,
                ])
            }
            html += versusControl(row, group: group, money: money)
            html += "</tr>\n"
        }
        html += "</tbody>\n</table>\n"
        // Why a year cannot be projected yet, once per reason, with the groups it holds for.
        var reasons: [(reason: String, groups: [String])] = []
        for row in offering.projection {
            guard let reason = Self.unprojectableReason(row) else { continue }
            if let index = reasons.firstIndex(where: { $0.reason == reason }) {
                reasons[index].groups.append(row.group)
            } else {
                reasons.append((reason, [row.group]))
            }
        }
        for (reason, groups) in reasons {
            html +=
                "<p class=\"note empty-rows\">The year cannot be projected yet for \(groups.joined(separator: ", ")): "
                + "\(reason).</p>\n"
        }
        // What each year rests on (docs/statistics.md#what-the-year-rests-on): seen, the app's past, bounded.
        for row in offering.projection {
            if let line = Self.restsOn(row) { html += "<p class=\"note rests-on\">\(line)</p>\n" }
        }
        html += "<p class=\"note\">Realised: net revenue per user so far, counting for each user only the first 365 days after "
        html += "assignment. Projected: what the same users are expected to have paid 365 days after assignment, with the interval "
        html += "the remaining year would fall in \(level) of the time if the assumption holds; far ends: the same with none "
        html += "of what no user has reached yet, or the most the data allow; "
        html += "“projected from N of 365 days”: the users' mean time in the test so far. As in projection.csv. "
        html += "Against control: what shipping does, the revenue a new user is expected to bring in its first 365 days "
        html += "in the group minus in control, with the interval of what the users so far tell of it "
        html += "(comparisons.csv's projected_arpu_365 row)."
        if let window = offering.conversionWindowDays, window < 365 {
            html += " The conversion window (\(ReportFormat.days(window))) bounds the other numbers, not these: "
            html += "they count each user's first 365 days."
        }
        html += "</p>\n"
        return HTMLReport.reference("Revenue per user after a year, projected", html)
    }

    /// The parts of a group's year (docs/report.md, "What each group's first year is made of"), in the order drawn.
    enum YearPart: CaseIterable {
        case charged, ownRates, followOns, past, continued

        var words: String {
            switch self {
            case .charged: "charged so far"
            case .ownRates: "to come at the members' own rates"
            case .followOns: "from follow-on chains"
            case .past: "from the app's past"
            case .continued: "continued at the rates seen"
            }
        }

        /// Its name in the legend, short enough to keep it to two lines on a phone.
        var legend: String {
            switch self {
            case .charged: "charged so far"
            case .ownRates: "to come at own rates"
            case .followOns: "follow-on chains"
            case .past: "the app's past"
            case .continued: "rates seen, continued"
            }
        }

        var color: String {
            switch self {
            case .charged: "#0072B2"
            case .ownRates: "#56B4E9"
            case .followOns: "#009E73"
            case .past: "#E69F00"
            case .continued: "#CC79A7"
            }
        }
    }

    /// A group's projected year per member in its parts (`YearPart` order), from the shares the
    /// projection gives; nil without a projected year or its parts.
    static func yearParts(_ row: ProjectionRow) -> [Double]? {
        guard let year = row.projectedARPU365, let observed = row.observedShare, let own = row.ownRatesShare,
            let followOns = row.followOnShare, let past = row.pastShare, let continued = row.continuedShare
        else { return nil }
        return [observed, own, followOns, past, continued].map { $0 * year }
    }

    /// Each group's year as a bar of its parts, the far ends over it, and the same in words
    /// (folded: the bar tells it, and a phone's page stays short); empty when no group has a year
    /// projected or charges so far.
    var yearMakeUp: HTML {
        let rows = offering.projection.filter { Self.yearParts($0) != nil || $0.realizedARPU != nil }
        guard rows.contains(where: { Self.yearParts($0) != nil }) else { return "" }
        let money = { (amount: Double) in ReportFormat.money(amount, currency) }
        let bars = rows.map { row in
            SVGCharts.StackedRow(
                label: row.group, parts: Self.yearParts(row) ?? [row.realizedARPU ?? 0],
                total: Self.yearParts(row).map { _ in row.projectedARPU365 ?? 0 },
                range: (row.boundLow, row.boundHigh))
        }
        var html: HTML = "<figure class=\"year-make-up\"><figcaption>Each group's first year, per user, in parts</figcaption>\n"
        // Whole amounts without cents: a phone has room for "USD 20" under each tick, not "USD 20.00".
        let tick = { (amount: Double) in
            amount == amount.rounded() ? "\(currency) \(ReportFormat.fixed(amount, decimals: 0))" : money(amount)
        }
        html += SVGCharts.stackedBars(
            bars, colors: YearPart.allCases.map(\.color), label: "Each group's projected first year per user, by part", format: tick)
        html += "\n<ul class=\"legend\">"
        for part in YearPart.allCases {
            html += "<li><span class=\"swatch\" style=\"background:\(part.color)\" aria-hidden=\"true\"></span>\(part.legend)</li>"
        }
        html += "<li><span class=\"far-ends-key\" aria-hidden=\"true\"></span>far ends</li></ul>\n"
        html += "<details class=\"year-numbers\"><summary>The same in numbers</summary>\n"
        for row in rows {
            var text = "\(row.group): "
            if let parts = Self.yearParts(row), let year = row.projectedARPU365 {
                let named = zip(YearPart.allCases, parts).filter { money($0.1) != money(0) }.map { "\(money($0.1)) \($0.0.words)" }
                text += "\(money(year)) in the first year: \(named.joined(separator: ", "))"
            } else {
                text += "not projected yet; \(money(row.realizedARPU ?? 0)) \(YearPart.charged.words)"
            }
            if let farEnds = ReportFindings.range(row.boundLow, row.boundHigh, money) { text += "; far ends \(farEnds)" }
            html += "<p class=\"note year-parts\">\(text).</p>\n"
        }
        html += "<p class=\"note\">The bar adds up to the mark, the projected year; the line over it runs between its far ends. "
        html += "Charged so far and what the members' own rates, their follow-on chains and the app's past bring stand on rates seen; "
        html += "the rest continues the rates seen beyond what anyone has reached yet, the assumption the far ends bound.</p>\n"
        return html + "</details>\n</figure>\n"
    }

    /// One sentence per group: the shares of the projected year realised, taken from the app's past
    /// (which products and renewals) and bounded, and why the group does without a product's past;
    /// nil without shares.
    static func restsOn(_ row: ProjectionRow) -> String? {
        guard let observed = row.observedShare, let past = row.pastShare, let bounded = row.boundedShare else { return nil }
        let percent = ReportFormat.percent
        var text = "The year of \(row.group) rests on \(percent(observed)) realised, \(percent(past)) from the app's past"
        if !row.pastDetail.isEmpty { text += " (\(row.pastDetail))" }
        text += "; \(percent(bounded)) of it lies between its far ends."
        if !row.pastMissing.isEmpty { text += " Beyond the past: \(row.pastMissing)." }
        return text
    }

    /// A treatment's projected change against control: the relative one where control's
    /// projection is positive, else the difference; bounded ends where renewals are not observed.
    private func versusControl(_ row: ProjectionRow, group: GroupReport?, money: (Double) -> String) -> HTML {
        guard group?.isControl != true else { return "<td class=\"num\"><span class=\"detail\">baseline</span></td>" }
        guard let projected = offering.projectedComparisons.first(where: { $0.comparison.group == row.group }) else {
            return forecastGap([])
        }
        let comparison = projected.comparison
        let signedMoney = { (amount: Double) in ReportFormat.signedMoney(amount, currency) }
        let lift = comparison.lift
        let farEnds = ReportFindings.range(projected.absLiftBoundLow, projected.absLiftBoundHigh, signedMoney)
        let controlRow = offering.projection.first { $0.group == comparison.controlGroup }
        guard Self.unprojectableReason(row) == nil, let controlRow, Self.unprojectableReason(controlRow) == nil else {
            return forecastGap(["cannot be compared yet", farEnds.map { "far ends \($0)" } ?? "how far apart they may be is unknown"])
        }
        var details: [String] = []
        if let chance = lift.chanceToBeatControl { details.append("\(ReportFormat.chance(chance)) chance to be ahead of control") }
        if let farEnds { details.append("far ends \(farEnds)") }
        if let relative = lift.relative {
            let difference = lift.absolute.map { signedMoney($0.value) }
            let range = ReportFindings.range(relative.low, relative.high, ReportFormat.signedPercent).map { "interval \($0)" }
            return cell(ReportFormat.signedPercent(relative.value), [difference ?? "", range ?? ""] + details)
        }
        if let difference = lift.absolute {
            let range = ReportFindings.range(difference.low, difference.high, signedMoney).map { "interval \($0)" }
            return cell(signedMoney(difference.value), [range ?? ""] + details)
        }
        return forecastGap([farEnds.map { "not estimated: far ends \($0)" } ?? "no projection to compare"])
    }

    /// A cell without a value: a muted dash, never a number styled as a result.
    private func forecastGap(_ details: [String]) -> HTML {
        var html: HTML = "<td class=\"num\"><span class=\"main muted\">–</span>"
        for detail in details where !detail.isEmpty { html += "<span class=\"detail\">\(detail)</span>" }
        return html + "</td>"
    }
}
