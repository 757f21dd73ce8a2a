import Foundation
import Testing

@testable import OfferLab

/// The job's keys are listed once (`JobKey.all`): the README's table says the same.
@Suite struct JobKeyTests {
    /// The README's table of job keys: per row, its keys (`rates` / `rates_file` share one) and
    /// its default.
    static func readmeRows() throws -> [(keys: [String], defaultValue: String)] {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## The job file\n").dropFirst().first)
        let table = section.components(separatedBy: "\n\n").first { $0.hasPrefix("| key |") } ?? ""
        return table.split(separator: "\n").dropFirst(2).map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let keys = cells[1].split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces).filter { $0 != "`" } }
            return (keys, cells[cells.count - 2])
        }
    }

    @Test func theReadmeTableListsTheKeysInTheirOrder() throws {
        let rows = try Self.readmeRows()
        #expect(rows.flatMap(\.keys) == JobKey.all.map(\.name))
    }

    @Test func theReadmeTableGivesTheirDefaults() throws {
        let defaults = Dictionary(uniqueKeysWithValues: JobKey.all.map { ($0.name, $0.defaultValue) })
        for row in try Self.readmeRows() {
            for key in row.keys { #expect(defaults[key] == row.defaultValue, "\(key)") }
        }
    }

    @Test func theHelpListsEveryKeyInOrderInLinesThatDoNotWrap() {
        let lines = JobKey.helpText.split(separator: "\n")
        let names = lines.filter { !$0.hasPrefix("   ") }.map { $0.split(separator: " ")[0] }
        #expect(names.map(String.init) == JobKey.all.map(\.name))
        #expect(lines.allSatisfy { $0.count <= 80 })
    }
}
