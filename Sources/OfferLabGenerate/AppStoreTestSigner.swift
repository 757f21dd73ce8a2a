import Crypto
import Foundation
import OfferLabStoreSources
import SwiftASN1
import X509

/// Signs App Store data as Apple does, with a certificate chain of its own made like Apple's:
/// a root, an intermediate with Apple's WWDR OID, a leaf with the receipt-signing OID. For the
/// project's tests, fixtures and generated data sets, which trust its root (never Apple's).
package struct AppStoreTestSigner: Sendable {
    /// The root to give the verifier (`app_store.root_certificates`), DER.
    package let rootCertificateDER: [UInt8]
    /// `x5c` as the JWS header carries it: leaf, intermediate, root, each base64 DER.
    package let certificateChain: [String]
    private let leafKey: P256.Signing.PrivateKey
    /// The JWS header, base64url: the same for every signature of the chain.
    private let encodedHeader: String

    /// Which of Apple's OIDs the chain carries (tests leave one out to see it refused).
    package struct Options: Sendable {
        package var leafHasReceiptSignerOID = true
        package var intermediateHasWWDROID = true

        package init() {}
    }

    /// A new chain whose certificates are all valid from `validFrom` to `validUntil`.
    package init(validFrom: Date, validUntil: Date, options: Options = .init()) throws {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            OrganizationName("OfferLab tests")
            CommonName("OfferLab Test Root")
        }
        let intermediateName = try DistinguishedName {
            OrganizationName("OfferLab tests")
            CommonName("OfferLab Test Intermediate")
        }
        let leafName = try DistinguishedName {
            OrganizationName("OfferLab tests")
            CommonName("OfferLab Test Signer")
        }
        /// Apple's OIDs are marker extensions whose value is DER NULL.
        func marker(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension { .init(oid: oid, critical: false, value: [0x05, 0x00]) }

        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: validFrom, notValidAfter: validUntil,
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            }, issuerPrivateKey: .init(rootKey))
        var intermediateExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
        }
        if options.intermediateHasWWDROID { try intermediateExtensions.append(marker(AppStoreCertificatePolicy.intermediateOID)) }
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey), notValidBefore: validFrom,
            notValidAfter: validUntil, issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: intermediateExtensions, issuerPrivateKey: .init(rootKey))
        var leafExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
        }
        if options.leafHasReceiptSignerOID { try leafExtensions.append(marker(AppStoreCertificatePolicy.receiptSignerOID)) }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey), notValidBefore: validFrom, notValidAfter: validUntil,
            issuer: intermediateName, subject: leafName, signatureAlgorithm: .ecdsaWithSHA256, extensions: leafExtensions,
            issuerPrivateKey: .init(intermediateKey))

        func der(_ certificate: Certificate) throws -> [UInt8] {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
        rootCertificateDER = try der(root)
        certificateChain = try [leaf, intermediate, root].map { Data(try der($0)).base64EncodedString() }
        let header = #"{"alg":"ES256","x5c":["# + certificateChain.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
        encodedHeader = Self.base64URL(Array(header.utf8))
    }

    /// `payload` (JSON) as a compact JWS signed ES256 by the leaf, the chain in its header.
    package func sign(_ payload: String) throws -> String {
        let signingInput = encodedHeader + "." + Self.base64URL(Array(payload.utf8))
        let signature = try leafKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Self.base64URL(Array(signature.rawRepresentation))
    }

    /// Base64url without padding, byte by byte (Foundation's string replacing is most of the cost
    /// of signing a generated data set's notifications, whose payloads hold the nested JWS).
    static func base64URL(_ bytes: [UInt8]) -> String {
        var encoded = Array(Data(bytes).base64EncodedData())
        while encoded.last == UInt8(ascii: "=") { encoded.removeLast() }
        for index in encoded.indices {
            if encoded[index] == UInt8(ascii: "+") {
                encoded[index] = UInt8(ascii: "-")
            } else if encoded[index] == UInt8(ascii: "/") {
                encoded[index] = UInt8(ascii: "_")
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
