import Foundation
import OfferLabIngest
import OfferLabStatistics
import OfferLabStoreSources

/// Writes one shard's store facts as a webhook receiver stores App Store Server Notifications
/// V2: `appstore/notifications/YYYY/MM/DD/notifications-<shard>.jsonl.gz`, one POST body
/// `{"signedPayload":"<JWS>"}` a line, each JWS (and its nested `signedTransactionInfo` and
/// `signedRenewalInfo`) signed ES256 by the data set's own test chain
/// (docs/input-formats.md#verification).
///
/// The same events as the purchase logs (docs/input-formats.md#purchase-logs) would hold:
/// trials, charges and refunds as the
/// transactions the notifications carry, cancels and expires as notifications of their own, the
/// app's log keeping the rest. What the App Store adds is shaped as it sends it: a trial is
/// `SUBSCRIBED` with a `FREE_TRIAL` transaction, its first charge `DID_RENEW`; a retry is the
/// same body again, a re-send another notification (a new `notificationUUID`) carrying the same
/// transaction; `DID_CHANGE_RENEWAL_STATUS` and `EXPIRED` carry the chain's latest transaction,
/// an old one; a refund is `REFUND` carrying the refunded transaction with its
/// `revocationDate` (a partial one with `revocationPercentage`, `REFUND_PRORATED`), a refund of
/// a transaction from before the data carries that earlier period's transaction. Extras by
/// fixed patterns of the user index, App Store users only: a `FAMILY_SHARED` purchase
/// (i mod 997 = 5), a `TEST` notification (i mod 250 = 18), a refund reversed the same day
/// (`REFUND` then `REFUND_REVERSED`, i mod 50 = 8); and in shard 0 one line about another app and one whose
/// signature does not verify. `expiresDate` is the logs' `expires_at`. The Play Store's users
/// are not here: Apple does not send Google Play's purchases, so their facts stay in the app's
/// logs (`SourceFormat.carries`).
///
/// The user: `appAccountToken` carries the user id when it is a UUID (`--user-ids uuid`),
/// except for users i mod 5 = 4 (no token) and i mod 5 = 3 (a token of the device's own, which
/// the table overrides); their chains, the "00"-prefixed users' and every chain of a data set
/// whose ids are not UUIDs are rows of the server's `user_transactions` table.
///
/// Draws nothing from the users' random streams: the app's logs stay the same lines.
struct AppStoreNotificationWriter: StoreFactWriter {
    let configuration: GeneratorConfiguration
    let shard: Int
    let signer: AppStoreTestSigner
    private var files: [LogFile?]
    /// The current user's transactions as the App Store knows them, by transaction.
    private var transactions: [UInt64: Transaction] = [:]
    /// The latest transaction written of each of the current user's chains.
    private var latest: [UInt64: UInt64] = [:]
    /// The bodies written for the current user's events, by event: a retry sends the same body.
    private var sent: [EventKey: [UInt8]] = [:]
    /// The current user's chains already in `userTransactionRows`.
    private var tabledChains: Set<UInt64> = []
    /// Rows of `user_transactions` (`user_id,original_transaction_id`), without the header.
    private(set) var userTransactionRows: [UInt8] = []
    private var written = LogCounts()

    /// The folder of the store's files, in the output folder.
    static let folder = "appstore"
    /// The data set's app, and the other app of the one foreign line.
    static let bundleID = "com.example.paywalls"
    static let otherBundleID = "com.example.otherapp"
    /// The test chain's root certificate (DER), relative to the output folder.
    static let rootCertificatePath = "appstore/offerlab-test-root-ca.cer"
    /// Transactions of the family-shared purchases, and of the two rejected lines.
    static let familyTransactionBase: UInt64 = 3_000_000_000_000_000
    static let rejectedTransactionBase: UInt64 = 4_000_000_000_000_000

    /// A transaction as the App Store reports it in `signedTransactionInfo`.
    struct Transaction {
        var id: UInt64
        /// `originalTransactionId`.
        var chain: UInt64
        var product: Int
        /// Milliseconds since the epoch.
        var purchaseMillis: Int64
        /// Minor units; 0 for a trial.
        var priceMinor: Int64
        var currency: Int
        var isTrial = false
        /// The first charge after a trial or a renewal: `transactionReason` `RENEWAL`.
        var isRenewal = false
        var isFamilyShared = false
        var revocationMillis: Int64?
        /// Thousandths of a percent of the price refunded; nil for the whole price.
        var revocationPercentage: Int64?
        /// `expiresDate`: the end of the period the transaction gives.
        var expiresMillis: Int64?
    }

    /// An event by its id: the retries of one notification.
    private struct EventKey: Hashable {
        var high: UInt64
        var low: UInt64
    }

    /// How the App Store's records name a user.
    private enum Attribution {
        /// `appAccountToken` is the user id.
        case token
        /// No token: the server's `user_transactions` table.
        case table
        /// A token of the device's own, overridden by the table.
        case tableOverToken
    }

    init(configuration: GeneratorConfiguration, shard: Int, signer: AppStoreTestSigner) {
        self.configuration = configuration
        self.shard = shard
        self.signer = signer
        files = Array(repeating: nil, count: configuration.days + 1)
    }

    /// The file of a day, relative to the output folder.
    static func relativePath(day: Int, shard: Int, configuration: GeneratorConfiguration) -> String {
        let date = CivilDate(daysSinceEpoch: configuration.start.daysSinceEpoch + Int64(day))
        return folder + "/notifications/" + date.description.replacingOccurrences(of: "-", with: "/")
            + "/notifications-\(shard).jsonl.gz"
    }

    private mutating func file(day: Int) -> LogFile {
        if let file = files[day] { return file }
        let file = LogFile(
            path: configuration.outputDirectory + "/" + Self.relativePath(day: day, shard: shard, configuration: configuration),
            format: .jsonLines, usesCRLF: (day + shard) % 3 == 1, omitsFinalNewline: false,
            memberSize: LogShardWriter.isMultiMember(day: day, shard: shard) ? LogShardWriter.memberSize : nil,
            level: configuration.compressionLevel)
        files[day] = file
        return file
    }

    mutating func startUser() {
        transactions.removeAll(keepingCapacity: true)
        latest.removeAll(keepingCapacity: true)
        sent.removeAll(keepingCapacity: true)
        tabledChains.removeAll(keepingCapacity: true)
    }

    mutating func write(_ event: SimEvent, user: UserProfile, day: Int) throws {
        let key = EventKey(high: event.idHigh, low: event.idLow)
        if event.delivery == .redelivery, let body = sent[key] {
            // Apple's retry: the same body again.
            return try file(day: day).appendLine(body)
        }
        let millis = Self.floorMillis(event.time)
        let body: [UInt8]
        switch event.kind {
        case .trialStart, .purchase, .renewal:
            let transaction = transactions[event.transaction] ?? newTransaction(event, user: user)
            let product = Catalog.products[transaction.product]
            let (type, subtype): (String, String?) =
                transaction.isRenewal
                ? ("DID_RENEW", nil) : product.isOneTime ? ("ONE_TIME_CHARGE", nil) : ("SUBSCRIBED", "INITIAL_BUY")
            body = try notification(
                type: type, subtype: subtype, id: event, transaction: transaction, autoRenews: true,
                user: user)
        case .refund:
            var transaction = transactions[event.transaction] ?? earlierPeriod(event, user: user)
            if transaction.revocationMillis == nil {
                transaction.revocationMillis = millis
                transaction.revocationPercentage = Self.revocationPercentage(refunded: event.amount, price: transaction.priceMinor)
                transactions[transaction.id] = transaction
            }
            body = try notification(
                type: "REFUND", subtype: nil, id: event, transaction: transaction, autoRenews: false, user: user)
        case .cancel, .expire:
            let chain = event.original
            let transaction = latest[chain].flatMap { transactions[$0] }
            addTableRow(chain: chain, user: user)
            body = try notification(
                type: event.kind == .cancel ? "DID_CHANGE_RENEWAL_STATUS" : "EXPIRED",
                subtype: event.kind == .cancel ? "AUTO_RENEW_DISABLED" : "VOLUNTARY", id: event,
                transaction: transaction, autoRenews: false, user: user,
                renewalChain: (chain, event.product >= 0 ? Int(event.product) : transaction?.product))
        default:
            return
        }
        sent[key] = body
        let file = file(day: day)
        if event.idHigh % 97 == 5 { file.appendBlankLine() }
        try file.appendLine(body)
    }

    /// A transaction first seen in `event`, now known to the user's chains and the table.
    private mutating func newTransaction(_ event: SimEvent, user: UserProfile) -> Transaction {
        // A trial starts its own chain (the App Store gives it its own id as the original one);
        // the first charge after it and the renewals continue the chain.
        let isContinuation =
            event.kind == .renewal || (event.kind == .purchase && event.original != 0 && event.original != event.transaction)
        let chain = isContinuation ? event.original : event.transaction
        let transaction = Transaction(
            id: event.transaction, chain: chain, product: Int(event.product), purchaseMillis: Self.floorMillis(event.time),
            priceMinor: event.kind == .trialStart ? 0 : max(0, event.amount),
            currency: event.kind == .trialStart ? user.currency : Int(event.currency), isTrial: event.kind == .trialStart,
            isRenewal: isContinuation, expiresMillis: event.expiresAt == 0 ? nil : Self.floorMillis(event.expiresAt))
        remember(transaction, user: user)
        return transaction
    }

    /// The transaction a refund of a purchase from before the data refunds: an earlier period's,
    /// carried by the `REFUND`.
    private mutating func earlierPeriod(_ event: SimEvent, user: UserProfile) -> Transaction {
        let transaction = Transaction(
            id: event.transaction, chain: event.original != 0 ? event.original : event.transaction, product: max(0, Int(event.product)),
            purchaseMillis: Self.floorMillis(event.time - 30 * Micros.day), priceMinor: max(0, event.amount),
            currency: Int(event.currency), expiresMillis: Self.floorMillis(event.time))
        remember(transaction, user: user)
        return transaction
    }

    private mutating func remember(_ transaction: Transaction, user: UserProfile) {
        transactions[transaction.id] = transaction
        if let known = latest[transaction.chain].flatMap({ transactions[$0] }), known.purchaseMillis > transaction.purchaseMillis {
            // A later transaction of the chain was written first.
        } else {
            latest[transaction.chain] = transaction.id
        }
        addTableRow(chain: transaction.chain, user: user)
    }

    /// Thousandths of a percent of `price` that `refunded` is, to the nearest one (Apple's unit:
    /// an amount that is no whole number of them cannot be said exactly); nil for the whole price.
    static func revocationPercentage(refunded: Int64, price: Int64) -> Int64? {
        guard refunded >= 0, price > 0, refunded < price else { return nil }
        return min(99_999, max(1, (refunded * 100_000 + price / 2) / price))
    }

    // MARK: - The user

    private static func attribution(of user: UserProfile) -> Attribution {
        guard user.idShape == .uuid, user.leadingZeros == 0 else { return .table }
        switch user.index % 5 {
        case 4: return .table
        case 3: return .tableOverToken
        default: return .token
        }
    }

    /// The `appAccountToken` of the user's records, if any.
    private static func accountToken(of user: UserProfile) -> String? {
        var bytes: [UInt8] = []
        switch attribution(of: user) {
        case .table: return nil
        case .token: user.appendID(to: &bytes)
        case .tableOverToken: bytes.appendUUID(high: SplitMix64.mix(UInt64(user.index) ^ 0xA11CE), low: UInt64(user.index))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func addTableRow(chain: UInt64, user: UserProfile) {
        guard Self.attribution(of: user) != .token, tabledChains.insert(chain).inserted else { return }
        user.appendID(to: &userTransactionRows)
        userTransactionRows.append(UInt8(ascii: ","))
        userTransactionRows.appendDecimal(chain)
        userTransactionRows.append(UInt8(ascii: "\n"))
        written.userTransactionRows += 1
    }

    // MARK: - Extras

    mutating func writeExtras(of user: UserProfile) throws {
        let time = user.arrival + Micros.day
        let day = Int((time - configuration.startMicros) / Micros.day)
        // Apple sends nothing about a Google Play user: the extras below are App Store users'.
        if day >= 0, day < configuration.days, !user.paysThroughPlayStore {
            if user.index % 997 == 5 {
                let product = Catalog.monthly1999
                let id = Self.familyTransactionBase + UInt64(user.index)
                var transaction = Transaction(
                    id: id, chain: id, product: product, purchaseMillis: Self.floorMillis(time),
                    priceMinor: Catalog.products[product].prices[user.currency], currency: user.currency,
                    expiresMillis: Self.floorMillis(time + Int64(Catalog.products[product].renewalDays) * Micros.day))
                transaction.isFamilyShared = true
                try extra(
                    type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: (id, 0xFA17), at: time, transaction: transaction, user: user)
                written.familySharedRecords += 1
            }
            if user.index % 250 == 18 {
                try extra(type: "TEST", subtype: nil, uuid: (UInt64(user.index), 0x7E57), at: time, transaction: nil, user: user)
                written.ignoredStoreRecords += 1
            }
        }
        if user.index % 50 == 8 {
            // A refund reversed the same day, of the user's first paid charge that stays unrefunded.
            // The reversal comes half-way to the refund's midnight: a night's `as_of` between them
            // would count the refund, which the logs' form cannot hold (the purchase logs have no
            // reversal: docs/input-formats.md#store-sources-from-records-to-events), so that night's
            // numbers would differ between the two forms.
            let charges = transactions.values.filter {
                !$0.isTrial && !$0.isFamilyShared && $0.revocationMillis == nil && $0.priceMinor > 0
            }
            if let charge = charges.min(by: { ($0.purchaseMillis, $0.id) < ($1.purchaseMillis, $1.id) }) {
                let refundAt = charge.purchaseMillis * 1000 + Micros.day
                let reversalAt = refundAt + (Micros.day - refundAt % Micros.day) / 2
                guard reversalAt < configuration.asOfMicros else { return }
                var refunded = charge
                refunded.revocationMillis = Self.floorMillis(refundAt)
                try extra(type: "REFUND", subtype: nil, uuid: (charge.id, 0x8EF), at: refundAt, transaction: refunded, user: user)
                try extra(
                    type: "REFUND_REVERSED", subtype: nil, uuid: (charge.id, 0x8EF8), at: reversalAt, transaction: charge,
                    user: user)
                written.reversedRefunds += 1
            }
        }
    }

    /// A notification of no event of the app's: in the file of the day of `at`.
    private mutating func extra(
        type: String, subtype: String?, uuid: (UInt64, UInt64), at time: Int64, transaction: Transaction?, user: UserProfile
    ) throws {
        var id = SimEvent(time: time, sequence: 0, kind: .cancel)
        id.idHigh = SplitMix64.mix(uuid.0)
        id.idLow = uuid.1
        let body = try notification(
            type: type, subtype: subtype, id: id, transaction: transaction, autoRenews: true,
            user: user)
        try file(day: min(configuration.days, Int((time - configuration.startMicros) / Micros.day))).appendLine(body)
    }

    /// Shard 0's two lines that must be rejected, in the first day's file: a notification about
    /// another app (`malformed_other_app`) and one whose payload is not what was signed
    /// (`malformed_bad_signature`). Each carries a purchase that would count if it were read.
    private mutating func writeRejectedLines() throws {
        guard shard == 0 else { return }
        var random = SplitMix64(seed: configuration.seed, stream: 0)
        let user = UserProfile(index: 0, configuration: configuration, random: &random)
        let time = configuration.startMicros + Micros.hour
        var id = SimEvent(time: time, sequence: 0, kind: .purchase)
        for (index, bundleID) in [Self.otherBundleID, Self.bundleID].enumerated() {
            let transactionID = Self.rejectedTransactionBase + UInt64(index)
            let transaction = Transaction(
                id: transactionID, chain: transactionID, product: Catalog.monthly1999, purchaseMillis: Self.floorMillis(time),
                priceMinor: Catalog.products[Catalog.monthly1999].prices[user.currency], currency: user.currency)
            id.idHigh = SplitMix64.mix(transactionID)
            id.idLow = 0xBAD
            var body = try notification(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", id: id, transaction: transaction,
                autoRenews: true, user: user, bundleID: bundleID)
            if bundleID == Self.bundleID {
                // The signature of another payload: the price changed after signing.
                var tampered = transaction
                tampered.priceMinor += 100
                let other = try notification(
                    type: "SUBSCRIBED", subtype: "INITIAL_BUY", id: id, transaction: tampered,
                    autoRenews: true, user: user)
                body = Self.splice(payloadOf: other, into: body)
                written.badSignatureLines += 1
            } else {
                written.otherAppLines += 1
            }
            try file(day: 0).appendLine(body)
        }
    }

    /// `body`'s JWS with the payload of `other`'s JWS, the header and signature kept.
    private static func splice(payloadOf other: [UInt8], into body: [UInt8]) -> [UInt8] {
        func parts(_ line: [UInt8]) -> [ArraySlice<UInt8>] {
            line.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        }
        let mine = parts(body)
        let theirs = parts(other)
        return Array(mine[0]) + [UInt8(ascii: ".")] + Array(theirs[1]) + [UInt8(ascii: ".")] + Array(mine[2])
    }

    mutating func finish(into counts: inout LogCounts) throws {
        try writeRejectedLines()
        for file in files {
            guard let file, try file.finish() else { continue }
            written.storeFiles += 1
            written.storeLines += file.lines
            written.storeUncompressedBytes += Int64(file.uncompressedBytes)
        }
        counts = counts + written
    }

    // MARK: - Bodies

    /// The stored POST body of one notification, `{"signedPayload":"<JWS>"}`, its `notificationUUID`
    /// made from `id` and signed at `id`'s time (to the millisecond).
    private func notification(
        type: String, subtype: String?, id: SimEvent, transaction: Transaction?, autoRenews: Bool, user: UserProfile,
        bundleID: String = Self.bundleID, renewalChain: (chain: UInt64, product: Int?)? = nil
    ) throws -> [UInt8] {
        let signedMillis = Self.floorMillis(id.time)
        let environment = user.isSandboxTester ? "Sandbox" : "Production"
        var uuid: [UInt8] = []
        uuid.appendEventID(id, userIndex: user.index, shape: .uuid)
        var data = #""appAppleId":1234567890,"bundleId":"\#(bundleID)","bundleVersion":"5.12.1","environment":"\#(environment)""#
        if let transaction {
            let signed = try signer.sign(transactionJSON(transaction, user: user, signedMillis: signedMillis, bundleID: bundleID))
            data += #","signedTransactionInfo":"\#(signed)""#
        }
        // Renewal info of the chain: with every notification about an auto-renewable subscription.
        let chain: (chain: UInt64, product: Int?)? = renewalChain ?? transaction.map { (chain: $0.chain, product: $0.product) }
        if let chain, let product = chain.product, !Catalog.products[product].isOneTime, type != "TEST" {
            var renewal = #"{"originalTransactionId":"\#(chain.chain)","autoRenewProductId":"\#(Catalog.products[product].id)","#
            renewal += #""productId":"\#(Catalog.products[product].id)","autoRenewStatus":\#(autoRenews ? 1 : 0),"#
            if let token = Self.accountToken(of: user) { renewal += #""appAccountToken":"\#(token)","# }
            renewal += #""signedDate":\#(signedMillis),"environment":"\#(environment)"}"#
            data += #","signedRenewalInfo":"\#(try signer.sign(renewal))","status":\#(autoRenews ? 1 : 2)"#
        }
        var payload = #"{"notificationType":"\#(type)","#
        if let subtype { payload += #""subtype":"\#(subtype)","# }
        payload += #""notificationUUID":"\#(String(decoding: uuid, as: UTF8.self))","data":{\#(data)},"#
        payload += #""version":"2.0","signedDate":\#(signedMillis)}"#
        return Array(#"{"signedPayload":"\#(try signer.sign(payload))"}"#.utf8)
    }

    private func transactionJSON(_ transaction: Transaction, user: UserProfile, signedMillis: Int64, bundleID: String) -> String {
        let product = Catalog.products[transaction.product]
        let currency = Catalog.currencies[transaction.currency]
        var scale: Int64 = 1
        for _ in currency.exponent..<3 { scale *= 10 }
        var json = #"{"transactionId":"\#(transaction.id)","originalTransactionId":"\#(transaction.chain)","#
        json += #""webOrderLineItemId":"\#(transaction.id + 1)","bundleId":"\#(bundleID)","productId":"\#(product.id)","#
        if !product.isOneTime { json += #""subscriptionGroupIdentifier":"21482456","# }
        json += #""purchaseDate":\#(transaction.purchaseMillis),"originalPurchaseDate":\#(transaction.purchaseMillis),"quantity":1,"#
        json += #""type":"\#(product.isOneTime ? "Non-Renewing Subscription" : "Auto-Renewable Subscription")","#
        json += #""inAppOwnershipType":"\#(transaction.isFamilyShared ? "FAMILY_SHARED" : "PURCHASED")","#
        json += #""signedDate":\#(signedMillis),"environment":"\#(user.isSandboxTester ? "Sandbox" : "Production")","#
        json += #""transactionReason":"\#(transaction.isRenewal ? "RENEWAL" : "PURCHASE")","#
        json += #""storefront":"\#(Catalog.countries[user.country].storefront)","#
        json += #""price":\#(transaction.priceMinor * scale),"currency":"\#(currency.code)""#
        if let expires = transaction.expiresMillis { json += #","expiresDate":\#(expires)"# }
        if transaction.isTrial { json += #","offerType":1,"offerDiscountType":"FREE_TRIAL""# }
        if let token = Self.accountToken(of: user) { json += #","appAccountToken":"\#(token)""# }
        if let revoked = transaction.revocationMillis {
            json += #","revocationDate":\#(revoked),"revocationReason":0"#
            if let percentage = transaction.revocationPercentage {
                json += #","revocationPercentage":\#(percentage),"revocationType":"REFUND_PRORATED""#
            } else {
                json += #","revocationType":"REFUND_FULL""#
            }
        }
        return json + "}"
    }

    private static func floorMillis(_ micros: Int64) -> Int64 { micros >= 0 ? micros / 1000 : (micros - 999) / 1000 }
}
