import Foundation
import Testing

/// The real binary on real files, against outputs computed by the independent Python reference
/// (tools/reference; the expected CSVs were produced by it and checked by hand there).
@Suite struct ReferenceDataSetTests {
    static let dataSet = repositoryRoot.appendingPathComponent("tools/reference/tests/data/main")

    @Test(arguments: ["summary.csv", "products.csv", "quality.csv", "comparisons.csv", "srm.csv"])
    func outputMatchesTheReference(file: String) throws {
        let folder = try TemporaryFolder()
        let result = try runOfferLab(["run", Self.dataSet.appendingPathComponent("job.yaml").path, "--output", folder.path, "--database", folder.file("results.sqlite")])
        #expect(result.status == 0, "\(result.standardError)")
        let actual = try String(contentsOfFile: folder.file("2026-03-16/\(file)"), encoding: .utf8)
        let expected = try String(contentsOf: Self.dataSet.appendingPathComponent("expected/\(file)"), encoding: .utf8)
        // Chance to beat control is exact to 1e-4 by contract; the rest to 1e-9.
        let differences = csvDifferences(actual: actual, expected: expected, relativeTolerance: file == "comparisons.csv" ? 1e-6 : 1e-9)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }
}
