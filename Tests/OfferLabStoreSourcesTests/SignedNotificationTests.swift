import Foundation
import OfferLabGenerate
import Testing

@testable import OfferLabStoreSources

/// Notifications signed end to end by a chain of the project's own (made like Apple's), the
/// nested transaction and renewal info signed too.
@Suite struct SignedNotificationTests {
    static let from = Date(timeIntervalSince1970: 1_600_000_000)
    static let until = Date(timeIntervalSince1970: 1_900_000_000)
    let signer: AppStoreSignerFixture

    init() throws { signer = try AppStoreSignerFixture(try AppStoreTestSigner(validFrom: Self.from, validUntil: Self.until)) }

    @Test func aFullySignedNotificationDecodes() async throws {
        let line = try signer.line(transaction: LocalNotification.transaction(id: "7", environment: "Production"))
        let notification = try await signer.decoder.decode(line)
        #expect(notification.transaction?.transactionID == "7" && notification.transaction?.buyer.isSandbox == false)
        #expect(notification.transaction?.money.priceMicros == 9_990_000 && notification.transaction?.buyer.country == "DE")
    }

    /// Each distinct chain is built and checked once per verifier, however many tasks ask for it
    /// at once, and each signature is checked once, however often the notification is delivered.
    @Test func eachChainAndEachSignatureIsVerifiedOnce() async throws {
        // Three signatures a line (the notification, its transaction, its renewal info).
        let lines = try (0..<8).map { index in
            try signer.line(transaction: LocalNotification.transaction(id: "\(index)", environment: "Production"), uuid: "n-\(index)")
        }
        let decoder = signer.decoder
        func decodeAll(_ lines: [[UInt8]]) async -> Int {
            await withTaskGroup(of: Bool.self) { group in
                for line in lines { group.addTask { (try? await decoder.decode(line)) != nil } }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        #expect(await decodeAll(lines) == 8)
        // Delivered again, four times each.
        #expect(await decodeAll(Array(repeating: lines, count: 4).flatMap { $0 }) == 32)
        let work = try #require(decoder.verifier).workDone.withLock { $0 }
        #expect(work.chains == 1 && work.signatures == 24)
    }

    @Test func aForgedNestedTransactionIsABadSignature() async throws {
        let signed = try signer.signer.sign(LocalNotification.transaction(id: "7", price: 9990, environment: "Production"))
        // The price changed after signing: the outer signature holds, the nested one does not.
        let forged = TestJWS.replacingPayload(signed, with: LocalNotification.transaction(id: "7", price: 1, environment: "Production"))
        let line = try signer.line(signedTransaction: forged)
        do {
            _ = try await signer.decoder.decode(line)
            Issue.record("a forged transaction passed")
        } catch {
            #expect(error.counter == .malformedBadSignature && error.detail.hasPrefix("signedTransactionInfo"))
        }
        // An unsigned nested transaction claiming Production inside a signed notification.
        let unsigned = try signer.line(
            signedTransaction: TestJWS.unsigned(payload: LocalNotification.transaction(id: "7", environment: "Production")))
        await #expect(
            throws: StoreLineRejection(.malformedBadSignature, "signedTransactionInfo: the JWS header's x5c holds no certificates, not 3")
        ) {
            try await signer.decoder.decode(unsigned)
        }
    }

    @Test func aNotificationSignedAfterItsLeafExpiredIsABadSignature() async throws {
        // The chain is valid until 2030-03-17; signed in 2031.
        let line = try signer.line(
            signedTransaction: try signer.signer.sign(LocalNotification.transaction(id: "7", environment: "Production")),
            signedDate: 1_924_992_000_000)
        do {
            _ = try await signer.decoder.decode(line)
            Issue.record("a notification signed by an expired chain passed")
        } catch {
            #expect(error.counter == .malformedBadSignature && error.detail.contains("not valid at signedDate"), "\(error.detail)")
        }
    }

    @Test func chainsWithoutApplesOIDsAreRefused() async throws {
        for options in [AppStoreTestSigner.Options.withoutLeafOID, .withoutIntermediateOID] {
            let other = try AppStoreSignerFixture(try AppStoreTestSigner(validFrom: Self.from, validUntil: Self.until, options: options))
            let line = try other.line(transaction: LocalNotification.transaction(id: "7", environment: "Production"))
            do {
                _ = try await other.decoder.decode(line)
                Issue.record("a chain without Apple's OIDs passed")
            } catch {
                #expect(error.counter == .malformedBadSignature && error.detail.contains("OID"))
            }
        }
    }

    @Test func aChainOfAnotherRootIsRefused() async throws {
        let stranger = try AppStoreTestSigner(validFrom: Self.from, validUntil: Self.until)
        let line = try AppStoreSignerFixture(stranger).line(transaction: LocalNotification.transaction(id: "7", environment: "Production"))
        do {
            _ = try await signer.decoder.decode(line)
            Issue.record("a chain to another root passed")
        } catch {
            #expect(error.counter == .malformedBadSignature)
        }
    }
}

extension AppStoreTestSigner.Options {
    static var withoutLeafOID: Self {
        var options = Self()
        options.leafHasReceiptSignerOID = false
        return options
    }

    static var withoutIntermediateOID: Self {
        var options = Self()
        options.intermediateHasWWDROID = false
        return options
    }
}

/// A signer and a decoder that trusts its root.
struct AppStoreSignerFixture {
    let signer: AppStoreTestSigner
    let decoder: AppStoreNotificationDecoder

    init(_ signer: AppStoreTestSigner) throws {
        self.signer = signer
        decoder = AppStoreNotificationDecoder(
            bundleID: LocalNotification.bundleID, verifier: try AppStoreSignatureVerifier(rootCertificates: [signer.rootCertificateDER]))
    }

    func line(transaction: String, uuid: String = "n-1") throws -> [UInt8] {
        try line(signedTransaction: try signer.sign(transaction), uuid: uuid)
    }

    func line(signedTransaction: String, type: String = "DID_RENEW", uuid: String = "n-1", signedDate: Int64 = 1_700_000_100_000) throws
        -> [UInt8]
    {
        let renewal = try signer.sign(
            #"{"originalTransactionId":"1000","productId":"pro.monthly","signedDate":\#(signedDate),"environment":"Production"}"#)
        let payload = """
            {"notificationType":"\(type)","notificationUUID":"\(uuid)","signedDate":\(signedDate),"data":{"bundleId":"\(LocalNotification.bundleID)",\
            "environment":"Production","signedTransactionInfo":"\(signedTransaction)","signedRenewalInfo":"\(renewal)"}}
            """
        return TestJWS.line(try signer.sign(payload))
    }
}
