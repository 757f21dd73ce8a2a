import OfferLabIngest

/// What the generator wrote into the logs, by kind: the numbers a reader of the data set can
/// check its own counts against. Shards add theirs together.
public struct LogCounts: Sendable, Equatable {
    /// Log files written.
    public var files = 0
    /// Files holding several gzip members.
    public var multiMemberFiles = 0
    /// Non-blank lines (JSON lines and CSV rows, malformed ones included; CSV headers excluded).
    public var lines = 0
    public var blankLines = 0
    public var csvRows = 0
    /// Distinct events written (first deliveries).
    public var events = 0
    /// The same `event_id` delivered again.
    public var redeliveries = 0
    /// The same transaction sent again under a new `event_id`.
    public var resends = 0
    public var camelCaseLines = 0
    /// Lines with both `test_group_id` and `testGroupId` (different values; snake_case wins).
    public var bothSpellingLines = 0
    public var sandboxLines = 0
    public var unknownTypeLines = 0
    /// Lines whose `ts` is at or after `as_of`.
    public var afterEndLines = 0
    /// Malformed lines by the reason the checks of docs/input-formats.md#malformed-lines give.
    public var malformed: [MalformedReason: Int] = [:]
    /// Of `files` and `lines`: the files in `showcase/` and their lines, every one malformed (the
    /// fixed showcase and the malformed copies that may name money).
    public var showcaseFiles = 0
    public var showcaseLines = 0
    /// Uncompressed bytes of every log file.
    public var uncompressedBytes: Int64 = 0
    /// The store's files (`--format` other than `offerlab`): files, export rows or webhook lines
    /// (header rows excluded), and the records RevenueCat adds that become no event.
    public var storeFiles = 0
    public var storeLines = 0
    public var storeUncompressedBytes: Int64 = 0
    public var familySharedRecords = 0
    public var ignoredStoreRecords = 0
    /// App Store notifications (of `storeLines`): the line whose signature does not verify, the
    /// line about another app, the refunds reversed (`REFUND` then `REFUND_REVERSED`), and the
    /// rows of the `user_transactions` table.
    public var badSignatureLines = 0
    public var otherAppLines = 0
    public var reversedRefunds = 0
    public var userTransactionRows = 0

    public init() {}

    public var malformedLines: Int { malformed.values.reduce(0, +) }

    static func + (lhs: LogCounts, rhs: LogCounts) -> LogCounts {
        var sum = lhs
        sum.files += rhs.files
        sum.multiMemberFiles += rhs.multiMemberFiles
        sum.lines += rhs.lines
        sum.blankLines += rhs.blankLines
        sum.csvRows += rhs.csvRows
        sum.events += rhs.events
        sum.redeliveries += rhs.redeliveries
        sum.resends += rhs.resends
        sum.camelCaseLines += rhs.camelCaseLines
        sum.bothSpellingLines += rhs.bothSpellingLines
        sum.sandboxLines += rhs.sandboxLines
        sum.unknownTypeLines += rhs.unknownTypeLines
        sum.afterEndLines += rhs.afterEndLines
        sum.malformed.merge(rhs.malformed, uniquingKeysWith: +)
        sum.showcaseFiles += rhs.showcaseFiles
        sum.showcaseLines += rhs.showcaseLines
        sum.uncompressedBytes += rhs.uncompressedBytes
        sum.storeFiles += rhs.storeFiles
        sum.storeLines += rhs.storeLines
        sum.storeUncompressedBytes += rhs.storeUncompressedBytes
        sum.familySharedRecords += rhs.familySharedRecords
        sum.ignoredStoreRecords += rhs.ignoredStoreRecords
        sum.badSignatureLines += rhs.badSignatureLines
        sum.otherAppLines += rhs.otherAppLines
        sum.reversedRefunds += rhs.reversedRefunds
        sum.userTransactionRows += rhs.userTransactionRows
        return sum
    }
}
