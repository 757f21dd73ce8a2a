import OfferLabIngest

/// Writes one shard's store facts in RevenueCat's forms, a file per day of delivery:
/// `revenuecat/export/YYYY-MM-DD/transactions_<shard>.csv.gz` (version 5, every column, CRLF)
/// or `revenuecat/webhooks/YYYY/MM/DD/webhooks-<shard>.jsonl.gz` (one POST body a line).
///
/// The same events as the purchase logs (docs/input-formats.md#purchase-logs) would hold, so that a
/// run on them gives the same numbers:
/// times to the millisecond; money in the purchased currency; the store the logs name
/// (`store`: the App Store where they name none, the job's `default_store`); `end_time` /
/// `expiration_at_ms` from the logs' `expires_at`; `tax_percentage` 0 (the job has no
/// `tax_rates`) and `commission_percentage` the store's share docs/analysis.md §8 gives the event
/// (Google Play 0.15, the App Store 0.3, 0.15 on a renewal a year or more after its chain's first
/// charge), so the proceeds are the logs'. What RevenueCat adds is shaped as it
/// sends it: a trial conversion is renewal 2 (`is_trial_conversion`), a refund re-sends the
/// charge's row with `refunded_at` and what is left of the price (and a later `updated_at`),
/// a duplicate delivery is an exact duplicate row or a retried webhook (the same `id`), a
/// refund of a transaction from before the data re-sends that old charge. Quirks by fixed
/// patterns of the user index or transaction: Play Store order ids with `..0`, `..1` renewal
/// suffixes (the Play Store's users), `TRUE`/`FALSE` and unpadded hours on some rows, a
/// `FAMILY_SHARED` purchase of its own (i mod 997 = 5), and webhooks of types that carry no
/// purchase fact (i mod 250 = 17).
///
/// Draws nothing from the users' random streams: the app's logs stay the same lines.
struct RevenueCatWriter: StoreFactWriter {
    let configuration: GeneratorConfiguration
    let shard: Int
    private var files: [LogFile?]
    private var line: [UInt8] = []
    /// The rows written for the current user's transactions, by transaction.
    private var rows: [UInt64: Row] = [:]
    /// The last renewal number of each of the current user's chains.
    private var chainRenewals: [UInt64: Int] = [:]
    /// The time of the first paid charge of each of the current user's chains (microseconds).
    private var chainFirstCharges: [UInt64: Int64] = [:]
    private var familyRecords = 0
    private var ignoredRecords = 0

    /// The folder of the store's files, in the output folder.
    static let folder = "revenuecat"
    /// Transactions of the extra family-shared purchases.
    static let familyTransactionBase: UInt64 = 3_000_000_000_000_000

    /// What RevenueCat knows of a transaction: one export row, or the charge a webhook describes.
    struct Row {
        var transaction: UInt64
        var chain: UInt64
        var product: Int
        /// Milliseconds since the epoch.
        var startMillis: Int64
        var updatedMillis: Int64
        var priceMinor: Int64
        var currency: Int
        var renewal: Int
        var isTrial: Bool
        var isConversion: Bool
        var isFamilyShared = false
        var refundedMillis: Int64?
        var leftMinor: Int64
        /// `end_time` / `expiration_at_ms`: the end of the period the transaction gives.
        var expiresMillis: Int64?
        /// `commission_percentage`: the store's share of the price.
        var commission = RevenueCatWriter.appStoreCommission
    }

    /// The stores' shares of a price (docs/analysis.md §8); the job has no `tax_rates`, so no tax.
    static let appStoreCommission = 0.3
    static let reducedCommission = 0.15

    init(configuration: GeneratorConfiguration, shard: Int) {
        self.configuration = configuration
        self.shard = shard
        files = Array(repeating: nil, count: configuration.days + 1)
        line.reserveCapacity(2048)
    }

    /// The file of a day, relative to the output folder.
    static func relativePath(day: Int, shard: Int, configuration: GeneratorConfiguration) -> String {
        let date = CivilDate(daysSinceEpoch: configuration.start.daysSinceEpoch + Int64(day))
        switch configuration.shape.sourceFormat {
        case .revenueCatWebhooks:
            return "revenuecat/webhooks/" + date.description.replacingOccurrences(of: "-", with: "/") + "/webhooks-\(shard).jsonl.gz"
        default:
            return "revenuecat/export/\(date)/transactions_\(shard).csv.gz"
        }
    }

    private mutating func file(day: Int) throws -> LogFile {
        if let file = files[day] { return file }
        let file = LogFile(
            path: configuration.outputDirectory + "/" + Self.relativePath(day: day, shard: shard, configuration: configuration),
            format: .jsonLines, usesCRLF: configuration.shape.sourceFormat == .revenueCatExport || (day + shard) % 3 == 1,
            omitsFinalNewline: false, memberSize: LogShardWriter.isMultiMember(day: day, shard: shard) ? LogShardWriter.memberSize : nil,
            level: configuration.compressionLevel)
        if configuration.shape.sourceFormat == .revenueCatExport {
            // The header row, written as a line (the file is a line writer here).
            try file.appendLine(Self.exportHeader.joined(separator: ",").bytes)
        }
        files[day] = file
        return file
    }

    mutating func startUser() {
        rows.removeAll(keepingCapacity: true)
        chainRenewals.removeAll(keepingCapacity: true)
        chainFirstCharges.removeAll(keepingCapacity: true)
    }

    mutating func write(_ event: SimEvent, user: UserProfile, day: Int) throws {
        let millis = Self.floorMillis(event.time)
        let received = Self.floorMillis(event.time + event.receiveDelay)
        switch event.kind {
        case .trialStart, .purchase, .renewal:
            if event.delivery != .original, let row = rows[event.transaction] {
                // An exact duplicate row; a retried webhook (or another one for the transaction).
                return try emit(row, kind: event.kind, event: event, user: user, day: day)
            }
            let row = makeRow(
                event, user: user, currency: event.kind == .trialStart ? user.currency : Int(event.currency), millis: millis,
                updated: received)
            rows[event.transaction] = row
            try emit(row, kind: event.kind, event: event, user: user, day: day)
        case .refund:
            var row = rows[event.transaction] ?? oldCharge(event, user: user, millis: millis)
            if row.refundedMillis == nil {
                row.refundedMillis = millis
                // Later than the charge row's: a charge received after its refund (a late log
                // line) would otherwise replace the refund's row (the latest `updated_at` wins).
                row.updatedMillis = max(received, row.updatedMillis + 1)
                row.leftMinor = event.amount < 0 ? 0 : max(0, row.priceMinor - event.amount)
                rows[event.transaction] = row
            }
            try emit(row, kind: .refund, event: event, user: user, day: day)
        case .cancel, .expire:
            try emitStatus(event, user: user, day: day)
        default:
            return
        }
    }

    /// A family-shared purchase (Family Sharing is the App Store's: never a Google Play user's),
    /// a webhook of a type without a purchase fact.
    mutating func writeExtras(of user: UserProfile) throws {
        let time = user.arrival + Micros.day
        let day = Int((time - configuration.startMicros) / Micros.day)
        guard day >= 0, day < configuration.days else { return }
        if user.index % 997 == 5 && !user.paysThroughPlayStore {
            let transaction = Self.familyTransactionBase + UInt64(user.index)
            let millis = Self.floorMillis(time)
            let product = Catalog.monthly1999
            let row = Row(
                transaction: transaction, chain: transaction, product: product, startMillis: millis, updatedMillis: millis,
                priceMinor: Catalog.products[product].prices[user.currency], currency: user.currency, renewal: 1, isTrial: false,
                isConversion: false, isFamilyShared: true, leftMinor: Catalog.products[product].prices[user.currency],
                expiresMillis: Self.floorMillis(time + Int64(Catalog.products[product].renewalDays) * Micros.day),
                commission: Self.commission(of: user))
            var event = SimEvent(time: time, sequence: 0, kind: .purchase)
            event.idHigh = transaction
            event.idLow = UInt64(user.index)
            try emit(row, kind: .purchase, event: event, user: user, day: day)
            familyRecords += 1
        }
        if configuration.shape.sourceFormat == .revenueCatWebhooks && user.index % 250 == 17 {
            let types: [StaticString] = ["BILLING_ISSUE", "UNCANCELLATION", "TEST", "SUBSCRIPTION_PAUSED"]
            var event = SimEvent(time: time, sequence: 0, kind: .cancel)
            event.idHigh = UInt64(user.index)
            event.idLow = 0x5EED
            try emitWebhook(type: types[user.index / 250 % types.count], event: event, user: user, day: day) { _ in }
            ignoredRecords += 1
        }
    }

    mutating func finish(into counts: inout LogCounts) throws {
        for file in files {
            guard let file, try file.finish() else { continue }
            counts.storeFiles += 1
            // The export's header row is no record.
            counts.storeLines += file.lines - (configuration.shape.sourceFormat == .revenueCatExport ? 1 : 0)
            counts.storeUncompressedBytes += Int64(file.uncompressedBytes)
        }
        counts.familySharedRecords += familyRecords
        counts.ignoredStoreRecords += ignoredRecords
    }

    // MARK: - Rows

    private mutating func makeRow(_ event: SimEvent, user: UserProfile, currency: Int, millis: Int64, updated: Int64) -> Row {
        var chain = event.transaction
        var renewal = 1
        var isConversion = false
        switch event.kind {
        case .purchase where event.original != 0 && event.original != event.transaction:
            // The first charge after a free trial: RevenueCat counts it as renewal 2.
            chain = event.original
            renewal = (chainRenewals[chain] ?? 1) + 1
            isConversion = true
        case .renewal:
            chain = event.original
            renewal = (chainRenewals[chain] ?? 1) + 1
        default:
            break
        }
        chainRenewals[chain] = renewal
        var commission = Self.commission(of: user)
        if event.kind != .trialStart {
            let firstCharge = chainFirstCharges[chain] ?? event.time
            chainFirstCharges[chain] = min(firstCharge, event.time)
            // The App Store's second year: 15 % of a renewal a year or more after the chain's first charge.
            if event.kind == .renewal && event.time - firstCharge >= 365 * Micros.day { commission = Self.reducedCommission }
        }
        let price = event.kind == .trialStart ? 0 : max(0, event.amount)
        return Row(
            transaction: event.transaction, chain: chain, product: Int(event.product), startMillis: millis, updatedMillis: updated,
            priceMinor: price, currency: currency, renewal: renewal, isTrial: event.kind == .trialStart,
            isConversion: isConversion, leftMinor: price, expiresMillis: event.expiresAt == 0 ? nil : Self.floorMillis(event.expiresAt),
            commission: commission)
    }

    /// The store's share of the user's charges: Google Play's 15 %, else the App Store's 30 %.
    private static func commission(of user: UserProfile) -> Double {
        user.paysThroughPlayStore ? reducedCommission : appStoreCommission
    }

    /// The charge a refund of a transaction from before the data refunds: re-sent with it.
    private func oldCharge(_ event: SimEvent, user: UserProfile, millis: Int64) -> Row {
        let price = max(0, event.amount)
        let start = millis - 30 * Micros.day / 1000
        return Row(
            transaction: event.transaction, chain: event.transaction, product: max(0, Int(event.product)), startMillis: start,
            updatedMillis: start, priceMinor: price, currency: Int(event.currency), renewal: 1, isTrial: false, isConversion: false,
            leftMinor: price, expiresMillis: millis, commission: Self.commission(of: user))
    }

    private static func floorMillis(_ micros: Int64) -> Int64 { micros >= 0 ? micros / 1000 : (micros - 999) / 1000 }

    /// The store's id of a transaction: the Apple-style number, or for Play Store users the
    /// chain's order id `GPA.dddd-dddd-dddd-ddddd`, with `..0`, `..1`… from the second charge on.
    private static func appendTransactionID(_ row: Row, user: UserProfile, original: Bool, to bytes: inout [UInt8]) {
        guard user.paysThroughPlayStore else {
            bytes.appendDecimal(original ? row.chain : row.transaction)
            return
        }
        let digits = Array(String(row.chain % 10_000_000_000_000_000).utf8)
        let padded = [UInt8](repeating: UInt8(ascii: "0"), count: max(0, 17 - digits.count)) + digits
        bytes.appendASCII("GPA.")
        for (index, digit) in padded.enumerated() {
            if index == 4 || index == 8 || index == 12 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(digit)
        }
        if !original && row.renewal >= 2 {
            bytes.appendASCII("..")
            bytes.appendDecimal(row.renewal - 2)
        }
    }

    // MARK: - The export

    /// Version 5's columns, in the documented order.
    static let exportHeader = [
        "rc_original_app_user_id", "rc_last_seen_app_user_id_alias", "country", "country_source", "product_identifier",
        "product_display_name", "product_duration", "start_time", "end_time", "grace_period_end_time", "effective_end_time", "store",
        "is_auto_renewable", "is_trial_period", "is_in_intro_offer_period", "is_sandbox", "price_in_usd", "purchase_price_in_usd",
        "takehome_percentage", "tax_percentage", "commission_percentage", "store_transaction_id", "original_store_transaction_id",
        "refunded_at", "unsubscribe_detected_at", "billing_issues_detected_at", "purchased_currency", "price_in_purchased_currency",
        "purchase_price_in_purchased_currency", "entitlement_identifiers", "renewal_number", "is_trial_conversion",
        "presented_offering", "ownership_type", "reserved_subscriber_attributes", "custom_subscriber_attributes", "platform",
        "experiment_id", "experiment_variant", "updated_at", "offer", "offer_type", "first_seen_time", "auto_resume_time",
    ]

    private mutating func emit(_ row: Row, kind: EventKind, event: SimEvent, user: UserProfile, day: Int) throws {
        switch configuration.shape.sourceFormat {
        case .revenueCatExport: try emitExportRow(row, user: user, day: day)
        case .revenueCatWebhooks: try emitChargeWebhook(row, kind: kind, event: event, user: user, day: day)
        default: return
        }
    }

    private mutating func emitExportRow(_ row: Row, user: UserProfile, day: Int) throws {
        let product = Catalog.products[row.product]
        let currency = Catalog.currencies[row.currency]
        let upper = row.transaction % 7 == 3
        let unpadded = row.transaction % 5 == 1
        line.removeAll(keepingCapacity: true)
        func comma() { line.append(UInt8(ascii: ",")) }
        func flag(_ value: Bool) {
            if upper { line.appendASCII(value ? "TRUE" : "FALSE") } else { line.appendASCII(value ? "true" : "false") }
        }
        func time(_ millis: Int64) {
            var style = TimestampStyle()
            style.separator = UInt8(ascii: " ")
            style.zone = .none
            style.fractionDigits = millis % 1000 == 0 ? 0 : 3
            let start = line.count
            line.appendTimestamp(millis * 1000, style: style)
            // `2023-12-12 1:35:31`, as some loaders rewrite the export.
            if unpadded && line[start + 11] == UInt8(ascii: "0") { line.remove(at: start + 11) }
        }
        func money(_ minor: Int64) { line.appendMoney(minorUnits: minor, exponent: currency.exponent) }
        user.appendID(to: &line)  // rc_original_app_user_id
        comma()
        user.appendID(to: &line)  // rc_last_seen_app_user_id_alias
        comma()
        line.append(contentsOf: Catalog.countries[user.country].codeBytes)
        comma()
        line.appendASCII("from_sdk")
        comma()
        line.append(contentsOf: product.idBytes)
        comma()  // product_display_name
        comma()
        if !product.isOneTime { line.appendASCII(product.renewalDays >= 365 ? "P1Y" : product.renewalDays >= 28 ? "P1M" : "P1W") }
        comma()
        time(row.startMillis)
        comma()
        if let expires = row.expiresMillis { time(expires) }  // end_time
        comma()  // grace_period_end_time
        comma()  // effective_end_time
        comma()
        line.appendASCII(user.paysThroughPlayStore ? "play_store" : "app_store")
        comma()
        flag(!product.isOneTime)
        comma()
        flag(row.isTrial)
        comma()
        flag(row.isTrial)
        comma()
        flag(user.isSandboxTester)
        comma()
        // The USD columns, never read for money: the purchased price times 1.1, to tell them apart.
        line.appendMoney(minorUnits: row.leftMinor * 11 / 10, exponent: currency.exponent)
        comma()
        line.appendMoney(minorUnits: row.priceMinor * 11 / 10, exponent: currency.exponent)
        comma()
        line.append(contentsOf: "\(1 - row.commission),0.0,\(row.commission),".utf8)
        Self.appendTransactionID(row, user: user, original: false, to: &line)
        comma()
        Self.appendTransactionID(row, user: user, original: true, to: &line)
        comma()
        if let refunded = row.refundedMillis { time(refunded) }
        comma()  // unsubscribe_detected_at
        comma()  // billing_issues_detected_at
        comma()
        line.append(contentsOf: currency.codeBytes)
        comma()
        money(row.leftMinor)
        comma()
        money(row.priceMinor)
        comma()
        line.appendASCII(#""[""pro""]""#)
        comma()
        line.appendDecimal(row.renewal)
        comma()
        flag(row.isConversion)
        comma()  // presented_offering
        comma()
        line.appendASCII(row.isFamilyShared ? "FAMILY_SHARED" : "PURCHASED")
        comma()  // reserved_subscriber_attributes
        comma()  // custom_subscriber_attributes
        comma()
        line.append(contentsOf: user.platformName)
        comma()  // experiment_id
        comma()  // experiment_variant
        comma()
        time(row.updatedMillis)
        comma()  // offer
        comma()  // offer_type
        comma()
        time(Self.floorMillis(user.arrival))
        comma()  // auto_resume_time
        try file(day: day).appendLine(line)
    }

    // MARK: - The webhooks

    private mutating func emitChargeWebhook(_ row: Row, kind: EventKind, event: SimEvent, user: UserProfile, day: Int) throws {
        let currency = Catalog.currencies[row.currency]
        let type: StaticString
        let isRenewal = kind == .renewal || (kind == .purchase && row.isConversion)
        switch kind {
        case .refund: type = "CANCELLATION"
        case _ where isRenewal: type = "RENEWAL"
        case .purchase where Catalog.products[row.product].isOneTime: type = "NON_RENEWING_PURCHASE"
        default: type = "INITIAL_PURCHASE"
        }
        try emitWebhook(type: type, event: event, user: user, day: day) { line in
            line.appendASCII(#","product_id":""#)
            line.append(contentsOf: Catalog.products[row.product].idBytes)
            line.appendASCII(#"","period_type":""#)
            line.appendASCII(row.isTrial ? "TRIAL" : "NORMAL")
            line.appendASCII(#"","purchased_at_ms":"#)
            line.appendDecimal(row.startMillis)
            line.appendASCII(#","expiration_at_ms":"#)
            if let expires = row.expiresMillis { line.appendDecimal(expires) } else { line.appendASCII("null") }
            line.appendASCII(#","transaction_id":""#)
            Self.appendTransactionID(row, user: user, original: false, to: &line)
            line.appendASCII(#"","original_transaction_id":""#)
            Self.appendTransactionID(row, user: user, original: true, to: &line)
            line.appendASCII(#"","currency":""#)
            line.append(contentsOf: currency.codeBytes)
            // A refund is sent as a cancellation with the negative amount returned.
            let amount = kind == .refund ? row.leftMinor - row.priceMinor : row.priceMinor
            line.appendASCII(#"","price":"#)
            line.appendMoney(minorUnits: amount * 11 / 10, exponent: currency.exponent)
            line.appendASCII(#","price_in_purchased_currency":"#)
            line.appendMoney(minorUnits: amount, exponent: currency.exponent)
            line.appendASCII(#","is_family_share":"#)
            line.appendASCII(row.isFamilyShared ? "true" : "false")
            line.append(
                contentsOf:
                    #","takehome_percentage":\#(1 - row.commission),"tax_percentage":0.0,"commission_percentage":\#(row.commission)"#
                    .utf8)
            if kind == .refund { line.appendASCII(#","cancel_reason":"CUSTOMER_SUPPORT""#) }
            if isRenewal {
                line.appendASCII(#","is_trial_conversion":"#)
                line.appendASCII(row.isConversion ? "true" : "false")
            }
        }
    }

    private mutating func emitStatus(_ event: SimEvent, user: UserProfile, day: Int) throws {
        let type: StaticString = event.kind == .cancel ? "CANCELLATION" : "EXPIRATION"
        try emitWebhook(type: type, event: event, user: user, day: day) { line in
            if event.product >= 0 {
                line.appendASCII(#","product_id":""#)
                line.append(contentsOf: Catalog.products[Int(event.product)].idBytes)
                line.appendASCII(#"""#)
            }
            if event.original != 0 {
                let chain = Row(
                    transaction: event.original, chain: event.original, product: 0, startMillis: 0, updatedMillis: 0, priceMinor: 0,
                    currency: 0, renewal: 1, isTrial: false, isConversion: false, leftMinor: 0)
                line.appendASCII(#","transaction_id":""#)
                Self.appendTransactionID(chain, user: user, original: true, to: &line)
                line.appendASCII(#"","original_transaction_id":""#)
                Self.appendTransactionID(chain, user: user, original: true, to: &line)
                line.appendASCII(#"""#)
            }
            if event.kind == .cancel {
                line.appendASCII(#","cancel_reason":"UNSUBSCRIBE""#)
            } else {
                line.appendASCII(#","expiration_reason":"UNSUBSCRIBE""#)
            }
        }
    }

    /// `{"api_version":"1.0","event":{"id":…,"type":…,` then `fields`, then the user's fields`}}`.
    /// The id is the event's own (a retry keeps it), as a UUID.
    private mutating func emitWebhook(
        type: StaticString, event: SimEvent, user: UserProfile, day: Int, fields: (inout [UInt8]) -> Void
    ) throws {
        line.removeAll(keepingCapacity: true)
        line.appendASCII(#"{"api_version":"1.0","event":{"id":""#)
        line.appendEventID(event, userIndex: user.index, shape: .uuid)
        line.appendASCII(#"","type":""#)
        line.appendASCII(type)
        line.appendASCII(#"","event_timestamp_ms":"#)
        line.appendDecimal(Self.floorMillis(event.time))
        fields(&line)
        line.appendASCII(#","app_user_id":""#)
        user.appendID(to: &line)
        line.appendASCII(#"","original_app_user_id":""#)
        user.appendID(to: &line)
        line.appendASCII(#"","aliases":[],"environment":""#)
        line.appendASCII(user.isSandboxTester ? "SANDBOX" : "PRODUCTION")
        line.appendASCII(#"","store":""#)
        line.appendASCII(user.paysThroughPlayStore ? "PLAY_STORE" : "APP_STORE")
        line.appendASCII(#"","country_code":""#)
        line.append(contentsOf: Catalog.countries[user.country].codeBytes)
        line.appendASCII(#"","subscriber_attributes":{}}}"#)
        let file = try file(day: day)
        if event.idHigh % 97 == 5 { file.appendBlankLine() }
        try file.appendLine(line)
    }
}
