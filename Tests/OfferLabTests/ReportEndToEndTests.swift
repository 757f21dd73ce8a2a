import Foundation
import OfferLabTestSupport
import Testing

/// The real binary: every run writes report.html, and `offerlab report --db` rebuilds it to the byte.
@Suite struct ReportEndToEndTests {
    @Test func theSampleNightsReportIsRebuiltFromTheDatabaseAlone() throws {
        let folder = try TemporaryFolder()
        let database = folder.file("results.sqlite")
        let job = repositoryRoot.appendingPathComponent("jobs/sample.yaml").path
        let run = try runOfferLab(["run", job, "--output", folder.path, "--database", database])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError == "")  // the sample job runs clean
        let written = try String(contentsOfFile: folder.file("2026-03-15/report.html"), encoding: .utf8)
        #expect(written.contains("Spring 2026 price test: weekly, monthly, 3-day pass"))
        #expect(written.contains("onboarding_copy_test"))
        // The sample's own numbers, rounded for people (tools/reference computes the same).
        // The verdicts use the always-valid intervals (decision: sequential, the default).
        #expect(
            written.contains(
                "variant_b is winning on revenue per user: +162.3% vs control (corrected 95% always-valid CI +127.2% to +201.3%), a &gt;99.9% chance that it does better than control."
            ))
        // Issue 41: the interval quoted next to "significant" excludes 0 (it was −1.4% to +81.8%).
        #expect(
            written.contains(
                "conversion +52.5% vs control (corrected 95% always-valid CI +35.3% to +71.7%), significant after correction"))
        #expect(!written.contains("−1.4% to +81.8%"))
        // No relative interval below −100% (a slice's was −478.2% to +684.5%).
        let percents = written.matches(of: /−([0-9,]+\.[0-9])%/).compactMap { Double($0.1.replacingOccurrences(of: ",", with: "")) }
        #expect(!percents.isEmpty && percents.allSatisfy { $0 <= 100 }, "\(percents.filter { $0 > 100 })")
        // Issue 47: onboarding's users who are also in the price test log its offering, which is no
        // disagreement; 155 of its 27,796 users remain (0.6%, the reference's quality.csv), under the 1%
        // that makes a caution: none, and no verdict withheld.
        #expect(!written.contains("Verdict withheld"))
        #expect(!written.contains("App and server disagree"))
        #expect(
            written.components(separatedBy: "<p class=\"effect\">").count - 1 == written.components(separatedBy: "class=\"banner ").count
                - 1)
        // Every currency has a rate in the sample job, and its logs' malformed lines name no money
        // (the warnings job's report names them: aLiftWithoutItsMoneySaysSo).
        #expect(!written.contains("purchases, renewals and refunds ("))
        #expect(!written.contains("named a price or a money event"))
        #expect(!written.contains("Sample ratio mismatch"))
        // The sample job slices by country and platform: a section each, rebuilt from the database too.
        #expect(written.contains("<h2>By country</h2>") && written.contains("<h2>By platform</h2>"))

        let rebuilt = try runOfferLab(["report", "--db", database, "--as-of", "2026-03-15", "--output", folder.file("rebuilt.html")])
        #expect(rebuilt.status == 0, "\(rebuilt.standardError)")
        #expect(rebuilt.standardOutput == "wrote \(folder.file("rebuilt.html"))\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.file("rebuilt.html"))) == Data(written.utf8))

        let printed = try runOfferLab(["report", "--db", database, "--as-of", "2026-03-15T00:00:00Z", "--output", "-"])
        #expect(printed.status == 0)
        #expect(printed.standardOutput == written)

        let here = try runOfferLab(["report", "--db", database, "--as-of", "2026-03-15"], in: folder.path)
        #expect(here.status == 0, "\(here.standardError)")
        #expect(try String(contentsOfFile: folder.file("report-2026-03-15.html"), encoding: .utf8) == written)
    }

    /// The sample night's bars of each group's year (docs/report.md, "What each group's first year is made of"): walked
    /// from the zero line part by part (a negative part goes back), every bar ends at its mark, the
    /// projected year; one mark per group of projection.csv with a year, and some bar of several parts.
    @Test func theYearsBarsAddUpToTheProjectedYear() throws {
        let folder = try TemporaryFolder()
        let job = repositoryRoot.appendingPathComponent("jobs/sample.yaml").path
        let run = try runOfferLab(["run", job, "--quiet", "--output", folder.path, "--database", folder.file("results.sqlite")])
        #expect(run.status == 0, "\(run.standardError)")
        let written = try String(contentsOfFile: folder.file("2026-03-15/report.html"), encoding: .utf8)
        let projection = ProjectionRunTests.records(
            parseCSV(try String(contentsOfFile: folder.file("2026-03-15/projection.csv"), encoding: .utf8)))
        func number(_ match: Substring) -> Double { Double(match) ?? .nan }
        var marks = 0
        var largest = 0
        for figure in written.components(separatedBy: "<figure class=\"year-make-up\">").dropFirst() {
            let chart = figure.components(separatedBy: "</svg>")[0]
            let zero = try #require(chart.firstMatch(of: /<line class="zero" x1="([0-9.]+)"/).map { number($0.1) })
            for bar in chart.components(separatedBy: "<g class=\"bar\">").dropFirst() {
                var position = zero
                let parts = bar.matches(of: /<rect class="part( negative)?" x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)"/)
                for part in parts {
                    let (x, width) = (number(part.2), number(part.3))
                    // A part starts where the one before it ended (a negative one ends there).
                    #expect(abs((part.1 == nil ? x : x + width) - position) < 0.15, "\(bar)")
                    position = part.1 == nil ? x + width : x
                }
                largest = max(largest, parts.count)
                guard let mark = bar.firstMatch(of: /<line class="total" x1="([0-9.]+)"/) else { continue }
                marks += 1
                #expect(abs(position - number(mark.1)) < 0.15, "the parts end at \(position), the year at \(mark.1): \(bar)")
            }
        }
        #expect(marks == projection.filter { !($0["projected_arpu_365"] ?? "").isEmpty }.count && marks > 0)
        #expect(largest >= 3)
    }

    /// The sample data with BRL left without a rate (jobs/sample-with-warnings.yaml): Brazil's
    /// revenue lifts say their money is unknown instead of showing "USD 0.00"; the banner names
    /// the money of the showcase's broken purchase lines.
    @Test func aLiftWithoutItsMoneySaysSo() throws {
        let folder = try TemporaryFolder()
        let job = repositoryRoot.appendingPathComponent("jobs/sample-with-warnings.yaml").path
        let run = try runOfferLab(["run", job, "--quiet", "--output", folder.path, "--database", folder.file("results.sqlite")])
        #expect(run.status == 0, "\(run.standardError)")
        let written = try String(contentsOfFile: folder.file("2026-03-15/report.html"), encoding: .utf8)
        let brazil = written.components(separatedBy: "<th scope=\"row\">BR</th>").dropFirst().map { $0.prefix { $0 != "\n" } }
        #expect(brazil.count == 2)  // one row per offering
        for row in brazil {
            #expect(row.contains("revenue unknown: no rate for its currency") && !row.contains("USD 0.00"), "\(row)")
        }
        #expect(written.contains("The verdict stands: under 10.0% of the money events are left out"))
        #expect(written.contains("272 of 4,610 purchases, renewals and refunds (5.9%)"))
        // The showcase/ it reads too: its broken purchase lines are named.
        #expect(
            written.contains(
                "11 malformed log lines named a price or a money event: EUR 21.99, JPY 1500, USD 23.97 (-7.99 of it as negative prices), and 6 of an amount that cannot be read; none of it is counted below."
            ))
    }

    @Test func errorsAreOneLineWithTheirExitCode() throws {
        let folder = try TemporaryFolder()
        let missing = try runOfferLab(["report", "--db", folder.file("none.sqlite"), "--as-of", "2026-03-15"])
        #expect(missing.status == 66)
        #expect(
            missing.standardError
                == "offerlab: error: \(folder.file("none.sqlite")) holds no night yet (the file does not exist): run the job first, or give --db the job's database: file\n"
        )
        let badDate = try runOfferLab(["report", "--db", folder.file("none.sqlite"), "--as-of", "March"])
        #expect(badDate.status == 64)  // a bad command line
        #expect(badDate.standardError.contains("The value 'March' is invalid for '--as-of <date>': not a date like 2026-03-16"))
    }

    /// Names, product ids and copy from the offering tables go through the real run into the
    /// page as text, never as markup, and survive the database unchanged.
    @Test func hostileTablesAreShownAsText() throws {
        let folder = try TemporaryFolder()
        let script = "<script>alert(1)</script>"
        try folder.write("tables/subscription_offerings.csv", "id,offering_id,name,is_active\n1,test,\"<img src=x onerror=alert(2)>\",1\n")
        try folder.write(
            "tables/subscription_offering_groups.csv", "id,subscription_offering_id,group_name,weight\n10,1,control,1\n11,1,\(script),1\n")
        try folder.write(
            "tables/subscription_offering_group_products.csv",
            """
            offering_group_id,product_id,type,fallback_display_price,position,is_default,badge_text,subtitle_text
            10,weekly,weekly,7.99,0,1,,
            11,"<b onclick=""x"">p</b>",monthly,"<i>9</i>",0,1,"</code><script>alert(3)</script>","It's ""free"" & <em>more</em>"

            """)
        try folder.write(
            "tables/subscription_offering_group_copy.csv",
            "offering_group_id,header_title,header_subtitle,cta_button_text,supporting_text\n11,<style>*{display:none}</style>,a,b,c\n")
        try folder.write(
            "tables/user_offering_assignments.csv",
            "user_id,subscription_offering_id,offering_group_id,assigned_at\nu1,1,10,2026-03-01 00:00:00\nu2,1,11,2026-03-01 00:00:00\n")
        try folder.write(
            "logs/a.jsonl",
            #"{"ts":"2026-03-02T00:00:00Z","user_id":"u2","event":"purchase","product_id":"<b onclick=\"x\">p</b>","transaction_id":"t1","price":9,"currency":"USD"}"#
                + "\n")
        let job = try folder.write(
            "job.yaml",
            "tables: tables/\nlogs: [\"logs/*.jsonl\"]\nas_of: 2026-03-05\nreport_currency: USD\noutput: out/\ndatabase: out/results.sqlite\n"
        )
        let run = try runOfferLab(["run", job, "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
        let html = try String(contentsOfFile: folder.file("out/2026-03-05/report.html"), encoding: .utf8)
        for raw in ["<script", "<img", "<b ", "<i>", "<em>", "<style>*"] {
            #expect(!html.contains(raw), "\(raw) reached the page as markup")
        }
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&lt;img src=x onerror=alert(2)&gt;"))
        #expect(html.contains("It&#39;s &quot;free&quot; &amp; &lt;em&gt;more&lt;/em&gt;"))
        #expect(html.contains("&lt;b onclick=&quot;x&quot;&gt;p&lt;/b&gt;"))

        let rebuilt = try runOfferLab(["report", "--db", folder.file("out/results.sqlite"), "--as-of", "2026-03-05", "--output", "-"])
        #expect(rebuilt.standardOutput == html)
    }
}
