import OfferLabIngest
import OfferLabTestSupport
import Testing

@testable import OfferLabStoreSources

/// The project's own export files: every column and quirk of `revenuecat_export`
/// (docs/input-formats.md#the-export-column-by-column).
@Suite struct RevenueCatExportTests {
    /// Version 5's columns that the reader looks at, and some it does not, in an order of their own.
    static let header = [
        "updated_at", "price_in_usd", "store_transaction_id", "is_trial_period", "rc_original_app_user_id", "renewal_number",
        "purchase_price_in_usd", "product_identifier", "start_time", "end_time", "store", "is_sandbox", "refunded_at",
        "purchased_currency", "price_in_purchased_currency", "purchase_price_in_purchased_currency", "is_trial_conversion",
        "ownership_type", "country", "platform", "tax_percentage", "commission_percentage", "original_store_transaction_id",
        "rc_last_seen_app_user_id_alias", "entitlement_identifiers",
    ]

    static let paid: [String: String] = [
        "updated_at": "2024-03-01 10:00:00", "price_in_usd": "10.81", "store_transaction_id": "tx-1", "is_trial_period": "false",
        "rc_original_app_user_id": "user-original", "renewal_number": "1", "purchase_price_in_usd": "10.81",
        "product_identifier": "monthly", "start_time": "2024-03-01 09:00:00", "end_time": "2024-04-01 09:00:00", "store": "app_store",
        "is_sandbox": "false", "refunded_at": "", "purchased_currency": "EUR", "price_in_purchased_currency": "9.99",
        "purchase_price_in_purchased_currency": "9.99", "is_trial_conversion": "false", "ownership_type": "PURCHASED", "country": "FR",
        "platform": "iOS", "tax_percentage": "0.1667", "commission_percentage": "0.15", "original_store_transaction_id": "tx-0",
        "rc_last_seen_app_user_id_alias": "user-last", "entitlement_identifiers": #"["pro", "all"]"#,
    ]

    /// A CSV field: quoted when it holds a comma, a quote or a line break.
    static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The export text: `header`, then a row per change set applied to `base` (CRLF, as RevenueCat writes).
    static func export(_ rows: [[String: String]], header: [String] = header, base: [String: String] = paid) -> String {
        let lines =
            [header.map(field).joined(separator: ",")]
            + rows.map { changes in header.map { field(changes[$0] ?? base[$0] ?? "") }.joined(separator: ",") }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func at(_ text: String) -> Int64 { Timestamp.parse(text)! }

    func read(_ text: String, userIDField: RevenueCatUserIDField = .originalAppUserID) throws -> (RevenueCatExportFile, [StoreTransaction])
    {
        let folder = try TemporaryFolder()
        let file = try RevenueCatExportFile(path: folder.write("export.csv", text), userIDField: userIDField)
        return (file, RevenueCatExport.records([file]).withoutSourcePath(expecting: file.path).transactions)
    }

    @Test func aPaidRowKeepsEveryColumn() throws {
        let (file, records) = try read(Self.export([[:]]))
        #expect(file.counts[.linesRead] == 1 && file.counts.malformedLines == 0)
        #expect(
            records == [
                StoreTransaction(
                    format: .revenueCatExport, transactionID: "tx-1", originalTransactionID: "tx-0", productID: "monthly",
                    kind: .firstCharge, at: Self.at("2024-03-01T09:00:00Z"),
                    money: .init(priceMicros: 9_990_000, currency: "EUR", taxShare: 0.1667, commissionShare: 0.15),
                    buyer: StoreBuyer(userID: "user-original", country: "FR", platform: "iOS", store: "app_store")
                ).with(expiresAt: Self.at("2024-04-01T09:00:00Z"))
            ])
    }

    @Test func kindsByTrialRenewalNumberAndConversion() throws {
        let (_, records) = try read(
            Self.export([
                [
                    "store_transaction_id": "trial", "is_trial_period": "TRUE", "price_in_purchased_currency": "0",
                    "purchase_price_in_purchased_currency": "0",
                ],
                ["store_transaction_id": "conversion", "renewal_number": "2", "is_trial_conversion": "True"],
                ["store_transaction_id": "renewal", "renewal_number": "3", "is_trial_conversion": "FALSE"],
                ["store_transaction_id": "first"],
            ]))
        #expect(records.map(\.kind) == [.trial, .firstCharge, .laterCharge, .firstCharge])
        #expect(records[0].money.priceMicros == nil && records[0].money.currency == nil && records[0].at == Self.at("2024-03-01T09:00:00Z"))
        #expect(records[1].money.priceMicros == 9_990_000, "the purchased currency's price, never the USD columns")
    }

    @Test func unpaddedHoursAndUSDColumnsIgnored() throws {
        let (file, records) = try read(
            Self.export([
                [
                    "start_time": "2023-12-12 1:35:31", "refunded_at": "2023-12-13 2:00:00", "price_in_usd": "0",
                    "price_in_purchased_currency": "0", "updated_at": "2023-12-13 2:00:01",
                ]
            ]))
        #expect(file.counts.malformedLines == 0)
        let record = try #require(records.first)
        #expect(record.at == Self.at("2023-12-12T01:35:31Z"))
        #expect(
            record.refund == StoreTransaction.Refund(at: Self.at("2023-12-13T02:00:00Z"), amountMicros: nil), "price 0: the whole price")
    }

    @Test func aPartialRefundIsThePurchasePriceLessWhatIsLeft() throws {
        let (_, records) = try read(
            Self.export([["refunded_at": "2024-03-05 12:00:00", "price_in_purchased_currency": "4.99"]]))
        #expect(records.first?.money.priceMicros == 9_990_000)
        #expect(records.first?.refund == StoreTransaction.Refund(at: Self.at("2024-03-05T12:00:00Z"), amountMicros: 5_000_000))
    }

    @Test func aResentRowWithALaterUpdateReplacesTheEarlierAcrossFiles() throws {
        let folder = try TemporaryFolder()
        let refunded = [
            "updated_at": "2024-03-06 08:00:00", "refunded_at": "2024-03-06 07:59:00", "price_in_usd": "0",
            "price_in_purchased_currency": "0",
        ]
        // Day one: the charge twice (an exact duplicate row) and another transaction; gzip, two members.
        let dayOne = Self.export([[:], [:], ["store_transaction_id": "tx-2"]])
        let cut = dayOne.index(dayOne.startIndex, offsetBy: dayOne.count / 2)
        let first = try RevenueCatExportFile(
            path: folder.writeGzip("2024-03-06.csv.gz", members: [String(dayOne[..<cut]), String(dayOne[cut...])]))
        // Day two: the charge re-sent refunded, then a stale copy (an earlier update) after it.
        let second = try RevenueCatExportFile(
            path: folder.write(
                "2024-03-07.csv", Self.export([refunded, ["updated_at": "2024-03-02 00:00:00", "product_identifier": "stale"]])))
        let records = RevenueCatExport.records([first, second]).transactions
        #expect(records.map(\.transactionID) == ["tx-1", "tx-2"])
        #expect(records[0].productID == "monthly")
        #expect(records[0].money.priceMicros == 9_990_000)
        #expect(records[0].refund == StoreTransaction.Refund(at: Self.at("2024-03-06T07:59:00Z"), amountMicros: nil))
        #expect(records[1].refund == nil)
        // The re-sent row replaces the charge's facts, not the file that first delivered it.
        #expect(records.map(\.sourcePath) == [first.path, first.path])
    }

    @Test func aTieOnUpdatedAtGoesToTheLaterRow() throws {
        let (_, records) = try read(Self.export([["product_identifier": "earlier"], ["product_identifier": "later"]]))
        #expect(records.map(\.productID) == ["later"])
    }

    @Test func sandboxFamilyLastSeenUserAndPlayOrderIDs() throws {
        let text = Self.export([
            [
                "is_sandbox": "TRUE", "ownership_type": "FAMILY_SHARED", "store_transaction_id": "GPA.3372-4150-9088-12345..0",
                "original_store_transaction_id": "GPA.3372-4150-9088-12345", "store": "PLAY_STORE",
            ]
        ])
        let (_, records) = try read(text, userIDField: .lastSeenAppUserID)
        let record = try #require(records.first)
        #expect(record.buyer.isSandbox && record.buyer.isFamilyShared)
        #expect(record.buyer.userID == "user-last")
        #expect(record.transactionID == "GPA.3372-4150-9088-12345..0" && record.originalTransactionID == "GPA.3372-4150-9088-12345")
        #expect(record.buyer.store == "PLAY_STORE")
    }

    @Test func stripeRenewalsSharingATransactionIDStayApart() throws {
        let (_, records) = try read(
            Self.export([
                ["store_transaction_id": "sub_1", "renewal_number": "2"], ["store_transaction_id": "sub_1", "renewal_number": "1"],
                ["store_transaction_id": "sub_1", "renewal_number": "3"],
            ]))
        #expect(records.map(\.transactionID) == ["sub_1:2", "sub_1", "sub_1:3"])
        #expect(records.map(\.kind) == [.laterCharge, .firstCharge, .laterCharge])
    }

    @Test func emptyOptionalValues() throws {
        let (file, records) = try read(
            Self.export([
                [
                    "price_in_purchased_currency": "", "purchase_price_in_purchased_currency": "", "purchased_currency": "",
                    "end_time": "not a time", "rc_original_app_user_id": "", "tax_percentage": "", "country": "",
                ]
            ]))
        #expect(file.counts.malformedLines == 0)
        let record = try #require(records.first)
        #expect(record.money.priceMicros == nil && record.money.currency == nil, "an unpriced charge")
        #expect(record.expiresAt == nil && record.buyer.userID == nil && record.money.taxShare == nil && record.buyer.country == nil)
    }

    @Test func missingRequiredColumnsAreNamed() throws {
        let folder = try TemporaryFolder()
        for column in ["store_transaction_id", "renewal_number", "is_trial_period", "rc_original_app_user_id", "refunded_at", "updated_at"]
        {
            let path = try folder.write("\(column).csv", Self.export([[:]], header: Self.header.filter { $0 != column }))
            for check in [{ try RevenueCatExportFile.checkColumns(path: path) }, { _ = try RevenueCatExportFile(path: path) }] {
                let error = try #require(throws: IngestError.self) { try check() }
                #expect(error.code == .missingColumn)
                #expect(error.description == "\(path):1: missing required column '\(column)'")
            }
        }
        // The last-seen alias is required only when chosen.
        let path = try folder.write("alias.csv", Self.export([[:]], header: Self.header.filter { $0 != "rc_last_seen_app_user_id_alias" }))
        #expect(throws: Never.self) { try RevenueCatExportFile.checkColumns(path: path) }
        #expect(throws: IngestError.self) { try RevenueCatExportFile.checkColumns(path: path, userIDField: .lastSeenAppUserID) }
    }

    @Test func version3PricesByWhatIsLeftAndKeepsTheGrossOfTheEarlierRow() throws {
        let header = Self.header.filter {
            !["purchase_price_in_purchased_currency", "purchase_price_in_usd", "updated_at"].contains($0)
        }
        let refunded = ["refunded_at": "2024-03-06 07:59:00", "price_in_purchased_currency": "0"]
        let (file, records) = try read(
            Self.export(
                [
                    ["is_trial_period": "f", "is_sandbox": "f"], refunded,
                    ["store_transaction_id": "alone", "is_trial_conversion": "t"].merging(refunded) { a, _ in a },
                    ["store_transaction_id": "partial"],
                    ["store_transaction_id": "partial", "refunded_at": "2024-03-06 07:59:00", "price_in_purchased_currency": "2.99"],
                ], header: header))
        #expect(file.counts.malformedLines == 0)
        #expect(records.map(\.transactionID) == ["tx-1", "alone", "partial"])
        #expect(records[0].money.priceMicros == 9_990_000 && records[0].refund?.amountMicros == nil)
        #expect(records[1].money.priceMicros == nil && records[1].refund?.amountMicros == nil, "the gross price is not in the row")
        #expect(records[1].kind == .firstCharge)
        #expect(records[2].money.priceMicros == 9_990_000 && records[2].refund?.amountMicros == 7_000_000)
    }

    @Test func badRowsAreCountedWithTheirLine() throws {
        var text = Self.export([
            ["renewal_number": ""],  // line 2: missing
            ["is_trial_period": "yes"],  // 3: not a boolean
            ["renewal_number": "0"],  // 4: not a renewal number
            ["purchase_price_in_purchased_currency": "9,99"],  // 5: not a number
            ["start_time": "2024-02-30 09:00:00"],  // 6: no such day
            ["refunded_at": "yesterday"],  // 7
            ["updated_at": "2024-03-01"],  // 8
            ["purchased_currency": ""],  // 9: a price without currency
            ["purchase_price_in_purchased_currency": "-9.99"],  // 10
            ["commission_percentage": "30%"],  // 11
            ["refunded_at": "2024-03-05 00:00:00", "price_in_purchased_currency": "19.99"],  // 12: more left than paid
            ["store_transaction_id": "good"],  // 13
        ])
        text += "tx-9,too,few\r\n"  // 14: wrong field count
        let (file, records) = try read(text)
        let expected: [MalformedReason] = [
            .missingField, .invalidField, .invalidField, .invalidField, .badTimestamp, .badTimestamp, .badTimestamp, .missingField,
            .negativePrice, .invalidField, .invalidField, .invalidCSV,
        ]
        #expect(file.notes.map(\.counter) == expected.map(StoreCounter.init))
        #expect(file.notes.map(\.line) == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14])
        #expect(file.counts.malformedLines == 12 && file.counts[.linesRead] == 13)
        #expect(file.counts[.malformedBadTimestamp] == 3 && file.notes.allSatisfy { $0.path == file.path && !$0.detail.isEmpty })
        #expect(records.map(\.transactionID) == ["good"])
    }

    @Test(arguments: [
        "store_transaction_id", "renewal_number", "start_time", "product_identifier", "is_trial_period", "is_trial_conversion",
        "is_sandbox", "updated_at",
    ])
    func anEmptyRequiredValueIsAMissingField(_ column: String) throws {
        let (file, records) = try read(Self.export([[column: ""], ["store_transaction_id": "good"]]))
        #expect(file.notes.map(\.line) == [2] && file.notes.map(\.counter) == [.malformedMissingField])
        #expect(records.map(\.transactionID) == ["good"])
    }

    @Test func booleanSpellings() {
        func bool(_ text: String) -> Bool? {
            var text = text
            return text.withUTF8 { RevenueCatExportColumns.bool(UnsafeRawBufferPointer($0)) }
        }
        #expect(["true", "TRUE", "True", "t", "T", "1"].map(bool) == Array(repeating: true, count: 6))
        #expect(["false", "FALSE", "False", "f", "F", "0"].map(bool) == Array(repeating: false, count: 6))
        #expect(["yes", "no", "", "tr", "2"].map(bool) == Array(repeating: nil, count: 5))
    }

    /// `ownership_type` FAMILY_SHARED in any case, as Unicode uppercases it; nothing near it.
    @Test func familySharedSpellings() {
        func isFamilyShared(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { RevenueCatExportColumns.isFamilyShared(UnsafeRawBufferPointer($0)) }
        }
        #expect(["FAMILY_SHARED", "family_shared", "Family_Shared", "FAMıLY_SHARED"].allSatisfy(isFamilyShared))
        #expect(
            !["PURCHASED", "FAMILY SHARED", "FAMILY\u{7F}SHARED", "FAMILY_SHARE", "FAMILY_SHAREDS", "", "FAMILY_SHARÉD"].contains(
                where: isFamilyShared))
    }
}
