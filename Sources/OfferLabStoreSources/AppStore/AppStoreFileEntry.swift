import OfferLabIngest

/// An App Store file's reading as the parsed-log cache keeps it (`CachedStoreFileReading`): a later
/// night reads a month of verified, decoded notifications back, so the layout is made to be read
/// fast. Its strings come first, each distinct one once (products, currencies, countries and most
/// users repeat from notification to notification), and the records name them by index; then the
/// counters, the notes and the notifications, field by field. The file's path is not kept: the
/// same bytes under another name are the same reading.
///
/// Every index, count, flag and enum value read is checked: a payload of another layout that got
/// past the entry's checks is refused (`CacheEntryReader.Damaged`), never misread.
extension AppStoreFileReading {
    package func encode(into entry: inout CacheEntryWriter) {
        var strings = StoreEntryStrings()
        var body = CacheEntryWriter(bytes: [])
        body.append(counts: counts, notes: notes, strings: &strings)
        body.append(Int64(notifications.count))
        for notification in notifications {
            body.append(strings.index(notification.id))
            body.append(strings.index(notification.type))
            body.append(strings.index(notification.subtype))
            body.append(notification.signedAt)
            body.append(
                flags: notification.isKnownType, notification.transaction != nil, notification.statusChange != nil,
                notification.refundReversal != nil)
            if let transaction = notification.transaction { Self.encode(transaction, into: &body, strings: &strings) }
            if let change = notification.statusChange { Self.encode(change, into: &body, strings: &strings) }
            if let reversal = notification.refundReversal {
                body.append(reversal.format)
                body.append(strings.index(reversal.id))
                body.append(strings.index(reversal.transactionID))
                body.append(reversal.at)
            }
        }
        strings.write(body, into: &entry)
    }

    fileprivate static func encode(_ record: StoreTransaction, into body: inout CacheEntryWriter, strings: inout StoreEntryStrings) {
        body.append(record.format)
        let kind: UInt8 =
            switch record.kind {
            case .trial: 0
            case .firstCharge: 1
            case .laterCharge: 2
            case .chargeByChainOrder: 3
            }
        body.append(kind)
        body.append(
            flags: record.buyer.isSandbox, record.buyer.isFamilyShared, record.money.priceMicros != nil, record.expiresAt != nil,
            record.money.taxShare != nil, record.money.commissionShare != nil, record.refund != nil, record.refund?.amountMicros != nil)
        body.append(record.at)
        for text in [
            record.transactionID, record.originalTransactionID, record.productID, record.money.currency, record.buyer.userID,
            record.buyer.country, record.buyer.platform, record.buyer.store, record.sourcePath,
        ] {
            body.append(strings.index(text))
        }
        if let price = record.money.priceMicros { body.append(price) }
        if let expiresAt = record.expiresAt { body.append(expiresAt) }
        if let share = record.money.taxShare { body.append(share.bitPattern) }
        if let share = record.money.commissionShare { body.append(share.bitPattern) }
        if let refund = record.refund {
            body.append(refund.at)
            if let amount = refund.amountMicros { body.append(amount) }
        }
    }

    fileprivate static func encode(_ change: StoreStatusChange, into body: inout CacheEntryWriter, strings: inout StoreEntryStrings) {
        body.append(change.format)
        body.append(change.event.rawValue)
        body.append(flags: change.buyer.isSandbox)
        body.append(change.at)
        for text in [
            change.id, change.originalTransactionID, change.transactionID, change.productID, change.buyer.userID,
            change.buyer.country, change.buyer.platform, change.buyer.store, change.sourcePath,
        ] {
            body.append(strings.index(text))
        }
    }

    /// The reading kept in `entry`, as the reading of the file at `path`.
    /// - Throws: `CacheEntryReader.Damaged` when the payload is not one `encode` wrote.
    package init(entry: inout CacheEntryReader, path: String) throws {
        self.init(path: path)
        var reader = try StoreEntryReader(readingStringsOf: entry)
        defer { entry = reader.entry }
        (counts, notes) = try reader.countsAndNotes(path: path)
        let count = try reader.entry.count()
        notifications.reserveCapacity(count)
        for _ in 0..<count {
            let id = try reader.string()
            let type = try reader.string()
            let subtype = try reader.optionalString()
            let signedAt = try reader.entry.read(Int64.self)
            let flags = try reader.flags(count: 4)
            var notification = AppStoreNotification(id: id, type: type, subtype: subtype, signedAt: signedAt, isKnownType: flags[0])
            if flags[1] { notification.transaction = try reader.transaction() }
            if flags[2] { notification.statusChange = try reader.statusChange() }
            if flags[3] {
                notification.refundReversal = StoreRefundReversal(
                    format: try reader.format(), id: try reader.string(), transactionID: try reader.string(),
                    at: try reader.entry.read(Int64.self))
            }
            notifications.append(notification)
        }
    }
}

/// `StoreFileRecords` laid out as `AppStoreFileReading`'s records.
extension StoreFileRecords {
    /// The distinct strings first, then the records.
    package func encode(into entry: inout CacheEntryWriter) {
        var strings = StoreEntryStrings()
        var body = CacheEntryWriter(bytes: [])
        body.append(Int64(transactions.count))
        for transaction in transactions { AppStoreFileReading.encode(transaction, into: &body, strings: &strings) }
        body.append(Int64(statusChanges.count))
        for change in statusChanges { AppStoreFileReading.encode(change, into: &body, strings: &strings) }
        strings.write(body, into: &entry)
    }

    /// The records kept in `entry`.
    /// - Throws: `CacheEntryReader.Damaged` when the payload is not one `encode` wrote.
    package init(entry: inout CacheEntryReader) throws {
        var reader = try StoreEntryReader(readingStringsOf: entry)
        defer { entry = reader.entry }
        for _ in 0..<(try reader.entry.count()) { transactions.append(try reader.transaction()) }
        for _ in 0..<(try reader.entry.count()) { statusChanges.append(try reader.statusChange()) }
    }
}

/// The App Store's records as its entries lay them out.
extension StoreEntryReader {
    mutating func transaction() throws -> StoreTransaction {
        let format = try format()
        let kinds: [StoreTransaction.Kind] = [.trial, .firstCharge, .laterCharge, .chargeByChainOrder]
        let kindIndex = Int(try entry.read(UInt8.self))
        guard kindIndex < kinds.count else { throw CacheEntryReader.Damaged() }
        let flags = try flags(count: 8)
        let at = try entry.read(Int64.self)
        var record = StoreTransaction(
            format: format, transactionID: try string(), originalTransactionID: try optionalString(), productID: try optionalString(),
            kind: kinds[kindIndex], at: at, money: .init(currency: try optionalString()),
            buyer: StoreBuyer(
                userID: try optionalString(), isSandbox: flags[0], isFamilyShared: flags[1], country: try optionalString(),
                platform: try optionalString(), store: try optionalString()))
        record.sourcePath = try optionalString()
        if flags[2] { record.money.priceMicros = try entry.read(Int64.self) }
        if flags[3] { record.expiresAt = try entry.read(Int64.self) }
        if flags[4] { record.money.taxShare = Double(bitPattern: try entry.read(UInt64.self)) }
        if flags[5] { record.money.commissionShare = Double(bitPattern: try entry.read(UInt64.self)) }
        if flags[6] {
            let at = try entry.read(Int64.self)
            record.refund = .init(at: at, amountMicros: flags[7] ? try entry.read(Int64.self) : nil)
        } else if flags[7] {
            throw CacheEntryReader.Damaged()
        }
        return record
    }

    mutating func statusChange() throws -> StoreStatusChange {
        let format = try format()
        guard let event = EventType(rawValue: try entry.read(UInt8.self)) else { throw CacheEntryReader.Damaged() }
        let isSandbox = try flags(count: 1)[0]
        let at = try entry.read(Int64.self)
        var change = StoreStatusChange(
            format: format, id: try string(), event: event, at: at, originalTransactionID: try optionalString(),
            transactionID: try optionalString(), productID: try optionalString(),
            buyer: StoreBuyer(
                userID: try optionalString(), isSandbox: isSandbox, country: try optionalString(), platform: try optionalString(),
                store: try optionalString()))
        change.sourcePath = try optionalString()
        return change
    }
}
