/// A store's map of the job file (docs/input-formats.md#store-sources-in-a-job): its key, its
/// keys, its line of help, and its reading through `StoreSettingsReader`.
public protocol StoreSourceSettings: Sendable {
    /// The job file's key of the map (`app_store`).
    static var jobKey: String { get }
    /// The keys the map may have.
    static var keys: [String] { get }
    /// What a run uses without the map, as the README's table says it (`JobKey.defaultValue`).
    static var absentValue: String { get }
    /// One line of help (`JobKey.help`).
    static var help: String { get }

    /// False when the store's signatures are not checked; nil for a store without signatures.
    var signaturesVerified: Bool? { get }

    /// The settings of a job without the map.
    init()
    /// The settings `map` gives. `required`: the job lists a source read with them.
    /// - Throws: `map`'s errors (`StoreSettingsReader.fail`).
    init(reading map: some StoreSettingsReader, required: Bool) throws
}

extension StoreSourceSettings {
    public var signaturesVerified: Bool? { nil }
}

/// The job file's map of a store's settings as the job reads it (OfferLabJob, over the YAML),
/// its keys already checked against `StoreSourceSettings.keys`.
public protocol StoreSettingsReader {
    /// Whether the map has `key`.
    func has(_ key: String) -> Bool
    /// `key`'s value when it is one text; nil when it is absent or anything else.
    func text(_ key: String) -> String?
    /// `key`'s value when it is one text or a list of texts; nil when it is absent or anything
    /// else (an item that is no text).
    func texts(_ key: String) -> [String]?
    /// `path` made absolute against the job file's folder.
    func resolve(_ path: String) -> String
    /// The job's error about `key` of the map (`<map>.<key>`): `problem`.
    func fail(_ key: String, _ problem: String) -> any Error
    /// The job's error about `key` of the map and the file `file` it names: `problem`, caused by
    /// `cause`.
    func fail(_ key: String, file: String, _ problem: String, cause: any Error) -> any Error
}

/// Every store's settings, each read from its map of the job file or the defaults.
public struct StoreSettings: Sendable {
    /// Every store's settings type, once, in the order of `SourceFormat`: the job reads their
    /// maps in this order.
    package static let types: [any StoreSourceSettings.Type] = {
        var types: [any StoreSourceSettings.Type] = []
        for format in SourceFormat.allCases {
            guard let type = format.source?.settingsType, !types.contains(where: { $0.jobKey == type.jobKey }) else { continue }
            types.append(type)
        }
        return types
    }()

    /// By `jobKey`.
    private var values: [String: any StoreSourceSettings] = [:]

    public init() {}

    /// The settings of the store `Settings` is the map of.
    public subscript<Settings: StoreSourceSettings>(_: Settings.Type) -> Settings {
        get { values[Settings.jobKey] as? Settings ?? Settings() }
        set { values[Settings.jobKey] = newValue }
    }

    package mutating func add(_ settings: any StoreSourceSettings) {
        values[type(of: settings).jobKey] = settings
    }

    /// Whether the signatures of the sources of `formats` are checked: nil when no format has
    /// signatures.
    package func signaturesVerified(reading formats: [SourceFormat]) -> Bool? {
        var verified: Bool?
        for format in formats {
            guard let type = format.source?.settingsType else { continue }
            guard let checked = (values[type.jobKey] ?? type.init()).signaturesVerified else { continue }
            verified = (verified ?? true) && checked
        }
        return verified
    }
}
