import OfferLabIngest
import Testing

@testable import OfferLabStoreSources

/// A run makes each store event's record directly (`StoreEvent.fillLogRecord`); `offerlab
/// events` writes its purchase-log line (docs/input-formats.md#json-lines;
/// `StoreEventJSONLines.line`). The record must be what the purchase-log parser reads from that
/// line, field by field and reason by reason, or the two would tell different numbers.
@Suite struct StoreEventRecordTests {
    /// Every field of a record as text (strings by their bytes, not their places in the text).
    static func fields(_ record: LogRecord) -> [String] {
        func text(_ range: Range<Int>?) -> String { record.string(range).map { "\"\($0)\"" } ?? "nil" }
        func value<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "nil" }
        return [
            "event_id \(text(record.eventID))", "user_id \(text(record.userID))", "event \(text(record.eventName))",
            "type \(value(record.eventType))", "ts \(record.timestamp)", "product_id \(text(record.productID))",
            "transaction_id \(text(record.transactionID))", "original_transaction_id \(text(record.originalTransactionID))",
            "price \(value(record.price))", "currency \(text(record.currency))", "offering_id \(text(record.offeringID))",
            "test_group_id \(text(record.testGroupID))", "sandbox \(record.isSandbox)", "country \(text(record.country))",
            "platform \(text(record.platform))", "expires_at \(value(record.expiresAt))", "store \(text(record.store))",
            "tax \(value(record.taxShare))", "commission \(value(record.commissionShare))",
        ]
    }

    /// Checks `event` both ways, with and without the slice fields; returns the reason (the
    /// same both ways, or the test fails).
    @discardableResult
    static func expectSameRecord(_ event: StoreEvent, sourceLocation: SourceLocation = #_sourceLocation) -> MalformedReason? {
        var reason: MalformedReason?
        for keepsSliceFields in [false, true] {
            var parser = JSONLineParser(keepsSliceFields: keepsSliceFields)
            var parsed = LogRecord()
            var line = StoreEventJSONLines.line(event)
            let parsedReason = line.withUTF8 { parser.parse(UnsafeRawBufferPointer($0), into: &parsed) }
            // A record reused from an earlier event, as in a run.
            var direct = LogRecord()
            _ = sample.fillLogRecord(&direct, keepsSliceFields: true)
            let directReason = event.fillLogRecord(&direct, keepsSliceFields: keepsSliceFields)
            #expect(directReason == parsedReason, "\(line)", sourceLocation: sourceLocation)
            #expect(fields(direct) == fields(parsed), "\(line)", sourceLocation: sourceLocation)
            reason = parsedReason
        }
        return reason
    }

    static let at = Timestamp.parse("2026-03-02T10:05:00.250Z")!

    /// A charge with every field.
    static let sample = {
        var event = StoreEvent(
            format: .revenueCatExport, eventID: "revenuecat_export:GPA.3346-1234-5678-90123..0", at: at, userID: "user-1",
            event: .renewal)
        event.productID = "monthly_2499"
        event.transactionID = "GPA.3346-1234-5678-90123..0"
        event.originalTransactionID = "GPA.3346"
        event.priceMicros = 24_990_000
        event.currency = "EUR"
        event.isSandbox = true
        event.platform = "android"
        event.country = "DE"
        event.store = "play_store"
        event.expiresAt = at + 30 * 86_400_000_000
        event.taxShare = 0.19
        event.commissionShare = 0.15
        return event
    }()

    /// Every event type, with each optional field there, empty or absent, and each odd value
    /// in turn: the direct record is the parsed one.
    @Test func theDirectRecordIsWhatTheParserReadsFromTheLine() {
        var reasons: [MalformedReason?] = []
        for type in EventType.allCases {
            var base = Self.sample
            base.event = type
            var variants: [StoreEvent] = [base]
            func vary(_ change: (inout StoreEvent) -> Void) {
                var event = base
                change(&event)
                variants.append(event)
            }
            for text in [nil, "", "x", "with \"quotes\", a \\ and\ta tab", "naïve 🎉", "\u{1}\u{7F}"] as [String?] {
                vary { $0.eventID = text ?? "" }
                vary { $0.userID = text ?? "" }
                vary { $0.productID = text }
                vary { $0.transactionID = text }
                vary { $0.originalTransactionID = text }
                vary { $0.currency = text }
                vary { $0.platform = text }
                vary { $0.country = text }
                vary { $0.store = text }
            }
            // Trials and refunds of the whole price have no price; a charge without one has 0.
            let largest = Price.maximumMicros
            let prices: [Int64?] = [
                nil, 0, 1, 7_990_000, 1_200_000_000, -2_500_000, largest, largest + 1, -largest, -largest - 1, .max, .min,
            ]
            for price in prices {
                vary { $0.priceMicros = price }
                vary {
                    $0.priceMicros = price
                    $0.currency = nil
                }
            }
            let day: Int64 = 86_400_000_000
            let firstTime = StoreEvent.textTimestamps.lowerBound
            let endTime = StoreEvent.textTimestamps.upperBound
            for time in [0, 1, -1, firstTime, firstTime - 1, endTime - 1, endTime, endTime + day, .min, .max] as [Int64] {
                vary { $0.at = time }
                vary { $0.expiresAt = time }
            }
            vary { $0.expiresAt = nil }
            vary { $0.isSandbox = false }
            let shares: [Double?] = [
                nil, 0, -0.0, 0.3, 0.999_999, 0.999_999_5, 0.999_999_6, 0.999_999_999, 0.999_999_999_5, 0.999_999_999_6, 1, 1.5,
                -0.01, -1e-7, 5e-7, 1.5e-6, 5e-10, 1.5e-9, 1e-300, 1e16, .infinity, -.infinity, .nan, .leastNonzeroMagnitude,
            ]
            for share in shares {
                vary { $0.taxShare = share }
                vary { $0.commissionShare = share }
            }
            vary {
                $0.taxShare = 0.5
                $0.commissionShare = 0.5
            }
            vary {
                $0.taxShare = 0.4
                $0.commissionShare = 0.599_999
            }
            vary {
                $0.taxShare = 0.4
                $0.commissionShare = 0.599_999_999
            }
            for event in variants { reasons.append(Self.expectSameRecord(event)) }
        }
        // The set reaches every reason a store event can have, and valid records.
        for reason in [nil, .invalidField, .badTimestamp, .missingField, .negativePrice] as [MalformedReason?] {
            #expect(reasons.contains(reason), "no event was \(reason.map(\.counterName) ?? "valid")")
        }
    }

    /// The events of generated RevenueCat data sets (export and webhooks): trials, purchases,
    /// renewals, refunds, cancels and expirations as the resolver makes them.
    @Test func theGeneratedEventsRecordsAreWhatTheParserReads() async throws {
        let export = try await GeneratedRevenueCatTests.export.value
        var exportRecords = StoreSourceRecords(format: .revenueCatExport)
        exportRecords.transactions = export.export
        let webhooks = try await GeneratedRevenueCatTests.webhooks.value.webhooks
        let events = StoreEventResolver.resolve(sources: [exportRecords, webhooks], userTransactions: [:], asOf: .max).events
        #expect(Set(events.map(\.event)) == [.trialStart, .purchase, .renewal, .refund, .cancel, .expire])
        for event in events where Self.expectSameRecord(event) != nil {
            Issue.record("a generated event is no valid record: \(StoreEventJSONLines.line(event))")
        }
    }

    /// An event's id is its format's name, its record's id and the suffix.
    @Test func eachFormatsEventIDsStartWithItsName() {
        for format in SourceFormat.allCases {
            #expect(format.eventID(of: "T-1") == format.rawValue + ":T-1")
            #expect(format.eventID(of: "T-1", suffix: ":refund") == format.rawValue + ":T-1:refund")
        }
    }
}
