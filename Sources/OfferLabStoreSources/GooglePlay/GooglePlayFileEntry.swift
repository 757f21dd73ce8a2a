import OfferLabIngest

/// A line of a Google Play file as the parsed-log cache keeps it: its fields in the layout of the
/// store entries (`StoreEntryStrings`, `StoreEntryReader`), read back the same.
package protocol CachedGooglePlayLine: Sendable {
    func encode(into body: inout CacheEntryWriter, strings: inout StoreEntryStrings)
    init(reader: inout StoreEntryReader) throws
}

/// A Google Play file's reading as the parsed-log cache keeps it: the file's lines as read, before
/// they meet the other files' (the notifications' orders, links and re-deliveries, the Orders of
/// either night), so a night reads a kept file back and joins the month as it would have read it.
/// Its strings come first, then the counters, the notes and the lines, field by field; not its
/// path (the same bytes under another name are the same reading).
extension GooglePlayFile: CachedStoreFileReading where Record: CachedGooglePlayLine {
    package func encode(into entry: inout CacheEntryWriter) {
        var strings = StoreEntryStrings()
        var body = CacheEntryWriter(bytes: [])
        body.append(counts: counts, notes: notes, strings: &strings)
        body.append(Int64(lines.count))
        for line in lines { line.encode(into: &body, strings: &strings) }
        strings.write(body, into: &entry)
    }

    /// The reading kept in `entry`, as the reading of the file at `path`.
    /// - Throws: `CacheEntryReader.Damaged` when the payload is not one `encode` wrote.
    package init(entry: inout CacheEntryReader, path: String) throws {
        var reader = try StoreEntryReader(readingStringsOf: entry)
        defer { entry = reader.entry }
        let (counts, notes) = try reader.countsAndNotes(path: path)
        let count = try reader.entry.count()
        var lines: [Record] = []
        lines.reserveCapacity(count)
        for _ in 0..<count { lines.append(try Record(reader: &reader)) }
        self.init(path: path, counts: counts, notes: notes, lines: lines)
    }
}

extension GooglePlayNotification: CachedGooglePlayLine {
    package func encode(into body: inout CacheEntryWriter, strings: inout StoreEntryStrings) {
        body.append(strings.index(id))
        switch subject {
        case .subscription(let type, let token):
            body.append(UInt8(0))
            body.append(type)
            body.append(strings.index(token))
        case .oneTimeProduct(let type, let token):
            body.append(UInt8(1))
            body.append(type)
            body.append(strings.index(token))
        case .voided(let token, let orderID, let isPartial):
            body.append(UInt8(2))
            body.append(strings.index(token))
            body.append(strings.index(orderID))
            body.append(flags: isPartial)
        case .test: body.append(UInt8(3))
        }
        body.append(at)
        body.append(flags: hasState, buyer.isSandbox, buyer.isFamilyShared)
        for text in [linkedToken, buyer.userID, buyer.country, buyer.platform, buyer.store] { body.append(strings.index(text)) }
        body.append(Int64(orders.count))
        for order in orders {
            body.append(strings.index(order.orderID))
            body.append(strings.index(order.productID))
            body.append(strings.index(order.currency))
            body.append(flags: order.isTrial, order.priceMicros != nil, order.expiresAt != nil)
            body.append(order.at)
            if let price = order.priceMicros { body.append(price) }
            if let expiresAt = order.expiresAt { body.append(expiresAt) }
        }
    }

    package init(reader: inout StoreEntryReader) throws {
        id = try reader.string()
        switch try reader.entry.read(UInt8.self) {
        case 0: subject = .subscription(type: try reader.entry.read(Int64.self), token: try reader.string())
        case 1: subject = .oneTimeProduct(type: try reader.entry.read(Int64.self), token: try reader.string())
        case 2: subject = .voided(token: try reader.string(), orderID: try reader.string(), isPartial: try reader.flags(count: 1)[0])
        case 3: subject = .test
        default: throw CacheEntryReader.Damaged()
        }
        at = try reader.entry.read(Int64.self)
        let flags = try reader.flags(count: 3)
        hasState = flags[0]
        linkedToken = try reader.optionalString()
        buyer = StoreBuyer(
            userID: try reader.optionalString(), isSandbox: flags[1], isFamilyShared: flags[2], country: try reader.optionalString(),
            platform: try reader.optionalString(), store: try reader.optionalString())
        let count = try reader.entry.count()
        orders.reserveCapacity(count)
        for _ in 0..<count {
            let (orderID, productID, currency) = (try reader.string(), try reader.string(), try reader.optionalString())
            let flags = try reader.flags(count: 3)
            orders.append(
                Order(
                    orderID: orderID, productID: productID, isTrial: flags[0], at: try reader.entry.read(Int64.self),
                    priceMicros: try reader.int64(if: flags[1]), currency: currency, expiresAt: try reader.int64(if: flags[2])))
        }
    }
}

extension GooglePlayOrder: CachedGooglePlayLine {
    package func encode(into body: inout CacheEntryWriter, strings: inout StoreEntryStrings) {
        body.append(strings.index(orderID))
        body.append(lastEventAt)
        body.append(details.format)
        for text in [details.transactionID, details.money.currency, details.sourcePath] { body.append(strings.index(text)) }
        let money = details.money
        body.append(
            flags: money.priceMicros != nil, money.taxShare != nil, money.commissionShare != nil, money.proceedsMicros != nil,
            details.refunds != nil)
        body.append(details.at)
        if let price = money.priceMicros { body.append(price) }
        if let share = money.taxShare { body.append(share.bitPattern) }
        if let share = money.commissionShare { body.append(share.bitPattern) }
        if let proceeds = money.proceedsMicros { body.append(proceeds) }
        if let refunds = details.refunds {
            body.append(refunds.at)
            body.append(refunds.amountMicros)
        }
    }

    package init(reader: inout StoreEntryReader) throws {
        orderID = try reader.string()
        lastEventAt = try reader.entry.read(Int64.self)
        let format = try reader.format()
        let (transactionID, currency, sourcePath) = (try reader.string(), try reader.optionalString(), try reader.optionalString())
        let flags = try reader.flags(count: 5)
        let at = try reader.entry.read(Int64.self)
        let money = StoreTransaction.Money(
            priceMicros: try reader.int64(if: flags[0]), currency: currency,
            taxShare: flags[1] ? Double(bitPattern: try reader.entry.read(UInt64.self)) : nil,
            commissionShare: flags[2] ? Double(bitPattern: try reader.entry.read(UInt64.self)) : nil,
            proceedsMicros: try reader.int64(if: flags[3]))
        let refunds =
            flags[4]
            ? StoreChargeDetails.Refunds(at: try reader.entry.read(Int64.self), amountMicros: try reader.entry.read(Int64.self)) : nil
        details = StoreChargeDetails(format: format, transactionID: transactionID, at: at, money: money, refunds: refunds)
        details.sourcePath = sourcePath
    }
}
