import OfferLabIngest

/// Which of RevenueCat's user ids is the server's `user_id` (the job's
/// `revenuecat.user_id_field`, docs/input-formats.md#which-user-id), for the export and the
/// webhooks alike.
public enum RevenueCatUserIDField: String, Sendable, CaseIterable {
    /// The id the customer was first seen with (`rc_original_app_user_id`,
    /// `original_app_user_id`): stable for the customer's whole life. The default.
    case originalAppUserID = "original_app_user_id"
    /// The id the app last logged in with (`rc_last_seen_app_user_id_alias`, `app_user_id`):
    /// the server's own id when the app calls `Purchases.logIn(serverUserID)` after an
    /// anonymous start.
    case lastSeenAppUserID = "last_seen_alias"

    /// The job's value: `original_app_user_id`, or `last_seen_alias` / `app_user_id` (the
    /// export's and the webhooks' names of the same id); nil for anything else.
    public init?(jobValue: String) {
        switch jobValue {
        case "original_app_user_id": self = .originalAppUserID
        case "last_seen_alias", "app_user_id": self = .lastSeenAppUserID
        default: return nil
        }
    }
}
