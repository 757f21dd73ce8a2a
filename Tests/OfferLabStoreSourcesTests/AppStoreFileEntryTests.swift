import OfferLabIngest
import Testing

@testable import OfferLabStoreSources

/// An App Store file's reading as the parsed-log cache keeps it (`CachedStoreFileReading`): read
/// back, every field of every record and note is the same; a payload cut short or of another
/// layout is refused, never misread.
@Suite struct AppStoreFileEntryTests {
    /// Every field set in one notification and left out in another; fractional timestamps (Xcode's
    /// fractional milliseconds), negative ones, sandbox and family-shared records, shares.
    static let reading: AppStoreFileReading = {
        var full = StoreTransaction(
            format: .appStoreNotifications, transactionID: "2000000123456789", originalTransactionID: "2000000000000001",
            productID: "com.example.yearly", kind: .chargeByChainOrder, at: 1_773_000_000_123_456,
            money: .init(priceMicros: 49_990_000, currency: "EUR", taxShare: 0.19, commissionShare: 0.15),
            buyer: StoreBuyer(
                userID: "7e3fb20b-4cdb-47cc-936d-99d65f608138", isSandbox: true, isFamilyShared: true, country: "DE", platform: "ios",
                store: "app_store")
        ).with(expiresAt: 1_804_536_000_123_999, refund: .init(at: 1_773_500_000_000_001, amountMicros: 24_995_000))
        full.sourcePath = "/night/before.jsonl.gz"
        let bare = StoreTransaction(
            format: .appStoreNotifications, transactionID: "1", originalTransactionID: nil, productID: nil, kind: .trial,
            at: -62_135_596_800_000_000, money: .init(), buyer: StoreBuyer(userID: nil))
        var refundedWhole = bare
        refundedWhole.kind = .laterCharge
        refundedWhole.refund = .init(at: 0, amountMicros: nil)
        var firstCharge = bare
        firstCharge.kind = .firstCharge
        firstCharge.money.priceMicros = 0
        var change = StoreStatusChange(
            format: .appStoreNotifications, id: "c-1", event: .cancel, at: 1_773_000_001_000_500, originalTransactionID: "2000000000000001",
            transactionID: "2000000123456789", productID: "com.example.yearly",
            buyer: StoreBuyer(
                userID: "7e3fb20b-4cdb-47cc-936d-99d65f608138", isSandbox: true, country: "DE", platform: "ios", store: "app_store"))
        change.sourcePath = "/night/before.jsonl.gz"
        let bareChange = StoreStatusChange(
            format: .appStoreNotifications, id: "e-1", event: .expire, at: 1, originalTransactionID: nil, transactionID: nil,
            productID: nil, buyer: StoreBuyer(userID: nil))
        var reading = AppStoreFileReading(path: "/night/a.jsonl.gz")
        reading.notifications = [
            AppStoreNotification(
                id: "n-1", type: "REFUND_REVERSED", subtype: "ÜBER", signedAt: 1_773_000_001_000_001, isKnownType: true, transaction: full,
                statusChange: change,
                refundReversal: StoreRefundReversal(format: .appStoreNotifications, id: "n-1", transactionID: full.transactionID, at: 7)),
            AppStoreNotification(id: "n-2", type: "SOMETHING_NEW", subtype: nil, signedAt: -5, isKnownType: false),
            AppStoreNotification(
                id: "n-3", type: "EXPIRED", subtype: nil, signedAt: 2, isKnownType: true, transaction: bare, statusChange: bareChange),
            AppStoreNotification(id: "n-4", type: "REFUND", subtype: "", signedAt: 3, isKnownType: true, transaction: refundedWhole),
            AppStoreNotification(id: "n-1", type: "DID_RENEW", subtype: nil, signedAt: 4, isKnownType: true, transaction: firstCharge),
        ]
        reading.notes = [
            StoreLineNote(path: reading.path, line: 2, counter: .malformedBadSignature, detail: "signedPayload: the ES256 signature…"),
            StoreLineNote(path: reading.path, line: 9, counter: .unknownNotificationTypes, detail: "notificationType 'SOMETHING_NEW'"),
            StoreLineNote(path: reading.path, line: 1_000_000, counter: .malformedInvalidJSON, detail: ""),
        ]
        reading.counts[.linesRead] = 1_000_000
        reading.counts[.malformedBadSignature] = 1
        reading.counts[.unknownNotificationTypes] = 1
        reading.counts[.malformedInvalidJSON] = 1
        return reading
    }()

    static func payload(_ reading: AppStoreFileReading) -> [UInt8] {
        var entry = CacheEntryWriter(bytes: [])
        reading.encode(into: &entry)
        return entry.bytes
    }

    static func readBack(_ payload: [UInt8], path: String) throws -> AppStoreFileReading {
        try payload.withUnsafeBytes { bytes in
            var entry = CacheEntryReader(bytes)
            let reading = try AppStoreFileReading(entry: &entry, path: path)
            guard entry.remaining == 0 else { throw CacheEntryReader.Damaged() }
            return reading
        }
    }

    @Test func everyFieldOfEveryRecordAndNoteIsReadBack() throws {
        let original = Self.reading
        let kept = try Self.readBack(Self.payload(original), path: original.path)
        #expect(kept.path == original.path)
        #expect(kept.notifications == original.notifications)
        #expect(kept.notes == original.notes)
        #expect(kept.counts == original.counts)
        // Nothing set by the reading is lost in a default: the same record with a field changed differs.
        #expect(
            kept.notifications[0].transaction?.money.taxShare == 0.19 && kept.notifications[0].transaction?.buyer.isFamilyShared == true)
    }

    /// The path is not kept: the same bytes under another name are that file's reading, notes too.
    @Test func theReadingIsTheFilesItIsReadBackFor() throws {
        let kept = try Self.readBack(Self.payload(Self.reading), path: "/elsewhere/b.jsonl.gz")
        #expect(kept.path == "/elsewhere/b.jsonl.gz" && kept.notes.allSatisfy { $0.path == "/elsewhere/b.jsonl.gz" })
        #expect(kept.notifications == Self.reading.notifications)
    }

    @Test func anEmptyReadingIsReadBack() throws {
        let kept = try Self.readBack(Self.payload(AppStoreFileReading(path: "/e")), path: "/e")
        #expect(kept.notifications.isEmpty && kept.notes.isEmpty && kept.counts == StoreCounts())
    }

    /// Cut anywhere, the payload is refused (never read as fewer records).
    @Test func aPayloadCutShortIsRefused() {
        let payload = Self.payload(Self.reading)
        for length in 0..<payload.count {
            #expect(throws: CacheEntryReader.Damaged.self) { try Self.readBack(Array(payload[..<length]), path: "/p") }
        }
    }

    /// The JSON earlier builds kept, or any other bytes: refused.
    @Test(arguments: [
        #"{"path":"/p","notifications":[],"notes":[],"counts":{"values":[]}}"#,
        String(repeating: "\u{0}", count: 8) + "\u{1}",
    ])
    func aPayloadOfAnotherLayoutIsRefused(text: String) {
        #expect(throws: CacheEntryReader.Damaged.self) { try Self.readBack(Array(text.utf8), path: "/p") }
    }
}
