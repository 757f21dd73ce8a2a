/// The event taxonomy of the purchase logs.
public enum EventType: UInt8, CaseIterable, Sendable, Codable {
    case paywallView
    case trialStart
    case purchase
    case renewal
    case refund
    case cancel
    case expire

    /// The name as written in the logs (`paywall_view`, `trial_start`, …): the taxonomy's one
    /// spelling, which the parser, the writers and the generator read.
    public var logName: String { staticLogName.description }

    public var staticLogName: StaticString {
        switch self {
        case .paywallView: "paywall_view"
        case .trialStart: "trial_start"
        case .purchase: "purchase"
        case .renewal: "renewal"
        case .refund: "refund"
        case .cancel: "cancel"
        case .expire: "expire"
        }
    }

    /// Events that carry a product and a transaction, and are deduplicated by transaction.
    public var isTransaction: Bool {
        switch self {
        case .trialStart, .purchase, .renewal, .refund: true
        default: false
        }
    }

    /// Events that must carry a price (a paid charge).
    public var requiresPrice: Bool { self == .purchase || self == .renewal }

    /// Events a refund can return money for: the paid charges. A refund naming any other
    /// transaction (a `trial_start`) is an orphan.
    public var isRefundable: Bool { requiresPrice }

    /// Events whose money counts in the results: the paid charges and the refunds of them.
    public var carriesMoney: Bool { requiresPrice || self == .refund }
}

extension EventType {
    /// The event type whose log name is exactly `bytes` (case-sensitive), or nil.
    @inline(__always)
    public init?(logName bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return nil }
        let p = base.assumingMemoryBound(to: UInt8.self)
        @inline(__always) func equals(_ name: StaticString) -> Bool {
            ShortBytes.equal(p, name.utf8Start, name.utf8CodeUnitCount)
        }
        switch bytes.count {
        // By length, then a byte that tells the names of one length apart: one comparison of the
        // bytes (a test holds every name to this switch).
        case 6:
            switch p[1] {
            case 0x65 where equals(Self.refund.staticLogName): self = .refund  // e
            case 0x61 where equals(Self.cancel.staticLogName): self = .cancel  // a
            case 0x78 where equals(Self.expire.staticLogName): self = .expire  // x
            default: return nil
            }
        case 7 where equals(Self.renewal.staticLogName): self = .renewal
        case 8 where equals(Self.purchase.staticLogName): self = .purchase
        case 11 where equals(Self.trialStart.staticLogName): self = .trialStart
        case 12 where equals(Self.paywallView.staticLogName): self = .paywallView
        default: return nil
        }
    }

    /// The event type whose log name is exactly `name`, or nil.
    public init?(logName name: String) {
        var name = name
        guard let type = name.withUTF8({ EventType(logName: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = type
    }
}
