import OfferLabStoreSources

extension StoreTransaction {
    /// The transaction with an end of period and a refund, as a test writes a record whole.
    func with(expiresAt: Int64? = nil, refund: Refund? = nil) -> StoreTransaction {
        var transaction = self
        transaction.expiresAt = expiresAt
        transaction.refund = refund
        return transaction
    }
}
