import Foundation
import Testing

/// docs/architecture.md, "A new estimator": the statistics are pure, and every reference vector
/// they are tested against says how it was made.
@Suite struct EstimatorSeamTests {
    /// OfferLabStatistics imports the vocabulary and nothing else: no Foundation, so no file,
    /// clock or process.
    @Test func theStatisticsImportOnlyTheVocabulary() throws {
        let imports = try LayerTests.sourceFiles().filter { $0.target == "OfferLabStatistics" }.flatMap { file in
            file.source.split(separator: "\n").filter { $0.hasPrefix("import ") || $0.hasPrefix("@testable import ") }
                .map { "\(file.file): \($0)" }
        }
        #expect(!imports.isEmpty)
        #expect(imports.filter { !$0.hasSuffix("import OfferLabVocabulary") } == [])
    }

    /// Each data file of Tests/OfferLabStatisticsTests/Reference is named by a `make_*.py` script
    /// there (the independent implementation that wrote it).
    @Test func everyReferenceVectorHasTheScriptThatMadeIt() throws {
        let folder = repositoryRoot.appending(path: "Tests/OfferLabStatisticsTests/Reference")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let scripts = try names.filter { $0.hasPrefix("make_") && $0.hasSuffix(".py") }.map {
            try String(contentsOf: folder.appending(path: $0), encoding: .utf8)
        }
        let vectors = names.filter { $0.hasSuffix(".csv") || $0.hasSuffix(".json") }
        #expect(vectors.count >= 10)
        #expect(vectors.filter { vector in !scripts.contains { $0.contains(vector) } } == [])
    }
}
