/// The input formats of a job's `logs` (docs/input-formats.md#store-sources-in-a-job): the
/// project's own log format and the stores' formats, each read into the same events. The one
/// list of them.
public enum SourceFormat: String, CaseIterable, Sendable {
    /// The JSON Lines and CSV logs (docs/input-formats.md#purchase-logs).
    case offerlab
    case appStoreNotifications = "app_store_notifications"
    case revenueCatExport = "revenuecat_export"
    case revenueCatWebhooks = "revenuecat_webhooks"
    case googlePlay = "google_play"
    case googlePlayOrders = "google_play_orders"

    /// The store source that reads the format (its folder of Sources/OfferLabStoreSources); nil
    /// for `offerlab`, the purchase logs.
    package var source: (any StoreSource.Type)? {
        switch self {
        case .offerlab: nil
        case .appStoreNotifications: AppStoreNotificationSource.self
        case .revenueCatExport: RevenueCatExportSource.self
        case .revenueCatWebhooks: RevenueCatWebhookSource.self
        case .googlePlay: GooglePlayNotificationSource.self
        case .googlePlayOrders: GooglePlayOrderSource.self
        }
    }
}

extension SourceFormat {
    /// The store whose feeds `formats` (a job's store sources) are, when a night keeps them
    /// resolved together (`KeptFeedsSource`); nil for any other.
    package static func keptFeeds(_ formats: [SourceFormat]) -> (any KeptFeedsSource.Type)? {
        formats == GooglePlayKeptNight.formats ? GooglePlayKeptNight.self : nil
    }
}
