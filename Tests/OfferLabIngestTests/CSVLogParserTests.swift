import OfferLabTestSupport
import Testing

@testable import OfferLabIngest

/// Parses every record of a CSV log text (header first) with `CSVLogParser`.
func parseCSVLog(_ text: String, maxLineLength: Int = 1 << 20, keepsSliceFields: Bool = false) throws -> [(
    line: Int, reason: MalformedReason?, record: LogRecord
)] {
    let folder = try TemporaryFolder()
    let path = try folder.write("log.csv", text)
    let reader = try TableFileReader(path: path, format: .csv, maxRecordLength: maxLineLength)
    var parser = CSVLogParser(header: reader.header, keepsSliceFields: keepsSliceFields)
    var record = LogRecord()
    var results: [(Int, MalformedReason?, LogRecord)] = []
    try reader.forEachRow { row in
        let reason = parser.parse(row, into: &record)
        results.append((row.lineNumber, reason, record))
    }
    return results
}

@Suite struct CSVLogParserTests {
    @Test func snakeCaseHeader() throws {
        let results = try parseCSVLog(
            """
            event_id,ts,user_id,event,product_id,transaction_id,original_transaction_id,price,currency,offering_id,test_group_id,environment,platform
            e1,1772366400000,00123,purchase,p,t1,o1,7.99,USD,spring,control,Sandbox,ios
            e2,2026-03-01T12:00:00Z,u2,paywall_view,,,,,,,,,

            """)
        #expect(results.count == 2)
        let (line, reason, record) = results[0]
        #expect(line == 2)
        #expect(reason == nil)
        #expect(record.string(record.eventID) == "e1")
        #expect(record.timestamp == march1Noon)
        #expect(record.string(record.userID) == "00123")
        #expect(record.eventType == .purchase)
        #expect(record.string(record.productID) == "p")
        #expect(record.string(record.transactionID) == "t1")
        #expect(record.string(record.originalTransactionID) == "o1")
        #expect(record.price == 7_990_000)
        #expect(record.string(record.currency) == "USD")
        #expect(record.string(record.offeringID) == "spring")
        #expect(record.string(record.testGroupID) == "control")
        #expect(record.isSandbox)
        #expect(record.platform == nil)  // read only by a parser that keeps the slice fields
        let second = results[1].record
        #expect(results[1].reason == nil)
        #expect(second.timestamp == march1Noon)
        #expect(second.eventType == .paywallView)
        #expect(second.productID == nil)
        #expect(second.price == nil)
        #expect(second.offeringID == nil)
        #expect(!second.isSandbox)
    }

    @Test func sliceFieldColumns() throws {
        let text =
            "ts,user_id,event,country,platform\n2026-03-01T12:00:00Z,u1,paywall_view,Côte d’Ivoire,ios\n2026-03-01T12:00:00Z,u2,paywall_view,,\n"
        let kept = try parseCSVLog(text, keepsSliceFields: true)
        #expect(
            kept.map { [$0.record.string($0.record.country), $0.record.string($0.record.platform)] } == [
                ["Côte d’Ivoire", "ios"], [nil, nil],
            ])
        let ignored = try parseCSVLog(text)
        #expect(ignored.allSatisfy { $0.reason == nil && $0.record.country == nil && $0.record.platform == nil })
    }

    @Test func camelCaseHeaderAndQuotedValues() throws {
        let results = try parseCSVLog(
            """
            userId,ts,event,productId,transactionId,price,currency,offeringId,testGroupId
            "user, with comma","2026-03-01 12:00:00",renewal,p,t2,"1200",JPY,o,"g ""quoted""\"
            """)
        let (_, reason, record) = results[0]
        #expect(reason == nil)
        #expect(record.string(record.userID) == "user, with comma")
        #expect(record.timestamp == march1Noon)
        #expect(record.price == 1_200_000_000)
        #expect(record.string(record.testGroupID) == "g \"quoted\"")
    }

    @Test func snakeCaseColumnWinsWhenItHasAValue() throws {
        let results = try parseCSVLog(
            """
            userId,user_id,ts,event,offeringId,offering_id
            camel,snake,1772366400000,x,o-camel,o-snake
            camel,,1772366400000,x,o-camel,\\N

            """)
        #expect(results.map { $0.record.string($0.record.userID) } == ["snake", "camel"])
        #expect(results.map { $0.record.string($0.record.offeringID) } == ["o-snake", "o-camel"])
    }

    @Test func emptyCellsAreAbsentAndTheRestIsChecked() throws {
        let results = try parseCSVLog(
            """
            ts,user_id,event,product_id,transaction_id,price,currency
            1772366400000,,purchase,p,t,1,USD
            1772366400000,"",purchase,p,t,1,USD
            ,u,cancel,,,,
            1772366400000,u,,,,,
            1772366400000,u,x,,,abc,USD
            1772366400000.5,u,x,,,,
            -1000,u,x,,,,
            2026-02-30T00:00:00Z,u,x,,,,
            1772366400000,u,purchase,p,t,,USD
            1772366400000,u,purchase,,t,1,USD
            1772366400000,u,cancel,,,1,
            1772366400000,u,refund,p,t,-1,USD
            1772366400000,u,refund,p,t,,
            1772366400000,u,x,,,1e13,USD
            1,2
            1772366400000,u,x,,,,,,

            """)
        #expect(
            results.map(\.reason) == [
                .missingField, .missingField, .missingField, .missingField, .invalidField, .badTimestamp, .badTimestamp,
                .badTimestamp, .missingField, .missingField, .missingField, .negativePrice, nil, .invalidField, .invalidCSV,
                .invalidCSV,
            ])
        #expect(results.map(\.line) == Array(2...17))
        #expect(results[12].record.eventType == .refund)
        #expect(results[12].record.timestamp == march1Noon)
    }

    @Test func tsOfDigitsIsEpochMilliseconds() throws {
        let results = try parseCSVLog("ts,user_id,event\n1772366400123,u,x\n01772366400000,u,x\n1772366400,u,x\n946684799999,u,x\n")
        #expect(results.prefix(2).map(\.record.timestamp) == [march1Noon + 123_000, march1Noon])
        // Epoch seconds read as milliseconds (1970), and anything before 2000: a bad timestamp.
        #expect(results.map(\.reason) == [nil, nil, .badTimestamp, .badTimestamp])
    }

    @Test func tooLongRecordIsLineTooLong() throws {
        let results = try parseCSVLog(
            "ts,user_id,event\n1772366400000,u,cancel\n1772366400000,a-very-long-user-id,cancel\n1772366400000,v,cancel\n",
            maxLineLength: 28)
        #expect(results.map(\.reason) == [nil, .lineTooLong, nil])
    }

    @Test func missingColumnMeansMissingField() throws {
        let results = try parseCSVLog("time,user_id,event\n0,u,x\n")
        #expect(results.map(\.reason) == [.missingField])
    }

    @Test func unterminatedQuoteIsInvalidCSV() throws {
        let results = try parseCSVLog("ts,user_id,event\n0,\"u,x\n")
        #expect(results.map(\.reason) == [.invalidCSV])
    }
}
