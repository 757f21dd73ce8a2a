import OfferLabIngest

/// One file of RevenueCat's Scheduled Data Export (`revenuecat_export`,
/// docs/input-formats.md#the-export-column-by-column), read into rows; `RevenueCatExport.records`
/// merges the files of a source into its records.
///
/// The file is CSV (gzip or not, by its bytes), read by `TableFileReader`; columns are found by
/// their header name, in any order. Versions 4 and 5 price a charge with
/// `purchase_price_in_purchased_currency`; a file without that column is read as version 3,
/// whose charge price is `price_in_purchased_currency` and which has no `updated_at`.
///
/// A row becomes no record, counted with its line, for the first reason that applies:
/// 1. `malformed_line_too_long`, `malformed_invalid_csv` (a field count other than the header's,
///    or a quote never closed);
/// 2. `malformed_missing_field`: `store_transaction_id`, `renewal_number`, `start_time`,
///    `product_identifier`, `is_trial_period`, `is_trial_conversion`, `is_sandbox` or (version
///    4 and later) `updated_at` empty;
/// 3. `malformed_invalid_field`: `renewal_number` not a whole number from 1; a boolean other
///    than `true`/`false` in any case (`t`/`f` of version 3, `1`/`0`); a price, `tax_percentage`
///    or `commission_percentage` not a number; a current price above the purchase price;
/// 4. `malformed_bad_timestamp`: `start_time`, `refunded_at` or `updated_at` breaks the grammar
///    (docs/input-formats.md#timestamps), hours unpadded or not (`2023-12-12 1:35:31`);
/// 5. `malformed_missing_field`: a paid charge with a price but no `purchased_currency`;
/// 6. `malformed_negative_price`.
///
/// A price left empty (RevenueCat had not collected it) makes an unpriced charge; an `end_time`
/// that breaks the grammar is read as absent (docs/analysis.md §9); an empty user id makes an
/// unattributed record. Neither is malformed.
public struct RevenueCatExportFile: Sendable {
    public let path: String
    /// `lines_read` (the rows after the header) and the malformed rows by reason.
    public private(set) var counts = StoreCounts()
    /// The rejected rows, each at the line on which it starts.
    public private(set) var notes: [StoreLineNote] = []
    /// The usable rows, in file order.
    var rows: [RevenueCatExportRow] = []

    /// Reads the file whole.
    ///
    /// - Throws: `IngestError`: the file cannot be read or decompressed, or its header lacks a
    ///   required column (`missingColumn`, naming the file and the column).
    public init(path: String, userIDField: RevenueCatUserIDField = .originalAppUserID, inflater: Inflater = .fastestAvailable) throws {
        let reader = try TableFileReader(path: path, format: .csv, inflater: inflater)
        var columns = try RevenueCatExportColumns(reader: reader, userIDField: userIDField)
        var counts = StoreCounts()
        var notes: [StoreLineNote] = []
        var rows: [RevenueCatExportRow] = []
        try reader.forEachRow { row in
            counts[.linesRead] += 1
            do throws(StoreLineRejection) {
                rows.append(try columns.parse(row))
            } catch {
                counts[error.counter] += 1
                notes.append(StoreLineNote(path: path, line: row.lineNumber, counter: error.counter, detail: error.detail))
            }
        }
        self.path = path
        self.counts = counts
        self.notes = notes
        self.rows = rows
    }

    /// Reads the header alone: a job checks every file of the source this way before any work.
    ///
    /// - Throws: `IngestError`, as `init(path:userIDField:inflater:)` for the header.
    public static func checkColumns(
        path: String, userIDField: RevenueCatUserIDField = .originalAppUserID, inflater: Inflater = .fastestAvailable
    ) throws {
        let reader = try TableFileReader(path: path, format: .csv, inflater: inflater)
        _ = try RevenueCatExportColumns(reader: reader, userIDField: userIDField)
    }
}

/// The records of a `revenuecat_export` source.
public enum RevenueCatExport {
    /// One record per (`store_transaction_id`, `renewal_number`) over all the files, given in
    /// file order (sorted paths): a row sent again with a later `updated_at` replaces the
    /// earlier one; on a tie, and in version 3 files (no `updated_at`), the later in file order
    /// wins. Records come in the order their first row appears; the counters and notes are the
    /// files'.
    ///
    /// Stripe reuses `store_transaction_id` for the renewals of a subscription: when several
    /// records share one, the record with the lowest `renewal_number` keeps it as its
    /// `transactionID` and the others become `<store_transaction_id>:<renewal_number>`, so that
    /// each stays its own event.
    public static func records(_ files: [RevenueCatExportFile]) -> StoreSourceRecords {
        // Per store transaction id, the slot in `chosen` of its first record; the others of the
        // same id (other renewal numbers: Stripe's) follow it through `nextSlot` (-1: none).
        // One hashing of the id per row.
        // Sized for every row at once: a table grown as it fills hashes its ids again each time.
        let rowCount = files.reduce(0) { $0 + $1.rows.count }
        var firstSlots = [String: Int](minimumCapacity: rowCount)
        var nextSlot: [Int] = []
        nextSlot.reserveCapacity(rowCount)
        var chosen: [RevenueCatExportRow] = []
        chosen.reserveCapacity(rowCount)
        var records = StoreSourceRecords(format: .revenueCatExport)
        for file in files {
            records.counts += file.counts
            records.notes += file.notes
            for row in file.rows {
                let newSlot = chosen.count
                var slot = Self.firstSlot(of: row.storeTransactionID, in: &firstSlots, else: newSlot)
                while slot != newSlot && chosen[slot].renewalNumber != row.renewalNumber {
                    if nextSlot[slot] < 0 { nextSlot[slot] = newSlot }
                    slot = nextSlot[slot]
                }
                guard slot != newSlot else {
                    var first = row
                    first.transaction.sourcePath = file.path
                    chosen.append(first)
                    nextSlot.append(-1)
                    continue
                }
                let earlier = chosen[slot]
                if (row.updatedAt ?? .min) >= (earlier.updatedAt ?? .min) {
                    chosen[slot] = row.replacing(earlier)
                    chosen[slot].transaction.sourcePath = earlier.transaction.sourcePath
                }
            }
        }
        // The record with the lowest renewal number of each store transaction id keeps the id.
        var keepsID = [Bool](repeating: false, count: chosen.count)
        for first in firstSlots.values {
            var lowest = first
            var slot = nextSlot[first]
            while slot >= 0 {
                if chosen[slot].renewalNumber < chosen[lowest].renewalNumber { lowest = slot }
                slot = nextSlot[slot]
            }
            keepsID[lowest] = true
        }
        records.transactions.reserveCapacity(chosen.count)
        for (slot, row) in chosen.enumerated() {
            var transaction = row.transaction
            if !keepsID[slot] { transaction.transactionID = "\(row.storeTransactionID):\(row.renewalNumber)" }
            records.transactions.append(transaction)
        }
        return records
    }

    /// The slot of the first record of `storeTransactionID`, or `newSlot`, then recorded as its
    /// first: one lookup (the `default:` subscript's in-place access), not a lookup and an insert.
    private static func firstSlot(of storeTransactionID: String, in firstSlots: inout [String: Int], else newSlot: Int) -> Int {
        func slot(_ first: inout Int) -> Int {
            if first < 0 { first = newSlot }
            return first
        }
        return slot(&firstSlots[storeTransactionID, default: -1])
    }
}

/// One usable export row.
struct RevenueCatExportRow: Sendable {
    var storeTransactionID: String
    var renewalNumber: Int64
    var updatedAt: Int64?
    var transaction: StoreTransaction
    /// A refunded version 3 row: its price after the refund. Its gross price is unknown (version 3
    /// sets the price to what is left), so the row is unpriced unless it replaces an earlier row
    /// of the transaction, whose price is the gross one.
    var version3PriceAfterRefund: Int64?

    /// This row in place of `earlier`, the same transaction sent before.
    func replacing(_ earlier: RevenueCatExportRow) -> RevenueCatExportRow {
        guard let priceAfterRefund = version3PriceAfterRefund, let grossPrice = earlier.transaction.money.priceMicros,
            priceAfterRefund <= grossPrice, var refund = transaction.refund
        else { return self }
        var row = self
        row.transaction.money.priceMicros = grossPrice
        row.transaction.money.currency = transaction.money.currency ?? earlier.transaction.money.currency
        refund.amountMicros = priceAfterRefund == 0 ? nil : grossPrice - priceAfterRefund
        row.transaction.refund = refund
        return row
    }
}

/// The export's columns, found in a file's header, and the reading of a row through them.
struct RevenueCatExportColumns {
    let userID: Int
    let productID: Int
    let startTime: Int
    let storeTransactionID: Int
    let renewalNumber: Int
    let isTrialPeriod: Int
    let isTrialConversion: Int
    let isSandbox: Int
    let ownershipType: Int
    let purchasedCurrency: Int
    /// `price_in_purchased_currency`: what is left of the price after refunds.
    let priceAfterRefunds: Int
    let refundedAt: Int
    /// `purchase_price_in_purchased_currency` (version 4 and later); nil in version 3.
    let purchasePrice: Int?
    /// `updated_at` (version 4 and later); nil in version 3.
    let updatedAt: Int?
    let originalStoreTransactionID: Int?
    let country: Int?
    let platform: Int?
    let store: Int?
    let endTime: Int?
    let taxPercentage: Int?
    let commissionPercentage: Int?
    private var dayCache = Timestamp.DayCache()

    /// - Throws: `IngestError` (`missingColumn`) naming the file and the first missing column.
    init(reader: TableFileReader, userIDField: RevenueCatUserIDField) throws {
        let userColumn =
            switch userIDField {
            case .originalAppUserID: "rc_original_app_user_id"
            case .lastSeenAppUserID: "rc_last_seen_app_user_id_alias"
            }
        let required = try reader.requireColumns([
            userColumn, "product_identifier", "start_time", "store_transaction_id", "renewal_number", "is_trial_period",
            "is_trial_conversion", "is_sandbox", "ownership_type", "purchased_currency", "price_in_purchased_currency", "refunded_at",
        ])
        (userID, productID, startTime, storeTransactionID, renewalNumber, isTrialPeriod) =
            (required[0], required[1], required[2], required[3], required[4], required[5])
        (isTrialConversion, isSandbox, ownershipType, purchasedCurrency, priceAfterRefunds, refundedAt) =
            (required[6], required[7], required[8], required[9], required[10], required[11])
        purchasePrice = reader.columnIndex("purchase_price_in_purchased_currency")
        // Version 4 introduced the purchase price and `updated_at` together.
        updatedAt = purchasePrice == nil ? nil : try reader.requireColumns(["updated_at"])[0]
        originalStoreTransactionID = reader.columnIndex("original_store_transaction_id")
        country = reader.columnIndex("country")
        platform = reader.columnIndex("platform")
        store = reader.columnIndex("store")
        endTime = reader.columnIndex("end_time")
        taxPercentage = reader.columnIndex("tax_percentage")
        commissionPercentage = reader.columnIndex("commission_percentage")
    }

    /// The row's record, or the first reason it has none (see `RevenueCatExportFile`).
    mutating func parse(_ row: TableRow) throws(StoreLineRejection) -> RevenueCatExportRow {
        switch row.problem {
        case .tooLong: throw StoreLineRejection(.lineTooLong, "row longer than the line length limit")
        case .fieldCount: throw StoreLineRejection(.invalidCSV, "a field count other than the header's")
        case .unterminatedQuote: throw StoreLineRejection(.invalidCSV, "a quote never closed")
        case nil: break
        }
        func isEmpty(_ column: Int) -> Bool { row.bytes(at: column).isEmpty }
        func text(_ column: Int?) -> String? {
            guard let column, !isEmpty(column) else { return nil }
            return row.string(at: column)
        }
        // 2. Required values.
        // (One test per column: an array of them would be allocated per row.)
        if isEmpty(storeTransactionID) || isEmpty(renewalNumber) || isEmpty(startTime) || isEmpty(productID) || isEmpty(isTrialPeriod)
            || isEmpty(isTrialConversion) || isEmpty(isSandbox) || updatedAt.map(isEmpty) == true
        {
            throw StoreLineRejection(.missingField, "a required column is empty")
        }

        // 3. Values that are not what their column holds.
        guard let renewal = row.int64(at: renewalNumber), renewal >= 1,
            let trialPeriod = Self.bool(row.bytes(at: isTrialPeriod)),
            let trialConversion = Self.bool(row.bytes(at: isTrialConversion)),
            let sandbox = Self.bool(row.bytes(at: isSandbox))
        else { throw StoreLineRejection(.invalidField, "renewal_number or a boolean column is not what it holds") }
        func price(_ column: Int?) throws(StoreLineRejection) -> Int64? {
            guard let column, !isEmpty(column) else { return nil }
            guard let micros = Price.parseMicros(row.bytes(at: column)) else {
                throw StoreLineRejection(.invalidField, "a price that is not a number")
            }
            return micros
        }
        func share(_ column: Int?) throws(StoreLineRejection) -> Double? {
            guard let column, !isEmpty(column) else { return nil }
            guard let value = row.double(at: column) else { throw StoreLineRejection(.invalidField, "a share that is not a number") }
            return value
        }
        let leftPrice = try price(priceAfterRefunds)
        // Version 3 has no purchase price: its charge is priced by what is left after refunds.
        let grossPrice = try purchasePrice.map { column throws(StoreLineRejection) in try price(column) } ?? leftPrice
        let taxShare = try share(taxPercentage)
        let commissionShare = try share(commissionPercentage)

        // 4. Timestamps.
        func timestamp(_ column: Int) throws(StoreLineRejection) -> Int64? {
            guard !isEmpty(column) else { return nil }
            guard let micros = Self.timestamp(row.bytes(at: column), dayCache: &dayCache) else {
                throw StoreLineRejection(.badTimestamp, "a timestamp that breaks the timestamp grammar of docs/input-formats.md#timestamps")
            }
            return micros
        }
        guard let start = try timestamp(startTime) else { throw StoreLineRejection(.missingField, "no start_time") }
        let refunded = try timestamp(refundedAt)
        let updated = try updatedAt.flatMap { column throws(StoreLineRejection) in try timestamp(column) }
        let expires = endTime.flatMap { isEmpty($0) ? nil : Self.timestamp(row.bytes(at: $0), dayCache: &dayCache) }

        // 5. and 6. The money.
        let currency = text(purchasedCurrency)
        if !trialPeriod, grossPrice != nil, currency == nil {
            throw StoreLineRejection(.missingField, "a price without purchased_currency")
        }
        if (grossPrice ?? 0) < 0 || (leftPrice ?? 0) < 0 { throw StoreLineRejection(.negativePrice, "a negative price") }

        let kind: StoreTransaction.Kind = trialPeriod ? .trial : (renewal == 1 || trialConversion ? .firstCharge : .laterCharge)
        // Version 3 sets a refunded row's price to what is left: its gross price is not in it.
        let isVersion3Refund = self.purchasePrice == nil && refunded != nil && !trialPeriod
        var refund: StoreTransaction.Refund?
        if let refunded {
            var amount: Int64?
            if !isVersion3Refund, let grossPrice, let leftPrice, leftPrice != 0 {
                guard leftPrice <= grossPrice else {
                    throw StoreLineRejection(.invalidField, "price_in_purchased_currency above the purchase price")
                }
                amount = grossPrice - leftPrice
            }
            refund = StoreTransaction.Refund(at: refunded, amountMicros: amount)
        }
        let storeTransaction = row.string(at: storeTransactionID) ?? ""
        // A chain's first transaction is its own original: the id's string is shared, not made again.
        let originalTransaction =
            originalStoreTransactionID.map { column in row.bytes(at: column).elementsEqual(storeTransaction.utf8) } == true
            ? storeTransaction : text(originalStoreTransactionID)
        var transaction = StoreTransaction(
            format: .revenueCatExport, transactionID: storeTransaction, originalTransactionID: originalTransaction,
            productID: text(productID), kind: kind, at: start,
            money: .init(
                priceMicros: trialPeriod || isVersion3Refund ? nil : grossPrice, currency: trialPeriod ? nil : currency,
                taxShare: taxShare, commissionShare: commissionShare),
            buyer: StoreBuyer(
                userID: text(userID), isSandbox: sandbox, isFamilyShared: Self.isFamilyShared(row.bytes(at: ownershipType)),
                country: text(country), platform: text(platform), store: text(store)))
        transaction.expiresAt = expires
        transaction.refund = refund
        return RevenueCatExportRow(
            storeTransactionID: storeTransaction, renewalNumber: renewal, updatedAt: updated, transaction: transaction,
            version3PriceAfterRefund: isVersion3Refund ? (leftPrice ?? 0) : nil)
    }

    /// `FAMILY_SHARED` in any case (Unicode's: `ı` is an `I` too), without a `String` for an
    /// ASCII value.
    static func isFamilyShared(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return String(decoding: bytes, as: UTF8.self).uppercased() == "FAMILY_SHARED" }
        let name: StaticString = "FAMILY_SHARED"
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        // Clearing bit 5 uppercases a letter; `_` is compared as it is.
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let expected = name.utf8Start[index]
            if byte != expected && (expected == 0x5F || byte & ~0x20 != expected) { return false }
        }
        return true
    }

    /// `true`/`false` in any case (versions 4 and later), `t`/`f` (version 3), `1`/`0`.
    static func bool(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        if bytes.count == 1 {
            switch bytes[0] | 0x20 {
            case 0x74: return true  // t
            case 0x66: return false  // f
            default: break
            }
        }
        return TableValue.bool(bytes)
    }

    /// The timestamp grammar (docs/input-formats.md#timestamps), the hour also written with one
    /// digit (`2023-12-12 1:35:31`).
    static func timestamp(_ bytes: UnsafeRawBufferPointer, dayCache: inout Timestamp.DayCache) -> Int64? {
        guard bytes.count >= 13, bytes[10] == 0x20 || bytes[10] == 0x54, bytes[12] == 0x3A else {
            return Timestamp.parse(bytes, dayCache: &dayCache)
        }
        // One digit of hour: the same text with a leading zero.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count + 1) { padded in
            for index in 0..<11 { padded[index] = bytes[index] }
            padded[11] = 0x30
            for index in 11..<bytes.count { padded[index + 1] = bytes[index] }
            return Timestamp.parse(UnsafeRawBufferPointer(padded), dayCache: &dayCache)
        }
    }
}
