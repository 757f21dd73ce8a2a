import Testing

@testable import OfferLabIngest

/// The log fields of proceeds and subscription state (docs/input-formats.md): `expires_at` (a
/// bad value is absent, the line stays valid), `store`, and RevenueCat's fee shares (out of range:
/// an invalid field).
@Suite struct ProceedsFieldsTests {
    static let head =
        #"{"ts":"2026-03-01T12:00:00Z","user_id":"u1","event":"purchase","product_id":"p","transaction_id":"t1","price":9.99,"currency":"USD""#

    @Test func expiresAtStoreAndFeeSharesAreRead() {
        let (reason, record) = parseJSON(
            Self.head
                + #","expires_at":"2026-03-08T12:00:00Z","store":"play_store","tax_percentage":0.1597,"commission_percentage":"0.15"}"#)
        #expect(reason == nil)
        #expect(record.expiresAt == march1Noon + 7 * 86_400_000_000)
        #expect(record.string(record.store) == "play_store")
        #expect(record.taxShare == 159_700_000 && record.commissionShare == 150_000_000)
    }

    @Test func expiresAtInCamelCaseOrEpochMilliseconds() {
        #expect(parseJSON(Self.head + #","expiresAt":"2026-03-01T12:00:00Z"}"#).record.expiresAt == march1Noon)
        #expect(parseJSON(Self.head + #","expires_at":1772366400000}"#).record.expiresAt == march1Noon)
        // snake_case wins.
        #expect(
            parseJSON(Self.head + #","expiresAt":"2026-03-02T12:00:00Z","expires_at":"2026-03-01T12:00:00Z"}"#).record.expiresAt
                == march1Noon)
    }

    @Test(arguments: [#""2026-02-30T00:00:00Z""#, #""tomorrow""#, "1.5", "true", "{}", #""""#, "null"])
    func aBadExpiresAtIsAbsentAndTheLineValid(value: String) {
        let (reason, record) = parseJSON(Self.head + #","expires_at":"# + value + "}")
        #expect(reason == nil)
        #expect(record.expiresAt == nil)
    }

    @Test(
        arguments: [
            #""tax_percentage":1,"commission_percentage":0"#, #""tax_percentage":-0.1,"commission_percentage":0.3"#,
            #""tax_percentage":0.6,"commission_percentage":0.4"#, #""tax_percentage":"abc""#, #""commission_percentage":true"#,
            #""commission_percentage":1.5"#,
        ])
    func aFeeShareOutsideZeroToOneIsAnInvalidField(fields: String) {
        #expect(parseJSON(Self.head + "," + fields + "}").reason == .invalidField)
    }

    @Test func sharesJustBelowOneTogetherAreValid() {
        let (reason, record) = parseJSON(Self.head + #","tax_percentage":0.5,"commission_percentage":0.499999999}"#)
        #expect(reason == nil && record.taxShare == 500_000_000 && record.commissionShare == 499_999_999)
        // Beyond the ninth decimal, rounded half to even: 0.4999999995 is a whole half with the tax.
        #expect(parseJSON(Self.head + #","tax_percentage":0.5,"commission_percentage":0.4999999995}"#).reason == .invalidField)
    }

    /// Shares are kept in billionths, so a share derived from an amount (Google Play's developer
    /// revenue over the price) keeps the amount to a cent over millions of charges.
    @Test func sharesAreReadToTheBillionth() {
        let (reason, record) = parseJSON(Self.head + #","tax_percentage":0,"commission_percentage":0.19919919919919918}"#)
        #expect(reason == nil && record.taxShare == 0 && record.commissionShare == 199_199_199)
        #expect(parseJSON(Self.head + #","commission_percentage":"0.1234567895"}"#).record.commissionShare == 123_456_790)
        #expect(parseJSON(Self.head + #","commission_percentage":0.1234567885}"#).record.commissionShare == 123_456_788)
    }

    @Test func csvLogsReadTheSameColumns() throws {
        let results = try parseCSVLog(
            """
            ts,user_id,event,product_id,transaction_id,price,currency,expires_at,store,tax_percentage,commission_percentage
            1772366400000,u1,purchase,p,t1,7.99,USD,1772971200000,app_store,0.2,0.3
            1772366400000,u1,purchase,p,t2,7.99,USD,not a time,,,
            1772366400000,u1,purchase,p,t3,7.99,USD,,,0.7,0.3
            """)
        #expect(results.map(\.reason) == [nil, nil, .invalidField])
        #expect(results[0].record.expiresAt == march1Noon + 7 * 86_400_000_000)
        #expect(results[0].record.string(results[0].record.store) == "app_store")
        #expect(results[0].record.taxShare == 200_000_000 && results[0].record.commissionShare == 300_000_000)
        #expect(results[1].record.expiresAt == nil && results[1].record.store == nil && results[1].record.taxShare == nil)
    }
}
