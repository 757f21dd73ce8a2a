import OfferLabJob
import OfferLabTestSupport
import Testing

@testable import OfferLab
@testable import OfferLabSupport
@testable import OfferLabWriters

@Suite struct CSVWriterTests {
    @Test(arguments: [
        (0.1, "0.1"), (3.0, "3"), (-2.0, "-2"), (1.0 / 3.0, "0.3333333333333333"), (1e-05, "1e-05"), (123456.5, "123456.5"),
        (1e20, "1e+20"), (0.0, "0"),
    ])
    func numbersAreTheShortestRoundTrip(value: Double, text: String) {
        #expect(CSVWriter.number(value) == text)
        #expect(Double(text) == value)
    }

    @Test func undefinedIsEmptyAndBooleansAreWords() {
        var table = ResultTable(
            ResultSchema(
                name: "t",
                columns: [ResultColumn("a", .real), ResultColumn("b", .bool), ResultColumn("c", .bool), ResultColumn("d", .integer)],
                keys: [ResultColumn("a", .real)]))
        table.rows = [[.real(nil), .bool(true), .bool(false), .integer(-3)], [.real(.nan), .bool(nil), .bool(true), .integer(0)]]
        #expect(CSVWriter.csv(table) == "a,b,c,d\r\n,true,false,-3\r\n,,true,0\r\n")
    }

    /// Money columns are written rounded to the micro-unit, to the CSV file and the database
    /// alike (the float noise the issue found: 22.979999999999997, 976.5500999999999,
    /// 48.270496000000136); a real column keeps every digit.
    @Test func moneyIsWrittenRoundedToTheMicroUnit() throws {
        var table = ResultTable(
            ResultSchema(
                name: "money",
                columns: [ResultColumn("offering_id", .text), ResultColumn("net_revenue", .money), ResultColumn("arpu", .real)],
                keys: [ResultColumn("offering_id", .text), ResultColumn("arpu", .real)]))
        table.rows = [
            [.real(22.979999999999997), .real(22.979999999999997)], [.real(976.5500999999999), .real(1)],
            [.real(48.270496000000136), .real(2)], [.real(-0.1234565001), .real(3)], [.real(nil), .real(4)], [.real(1e12 / 3), .real(5)],
        ].map { [.text("o")] + $0 }
        #expect(
            CSVWriter.csv(table)
                == "offering_id,net_revenue,arpu\r\no,22.98,22.979999999999997\r\no,976.5501,1\r\no,48.270496,2\r\no,-0.123457,3\r\no,,4\r\no,333333333333.3333,5\r\n"
        )
        let folder = try TemporaryFolder()
        let path = folder.file("results.sqlite")
        let run = RunRecord(
            job: "job.yaml", night: Night("2026-03-16"), startedAt: "", finishedAt: "", status: "succeeded",
            toolVersion: "", inputFiles: [])
        try ResultsDatabase.write(path: path, tables: [table], offeringIDs: ["o"], run: run)
        var stored: [Double] = []
        try SQLiteDatabase(path: path, readOnly: true).prepare("SELECT net_revenue FROM money WHERE net_revenue IS NOT NULL ORDER BY arpu")
            .forEachRow { row in
                if case .real(let value) = row.value(at: 0) { stored.append(value) }
            }
        #expect(stored == [976.5501, 48.270496, -0.123457, 333_333_333_333.3333, 22.98])
    }

    @Test(arguments: [
        ("=SUM(A1)", "'=SUM(A1)"), ("+1", "'+1"), ("-1", "'-1"), ("@x", "'@x"), ("\tx", "'\tx"), ("plain", "plain"), ("", ""),
        ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("two\nlines", "\"two\nlines\""), ("\rx", "\"'\rx\""),
    ])
    func textIsNeutralisedAndQuoted(text: String, field: String) {
        #expect(CSVWriter.field(.text(text)) == field)
    }
}
