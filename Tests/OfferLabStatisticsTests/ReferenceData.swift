import Foundation
import Testing

/// One row of a reference CSV written by `Reference/make_reference.py`, by column name.
struct ReferenceRow: CustomStringConvertible, Sendable {
    let values: [String: Double]
    let text: String

    subscript(_ column: String) -> Double {
        values[column] ?? .nan
    }

    var description: String { text }
}

enum ReferenceError: Error, CustomStringConvertible {
    case missing(String)
    case unreadable(file: String, line: Int, field: String)

    var description: String {
        switch self {
        case .missing(let name): "reference file \(name) is not in the test bundle"
        case .unreadable(let file, let line, let field): "\(file):\(line): cannot read \(field) as a number"
        }
    }
}

/// The reference files, read from the test bundle (never generated at test time).
enum Reference {
    static func url(_ name: String) throws -> URL {
        guard
            let url = Bundle.module.url(forResource: "Reference/\(name)", withExtension: nil)
                ?? Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Reference")
        else { throw ReferenceError.missing(name) }
        return url
    }

    /// Every row of a numeric CSV file; an empty field is NaN.
    static func rows(_ name: String) throws -> [ReferenceRow] {
        let text = try String(contentsOf: url(name), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard !lines.isEmpty else { return [] }
        let header = lines.removeFirst().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return try lines.enumerated().map { index, line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            var values: [String: Double] = [:]
            for (column, field) in zip(header, fields) {
                if field.isEmpty {
                    values[column] = .nan
                } else if let value = Double(field) {
                    values[column] = value
                } else {
                    throw ReferenceError.unreadable(file: name, line: index + 2, field: field)
                }
            }
            return ReferenceRow(values: values, text: "\(name):\(index + 2): \(line)")
        }
    }

    /// A JSON reference file.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }
}

/// Tolerances of the reference comparisons (docs/statistics.md, "Verification").
enum Tolerance {
    /// Relative error allowed for distribution functions in their normal range.
    static let distribution = 1e-12
    /// Absolute error allowed for reported p-values and interval ends.
    static let reported = 1e-9

    /// Relative error allowed for a value whose exact answer moves by `condition`·ε when its double
    /// input moves by one rounding (ε = 2⁻⁵²): 1e-12, widened by 4·condition·ε where the input
    /// itself does not pin the answer down to 1e-12.
    static func relative(condition: Double) -> Double {
        distribution + 4 * Double.ulpOfOne * (condition.isFinite ? condition : 0)
    }
}

/// |actual − expected| / |expected| (0 when both are equal, including both infinite).
func relativeError(_ actual: Double, _ expected: Double) -> Double {
    if actual == expected { return 0 }
    if expected == 0 { return abs(actual) }
    return abs(actual - expected) / abs(expected)
}
