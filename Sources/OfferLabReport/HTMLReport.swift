import OfferLabJob
import OfferLabTables
import OfferLabVocabulary
import OfferLabWriters

/// `report.html`: one self-contained page (inline CSS and SVG; no script, font or network
/// request, which the page's Content-Security-Policy also forbids) that a product lead reads
/// in the morning, on a laptop or on paper.
///
/// Rendering takes only a `ReportData` and is deterministic, so a run and a rebuild from the
/// database give the same bytes. The page is built as `HTML`, which escapes every string from
/// the data.
package enum HTMLReport {
    package static func render(_ report: ReportData) -> String {
        var html: HTML = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <title>Offering tests · \(report.run.night.date) · OfferLab</title>
            <style>\(HTML(markup: stylesheet))</style>
            </head>
            <body>
            <main>

            """
        html += header(report)
        let runWarnings = ReportFindings.warnings(report)
        // The first screen holds every treatment's status; the run's warnings follow it, named in it.
        html += overview(report, runWarnings: runWarnings)
        html += banners(runWarnings, scope: "These concern the whole run: every offering below is affected.")
        let runIsTrusted = !runWarnings.contains { $0.severity == .critical }
        for (index, offering) in report.offerings.enumerated() {
            html += OfferingSection(offering: offering, anchor: anchor(index), runIsTrusted: runIsTrusted, night: report.run.night).html
        }
        html += slices(report)
        html += trackRecord(report)
        html += runFacts(report)
        html += "</main>\n</body>\n</html>\n"
        return html.markup
    }

    /// Section ids come from positions, never from the data.
    static func anchor(_ index: Int) -> String { "offering-\(index + 1)" }

    private static func header(_ report: ReportData) -> HTML {
        let currencies = Set(report.offerings.map(\.currency)).sorted()
        var facts = ["data up to \(ReportFormat.timestamp(report.run.night.isoText))"]
        facts.append(report.offerings.count == 1 ? "1 offering" : "\(report.offerings.count) offerings")
        if !currencies.isEmpty { facts.append("revenue in \(currencies.joined(separator: ", "))") }
        facts.append("computed \(ReportFormat.timestamp(report.run.finishedAt))")
        return """
            <header class="page">
            <p class="kicker">OfferLab · offering test report</p>
            <h1>Offering tests, night of \(report.run.night.date)</h1>
            <p class="facts">\(facts.joined(separator: " · "))</p>
            </header>

            """
    }

    /// Warnings as banners nobody scrolls past: colour, an icon and a bold title, in the order
    /// given (`ReportFindings` lists the most serious first).
    /// `scope`: a line under the banners saying what they concern (nil: none).
    static func banners(_ warnings: [ReportFindings.Warning], scope: String?) -> HTML {
        guard !warnings.isEmpty else { return "" }
        var html: HTML = "<div class=\"warnings\" role=\"alert\">\n"
        for warning in warnings {
            let (kind, word) = warning.severity == .critical ? ("critical", "Do not trust yet") : ("caution", "Caution")
            html += "<div class=\"banner \(kind)\"><span class=\"icon\" aria-hidden=\"true\">!</span><div><p class=\"banner-title\">"
            html += "<span class=\"severity\">\(word):</span> \(warning.title)</p><p>\(warning.detail)</p>"
            if let effect = warning.verdictEffect { html += "<p class=\"effect\">\(effect)</p>" }
            html += "</div></div>\n"
        }
        if let scope { html += "<p class=\"warnings-scope\">\(scope)</p>\n" }
        return html + "</div>\n"
    }

    /// The first screen (docs/report.md, "At a glance"): per offering its warnings, and per
    /// treatment what to do, the goal's lift, what shipping is worth and when a running test is
    /// expected to be decided. An offering's box is green only when every treatment is decided.
    private static func overview(_ report: ReportData, runWarnings: [ReportFindings.Warning]) -> HTML {
        guard !report.offerings.isEmpty else {
            return "<p class=\"empty\">This night analysed no offering.</p>\n"
        }
        var html: HTML = "<nav class=\"overview\" aria-label=\"Offerings\">\n<h2>At a glance</h2>\n"
        if !runWarnings.isEmpty {
            html += "<p class=\"warning-titles\">The whole run: \(runWarnings.map(\.title).joined(separator: " · ")) (below)</p>\n"
        }
        html += "<ul>\n"
        for (index, offering) in report.offerings.enumerated() {
            let warnings = ReportFindings.warnings(offering)
            let decided =
                !offering.decisions.isEmpty && offering.decisions.allSatisfy(\.status.endsTheTest)
            let name = offering.name.isEmpty ? offering.offeringID : offering.name
            html += "<li class=\"glance\(decided ? " decided" : "")\" data-offering=\"\(offering.offeringID)\">"
            html += "<a href=\"#\(anchor(index))\"><span class=\"name\">\(name)</span> <code>\(offering.offeringID)</code></a>"
            if !warnings.isEmpty {
                let critical = warnings.contains { $0.severity == .critical }
                html +=
                    " <span class=\"pill \(critical ? "critical" : "caution")\">\(warnings.count) warning\(warnings.count == 1 ? "" : "s")</span>"
                html += " <span class=\"warning-titles\">\(warnings.map(\.title).joined(separator: " · "))</span>"
            }
            if offering.decisions.isEmpty {
                let verdict = ReportFindings.verdict(offering)
                html += "<p class=\"verdict-line \(toneClass(verdict.tone))\">\(verdict.text)</p>"
            }
            for row in offering.decisions {
                html += "<div class=\"treatment\" data-group=\"\(row.group)\" data-status=\"\(row.status.rawValue)\">"
                html += "<span class=\"group\">\(row.group)</span>"
                html +=
                    "<span class=\"status \(toneClass(ReportFindings.tone(status: row.status)))\">\(row.status.words)</span>"
                html += "<span class=\"goal\">\(ReportFindings.goalLift(row))"
                if let farEnds = ReportFindings.farEnds(row, in: offering) { html += "<span class=\"far-ends\">\(farEnds)</span>" }
                html += "</span>"
                html += "<span class=\"worth\">\(ReportFindings.worth(row, currency: offering.currency))</span>"
                if let when = ReportFindings.when(row, night: report.run.night) { html += "<span class=\"when\">\(when)</span>" }
                if let periods = ReportFindings.periods(row) { html += "<span class=\"periods\">\(periods)</span>" }
                html += "</div>"
            }
            html += "</li>\n"
        }
        return html + "</ul>\n</nav>\n"
    }

    /// The app's own track record (docs/statistics.md#the-apps-own-track-record): a line per
    /// product, folded (a reference, and the phone's page has a height to keep); nothing without a past.
    private static func trackRecord(_ report: ReportData) -> HTML {
        guard !report.trackRecord.isEmpty else { return "" }
        var html: HTML = "<section class=\"track-record\">\n"
        html += "<details><summary>How the projection did on this app's past (backtest.csv)</summary>\n"
        html += "<p class=\"note\">Each month of earlier buyers of a product, read 30 and 60 days after their first charge "
        html += "as a test is, knowing only what was known then, and projected to the last day the past shows (at most a year): "
        html += "how often the interval held what they then paid.</p>\n<ul>\n"
        for line in report.trackRecord { html += "<li>\(line)</li>\n" }
        return html + "</ul>\n</details>\n</section>\n"
    }

    private static func runFacts(_ report: ReportData) -> HTML {
        let run = report.run
        let totalBytes = run.inputFiles.reduce(Int64(0)) { $0 + $1.bytes }
        var html: HTML = "<footer class=\"run\">\n<h2>About this run</h2>\n<dl class=\"facts-list\">\n"
        let facts: [(String, String)] =
            [
                ("Night", run.night.date), ("Data up to (as_of)", ReportFormat.timestamp(run.night.isoText)), ("Job file", run.job),
                ("Started", ReportFormat.timestamp(run.startedAt)), ("Results computed", ReportFormat.timestamp(run.finishedAt)),
                ("offerlab version", run.toolVersion),
                ("Log files", "\(ReportFormat.count(run.inputFiles.count)) (\(ReportFormat.bytes(totalBytes)))"),
            ]
            + (run.signaturesVerified.map { [("App Store signatures", $0 ? "verified" : "not verified (app_store.verify: false)")] } ?? [])
        for (term, value) in facts { html += "<dt>\(term)</dt><dd>\(value)</dd>\n" }
        html += "</dl>\n"
        if !run.inputFiles.isEmpty {
            html += "<details><summary>Every log file read, with its size</summary>\n<ul class=\"files\">\n"
            for file in run.inputFiles {
                html +=
                    "<li><code>\(relative(file.path, toFolderOf: run.job))</code> <span class=\"muted\">\(ReportFormat.bytes(file.bytes))</span></li>\n"
            }
            html += "</ul>\n</details>\n"
        }
        html += reference(
            "Log lines, all offerings", qualityTable(report.quality, flagged: Set(ReportFindings.warnings(report).compactMap(\.counter))))
        if !report.sources.isEmpty || run.signaturesVerified != nil { html += reference("Sources", sourcesSection(report)) }
        html += """
            <p class="note">Every number in this report is rounded for reading. The same night's results in full precision are in the CSV \
            files next to this report and in the SQLite database; <code>offerlab report --db</code> rebuilds this page from the database.</p>
            </footer>

            """
        return html
    }

    /// `path` relative to the folder of the job file `job` when it lies under it (the job's own
    /// `logs:` globs read that way), else as it is.
    static func relative(_ path: String, toFolderOf job: String) -> String {
        guard let slash = job.lastIndex(of: "/") else { return path }
        let folder = job[..<slash]
        guard !folder.isEmpty, path.hasPrefix(folder + "/") else { return path }
        return String(path.dropFirst(folder.count + 1))
    }

    /// A reference section (detail tables): open on a wide screen and on paper, one line on a
    /// phone until tapped (the stylesheet opens it with `::details-content`; no script).
    static func reference(_ title: HTML, _ content: HTML) -> HTML {
        "<details class=\"reference\"><summary><h3>\(title)</h3></summary>\n\(content)</details>\n"
    }

    /// The counters of `quality.csv`, those behind a warning marked.
    static func qualityTable(_ counters: [QualityRow], flagged: Set<String>) -> HTML {
        guard !counters.isEmpty else { return "<p class=\"muted\">No counters.</p>\n" }
        var html: HTML =
            "<table class=\"quality\">\n<thead><tr><th scope=\"col\">Counter</th><th scope=\"col\" class=\"num\">Count</th></tr></thead>\n<tbody>\n"
        for counter in counters {
            let mark: HTML = flagged.contains(counter.counter) ? " class=\"flagged\"" : ""
            html +=
                "<tr\(mark)><td><code>\(counter.counter)</code></td><td class=\"num\">\(ReportFormat.count(counter.count))</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// The source formats read and their counters (`sources.csv`: `lines_read` always, the
    /// others when not 0), and whether the App Store signatures were verified.
    static func sourcesSection(_ report: ReportData) -> HTML {
        var html: HTML = ""
        if report.run.signaturesVerified == false {
            html +=
                "<p class=\"note\">App Store notifications were <strong>not verified</strong>: the job says <code>app_store.verify: false</code> "
                + "(their receiver is trusted to have verified each one at receipt).</p>\n"
        } else if report.run.signaturesVerified == true {
            html += "<p class=\"note\">Every App Store notification's signature was verified.</p>\n"
        }
        let shown = report.sources.filter { $0.counter == "lines_read" || $0.count != 0 }
        guard !shown.isEmpty else { return html }
        html +=
            "<table class=\"quality\">\n<thead><tr><th scope=\"col\">Source</th><th scope=\"col\">Counter</th><th scope=\"col\" class=\"num\">Count</th></tr></thead>\n<tbody>\n"
        for row in shown {
            html +=
                "<tr><td><code>\(row.source)</code></td><td><code>\(row.counter)</code></td><td class=\"num\">\(ReportFormat.count(row.count))</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// The class of text in a tone (green, red, plain).
    static func toneClass(_ tone: ReportFindings.Tone) -> String {
        switch tone {
        case .better: "better"
        case .worse: "worse"
        case .unclear: "unclear"
        }
    }

    /// The class of a verdict box in a tone (its background and border).
    static func verdictClass(_ tone: ReportFindings.Tone) -> String {
        switch tone {
        case .better: "win"
        case .worse: "lose"
        case .unclear: "open"
        }
    }
}
