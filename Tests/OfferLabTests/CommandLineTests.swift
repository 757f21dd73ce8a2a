import Foundation
import Testing

/// Command-line values are checked before any work: a bad value is a bad command line (exit
/// 64, as the README's table says), not a bad job file (78).
@Suite struct CommandLineTests {
    struct BadValue: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let badValues = [
        BadValue(arguments: ["run", "JOB", "--threads", "0"], message: "--threads must be at least 1, got 0"),
        BadValue(
            arguments: ["run", "JOB", "--as-of", "yesterday"],
            message: "The value 'yesterday' is invalid for '--as-of <date>': not a date like 2026-03-16"),
        BadValue(
            arguments: ["stats", "--input", "agg.csv", "--output", "out", "--alpha", "2"],
            message: "--alpha must be greater than 0 and less than 1, got 2.0"),
        BadValue(
            arguments: ["stats", "--input", "agg.csv", "--output", "out", "--sequential-tuning", "0"],
            message: "--sequential-tuning 0.0 must be a positive number of users"),
    ]

    @Test(arguments: badValues)
    func aBadValueIsABadCommandLine(_ bad: BadValue) throws {
        let night = try NightFixture()
        let arguments = bad.arguments.map { $0 == "JOB" ? night.jobPath : $0 }
        let result = try runOfferLab(arguments, in: night.folder.path)
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains(bad.message), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: night.outputPath))
    }
}
