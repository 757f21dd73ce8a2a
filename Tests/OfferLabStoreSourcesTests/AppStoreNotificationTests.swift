import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLabStoreSources

/// Notifications in environment `LocalTesting`, unsigned by Apple's design, as Apple's own tests
/// make them from the decoded payloads in `models/`.
enum LocalNotification {
    static let bundleID = "com.example"

    /// A transaction payload's JSON.
    static func transaction(
        id: String, original: String = "1000", product: String = "pro.monthly", purchase: Int64 = 1_700_000_000_000,
        price: Int64? = 9990, currency: String = "EUR", offer: String? = nil, storefront: String = "DEU",
        token: String? = "7E3FB20B-4CDB-47CC-936D-99D65F608138", revocation: Int64? = nil, percentage: Int64? = nil,
        ownership: String = "PURCHASED", environment: String = "LocalTesting", expires: Int64? = nil
    ) -> String {
        var fields = [
            #""transactionId":"\#(id)""#, #""originalTransactionId":"\#(original)""#, #""productId":"\#(product)""#,
            #""bundleId":"\#(bundleID)""#, #""purchaseDate":\#(purchase)"#, #""signedDate":\#(purchase)"#,
            #""currency":"\#(currency)""#, #""storefront":"\#(storefront)""#, #""inAppOwnershipType":"\#(ownership)""#,
            #""environment":"\#(environment)""#,
        ]
        if let price { fields.append(#""price":\#(price)"#) }
        if let offer { fields.append(#""offerDiscountType":"\#(offer)""#) }
        if let token { fields.append(#""appAccountToken":"\#(token)""#) }
        if let revocation { fields.append(#""revocationDate":\#(revocation)"#) }
        if let percentage { fields.append(#""revocationPercentage":\#(percentage)"#) }
        if let expires { fields.append(#""expiresDate":\#(expires)"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A stored webhook body line.
    static func line(
        type: String, subtype: String? = nil, uuid: String, signedDate: Int64 = 1_700_000_100_000, transaction: String? = nil,
        renewal: String? = nil, bundle: String = bundleID, environment: String = "LocalTesting"
    ) -> [UInt8] {
        var data = [#""bundleId":"\#(bundle)""#, #""environment":"\#(environment)""#]
        if let transaction { data.append(#""signedTransactionInfo":"\#(TestJWS.unsigned(payload: transaction))""#) }
        if let renewal { data.append(#""signedRenewalInfo":"\#(TestJWS.unsigned(payload: renewal))""#) }
        var payload = [#""notificationType":"\#(type)""#, #""notificationUUID":"\#(uuid)""#, #""signedDate":\#(signedDate)"#]
        if let subtype { payload.append(#""subtype":"\#(subtype)""#) }
        payload.append(#""data":{"# + data.joined(separator: ",") + "}")
        return TestJWS.line(TestJWS.unsigned(payload: "{" + payload.joined(separator: ",") + "}"))
    }
}

@Suite struct AppStoreNotificationTests {
    let decoder: AppStoreNotificationDecoder

    init() throws {
        let verifier = try AppStoreSignatureVerifier(rootCertificates: [RealData.bytes(RealData.testCA)])
        decoder = AppStoreNotificationDecoder(bundleID: LocalNotification.bundleID, verifier: verifier)
    }

    func rejection(_ line: [UInt8], decoder: AppStoreNotificationDecoder? = nil) async -> StoreCounter? {
        do {
            _ = try await (decoder ?? self.decoder).decode(line)
            return nil
        } catch {
            return error.counter
        }
    }

    @Test func appleSignedTestNotificationDecodes() async throws {
        let line = TestJWS.line(try RealData.text("app-store-server-library/mock_signed_data/testNotification"))
        let notification = try await decoder.decode(line)
        #expect(notification.type == "TEST")
        #expect(notification.id == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(notification.signedAt == 1_681_314_324_000_000)
        #expect(notification.transaction == nil && notification.statusChange == nil)
    }

    @Test func appleMockDataOfAnotherAppOrWithoutChainIsRejected() async throws {
        let wrongApp = TestJWS.line(try RealData.text("app-store-server-library/mock_signed_data/wrongBundleId"))
        #expect(await rejection(wrongApp) == .malformedOtherApp)
        let other = AppStoreNotificationDecoder(bundleID: "com.example.other", verifier: decoder.verifier)
        let test = TestJWS.line(try RealData.text("app-store-server-library/mock_signed_data/testNotification"))
        #expect(await rejection(test, decoder: other) == .malformedOtherApp)
        let missingX5C = TestJWS.line(try RealData.text("app-store-server-library/mock_signed_data/missingX5CHeaderClaim"))
        #expect(await rejection(missingX5C) == .malformedBadSignature)
    }

    @Test func aSandboxNotificationWithoutSignatureIsRejected() async {
        // Only Xcode and LocalTesting are unsigned by design.
        let line = LocalNotification.line(type: "TEST", uuid: "t", environment: "Sandbox")
        #expect(await rejection(line) == .malformedBadSignature)
        // With verification off (a receiver that verified at receipt), it is read.
        let trusting = AppStoreNotificationDecoder(bundleID: LocalNotification.bundleID, verifier: nil)
        #expect(await rejection(line, decoder: trusting) == nil)
    }

    @Test func badLinesEachHaveTheirReason() async {
        let valid = TestJWS.unsigned(payload: #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1}"#)
        let cases: [(String, [UInt8], StoreCounter)] = [
            ("not JSON", Array("{signedPayload".utf8), .malformedInvalidJSON),
            ("an array", Array("[1]".utf8), .malformedInvalidJSON),
            ("no signedPayload", Array(#"{"other":1}"#.utf8), .malformedMissingField),
            ("a number", Array(#"{"signedPayload":5}"#.utf8), .malformedInvalidField),
            ("truncated JWS", TestJWS.line(String(valid.prefix(30))), .malformedBadSignature),
            ("bad base64", TestJWS.line("e30.e30!.AA"), .malformedBadSignature),
            ("payload not JSON", TestJWS.line(TestJWS.unsigned(payload: "not json")), .malformedInvalidJSON),
            (
                "no signedDate",
                TestJWS.line(
                    TestJWS.unsigned(
                        payload:
                            #"{"notificationType":"TEST","notificationUUID":"u","data":{"bundleId":"com.example","environment":"LocalTesting"}}"#
                    )),
                .malformedMissingField
            ),
            (
                "a date past year 9999", LocalNotification.line(type: "TEST", uuid: "u", signedDate: 999_999_999_999_999),
                .malformedBadTimestamp
            ),
            (
                "a negative price",
                LocalNotification.line(type: "DID_RENEW", uuid: "u", transaction: LocalNotification.transaction(id: "1", price: -1)),
                .malformedNegativePrice
            ),
            (
                "a transaction of another app",
                LocalNotification.line(
                    type: "DID_RENEW", uuid: "u",
                    transaction: LocalNotification.transaction(id: "1").replacingOccurrences(of: "com.example", with: "com.other")),
                .malformedOtherApp
            ),
        ]
        for (name, line, expected) in cases {
            #expect(await rejection(line) == expected, "\(name)")
        }
    }

    @Test func appleModelTransactionWithProratedRefund() async throws {
        // Apple's decoded payloads, wrapped as Apple's tests wrap them (LocalTesting, unsigned).
        let notification = try RealData.text("app-store-server-library/models/signedNotification.json")
        let transaction = try RealData.text("app-store-server-library/models/signedTransactionWithRevocation.json")
        let renewal = try RealData.text("app-store-server-library/models/signedRenewalInfo.json")
        let payload = notification.replacingOccurrences(of: "signed_transaction_info_value", with: TestJWS.unsigned(payload: transaction))
            .replacingOccurrences(of: "signed_renewal_info_value", with: TestJWS.unsigned(payload: renewal))
        let decoded = try await decoder.decode(TestJWS.line(TestJWS.unsigned(payload: payload)))
        #expect(decoded.type == "SUBSCRIBED" && decoded.subtype == "INITIAL_BUY")
        let record = try #require(decoded.transaction)
        #expect(
            record
                == StoreTransaction(
                    format: .appStoreNotifications, transactionID: "23456", originalTransactionID: "12345",
                    productID: "com.example.product", kind: .chargeByChainOrder, at: 1_698_148_900_000_000,
                    money: .init(priceMicros: 10_990_000, currency: "USD"),
                    buyer: StoreBuyer(
                        userID: "7e3fb20b-4cdb-47cc-936d-99d65f608138", isSandbox: true, country: "US", platform: "ios", store: "app_store")
                ).with(expiresAt: 1_698_149_000_000_000, refund: .init(at: 1_698_148_950_000_000, amountMicros: 5_495_000)))
    }

    @Test func xcodeTransactionsAreSandboxWithFractionalMilliseconds() async throws {
        let signed = try RealData.text("app-store-server-library/xcode/xcode-signed-transaction")
        let renewal = try RealData.text("app-store-server-library/xcode/xcode-signed-renewal-info")
        let bundle = "com.example.naturelab.backyardbirds.example"
        let payload = """
            {"notificationType":"SUBSCRIBED","notificationUUID":"x","signedDate":1697679936056.485,\
            "data":{"bundleId":"\(bundle)","environment":"Xcode","signedTransactionInfo":"\(signed)","signedRenewalInfo":"\(renewal)"}}
            """
        // A chain that is no chain, a signature by Xcode's own key: unsigned by design, read as sandbox.
        let xcode = AppStoreNotificationDecoder(bundleID: bundle, verifier: decoder.verifier)
        let decoded = try await xcode.decode(TestJWS.line(TestJWS.unsigned(payload: payload)))
        let record = try #require(decoded.transaction)
        #expect(record.buyer.isSandbox)
        #expect(record.at == 1_697_679_936_049_729)
        #expect(record.expiresAt == 1_700_358_336_049_729)
        #expect(record.transactionID == "0" && record.money.priceMicros == nil && record.kind == .chargeByChainOrder)
        #expect(decoded.signedAt == 1_697_679_936_056_485)
    }

    @Test func anUnsignedXcodeNotificationCannotCarryAProductionTransaction() async throws {
        let line = LocalNotification.line(
            type: "DID_RENEW", uuid: "x", transaction: LocalNotification.transaction(id: "1", environment: "Production"),
            environment: "Xcode")
        #expect(try await decoder.decode(line).transaction?.buyer.isSandbox == true)
    }

    @Test func storefrontsBecomeAlpha2Countries() async throws {
        for (storefront, country) in [("USA", "US"), ("DEU", "DE"), ("JPN", "JP"), ("GBR", "GB"), ("XKS", "XK"), ("ZZZ", nil)] {
            let line = LocalNotification.line(
                type: "DID_RENEW", uuid: storefront, transaction: LocalNotification.transaction(id: "1", storefront: storefront))
            #expect(try await decoder.decode(line).transaction?.buyer.country == country, "\(storefront)")
        }
        #expect(CountryCodes.alpha2ByAlpha3.count == 250)
    }

    @Test func aStorefrontOfAnotherTypeLeavesTheCountryAbsent() async throws {
        for storefront in ["276", "true", #"{"code":"DEU"}"#] {
            let transaction = LocalNotification.transaction(id: "1").replacingOccurrences(
                of: #""storefront":"DEU""#, with: #""storefront":\#(storefront)"#)
            let decoded = try await decoder.decode(LocalNotification.line(type: "DID_RENEW", uuid: "a", transaction: transaction))
            #expect(decoded.transaction?.transactionID == "1", "the line stays valid, as §1.2's country: \(storefront)")
            #expect(decoded.transaction?.buyer.country == nil, "\(storefront)")
        }
    }

    @Test func freeTrialsFamilySharingAndStatusChanges() async throws {
        let trial = try await decoder.decode(
            LocalNotification.line(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: "a",
                transaction: LocalNotification.transaction(id: "1", price: 0, offer: "FREE_TRIAL")))
        #expect(
            trial.transaction?.kind == .trial && trial.transaction?.money.priceMicros == nil && trial.transaction?.money.currency == nil)

        let shared = try await decoder.decode(
            LocalNotification.line(
                type: "DID_RENEW", uuid: "b", transaction: LocalNotification.transaction(id: "2", ownership: "FAMILY_SHARED")))
        #expect(shared.transaction?.buyer.isFamilyShared == true)

        let cancel = try await decoder.decode(
            LocalNotification.line(
                type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", uuid: "c", signedDate: 1_700_000_500_000,
                transaction: LocalNotification.transaction(id: "2")))
        #expect(cancel.statusChange?.event == .cancel && cancel.statusChange?.at == 1_700_000_500_000_000)
        #expect(cancel.statusChange?.id == "c" && cancel.statusChange?.originalTransactionID == "1000")
        #expect(cancel.statusChange?.buyer.userID == "7e3fb20b-4cdb-47cc-936d-99d65f608138")

        let enabled = try await decoder.decode(
            LocalNotification.line(
                type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_ENABLED", uuid: "d",
                transaction: LocalNotification.transaction(id: "2")))
        #expect(enabled.statusChange == nil)

        for type in ["EXPIRED", "GRACE_PERIOD_EXPIRED"] {
            let expire = try await decoder.decode(
                LocalNotification.line(type: type, uuid: type, renewal: #"{"originalTransactionId":"77","productId":"p","signedDate":1}"#))
            #expect(expire.statusChange?.event == .expire && expire.statusChange?.originalTransactionID == "77", "\(type)")
        }

        let unknown = try await decoder.decode(
            LocalNotification.line(type: "SOMETHING_NEW", uuid: "e", transaction: LocalNotification.transaction(id: "3")))
        #expect(!unknown.isKnownType && unknown.transaction?.transactionID == "3")
    }

    @Test func refundsAndReversals() async throws {
        let refund = try await decoder.decode(
            LocalNotification.line(
                type: "REFUND", uuid: "r", signedDate: 1_700_000_900_000,
                transaction: LocalNotification.transaction(id: "5", revocation: 1_700_000_800_000)))
        #expect(refund.transaction?.refund == .init(at: 1_700_000_800_000_000, amountMicros: nil))
        // A REFUND whose transaction lacks revocationDate: the refund is at the notification's date.
        let bare = try await decoder.decode(
            LocalNotification.line(
                type: "REFUND", uuid: "r2", signedDate: 1_700_000_900_000, transaction: LocalNotification.transaction(id: "6")))
        #expect(bare.transaction?.refund == .init(at: 1_700_000_900_000_000, amountMicros: nil))
        let reversed = try await decoder.decode(
            LocalNotification.line(
                type: "REFUND_REVERSED", uuid: "rr", signedDate: 1_700_001_000_000, transaction: LocalNotification.transaction(id: "5")))
        #expect(
            reversed.refundReversal
                == StoreRefundReversal(format: .appStoreNotifications, id: "rr", transactionID: "5", at: 1_700_001_000_000_000))
    }
}

@Suite struct AppStoreRecordCollectorTests {
    let decoder = AppStoreNotificationDecoder(bundleID: LocalNotification.bundleID, verifier: nil)

    @Test func eachTransactionOnceHoweverManyNotificationsCarryIt() async throws {
        let first = LocalNotification.transaction(id: "10", original: "10", expires: 1_702_000_000_000)
        let lines = [
            LocalNotification.line(type: "SUBSCRIBED", uuid: "n1", transaction: first),
            LocalNotification.line(type: "SUBSCRIBED", uuid: "n1", transaction: first),  // a retry
            LocalNotification.line(
                type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", uuid: "n2", transaction: first),
            LocalNotification.line(
                type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", uuid: "n2", transaction: first),  // a retry
            LocalNotification.line(
                type: "RENEWAL_EXTENDED", uuid: "n3",
                transaction: LocalNotification.transaction(id: "10", original: "10", expires: 1_703_000_000_000)),
            LocalNotification.line(
                type: "REFUND", uuid: "n4",
                transaction: LocalNotification.transaction(id: "10", original: "10", revocation: 1_701_000_000_000)),
            LocalNotification.line(type: "TEST", uuid: "n5"),
            LocalNotification.line(type: "TEST", uuid: "n5"),
            LocalNotification.line(type: "REFUND_REVERSED", uuid: "n6", transaction: first),
        ]
        var collector = AppStoreRecordCollector()
        for line in lines { collector.add(try await decoder.decode(line)) }
        #expect(collector.transactions.count == 1)
        let record = try #require(collector.transactions.first)
        #expect(record.refund == .init(at: 1_701_000_000_000_000, amountMicros: nil))
        #expect(record.expiresAt == 1_703_000_000_000_000)
        #expect(collector.statusChanges.map(\.id) == ["n2"])
        #expect(collector.refundReversals.map(\.id) == ["n6"])
        #expect(collector.counts[.ignoredStoreRecords] == 1)

        // Refunded again after the reversal: the later refund is the record's.
        collector.add(
            try await decoder.decode(
                LocalNotification.line(
                    type: "REFUND", uuid: "n7",
                    transaction: LocalNotification.transaction(id: "10", original: "10", revocation: 1_704_000_000_000))))
        #expect(collector.transactions.first?.refund == .init(at: 1_704_000_000_000_000, amountMicros: nil))
    }
}

@Suite struct AppStoreNotificationFileTests {
    @Test func aGzippedFileWithRetriesBlankLinesAndBadLines() async throws {
        let folder = try TemporaryFolder()
        let good = String(
            decoding: LocalNotification.line(type: "DID_RENEW", uuid: "a", transaction: LocalNotification.transaction(id: "1")),
            as: UTF8.self)
        let unknown = String(decoding: LocalNotification.line(type: "NEW_KIND", uuid: "b"), as: UTF8.self)
        // Two gzip members, the boundary inside line 3; CRLF endings; a blank line 2.
        let path = try folder.writeGzip(
            "day.jsonl.gz", members: [good + "\r\n\r\n{\"signedPay", "load\":\"x.y\"}\r\n" + unknown + "\n" + "not json"])
        let decoder = AppStoreNotificationDecoder(bundleID: LocalNotification.bundleID, verifier: nil)
        let reading = try await AppStoreNotificationFile.read(path: path, decoder: decoder)
        #expect(reading.counts[.linesRead] == 4)
        #expect(reading.notifications.map(\.id) == ["a", "b"])
        #expect(reading.counts[.malformedBadSignature] == 1 && reading.counts[.malformedInvalidJSON] == 1)
        #expect(reading.counts[.unknownNotificationTypes] == 1)
        #expect(reading.counts.malformedLines == 2)
        #expect(reading.notes.map(\.line) == [3, 4, 5])
        #expect(reading.notes.map(\.counter) == [.malformedBadSignature, .unknownNotificationTypes, .malformedInvalidJSON])
    }

    @Test func filesAreReadTogetherInPathOrder() async throws {
        let folder = try TemporaryFolder()
        func text(_ lines: [[UInt8]]) -> String { lines.map { String(decoding: $0, as: UTF8.self) + "\n" }.joined() }
        // The transaction's first delivery (day 1) names the user; a later one (day 2) its refund.
        let day1 = try folder.write(
            "2026/03/01.jsonl",
            text([
                LocalNotification.line(type: "SUBSCRIBED", uuid: "a", transaction: LocalNotification.transaction(id: "1", original: "1")),
                LocalNotification.line(type: "TEST", uuid: "t"),
            ]))
        let day2 = try folder.write(
            "2026/03/02.jsonl",
            text([
                LocalNotification.line(
                    type: "REFUND", uuid: "b",
                    transaction: LocalNotification.transaction(id: "1", original: "1", token: nil, revocation: 1_700_000_500_000)),
                Array("oops".utf8),
            ]))
        let decoder = AppStoreNotificationDecoder(bundleID: LocalNotification.bundleID, verifier: nil)
        var readings: [AppStoreFileReading] = []
        for day in [day1, day2] { readings.append(try await AppStoreNotificationFile.read(path: day, decoder: decoder)) }
        let records = AppStoreNotificationFile.records(readings)
        #expect(records.transactions.count == 1)
        #expect(records.transactions.first?.buyer.userID == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(records.counts[.linesRead] == 4 && records.counts[.ignoredStoreRecords] == 1 && records.counts[.malformedInvalidJSON] == 1)
        #expect(records.notes.map(\.path) == [day2])

        let resolution = StoreEventResolver.resolve(sources: [records], userTransactions: [:], asOf: .max)
        #expect(resolution.events.map(\.eventID) == ["app_store_notifications:1", "app_store_notifications:1:refund"])
        // The refund day 2 told goes with its transaction, which day 1 delivered first.
        #expect(resolution.events.map(\.sourcePath) == [day1, day1])
        #expect(resolution.counts[.appStoreNotifications]?[.linesRead] == 4)
    }

    @Test func aMissingFileIsAnError() async {
        let decoder = AppStoreNotificationDecoder(bundleID: LocalNotification.bundleID, verifier: nil)
        await #expect(throws: IngestError.self) { try await AppStoreNotificationFile.read(path: "/nonexistent/x.jsonl", decoder: decoder) }
    }
}
