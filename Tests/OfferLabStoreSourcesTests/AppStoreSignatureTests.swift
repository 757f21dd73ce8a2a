import Foundation
import Testing

@testable import OfferLabStoreSources

/// Verification as Apple's App Store Server Library does it, on Apple's own test data
/// (`shared/realdata/apple`): the mock signed data chains to `certs/testCA.der`.
@Suite struct AppStoreSignatureTests {
    let testCAVerifier: AppStoreSignatureVerifier

    init() throws {
        testCAVerifier = try AppStoreSignatureVerifier(rootCertificates: [RealData.bytes(RealData.testCA)])
    }

    /// The JWS of a mock file and its payload's `signedDate` in microseconds.
    func mock(_ name: String) throws -> (jws: CompactJWS, signedAt: Int64) {
        let text = try RealData.text("app-store-server-library/mock_signed_data/\(name)")
        return (try CompactJWS(text), try signedDate(TestJWS.payload(text)))
    }

    /// The payload's `signedDate`; `wrongBundleId` has none (Apple's library then checks at the
    /// current time): the date of `testNotification`, signed by the same chain.
    func signedDate(_ payload: String) throws -> Int64 {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
        return ((object["signedDate"] as? NSNumber)?.int64Value ?? 1_681_314_324_000) * 1000
    }

    func failure(_ verifier: AppStoreSignatureVerifier, _ jws: CompactJWS, at signedAt: Int64) async -> AppStoreSignatureVerifier.Failure? {
        do {
            try await verifier.verify(jws, signedAt: signedAt)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: ["testNotification", "transactionInfo", "renewalInfo", "wrongBundleId"])
    func appleMockSignedDataVerifiesAgainstTheTestCA(name: String) async throws {
        let (jws, signedAt) = try mock(name)
        #expect(await failure(testCAVerifier, jws, at: signedAt) == nil)
    }

    @Test func theChainsOwnThirdCertificateIsNeverTrusted() async throws {
        // testNotification's x5c[2] is an older test root with the same key as testCA.der: a
        // verifier trusting x5c[2] would accept it with Apple's root alone.
        let appleOnly = try AppStoreSignatureVerifier(rootCertificates: [RealData.bytes(RealData.appleRootG3)])
        let (jws, signedAt) = try mock("testNotification")
        guard case .untrustedChain = await failure(appleOnly, jws, at: signedAt) else {
            Issue.record("a chain to the test CA passed with Apple's root only")
            return
        }
    }

    @Test func aSignatureVerifiedBeforeDoesNotVouchForAnother() async throws {
        let (jws, signedAt) = try mock("testNotification")
        #expect(await failure(testCAVerifier, jws, at: signedAt) == nil)
        #expect(await failure(testCAVerifier, jws, at: signedAt) == nil)
        // The same signed bytes with another signature.
        var forged = jws
        forged.signature[10] ^= 1
        #expect(await failure(testCAVerifier, forged, at: signedAt) == .signatureMismatch)
    }

    @Test func aChangedPayloadFailsTheSignature() async throws {
        let text = try RealData.text("app-store-server-library/mock_signed_data/testNotification")
        let changed = TestJWS.replacingPayload(
            text, with: TestJWS.payload(text).replacingOccurrences(of: "com.example", with: "com.example.other"))
        let jws = try CompactJWS(changed)
        #expect(await failure(testCAVerifier, jws, at: 1_681_314_324_000_000) == .signatureMismatch)
    }

    /// A JWS with a zero signature over the given chain: the chain is judged before the signature.
    func zeroSigned(_ pemFiles: [String]) throws -> CompactJWS {
        let x5c = try pemFiles.map { try RealData.pemBody("app-store-server-library/certs/\($0)") }
        return try CompactJWS(TestJWS.unsigned(header: TestJWS.header(x5c: x5c), payload: "{}"))
    }

    @Test func appleTestCertificatesWithTheWrongOIDsAreRefused() async throws {
        let at: Int64 = 1_681_314_324_000_000
        let validChain = try zeroSigned(["testLeaf.pem", "testIntermediate.pem", "testCA.pem"])
        #expect(await failure(testCAVerifier, validChain, at: at) == .signatureMismatch)

        let wrongLeaf = try zeroSigned(["testInvalidOIDLeaf.pem", "testIntermediate.pem", "testCA.pem"])
        let leafFailure = await failure(testCAVerifier, wrongLeaf, at: at)
        // The failure is an untrusted chain; only its reason says which OID is missing.
        #expect(untrustedChainReason(leafFailure)?.contains("1.2.840.113635.100.6.11.1") == true, "\(String(describing: leafFailure))")

        let wrongIntermediate = try zeroSigned(["testInvalidIntermediateLeaf.pem", "testInvalidOIDIntermediate.pem", "testCA.pem"])
        let intermediateFailure = await failure(testCAVerifier, wrongIntermediate, at: at)
        #expect(
            untrustedChainReason(intermediateFailure)?.contains("1.2.840.113635.100.6.2.1") == true,
            "\(String(describing: intermediateFailure))")
    }

    /// The reason of an `untrustedChain` failure; nil for any other outcome.
    func untrustedChainReason(_ failure: AppStoreSignatureVerifier.Failure?) -> String? {
        guard case .untrustedChain(let reason) = failure else { return nil }
        return reason
    }

    @Test func certificatesAreCheckedAtTheSignedDate() async throws {
        let (jws, _) = try mock("testNotification")
        // The test certificates are valid from 2023-01-05 to 2033-01-01.
        let before = Int64(1_640_995_200) * 1_000_000  // 2022-01-01
        let after = Int64(2_051_222_400) * 1_000_000  // 2035-01-01
        for at in [before, after] {
            guard case .notValidAtSignedDate = await failure(testCAVerifier, jws, at: at) else {
                Issue.record("a chain outside its validity passed at \(at)")
                continue
            }
        }
    }

    @Test func appleRealChainLeadsToTheCompiledInAppleRootG3() async throws {
        #expect(AppStoreSignatureVerifier.appleRootCAG3DER == (try RealData.bytes(RealData.appleRootG3)))
        let verifier = try AppStoreSignatureVerifier(rootCertificates: [AppStoreSignatureVerifier.appleRootCAG3DER])
        let x5c = try ["ProdECCReceiptSigning-2025.cer", "AppleWWDRCAG6.cer", "AppleRootCA-G3.cer"].map {
            Data(try RealData.bytes("real-apple-chain/\($0)")).base64EncodedString()
        }
        let jws = try CompactJWS(TestJWS.unsigned(header: TestJWS.header(x5c: x5c), payload: "{}"))
        // The date Apple's own test uses: the chain holds, so only the (zero) signature fails.
        #expect(await failure(verifier, jws, at: 1_761_962_975_000_000) == .signatureMismatch)
        // Before the 2025 leaf was issued.
        guard case .notValidAtSignedDate = await failure(verifier, jws, at: 1_704_067_200_000_000) else {
            Issue.record("the 2025 leaf passed in 2024")
            return
        }
    }

    @Test func headersOtherThanApplesAreRefused() async throws {
        let x5c = try ["testLeaf.pem", "testIntermediate.pem", "testCA.pem"].map {
            try RealData.pemBody("app-store-server-library/certs/\($0)")
        }
        let cases: [(String, CompactJWS.FormatError)] = [
            (TestJWS.unsigned(header: #"{"alg":"HS256","x5c":[]}"#, payload: "{}"), .algorithm("HS256")),
            (TestJWS.unsigned(header: TestJWS.header(x5c: Array(x5c.prefix(2))), payload: "{}"), .certificateCount(2)),
            (TestJWS.unsigned(header: TestJWS.header(x5c: x5c + x5c.prefix(1)), payload: "{}"), .certificateCount(4)),
            (try RealData.text("app-store-server-library/mock_signed_data/missingX5CHeaderClaim"), .certificateCount(nil)),
        ]
        for (text, expected) in cases {
            let jws = try CompactJWS(text)
            #expect(await failure(testCAVerifier, jws, at: 1_681_314_324_000_000) == .format(expected))
        }
        #expect(throws: CompactJWS.FormatError.segmentCount(2)) { try CompactJWS("abc.def") }
        #expect(throws: CompactJWS.FormatError.badBase64(segment: "payload")) { try CompactJWS("e30.e$0.AA") }
        #expect(throws: CompactJWS.FormatError.headerNotJSON) { try CompactJWS("bm90.e30.AA") }
    }

    @Test func aRootCertificateThatIsNoCertificateIsNamedByPosition() throws {
        #expect(throws: AppStoreSignatureVerifier.UnreadableRootCertificate.self) {
            try AppStoreSignatureVerifier(rootCertificates: [RealData.bytes(RealData.testCA), Array("not a certificate".utf8)])
        }
        let roots = [try RealData.bytes(RealData.testCA), [1, 2, 3]]
        do throws(AppStoreSignatureVerifier.UnreadableRootCertificate) {
            _ = try AppStoreSignatureVerifier(rootCertificates: roots)
            Issue.record("a root of three bytes was read")
        } catch {
            #expect(error.index == 1)
        }
        // PEM is read as well as DER.
        _ = try AppStoreSignatureVerifier(rootCertificates: [RealData.bytes("app-store-server-library/certs/testCA.pem")])
    }

    @Test func manyTasksShareOneVerifier() async throws {
        let (jws, signedAt) = try mock("testNotification")
        let text = try RealData.text("app-store-server-library/mock_signed_data/testNotification")
        let tampered = try CompactJWS(TestJWS.replacingPayload(text, with: "{}"))
        let verifier = testCAVerifier
        let outcomes = await withTaskGroup(of: (Bool, Bool).self) { group in
            for index in 0..<64 {
                group.addTask {
                    let good = index.isMultiple(of: 2) ? jws : tampered
                    do {
                        try await verifier.verify(good, signedAt: signedAt)
                        return (index.isMultiple(of: 2), true)
                    } catch {
                        return (index.isMultiple(of: 2), false)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 64)
        #expect(outcomes.allSatisfy { $0.0 == $0.1 })
    }
}
