import OfferLabWriters

extension HTMLReport {
    /// One section per slice field (docs/analysis.md §7): per offering a compact table of its levels (users per
    /// group, each variant's conversion and revenue-per-user lift with its interval), the levels
    /// whose own sample-ratio check flags, and the caveat that slices are for exploring.
    static func slices(_ report: ReportData) -> HTML {
        var html: HTML = ""
        for (index, field) in report.slices.enumerated() {
            let levelCount = field.offerings.map(\.levels.count).max() ?? 0
            html += "<section class=\"offering slices\" id=\"slices-\(index + 1)\">\n"
            html += "<h2>By \(field.dimension)</h2>\n"
            html += "<p class=\"note\">Slices are for exploring, not for picking a winner after the fact: with \(levelCount) level"
            html +=
                "\(levelCount == 1 ? "" : "s") per offering, some will differ by chance alone, and each level’s correction covers only its own variants. "
            html +=
                "A member’s level is the \(field.dimension) of their first counted event that has one; the smallest levels are merged into (other).</p>\n"
            for slice in field.offerings {
                guard let offering = report.offerings.first(where: { $0.offeringID == slice.offeringID }) else { continue }
                html += sliceTable(slice, offering: offering)
            }
            html += "</section>\n"
        }
        return html
    }

    private static func sliceTable(_ slice: SliceOfferingReport, offering: OfferingReport) -> HTML {
        let title = offering.name.isEmpty ? offering.offeringID : offering.name
        let treatments = offering.groups.filter { !$0.isControl }.map(\.name)
        let interval = ReportFindings.intervalName(offering)
        var html: HTML = "<table class=\"details slice\">\n<thead><tr><th scope=\"col\">Level</th>"
        let usersHeading = "Users (\(offering.groups.map(\.name).joined(separator: " · ")))"
        html += "<th scope=\"col\" class=\"num\">\(usersHeading)</th>"
        for treatment in treatments {
            for metric in OwnMetric.allCases {
                html +=
                    "<th scope=\"col\" class=\"num\">\(treatment): \(columnName(metric, currency: offering.currency)) (\(interval))</th>"
            }
        }
        html += "</tr></thead>\n<tbody>\n"
        for row in slice.levels {
            html += "<tr><th scope=\"row\">\(row.level)</th>"
            // Each cell carries its heading: the phone layout hides the headings and shows these
            // (the columns vary with the groups, so no fixed list of labels fits).
            html += "<td class=\"num\" data-label=\"\(usersHeading)\">"
            html += "\(row.users.map { ReportFormat.count($0.count) }.joined(separator: " · "))</td>"
            for treatment in treatments {
                for metric in OwnMetric.allCases {
                    let comparison = row.comparisons.first { $0.group == treatment && $0.metric == metric }?.decided(
                        by: offering.verdictInference)
                    let moneyMissing =
                        metric == .arpu
                        && ReportFindings.moneyIsMissing(
                            offering, groups: [offering.controlGroup, treatment], withoutMoney: row.groupsWithoutMoney)
                    html += liftCell(
                        comparison, metric: metric, currency: offering.currency,
                        label: "\(treatment): \(columnName(metric, currency: offering.currency))",
                        moneyMissing: moneyMissing)
                }
            }
            html += "</tr>\n"
        }
        html += "</tbody>\n</table>\n"
        let flagged = slice.levels.filter { $0.sampleRatioFlagged == true }.map(\.level)
        if flagged.isEmpty {
            html += "<p class=\"note\">No level’s split of users between the groups differs from the weights.</p>\n"
        } else {
            html += "<p class=\"note\"><strong>Sample ratio mismatch</strong> within \(flagged.joined(separator: ", ")): "
            html += "these levels’ users are not split as the weights say, so their lifts cannot be trusted.</p>\n"
        }
        return reference("\(title) <code class=\"offering-id\">\(offering.offeringID)</code>", html)
    }

    /// A lift column's heading with its one unit: `conversion, change in pp`, `revenue per user, change in USD`.
    private static func columnName(_ metric: OwnMetric, currency: String) -> String {
        "\(ReportFindings.name(metric)), change in \(metric == .conversion ? "pp" : currency)"
    }

    /// The absolute lift (one unit per column: a small level's ratio is often unbounded) with the
    /// interval that agrees with its significance under it, a dash when the level has too few
    /// users to compare, or what is missing when its money is.
    private static func liftCell(_ comparison: Comparison?, metric: OwnMetric, currency: String, label: String, moneyMissing: Bool)
        -> HTML
    {
        let cell: HTML = "<td class=\"num\" data-label=\"\(label)\">"
        if moneyMissing { return cell + "–<span class=\"detail\">\(ReportFindings.missingMoney)</span></td>" }
        guard let lift = comparison?.absoluteLift else { return cell + "–</td>" }
        let format = ReportFormat.difference(metric, currency: currency)
        var html = cell + "<span class=\"main\">\(format(lift.value))</span>"
        if let low = lift.low, let high = lift.high {
            html += "<span class=\"detail\">\(format(low)) to \(format(high))</span>"
        }
        return html + "</td>"
    }
}
