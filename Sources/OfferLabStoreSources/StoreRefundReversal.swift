/// A store's word that the refund of a transaction was reversed (App Store `REFUND_REVERSED`,
/// RevenueCat's `REFUND_REVERSED`): when it was said before `as_of`, the refund does not count,
/// whatever source reported it.
public struct StoreRefundReversal: Sendable, Equatable {
    public var format: SourceFormat
    /// The notification's or webhook's own id (retries merged).
    public var id: String
    public var transactionID: String
    /// When the store said so: microseconds since the epoch, UTC.
    public var at: Int64

    // Written out because the cache (OfferLabEvents) makes one, and the synthesized init is internal.
    public init(format: SourceFormat, id: String, transactionID: String, at: Int64) {
        self.format = format
        self.id = id
        self.transactionID = transactionID
        self.at = at
    }
}
