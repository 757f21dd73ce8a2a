import Foundation

/// The job's `app_store` map: how `app_store_notifications` sources are checked
/// (docs/input-formats.md#app-store-server-notifications-v2-app_store_notifications).
public struct AppStoreSettings: StoreSourceSettings {
    public static let jobKey = "app_store"
    public static let keys = ["bundle_id", "root_certificates", "verify"]
    public static let absentValue = "Apple's root, verify: true"
    public static let help = "{bundle_id: …}: checks app_store_notifications logs"

    /// `bundle_id`: the app whose notifications count; required when a source of the format is
    /// listed (a payload of another app is `malformed_other_app`).
    public var bundleID: String?
    /// `root_certificates`, resolved against the job file's folder; empty: Apple Root CA - G3.
    public var rootCertificatePaths: [String] = []
    /// The trusted roots' bytes (DER or PEM), each checked to be an X.509 certificate when the
    /// job was loaded: the files of `rootCertificatePaths`, else Apple Root CA - G3.
    public var rootCertificates: [[UInt8]] = [AppStoreSignatureVerifier.appleRootCAG3DER]
    /// `verify: false` (for a receiver that verified each body at receipt) skips the signatures.
    public var verify = true

    public var signaturesVerified: Bool? { verify }

    public init() {}

    /// `app_store: {bundle_id:, root_certificates:, verify:}`. `required`: the job lists an
    /// `app_store_notifications` source, which needs `bundle_id`.
    public init(reading map: some StoreSettingsReader, required: Bool) throws {
        if map.has("bundle_id") {
            guard let text = map.text("bundle_id"), !text.isEmpty else { throw map.fail("bundle_id", "expected the app's bundle id") }
            bundleID = text
        } else if required {
            throw map.fail("bundle_id", "required with a logs item of format app_store_notifications (e.g. com.example.app)")
        }
        if map.has("verify") {
            switch map.text("verify") {
            case "true": verify = true
            case "false": verify = false
            default: throw map.fail("verify", "'\(map.text("verify") ?? "")' must be true or false")
            }
        }
        if map.has("root_certificates") {
            guard let items = map.texts("root_certificates"), !items.isEmpty, items.allSatisfy({ !$0.isEmpty }) else {
                throw map.fail("root_certificates", "expected a certificate file or a list of them")
            }
            rootCertificatePaths = items.map(map.resolve)
            rootCertificates = try rootCertificatePaths.map { certificatePath in
                do {
                    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: certificatePath)))
                } catch {
                    throw map.fail(
                        "root_certificates", file: certificatePath,
                        "cannot read \(certificatePath) (\(error.localizedDescription))", cause: error)
                }
            }
            do {
                _ = try AppStoreSignatureVerifier(rootCertificates: rootCertificates)
            } catch {
                let certificatePath = rootCertificatePaths[error.index]
                throw map.fail(
                    "root_certificates", file: certificatePath,
                    "\(certificatePath) is \(error.reason.split(whereSeparator: \.isNewline).joined(separator: " "))", cause: error)
            }
        }
    }

    /// What reading an App Store file depends on beside its bytes, in its cache entry's name: the
    /// bundle id, whether it verifies, and the roots it trusts.
    var cacheSettings: [UInt8] {
        var bytes = Array("\(SourceFormat.appStoreNotifications.rawValue)\n\(bundleID ?? "")\n\(verify)\n".utf8)
        for root in rootCertificates {
            bytes += Array("\(root.count)\n".utf8) + root
        }
        return bytes
    }
}
