import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLabStoreSources

/// The real `offerlab run` on a hand-made job of Google Play notifications and Orders
/// (docs/input-formats.md#google-play-google_play-and-google_play_orders), two nights: the first
/// knows the charges from the notifications alone (the plan's price, an introductory charge and a
/// partial refund without their money), the second has their Orders (the price, the exact
/// proceeds and the refunded amount Play computed). Every number is worked out by hand below.
@Suite struct GooglePlayRunTests {
    static func notification(_ type: Int, token: String, at millis: Int64, package: String = "com.example.app") -> String {
        #"{"version":"1.0","packageName":"\#(package)","eventTimeMillis":"\#(millis)","subscriptionNotification":{"version":"1.0","notificationType":\#(type),"purchaseToken":"\#(token)"}}"#
    }

    /// The line a server keeps: the Pub/Sub push body and the state it fetched.
    static func line(_ notification: String, messageID: String, state: String? = nil) -> String {
        let data = Data(notification.utf8).base64EncodedString()
        let push =
            #"{"message":{"data":"\#(data)","messageId":"\#(messageID)","publishTime":"2026-03-01T00:00:00Z"},"subscription":"projects/p/subscriptions/play"}"#
        return #"{"notification":\#(push)"# + (state.map { #","subscription":\#($0)"# } ?? "") + "}"
    }

    static func state(user: String, orderID: String, phase: String, start: String) -> String {
        #"{"kind":"androidpublisher#subscriptionPurchaseV2","regionCode":"US","startTime":"\#(start)","subscriptionState":"SUBSCRIPTION_STATE_ACTIVE","externalAccountIdentifiers":{"obfuscatedExternalAccountId":"\#(user)"},"lineItems":[{"productId":"premium","expiryTime":"2026-04-02T10:00:00Z","autoRenewingPlan":{"autoRenewEnabled":true,"recurringPrice":{"currencyCode":"USD","units":"9","nanos":990000000}},"latestSuccessfulOrderId":"\#(orderID)","offerPhase":{"\#(phase)":{}}}]}"#
    }

    static func order(_ orderID: String, total: String, revenue: String, created: String, history: String = "{}") -> String {
        #"{"orderId":"\#(orderID)","purchaseToken":"t","state":"PROCESSED","createTime":"\#(created)","lastEventTime":"\#(created)","total":{"currencyCode":"USD","units":"\#(total.split(separator: ".")[0])","nanos":\#(Int(total.split(separator: ".")[1])! * 10_000_000)},"developerRevenueInBuyerCurrency":{"currencyCode":"USD","units":"\#(revenue.split(separator: ".")[0])","nanos":\#(Int(revenue.split(separator: ".")[1])! * 10_000_000)},"orderHistory":\#(history)}"#
    }

    /// `summary.csv` of the night in `folder`, by group and column.
    static func summary(_ folder: String) throws -> (String, String) throws -> String {
        let lines = try String(contentsOfFile: folder + "/summary.csv", encoding: .utf8).split(whereSeparator: \.isNewline)
        let columns = lines[0].split(separator: ",").map(String.init)
        return { group, column in
            let row = try #require(lines.first { $0.hasPrefix("test,\(group),") }).split(separator: ",", omittingEmptySubsequences: false)
            return String(row[try #require(columns.firstIndex(of: column))])
        }
    }

    static func rows(_ path: String) throws -> Set<String> {
        Set(try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init))
    }

    @Test func theNotificationsNightThenTheOrdersNight() throws {
        let folder = try TemporaryFolder()
        var tables = TablesFixture()
        tables.assignments = [("u1", "1", "10", "2026-03-01T00:00:00Z"), ("u2", "1", "11", "2026-03-01T00:00:00Z")]
        try tables.write(to: folder.file("tables.sqlite"))
        try folder.write(
            "logs/app.jsonl",
            #"{"event_id":"a1","ts":"2026-03-02T09:00:00Z","user_id":"u1","event":"paywall_view"}"# + "\n"
                + #"{"event_id":"a2","ts":"2026-03-15T09:00:00Z","user_id":"u2","event":"paywall_view"}"# + "\n")
        let voided =
            #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1772755200000","voidedPurchaseNotification":{"purchaseToken":"tB","orderId":"GPA.2","productType":1,"refundType":2}}"#
        try folder.write(
            "play/notifications.jsonl",
            [
                // u1: bought on 2026-03-02 10:00 (the state's startTime), renewed on 2026-03-09 (1773014400000).
                Self.line(
                    Self.notification(4, token: "tA", at: 1_772_445_660_000), messageID: "m1",
                    state: Self.state(user: "u1", orderID: "GPA.1", phase: "basePrice", start: "2026-03-02T10:00:00Z")),
                Self.line(
                    Self.notification(2, token: "tA", at: 1_773_014_400_000), messageID: "m2",
                    state: Self.state(user: "u1", orderID: "GPA.1..0", phase: "basePrice", start: "2026-03-02T10:00:00Z")),
                // The renewal's push delivered again.
                Self.line(
                    Self.notification(2, token: "tA", at: 1_773_014_400_000), messageID: "m2",
                    state: Self.state(user: "u1", orderID: "GPA.1..0", phase: "basePrice", start: "2026-03-02T10:00:00Z")),
                // u2: an introductory price on 2026-03-03, partly refunded on 2026-03-06.
                Self.line(
                    Self.notification(4, token: "tB", at: 1_772_532_000_000), messageID: "m3",
                    state: Self.state(user: "u2", orderID: "GPA.2", phase: "introductoryPrice", start: "2026-03-03T10:00:00Z")),
                Self.line(voided, messageID: "m4"),
                Self.line(
                    #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1772532000000","testNotification":{"version":"1.0"}}"#,
                    messageID: "m5"),
                Self.line(Self.notification(4, token: "tX", at: 1_772_532_000_000, package: "com.other.app"), messageID: "m6"),
            ].joined(separator: "\n") + "\n")
        // The first night's Orders: one of an order no notification names (no charge is made of it),
        // one without total.
        try folder.write(
            "play/orders/2026-03-09.jsonl",
            Self.order("GPA.0", total: "1.00", revenue: "0.85", created: "2026-03-01T00:00:00Z") + "\n"
                + #"{"orderId":"GPA.7","createTime":"2026-03-01T00:00:00Z"}"# + "\n")
        try folder.write(
            "job.yaml",
            """
            tables: tables.sqlite
            logs: ["logs/app.jsonl", {path: "play/*.jsonl", format: google_play}, {path: "play/orders/*.jsonl", format: google_play_orders}]
            google_play: {package_name: com.example.app}
            report_currency: USD
            max_bad_line_ratio: 0.5
            output: out/
            database: out/results.sqlite

            """)

        let first = try runOfferLab(["run", folder.file("job.yaml"), "--as-of", "2026-03-10", "--quiet"])
        #expect(first.status == 0, "\(first.standardError)")
        let night1 = try Self.summary(folder.file("out/2026-03-10"))
        // u1: 9.99 + 9.99 at the plan's price; proceeds by the rules: Play keeps 15 %, no VAT rate:
        // 2 × 9.99 × 0.85 = 16.983.
        #expect(try night1("control", "purchases") == "1" && night1("control", "renewals") == "1")
        #expect(try night1("control", "gross_revenue") == "19.98" && night1("control", "net_proceeds") == "16.983")
        // u2: an introductory charge and its partial refund, both without their money yet.
        #expect(try night1("variant", "purchases") == "1" && night1("variant", "refunds") == "1")
        #expect(try night1("variant", "gross_revenue") == "0" && night1("variant", "refunded_revenue") == "0")
        // No Order yet: u1's proceeds are all the rules' (0 exact), u2's charge has none (0 of 0: empty).
        #expect(try night1("control", "exact_proceeds_share") == "0" && night1("variant", "exact_proceeds_share") == "")
        let sources1 = try Self.rows(folder.file("out/2026-03-10/sources.csv"))
        for row in [
            "google_play,lines_read,7", "google_play,malformed_other_app,1", "google_play,ignored_store_records,1",
            "google_play,unpriced_charges,1", "google_play,unpriced_refunds,1", "google_play_orders,lines_read,2",
            "google_play_orders,malformed_missing_field,1",
        ] {
            #expect(sources1.contains(row), "\(row)")
        }

        // The Orders arrive the next nights: the charges' price, proceeds and the refunded amount.
        let refund =
            #"{"partialRefundEvents":[{"createTime":"2026-03-06T00:00:00Z","processedTime":"2026-03-06T01:00:00Z","state":"PROCESSED","refundDetails":{"total":{"currencyCode":"USD","units":"1"}}}]}"#
        try folder.write(
            "play/orders/2026-03-19.jsonl",
            [
                Self.order("GPA.1", total: "9.99", revenue: "8.00", created: "2026-03-02T10:00:01Z"),
                Self.order("GPA.1..0", total: "9.99", revenue: "8.00", created: "2026-03-09T00:00:01Z"),
                Self.order("GPA.2", total: "4.99", revenue: "4.00", created: "2026-03-03T10:00:01Z", history: refund),
            ].joined(separator: "\n") + "\n")
        let second = try runOfferLab(["run", folder.file("job.yaml"), "--as-of", "2026-03-20", "--quiet"])
        #expect(second.status == 0, "\(second.standardError)")
        let night2 = try Self.summary(folder.file("out/2026-03-20"))
        // u1: Play's proceeds, 8.00 of each 9.99. The log format carries them as a commission
        // share in billionths (docs/input-formats.md#google-play-google_play-and-google_play_orders):
        // 1.99 / 9.99 = 0.199199199|2… → 0.199199199, so each charge keeps 9.99 × 0.800800801 =
        // 8.000000002: 16.000000004 → 16, Play's figure. (In millionths it was 16.000004.)
        #expect(try night2("control", "gross_revenue") == "19.98" && night2("control", "net_proceeds") == "16")
        // u2: 4.99 charged, 1.00 refunded (the Order's partial refund event, not the unknown amount
        // of the voided purchase); proceeds 0.99 / 4.99 = 0.198396793|6… → 0.198396794: 4.99 ×
        // 0.801603206 = 3.999999998, less the refund's share of them (1.00 / 4.99): 3.198396792 →
        // 3.198397, Play's 4.00 × 3.99 / 4.99 = 3.1983967…
        #expect(try night2("variant", "gross_revenue") == "4.99" && night2("variant", "refunded_revenue") == "1")
        #expect(try night2("variant", "net_revenue") == "3.99" && night2("variant", "net_proceeds") == "3.198397")
        // Every charge has its Order: all the proceeds are Play's own.
        #expect(try night2("control", "exact_proceeds_share") == "1" && night2("variant", "exact_proceeds_share") == "1")
        let sources2 = try Self.rows(folder.file("out/2026-03-20/sources.csv"))
        #expect(sources2.contains("google_play,unpriced_charges,0") && sources2.contains("google_play,unpriced_refunds,0"))
        #expect(sources2.contains("google_play_orders,lines_read,5"))

        // `offerlab events` writes the night's Play events in the log format (the malformed
        // lines are within the job's ratio), and a job of the app's log and those events, the
        // one `offerlab sql` is given, has the same numbers.
        let events = try runOfferLab(["events", folder.file("job.yaml"), "--out", folder.file("events"), "--as-of", "2026-03-20"])
        #expect(events.status == 0, "\(events.standardError)")
        let written = try FileManager.default.subpathsOfDirectory(atPath: folder.file("events")).filter { $0.hasSuffix(".jsonl.gz") }
            .sorted()
        // The Orders complete the notifications' events: here they make none of their own.
        #expect(written == ["google_play/play/notifications.jsonl.jsonl.gz"])
        try folder.write(
            "events-job.yaml",
            """
            tables: tables.sqlite
            logs: ["logs/app.jsonl", "events/**/*.jsonl.gz"]
            report_currency: USD
            output: events-out/
            database: events-out/results.sqlite

            """)
        let fromEvents = try runOfferLab(["run", folder.file("events-job.yaml"), "--as-of", "2026-03-20", "--quiet"])
        #expect(fromEvents.status == 0, "\(fromEvents.standardError)")
        #expect(
            try String(contentsOfFile: folder.file("events-out/2026-03-20/summary.csv"), encoding: .utf8)
                == String(contentsOfFile: folder.file("out/2026-03-20/summary.csv"), encoding: .utf8))
    }

    /// A chain whose purchase has its Order and whose renewal has none yet: the purchase's
    /// proceeds are Play's (8.00 of 9.99, carried as the share 0.800800801 of the price), the
    /// renewal's the rules' (Play keeps 15 %: 9.99 × 0.85). The share is of the charges before
    /// the refund of 1.00 of the purchase, which lowers the net proceeds alone.
    @Test func anOrderMakesItsChargesProceedsExactAndTheRestAreTheRules() throws {
        let folder = try TemporaryFolder()
        var tables = TablesFixture()
        tables.assignments = [("u1", "1", "10", "2026-03-01T00:00:00Z"), ("u2", "1", "11", "2026-03-01T00:00:00Z")]
        try tables.write(to: folder.file("tables.sqlite"))
        try folder.write(
            "play/notifications.jsonl",
            [
                Self.line(
                    Self.notification(4, token: "tA", at: 1_772_445_660_000), messageID: "m1",
                    state: Self.state(user: "u1", orderID: "GPA.1", phase: "basePrice", start: "2026-03-02T10:00:00Z")),
                Self.line(
                    Self.notification(2, token: "tA", at: 1_773_014_400_000), messageID: "m2",
                    state: Self.state(user: "u1", orderID: "GPA.1..0", phase: "basePrice", start: "2026-03-02T10:00:00Z")),
            ].joined(separator: "\n") + "\n")
        let refund =
            #"{"partialRefundEvents":[{"createTime":"2026-03-06T00:00:00Z","processedTime":"2026-03-06T01:00:00Z","state":"PROCESSED","refundDetails":{"total":{"currencyCode":"USD","units":"1"}}}]}"#
        try folder.write(
            "play/orders/2026-03-19.jsonl",
            Self.order("GPA.1", total: "9.99", revenue: "8.00", created: "2026-03-02T10:00:01Z", history: refund) + "\n")
        try folder.write(
            "job.yaml",
            """
            tables: tables.sqlite
            logs: [{path: "play/*.jsonl", format: google_play}, {path: "play/orders/*.jsonl", format: google_play_orders}]
            google_play: {package_name: com.example.app}
            report_currency: USD
            output: out/
            database: out/results.sqlite

            """)
        let run = try runOfferLab(["run", folder.file("job.yaml"), "--as-of", "2026-03-20", "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
        let night = try Self.summary(folder.file("out/2026-03-20"))
        let (exact, rules) = (9.99 * 0.800800801, 9.99 * 0.85)
        #expect(try night("control", "gross_revenue") == "19.98" && night("control", "refunded_revenue") == "1")
        let netProceeds = try #require(Double(night("control", "net_proceeds")))
        #expect(abs(netProceeds - (exact * (1 - 1 / 9.99) + rules)) < 5e-7, "\(netProceeds)")
        let share = try #require(Double(night("control", "exact_proceeds_share")))
        #expect(abs(share - exact / (exact + rules)) < 1e-12, "\(share)")
        #expect(try night("variant", "exact_proceeds_share") == "")
    }
}
