import Foundation
import Testing

@testable import OfferLabReport
@testable import OfferLabWriters

/// The report's HTML is escaped by construction (`HTML`): text interpolated into it is escaped,
/// markup goes in only as `HTML`, and no report source escapes by hand.
@Suite struct ReportEscapingTests {
    @Test func interpolatedTextIsEscapedAndMarkupIsNot() {
        let text = "<b>'BEST'</b> & \"more\""
        let cell: HTML = "<td class=\"num\" data-label=\"\(text)\">\(text)</td>"
        #expect(
            cell.markup
                == "<td class=\"num\" data-label=\"&lt;b&gt;&#39;BEST&#39;&lt;/b&gt; &amp; &quot;more&quot;\">"
                + "&lt;b&gt;&#39;BEST&#39;&lt;/b&gt; &amp; &quot;more&quot;</td>")
        let row: HTML = "<tr>\(cell)<td>\(1_234)</td></tr>"
        #expect(row.markup == "<tr>" + cell.markup + "<td>1234</td></tr>")
        let rows: [HTML] = ["<tr>", "\("<tr>")"]
        #expect(rows.joined(separator: "\n").markup == "<tr>\n&lt;tr&gt;")
        #expect(([] as [HTML]).joined().markup == "")
        #expect((rows[0] + "</tr>").markup == "<tr></tr>")
        #expect(HTML(markup: "a{content:\"<\"}").markup == "a{content:\"<\"}")
    }

    /// The slice tables' lift headings name the currency: it was the one text that reached the
    /// page unescaped before the page was built as `HTML`.
    @Test func theCurrencyInASliceHeadingIsEscaped() {
        let html = HTMLReport.render(ReportSliceTests.report().withOffering { $0.currency = "<u>USD</u>" })
        #expect(!html.contains("<u>"))
        #expect(html.contains("revenue per user, change in &lt;u&gt;USD&lt;/u&gt; (corrected 95% CI)"))
    }

    /// Escaping has one place, the builder: a report source that escapes by hand, or puts text
    /// on the page as markup, would have to be read to know the page is safe.
    @Test func noReportSourceEscapesByHand() throws {
        let folder = repositoryRoot.appending(path: "Sources/OfferLabReport")
        var byHand: [String] = []
        var asMarkup: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where file.hasSuffix(".swift") && file != "HTML.swift" {
            let source = try String(contentsOf: folder.appending(path: file), encoding: .utf8)
            if source.contains(".htmlEscaped") { byHand.append(file) }
            asMarkup += Array(repeating: file, count: source.components(separatedBy: "HTML(markup:").count - 1)
        }
        #expect(byHand == [])
        // The stylesheet, the one markup the report holds as a string.
        #expect(asMarkup == ["HTMLReport.swift"])
    }
}
