/// The event taxonomy of the purchase logs.
public enum EventType: UInt8, CaseIterable, Sendable {
    case paywallView
    case trialStart
    case purchase
    case renewal
    case refund
    case cancel
    case expire

    /// The name as written in the logs (`paywall_view`, `trial_start`, …).
    public var logName: String {
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
}
