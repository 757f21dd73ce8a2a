/// A log field that results can be sliced by (`slices:` in the job file, docs/analysis.md §7).
public enum SliceField: String, Sendable, CaseIterable {
    case country
    case platform

    /// Levels of a field kept before the rest are merged into `(other)`, unless the job says.
    public static let defaultMaxLevels = 20

    /// Its bit in `SliceFields`.
    var bit: SliceFields {
        switch self {
        case .country: .country
        case .platform: .platform
        }
    }
}

/// The slice fields whose values the events keep: none unless the job slices by them, so that
/// a run that does not slice keeps the files' shapes as few as before (`EventShape`).
public struct SliceFields: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public static let country = SliceFields(rawValue: 1)
    public static let platform = SliceFields(rawValue: 2)

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    init(_ fields: [SliceField]) {
        self = SliceFields(fields.map(\.bit))
    }
}
