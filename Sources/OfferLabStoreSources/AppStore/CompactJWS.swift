import OfferLabIngest
import Synchronization

/// A compact JWS (`header.payload.signature`, each base64url) as App Store Server Notifications
/// V2 carry it: the outer `signedPayload` and the nested `signedTransactionInfo` and
/// `signedRenewalInfo` (docs/input-formats.md#verification).
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

    /// The header fields that matter.
    public struct Header: Sendable, Equatable {
        /// `alg`.
        public var algorithm: String?
        /// `x5c`: base64 (not base64url) DER certificates, leaf first.
        public var certificateChain: [String]?
    }

    public var header: Header
    /// The header's `alg`.
    public var algorithm: String? { header.algorithm }
    /// The header's `x5c`.
    public var certificateChain: [String]? { header.certificateChain }
    /// The decoded payload (JSON, not yet looked at).
    public var payload: [UInt8]
    /// The bytes the signature covers: `header.payload` as written.
    public var signingInput: [UInt8]
    /// The raw signature (for ES256: r||s).
    public var signature: [UInt8]

    /// Splits and decodes `text`; the header is read (or found in `headers`), the payload left as
    /// bytes.
    public init(_ text: String, headers: JWSHeaderCache? = nil) throws(FormatError) {
        var text = text
        let parsed = text.withUTF8 { bytes in Result { () throws(FormatError) in try CompactJWS(bytes, headers: headers) } }
        self = try parsed.get()
    }

    private init(_ text: UnsafeBufferPointer<UInt8>, headers: JWSHeaderCache?) throws(FormatError) {
        let dot = UInt8(ascii: ".")
        guard let first = text.firstIndex(of: dot) else { throw .segmentCount(1) }
        guard let second = text[(first + 1)...].firstIndex(of: dot) else { throw .segmentCount(2) }
        if text[(second + 1)...].contains(dot) { throw .segmentCount(3 + text[(second + 1)...].lazy.filter { $0 == dot }.count) }
        let headerText = UnsafeBufferPointer(rebasing: text[..<first])
        guard let payload = Base64.decode(UnsafeBufferPointer(rebasing: text[(first + 1)..<second]), urlSafe: true) else {
            throw .badBase64(segment: "payload")
        }
        guard let signature = Base64.decode(UnsafeBufferPointer(rebasing: text[(second + 1)...]), urlSafe: true) else {
            throw .badBase64(segment: "signature")
        }
        if let headers { header = try headers.header(headerText) } else { header = try Self.header(headerText) }
        self.payload = payload
        signingInput = Array(text[..<second])
        self.signature = signature
    }

    /// Decodes and reads a header segment.
    fileprivate static func header(_ text: UnsafeBufferPointer<UInt8>) throws(FormatError) -> Header {
        guard let json = Base64.decode(text, urlSafe: true) else { throw .badBase64(segment: "header") }
        // As a decoder of typed fields would: a field of another type makes the header unreadable.
        guard let fields = StoreJSONObject.members(json) else { throw .headerNotJSON }
        var algorithm: String?
        if let value = fields["alg"], value != .null {
            guard let text = value.string else { throw .headerNotJSON }
            algorithm = text
        }
        var certificateChain: [String]?
        if let value = fields["x5c"], value != .null {
            guard case .array(let items) = value else { throw .headerNotJSON }
            certificateChain = try items.map { (item) throws(FormatError) in
                guard let text = item.string else { throw .headerNotJSON }
                return text
            }
        }
        return Header(algorithm: algorithm, certificateChain: certificateChain)
    }

    /// The checks of Apple's libraries before the chain: ES256, exactly three certificates,
    /// a 64-byte signature.
    public func checkAppleHeader() throws(FormatError) {
        guard algorithm == "ES256" else { throw .algorithm(algorithm) }
        guard let chain = certificateChain, chain.count == 3 else { throw .certificateCount(certificateChain?.count) }
        guard signature.count == 64 else { throw .signatureLength(signature.count) }
    }
}

/// The headers of JWS already read, by their base64url text: Apple signs a month of data with a
/// few chains, so nearly every header (two thirds of a notification's bytes, the `x5c`
/// certificates) is one seen before, and is looked up instead of decoded. Safe to share between
/// tasks; it keeps at most `capacity` headers, so that data with ever new headers costs no memory.
public final class JWSHeaderCache: Sendable {
    /// By the header's text (a `String` hashes its bytes in bulk, an array byte by byte).
    private let headers = Mutex<[String: CompactJWS.Header]>([:])
    private let capacity: Int

    public init(capacity: Int = 256) { self.capacity = capacity }

    fileprivate func header(_ text: UnsafeBufferPointer<UInt8>) throws(CompactJWS.FormatError) -> CompactJWS.Header {
        let key = String(decoding: text, as: UTF8.self)
        if let known = headers.withLock({ $0[key] }) { return known }
        let header = try CompactJWS.header(text)
        headers.withLock { table in
            if table.count < capacity { table[key] = header }
        }
        return header
    }
}
