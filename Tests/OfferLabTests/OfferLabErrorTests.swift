import Foundation
import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabAnalysis
@testable import OfferLabEvents
@testable import OfferLabJob
@testable import OfferLabSupport
@testable import OfferLabTables

/// Errors are values: what kind of failure it is (the code), where it was seen and what caused it
/// are fields, not only text.
@Suite struct OfferLabErrorTests {
    /// The exit code of each code: README's table (`ExitCodeTests`) with one code of each kind
    /// checked through the binary, the rest here.
    @Test func eachCodeHasItsExitCode() {
        let expected: [OfferLabError.Code: Int32] = [
            .badJob: 78, .missingInput: 78, .badArgument: 78,
            .badTables: 65, .unreadableLog: 65, .tooManyMalformedLines: 65, .unconvertibleMoney: 65, .rejectedTotals: 65, .brokenNight: 65,
            .badAggregates: 65, .engineCannotRead: 65, .badResultsDatabase: 65, .nightNotFound: 65,
            .cannotWrite: 73,
            .locked: 75,
            .noNights: 66,
        ]
        #expect(Set(OfferLabError.Code.allCases) == Set(expected.keys))
        for code in OfferLabError.Code.allCases {
            #expect(OfferLabError(code, "x").exitCode == expected[code], "\(code)")
        }
    }

    @Test func aCorruptLogFileIsLocatedAndCarriesItsCause() async throws {
        let (night, path) = try BadInputTests().nightWithCorruptFile(0, policy: "fail")
        let job = try JobLoader.load(path: night.jobPath)
        let source = try TableSource(path: job.inputs.tablesPath)
        let catalog = try CatalogLoader.load(from: source)
        let population = try Population.load(from: source, catalog: catalog, asOf: job.run.night.microseconds)
        let error = try await #require(throws: OfferLabError.self) {
            _ = try await LogIngest.read(settings: IngestSettings(job), population: Task { population }, progress: nil)
        }
        #expect(error.code == .unreadableLog && error.category == .data)
        #expect(error.location.path == path)
        #expect(error.location.byteOffset != nil)
        let cause = try #require(error.cause as? IngestError)
        #expect(cause.code == .corruptGzip)
    }

    @Test func aBrokenTableRowIsLocatedByFileAndLine() throws {
        let folder = try TemporaryFolder()
        let file = try folder.write("tables/subscription_offerings.csv", "id,offering_id,name,is_active\n1,test,Test,1\n2,\"broken,x,1\n")
        let error = try #require(throws: OfferLabError.self) {
            _ = try CatalogLoader.load(from: TableSource(path: folder.file("tables")))
        }
        #expect(error.code == .badTables)
        #expect(error.location == .init(path: file, line: 3))
    }

    /// A catalog row whose value cannot be read, in a table file and in a SQLite file: the file,
    /// and the line where there are lines.
    @Test func anUnreadableCatalogValueIsLocated() throws {
        let folder = try TemporaryFolder()
        let file = try folder.write("tables/subscription_offerings.csv", "id,offering_id,name,is_active\n1,test,Test,1\nx,b,B,1\n")
        let fromFile = try #require(throws: OfferLabError.self) {
            _ = try CatalogLoader.load(from: TableSource(path: folder.file("tables")))
        }
        #expect(fromFile.code == .badTables && fromFile.location == .init(path: file, line: 3), "\(fromFile)")

        var tables = TablesFixture()
        tables.groups.append((30, 9, "orphan", 1))
        let database = folder.file("tables.sqlite")
        try tables.write(to: database)
        let fromSQLite = try #require(throws: OfferLabError.self) { _ = try CatalogLoader.load(from: TableSource(path: database)) }
        #expect(fromSQLite.code == .badTables && fromSQLite.location == .init(path: database), "\(fromSQLite)")
    }

    /// A rates file's read error keeps the reader's error as its cause, and the key that named it.
    @Test func anUnreadableRatesFileKeepsItsCause() throws {
        let folder = try TemporaryFolder()
        let rates = try folder.write("rates.csv", "currency,amount\nEUR,1.08\n")
        let error = try #require(throws: OfferLabError.self) { _ = try RatesFile.read(path: rates) }
        #expect(error.code == .badJob && error.location == .init(path: rates, line: 1, jobKey: "rates_file"), "\(error)")
        #expect((error.cause as? IngestError)?.code == .missingColumn)
    }

    /// A money sum past what 64 bits hold is refused, never wrapped around.
    @Test func aMoneySumThatOverflowsIsRejected() throws {
        var amounts = CurrencyAmounts()
        try amounts.add(currency: 0, gross: .max)
        let error = #expect(throws: OfferLabError.self) { try amounts.add(currency: 0, gross: 1) }
        #expect(error?.code == .rejectedTotals && error?.exitCode == 65)
    }
}
