import OfferLabIngest

/// The `revenuecat_export` format (docs/input-formats.md#the-export-column-by-column): every
/// file's header checked before any is read, then each file read into rows
/// (`RevenueCatExportFile`), merged into the source's records once all are read
/// (`RevenueCatExport.records`).
package enum RevenueCatExportSource: StoreSource {
    package static let format = SourceFormat.revenueCatExport

    /// The files read so far, in file order: a row sent again in a later file replaces an earlier
    /// one, so the records are made once every file is read.
    package struct Collector: StoreRecordCollector {
        private var files: [RevenueCatExportFile] = []

        package init() {}

        package mutating func add(_ reading: consuming RevenueCatExportFile) { files.append(reading) }

        package var records: StoreSourceRecords { RevenueCatExport.records(files) }
    }

    /// Checks every file's header, so that a missing column fails at once.
    package static func reader(settings: RevenueCatSettings, paths: [String], inflater: Inflater) throws -> RevenueCatFileReader {
        for path in paths {
            do {
                try RevenueCatExportFile.checkColumns(path: path, userIDField: settings.userIDField, inflater: inflater)
            } catch let error as IngestError where error.code == .missingColumn || error.code == .invalidHeader {
                throw error
            } catch {
                // A file that cannot be opened or inflated fails (or is skipped) when it is read.
            }
        }
        return RevenueCatFileReader(userIDField: settings.userIDField, inflater: inflater)
    }

    package static func read(
        _ path: String, with reader: RevenueCatFileReader, cache: (any StoreFileCache)?
    ) async throws -> RevenueCatExportFile {
        try RevenueCatExportFile(path: path, userIDField: reader.userIDField, inflater: reader.inflater)
    }
}

/// The `revenuecat_webhooks` format (docs/input-formats.md#the-webhooks-type-by-type):
/// each file read into its webhooks (`RevenueCatWebhookFile`), merged into the source's records
/// once all are read (`RevenueCatWebhooks.records`).
package enum RevenueCatWebhookSource: StoreSource {
    package static let format = SourceFormat.revenueCatWebhooks

    /// The files read so far, in file order: a webhook retried in a later file is the earlier
    /// one, so the records are made once every file is read.
    package struct Collector: StoreRecordCollector {
        private var files: [RevenueCatWebhookFile] = []

        package init() {}

        package mutating func add(_ reading: consuming RevenueCatWebhookFile) { files.append(reading) }

        package var records: StoreSourceRecords { RevenueCatWebhooks.records(files) }
    }

    package static func reader(settings: RevenueCatSettings, paths: [String], inflater: Inflater) throws -> RevenueCatFileReader {
        RevenueCatFileReader(userIDField: settings.userIDField, inflater: inflater)
    }

    package static func read(
        _ path: String, with reader: RevenueCatFileReader, cache: (any StoreFileCache)?
    ) async throws -> RevenueCatWebhookFile {
        try RevenueCatWebhookFile(path: path, userIDField: reader.userIDField, inflater: reader.inflater)
    }
}

/// What reads a RevenueCat file, export or webhooks: the job's user id field and the machine's
/// inflater.
package struct RevenueCatFileReader: Sendable {
    let userIDField: RevenueCatUserIDField
    let inflater: Inflater
}

extension RevenueCatExportFile: StoreFileReading {}
extension RevenueCatWebhookFile: StoreFileReading {}
