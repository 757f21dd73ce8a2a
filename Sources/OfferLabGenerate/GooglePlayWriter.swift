import Foundation
import OfferLabIngest
import OfferLabStatistics

/// Writes one shard's store facts as an app's server keeps what Google Play tells it
/// (docs/input-formats.md#google-play-google_play-and-google_play_orders), a file per day of
/// delivery in each of two feeds: `googleplay/notifications/YYYY/MM/DD/notifications-<shard>.jsonl.gz`
/// (`google_play`: each Real-time developer notification with the state fetched when it
/// arrived) and `googleplay/orders/YYYY/MM/DD/orders-<shard>.jsonl.gz` (`google_play_orders`:
/// the Orders API's Orders as listed).
///
/// The Play Store's users' events as the purchase logs (docs/input-formats.md#purchase-logs)
/// would hold them, so that a run gives the logs' numbers: a chain is a purchase token, its
/// orders `GPA.dddd-dddd-dddd-ddddd` then `..0`, `..1`; one chain in `planChangeShare` moves to a
/// new token at a renewal (a plan change: the new token's state has `linkedPurchaseToken`, its
/// orders their own ids); a trial, first charge or new token's first order is
/// `SUBSCRIPTION_PURCHASED` (a trial in its `freeTrial` phase), a conversion or renewal
/// `SUBSCRIPTION_RENEWED`, a cancel `SUBSCRIPTION_CANCELED`, an expire `SUBSCRIPTION_EXPIRED`,
/// a refund a `voidedPurchaseNotification`; the 3-day pass is a prepaid plan (a subscription
/// that does not renew: its end is `expiryTime`, which a one-time product would not have). Every paid
/// charge has its Order (`createTime` the charge's time, `total` its price,
/// `developerRevenueInBuyerCurrency` 85 % of it, Google's 15 %), listed again with its refund
/// (`refundEvent`, or `partialRefundEvents` for a part of the price). A retry is the same body
/// again (the same `messageId`), a re-send another notification naming the same order. Quirks
/// by fixed patterns: one notification in 17 stored without its Pub/Sub envelope; of the later
/// orders (a trial's conversion, a renewal), one in five recovered after a grace period
/// (`SUBSCRIPTION_IN_GRACE_PERIOD`, whose state names the pending order only as `latestOrderId`)
/// and another after a grace period and an account hold (`SUBSCRIPTION_ON_HOLD`), then
/// `SUBSCRIPTION_RECOVERED`; an Order in 7 listed in the next
/// day's folder; a license tester's purchase (`testPurchase`, i mod 250 = 17; every purchase of a
/// QA account, whose log lines are sandbox ones, is one too); and in shard 0
/// one notification of another app and one `testNotification`. Apple's users are not here:
/// their facts stay in the app's logs (`SourceFormat.carries`).
///
/// The user: `obfuscatedExternalAccountId` is the user id, except for users i mod 10 = 7 (the
/// "00"-prefixed ones among them), whose tokens are rows of the server's `user_transactions`
/// table. A refund of a purchase from before the data, an order no other notification names,
/// comes with its token's state, which says its product and buyer.
///
/// Draws nothing from the users' random streams: the app's logs stay the same lines.
struct GooglePlayWriter: StoreFactWriter {
    let configuration: GeneratorConfiguration
    let shard: Int
    private var files: [Feed: [LogFile?]]
    /// The current user's orders, by the logs' transaction.
    private var orders: [UInt64: Order] = [:]
    /// The orders of each of the current user's chains, in the order written.
    private var chainOrders: [UInt64: [UInt64]] = [:]
    /// The bodies written for the current user's events, by event: a retry sends the same body.
    private var sent: [EventKey: [UInt8]] = [:]
    /// The current user's chains already in `userTransactionRows`.
    private var tabledChains: Set<UInt64> = []
    /// Rows of `user_transactions` (`user_id,original_transaction_id`), without the header.
    private(set) var userTransactionRows: [UInt8] = []
    private var written = LogCounts()

    /// The two feeds a server stores.
    enum Feed: CaseIterable {
        case notifications, orders
    }

    /// The folder of the store's files, in the output folder, and the feeds' globs in the job.
    static let folder = "googleplay"
    static let notificationsGlob = "googleplay/notifications/*/*/*/notifications-*.jsonl.gz"
    static let ordersGlob = "googleplay/orders/*/*/*/orders-*.jsonl.gz"
    /// The data set's app, and the other app of the one foreign line.
    static let packageName = "com.example.paywalls"
    static let otherPackageName = "com.example.otherapp"
    /// Chains of the license testers' purchases, and of the foreign line.
    static let testPurchaseBase: UInt64 = 3_000_000_000_000_000
    static let foreignChain: UInt64 = 4_000_000_000_000_000
    /// Google's share of a charge (docs/analysis.md §8): the Orders' developer revenue is the rest.
    static let commissionPercent: Int64 = 15
    /// One chain in this many changes plan (a new purchase token) at a renewal, by a hash of the chain.
    static let planChangeShare: UInt64 = 2

    /// An order as Google Play reports it.
    struct Order {
        /// The logs' transaction and chain (the chain names its first purchase token).
        var transaction: UInt64
        var chain: UInt64
        /// Of the chain's orders, 0 for its first.
        var number: Int
        var product: Int
        var millis: Int64
        /// Minor units; 0 for a trial.
        var priceMinor: Int64
        var currency: Int
        var isTrial: Bool
        var expiresMillis: Int64?
        /// The plan change that moved the chain to the token of this order, if one did.
        var planChange: PlanChange? = nil

        /// The key of the order's purchase token: the chain's, or since a plan change the new one's.
        var token: UInt64 { planChange?.token ?? chain }
        /// Of the token's orders, 0 for its first (no `..N` suffix).
        var tokenNumber: Int { number - (planChange?.firstNumber ?? 0) }
    }

    /// A chain's move to a new purchase token at a renewal, as Play makes on a resubscription or
    /// a change of base plan or offer: the new token's state names the one before as
    /// `linkedPurchaseToken`.
    struct PlanChange {
        /// The new token's key (the renewal's transaction) and the previous token's.
        var token: UInt64
        var previousToken: UInt64
        /// The chain's number of the new token's first order.
        var firstNumber: Int
    }

    /// An event by its id: the retries of one notification.
    private struct EventKey: Hashable {
        var high: UInt64
        var low: UInt64
    }

    // `subscriptionNotification.notificationType`s.
    private static let recovered = 1
    private static let renewed = 2
    private static let canceled = 3
    private static let purchased = 4
    private static let onHold = 5
    private static let inGracePeriod = 6
    private static let expired = 13

    init(configuration: GeneratorConfiguration, shard: Int) {
        self.configuration = configuration
        self.shard = shard
        let days = [LogFile?](repeating: nil, count: configuration.days + 1)
        files = [.notifications: days, .orders: days]
    }

    /// The file of a feed's day, relative to the output folder.
    static func relativePath(_ feed: Feed, day: Int, shard: Int, configuration: GeneratorConfiguration) -> String {
        let date = CivilDate(daysSinceEpoch: configuration.start.daysSinceEpoch + Int64(day)).description
        let name = feed == .notifications ? "notifications" : "orders"
        return "\(folder)/\(name)/\(date.replacingOccurrences(of: "-", with: "/"))/\(name)-\(shard).jsonl.gz"
    }

    private mutating func file(_ feed: Feed, day: Int) -> LogFile {
        if let file = files[feed]![day] { return file }
        let file = LogFile(
            path: configuration.outputDirectory + "/" + Self.relativePath(feed, day: day, shard: shard, configuration: configuration),
            format: .jsonLines, usesCRLF: (day + shard) % 3 == 2, omitsFinalNewline: false,
            memberSize: LogShardWriter.isMultiMember(day: day, shard: shard) ? LogShardWriter.memberSize : nil,
            level: configuration.compressionLevel)
        files[feed]![day] = file
        return file
    }

    /// The day folder of a time, within the data set's.
    private func day(of micros: Int64) -> Int {
        min(configuration.days, max(0, Int((micros - configuration.startMicros) / Micros.day)))
    }

    mutating func startUser() {
        orders.removeAll(keepingCapacity: true)
        chainOrders.removeAll(keepingCapacity: true)
        sent.removeAll(keepingCapacity: true)
        tabledChains.removeAll(keepingCapacity: true)
    }

    mutating func write(_ event: SimEvent, user: UserProfile, day: Int) throws {
        let key = EventKey(high: event.idHigh, low: event.idLow)
        if event.delivery == .redelivery, let body = sent[key] {
            // Pub/Sub's retry: the same message again.
            return try file(.notifications, day: day).appendLine(body)
        }
        let body: [UInt8]
        switch event.kind {
        case .trialStart, .purchase, .renewal:
            let known = orders[event.transaction]
            let order = known ?? newOrder(event, user: user)
            if known == nil && event.delivery == .original { try writeOrder(order, user: user, day: day, refund: nil) }
            var type = order.tokenNumber == 0 ? Self.purchased : Self.renewed
            // Two later orders in five of a token fail first (a trial's conversion too), by a hash of
            // the order; a plan change's first order is a new purchase, which does not.
            let failure = SplitMix64.mix(order.transaction ^ 0x6AACE) % 5
            if event.delivery == .original, failure < 2, order.tokenNumber > 0, let previous = previousOrder(of: order) {
                try writeMissedPayment(before: order, previous: previous, withHold: failure == 1, user: user)
                type = Self.recovered
            }
            body = notification(type: type, at: event.time, id: event, token: TokenState(order: order), user: user)
        case .refund:
            let known = orders[event.transaction]
            let order = known ?? orderBeforeTheData(event, user: user)
            let isPartial = event.amount >= 0 && event.amount < order.priceMinor
            if known != nil && event.delivery == .original {
                try writeOrder(order, user: user, day: day, refund: (event.time, isPartial ? event.amount : order.priceMinor, isPartial))
            }
            // A refund of an order no notification named: the server fetched the token's state with it,
            // which says its product and buyer.
            body = notification(voided: order, isPartial: isPartial, at: event.time, id: event, user: user, withState: known == nil)
        case .cancel, .expire:
            let latest = chainOrders[event.original]?.last.flatMap { orders[$0] }
            addTableRow(chain: event.original, user: user)
            body = notification(
                type: event.kind == .cancel ? Self.canceled : Self.expired, at: event.time, id: event,
                token: TokenState(order: latest, chain: event.original, product: Int(event.product), autoRenews: false), user: user)
        default:
            return
        }
        sent[key] = body
        let file = file(.notifications, day: day)
        if event.idHigh % 97 == 5 { file.appendBlankLine() }
        try file.appendLine(body)
    }

    /// An order first seen in `event`, now known to the user's chains and the table.
    private mutating func newOrder(_ event: SimEvent, user: UserProfile) -> Order {
        // A trial's token goes on through its conversion and renewals; a direct purchase begins
        // its own (the logs' chain id, or the purchase's own when the line names none).
        let chain = event.kind == .trialStart || event.original == 0 ? event.transaction : event.original
        let earlier = (chainOrders[chain] ?? []).compactMap { orders[$0] }
        // Orders go on on the chain's latest token; one chain in `planChangeShare`, once it has a
        // paid order, moves to a new token at its next renewal (the same product and price, so
        // the logs' numbers stay).
        var planChange = earlier.last?.planChange
        if planChange == nil, event.kind == .renewal, SplitMix64.mix(chain ^ 0x71A2) % Self.planChangeShare == 0,
            earlier.contains(where: { !$0.isTrial })
        {
            planChange = PlanChange(token: event.transaction, previousToken: chain, firstNumber: earlier.count)
        }
        let order = Order(
            transaction: event.transaction, chain: chain, number: earlier.count, product: Int(event.product),
            millis: Self.floorMillis(event.time), priceMinor: event.kind == .trialStart ? 0 : max(0, event.amount),
            currency: event.kind == .trialStart ? user.currency : Int(event.currency), isTrial: event.kind == .trialStart,
            expiresMillis: event.expiresAt == 0 ? nil : Self.floorMillis(event.expiresAt), planChange: planChange)
        orders[event.transaction] = order
        chainOrders[chain, default: []].append(event.transaction)
        addTableRow(chain: chain, user: user)
        return order
    }

    /// The order a refund of a purchase from before the data refunds: an earlier period's, a
    /// month before the refund.
    private mutating func orderBeforeTheData(_ event: SimEvent, user: UserProfile) -> Order {
        let chain = event.original != 0 ? event.original : event.transaction
        addTableRow(chain: chain, user: user)
        return Order(
            transaction: event.transaction, chain: chain, number: 0, product: max(0, Int(event.product)),
            millis: Self.floorMillis(event.time - 30 * Micros.day), priceMinor: max(0, event.amount), currency: Int(event.currency),
            isTrial: false, expiresMillis: Self.floorMillis(event.time))
    }

    private func previousOrder(of order: Order) -> Order? {
        guard order.number > 0, let chain = chainOrders[order.chain], order.number - 1 < chain.count else { return nil }
        return orders[chain[order.number - 1]]
    }

    /// The renewal's payment failed first: a grace period a day before it succeeds (the state
    /// names the pending order only as `latestOrderId`, its line item the previous order), and an
    /// account hold half a day before when `withHold`. Neither is a purchase fact.
    private mutating func writeMissedPayment(before order: Order, previous: Order, withHold: Bool, user: UserProfile) throws {
        let renewal = order.millis * 1000
        var steps = [(Self.inGracePeriod, renewal - Micros.day)]
        if withHold { steps.append((Self.onHold, renewal - Micros.day / 2)) }
        for (index, (type, time)) in steps.enumerated() where time > previous.millis * 1000 {
            var id = SimEvent(time: time, sequence: 0, kind: .renewal)
            id.idHigh = SplitMix64.mix(order.transaction ^ 0x6A11 ^ UInt64(index))
            id.idLow = UInt64(index)
            let body = notification(type: type, at: time, id: id, token: TokenState(order: previous, pendingOrder: order), user: user)
            try file(.notifications, day: day(of: time)).appendLine(body)
            written.ignoredStoreRecords += 1
            if type == Self.inGracePeriod { written.gracePeriods += 1 } else { written.accountHolds += 1 }
        }
    }

    // MARK: - The user

    /// Whether the user's tokens are rows of `user_transactions` rather than named by
    /// `obfuscatedExternalAccountId`.
    private static func isTabled(_ user: UserProfile) -> Bool { user.index % 10 == 7 }

    private mutating func addTableRow(chain: UInt64, user: UserProfile) {
        guard Self.isTabled(user), tabledChains.insert(chain).inserted else { return }
        user.appendID(to: &userTransactionRows)
        userTransactionRows.append(UInt8(ascii: ","))
        userTransactionRows.append(contentsOf: Self.token(chain).utf8)
        userTransactionRows.append(UInt8(ascii: "\n"))
        written.userTransactionRows += 1
    }

    // MARK: - Extras

    /// A license tester's purchase of the monthly plan, a day after arriving: a sandbox record the
    /// logs' form does not have (i mod 250 = 17, Google Play's users).
    mutating func writeExtras(of user: UserProfile) throws {
        let time = user.arrival + Micros.day
        guard user.paysThroughPlayStore, user.index % 250 == 17, time >= configuration.startMicros, time < configuration.asOfMicros
        else { return }
        let chain = Self.testPurchaseBase + UInt64(user.index)
        let product = Catalog.monthly1999
        let order = Order(
            transaction: chain, chain: chain, number: 0, product: product, millis: Self.floorMillis(time),
            priceMinor: Catalog.products[product].prices[user.currency], currency: user.currency, isTrial: false,
            expiresMillis: Self.floorMillis(time + Int64(Catalog.products[product].renewalDays) * Micros.day))
        addTableRow(chain: chain, user: user)
        var id = SimEvent(time: time, sequence: 0, kind: .purchase)
        id.idHigh = SplitMix64.mix(chain)
        id.idLow = 0x7E57
        try file(.notifications, day: day(of: time)).appendLine(
            notification(type: Self.purchased, at: time, id: id, token: TokenState(order: order, isTestPurchase: true), user: user))
        written.testPurchases += 1
    }

    /// Shard 0's lines of no purchase fact, in the first day's files: a notification about another
    /// app (`malformed_other_app`, carrying a purchase that would count if it were read) and its
    /// Order (a server that lists the orders of several apps: an Order names no app, and one no
    /// notification of this app delivers makes nothing), and a `testNotification` from the Play
    /// Console (`ignored_store_records`). So even a one-user set has a file in each feed.
    private mutating func writeForeignLines() throws {
        guard shard == 0 else { return }
        var random = SplitMix64(seed: configuration.seed, stream: 0)
        let user = UserProfile(index: 0, configuration: configuration, random: &random)
        let time = configuration.startMicros + Micros.hour
        let product = Catalog.monthly1999
        let order = Order(
            transaction: Self.foreignChain, chain: Self.foreignChain, number: 0, product: product, millis: Self.floorMillis(time),
            priceMinor: Catalog.products[product].prices[user.currency], currency: user.currency, isTrial: false, expiresMillis: nil)
        var id = SimEvent(time: time, sequence: 0, kind: .purchase)
        id.idHigh = SplitMix64.mix(Self.foreignChain)
        id.idLow = 0xBAD
        let file = file(.notifications, day: 0)
        try file.appendLine(
            notification(
                type: Self.purchased, at: time, id: id, token: TokenState(order: order), user: user, packageName: Self.otherPackageName))
        try writeOrder(order, user: user, day: 0, refund: nil)
        written.otherAppLines += 1
        id.idLow = 0x7E57
        let test = envelope(#""testNotification":{"version":"1.0"}"#, at: time, id: id, user: user, wrapped: true)
        try file.appendLine(Array(#"{"notification":\#(Self.utf8(test))}"#.utf8))
        written.ignoredStoreRecords += 1
    }

    mutating func finish(into counts: inout LogCounts) throws {
        try writeForeignLines()
        for feed in Feed.allCases {
            for file in files[feed]! {
                guard let file, try file.finish() else { continue }
                written.storeFiles += 1
                written.storeLines += file.lines
                written.storeUncompressedBytes += Int64(file.uncompressedBytes)
            }
        }
        counts = counts + written
    }

    // MARK: - Notifications

    /// What the SubscriptionPurchaseV2 of a chain's token says when a notification arrives:
    /// its line item the order `order` (the chain's latest; `chain` and `product` when no order
    /// is known), `pendingOrder` the payment a grace period or hold waits for.
    struct TokenState {
        var order: Order?
        var chain: UInt64?
        var product: Int?
        var autoRenews = true
        var pendingOrder: Order?
        var isTestPurchase = false
    }

    /// A subscription notification of `type` with the SubscriptionPurchaseV2 fetched when it
    /// arrived (`subscription(_:…)`).
    private func notification(
        type: Int, at time: Int64, id: SimEvent, token: TokenState, user: UserProfile, packageName: String = Self.packageName
    ) -> [UInt8] {
        let chain = token.order?.chain ?? token.chain ?? 0
        let purchaseToken = Self.token(token.order?.token ?? chain)
        let subject = #""subscriptionNotification":{"version":"1.0","notificationType":\#(type),"purchaseToken":"\#(purchaseToken)"}"#
        let stateName: String
        switch type {
        case Self.inGracePeriod: stateName = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
        case Self.onHold: stateName = "SUBSCRIPTION_STATE_ON_HOLD"
        case Self.canceled: stateName = "SUBSCRIPTION_STATE_CANCELED"
        case Self.expired: stateName = "SUBSCRIPTION_STATE_EXPIRED"
        default: stateName = "SUBSCRIPTION_STATE_ACTIVE"
        }
        var fetched = token
        fetched.chain = chain
        let json = subscription(fetched, stateName: stateName, user: user, at: time)
        let wrapped = id.idHigh % 17 != 3
        return Array(
            #"{"notification":\#(Self.utf8(envelope(subject, at: time, id: id, user: user, wrapped: wrapped, packageName: packageName))),"subscription":\#(json)}"#
                .utf8)
    }

    /// The SubscriptionPurchaseV2 of a chain's token in `token`'s state, named `stateName`.
    private func subscription(_ token: TokenState, stateName: String, user: UserProfile, at time: Int64) -> String {
        let state = token.order
        let chain = state?.chain ?? token.chain ?? 0
        let productIndex = state?.product ?? max(0, token.product ?? 0)
        let currency = state?.currency ?? user.currency
        // The token's first order began it: the chain's first, or since a plan change the new token's.
        let tokenOrders = chainOrders[chain]?.compactMap { orders[$0] }.filter { $0.token == state?.token ?? chain }
        let startMillis = tokenOrders?.first?.millis ?? state?.millis ?? Self.floorMillis(time)
        var json = #"{"kind":"androidpublisher#subscriptionPurchaseV2","regionCode":"\#(Catalog.countries[user.country].code)","#
        json += #""startTime":"\#(Self.rfc3339(startMillis * 1000))","subscriptionState":"\#(stateName)","#
        if let planChange = state?.planChange { json += #""linkedPurchaseToken":"\#(Self.token(planChange.previousToken))","# }
        if let pendingOrder = token.pendingOrder {
            json += #""latestOrderId":"\#(Self.orderID(pendingOrder))","#
        } else if let state {
            json += #""latestOrderId":"\#(Self.orderID(state))","#
        }
        // A QA account (the logs' sandbox user) buys as a license tester, as a test purchase does.
        if token.isTestPurchase || user.isSandboxTester { json += #""testPurchase":{},"# }
        if !Self.isTabled(user) {
            var userID: [UInt8] = []
            user.appendID(to: &userID)
            json += #""externalAccountIdentifiers":{"obfuscatedExternalAccountId":"\#(String(decoding: userID, as: UTF8.self))"},"#
        }
        json +=
            #""acknowledgementState":"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED","lineItems":[{"productId":"\#(Catalog.products[productIndex].id)","#
        if let expires = state?.expiresMillis { json += #""expiryTime":"\#(Self.rfc3339(expires * 1000))","# }
        if Catalog.products[productIndex].isOneTime {
            // The 3-day pass is a prepaid plan: no recurring price, its money is its Order's.
            json += #""prepaidPlan":{},"#
        } else {
            let price = Self.micros(Catalog.products[productIndex].prices[currency], currency: currency)
            json +=
                #""autoRenewingPlan":{"autoRenewEnabled":\#(token.autoRenews),"recurringPrice":\#(Self.money(micros: price, currency: currency))},"#
        }
        json += #""offerDetails":{"basePlanId":"\#(Catalog.products[productIndex].id.replacingOccurrences(of: "_", with: "-"))"}"#
        if let state {
            json +=
                #","latestSuccessfulOrderId":"\#(Self.orderID(state))","offerPhase":{"\#(state.isTrial ? "freeTrial" : "basePrice")":{}}"#
        }
        json += "}]}"
        return json
    }

    /// A refund: `voidedPurchaseNotification`, whole (`refundType` 1) or of a part (2); `withState`,
    /// with the SubscriptionPurchaseV2 of its token fetched.
    private func notification(voided order: Order, isPartial: Bool, at time: Int64, id: SimEvent, user: UserProfile, withState: Bool)
        -> [UInt8]
    {
        let productType = Catalog.products[order.product].isOneTime ? 2 : 1
        let subject =
            #""voidedPurchaseNotification":{"purchaseToken":"\#(Self.token(order.token))","orderId":"\#(Self.orderID(order))","productType":\#(productType),"refundType":\#(isPartial ? 2 : 1)}"#
        let notification = Self.utf8(envelope(subject, at: time, id: id, user: user, wrapped: id.idHigh % 17 != 3))
        guard withState else { return Array(#"{"notification":\#(notification)}"#.utf8) }
        let state = subscription(TokenState(order: order, autoRenews: false), stateName: "SUBSCRIPTION_STATE_EXPIRED", user: user, at: time)
        return Array(#"{"notification":\#(notification),"subscription":\#(state)}"#.utf8)
    }

    /// The DeveloperNotification holding `subject`, as the Pub/Sub push body posted it
    /// (`wrapped`: its `message.data` base64) or as decoded.
    private func envelope(
        _ subject: String, at time: Int64, id: SimEvent, user: UserProfile, wrapped: Bool, packageName: String = Self.packageName
    ) -> [UInt8] {
        let developer = #"{"version":"1.0","packageName":"\#(packageName)","eventTimeMillis":"\#(Self.floorMillis(time))",\#(subject)}"#
        guard wrapped else { return Array(developer.utf8) }
        let data = Data(developer.utf8).base64EncodedString()
        // Of the whole id: events of one chain may share `idHigh` (the long-time subscriber's two
        // charges), which would make the second a re-delivery of the first.
        let messageID = SplitMix64.mix(id.idHigh ^ SplitMix64.mix(id.idLow)) % 10_000_000_000_000_000
        return Array(
            #"{"message":{"data":"\#(data)","messageId":"\#(messageID)","message_id":"\#(messageID)","publishTime":"\#(Self.rfc3339(time))"},"subscription":"projects/paywalls/subscriptions/play-rtdn"}"#
                .utf8)
    }

    // MARK: - Orders

    /// Lists `order` (a paid charge) in the folder of `day`, or of the next day for one order in
    /// seven; with `refund` (its time, amount and whether partial), listed again as refunded.
    private mutating func writeOrder(_ order: Order, user: UserProfile, day: Int, refund: (at: Int64, amountMinor: Int64, isPartial: Bool)?)
        throws
    {
        guard !order.isTrial else { return }
        let created = Self.rfc3339(order.millis * 1000)
        let price = Self.micros(order.priceMinor, currency: order.currency)
        let state = refund.map { $0.isPartial ? "PARTIALLY_REFUNDED" : "REFUNDED" } ?? "PROCESSED"
        var json = #"{"orderId":"\#(Self.orderID(order))","purchaseToken":"\#(Self.token(order.token))","state":"\#(state)","#
        json += #""createTime":"\#(created)","lastEventTime":"\#(refund.map { Self.rfc3339($0.at) } ?? created)","#
        json += #""buyerAddress":{"buyerCountry":"\#(Catalog.countries[user.country].code)"},"#
        json +=
            #""total":\#(Self.money(micros: price, currency: order.currency)),"tax":\#(Self.money(micros: 0, currency: order.currency)),"#
        // Every price has at most two decimals: its 85 % is a whole number of micro-units.
        let revenue = price * (100 - Self.commissionPercent) / 100
        json += #""developerRevenueInBuyerCurrency":\#(Self.money(micros: revenue, currency: order.currency)),"#
        json += #""orderHistory":{"processedEvent":{"eventTime":"\#(created)"}"#
        if let refund {
            let amount = Self.money(micros: Self.micros(refund.amountMinor, currency: order.currency), currency: order.currency)
            let details = #""refundDetails":{"total":\#(amount)}"#
            if refund.isPartial {
                json +=
                    #","partialRefundEvents":[{"createTime":"\#(Self.rfc3339(refund.at))","processedTime":"\#(Self.rfc3339(refund.at))","state":"PROCESSED",\#(details)}]"#
            } else {
                json += #","refundEvent":{"eventTime":"\#(Self.rfc3339(refund.at))",\#(details)}"#
            }
        }
        json += #"},"lineItems":[{"productId":"\#(Catalog.products[order.product].id)","productTitle":"Pro"}]}"#
        var listingDay = day
        if refund == nil && order.transaction % 7 == 4 {
            listingDay = min(configuration.days, day + 1)
            written.delayedOrders += 1
        }
        try file(.orders, day: listingDay).appendLine(Array(json.utf8))
    }

    // MARK: - Ids and values

    /// A purchase token by its key: opaque to the reader, one per chain and one per plan change.
    static func token(_ key: UInt64) -> String {
        var bytes: [UInt8] = []
        bytes.appendHex(SplitMix64.mix(key ^ 0x9A7), digits: 16)
        return String(decoding: bytes, as: UTF8.self) + ".AO-J1O" + String(key)
    }

    /// `GPA.dddd-dddd-dddd-ddddd` of the order's token, `..N` for the token's order after the first.
    static func orderID(_ order: Order) -> String {
        let digits = String(order.token % 100_000_000_000_000_000)
        let padded = Array(String(repeating: "0", count: max(0, 17 - digits.count)) + digits)
        var id = "GPA." + String(padded[0..<4]) + "-" + String(padded[4..<8]) + "-" + String(padded[8..<12]) + "-" + String(padded[12...])
        if order.tokenNumber > 0 { id += "..\(order.tokenNumber - 1)" }
        return id
    }

    /// A `Money` of `micros` micro-units: `units` (a string, as Google writes int64) and `nanos`.
    static func money(micros: Int64, currency: Int) -> String {
        #"{"currencyCode":"\#(Catalog.currencies[currency].code)","units":"\#(micros / 1_000_000)","nanos":\#((micros % 1_000_000) * 1000)}"#
    }

    /// Micro-units of `minor` minor units of the currency.
    static func micros(_ minor: Int64, currency: Int) -> Int64 {
        var scale: Int64 = 1_000_000
        for _ in 0..<Catalog.currencies[currency].exponent { scale /= 10 }
        return minor * scale
    }

    /// `2026-03-02T10:00:00.123Z`, to the millisecond.
    private static func rfc3339(_ micros: Int64) -> String {
        formatTimestamp(floorMillis(micros) * 1000, style: TimestampStyle())
    }

    private static func utf8(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func floorMillis(_ micros: Int64) -> Int64 { micros >= 0 ? micros / 1000 : (micros - 999) / 1000 }
}
