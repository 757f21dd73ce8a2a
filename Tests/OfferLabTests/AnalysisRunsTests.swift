import Foundation
import OfferLabAnalysis
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabResults
@testable import OfferLabTables

/// The members are evaluated in runs on every thread and added up: however they are cut into
/// runs and whatever the threads, every number is the same, to the last bit.
@Suite struct AnalysisRunsTests {
    @Test(arguments: [(1, 1), (1, 2), (7, 2), (1000, 3)])
    func anyRunsAndThreadsGiveTheSameResults(membersPerRun: Int, threads: Int) async throws {
        let job = try JobLoader.load(path: repositoryRoot.appendingPathComponent("jobs/sample.yaml").path)
        let catalog = try CatalogLoader.load(from: try TableSource(path: job.inputs.tablesPath))
        let (population, store) = try await sampleEvents()
        let offerings = Array(catalog.offerings.indices)
        func analyse(membersPerRun: Int, threads: Int) async throws -> NightResults {
            var settings = AnalysisSettings(
                asOf: job.run.night.microseconds, rates: job.analysis.rates, windowDays: job.analysis.conversionWindowDays,
                control: job.analysis.control)
            settings.threads = threads
            return try await NightlyRun.analyse(
                catalog: catalog, population: population, store: store, offerings: offerings, settings: settings,
                membersPerRun: membersPerRun)
        }
        let usual = try await analyse(membersPerRun: NightlyRun.membersPerRun, threads: 1)
        let cut = try await analyse(membersPerRun: membersPerRun, threads: threads)
        // More members than runs of the largest cut: the runs are added up across.
        #expect(population.members.map(\.count).max()! > 1000)
        #expect(usual.offerings.count >= 2)
        for (left, right) in zip(usual.offerings, cut.offerings) {
            #expect(left.groups == right.groups)
            #expect(left.products == right.products)
            #expect(left.quality == right.quality)
            #expect(left.daily.map(\.date) == right.daily.map(\.date))
            #expect(left.daily.map(\.groups) == right.daily.map(\.groups))
        }
        #expect(usual.offerings.flatMap(\.groups).contains { $0.netRevenue != 0 })
    }
}
