import OfferLabGenerate
import OfferLabResults
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabJob
@testable import OfferLabWriters

/// The same generated data in other shapes of ids and files gives the same numbers: every output
/// table but the rejects' file names, line numbers and texts, and the count of files read.
@Suite struct GeneratedShapesTests {
    struct Shape: Sendable, CustomTestStringConvertible {
        var eventIDs: EventIDShape
        var userIDs: UserIDShape
        var layout: LogLayout
        var testDescription: String { "\(eventIDs.rawValue), \(userIDs.rawValue), \(layout.rawValue)" }
    }

    /// Every shape but `--event-ids none` at least once.
    static let shapes = [
        Shape(eventIDs: .hex32, userIDs: .longText, layout: .smallFiles),
        Shape(eventIDs: .ulid, userIDs: .shortText, layout: .oneFile),
        Shape(eventIDs: .integer, userIDs: .numeric, layout: .dailyShards),
        Shape(eventIDs: .prefixed, userIDs: .longText, layout: .oneFile),
    ]

    /// The output tables of a run on a 1 500-user set in `shape`, by name; the rejects as their
    /// count per reason, the quality counters without `files_read`.
    static func outputs(_ shape: Shape) async throws -> [String: [[ResultValue]]] {
        let folder = try TemporaryFolder()
        let configuration = GeneratorConfiguration(
            outputDirectory: folder.path, users: 1500, seed: 11, days: 3,
            shape: DataSetShape(eventIDs: shape.eventIDs, userIDs: shape.userIDs, layout: shape.layout))
        let report = try await DataSetGenerator.generate(configuration)
        let job = try JobLoader.load(path: report.jobFile)
        let results = try await NightlyRun.compute(job, progress: nil)
        var tables: [String: [[ResultValue]]] = [:]
        for table in ResultTables.make(
            results, statistics: try await NightlyRun.statistics(of: results, settings: StatisticsSettings(job.estimators, run: job.run)),
            settings: ResultTableSettings(job)
        ).files {
            switch table.name {
            case "rejects":
                let reasons = Dictionary(grouping: table.rows) { "\($0[2])" }.mapValues(\.count)
                tables[table.name] = reasons.sorted { $0.key < $1.key }.map { [.text($0.key), .integer($0.value)] }
            case "quality":
                tables[table.name] = table.rows.filter { $0[1] != .text("files_read") }
            default:
                tables[table.name] = table.rows
            }
        }
        return tables
    }

    static let defaultOutputs = Task {
        try await outputs(Shape(eventIDs: .uuid, userIDs: .numeric, layout: .dailyShards))
    }

    @Test(arguments: shapes)
    func aShapeGivesTheDefaultShapesNumbers(shape: Shape) async throws {
        let expected = try await Self.defaultOutputs.value
        let actual = try await Self.outputs(shape)
        #expect(actual.keys.sorted() == expected.keys.sorted())
        for (name, rows) in expected {
            #expect(actual[name] == rows, "\(name) differs")
        }
        // Not vacuous: the set has duplicates removed by event id, rejects and several groups.
        #expect(expected["summary"]?.count == 6)
        #expect(expected["quality"]?.contains { $0[1] == .text("duplicate_events") && $0[2] != .integer(0) } == true)
        #expect(expected["rejects"]?.isEmpty == false)
    }
}
