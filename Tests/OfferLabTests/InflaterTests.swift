import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabTables

/// zlib and ISA-L must be interchangeable: the same events from the same files, and the same
/// output bytes. (Where ISA-L is not installed only zlib runs, and these tests are skipped.)
@Suite(.enabled(if: Inflater.isalAvailable, "ISA-L (libisal2) is not installed"))
struct InflaterTests {
    /// Every record (all fields, in file order), every counter and every kept reject of the
    /// sample data set's logs (JSON and CSV logs, gzip files of several members).
    @Test func bothInflatersReadTheSameEvents() async throws {
        var stores: [EventStore] = []
        for inflater in [Inflater.zlib, .isal] {
            var job = try JobLoader.load(path: repositoryRoot.appendingPathComponent("jobs/sample.yaml").path)
            job.run.inflater = inflater
            let source = try TableSource(path: job.inputs.tablesPath, inflater: inflater)
            let catalog = try CatalogLoader.load(from: source)
            let population = Task { [job] in try Population.load(from: source, catalog: catalog, asOf: job.run.night.microseconds) }
            stores.append(try await LogIngest.read(settings: IngestSettings(job), population: population, progress: nil))
        }
        let (zlib, isal) = (stores[0], stores[1])
        #expect(zlib.count > 10_000)
        #expect(zlib.segments.count == isal.segments.count)
        for (zlibSegment, isalSegment) in zip(zlib.segments, isal.segments) {
            #expect(
                zlibSegment.records == isalSegment.records && zlibSegment.shapes == isalSegment.shapes
                    && zlibSegment.details == isalSegment.details)
            #expect(zlibSegment.eventIDs == isalSegment.eventIDs && zlibSegment.transactionMap == isalSegment.transactionMap)
            #expect(zlibSegment.labelMap == isalSegment.labelMap)
        }
        #expect(zlib.counters.nonBlankLines == isal.counters.nonBlankLines)
        #expect(zlib.counters.malformed == isal.counters.malformed)
        #expect(zlib.counters.rejects == isal.counters.rejects)
        #expect(zlib.counters.compressedBytes == isal.counters.compressedBytes)
        #expect(zlib.counters.uncompressedBytes == isal.counters.uncompressedBytes)
        #expect(zlib.transactions.count == isal.transactions.count)
        #expect((0..<Int32(zlib.labels.count)).map(zlib.labels.string) == (0..<Int32(isal.labels.count)).map(isal.labels.string))
    }

    /// The real binary, once per inflater: every CSV output byte for byte (report.html also
    /// shows when each run started).
    @Test func bothInflatersWriteTheSameBytes() throws {
        let job = repositoryRoot.appendingPathComponent("jobs/sample.yaml").path
        let folders = try [TemporaryFolder(), TemporaryFolder()]
        for (folder, inflater) in zip(folders, ["zlib", "isal"]) {
            let result = try runOfferLab([
                "run", job, "--output", folder.path, "--database", folder.file("results.sqlite"), "--inflater", inflater,
            ])
            #expect(result.status == 0, "\(result.standardError)")
        }
        func csvFiles(_ folder: TemporaryFolder) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: folder.file("2026-03-15")).filter { $0.hasSuffix(".csv") }.sorted()
        }
        let files = try csvFiles(folders[0])
        #expect(files.contains("summary.csv") && files.contains("daily.csv"))
        #expect(files == (try csvFiles(folders[1])))
        for file in files {
            let zlib = try Data(contentsOf: URL(fileURLWithPath: folders[0].file("2026-03-15/\(file)")))
            let isal = try Data(contentsOf: URL(fileURLWithPath: folders[1].file("2026-03-15/\(file)")))
            #expect(zlib == isal, "\(file) differs between the inflaters")
        }
    }

    @Test func anUnknownInflaterIsABadCommandLine() throws {
        let result = try runOfferLab(["run", repositoryRoot.appendingPathComponent("jobs/sample.yaml").path, "--inflater", "gzip"])
        #expect(result.status == 64)
    }
}
