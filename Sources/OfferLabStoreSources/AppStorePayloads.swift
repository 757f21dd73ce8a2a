/// The decoded payloads of App Store Server Notifications V2, with the fields OfferLab reads
/// (Apple's `ResponseBodyV2DecodedPayload`, `JWSTransactionDecodedPayload`,
/// `JWSRenewalInfoDecodedPayload`). Dates are epoch milliseconds, fractional in Xcode's files.

/// The outer `signedPayload`.
struct NotificationPayload: Decodable {
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

struct NotificationData: Decodable {
    var bundleId: String?
    var environment: String?
    var signedTransactionInfo: String?
    var signedRenewalInfo: String?
}

struct AppOnly: Decodable {
    var bundleId: String?
}

/// A decoded `signedTransactionInfo`.
struct TransactionPayload: Decodable {
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
struct RenewalPayload: Decodable {
    var originalTransactionId: String?
    var productId: String?
    var appAccountToken: String?
    var signedDate: Double?
    var environment: String?
}

/// The payloads' own decoded parts that signature checks need: when each was signed.
protocol SignedPayload: Decodable {
    var signedDate: Double? { get }
    var environment: String? { get }
}

extension TransactionPayload: SignedPayload {}
extension RenewalPayload: SignedPayload {}
