/// The job's `google_play` map: which app's Google Play records count
/// (docs/input-formats.md#google-play-google_play-and-google_play_orders).
public struct GooglePlaySettings: StoreSourceSettings {
    public static let jobKey = "google_play"
    public static let keys = ["package_name"]
    public static let absentValue = "none"
    public static let help = "{package_name: …}: the app of google_play* logs"

    /// `package_name`: the app whose notifications count; required when a source of either
    /// format is listed (a notification of another app is `malformed_other_app`).
    public var packageName: String?

    public init() {}

    /// `google_play: {package_name:}`. `required`: the job lists a `google_play` or
    /// `google_play_orders` source.
    public init(reading map: some StoreSettingsReader, required: Bool) throws {
        if map.has("package_name") {
            guard let text = map.text("package_name"), !text.isEmpty else {
                throw map.fail("package_name", "expected the app's package name")
            }
            packageName = text
        } else if required {
            throw map.fail("package_name", "required with a logs item of format google_play or google_play_orders (e.g. com.example.app)")
        }
    }
}
