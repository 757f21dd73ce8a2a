/// The job's `revenuecat` map: how `revenuecat_export` and `revenuecat_webhooks` sources are read
/// (docs/input-formats.md#which-user-id).
public struct RevenueCatSettings: StoreSourceSettings {
    public static let jobKey = "revenuecat"
    public static let keys = ["user_id_field"]
    public static let absentValue = "`original_app_user_id`"
    public static let help = "{user_id_field: …}: the user of revenuecat_* logs"

    /// `user_id_field`: which of RevenueCat's ids is the server's `user_id`.
    public var userIDField = RevenueCatUserIDField.originalAppUserID

    public init() {}

    /// `revenuecat: {user_id_field:}`.
    public init(reading map: some StoreSettingsReader, required: Bool) throws {
        if map.has("user_id_field") {
            let text = map.text("user_id_field") ?? ""
            guard let field = RevenueCatUserIDField(jobValue: text) else {
                throw map.fail(
                    "user_id_field", "'\(text)' is not a RevenueCat user id (known: original_app_user_id, last_seen_alias, app_user_id)")
            }
            userIDField = field
        }
    }
}
