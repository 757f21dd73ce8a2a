import Testing

@testable import OfferLab
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

    @Test(arguments: [
        ("=SUM(A1)", "'=SUM(A1)"), ("+1", "'+1"), ("-1", "'-1"), ("@x", "'@x"), ("\tx", "'\tx"), ("plain", "plain"), ("", ""),
        ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("two\nlines", "\"two\nlines\""), ("\rx", "\"'\rx\""),
    ])
    func textIsNeutralisedAndQuoted(text: String, field: String) {
        #expect(CSVWriter.field(.text(text)) == field)
    }
}
