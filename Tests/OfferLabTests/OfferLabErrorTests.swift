import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabSupport
@testable import OfferLabTables

/// Errors are values: where a failure was seen and what caused it are fields, not only text.
@Suite struct OfferLabErrorTests {
    @Test func aCorruptLogFileIsLocatedAndCarriesItsCause() async throws {
        let (night, path) = try BadInputTests().nightWithCorruptFile(0, policy: "fail")
        let job = try JobLoader.load(path: night.jobPath)
        let source = try TableSource(path: job.tablesPath)
        let catalog = try CatalogLoader.load(from: source)
        let population = try Population.load(from: source, catalog: catalog, asOf: job.asOf)
        let error = await #expect(throws: OfferLabError.self) {
            _ = try await LogIngest.read(job: job, population: Task { population }, progress: nil)
        }
        let location = try #require(error?.location)
        #expect(location.path == path)
        #expect(location.byteOffset != nil)
        let cause = try #require(error?.cause as? IngestError)
        #expect(cause.code == .corruptGzip)
        #expect(error?.category == .data)
    }

    @Test func aBrokenTableRowIsLocatedByFileAndLine() throws {
        let folder = try TemporaryFolder()
        try folder.write("tables/subscription_offerings.csv", "id,offering_id,name,is_active\n1,test,Test,1\n2,\"broken,x,1\n")
        let error = #expect(throws: OfferLabError.self) {
            _ = try CatalogLoader.load(from: TableSource(path: folder.file("tables")))
        }
        #expect(error?.location?.path.hasSuffix("subscription_offerings.csv") == true)
        #expect(error?.location?.line == 3)
    }
}
