import OfferLabIngest
import OfferLabStoreSources

/// The formats as `offerlab generate --format` writes a data set's store facts: the purchase
/// logs (docs/input-formats.md#purchase-logs) alone, or a store's files beside the app's logs
/// (docs/input-formats.md#store-sources-in-a-job). What the generator knows of each store form is
/// here; its files are written by its `StoreFactWriter`.
extension SourceFormat {
    /// The forms `offerlab generate --format` writes: `google_play` writes Google Play's
    /// notifications and its Orders (`google_play_orders`) together (docs/generator.md).
    package static var generated: [SourceFormat] { allCases.filter { $0 != .googlePlayOrders } }

    /// The `--format` that writes the format's files, when it is not the format itself.
    package var generatedWith: SourceFormat? { self == .googlePlayOrders ? .googlePlay : nil }

    /// Whether an event of `kind` of `user` goes to the store's files rather than to the app's
    /// logs. Apple sends nothing of a Google Play purchase and Google nothing of an App Store one:
    /// in either store's form, the other store's users keep their facts in the app's logs
    /// (docs/generator.md).
    func carries(_ kind: EventKind, of user: UserProfile) -> Bool {
        switch self {
        case .offerlab, .googlePlayOrders: false
        case .revenueCatExport: kind.isTransaction
        case .revenueCatWebhooks: kind.isTransaction || kind == .cancel || kind == .expire
        case .appStoreNotifications:
            !user.paysThroughPlayStore && (kind.isTransaction || kind == .cancel || kind == .expire)
        case .googlePlay: user.paysThroughPlayStore && (kind.isTransaction || kind == .cancel || kind == .expire)
        }
    }

    /// The store's files in the job, relative to the output folder: each glob with its format.
    var sources: [(glob: String, format: SourceFormat)] {
        switch self {
        case .offerlab, .googlePlayOrders: []
        case .revenueCatExport: [("revenuecat/export/*/transactions_*.csv.gz", self)]
        case .revenueCatWebhooks: [("revenuecat/webhooks/*/*/*/webhooks-*.jsonl.gz", self)]
        case .appStoreNotifications: [("appstore/notifications/*/*/*/notifications-*.jsonl.gz", self)]
        case .googlePlay:
            [(GooglePlayWriter.notificationsGlob, .googlePlay), (GooglePlayWriter.ordersGlob, .googlePlayOrders)]
        }
    }

    /// The folder of the store's files in the output folder, if any.
    var folder: String? {
        switch self {
        case .offerlab: nil
        case .revenueCatExport, .revenueCatWebhooks: RevenueCatWriter.folder
        case .appStoreNotifications: AppStoreNotificationWriter.folder
        case .googlePlay, .googlePlayOrders: GooglePlayWriter.folder
        }
    }

    /// Every store form's folder, once: what a data set may hold beside its tables and logs.
    static var storeFolders: [String] {
        allCases.compactMap(\.folder).reduce(into: []) { folders, folder in if !folders.contains(folder) { folders.append(folder) } }
    }

    /// The files of a day of a shard, relative to the output folder (none if the format has no files).
    func relativePaths(day: Int, shard: Int, configuration: GeneratorConfiguration) -> [String] {
        switch self {
        case .offerlab, .googlePlayOrders: []
        case .revenueCatExport, .revenueCatWebhooks: [RevenueCatWriter.relativePath(day: day, shard: shard, configuration: configuration)]
        case .appStoreNotifications: [AppStoreNotificationWriter.relativePath(day: day, shard: shard, configuration: configuration)]
        case .googlePlay:
            GooglePlayWriter.Feed.allCases.map { GooglePlayWriter.relativePath($0, day: day, shard: shard, configuration: configuration) }
        }
    }

    /// Whether the store signs its files: then the data set has a test chain of its own
    /// (`AppStoreTestSigner`), whose root the job trusts.
    var isSigned: Bool { self == .appStoreNotifications }

    /// Whether the data set has the server's `user_transactions` table: the stores whose records
    /// may not name the user (the App Store's, Google Play's).
    var hasUserTransactions: Bool { self == .appStoreNotifications || self == .googlePlay }

    /// The writer of a shard's store files, if the format has files (a signed one needs `signer`).
    func storeWriter(configuration: GeneratorConfiguration, shard: Int, signer: AppStoreTestSigner?) -> (any StoreFactWriter)? {
        switch self {
        case .offerlab, .googlePlayOrders: nil
        case .revenueCatExport, .revenueCatWebhooks: RevenueCatWriter(configuration: configuration, shard: shard)
        case .appStoreNotifications: signer.map { AppStoreNotificationWriter(configuration: configuration, shard: shard, signer: $0) }
        case .googlePlay: GooglePlayWriter(configuration: configuration, shard: shard)
        }
    }

    /// The job file's map of the store's settings for the data set (after its `logs`), if it
    /// needs one: the App Store's app and the data set's own test root certificate; Google Play's app.
    var jobSettings: String {
        switch self {
        case .offerlab, .revenueCatExport, .revenueCatWebhooks, .googlePlayOrders: ""
        case .googlePlay:
            """

            google_play:
              package_name: \(GooglePlayWriter.packageName)
            """
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
