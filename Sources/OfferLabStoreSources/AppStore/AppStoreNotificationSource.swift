import OfferLabIngest

/// The `app_store_notifications` format
/// (docs/input-formats.md#app-store-server-notifications-v2-app_store_notifications): each file's
/// notifications verified and decoded (`AppStoreNotificationFile`), kept by the parsed-log cache,
/// and collected into the source's records (`AppStoreRecordCollector`).
package enum AppStoreNotificationSource: StoreSource {
    package typealias Collector = AppStoreRecordCollector

    package static let format = SourceFormat.appStoreNotifications

    /// The decoder of the job's app, with the job's roots unless `verify: false`, and the settings
    /// the cache names its entries after.
    package struct FileReader: Sendable {
        let decoder: AppStoreNotificationDecoder
        let cacheSettings: [UInt8]
    }

    package static func reader(settings: AppStoreSettings, paths: [String], inflater: Inflater) throws -> FileReader {
        guard let bundleID = settings.bundleID else {
            throw StoreSettingsProblem(key: "app_store.bundle_id", "required with a logs item of format app_store_notifications")
        }
        var verifier: AppStoreSignatureVerifier?
        if settings.verify {
            do {
                verifier = try AppStoreSignatureVerifier(rootCertificates: settings.rootCertificates)
            } catch {
                throw StoreSettingsProblem(key: "app_store.root_certificates", "certificate \(error.index + 1): \(error.reason)")
            }
        }
        return FileReader(
            decoder: AppStoreNotificationDecoder(bundleID: bundleID, verifier: verifier), cacheSettings: settings.cacheSettings)
    }

    /// Verifying its signatures is most of a night's work: a file read by an earlier run with the
    /// same settings is read back from the cache, verified and decoded.
    package static func read(_ path: String, with reader: FileReader, cache: (any StoreFileCache)?) async throws -> AppStoreFileReading {
        guard let cache else { return try await AppStoreNotificationFile.read(path: path, decoder: reader.decoder) }
        return try await cache.reading(ofFileAt: path, settings: reader.cacheSettings) {
            try await AppStoreNotificationFile.read(path: path, decoder: reader.decoder)
        }
    }
}

extension AppStoreFileReading: CachedStoreFileReading {}

extension AppStoreRecordCollector: StoreRecordCollector {
    package typealias FileReading = AppStoreFileReading
}

extension AppStoreNotificationSource: KeptNightSource {
    package static func cacheSettings(of reader: FileReader) -> [UInt8] { reader.cacheSettings }
}

extension AppStoreRecordCollector: KeptNightCollector {}

extension AppStoreNotification: StoreNotificationRecords {}

extension AppStoreFileReading: NotedStoreFileReading {}
