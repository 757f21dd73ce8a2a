/// A compact JWS (`header.payload.signature`, each base64url) as App Store Server Notifications
/// V2 carry it: the outer `signedPayload` and the nested `signedTransactionInfo` and
/// `signedRenewalInfo` (contract §1.6).
public struct CompactJWS: Sendable {
    /// Why a text is not a compact JWS with the header Apple signs with.
    public enum FormatError: Error, Equatable, Sendable, CustomStringConvertible {
        case segmentCount(Int)
        case badBase64(segment: String)
        case headerNotJSON
        case algorithm(String?)
        case certificateCount(Int?)
        case signatureLength(Int)

        public var description: String {
            switch self {
            case .segmentCount(let count): "a compact JWS has 3 segments, this one \(count)"
            case .badBase64(let segment): "the JWS \(segment) is not base64url"
            case .headerNotJSON: "the JWS header is not a JSON object"
            case .algorithm(let name): "the JWS algorithm is \(name.map { "'\($0)'" } ?? "absent"), not ES256"
            case .certificateCount(let count): "the JWS header's x5c holds \(count.map(String.init) ?? "no") certificates, not 3"
            case .signatureLength(let count): "an ES256 signature is 64 bytes (r||s), this one \(count)"
            }
        }
    }

    /// The header's `alg`.
    public var algorithm: String?
    /// The header's `x5c`: base64 (not base64url) DER certificates, leaf first.
    public var certificateChain: [String]?
    /// The decoded payload (JSON, not yet looked at).
    public var payload: [UInt8]
    /// The bytes the signature covers: `header.payload` as written.
    public var signingInput: [UInt8]
    /// The raw signature (for ES256: r||s).
    public var signature: [UInt8]

    /// Splits and decodes `text`; the header is read, the payload left as bytes.
    public init(_ text: Substring.UTF8View) throws(FormatError) {
        let dots = text.indices.filter { text[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else { throw .segmentCount(dots.count + 1) }
        let headerText = text[text.startIndex..<dots[0]]
        let payloadText = text[text.index(after: dots[0])..<dots[1]]
        let signatureText = text[text.index(after: dots[1])...]
        guard let header = Base64.decode(headerText, urlSafe: true) else { throw .badBase64(segment: "header") }
        guard let payload = Base64.decode(payloadText, urlSafe: true) else { throw .badBase64(segment: "payload") }
        guard let signature = Base64.decode(signatureText, urlSafe: true) else { throw .badBase64(segment: "signature") }
        guard let fields = JSONHeader(header) else { throw .headerNotJSON }
        self.algorithm = fields.algorithm
        self.certificateChain = fields.certificateChain
        self.payload = payload
        self.signingInput = Array(text[text.startIndex..<dots[1]])
        self.signature = signature
    }

    /// The checks of Apple's libraries before the chain: ES256, exactly three certificates,
    /// a 64-byte signature.
    public func checkAppleHeader() throws(FormatError) {
        guard algorithm == "ES256" else { throw .algorithm(algorithm) }
        guard let chain = certificateChain, chain.count == 3 else { throw .certificateCount(certificateChain?.count) }
        guard signature.count == 64 else { throw .signatureLength(signature.count) }
    }
}

/// The two header fields that matter, read with Foundation's JSON parser.
private struct JSONHeader: Decodable {
    var algorithm: String?
    var certificateChain: [String]?

    enum CodingKeys: String, CodingKey {
        case algorithm = "alg"
        case certificateChain = "x5c"
    }

    init?(_ bytes: [UInt8]) {
        guard let decoded = try? StoreJSON.decode(JSONHeader.self, from: bytes) else { return nil }
        self = decoded
    }
}
