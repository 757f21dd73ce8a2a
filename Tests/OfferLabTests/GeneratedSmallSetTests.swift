import Foundation
import OfferLabTestSupport
import Testing

/// Issue 47: `offerlab generate` writes a job that runs at every size it accepts: the showcase's
/// 16 fixed malformed lines are most of a one-user data set, so its job allows their share.
@Suite struct GeneratedSmallSetTests {
    @Test(arguments: [(1, "offerlab"), (10, "offerlab"), (100, "offerlab"), (1, "app_store_notifications"), (1, "google_play")])
    func aSmallGeneratedSetRuns(users: Int, format: String) throws {
        let folder = try TemporaryFolder()
        let out = folder.file("set")
        let generated = try runOfferLab(["generate", "--out", out, "--users", "\(users)", "--seed", "7", "--format", format])
        #expect(generated.status == 0, "\(generated.standardError)")
        let job = try String(contentsOfFile: out + "/job.yaml", encoding: .utf8)
        #expect(job.contains("max_bad_line_ratio: ") && !job.contains("max_bad_line_ratio: 0.01\n"), "\(job)")
        let run = try runOfferLab(["run", out + "/job.yaml", "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
    }
}
