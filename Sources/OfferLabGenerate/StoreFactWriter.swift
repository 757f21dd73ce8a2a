import OfferLabIngest

/// The form in which a generated data set writes the store's facts (`offerlab generate
/// --format`): the purchase logs (docs/input-formats.md#purchase-logs) alone, or RevenueCat's
/// export or webhooks beside the app's logs, or App Store Server Notifications
/// (docs/input-formats.md#store-sources-in-a-job).
public enum LogSourceFormat: String, CaseIterable, Sendable {
    /// Every event in the purchase logs (docs/input-formats.md#purchase-logs).
    case offerlab
    /// Trials, charges and refunds as RevenueCat Scheduled Data Export rows.
    case revenueCatExport = "revenuecat_export"
    /// Trials, charges, refunds, cancels and expires as RevenueCat webhook bodies.
    case revenueCatWebhooks = "revenuecat_webhooks"
    /// Trials, charges, refunds, cancels and expires as signed App Store Server Notifications V2.
    case appStoreNotifications = "app_store_notifications"

    /// Whether an event of `kind` of `user` goes to the store's files rather than to the app's
    /// logs. Apple sends nothing of a Google Play purchase: in the App Store's form, the Play
    /// Store's users keep their facts in the app's logs (docs/generator.md).
    func carries(_ kind: EventKind, of user: UserProfile) -> Bool {
        switch self {
        case .offerlab: false
        case .revenueCatExport: kind.isTransaction
        case .revenueCatWebhooks: kind.isTransaction || kind == .cancel || kind == .expire
        case .appStoreNotifications:
            !user.paysThroughPlayStore && (kind.isTransaction || kind == .cancel || kind == .expire)
        }
    }

    /// The glob of the store's files in the job, relative to the output folder.
    var glob: String? {
        switch self {
        case .offerlab: nil
        case .revenueCatExport: "revenuecat/export/*/transactions_*.csv.gz"
        case .revenueCatWebhooks: "revenuecat/webhooks/*/*/*/webhooks-*.jsonl.gz"
        case .appStoreNotifications: "appstore/notifications/*/*/*/notifications-*.jsonl.gz"
        }
    }
}

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

extension LogSourceFormat {
    /// The folder of the store's files in the output folder, if any.
    var folder: String? {
        switch self {
        case .offerlab: nil
        case .revenueCatExport, .revenueCatWebhooks: RevenueCatWriter.folder
        case .appStoreNotifications: AppStoreNotificationWriter.folder
        }
    }

    /// The file of a day of a shard, relative to the output folder, if the format has files.
    func relativePath(day: Int, shard: Int, configuration: GeneratorConfiguration) -> String? {
        switch self {
        case .offerlab: nil
        case .revenueCatExport, .revenueCatWebhooks: RevenueCatWriter.relativePath(day: day, shard: shard, configuration: configuration)
        case .appStoreNotifications: AppStoreNotificationWriter.relativePath(day: day, shard: shard, configuration: configuration)
        }
    }
}
