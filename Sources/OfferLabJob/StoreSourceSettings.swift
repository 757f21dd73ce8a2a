import Foundation
import OfferLabStoreSources
import OfferLabSupport
import Yams

/// The files of one store format a job's `logs` names
/// (docs/input-formats.md#store-sources-in-a-job): every item of that format merged.
public struct StoreSourceFiles: Sendable, Equatable {
    public var format: SourceFormat
    /// The items' globs, resolved against the job file's folder.
    public var patterns: [String]
    /// Every file they match, in byte-wise sorted order, without repeats.
    public var files: [String]

    public init(format: SourceFormat, patterns: [String], files: [String]) {
        self.format = format
        self.patterns = patterns
        self.files = files
    }
}

/// The job's `app_store` map: how `app_store_notifications` sources are checked.
public struct AppStoreSettings: Sendable {
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

    public init() {}
}

/// The job's `revenuecat` map.
public struct RevenueCatSettings: Sendable {
    /// `user_id_field`: which of RevenueCat's ids is the server's `user_id`.
    public var userIDField = RevenueCatUserIDField.originalAppUserID

    public init() {}
}

extension JobValues {
    /// The entries of the map `key`, each checked against `known`; empty when the key is absent.
    private func settingsMap(_ key: String, known: [String]) throws -> [String: Node] {
        guard let node = values[key], node.null == nil else { return [:] }
        guard let mapping = node.mapping else { throw fail(key, "expected a mapping of \(known.joined(separator: ", "))") }
        var entries: [String: Node] = [:]
        for (keyNode, value) in mapping {
            guard let name = keyNode.string, known.contains(name) else {
                throw fail(key, "unknown key '\(keyNode.string ?? "")' (known: \(known.joined(separator: ", ")))")
            }
            entries[name] = value
        }
        return entries
    }

    /// `app_store: {bundle_id:, root_certificates:, verify:}`. `required`: the job lists an
    /// `app_store_notifications` source, which needs `bundle_id`.
    func appStoreSettings(folder: String, required: Bool) throws -> AppStoreSettings {
        let entries = try settingsMap("app_store", known: ["bundle_id", "root_certificates", "verify"])
        var settings = AppStoreSettings()
        if let node = entries["bundle_id"] {
            guard let text = node.scalar?.string, !text.isEmpty else { throw fail("app_store.bundle_id", "expected the app's bundle id") }
            settings.bundleID = text
        } else if required {
            throw fail("app_store.bundle_id", "required with a logs item of format app_store_notifications (e.g. com.example.app)")
        }
        if let node = entries["verify"] {
            switch node.scalar?.string {
            case "true": settings.verify = true
            case "false": settings.verify = false
            default: throw fail("app_store.verify", "'\(node.scalar?.string ?? "")' must be true or false")
            }
        }
        if let node = entries["root_certificates"] {
            let items = node.scalar.map { [$0.string] } ?? node.sequence?.compactMap { $0.scalar?.string } ?? []
            guard !items.isEmpty, items.count == (node.sequence?.count ?? 1), items.allSatisfy({ !$0.isEmpty }) else {
                throw fail("app_store.root_certificates", "expected a certificate file or a list of them")
            }
            settings.rootCertificatePaths = items.map { JobLoader.resolve($0, against: folder) }
            settings.rootCertificates = try settings.rootCertificatePaths.map { certificatePath in
                do {
                    return [UInt8](try Data(contentsOf: URL(fileURLWithPath: certificatePath)))
                } catch {
                    throw OfferLabError(
                        .badJob,
                        "job file \(path): app_store.root_certificates: cannot read \(certificatePath) (\(error.localizedDescription))",
                        location: .init(path: certificatePath, jobKey: "app_store.root_certificates"), cause: error)
                }
            }
            do {
                _ = try AppStoreSignatureVerifier(rootCertificates: settings.rootCertificates)
            } catch {
                let certificatePath = settings.rootCertificatePaths[error.index]
                throw OfferLabError(
                    .badJob,
                    "job file \(path): app_store.root_certificates: \(certificatePath) is \(error.reason.split(whereSeparator: \.isNewline).joined(separator: " "))",
                    location: .init(path: certificatePath, jobKey: "app_store.root_certificates"), cause: error)
            }
        }
        return settings
    }

    /// `revenuecat: {user_id_field:}`.
    func revenueCatSettings() throws -> RevenueCatSettings {
        let entries = try settingsMap("revenuecat", known: ["user_id_field"])
        var settings = RevenueCatSettings()
        if let node = entries["user_id_field"] {
            let text = node.scalar?.string ?? ""
            guard let field = RevenueCatUserIDField(jobValue: text) else {
                throw fail(
                    "revenuecat.user_id_field",
                    "'\(text)' is not a RevenueCat user id (known: original_app_user_id, last_seen_alias, app_user_id)")
            }
            settings.userIDField = field
        }
        return settings
    }
}
