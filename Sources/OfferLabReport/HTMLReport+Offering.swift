import OfferLabJob
import OfferLabStatistics
import OfferLabVocabulary
import OfferLabWriters

/// One offering's part of the report, from the verdict down to the data-quality counters.
struct OfferingSection {
    var offering: OfferingReport
    /// The section's id (from its position, never from the data).
    var anchor: String
    /// False when a red run-wide warning (skipped log files) puts every offering in doubt.
    var runIsTrusted: Bool
    /// The night of the report: decision dates count from it.
    var night: Night

    var currency: String { offering.currency }
    /// Whether a treatment is decided on its first year (a period test).
    var yearDecides: Bool { offering.decisions.contains { $0.goalMetric == Metric.projectedARPU365.csvName } }
    private var level: String { ReportFindings.confidence(offering.alpha) }
    private var treatments: [GroupReport] { offering.groups.filter { !$0.isControl } }

    /// The group's colour in every chart and table: grey for control, one colour per treatment.
    private func color(_ group: GroupReport) -> String {
        guard !group.isControl, let index = treatments.firstIndex(where: { $0.name == group.name }) else { return SVGCharts.controlColor }
        return SVGCharts.treatmentColors[index % SVGCharts.treatmentColors.count]
    }

    func swatch(_ group: GroupReport) -> HTML {
        "<span class=\"swatch\" style=\"background:\(color(group))\" aria-hidden=\"true\"></span>"
    }

    var html: HTML {
        let warnings = ReportFindings.warnings(offering)
        var html: HTML = "<section class=\"offering\" id=\"\(anchor)\">\n"
        let trusted = runIsTrusted && !warnings.contains { $0.severity == .critical }
        html += heading
        // What to do first, in plain words; the statistical verdict goes under the statistical
        // details when there is a decision (a night stored without one keeps it here).
        html += decisions(trusted: trusted)
        html += HTMLReport.banners(warnings, scope: nil)
        if offering.decisions.isEmpty { html += verdict(trusted: trusted) }
        // Where the year decides, its make-up is part of the story; elsewhere a reference.
        if yearDecides { html += yearMakeUp }
        html += results
        html += cappedRevenue
        html += maturedMetrics
        html += projection
        html += groupCharts
        html += liftOverTime
        html += paywalls
        html += statistics(trusted: trusted)
        html += allNumbers
        html += productSales
        html += HTMLReport.reference(
            "Data quality",
            "<p class=\"note\">Counters of this offering, as in quality.csv; a marked row is behind a warning above.</p>\n"
                + HTMLReport.qualityTable(offering.quality, flagged: Set(warnings.compactMap(\.counter))))
        return html + "</section>\n"
    }

    // MARK: Heading and verdict

    private var heading: HTML {
        let users = offering.groups.reduce(0) { $0 + $1.users }
        var setup = ["\(offering.groups.count) groups", "control: \(offering.controlGroup)", "\(ReportFormat.count(users)) users"]
        if let window = offering.conversionWindowDays { setup.append("\(ReportFormat.days(window)) conversion window") }
        setup.append("revenue in \(currency)")
        let title = offering.name.isEmpty ? offering.offeringID : offering.name
        return """
            <h2>\(title) <code class="offering-id">\(offering.offeringID)</code> \
            <span class="pill \(offering.isActive ? "active" : "inactive")">\(offering.isActive ? "running" : "ended")</span></h2>
            <p class="setup">\(setup.joined(separator: " · "))</p>

            """
    }

    /// What to do with each treatment tonight, one sentence each, with why the goal moved
    /// (docs/report.md, "What to do tonight").
    private func decisions(trusted: Bool) -> HTML {
        guard !offering.decisions.isEmpty else { return "" }
        let tone = ReportFindings.tone(offering.decisions)
        var html: HTML = "<div class=\"verdict decision \(HTMLReport.verdictClass(tone))\"><p class=\"label\">What to do tonight</p>\n"
        for row in offering.decisions {
            var sentence = [ReportFindings.goalLift(row)]
            if let farEnds = ReportFindings.farEnds(row, in: offering) { sentence.append(farEnds) }
            sentence.append(ReportFindings.worth(row, currency: currency))
            if let when = ReportFindings.when(row, night: night) { sentence.append(when) }
            if let periods = ReportFindings.periods(row) { sentence.append(periods) }
            let headline = ReportFindings.headline(status: row.status, group: row.group)
            // "Ship variant_b: …"; a headline that has its colon already ends with a dash.
            html += "<p class=\"sentence\"><strong>\(headline)</strong>\(headline.contains(": ") ? " — " : ": ")"
            html += "\(sentence.joined(separator: "; ")).</p>\n"
            html += "<details class=\"why\"><summary>How this was decided</summary><p>\(row.reason)</p>"
            html += "<p class=\"note\">\(ReportFindings.power(row))</p>"
            if let assumes = ReportFindings.dateAssumes(row) { html += "<p class=\"note\">\(assumes)</p>" }
            html += "</details>\n"
            if let why = ReportFindings.liftDecomposition(row) { html += "<p class=\"note\">\(why)</p>\n" }
            if let elsewhere = ReportFindings.otherResultsPointElsewhere(row, in: offering) {
                html += "<p class=\"note\">\(elsewhere)</p>\n"
            }
        }
        if !trusted {
            html += "<p class=\"caveat\">Do not act on this yet: the red warning below says these numbers are likely wrong.</p>\n"
        }
        return html + "</div>\n"
    }

    /// `trusted`: false when a red warning says the numbers are likely wrong.
    private func verdict(trusted: Bool) -> HTML {
        let verdict = ReportFindings.verdict(offering)
        var html: HTML = "<div class=\"verdict \(HTMLReport.verdictClass(verdict.tone))\"><p class=\"label\">Verdict</p>"
        html += "<p class=\"sentence\">\(verdict.text)</p>\n"
        if !trusted {
            html += "<p class=\"caveat\">Do not act on this yet: the red warning above says these numbers are likely wrong.</p>\n"
        }
        if !treatments.isEmpty {
            html += "<ul class=\"headlines\">\n"
            for group in treatments {
                let parts = ReportFindings.headline(offering, group: group.name).map { part -> HTML in
                    "<span class=\"\(HTMLReport.toneClass(part.tone))\">\(part.text)</span>"
                }
                html += "<li>\(swatch(group))<strong>\(group.name)</strong>: \(parts.joined(separator: "; "))</li>\n"
            }
            html += "</ul>\n"
        }
        for note in ReportFindings.inferenceNotes(offering) { html += "<p class=\"note\">\(note)</p>\n" }
        return html + "</div>\n"
    }

    // MARK: Results table

    private var results: HTML {
        let users = offering.groups.reduce(0) { $0 + $1.users }
        let totalWeight = offering.groups.reduce(0) { $0 + $1.weight }
        var html: HTML = """
            <h3>Results by group</h3>
            <table class="results">
            <thead><tr><th scope="col">Group</th><th scope="col" class="num">Users</th><th scope="col" class="num">Conversion</th>\
            <th scope="col" class="num">Conversion vs control</th><th scope="col" class="num">Revenue per user</th>\
            <th scope="col" class="num">Revenue per user vs control</th><th scope="col" class="num">Proceeds per user</th>\
            <th scope="col" class="num">Proceeds per user vs control</th><th scope="col" class="num secondary">Revenue per paying user</th>\
            <th scope="col" class="num secondary">Net revenue</th></tr></thead>
            <tbody>

            """
        for group in offering.groups {
            html += "<tr><th scope=\"row\">\(swatch(group))\(group.name)"
            if group.isControl { html += " <span class=\"tag\">control</span>" }
            html += "</th>"
            html += cell(
                ReportFormat.count(group.users),
                [
                    users > 0 ? "\(ReportFormat.percent(Double(group.users) / Double(users))) of users" : "",
                    totalWeight > 0 ? "planned \(ReportFormat.percent(group.weight / totalWeight))" : "",
                ])
            html += cell(
                group.conversionRate.map(ReportFormat.percent) ?? "–",
                [ReportFindings.range(group.conversionCILow, group.conversionCIHigh, ReportFormat.percent).map { "likely \($0)" } ?? ""])
            html += versus(group, .conversion)
            html += cell(group.arpu.map { ReportFormat.money($0, currency) } ?? "–", [])
            html += versus(group, .arpu)
            html += cell(
                group.proceedsPerUser.map { ReportFormat.money($0, currency) } ?? "–",
                group.netProceeds.map { ["kept \(ReportFormat.money($0, currency))"] } ?? [])
            html += versus(group, offering.comparison(group.name, named: Metric.proceedsPerUser.csvName), .arpu)
            // Also in "All numbers by group": screens under 1600 px and paper leave these two out to fit.
            html += cell(
                group.arppu.map { ReportFormat.money($0, currency) } ?? "–", ["\(ReportFormat.count(group.converters)) paying users"],
                secondary: true)
            html += cell(ReportFormat.money(group.netRevenue, currency), [], secondary: true)
            html += "</tr>\n"
        }
        html += "</tbody>\n</table>\n"
        html += "<p class=\"note\">Conversion: share of users with a purchase. Revenue per user: net revenue (after refunds) divided by "
        html += "every assigned user, paying or not. “vs control”: the change against control, and the range it likely lies in "
        html += "(in points or money where a percentage cannot be bounded); “significant”: that range leaves out no change, "
        html += "allowing for \(treatments.count) variant\(treatments.count == 1 ? "" : "s")"
        html += offering.verdictInference == .sequential ? " and for the report being read every night; " : "; "
        html += "chance it is better: how likely the variant truly does better than control. "
        html += "Proceeds per user: what the app keeps of it, after the store's commission and VAT.</p>\n"
        html += trialsNote
        return html
    }

    /// How many trials have ended and how many still run: a trial conversion difference read
    /// while many trials run can still change (docs/analysis.md §9).
    private var trialsNote: HTML {
        let groups = offering.groups
        let pending = groups.reduce(0) { $0 + ($1.trialsPending ?? 0) }
        let ended = groups.reduce(0) { $0 + ($1.trialsConverted ?? 0) + ($1.trialsLapsed ?? 0) }
        let unknown = groups.reduce(0) { $0 + ($1.trialsUnknown ?? 0) }
        guard pending + ended + unknown > 0 else { return "" }
        var parts = ["\(ReportFormat.count(ended)) trial\(ended == 1 ? "" : "s") ended (converted or lapsed)"]
        if pending > 0 { parts.append("\(ReportFormat.count(pending)) trial\(pending == 1 ? "" : "s") still running") }
        if unknown > 0 { parts.append("\(ReportFormat.count(unknown)) without an end date") }
        let rates = groups.compactMap { group in
            group.trialCompletedConversionRate.map { "\(group.name): \(ReportFormat.percent($0))" }
        }
        var text = "Trials: " + parts.joined(separator: ", ") + "."
        if !rates.isEmpty { text += " Conversion of the ended trials: " + rates.joined(separator: ", ") + "." }
        if pending > 0 { text += " Trials still running can change these numbers." }
        let active = groups.map { "\($0.name) \(ReportFormat.count($0.activeSubscribers ?? 0))" }
        text += " Active subscribers tonight: " + active.joined(separator: ", ") + "."
        return "<p class=\"note\">\(text)</p>\n"
    }

    /// A number with lines of small print under it.
    func cell(_ main: String, _ details: [String], tone: ReportFindings.Tone? = nil, secondary: Bool = false) -> HTML {
        let toneClass = tone.map { " \(HTMLReport.toneClass($0))" } ?? ""
        var html: HTML = "<td class=\"num\(secondary ? " secondary" : "")\"><span class=\"main\(toneClass)\">\(main)</span>"
        for detail in details where !detail.isEmpty { html += "<span class=\"detail\">\(detail)</span>" }
        return html + "</td>"
    }

    /// A treatment's change against control on `metric`; control's own row says it is the baseline.
    private func versus(_ group: GroupReport, _ metric: OwnMetric) -> HTML {
        versus(group, offering.comparison(group.name, metric), metric)
    }

    /// A treatment's change against control in `comparison`, a comparison of `metric`'s kind
    /// (the offering's own, or a capped or matured one).
    private func versus(_ group: GroupReport, _ comparison: Comparison?, _ metric: OwnMetric) -> HTML {
        guard !group.isControl else { return "<td class=\"num\"><span class=\"detail\">baseline</span></td>" }
        guard let comparison, let (lift, isRelative) = comparison.quotedLift else {
            return cell("–", ["not enough data"])
        }
        if metric == .arpu,
            ReportFindings.moneyIsMissing(offering, group: group.name)
        {
            return cell("–", [ReportFindings.missingMoney])
        }
        let format = isRelative ? ReportFormat.signedPercent : ReportFormat.difference(metric, currency: currency)
        var details: [String] = []
        if let text = ReportFindings.range(lift.low, lift.high, format) { details.append("likely \(text)") }
        switch comparison.significant {
        case true?: details.append("significant")
        case false?: details.append("not significant")
        case nil: break
        }
        if let chance = comparison.chanceToBeatControl { details.append("\(ReportFormat.chance(chance)) chance it is better") }
        return cell(format(lift.value), details, tone: ReportFindings.tone(comparison))
    }

    // MARK: Charts

    private var groupCharts: HTML {
        let z = StandardNormal.upperQuantile(offering.alpha / 2)
        let conversion = offering.groups.map { group in
            SVGCharts.IntervalRow(
                label: group.name, color: color(group),
                estimate: group.conversionRate.map { Estimate(value: $0, low: group.conversionCILow, high: group.conversionCIHigh) })
        }
        let arpu = offering.groups.map { group in
            SVGCharts.IntervalRow(
                label: group.name, color: color(group),
                estimate: group.arpu.map { arpu in
                    let margin = group.arpuSD.map { z * $0 / Double(group.users).squareRoot() }
                    return Estimate(value: arpu, low: margin.map { arpu - $0 }, high: margin.map { arpu + $0 })
                })
        }
        func chart(_ rows: [SVGCharts.IntervalRow], reference: Double?, label: String, format: (Double) -> String) -> HTML {
            guard rows.contains(where: { $0.estimate != nil }) else { return "<p class=\"empty\">No group has a value yet.</p>" }
            return SVGCharts.intervals(rows, reference: reference, label: label, format: format)
        }
        let money = ReportFormat.value(.arpu, currency: currency)
        return """
            <div class="charts">
            <figure><figcaption>Conversion by group, with \(level) intervals</figcaption>
            \(chart(conversion, reference: offering.control?.conversionRate, label: "Conversion by group", format: ReportFormat.percent))
            </figure>
            <figure><figcaption>Revenue per user by group, with \(level) intervals</figcaption>
            \(chart(arpu, reference: offering.control?.arpu, label: "Revenue per user by group", format: money))
            </figure>
            </div>
            <p class="note">Dot: the group's value; bar: where the true value lies with \(level) confidence; dashed line: control. \
            Bars that overlap the dashed line a lot mean the difference may be chance.</p>

            """
    }

    private var liftOverTime: HTML {
        var html: HTML = "<h3>Lift over time</h3>\n"
        let dates = Array(Set(offering.daily.map(\.date))).sorted()
        guard !dates.isEmpty, !treatments.isEmpty else {
            return html + "<p class=\"empty\">No daily series in this night’s results, so no lift-over-time chart.</p>\n"
        }
        // The band valid at every day at once, when the night has it.
        let sequential = offering.decision != nil
        let controlUsers = Dictionary(
            offering.daily.filter(\.isControl).map { ($0.date, $0.users) }, uniquingKeysWith: { first, _ in first })
        html += "<div class=\"charts\">\n"
        for metric in OwnMetric.allCases {
            // The first days swing wildly (+800% on a handful of users): the axis follows a day,
            // point and band, only once both groups are big enough, and only near the latest
            // lifts (`SVGCharts.liftAxisDomain`); the rest is clipped.
            var points: [Double] = []
            var domain: [Double] = []
            let series = treatments.map { group in
                let days = Dictionary(
                    offering.daily.filter { $0.group == group.name }.map { ($0.date, $0) }, uniquingKeysWith: { first, _ in first })
                let estimates = dates.map { date -> Estimate? in
                    guard let day = days[date], let lift = day.lift(metric, sequential: sequential) else { return nil }
                    points.append(lift.value)
                    if day.users >= ReportFindings.minimumUsersPerGroup, (controlUsers[date] ?? 0) >= ReportFindings.minimumUsersPerGroup {
                        domain += [lift.value, lift.low, lift.high].compactMap { $0 }
                    }
                    return lift
                }
                return SVGCharts.Series(label: group.name, color: color(group), points: estimates)
            }
            if domain.isEmpty { domain = points }
            let name = ReportFindings.name(metric)
            html +=
                "<figure><figcaption>\(name.prefix(1).uppercased() + name.dropFirst()): change vs control, cumulative to each day</figcaption>\n"
            guard !domain.isEmpty else {
                html += "<p class=\"empty\">No day has a \(name) lift yet.</p>\n</figure>\n"
                continue
            }
            let latest = series.compactMap { line in line.points.last { $0 != nil } ?? nil }
            let chart = SVGCharts.liftOverTime(
                dates: dates, series: series, domain: SVGCharts.liftAxisDomain(domain, latest: latest), label: "\(name) lift over time",
                clipID: "\(anchor)-\(metric.rawValue)")
            html += chart.svg
            if chart.clippedPoints > 0 {
                let days = chart.clippedPoints == 1 ? "1 day’s lift is" : "\(chart.clippedPoints) days’ lifts are"
                html += "\n<p class=\"note clipped\">▲▼ \(days) off the scale (early days on few users), marked at its edge.</p>"
            }
            html += "\n<ul class=\"legend\">"
            for (group, line) in zip(treatments, series) {
                let last =
                    line.points.last { $0 != nil }.flatMap { $0 }.map {
                        " \(ReportFormat.signedPercent($0.value)) by \(SVGCharts.shortDate(dates.last ?? ""))"
                    } ?? ""
                html += "<li>\(swatch(group))\(group.name)<span class=\"muted\">\(last)</span></li>"
            }
            html += "</ul>\n</figure>\n"
        }
        html += "</div>\n"
        html += "<p class=\"note\">Line: each variant’s change against control with all data up to the end of that day; band: "
        html +=
            sequential
            ? "its \(level) always-valid interval, which holds on every day at once, so looking every night does not make chance look like a result.</p>\n"
            : "its \(level) fixed-horizon interval (this night was stored without the always-valid one), which holds for one day read alone; early days swing widely.</p>\n"
        return html
    }

    // MARK: What each group saw

    private var paywalls: HTML {
        var html: HTML = "<h3>What each group saw</h3>\n<div class=\"paywalls\">\n"
        let control = offering.control
        for group in offering.groups {
            html += "<figure class=\"paywall\"><figcaption>\(swatch(group))<strong>\(group.name)</strong>"
            if group.isControl { html += " <span class=\"tag\">control</span>" }
            html += "</figcaption>\n<div class=\"screen\">\n"
            func changed(_ value: String?, _ controlValue: String?) -> String {
                !group.isControl && control != nil && value != controlValue ? " changed" : ""
            }
            let copy = group.shownCopy
            let controlCopy = control?.shownCopy
            if let copy {
                html += copyLine("title", copy.headerTitle, changed(copy.headerTitle, controlCopy?.headerTitle))
                html += copyLine("subtitle", copy.headerSubtitle, changed(copy.headerSubtitle, controlCopy?.headerSubtitle))
            } else {
                html += "<p class=\"muted\">No paywall copy in the tables.</p>\n"
            }
            if group.shownProducts.isEmpty {
                html += "<p class=\"muted\">No products in the tables.</p>\n"
            } else {
                html += "<ul class=\"options\">\n"
                for product in group.shownProducts {
                    let isNew = !group.isControl && control.map { !$0.shownProducts.contains { $0.showsTheSame(as: product) } } == true
                    html += "<li class=\"option\(product.isDefault ? " default" : "")\(isNew ? " changed" : "")\">"
                    html += "<span class=\"radio\" aria-hidden=\"true\"></span><span class=\"what\">"
                    html += "<span class=\"type\">\(nonEmpty(product.type) ?? product.productID)</span>"
                    if let badge = nonEmpty(product.badgeText) { html += " <span class=\"badge\">\(badge)</span>" }
                    if product.isDefault { html += " <span class=\"default-tag\">pre-selected</span>" }
                    html += "<code>\(product.productID)</code>"
                    if let subtitle = nonEmpty(product.subtitleText) { html += "<span class=\"sub\">\(subtitle)</span>" }
                    let (price, note) = Self.price(product)
                    if let note { html += "<span class=\"sub paid\">\(note)</span>" }
                    html += "</span><span class=\"price\">\(price)</span></li>\n"
                }
                html += "</ul>\n"
            }
            if let copy {
                html += copyLine("cta", copy.ctaButtonText, changed(copy.ctaButtonText, controlCopy?.ctaButtonText))
                html += copyLine("support", copy.supportingText, changed(copy.supportingText, controlCopy?.supportingText))
            }
            html += "</div>\n</figure>\n"
        }
        html += "</div>\n"
        html += "<p class=\"note\">From the offering tables: products top to bottom in display order, the pre-selected one filled, "
        html += "with badge and subtitle; prices are the fallback display prices, before the store shows its own, "
        html += "with the currency the group's charges of the product were paid in (the tables give none: the app adds it). "
        html += "<span class=\"changed\">Highlighted</span>: differs from control.</p>\n"
        return html
    }

    /// The fallback price as the paywall card shows it, and a line under the product when it
    /// needs one: `USD 7.99` with the one currency its charges were paid in; `7.99` and `paid
    /// in EUR, USD` with several; `7.99` and `no charge yet` with none.
    static func price(_ product: ShownProductRow) -> (price: String, note: String?) {
        guard let price = product.fallbackDisplayPrice, !price.isEmpty else { return ("–", nil) }
        let currencies = product.chargedCurrencies.split(separator: ";").map(String.init)
        switch currencies.count {
        case 0: return (price, "no charge yet")
        case 1: return ("\(currencies[0]) \(price)", nil)
        default: return (price, "paid in \(currencies.joined(separator: ", "))")
        }
    }

    private func copyLine(_ kind: String, _ text: String?, _ changed: String) -> HTML {
        guard let text = nonEmpty(text) else { return "" }
        return "<p class=\"\(kind)\(changed)\">\(text)</p>\n"
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    // MARK: Detail tables

    /// Every comparison row rounded, both inferences side by side, with the intervals that agree
    /// with each one's corrected p-value; rows without any value yet are named in one line.
    private func statistics(trusted: Bool) -> HTML {
        let rows = offering.comparisons + offering.familyComparisons
        guard !rows.isEmpty else { return "" }
        let corrected = treatments.count > 1 ? "corrected " : ""
        let inference = offering.verdictInference == .sequential ? "always-valid" : "fixed-horizon"
        var html: HTML = "<p class=\"note\">\(level) confidence, \(inference) verdicts"
        if offering.decisions.isEmpty {
            html += ".</p>\n"
        } else {
            html += ": the statuses above rest on these intervals.</p>\n" + verdict(trusted: trusted)
        }
        html += """
            <table class="details">
            <thead><tr><th scope="col">Variant</th><th scope="col">Metric</th><th scope="col" class="num secondary">Control → variant</th>\
            <th scope="col" class="num">Difference (\(corrected)\(level) CI)</th><th scope="col" class="num">Relative (\(corrected)\(level) CI)</th>\
            <th scope="col" class="num">Corrected p</th><th scope="col" class="num">Always-valid change (\(corrected)CI)</th>\
            <th scope="col" class="num">Always-valid corrected p</th><th scope="col" class="num">Chance to beat control</th>\
            <th scope="col" class="num">Detectable difference</th></tr></thead>
            <tbody>

            """
        var empty: [String] = []
        for comparison in rows {
            guard comparison.absoluteLift != nil else {
                let name = "\(comparison.group): \(ReportFindings.name(comparison))"
                if !empty.contains(name) { empty.append(name) }
                continue
            }
            let value = ReportFormat.value(comparison.metric, currency: currency)
            let absolute = ReportFormat.difference(comparison.metric, currency: currency)
            let fixed = comparison.decided(by: .fixed)
            let sequential = comparison.decided(by: .sequential)
            func estimate(_ estimate: Estimate?, _ format: (Double) -> String) -> HTML {
                guard let estimate else { return cell("–", []) }
                return cell(format(estimate.value), [ReportFindings.range(estimate.low, estimate.high, format) ?? ""])
            }
            func plain(_ text: String?, details: [String] = [], secondary: Bool = false) -> HTML {
                cell(text ?? "–", details, secondary: secondary)
            }
            html += "<tr><th scope=\"row\">\(comparison.group)</th><td>\(ReportFindings.name(comparison))</td>"
            html += plain(
                "\(comparison.controlValue.map(value) ?? "–") → \(comparison.value.map(value) ?? "–")", secondary: true)
            if comparison.metric == .arpu,
                ReportFindings.moneyIsMissing(offering, group: comparison.group)
            {
                html += plain("–", details: [ReportFindings.missingMoney]) + plain("–")
            } else {
                html += estimate(fixed.absoluteLift, absolute) + estimate(fixed.relativeLift, ReportFormat.signedPercent)
            }
            html += plain(
                comparison.pValueAdjusted.map(ReportFormat.pValue),
                details: [comparison.pValue.map { "uncorrected " + ReportFormat.pValue($0) } ?? ""])
            if let (lift, isRelative) = sequential.quotedLift {
                html += estimate(lift, isRelative ? ReportFormat.signedPercent : absolute)
            } else {
                html += plain(nil)
            }
            html += plain(comparison.sequential.pValueAdjusted.map(ReportFormat.pValue))
            html += plain(comparison.chanceToBeatControl.map(ReportFormat.chance))
            html += plain(comparison.minimumDetectableEffect.map { "±" + ReportFormat.fixed($0 * 100, decimals: 1) + " pp" }) + "</tr>\n"
        }
        html += "</tbody>\n</table>\n"
        if !empty.isEmpty {
            html +=
                "<p class=\"note empty-rows\">No value yet (a group has too few users): \(empty.joined(separator: "; ")).</p>\n"
        }
        html +=
            "<p class=\"note\">The ranges quoted above are the \(ReportFindings.intervalName(offering))s of this table. "
        html +=
            "Corrected p: Holm–Bonferroni over the variants; significant when below \(ReportFormat.fixed(offering.alpha, decimals: 3)). "
        html += "Each interval is the one that agrees with its corrected p: it excludes 0 exactly when that p is below "
        html += "\(ReportFormat.fixed(offering.alpha, decimals: 3)) (docs/statistics.md); the relative one is the ratio’s own interval "
        html += "(Fieller’s), never below −100%, and the absolute difference stands in where the ratio cannot be bounded. "
        html += "Fixed-horizon values are valid when read once; the always-valid ones hold however often "
        html +=
            "they are read, so they are wider. The verdicts use the \(offering.verdictInference == .sequential ? "always-valid" : "fixed-horizon") ones. "
        html += "Detectable difference: the conversion change this test can detect with 80% power at its current size.</p>\n"
        return HTMLReport.reference("Statistical details", html)
    }

    /// Every group metric the column declarations give a label (`ResultColumn.shown`), in
    /// `summary.csv`'s order.
    private var allNumbers: HTML {
        let money = ReportFormat.value(.arpu, currency: currency)
        let rows = GroupMetrics.columns.compactMap { column in
            column.column.shown.map { shown in
                (
                    shown.label, column.column.name,
                    { (group: GroupReport) -> String in
                        switch (column.value(group.summary.metrics), shown.unit) {
                        case (.integer(let count), _): ReportFormat.count(count)
                        case (.real(let value?), .share): ReportFormat.percent(value)
                        case (.real(let value?), .money): money(value)
                        default: "–"
                        }
                    }
                )
            }
        }
        var html: HTML = "<table class=\"numbers\">\n<thead><tr><th scope=\"col\">Metric</th>"
        for group in offering.groups { html += "<th scope=\"col\" class=\"num\">\(swatch(group))\(group.name)</th>" }
        html += "</tr></thead>\n<tbody>\n"
        for (label, column, value) in rows {
            html += "<tr><th scope=\"row\">\(label) <code>\(column)</code></th>"
            html += offering.groups.map { group -> HTML in "<td class=\"num\">\(value(group))</td>" }.joined() + "</tr>\n"
        }
        return HTMLReport.reference("All numbers by group", html + "</tbody>\n</table>\n")
    }

    private var productSales: HTML {
        guard !offering.products.isEmpty else {
            return "<h3>Revenue by product</h3>\n<p class=\"empty\">No purchase, renewal or refund was counted.</p>\n"
        }
        var html: HTML = "<table class=\"products\">\n<thead><tr><th scope=\"col\">Group</th><th scope=\"col\">Product</th>"
        html +=
            "<th scope=\"col\" class=\"num\">Purchases</th><th scope=\"col\" class=\"num\">Renewals</th><th scope=\"col\" class=\"num\">Refunds</th>"
        html += "<th scope=\"col\" class=\"num\">Net revenue</th></tr></thead>\n<tbody>\n"
        for product in offering.products {
            html += "<tr><td>\(product.group)</td><td><code>\(product.productID)</code></td>"
            html +=
                "<td class=\"num\">\(ReportFormat.count(product.purchases))</td><td class=\"num\">\(ReportFormat.count(product.renewals))</td>"
            html += "<td class=\"num\">\(ReportFormat.count(product.refunds))</td>"
            html += "<td class=\"num\">\(ReportFormat.money(product.netRevenue, currency))</td></tr>\n"
        }
        return HTMLReport.reference("Revenue by product", html + "</tbody>\n</table>\n")
    }

    // MARK: Capped revenue and matured users

    /// Revenue per user capped and uncapped (docs/analysis.md §4b), when the job sets a revenue cap.
    private var cappedRevenue: HTML {
        guard offering.groups.contains(where: { $0.cappedUsers != nil }) else { return "" }
        let money = ReportFormat.value(.arpu, currency: currency)
        let over = offering.groups.reduce(0) { $0 + ($1.cappedUsers ?? 0) }
        var html: HTML = """
            <h3>Revenue per user, capped</h3>
            <table class="capped">
            <thead><tr><th scope="col">Group</th><th scope="col" class="num">Revenue per user</th>\
            <th scope="col" class="num">Capped</th><th scope="col" class="num">Capped vs control</th>\
            <th scope="col" class="num">Users over the cap</th></tr></thead>
            <tbody>

            """
        for group in offering.groups {
            html += "<tr><th scope=\"row\">\(swatch(group))\(group.name)</th>"
            html += cell(group.arpu.map(money) ?? "–", []) + cell(group.arpuCapped.map(money) ?? "–", [])
            html += versus(group, offering.comparison(group.name, named: Metric.arpuCapped.csvName), .arpu)
            html += cell(ReportFormat.count(group.cappedUsers ?? 0), []) + "</tr>\n"
        }
        html += "</tbody>\n</table>\n"
        if let cap = offering.groups.lazy.compactMap(\.revenueCap).first {
            html +=
                "<p class=\"note\">Each user's net revenue counted up to \(money(cap)) (the job's revenue_cap), so that a few "
            html +=
                "large spenders cannot decide the test on their own: \(ReportFormat.count(over)) user\(over == 1 ? " was" : "s were") over it.</p>\n"
        } else {
            html += "<p class=\"note\">Nobody paid yet: there is nothing to cap.</p>\n"
        }
        return html
    }

    /// Conversion and revenue within D days of assignment, of the users assigned at least D days
    /// before the night (docs/analysis.md §4c), when the job sets maturity days.
    private var maturedMetrics: HTML {
        guard !offering.matured.isEmpty else { return "" }
        let money = ReportFormat.value(.arpu, currency: currency)
        // A window nobody has reached yet is one line under the table, not a row per group.
        let emptyWindows = Set(offering.matured.map(\.days)).filter { days in
            offering.matured.allSatisfy { $0.days != days || $0.users == 0 }
        }
        var html: HTML = "<h3>Matured users</h3>\n"
        if emptyWindows.count < Set(offering.matured.map(\.days)).count {
            html += matured(emptyWindows, money)
        }
        if !emptyWindows.isEmpty {
            let days = emptyWindows.sorted().map(String.init)
            let list = days.count == 1 ? days[0] : days.dropLast().joined(separator: ", ") + " and " + days[days.count - 1]
            html += "<p class=\"note empty-rows\">After \(list) days: no user was assigned that long before this night yet.</p>\n"
        }
        html += "<p class=\"note\">Only users assigned at least that many days before this night, with what they did in their first days: "
        html += "every user counted had the same time to buy and renew. Early in a test few users have matured.</p>\n"
        return html
    }

    /// The matured users' table, the windows of `emptyWindows` left out.
    private func matured(_ emptyWindows: Set<Int>, _ money: (Double) -> String) -> HTML {
        var html: HTML = """
            <table class="matured">
            <thead><tr><th scope="col">Window</th><th scope="col">Group</th><th scope="col" class="num">Matured users</th>\
            <th scope="col" class="num">Conversion</th><th scope="col" class="num">Conversion vs control</th>\
            <th scope="col" class="num">Revenue per user</th><th scope="col" class="num">Revenue per user vs control</th></tr></thead>
            <tbody>

            """
        for row in offering.matured where !emptyWindows.contains(row.days) {
            guard let group = offering.groups.first(where: { $0.name == row.group }) else { continue }
            html +=
                "<tr><th scope=\"row\">after \(row.days) day\(row.days == 1 ? "" : "s")</th><td>\(swatch(group))\(group.name)</td>"
            html += cell(ReportFormat.count(row.users), [])
            html += cell(row.conversionRate.map(ReportFormat.percent) ?? "–", [])
            html += versus(group, offering.comparison(group.name, named: "conversion_d\(row.days)"), .conversion)
            html += cell(row.arpu.map(money) ?? "–", [])
            html += versus(group, offering.comparison(group.name, named: "arpu_d\(row.days)"), .arpu) + "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }
}
