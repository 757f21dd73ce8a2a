import Foundation
import Testing

/// The README's table of exit codes, each code produced by the real binary.
@Suite struct ExitCodeTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        var code: Int32
        var what: String
        var testDescription: String { "\(code): \(what)" }
    }

    static let scenarios = [
        Scenario(code: 0, what: "success"),
        Scenario(code: 64, what: "an unknown option"),
        Scenario(code: 65, what: "a table names an offering that does not exist"),
        Scenario(code: 73, what: "the output folder cannot be created"),
        Scenario(code: 75, what: "another run holds the lock"),
        Scenario(code: 78, what: "an unknown key in the job file"),
    ]

    @Test func theReadmeListsExactlyTheseCodes() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Failure and exit codes").dropFirst().first)
        let table = section.components(separatedBy: "\n## ").first ?? ""
        let codes = table.split(separator: "\n").compactMap { line -> Int32? in
            guard line.hasPrefix("| ") else { return nil }
            return Int32(line.dropFirst(2).prefix { $0.isNumber })
        }
        #expect(codes == Self.scenarios.map(\.code))
    }

    @Test(arguments: scenarios)
    func theBinaryExitsWith(scenario: Scenario) throws {
        let night = try NightFixture()
        var holder: OfferLabProcess?
        var arguments: [String] = []
        switch scenario.code {
        case 64:
            arguments = ["--no-such-option"]
        case 65:
            var tables = NightFixture.standardTables
            tables.groups.append((30, 9, "orphan", 1))
            try tables.write(to: night.folder.file("tables-bad.sqlite"))
            try night.writeJob(["tables": "tables-bad.sqlite"])
        case 73:
            arguments = ["--output", try night.folder.write("blocker", "") + "/out"]
        case 75:
            holder = try night.start(pausingAt: "reading-logs")
            try night.writeJob(["lock_timeout_seconds": "0"])
        case 78:
            try night.writeJob(["colour": "blue"])
        default:
            break
        }
        let result = try night.run(arguments)
        #expect(result.status == scenario.code, "\(result.standardError)")
        if scenario.code == 0 {
            #expect(result.standardError.isEmpty)
        } else if scenario.code != 64 {
            // One line on stderr, for cron's mail.
            #expect(result.standardError.hasPrefix("offerlab: error: "))
            #expect(result.standardError.filter { $0 == "\n" }.count == 1, "\(result.standardError)")
        }
        holder?.send(SIGKILL)
    }
}
