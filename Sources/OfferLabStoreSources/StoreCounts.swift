import OfferLabIngest

/// The counters of a store source (docs/analysis.md §5: `quality.csv` totals, `sources.csv` per
/// source format).
public enum StoreCounter: String, CaseIterable, Sendable, Comparable {
    case linesRead = "lines_read"
    case malformedInvalidJSON = "malformed_invalid_json"
    case malformedMissingField = "malformed_missing_field"
    case malformedInvalidField = "malformed_invalid_field"
    case malformedBadTimestamp = "malformed_bad_timestamp"
    case malformedNegativePrice = "malformed_negative_price"
    case malformedInvalidCSV = "malformed_invalid_csv"
    case malformedLineTooLong = "malformed_line_too_long"
    /// A signed payload that fails Apple's verification (format, chain, dates, OIDs, signature).
    case malformedBadSignature = "malformed_bad_signature"
    /// A payload about another app than the job's `bundle_id`.
    case malformedOtherApp = "malformed_other_app"
    /// A record that carries no purchase fact (`TEST`, a summary, …).
    case ignoredStoreRecords = "ignored_store_records"
    /// A paid charge without a price: an event whose money is left out.
    case unpricedCharges = "unpriced_charges"
    /// A record no user could be found for.
    case unattributedStoreRecords = "unattributed_store_records"
    /// A record of `FAMILY_SHARED` ownership: the person who sees the paywall did not pay.
    case familySharedRecords = "family_shared_records"
    /// A notification whose `notificationType` OfferLab does not know; its transaction, if any,
    /// still counts.
    case unknownNotificationTypes = "unknown_notification_types"
    /// A partial refund whose amount no record says: a refund whose money is left out. Last, as
    /// the parsed-log cache keeps counters by their place in this list.
    case unpricedRefunds = "unpriced_refunds"

    /// Counters of lines that are malformed (they count in `malformed_lines` and its ratio).
    public var isMalformed: Bool { rawValue.hasPrefix("malformed_") }

    public init(_ reason: MalformedReason) {
        switch reason {
        case .invalidJSON: self = .malformedInvalidJSON
        case .missingField: self = .malformedMissingField
        case .invalidField: self = .malformedInvalidField
        case .badTimestamp: self = .malformedBadTimestamp
        case .negativePrice: self = .malformedNegativePrice
        case .invalidCSV: self = .malformedInvalidCSV
        case .lineTooLong: self = .malformedLineTooLong
        }
    }

    /// The reason of docs/input-formats.md#malformed-lines this counter is, when it is one (a
    /// purchase log counts it too); nil for the store's own counters (`malformed_bad_signature`,
    /// `malformed_other_app`, …).
    public var malformedReason: MalformedReason? {
        MalformedReason.allCases.first { StoreCounter($0) == self }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// How many times each counter was hit.
public struct StoreCounts: Sendable, Equatable {
    private var values: [StoreCounter: Int] = [:]

    public init() {}

    public subscript(counter: StoreCounter) -> Int {
        get { values[counter, default: 0] }
        set { values[counter] = newValue }
    }

    /// The counters hit, in the order of `StoreCounter`.
    public var nonZero: [(counter: StoreCounter, count: Int)] {
        StoreCounter.allCases.compactMap { counter in values[counter].flatMap { $0 > 0 ? (counter, $0) : nil } }
    }

    /// The lines counted malformed.
    public var malformedLines: Int { values.reduce(0) { $0 + ($1.key.isMalformed ? $1.value : 0) } }

    public static func += (lhs: inout StoreCounts, rhs: StoreCounts) {
        for (counter, count) in rhs.values { lhs[counter] += count }
    }
}

/// A line of a store source that was rejected or needs a note: where, and why.
public struct StoreLineNote: Sendable, Equatable {
    public var path: String
    /// 1-based, blank lines included.
    public var line: Int
    public var counter: StoreCounter
    /// What exactly was wrong, for a person reading the rejects.
    public var detail: String

    public init(path: String, line: Int, counter: StoreCounter, detail: String) {
        self.path = path
        self.line = line
        self.counter = counter
        self.detail = detail
    }
}

/// Why a line was rejected: the counter it goes to, and what exactly was wrong.
public struct StoreLineRejection: Error, Equatable, Sendable {
    public var counter: StoreCounter
    public var detail: String

    public init(_ counter: StoreCounter, _ detail: String) {
        self.counter = counter
        self.detail = detail
    }

    public init(_ reason: MalformedReason, _ detail: String) {
        self.init(StoreCounter(reason), detail)
    }
}
