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

extension JobValues {
    /// Every store's map (`StoreSettings.types`, in their order), each checked against its keys
    /// and read by its store; a store whose map is absent has its defaults. `formats`: the job's
    /// store sources, whose settings may require keys.
    func storeSettings(reading formats: [SourceFormat]) throws -> StoreSettings {
        var settings = StoreSettings()
        for type in StoreSettings.types {
            let map = StoreSettingsMap(
                job: self, key: type.jobKey, entries: try settingsMap(type.jobKey, known: type.keys), folder: folder)
            let required = formats.contains { $0.source?.settingsType.jobKey == type.jobKey }
            settings.add(try type.init(reading: map, required: required))
        }
        return settings
    }

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
}

/// A store's map of the job file, read by the store (`StoreSourceSettings`), its errors the job's.
struct StoreSettingsMap: StoreSettingsReader {
    let job: JobValues
    /// The map's key in the job file (`app_store`).
    let key: String
    let entries: [String: Node]
    /// The job file's folder.
    let folder: String

    func has(_ key: String) -> Bool { entries[key] != nil }

    func text(_ key: String) -> String? { entries[key]?.scalar?.string }

    func texts(_ key: String) -> [String]? {
        guard let node = entries[key] else { return nil }
        if let scalar = node.scalar { return [scalar.string] }
        guard let sequence = node.sequence else { return nil }
        let items = sequence.compactMap { $0.scalar?.string }
        return items.count == sequence.count ? items : nil
    }

    func resolve(_ path: String) -> String { JobLoader.resolve(path, against: folder) }

    func fail(_ key: String, _ problem: String) -> any Error {
        job.fail("\(self.key).\(key)", problem)
    }

    func fail(_ key: String, file: String, _ problem: String, cause: any Error) -> any Error {
        let jobKey = "\(self.key).\(key)"
        return OfferLabError(
            .badJob, "job file \(job.path): \(jobKey): \(problem)", location: .init(path: file, jobKey: jobKey), cause: cause)
    }
}
