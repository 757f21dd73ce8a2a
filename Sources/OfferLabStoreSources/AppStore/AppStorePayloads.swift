/// The decoded payloads of App Store Server Notifications V2, with the fields OfferLab reads
/// (Apple's `ResponseBodyV2DecodedPayload`, `JWSTransactionDecodedPayload`,
/// `JWSRenewalInfoDecodedPayload`). Dates are epoch milliseconds, fractional in Xcode's files.

/// The outer `signedPayload`.
struct NotificationPayload {
    var notificationType: String?
    var subtype: String?
    var notificationUUID: String?
    var signedDate: Double?
    var data: NotificationData?
    /// `RENEWAL_EXTENSION` summaries and external purchase tokens carry no transaction, but name
    /// the app.
    var summary: AppOnly?
    var externalPurchaseToken: AppOnly?

    /// The app the notification is about, wherever this kind of notification says it.
    var bundleID: String? { data?.bundleId ?? summary?.bundleId ?? externalPurchaseToken?.bundleId }
}

struct NotificationData {
    var bundleId: String?
    var environment: String?
    var signedTransactionInfo: String?
    var signedRenewalInfo: String?

    init(_ json: StoreJSONObject) throws(StoreLineRejection) {
        bundleId = try json.string("bundleId")
        environment = try json.string("environment")
        signedTransactionInfo = try json.string("signedTransactionInfo")
        signedRenewalInfo = try json.string("signedRenewalInfo")
    }
}

struct AppOnly {
    var bundleId: String?

    init(_ json: StoreJSONObject) throws(StoreLineRejection) {
        bundleId = try json.string("bundleId")
    }
}

/// A decoded `signedTransactionInfo`.
struct TransactionPayload {
    var transactionId: String?
    var originalTransactionId: String?
    var bundleId: String?
    var productId: String?
    var purchaseDate: Double?
    var expiresDate: Double?
    var signedDate: Double?
    /// Milliunits of `currency` (10990 is 10.99).
    var price: Int64?
    var currency: String?
    var offerDiscountType: String?
    var storefront: String?
    var inAppOwnershipType: String?
    var revocationDate: Double?
    /// Thousandths of a percent of the price refunded (50000 is half).
    var revocationPercentage: Int64?
    var appAccountToken: String?
    var environment: String?
}

/// A decoded `signedRenewalInfo`: only what ties a status change to its chain.
struct RenewalPayload {
    var originalTransactionId: String?
    var productId: String?
    var appAccountToken: String?
    var signedDate: Double?
    var environment: String?
}

/// A payload of a JWS: read from its JSON object, and when it was signed, which its signature
/// check needs.
protocol SignedPayload {
    var signedDate: Double? { get }
    var environment: String? { get }

    init(_ json: StoreJSONObject) throws(StoreLineRejection)
}

extension NotificationPayload: SignedPayload {
    var environment: String? { data?.environment }

    init(_ json: StoreJSONObject) throws(StoreLineRejection) {
        notificationType = try json.string("notificationType")
        subtype = try json.string("subtype")
        notificationUUID = try json.string("notificationUUID")
        signedDate = try json.double("signedDate")
        data = try json.object("data").map { (data) throws(StoreLineRejection) in try NotificationData(data) }
        summary = try json.object("summary").map { (summary) throws(StoreLineRejection) in try AppOnly(summary) }
        externalPurchaseToken = try json.object("externalPurchaseToken").map { (token) throws(StoreLineRejection) in
            try AppOnly(token)
        }
    }
}

extension TransactionPayload: SignedPayload {
    init(_ json: StoreJSONObject) throws(StoreLineRejection) {
        transactionId = try json.string("transactionId")
        originalTransactionId = try json.string("originalTransactionId")
        bundleId = try json.string("bundleId")
        productId = try json.string("productId")
        purchaseDate = try json.double("purchaseDate")
        expiresDate = try json.double("expiresDate")
        signedDate = try json.double("signedDate")
        price = try json.int64("price")
        currency = try json.string("currency")
        offerDiscountType = try json.string("offerDiscountType")
        storefront = json.descriptiveString("storefront")
        inAppOwnershipType = try json.string("inAppOwnershipType")
        revocationDate = try json.double("revocationDate")
        revocationPercentage = try json.int64("revocationPercentage")
        appAccountToken = try json.string("appAccountToken")
        environment = try json.string("environment")
    }
}

extension RenewalPayload: SignedPayload {
    init(_ json: StoreJSONObject) throws(StoreLineRejection) {
        originalTransactionId = try json.string("originalTransactionId")
        productId = try json.string("productId")
        appAccountToken = try json.string("appAccountToken")
        signedDate = try json.double("signedDate")
        environment = try json.string("environment")
    }
}
