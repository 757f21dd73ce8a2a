import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLabStoreSources

/// A Google Play file's reading as the parsed-log cache keeps it (`GooglePlayFileEntry.swift`):
/// every field of every line, counter and note read back as read, for both feeds; anything else
/// refused.
@Suite struct GooglePlayFileEntryTests {
    typealias Play = GooglePlayTests

    /// Lines of every shape the reader keeps a field of: a push with its message id, a trial, an
    /// introductory phase, a plan change's link, a test purchase, a one-time product and a pending
    /// one, a voided purchase with its state and a partial one without, a cancel, a revocation, a
    /// test notification, and bad lines (notes).
    static let notificationLines: [String] = {
        let oneTime =
            #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1772359300000","oneTimeProductNotification":{"version":"1.0","notificationType":1,"purchaseToken":"tok-p","sku":"coins"}}"#
        let product =
            #"{"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"1772359290000","purchaseState":0,"orderId":"GPA.9","purchaseType":0,"productId":"coins","obfuscatedExternalAccountId":"user-2","regionCode":"US"}"#
        let voided = { (order: String, refundType: Int) in
            #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1772500000000","voidedPurchaseNotification":{"purchaseToken":"tok-b","orderId":"\#(order)","productType":1,"refundType":\#(refundType)}}"#
        }
        return [
            Play.line(Play.push(Play.developerNotification(type: 4), messageID: "m1"), subscription: Play.state()),
            Play.line(Play.developerNotification(type: 4, token: "t1"), subscription: Play.state(orderID: "GPA.1", phase: "freeTrial")),
            Play.line(
                Play.developerNotification(type: 2, token: "tok-b", millis: 1_772_400_000_000),
                subscription: Play.state(orderID: "GPA.2..0", phase: "introductoryPrice", linked: "tok-a", test: true)),
            Play.line(oneTime, product: product),
            Play.line(
                oneTime.replacingOccurrences(of: "tok-p", with: "tok-q"),
                product: product.replacingOccurrences(of: #""purchaseState":0"#, with: #""purchaseState":2"#)),
            Play.line(voided("GPA.7", 1), subscription: Play.state(orderID: "GPA.7")),
            Play.line(voided("GPA.8", 2)),
            Play.line(Play.push(Play.developerNotification(type: 3, millis: 1_772_400_000_000), messageID: "cancel-1")),
            Play.line(Play.developerNotification(type: 12, millis: 1_772_460_000_000), subscription: Play.state(orderID: "GPA.1")),
            Play.line(#"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1772500000000","testNotification":{}}"#),
            "{not json",
            Play.line(Play.developerNotification(type: 4, package: "com.other.app"), subscription: Play.state()),
        ]
    }()

    /// Orders with developer revenue and partial refunds, a whole refund, neither, and a bad one.
    static let orderLines: [String] = [
        Play.order(
            "GPA.1", revenue: #"{"currencyCode":"EUR","units":"6","nanos":140000000}"#,
            history:
                #"{"partialRefundEvents":[{"processedTime":"2026-03-05T01:00:00Z","refundDetails":{"total":{"currencyCode":"EUR","units":"2"}}}]}"#,
            lastEvent: "2026-03-06T01:00:00Z"),
        Play.order("GPA.2", history: #"{"refundEvent":{"eventTime":"2026-03-07T00:00:00Z"}}"#),
        Play.order("GPA.3"),
        #"{"orderId":"GPA.4","createTime":"2026-03-01T00:00:00Z"}"#,
    ]

    static func read<Record: CachedGooglePlayLine>(
        _ lines: [String], line: ([UInt8]) throws(StoreLineRejection) -> Record
    ) throws -> GooglePlayFile<Record> {
        let folder = try TemporaryFolder()
        return try GooglePlayFile(path: folder.write("f.jsonl", lines.joined(separator: "\n") + "\n"), inflater: .zlib, read: line)
    }

    static func payload<Record: CachedGooglePlayLine>(_ reading: GooglePlayFile<Record>) -> [UInt8] {
        var entry = CacheEntryWriter(bytes: [])
        reading.encode(into: &entry)
        return entry.bytes
    }

    static func readBack<Record: CachedGooglePlayLine>(_ payload: [UInt8], path: String) throws -> GooglePlayFile<Record> {
        try payload.withUnsafeBytes { bytes in
            var entry = CacheEntryReader(bytes)
            let reading = try GooglePlayFile<Record>(entry: &entry, path: path)
            guard entry.remaining == 0 else { throw CacheEntryReader.Damaged() }
            return reading
        }
    }

    static func notifications() throws -> GooglePlayFile<GooglePlayNotification> {
        try read(notificationLines) { line throws(StoreLineRejection) in
            try GooglePlayNotification(line: line, packageName: "com.example.app")
        }
    }

    static func orders() throws -> GooglePlayFile<GooglePlayOrder> {
        try read(orderLines) { line throws(StoreLineRejection) in try GooglePlayOrder(line: line) }
    }

    /// Every stored field, as the reflection of the lines prints it (the enum's cases and payloads,
    /// every optional), then the counters and the notes, under another path.
    @Test func everyFieldOfEveryNotificationAndOrderIsReadBack() throws {
        let notifications = try Self.notifications()
        #expect(notifications.lines.count == 10 && notifications.notes.count == 2)
        let keptNotifications: GooglePlayFile<GooglePlayNotification> = try Self.readBack(
            Self.payload(notifications), path: "/elsewhere/n.jsonl")
        #expect(String(reflecting: keptNotifications.lines) == String(reflecting: notifications.lines))
        #expect(keptNotifications.counts == notifications.counts && keptNotifications.path == "/elsewhere/n.jsonl")
        #expect(
            keptNotifications.notes
                == notifications.notes.map {
                    StoreLineNote(path: "/elsewhere/n.jsonl", line: $0.line, counter: $0.counter, detail: $0.detail)
                })
        // The values that only some lines set are there to be lost: a test purchase, a partial void.
        #expect(keptNotifications.lines[2].buyer.isSandbox && keptNotifications.lines[2].linkedToken == "tok-a")
        #expect(String(reflecting: keptNotifications.lines[6].subject).contains("isPartial: true"))

        let orders = try Self.orders()
        #expect(orders.lines.count == 3 && orders.notes.count == 1)
        let keptOrders: GooglePlayFile<GooglePlayOrder> = try Self.readBack(Self.payload(orders), path: orders.path)
        #expect(String(reflecting: keptOrders.lines) == String(reflecting: orders.lines))
        #expect(keptOrders.lines.map(\.details) == orders.lines.map(\.details))
        #expect(keptOrders.counts == orders.counts && keptOrders.notes == orders.notes)
        #expect(
            keptOrders.lines[0].details.money.proceedsMicros == 6_140_000 && keptOrders.lines[0].details.refunds?.amountMicros == 2_000_000)
    }

    /// Cut anywhere, either feed's payload is refused (never read as fewer lines).
    @Test func aPayloadCutShortIsRefused() throws {
        let notifications = Self.payload(try Self.notifications())
        for length in 0..<notifications.count {
            #expect(throws: CacheEntryReader.Damaged.self) {
                let _: GooglePlayFile<GooglePlayNotification> = try Self.readBack(Array(notifications[..<length]), path: "/p")
            }
        }
        let orders = Self.payload(try Self.orders())
        for length in 0..<orders.count {
            #expect(throws: CacheEntryReader.Damaged.self) {
                let _: GooglePlayFile<GooglePlayOrder> = try Self.readBack(Array(orders[..<length]), path: "/p")
            }
        }
    }
}
