import Crypto
import Foundation
import SwiftASN1
import Synchronization
@_spi(DisableValidityCheck) @_spi(FixedExpiryValidationTime) import X509

/// Verifies the signed data of App Store Server Notifications V2 as Apple's App Store Server
/// Library does (docs/input-formats.md#verification), with swift-certificates' `Verifier` and
/// swift-crypto's P-256: ES256 only, exactly three `x5c` certificates, the chain `x5c[0]` →
/// `x5c[1]` → one of the job's root certificates (`x5c[2]` is never trusted), Apple's OIDs on the
/// leaf and the intermediate, every certificate valid at the payload's `signedDate`, the signature
/// by the leaf's key.
///
/// A month of notifications is signed by a handful of certificate chains, so each distinct chain
/// (the `x5c` text of leaf and intermediate) is built and checked once per verifier and kept with
/// the time window in which all its certificates are valid; a signature then costs one P-256
/// verification, and a signature seen again over the same bytes (a notification Apple delivered
/// again) costs none. The verifier is safe to use from many tasks at once.
public final class AppStoreSignatureVerifier: Sendable {
    /// Why signed data was refused: every case is `malformed_bad_signature` in the counters.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case format(CompactJWS.FormatError)
        /// The chain does not lead to a root certificate of the job under Apple's rules.
        case untrustedChain(String)
        /// The chain is trusted, but a certificate of it was not valid at `signedDate`.
        case notValidAtSignedDate(String)
        /// The signature does not verify with the leaf's key.
        case signatureMismatch

        public var description: String {
            switch self {
            case .format(let error): error.description
            case .untrustedChain(let reason): "certificate chain refused: \(reason)"
            case .notValidAtSignedDate(let reason): "certificate chain not valid at signedDate: \(reason)"
            case .signatureMismatch: "the ES256 signature does not verify with the leaf certificate's key"
            }
        }
    }

    /// A root certificate file that is neither DER nor PEM X.509.
    public struct UnreadableRootCertificate: Error, Equatable, Sendable {
        /// The position of the certificate in the list given.
        public var index: Int
        public var reason: String
    }

    private let roots: CertificateStore
    private let chains = Mutex<[ChainKey: ChainEntry]>([:])
    /// Signatures that verified, each by a digest of the signed bytes' digest and the signature;
    /// emptied when it reaches `verifiedSignatureCapacity` (retries come within days).
    private let verifiedSignatures = Mutex<Set<SHA256Digest>>([])
    private static let verifiedSignatureCapacity = 1 << 20
    /// The chains built and checked (`establish`, `validate`) and the P-256 verifications made so
    /// far: what tests count to see that each is done once.
    let workDone = Mutex<(chains: Int, signatures: Int)>((0, 0))

    /// - Parameter rootCertificates: the trusted roots, each DER or PEM (for Apple: Apple Root
    ///   CA - G3).
    public init(rootCertificates: [[UInt8]]) throws(UnreadableRootCertificate) {
        var parsed: [Certificate] = []
        for (index, bytes) in rootCertificates.enumerated() {
            do {
                // PEM files often carry a text dump of the certificate before it.
                let text = String(decoding: bytes, as: UTF8.self)
                if let begin = text.range(of: "-----BEGIN CERTIFICATE-----") {
                    parsed.append(try Certificate(pemEncoded: String(text[begin.lowerBound...])))
                } else {
                    parsed.append(try Certificate(derEncoded: bytes))
                }
            } catch {
                throw UnreadableRootCertificate(index: index, reason: "not an X.509 certificate (DER or PEM): \(error)")
            }
        }
        roots = CertificateStore(parsed)
    }

    /// Checks `jws`, whose payload says it was signed at `signedAt` (microseconds since the
    /// epoch): throws why it is refused.
    public func verify(_ jws: CompactJWS, signedAt: Int64) async throws(Failure) {
        do { try jws.checkAppleHeader() } catch { throw .format(error) }
        guard let x5c = jws.certificateChain else { throw .format(.certificateCount(nil)) }
        let trust = await trust(for: ChainKey(leaf: x5c[0], intermediate: x5c[1]))
        let key: P256.Signing.PublicKey
        switch trust {
        case .refused(let reason):
            throw .untrustedChain(reason)
        case .trusted(let chain) where chain.validity.contains(signedAt):
            key = chain.leafKey
        case .trusted(let chain):
            // Outside the window of the chain found first: another root of the job with the same
            // name and key but other dates may still make it valid, so build it again at that time.
            workDone.withLock { $0.chains += 1 }
            key = try await Self.validate(chain.leaf, chain.intermediate, roots: roots, at: signedAt)
        }
        let digest = SHA256.hash(data: jws.signingInput)
        let seen = SHA256.hash(data: Array(digest) + jws.signature)
        if verifiedSignatures.withLock({ $0.contains(seen) }) { return }
        workDone.withLock { $0.signatures += 1 }
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature),
            key.isValidSignature(signature, for: digest)
        else { throw .signatureMismatch }
        verifiedSignatures.withLock { verified in
            if verified.count >= Self.verifiedSignatureCapacity { verified.removeAll(keepingCapacity: true) }
            verified.insert(seen)
        }
    }

    /// The settled trust of a chain: built once, by the first task that asks; the others wait for it.
    private func trust(for key: ChainKey) async -> ChainTrust {
        let entry = chains.withLock { table -> ChainEntry in
            if let entry = table[key] { return entry }
            let roots = roots
            workDone.withLock { $0.chains += 1 }
            let task = Task { await Self.establish(key, roots: roots) }
            table[key] = .pending(task)
            return .pending(task)
        }
        switch entry {
        case .settled(let trust):
            return trust
        case .pending(let task):
            let trust = await task.value
            chains.withLock { $0[key] = .settled(trust) }
            return trust
        }
    }

    /// Builds the chain under Apple's rules without looking at dates, and notes the window in
    /// which every certificate of it is valid.
    private static func establish(_ key: ChainKey, roots: CertificateStore) async -> ChainTrust {
        guard let leaf = certificate(key.leaf) else { return .refused("x5c[0] is not a base64 DER certificate") }
        guard let intermediate = certificate(key.intermediate) else { return .refused("x5c[1] is not a base64 DER certificate") }
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy.withValidityCheckDisabled()
            AppStoreCertificatePolicy()
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate])) {
        case .validCertificate(let chain):
            guard let leafKey = P256.Signing.PublicKey(leaf.publicKey) else { return .refused("the leaf's key is not P-256") }
            let from = chain.map { microseconds($0.notValidBefore) }.max() ?? .min
            let until = chain.map { microseconds($0.notValidAfter) }.min() ?? .max
            guard from <= until else { return .refused("the certificates' validity periods do not overlap") }
            return .trusted(TrustedChain(leaf: leaf, intermediate: intermediate, leafKey: leafKey, validity: from...until))
        case .couldNotValidate(let failures):
            return .refused(
                failures.first.map { $0.policyFailureReason.description } ?? "it does not lead to a root certificate of the job")
        }
    }

    /// The full check at one time, dates included: the leaf's key, or why not.
    private static func validate(
        _ leaf: Certificate, _ intermediate: Certificate, roots: CertificateStore, at time: Int64
    ) async throws(Failure) -> P256.Signing.PublicKey {
        let date = Date(timeIntervalSince1970: Double(time) / 1_000_000)
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: date)
            AppStoreCertificatePolicy()
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate])) {
        case .validCertificate:
            guard let key = P256.Signing.PublicKey(leaf.publicKey) else { throw .untrustedChain("the leaf's key is not P-256") }
            return key
        case .couldNotValidate(let failures):
            throw .notValidAtSignedDate(failures.first.map { $0.policyFailureReason.description } ?? "no chain at \(date)")
        }
    }

    private static func certificate(_ base64: String) -> Certificate? {
        guard let der = Base64.decode(base64, urlSafe: false) else { return nil }
        return try? Certificate(derEncoded: der)
    }

    private static func microseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded(.down)
        return value >= 9.2e18 ? .max : value <= -9.2e18 ? .min : Int64(value)
    }
}

/// Apple's own rule on top of RFC 5280: leaf, intermediate and root, the leaf a receipt signer,
/// the intermediate Apple's WWDR intermediate. `package`: the generator's test signer marks its
/// chain with the same OIDs.
package struct AppStoreCertificatePolicy: VerifierPolicy {
    package static let receiptSignerOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    package static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]

    package let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    package func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == 3 else { return .failsToMeetPolicy(reason: "the chain has \(chain.count) certificates, not 3") }
        guard chain[0].extensions.contains(where: { $0.oid == Self.receiptSignerOID }) else {
            return .failsToMeetPolicy(reason: "the leaf lacks Apple's receipt-signing OID 1.2.840.113635.100.6.11.1")
        }
        guard chain[1].extensions.contains(where: { $0.oid == Self.intermediateOID }) else {
            return .failsToMeetPolicy(reason: "the intermediate lacks Apple's WWDR OID 1.2.840.113635.100.6.2.1")
        }
        return .meetsPolicy
    }
}

private struct ChainKey: Hashable, Sendable {
    var leaf: String
    var intermediate: String
}

private struct TrustedChain: Sendable {
    var leaf: Certificate
    var intermediate: Certificate
    var leafKey: P256.Signing.PublicKey
    /// Microseconds since the epoch in which every certificate of the chain is valid.
    var validity: ClosedRange<Int64>
}

private enum ChainTrust: Sendable {
    case trusted(TrustedChain)
    case refused(String)
}

private enum ChainEntry: Sendable {
    case pending(Task<ChainTrust, Never>)
    case settled(ChainTrust)
}
