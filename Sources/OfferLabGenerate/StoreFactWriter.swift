/// Writes one shard's store facts in a store's form, beside the app's logs, in the folder of
/// the day the app's log line would have had.
protocol StoreFactWriter {
    /// Forgets the previous user's transactions.
    mutating func startUser()
    /// Writes a store fact of `user` into the file of `day`.
    mutating func write(_ event: SimEvent, user: UserProfile, day: Int) throws
    /// What the store sends of a user besides the app's events (after the user's events).
    mutating func writeExtras(of user: UserProfile) throws
    /// Closes the files and adds what they hold to `counts`.
    mutating func finish(into counts: inout LogCounts) throws
    /// Rows of the server's `user_transactions` table (`user_id,original_transaction_id` lines).
    var userTransactionRows: [UInt8] { get }
}

extension StoreFactWriter {
    var userTransactionRows: [UInt8] { [] }
}
