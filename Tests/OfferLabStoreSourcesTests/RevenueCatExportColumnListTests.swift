import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLabStoreSources

/// The export's documented column list (`shared/realdata/revenuecat/scheduled-data-export/
/// columns_v5.csv`: position, column, type, nullable, in_v4, in_v3, example, description) as a
/// header, with a row of the documentation's example values, for versions 5, 4 and 3.
@Suite struct RevenueCatExportColumnListTests {
    struct Column {
        var name: String
        var inVersion4: Bool
        var inVersion3: Bool
        var example: String
    }

    static func columns() throws -> [Column] {
        let folder = try #require(
            RealData.folder("revenuecat/scheduled-data-export"), "shared/realdata/revenuecat not found (set OFFERLAB_REALDATA)")
        let reader = try TableFileReader(path: folder + "/columns_v5.csv", format: .csv)
        let indices = try reader.requireColumns(["column", "in_v4", "in_v3", "example"])
        var columns: [Column] = []
        try reader.forEachRow { row in
            columns.append(
                Column(
                    name: row.string(at: indices[0]) ?? "", inVersion4: row.string(at: indices[1]) == "yes",
                    inVersion3: row.string(at: indices[2]) == "yes", example: row.string(at: indices[3]) ?? ""))
        }
        return columns
    }

    func read(_ columns: [Column]) throws -> (RevenueCatExportFile, [StoreTransaction]) {
        let folder = try TemporaryFolder()
        let text =
            columns.map { RevenueCatExportTests.field($0.name) }.joined(separator: ",") + "\r\n"
            + columns.map { RevenueCatExportTests.field($0.example) }.joined(separator: ",") + "\r\n"
        let file = try RevenueCatExportFile(path: folder.write("export.csv", text))
        return (file, RevenueCatExport.records([file]).withoutSourcePath(expecting: file.path).transactions)
    }

    /// The example row: renewal 2 with `is_trial_conversion` true, 3.99 GBP refunded whole
    /// (`price_in_purchased_currency` 0) on 2023-02-20, Play Store, 14.42 % tax and 15 % commission.
    static let example = StoreTransaction(
        format: .revenueCatExport, transactionID: "123456789012345", originalTransactionID: "011223344556677",
        productID: "rc_subscription_monthly", kind: .firstCharge, at: Timestamp.parse("2023-01-01T08:27:06Z")!,
        money: .init(priceMicros: 3_990_000, currency: "GBP", taxShare: 0.1442, commissionShare: 0.15),
        buyer: StoreBuyer(
            userID: "$RCAnonymousID:87c6049c58069238dce29853916d624c", country: "GB", platform: "android", store: "play_store")
    ).with(
        expiresAt: Timestamp.parse("2023-02-01T08:27:06Z")!,
        refund: StoreTransaction.Refund(at: Timestamp.parse("2023-02-20T05:47:55Z")!, amountMicros: nil))

    @Test func version5() throws {
        let columns = try Self.columns()
        #expect(columns.count == 44)
        let (file, records) = try read(columns)
        #expect(file.counts[.linesRead] == 1 && file.counts.malformedLines == 0, "\(file.notes)")
        #expect(records == [Self.example])
    }

    @Test func version5InAnotherColumnOrder() throws {
        let (_, records) = try read(try Self.columns().reversed())
        #expect(records == [Self.example])
    }

    @Test func version4() throws {
        let columns = try Self.columns().filter(\.inVersion4)
        #expect(columns.count == 40)
        #expect(try read(columns).1 == [Self.example])
    }

    /// Version 3 has neither the purchase price nor `updated_at`: the refunded row's price is what
    /// is left (0), so its gross price is unknown: an unpriced charge, refunded whole.
    @Test func version3() throws {
        let columns = try Self.columns().filter(\.inVersion3)
        #expect(columns.count == 32)
        let (file, records) = try read(columns)
        #expect(file.counts.malformedLines == 0)
        var expected = Self.example
        expected.money.priceMicros = nil
        #expect(records == [expected])
    }
}
