import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabSupport

@Suite struct SQLiteDatabaseTests {
    /// Text is bound with its length: a NUL inside it (a TSV table's `\0`) is kept, and two
    /// names that differ after it stay two keys.
    @Test func textWithNULCharactersIsBoundWhole() throws {
        let folder = try TemporaryFolder()
        let database = try SQLiteDatabase(path: folder.file("nul.sqlite"), create: true)
        try database.execute("CREATE TABLE names (name TEXT PRIMARY KEY)")
        let names = ["group\u{0}a", "group\u{0}b"]
        for name in names { try database.run("INSERT INTO names VALUES (?)", [.text(name)]) }
        var stored: [String] = []
        try database.prepare("SELECT name FROM names ORDER BY name").forEachRow { row in
            if case .text(let name) = row.value(at: 0) { stored.append(name) }
        }
        #expect(stored == names)
    }
}
