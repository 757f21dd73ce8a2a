import Foundation
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabSupport

/// What the commands other than `run` say, through the real binary.
@Suite struct CommandMessageTests {
    @Test func theVersionIsTheOneTheRunsTableRecords() throws {
        let night = try NightFixture()
        #expect(try night.run().status == 0)
        var recorded: [SQLiteValue] = []
        try SQLiteDatabase(path: night.databasePath, readOnly: true).prepare("SELECT tool_version FROM runs").forEachRow {
            recorded.append($0.value(at: 0))
        }
        let version = try runOfferLab(["--version"])
        #expect(version.status == 0)
        let printed = version.standardOutput.trimmingCharacters(in: .newlines)
        #expect(!printed.isEmpty)
        #expect(recorded == [.text(printed)])
    }

    @Test func generateIntoAFolderHoldingADataSetIsOneErrorLine() throws {
        let folder = try TemporaryFolder()
        let arguments = ["generate", "--out", folder.path, "--users", "20", "--seed", "1", "--days", "1"]
        #expect(try runOfferLab(arguments).status == 0)
        let again = try runOfferLab(arguments)
        #expect(again.status == 73)
        #expect(
            again.standardError
                == "offerlab: error: \(folder.path): already holds a data set (tables); choose another folder or pass --force to replace it\n"
        )
    }
}
