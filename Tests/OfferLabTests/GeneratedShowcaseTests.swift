import Foundation
import OfferLabGenerate
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabTables

/// A generated data set keeps every malformed line that names money in showcase/ (docs/generator.md,
/// Malformed lines): a job on its logs/ alone, as jobs/sample.yaml is, reads malformed lines but
/// none the run would warn about; the showcase's lines are all malformed and name money.
@Suite struct GeneratedShowcaseTests {
    @Test(arguments: [UInt64(2), 9])
    func onlyTheShowcaseNamesMoney(seed: UInt64) async throws {
        let folder = try TemporaryFolder()
        let report = try await DataSetGenerator.generate(
            GeneratorConfiguration(outputDirectory: folder.path, users: 4000, seed: seed, days: 7))
        var job = try JobLoader.load(path: report.jobFile)
        let source = try TableSource(path: job.inputs.tablesPath)
        let population = try Population.load(from: source, catalog: try CatalogLoader.load(from: source), asOf: job.run.night.microseconds)
        let showcase = report.files.map(\.path).filter { $0.hasPrefix("showcase/") }.map(folder.file)
        #expect(showcase.count == report.logs.showcaseFiles && showcase.count >= 2)
        #expect(Set(showcase).isSubset(of: job.inputs.logFiles))  // the generated job reads them

        job.inputs.logFiles = job.inputs.logFiles.filter { !showcase.contains($0) }
        let logs = try await LogIngest.read(settings: IngestSettings(job), population: Task { population }, progress: nil).counters
        #expect(logs.malformedLines > 0)
        #expect(logs.rejectedMoney.isEmpty, "\(logs.rejectedMoney.summary)")

        job.inputs.logFiles = showcase
        let moved = try await LogIngest.read(settings: IngestSettings(job), population: Task { population }, progress: nil).counters
        #expect(moved.nonBlankLines == report.logs.showcaseLines && moved.malformedLines == moved.nonBlankLines)
        // The fixed showcase's four broken purchases at least.
        #expect(moved.rejectedMoney.lines >= 4)
        #expect(logs.malformedLines + moved.malformedLines == report.logs.malformedLines)
    }
}
