import OfferLabIngest

/// What the generator wrote into the logs, by kind: the numbers a reader of the data set can
/// check its own counts against. Shards add theirs together.
package struct LogCounts: Sendable, Equatable {
    /// Log files written.
    package var files = 0
    /// Files holding several gzip members.
    package var multiMemberFiles = 0
    /// Non-blank lines (JSON lines and CSV rows, malformed ones included; CSV headers excluded).
    package var lines = 0
    package var blankLines = 0
    package var csvRows = 0
    /// Distinct events written (first deliveries).
    package var events = 0
    /// The same `event_id` delivered again.
    package var redeliveries = 0
    /// The same transaction sent again under a new `event_id`.
    package var resends = 0
    package var camelCaseLines = 0
    /// Lines with both `test_group_id` and `testGroupId` (different values; snake_case wins).
    package var bothSpellingLines = 0
    package var sandboxLines = 0
    package var unknownTypeLines = 0
    /// Lines whose `ts` is at or after `as_of`.
    package var afterEndLines = 0
    /// Malformed lines by the reason the checks of docs/input-formats.md#malformed-lines give.
    package var malformed: [MalformedReason: Int] = [:]
    /// Of `files` and `lines`: the files in `showcase/` and their lines, every one malformed (the
    /// fixed showcase and the malformed copies that may name money).
    package var showcaseFiles = 0
    package var showcaseLines = 0
    /// Uncompressed bytes of every log file.
    package var uncompressedBytes: Int64 = 0
    /// The store's files (`--format` other than `offerlab`): files, export rows or webhook lines
    /// (header rows excluded), and the records RevenueCat adds that become no event.
    package var storeFiles = 0
    package var storeLines = 0
    package var storeUncompressedBytes: Int64 = 0
    package var familySharedRecords = 0
    package var ignoredStoreRecords = 0
    /// App Store notifications (of `storeLines`): the line whose signature does not verify, the
    /// line about another app, the refunds reversed (`REFUND` then `REFUND_REVERSED`), and the
    /// rows of the `user_transactions` table.
    package var badSignatureLines = 0
    package var otherAppLines = 0
    package var reversedRefunds = 0
    package var userTransactionRows = 0
    /// Google Play's notifications (of `storeLines`): the renewals recovered after a grace period
    /// and after an account hold (each such notification is an `ignored_store_records`), the
    /// license testers' purchases (sandbox records the logs' form does not have), and the Orders
    /// listed in the folder of the day after their charge's.
    package var gracePeriods = 0
    package var accountHolds = 0
    package var testPurchases = 0
    package var delayedOrders = 0
    /// The app's past (`history/`, `HistoryWriter`): files and lines, apart from the logs' `files`
    /// and `lines` (a job reads them as `history_logs`).
    package var historyFiles = 0
    package var historyLines = 0

    package init() {}

    package var malformedLines: Int { malformed.values.reduce(0, +) }

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
        sum.gracePeriods += rhs.gracePeriods
        sum.accountHolds += rhs.accountHolds
        sum.testPurchases += rhs.testPurchases
        sum.delayedOrders += rhs.delayedOrders
        sum.historyFiles += rhs.historyFiles
        sum.historyLines += rhs.historyLines
        return sum
    }
}
