import Foundation
import OfferLabWriters

/// Inline SVG charts: no script, no fonts, no network; they scale with the page and print.
/// Every label from the data is escaped (`HTML`); coordinates are rounded to 0.1 so the same data
/// always gives the same bytes.
enum SVGCharts {
    /// Colour-blind-safe (Okabe–Ito) colours for treatments, in group order; control is grey.
    static let controlColor = "#4d4d4d"
    static let treatmentColors = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]

    /// One row of an interval chart: a point with its interval.
    struct IntervalRow {
        var label: String
        var color: String
        var estimate: Estimate?
    }

    /// A point-and-interval chart, one row per group, with a dashed line at `reference`
    /// (control's value) so a reader sees at once which intervals leave it behind.
    static func intervals(_ rows: [IntervalRow], reference: Double?, label: String, format: (Double) -> String) -> HTML {
        let width = 560.0
        let labelWidth = 130.0
        let valueWidth = 96.0
        let rowHeight = 34.0
        let top = 8.0
        let axisHeight = 26.0
        let height = top + rowHeight * Double(rows.count) + axisHeight
        var values = rows.compactMap(\.estimate).flatMap { [$0.value, $0.low, $0.high].compactMap { $0 } }
        if let reference { values.append(reference) }
        let ticks = niceTicks(values)
        let scale = Scale(lower: ticks.first ?? 0, upper: ticks.last ?? 1, start: labelWidth, end: width - valueWidth)
        var svg = open(width: width, height: height, label: label)
        for tick in ticks {
            let x = scale(tick)
            svg += line(x, top, x, height - axisHeight, stroke: "#e3e3e3")
            svg += text(x, height - 8, format(tick), anchor: "middle", size: 11, fill: "#666")
        }
        if let reference {
            let x = scale(reference)
            svg +=
                "<line x1=\"\(n(x))\" y1=\"\(n(top - 4))\" x2=\"\(n(x))\" y2=\"\(n(height - axisHeight))\" stroke=\"#4d4d4d\" stroke-dasharray=\"4 3\"/>"
        }
        for (index, row) in rows.enumerated() {
            let y = top + rowHeight * (Double(index) + 0.5)
            svg += text(labelWidth - 10, y + 4, truncated(row.label), anchor: "end", size: 13, fill: "#1a1a1a", title: row.label)
            guard let estimate = row.estimate else {
                svg += text(labelWidth + 4, y + 4, "no data", anchor: "start", size: 12, fill: "#666")
                continue
            }
            if let low = estimate.low, let high = estimate.high {
                svg += line(scale(low), y, scale(high), y, stroke: row.color, width: 3)
                svg += line(scale(low), y - 6, scale(low), y + 6, stroke: row.color, width: 2)
                svg += line(scale(high), y - 6, scale(high), y + 6, stroke: row.color, width: 2)
            }
            svg += "<circle cx=\"\(n(scale(estimate.value)))\" cy=\"\(n(y))\" r=\"5.5\" fill=\"\(row.color)\"/>"
            svg += text(width - valueWidth + 8, y + 4, format(estimate.value), anchor: "start", size: 13, fill: "#1a1a1a", weight: "600")
        }
        return svg + "</svg>"
    }

    /// One row of a stacked bar chart: its parts from 0 in order (a negative part goes back),
    /// where they should end, and a range drawn over them (an open end runs to the plot's edge).
    struct StackedRow {
        var label: String
        var parts: [Double]
        var total: Double?
        var range: (low: Double?, high: Double?)
    }

    /// Bars of parts stacked from the zero line, one row each, in `colors` by part; a mark at the
    /// row's `total` (where its parts end when they add up to it) and its `range` as a thin line
    /// with end ticks over the bar.
    static func stackedBars(_ rows: [StackedRow], colors: [String], label: String, format: (Double) -> String) -> HTML {
        let width = 560.0
        let labelWidth = 130.0
        // Room for half the last tick's label, which is centred on the plot's edge.
        let right = 48.0
        let rowHeight = 34.0
        let barHeight = 14.0
        let top = 8.0
        let axisHeight = 26.0
        let height = top + rowHeight * Double(rows.count) + axisHeight
        var values = [0.0]
        for row in rows {
            values += row.parts.indices.map { row.parts[...$0].reduce(0, +) }
            values += [row.total, row.range.low, row.range.high].compactMap { $0 }
        }
        let ticks = niceTicks(values)
        let scale = Scale(lower: ticks.first ?? 0, upper: ticks.last ?? 1, start: labelWidth, end: width - right)
        // Positions on the coordinates' 0.1 grid, so the parts' widths add up as drawn.
        func x(_ value: Double) -> Double { (scale(min(max(value, scale.lower), scale.upper)) * 10).rounded() / 10 }
        var svg = open(width: width, height: height, label: label)
        for tick in ticks {
            svg += line(x(tick), top, x(tick), height - axisHeight, stroke: "#e3e3e3")
            svg += text(x(tick), height - 8, format(tick), anchor: "middle", size: 11, fill: "#666")
        }
        svg +=
            "<line class=\"zero\" x1=\"\(n(x(0)))\" y1=\"\(n(top - 4))\" x2=\"\(n(x(0)))\" y2=\"\(n(height - axisHeight))\" stroke=\"#4d4d4d\"/>"
        for (index, row) in rows.enumerated() {
            let y = top + rowHeight * (Double(index) + 0.5)
            svg += text(labelWidth - 10, y + 4, truncated(row.label), anchor: "end", size: 13, fill: "#1a1a1a", title: row.label)
            svg += "<g class=\"bar\">"
            var start = 0.0
            for (part, color) in zip(row.parts, colors) {
                let end = start + part
                let (left, right) = (x(min(start, end)), x(max(start, end)))
                if right > left {
                    svg +=
                        "<rect class=\"part\(end < start ? " negative" : "")\" x=\"\(n(left))\" y=\"\(n(y - barHeight / 2))\" width=\"\(n(right - left))\" height=\"\(n(barHeight))\" fill=\"\(color)\"/>"
                }
                start = end
            }
            let (low, high) = (row.range.low.map(x) ?? x(scale.lower), row.range.high.map(x) ?? x(scale.upper))
            if row.range.low != nil || row.range.high != nil {
                svg += "<g class=\"range\">" + line(low, y, high, y, stroke: "#1a1a1a", width: 1.5)
                for (end, value) in [(low, row.range.low), (high, row.range.high)] where value?.isFinite == true {
                    svg += line(end, y - 6, end, y + 6, stroke: "#1a1a1a", width: 1.5)
                }
                svg += "</g>"
            }
            if let total = row.total {
                svg +=
                    "<line class=\"total\" x1=\"\(n(x(total)))\" y1=\"\(n(y - barHeight / 2 - 4))\" x2=\"\(n(x(total)))\" y2=\"\(n(y + barHeight / 2 + 4))\" stroke=\"#1a1a1a\" stroke-width=\"3\"/>"
            }
            svg += "</g>"
        }
        return svg + "</svg>"
    }

    /// One line of a lift-over-time chart: a treatment's lift per date (nil: undefined that day).
    struct Series {
        var label: String
        var color: String
        /// Parallel to the chart's dates.
        var points: [Estimate?]
    }

    /// The values a lift-over-time axis shows, out of `values` (the days' lifts and intervals):
    /// the latest lift of each series, point and interval, always; any other value only within
    /// the span of those (and 0) widened by that span on each side, at least 10 percentage
    /// points. So the current result takes at least a third of the height, and a first night's
    /// ±8,000% on a handful of users cannot squash every night since into a line at 0.
    static func liftAxisDomain(_ values: [Double], latest: [Estimate]) -> [Double] {
        let anchors = latest.flatMap { estimate -> [Double] in [estimate.value, estimate.low, estimate.high].compactMap { $0 } } + [0]
        guard let low = anchors.min(), let high = anchors.max() else { return values }
        let margin = max(high - low, 0.1)
        return anchors + values.filter { $0 >= low - margin && $0 <= high + margin }
    }

    /// Cumulative relative lift per day with its interval band, one line per treatment, and
    /// the zero line (control's level). `domain`: the values the vertical axis must show;
    /// anything beyond is clipped: bands are cut at the plot's edge, and a day whose lift is
    /// off the scale gets a triangle at the edge, in its series' colour, pointing the way the
    /// value lies (its date and value in a tooltip). `clippedPoints` counts those days.
    static func liftOverTime(
        dates: [String], series: [Series], domain: [Double], label: String, clipID: String
    ) -> (svg: HTML, clippedPoints: Int) {
        let width = 560.0
        let right = 54.0
        let top = 12.0
        let bottom = 28.0
        let height = 250.0
        // A relative lift is never below −100%: the axis stops there (a band reaching below it is cut).
        var ticks = niceTicks(domain.map { max(-1, $0) } + [0]).filter { $0 >= -1 }
        if let first = ticks.first, first > -1, domain.contains(where: { $0 < first }) { ticks.insert(-1, at: 0) }
        // Whole percents once ticks are at least 1% apart: "+50%" reads faster than "+50.0%".
        let decimals = ticks.count > 1 && (ticks[1] - ticks[0]) >= 0.01 ? 0 : 1
        let labels = ticks.map { ReportFormat.signedPercent($0, decimals: decimals) }
        // Room for the widest label (about 6.6 px a character at 11 px), so "−1,000%" keeps its sign.
        let left = max(48, 10 + 6.6 * Double(labels.map(\.count).max() ?? 0))
        let y = Scale(lower: ticks.first ?? 0, upper: ticks.last ?? 1, start: height - bottom, end: top)
        let plotRight = width - right
        func x(_ index: Int) -> Double {
            dates.count < 2 ? (left + plotRight) / 2 : left + (plotRight - left) * Double(index) / Double(dates.count - 1)
        }
        var svg = open(width: width, height: height, label: label)
        svg +=
            "<defs><clipPath id=\"\(clipID)\"><rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(plotRight - left))\" height=\"\(n(height - bottom - top))\"/></clipPath></defs>"
        for (tick, label) in zip(ticks, labels) {
            svg += line(left, y(tick), plotRight, y(tick), stroke: tick == 0 ? "#4d4d4d" : "#e3e3e3", width: tick == 0 ? 1.5 : 1)
            svg += text(left - 6, y(tick) + 4, label, anchor: "end", size: 11, fill: "#666")
        }
        for index in dateLabelIndices(dates.count) {
            let anchor = dates.count < 2 ? "middle" : index == 0 ? "start" : index == dates.count - 1 ? "end" : "middle"
            svg += text(x(index), height - 8, shortDate(dates[index]), anchor: anchor, size: 11, fill: "#666")
        }
        svg += "<g clip-path=\"url(#\(clipID))\">"
        for line in series {
            for segment in segments(line.points, where: { $0.low != nil && $0.high != nil }) {
                let upper = segment.map { "\(n(x($0.index))),\(n(y($0.estimate.high ?? 0)))" }
                let lower = segment.reversed().map { "\(n(x($0.index))),\(n(y($0.estimate.low ?? 0)))" }
                svg += "<polygon points=\"\((upper + lower).joined(separator: " "))\" fill=\"\(line.color)\" fill-opacity=\"0.15\"/>"
            }
        }
        for line in series {
            for segment in segments(line.points, where: { _ in true }) {
                let points = segment.map { "\(n(x($0.index))),\(n(y($0.estimate.value)))" }.joined(separator: " ")
                if segment.count == 1, let only = segment.first {
                    svg += "<circle cx=\"\(n(x(only.index)))\" cy=\"\(n(y(only.estimate.value)))\" r=\"3\" fill=\"\(line.color)\"/>"
                } else {
                    svg +=
                        "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2.5\" stroke-linejoin=\"round\"/>"
                }
            }
        }
        svg += "</g>"
        var clippedPoints = 0
        let (lowest, highest) = (ticks.first ?? 0, ticks.last ?? 1)
        for line in series {
            for (index, point) in line.points.enumerated() {
                guard let point, point.value < lowest || point.value > highest else { continue }
                clippedPoints += 1
                let (edge, tip) = point.value > highest ? (top + 8, top) : (height - bottom - 8, height - bottom)
                svg +=
                    "<path class=\"off-scale\" d=\"M\(n(x(index) - 5)) \(n(edge))L\(n(x(index) + 5)) \(n(edge))L\(n(x(index))) \(n(tip))Z\" fill=\"\(line.color)\">"
                svg +=
                    "<title>\(line.label), \(shortDate(dates[index])): \(ReportFormat.signedPercent(point.value)), off the scale</title></path>"
            }
        }
        // Outside the plot, at the end of the zero line, where no line can hide it.
        svg += text(plotRight + 5, y(0) + 4, "control", anchor: "start", size: 11, fill: "#4d4d4d", weight: "600")
        return (svg + "</svg>", clippedPoints)
    }

    // MARK: Pieces

    /// Maps `lower...upper` linearly onto `start...end` (`end` may be below `start`: the y
    /// axis runs upwards on the page).
    struct Scale {
        var lower, upper, start, end: Double

        func callAsFunction(_ value: Double) -> Double {
            let span = upper - lower
            return start + (end - start) * (span > 0 ? (value - lower) / span : 0.5)
        }
    }

    /// Round tick values (1, 2 or 5 × 10ⁿ apart) covering `values`: 4 to 7 of them, never none.
    static func niceTicks(_ values: [Double]) -> [Double] {
        let finite = values.filter(\.isFinite)
        var low = finite.min() ?? 0
        var high = finite.max() ?? 1
        if high - low < 1e-12 {
            let pad = max(abs(low) * 0.1, 1e-3)
            low -= pad
            high += pad
        }
        let rough = (high - low) / 5
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        let first = (low / step).rounded(.down)
        let last = (high / step).rounded(.up)
        // Multiples of the step, so 0.1 + 0.2 never prints as a tick of 0.30000000000000004.
        return stride(from: first, through: last, by: 1).map { $0 * step }
    }

    /// At most 7 evenly spread dates, the first and the last always among them.
    static func dateLabelIndices(_ count: Int) -> [Int] {
        guard count > 0 else { return [] }
        let step = max(1, Int((Double(count - 1) / 6).rounded(.up)))
        var indices = Array(stride(from: 0, to: count, by: step))
        if let last = indices.last, last != count - 1 {
            if count - 1 - last < step / 2 + 1, indices.count > 1 { indices.removeLast() }
            indices.append(count - 1)
        }
        return indices
    }

    /// `Mar 3` from `2026-03-03`.
    static func shortDate(_ date: String) -> String {
        let parts = date.split(separator: "-")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 3, let month = Int(parts[1]), (1...12).contains(month), let day = Int(parts[2]) else { return date }
        return "\(months[month - 1]) \(day)"
    }

    /// Runs of consecutive defined points that satisfy `include`.
    private static func segments(_ points: [Estimate?], where include: (Estimate) -> Bool) -> [[(index: Int, estimate: Estimate)]] {
        var result: [[(index: Int, estimate: Estimate)]] = []
        var current: [(index: Int, estimate: Estimate)] = []
        for (index, point) in points.enumerated() {
            if let point, include(point) {
                current.append((index, point))
            } else if !current.isEmpty {
                result.append(current)
                current = []
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// Inline SVG in HTML needs no `xmlns`: the parser gives it the SVG namespace.
    private static func open(width: Double, height: Double, label: String) -> HTML {
        "<svg viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" aria-label=\"\(label)\">"
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1) -> HTML {
        "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\"/>"
    }

    private static func text(
        _ x: Double, _ y: Double, _ content: String, anchor: String, size: Int, fill: String, weight: String? = nil, title: String? = nil
    ) -> HTML {
        var svg: HTML = "<text x=\"\(n(x))\" y=\"\(n(y))\" text-anchor=\"\(anchor)\" font-size=\"\(size)\" fill=\"\(fill)\""
        if let weight { svg += " font-weight=\"\(weight)\"" }
        svg += ">"
        if let title, title != content { svg += "<title>\(title)</title>" }
        return svg + "\(content)</text>"
    }

    /// A label short enough for the label column; the full text stays in a tooltip.
    private static func truncated(_ label: String) -> String {
        label.count > 18 ? String(label.prefix(17)) + "…" : label
    }

    /// A coordinate with at most one decimal (`12`, `12.5`).
    private static func n(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
