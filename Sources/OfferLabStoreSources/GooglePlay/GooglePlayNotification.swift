import OfferLabIngest

/// One line of a `google_play` source as a server keeps it
/// (docs/input-formats.md#google-play-google_play-and-google_play_orders):
/// `{"notification": N, "subscription": S}`, `{"notification": N, "product": P}` or
/// `{"notification": N}`, where N is the Pub/Sub push body (its `message.data` the base64 of the
/// DeveloperNotification) or the DeveloperNotification itself, S the SubscriptionPurchaseV2 and
/// P the ProductPurchase fetched when N arrived.
///
/// A line becomes no notification, counted with its line under one of these reasons:
/// 1. `malformed_invalid_json`: the line, or the JSON `message.data` holds, is not a JSON object;
/// 2. `malformed_missing_field`: no `notification`; a push body without `message.data`; no
///    `packageName` or `eventTimeMillis`; none of `subscriptionNotification`,
///    `oneTimeProductNotification`, `voidedPurchaseNotification`, `testNotification`; a purchase
///    token, `notificationType` or voided `orderId` absent; a type that delivers an order or a
///    revocation without its S (P for a one-time product); an S without `lineItems` (or with
///    none); a line item without `productId`; a P without `orderId` or `purchaseTimeMillis`;
///    a price without `currencyCode`;
/// 3. `malformed_invalid_field`: `message.data` not base64; a field of another JSON type than
///    Google writes (an `int64` may be a string or a number);
/// 4. `malformed_other_app`: `packageName` is not the job's `package_name`;
/// 5. `malformed_bad_timestamp`: `eventTimeMillis`, `purchaseTimeMillis`, `startTime` or
///    `expiryTime` not a time;
/// 6. `malformed_negative_price`: a negative `recurringPrice`.
package struct GooglePlayNotification: Sendable {
    /// What the notification is about.
    enum Subject: Sendable {
        /// `subscriptionNotification`: its `notificationType` and purchase token.
        case subscription(type: Int64, token: String)
        /// `oneTimeProductNotification`.
        case oneTimeProduct(type: Int64, token: String)
        /// `voidedPurchaseNotification`: the refunded order, whole (`refundType` 1) or partly (2).
        case voided(token: String, orderID: String, isPartial: Bool)
        /// `testNotification`.
        case test
    }

    /// One order an S or a P names, as the notification tells it.
    struct Order: Sendable {
        var orderID: String
        var productID: String
        var isTrial: Bool
        /// When the order was charged as far as the notification says: the token's first order at
        /// S's `startTime` (P's `purchaseTimeMillis`), any other at the notification's time.
        var at: Int64
        /// The plan's `recurringPrice` (nil for a trial, an introductory or prorated phase, a
        /// prepaid plan, a one-time product: their money comes from the order's Order only).
        var priceMicros: Int64?
        var currency: String?
        var expiresAt: Int64?
    }

    /// The Pub/Sub `messageId`, else `<purchaseToken>:<notificationType>:<eventTimeMillis>`:
    /// the same for every re-delivery.
    var id: String
    var subject: Subject
    /// `eventTimeMillis`, microseconds since the epoch.
    var at: Int64
    /// The orders of S's line items (`latestSuccessfulOrderId`) or P's order when it is
    /// purchased (`purchaseState` 0).
    var orders: [Order] = []
    /// S's `linkedPurchaseToken`: the token this one continues.
    var linkedToken: String?
    /// Whether the line has the state fetched (S or P), which says the buyer.
    var hasState = false
    var buyer = StoreBuyer(userID: nil, platform: "android", store: "play_store")

    /// The line's notification, or the first reason it has none (see the type's comment).
    init(line: [UInt8], packageName: String?) throws(StoreLineRejection) {
        let body = try StoreJSONObject(line, what: "the line")
        guard let wrapped = try body.object("notification") else { throw .init(.malformedMissingField, "no notification") }
        let notification: StoreJSONObject
        let messageID: String?
        if let message = try wrapped.object("message") {
            guard let data = try message.string("data") else { throw .init(.malformedMissingField, "no notification.message.data") }
            guard let decoded = Base64.decode(data, urlSafe: false) else {
                throw .init(.malformedInvalidField, "notification.message.data is not base64")
            }
            notification = try StoreJSONObject(decoded, what: "notification.message.data")
            // Pub/Sub writes the id in both spellings.
            let snakeCase = try message.string("message_id")
            messageID = try message.string("messageId") ?? snakeCase
        } else {
            notification = wrapped
            messageID = nil
        }
        let packageText = try notification.string("packageName")
        guard let package = packageText else { throw .init(.malformedMissingField, "no packageName") }
        if let packageName, package != packageName {
            throw .init(.malformedOtherApp, "packageName '\(package)' is not the job's google_play.package_name")
        }
        guard notification.has("eventTimeMillis") else { throw .init(.malformedMissingField, "no eventTimeMillis") }
        // Another type than an integer (or its string) is a bad time, as a number out of range.
        let eventMillis = try? notification.int64OrIntegerString("eventTimeMillis")
        let subscriptionNotification = try notification.object("subscriptionNotification")
        let oneTimeNotification = try notification.object("oneTimeProductNotification")
        let voidedNotification = try notification.object("voidedPurchaseNotification")
        let subject: Subject
        if let typed = subscriptionNotification ?? oneTimeNotification {
            let type = try Self.required(typed.int64OrIntegerString("notificationType"), "notificationType")
            let token = try Self.required(typed.string("purchaseToken"), "purchaseToken")
            subject = subscriptionNotification != nil ? .subscription(type: type, token: token) : .oneTimeProduct(type: type, token: token)
        } else if let voidedNotification {
            let refundType = try voidedNotification.int64OrIntegerString("refundType")
            let token = try Self.required(voidedNotification.string("purchaseToken"), "purchaseToken")
            let orderID = try Self.required(voidedNotification.string("orderId"), "orderId")
            subject = .voided(token: token, orderID: orderID, isPartial: refundType == 2)
        } else if notification.has("testNotification") {
            subject = .test
        } else {
            throw .init(
                .malformedMissingField,
                "no subscriptionNotification, oneTimeProductNotification, voidedPurchaseNotification or testNotification")
        }
        let subscription = try body.object("subscription")
        let product = try body.object("product")
        switch subject {
        case .subscription(let type, _) where Self.deliversOrders(type) || type == Self.revoked:
            guard subscription != nil else { throw .init(.malformedMissingField, "no subscription (the state fetched) for type \(type)") }
        case .oneTimeProduct(let type, _) where type == Self.oneTimePurchased:
            guard product != nil else { throw .init(.malformedMissingField, "no product (the purchase fetched)") }
        default: break
        }
        guard let eventMillis, let at = Timestamp.fromEpochMilliseconds(eventMillis) else {
            throw .init(.malformedBadTimestamp, "eventTimeMillis is not epoch milliseconds")
        }
        self.at = at
        self.subject = subject
        switch subject {
        case .subscription(let type, let token), .oneTimeProduct(let type, let token): id = messageID ?? "\(token):\(type):\(eventMillis)"
        case .voided(let token, _, _): id = messageID ?? "\(token):voided:\(eventMillis)"
        case .test: id = messageID ?? "test:\(eventMillis)"
        }
        hasState = subscription != nil || product != nil
        if let subscription { try read(subscription: subscription) }
        if let product { try read(product: product, sku: try oneTimeNotification?.string("sku")) }
    }

    /// S: its line items' orders, its link, its buyer.
    private mutating func read(subscription: StoreJSONObject) throws(StoreLineRejection) {
        guard let lineItems = try subscription.objects("lineItems") else {
            throw .init(.malformedMissingField, "subscription without lineItems")
        }
        linkedToken = try subscription.string("linkedPurchaseToken")
        buyer.userID = try subscription.object("externalAccountIdentifiers")?.string("obfuscatedExternalAccountId")
        buyer.country = subscription.descriptiveString("regionCode")
        buyer.isSandbox = subscription.has("testPurchase")
        let startTime = try Self.time(subscription.string("startTime"), "startTime")
        for item in lineItems {
            let productID = try Self.required(item.string("productId"), "lineItems[].productId")
            let expiresAt = try Self.time(item.string("expiryTime"), "expiryTime")
            guard let orderID = try item.string("latestSuccessfulOrderId") else { continue }
            let phase = try item.object("offerPhase")
            let isTrial = phase?.has("freeTrial") ?? false
            // The plan's price is what a base-price order costs; an introductory or prorated one
            // costs something else, which only its Order says.
            let isBasePrice = !(phase?.has("introductoryPrice") ?? false) && !(phase?.has("prorationPeriod") ?? false) && !isTrial
            var price: (micros: Int64, currency: String)?
            if isBasePrice, let recurring = try item.object("autoRenewingPlan")?.object("recurringPrice") {
                price = try Self.money(recurring, "recurringPrice")
            }
            // The token's first order (an id without Google's `..N` renewal suffix) began the
            // subscription; a later one is known from the notification that names it.
            let isFirstOfToken = !orderID.contains("..")
            orders.append(
                Order(
                    orderID: orderID, productID: productID, isTrial: isTrial, at: isFirstOfToken ? startTime ?? at : at,
                    priceMicros: price?.micros, currency: price?.currency, expiresAt: expiresAt))
        }
    }

    /// P: its order when it is purchased.
    private mutating func read(product: StoreJSONObject, sku: String?) throws(StoreLineRejection) {
        let orderID = try Self.required(product.string("orderId"), "product.orderId")
        let productID = try Self.required(product.string("productId") ?? sku, "product.productId")
        let millis = try Self.required(product.int64OrIntegerString("purchaseTimeMillis"), "product.purchaseTimeMillis")
        guard let purchasedAt = Timestamp.fromEpochMilliseconds(millis) else {
            throw .init(.malformedBadTimestamp, "purchaseTimeMillis is not epoch milliseconds")
        }
        buyer.userID = try product.string("obfuscatedExternalAccountId")
        buyer.country = product.descriptiveString("regionCode")
        // `purchaseType` 0 is a test purchase (license testing).
        buyer.isSandbox = try product.int64OrIntegerString("purchaseType") == 0
        guard try product.int64OrIntegerString("purchaseState") ?? 0 == 0 else { return }
        orders.append(
            Order(orderID: orderID, productID: productID, isTrial: false, at: purchasedAt, priceMicros: nil, currency: nil, expiresAt: nil))
    }

    /// `subscriptionNotification.notificationType`s that deliver orders: `RECOVERED` (1),
    /// `RENEWED` (2), `PURCHASED` (4), `RESTARTED` (7).
    static func deliversOrders(_ type: Int64) -> Bool { type == 1 || type == 2 || type == 4 || type == 7 }
    static let canceled: Int64 = 3
    static let revoked: Int64 = 12
    static let expired: Int64 = 13
    /// `oneTimeProductNotification.notificationType` `ONE_TIME_PRODUCT_PURCHASED`.
    static let oneTimePurchased: Int64 = 1

    private static func required<Value>(_ value: Value?, _ key: String) throws(StoreLineRejection) -> Value {
        guard let value else { throw .init(.malformedMissingField, "no \(key)") }
        return value
    }

    /// An RFC 3339 time as Google writes it (`2026-03-01T10:00:00.123Z`); nil when absent.
    private static func time(_ text: String?, _ key: String) throws(StoreLineRejection) -> Int64? {
        guard let text else { return nil }
        guard let micros = Timestamp.parse(text) else { throw .init(.malformedBadTimestamp, "\(key) '\(text)' is not a time") }
        return micros
    }

    /// A `Money` (`currencyCode`, `units`, `nanos`) in micro-units.
    static func money(_ money: StoreJSONObject, _ key: String) throws(StoreLineRejection) -> (micros: Int64, currency: String) {
        let currency = try required(money.string("currencyCode"), "\(key).currencyCode")
        let units = try money.int64OrIntegerString("units") ?? 0
        let nanos = try money.int64OrIntegerString("nanos") ?? 0
        let (scaled, overflow) = units.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow, abs(units) <= Price.maximumMicros / 1_000_000 else { throw .init(.malformedInvalidField, "\(key) is too large") }
        let micros = scaled + nanos / 1000
        guard micros >= 0 else { throw .init(.malformedNegativePrice, "\(key) is negative") }
        return (micros, currency)
    }
}
