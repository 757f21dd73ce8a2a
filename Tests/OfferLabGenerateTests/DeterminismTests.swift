import Foundation
import OfferLabStatistics
import Testing

@testable import OfferLabGenerate

@Suite struct DeterminismTests {
    @Test func sameSeedGivesIdenticalBytesWhateverTheThreadCount() async throws {
        let first = try await GeneratedSet.make(users: 900, seed: 9, days: 3, jobs: 1)
        let second = try await GeneratedSet.make(users: 900, seed: 9, days: 3, jobs: 4)
        defer {
            first.remove()
            second.remove()
        }
        let files = first.allFiles()
        #expect(files == second.allFiles())
        #expect(files.count > 10)
        for file in files {
            #expect(try first.rawBytes(file) == second.rawBytes(file), "\(file) differs")
        }
        #expect(first.report.logs == second.report.logs)
        #expect(first.report.files == second.report.files)
    }

    @Test func anotherSeedGivesOtherData() async throws {
        let first = try await GeneratedSet.make(users: 300, seed: 1, days: 2)
        let second = try await GeneratedSet.make(users: 300, seed: 2, days: 2)
        defer {
            first.remove()
            second.remove()
        }
        let assignments = "tables/user_offering_assignments.csv.gz"
        #expect(try first.readBytes(assignments) != second.readBytes(assignments))
        #expect(try first.readBytes("logs/2026/03/01/events-1.jsonl.gz") != second.readBytes("logs/2026/03/01/events-1.jsonl.gz"))
        // The catalogue does not depend on the seed.
        let offerings = "tables/subscription_offerings.csv"
        #expect(try first.rawBytes(offerings) == second.rawBytes(offerings))
    }

    @Test func aUsersStreamDoesNotDependOnItsNeighbours() {
        // Each user's numbers come from seed ⊕ index only.
        var a = SplitMix64(seed: 5, stream: 41)
        var b = SplitMix64(seed: 5, stream: 41)
        var neighbour = SplitMix64(seed: 5, stream: 42)
        let drawsA = (0..<8).map { _ in a.next() }
        #expect(drawsA == (0..<8).map { _ in b.next() })
        let drawsN = (0..<8).map { _ in neighbour.next() }
        #expect(Set(drawsA).isDisjoint(with: drawsN))
    }

    @Test func refusesToOverwriteUnlessAsked() async throws {
        let set = try await GeneratedSet.make(users: 20, days: 1)
        defer { set.remove() }
        var configuration = set.configuration
        await #expect(throws: GeneratorError.self) { try await DataSetGenerator.generate(configuration) }
        configuration.overwrite = true
        configuration.users = 10
        let report = try await DataSetGenerator.generate(configuration)
        #expect(report.users == 10)
    }

    @Test(arguments: [0, -5])
    func rejectsBadSettings(users: Int) {
        let configuration = GeneratorConfiguration(outputDirectory: "/tmp/never-written", users: users, seed: 1)
        #expect(throws: GeneratorError.self) { try configuration.validate() }
    }
}
