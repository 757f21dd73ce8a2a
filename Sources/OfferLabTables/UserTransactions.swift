import OfferLabJob
import OfferLabSupport

/// The server's optional `user_transactions` table
/// (docs/input-formats.md#the-user_transactions-table): which user registered each chain of store
/// transactions (columns `user_id`, `original_transaction_id`). A store record whose chain it names
/// belongs to that user, whatever id the record itself carries.
package enum UserTransactions {
    /// The table's rows as original transaction id → user id; empty when the table is absent.
    /// - Throws: `.badTables` naming the file (or SQLite file) and the line (or row) of a row
    ///   with an empty value, or of a chain given to two users.
    package static func load(from source: TableSource) throws -> [String: String] {
        let table = "user_transactions"
        guard try source.hasTable(table) else { return [:] }
        var users: [String: String] = [:]
        try source.forEachRow(of: table, columns: ["user_id", "original_transaction_id"]) { row in
            let context = "\(table) \(row.location)"
            guard let userID = row.text(0), !userID.isEmpty else {
                throw OfferLabError(.badTables, "tables: \(row.sourcePath): \(context): user_id is empty", location: row.errorLocation)
            }
            guard let chain = row.text(1), !chain.isEmpty else {
                throw OfferLabError(
                    .badTables, "tables: \(row.sourcePath): \(context): original_transaction_id is empty", location: row.errorLocation)
            }
            if let earlier = users.updateValue(userID, forKey: chain), earlier != userID {
                throw OfferLabError(
                    .badTables,
                    "tables: \(row.sourcePath): \(context): original_transaction_id \(chain) belongs to \(earlier) and to \(userID)",
                    location: row.errorLocation)
            }
        }
        return users
    }
}
