/// Why a log line was rejected, in the order the checks apply.
///
/// `invalidCSV` (CSV logs) and `lineTooLong` (any log) are decided before the line's fields are
/// looked at; the others follow the order of the cases.
public enum MalformedReason: UInt8, CaseIterable, Sendable, Comparable {
    case invalidJSON
    case missingField
    case invalidField
    case badTimestamp
    case negativePrice
    case invalidCSV
    /// The line is longer than the line length limit (1 MiB by default); it was not parsed.
    case lineTooLong

    /// The counter name in `quality.csv`.
    public var counterName: String {
        switch self {
        case .invalidJSON: "malformed_invalid_json"
        case .missingField: "malformed_missing_field"
        case .invalidField: "malformed_invalid_field"
        case .badTimestamp: "malformed_bad_timestamp"
        case .negativePrice: "malformed_negative_price"
        case .invalidCSV: "malformed_invalid_csv"
        case .lineTooLong: "malformed_line_too_long"
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
