import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLabJob

extension TemporaryFolder {
    /// The job in `job.yaml` as of 2026-03-`day`, writing to its own output and database
    /// (`out-<run>-<cache>/`), with its cache or, without `cache`, reading every file again: the
    /// tests that hold a night read through the cache to the same night read whole.
    func job(asOf day: Int, cache: Bool, run: Int) throws -> Job {
        var job = try JobLoader.load(path: file("job.yaml"))
        job.run.night = try #require(Night(parsing: String(format: "2026-03-%02d", day)))
        job.outputs.outputPath = file("out-\(run)-\(cache)")
        job.outputs.databasePath = file("out-\(run)-\(cache)/results.sqlite")
        if !cache { job.outputs.cachePath = nil }
        return job
    }
}
