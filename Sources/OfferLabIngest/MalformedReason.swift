/// Why a log line was rejected, in the order the checks apply.
public enum MalformedReason: UInt8, CaseIterable, Sendable, Comparable {
    case invalidJSON
    case missingField
    case invalidField
    case badTimestamp
    case negativePrice
    case invalidCSV

    /// The counter name in `quality.csv`.
    public var counterName: String {
        switch self {
        case .invalidJSON: "malformed_invalid_json"
        case .missingField: "malformed_missing_field"
        case .invalidField: "malformed_invalid_field"
        case .badTimestamp: "malformed_bad_timestamp"
        case .negativePrice: "malformed_negative_price"
        case .invalidCSV: "malformed_invalid_csv"
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
