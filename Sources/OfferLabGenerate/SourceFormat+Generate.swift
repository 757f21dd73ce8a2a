import OfferLabIngest
import OfferLabStoreSources

/// The formats as `offerlab generate --format` writes a data set's store facts: the purchase
/// logs (docs/input-formats.md#purchase-logs) alone, or a store's files beside the app's logs
/// (docs/input-formats.md#store-sources-in-a-job). What the generator knows of each store form is
/// here; its files are written by its `StoreFactWriter`.
extension SourceFormat {
    /// The forms `offerlab generate --format` writes: Google Play's formats are read, not
    /// generated yet (docs/generator.md).
    package static var generated: [SourceFormat] { allCases.filter { $0 != .googlePlay && $0 != .googlePlayOrders } }

    /// Whether an event of `kind` of `user` goes to the store's files rather than to the app's
    /// logs. Apple sends nothing of a Google Play purchase: in the App Store's form, the Play
    /// Store's users keep their facts in the app's logs (docs/generator.md).
    func carries(_ kind: EventKind, of user: UserProfile) -> Bool {
        switch self {
        case .offerlab, .googlePlay, .googlePlayOrders: false
        case .revenueCatExport: kind.isTransaction
        case .revenueCatWebhooks: kind.isTransaction || kind == .cancel || kind == .expire
        case .appStoreNotifications:
            !user.paysThroughPlayStore && (kind.isTransaction || kind == .cancel || kind == .expire)
        }
    }

    /// The glob of the store's files in the job, relative to the output folder.
    var glob: String? {
        switch self {
        case .offerlab, .googlePlay, .googlePlayOrders: nil
        case .revenueCatExport: "revenuecat/export/*/transactions_*.csv.gz"
        case .revenueCatWebhooks: "revenuecat/webhooks/*/*/*/webhooks-*.jsonl.gz"
        case .appStoreNotifications: "appstore/notifications/*/*/*/notifications-*.jsonl.gz"
        }
    }

    /// The folder of the store's files in the output folder, if any.
    var folder: String? {
        switch self {
        case .offerlab, .googlePlay, .googlePlayOrders: nil
        case .revenueCatExport, .revenueCatWebhooks: RevenueCatWriter.folder
        case .appStoreNotifications: AppStoreNotificationWriter.folder
        }
    }

    /// Every store form's folder, once: what a data set may hold beside its tables and logs.
    static var storeFolders: [String] {
        allCases.compactMap(\.folder).reduce(into: []) { folders, folder in if !folders.contains(folder) { folders.append(folder) } }
    }

    /// The file of a day of a shard, relative to the output folder, if the format has files.
    func relativePath(day: Int, shard: Int, configuration: GeneratorConfiguration) -> String? {
        switch self {
        case .offerlab, .googlePlay, .googlePlayOrders: nil
        case .revenueCatExport, .revenueCatWebhooks: RevenueCatWriter.relativePath(day: day, shard: shard, configuration: configuration)
        case .appStoreNotifications: AppStoreNotificationWriter.relativePath(day: day, shard: shard, configuration: configuration)
        }
    }

    /// Whether the store signs its files: then the data set has a test chain of its own
    /// (`AppStoreTestSigner`), whose root the job trusts, and the server's `user_transactions`
    /// table.
    var isSigned: Bool { self == .appStoreNotifications }

    /// The writer of a shard's store files, if the format has files (a signed one needs `signer`).
    func storeWriter(configuration: GeneratorConfiguration, shard: Int, signer: AppStoreTestSigner?) -> (any StoreFactWriter)? {
        switch self {
        case .offerlab, .googlePlay, .googlePlayOrders: nil
        case .revenueCatExport, .revenueCatWebhooks: RevenueCatWriter(configuration: configuration, shard: shard)
        case .appStoreNotifications: signer.map { AppStoreNotificationWriter(configuration: configuration, shard: shard, signer: $0) }
        }
    }

    /// The job file's map of the store's settings for the data set (after its `logs`), if it
    /// needs one: the App Store's app and the data set's own test root certificate.
    var jobSettings: String {
        switch self {
        case .offerlab, .revenueCatExport, .revenueCatWebhooks, .googlePlay, .googlePlayOrders: ""
        case .appStoreNotifications:
            """

            app_store:
              bundle_id: \(AppStoreNotificationWriter.bundleID)
              # The data set's own test CA, made like Apple's: its notifications are not signed by Apple.
              root_certificates: [\(AppStoreNotificationWriter.rootCertificatePath)]
            """
        }
    }
}
