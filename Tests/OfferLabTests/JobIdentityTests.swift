import Foundation
import OfferLabJob
import Testing

/// A job is its resolved file (docs/reliability.md, Re-running a night): however it is typed, the
/// database knows it; two job files never share an output folder.
@Suite struct JobIdentityTests {
    @Test func earlierRelativePathsMatchTheFileTheyNamed() {
        #expect(JobIdentity.matches(stored: "nightly.yaml", identity: "/srv/app/jobs/nightly.yaml"))
        #expect(JobIdentity.matches(stored: "jobs/nightly.yaml", identity: "/srv/app/jobs/nightly.yaml"))
        #expect(JobIdentity.matches(stored: "./jobs/../jobs/nightly.yaml", identity: "/srv/app/jobs/nightly.yaml"))
        #expect(!JobIdentity.matches(stored: "other/nightly.yaml", identity: "/srv/app/jobs/nightly.yaml"))
        #expect(!JobIdentity.matches(stored: "weekly.yaml", identity: "/srv/app/jobs/nightly.yaml"))
        #expect(JobIdentity.matches(stored: "/srv/app/jobs/../jobs/nightly.yaml", identity: "/srv/app/jobs/nightly.yaml"))
    }

    /// Night 1 typed as `job.yaml` in its folder, night 2 through a link from elsewhere: the same
    /// job, so the stale-logs guard sees night 1 (the logs hold nothing after its as_of).
    @Test func theSameJobTypedTwoWaysIsOneJob() throws {
        let night = try NightFixture()
        let first = try runOfferLab(["run", "job.yaml", "--quiet"], in: night.folder.path)
        #expect(first.status == 0, "\(first.standardError)")
        let link = night.folder.file("link.yaml")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: night.jobPath)
        let second = try runOfferLab(["run", link, "--as-of", "2026-03-17", "--quiet"], in: "/")
        #expect(second.status == 65, "\(second.standardError)")
        #expect(second.standardError.contains("the logs look stale; allow_stale_logs: true allows it"), "\(second.standardError)")
        let jobs = try night.databaseRows()["runs"] ?? []
        let resolved = URL(fileURLWithPath: night.jobPath).resolvingSymlinksInPath().path
        #expect(!jobs.isEmpty && jobs.allSatisfy { $0.contains(resolved) }, "\(jobs)")
    }

    @Test func twoJobFilesCannotShareAnOutputFolder() throws {
        let night = try NightFixture()
        #expect(try night.run().status == 0)
        let copy = night.folder.file("copy.yaml")
        try FileManager.default.copyItem(atPath: night.jobPath, toPath: copy)
        let second = try runOfferLab(["run", copy, "--quiet"])
        #expect(second.status == 73, "\(second.standardError)")
        let resolved = URL(fileURLWithPath: night.jobPath).resolvingSymlinksInPath().path
        #expect(second.standardError.contains("is already written by another job file, \(resolved)"), "\(second.standardError)")
        #expect(second.standardError.contains(URL(fileURLWithPath: copy).resolvingSymlinksInPath().path))
        // With its own output (the same database), it runs.
        let own = try runOfferLab(["run", copy, "--quiet", "--output", night.folder.file("copy-out")])
        #expect(own.status == 0, "\(own.standardError)")
    }
}
