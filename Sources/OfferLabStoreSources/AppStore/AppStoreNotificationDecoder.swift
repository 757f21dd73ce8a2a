import Foundation

/// What one stored webhook body of App Store Server Notifications V2 says, verified and decoded
/// (docs/input-formats.md#from-notifications-to-events-rule-by-rule).
public struct AppStoreNotification: Sendable, Equatable {
    /// `notificationUUID`: the same for every retry of the notification.
    public var id: String
    public var type: String
    public var subtype: String?
    /// `signedDate`, microseconds since the epoch.
    public var signedAt: Int64
    /// Whether `notificationType` is one Apple documents.
    public var isKnownType: Bool
    /// The transaction it carries (`signedTransactionInfo`), as a record of this delivery.
    public var transaction: StoreTransaction?
    /// A `cancel` (auto-renew switched off) or an `expire`.
    public var statusChange: StoreStatusChange?
    /// `REFUND_REVERSED`.
    public var refundReversal: StoreRefundReversal?

    public init(
        id: String, type: String, subtype: String?, signedAt: Int64, isKnownType: Bool, transaction: StoreTransaction? = nil,
        statusChange: StoreStatusChange? = nil, refundReversal: StoreRefundReversal? = nil
    ) {
        self.id = id
        self.type = type
        self.subtype = subtype
        self.signedAt = signedAt
        self.isKnownType = isKnownType
        self.transaction = transaction
        self.statusChange = statusChange
        self.refundReversal = refundReversal
    }
}

/// Reads one line of a webhook receiver's store, `{"signedPayload": "<JWS>"}`: verifies the JWS
/// and its nested `signedTransactionInfo` and `signedRenewalInfo`, checks the app, and decodes
/// the facts. Safe to use from many tasks at once.
public struct AppStoreNotificationDecoder: Sendable {
    /// The job's `app_store.bundle_id`.
    public var bundleID: String
    /// Nil when the job says `app_store.verify: false` (a receiver that verified at receipt).
    public var verifier: AppStoreSignatureVerifier?
    private let headers = JWSHeaderCache()

    public init(bundleID: String, verifier: AppStoreSignatureVerifier?) {
        self.bundleID = bundleID
        self.verifier = verifier
    }

    /// The notification `line` holds, or why it is rejected.
    public func decode(_ line: [UInt8]) async throws(StoreLineRejection) -> AppStoreNotification {
        let body = try StoreJSONObject(line, what: "the line")
        guard let signedPayload = try body.string("signedPayload") else { throw .init(.malformedMissingField, "no signedPayload") }
        // Another app's notification is refused before its signature costs anything: whether
        // signed or not, it says nothing about this app.
        let payload = try await open(signedPayload, as: NotificationPayload.self, what: "signedPayload", unsigned: false) {
            (payload) throws(StoreLineRejection) in
            guard payload.bundleID == bundleID else {
                throw .init(.malformedOtherApp, "bundleId \(payload.bundleID.map { "'\($0)'" } ?? "absent"), not '\(bundleID)'")
            }
        }
        guard let type = payload.notificationType else { throw .init(.malformedMissingField, "no notificationType") }
        guard let id = payload.notificationUUID, !id.isEmpty else { throw .init(.malformedMissingField, "no notificationUUID") }
        let signedAt = try Self.microseconds(payload.signedDate, "signedDate")
        let environment = payload.data?.environment
        // Xcode and LocalTesting data is not signed by the App Store; its nested data neither.
        let unsigned = Self.isUnsigned(environment)

        var transaction: TransactionPayload?
        if let text = payload.data?.signedTransactionInfo {
            transaction = try await open(text, as: TransactionPayload.self, what: "signedTransactionInfo", unsigned: unsigned) {
                (nested) throws(StoreLineRejection) in
                if let nestedApp = nested.bundleId, nestedApp != bundleID {
                    throw .init(.malformedOtherApp, "signedTransactionInfo bundleId '\(nestedApp)', not '\(bundleID)'")
                }
            }
        }
        var renewal: RenewalPayload?
        if let text = payload.data?.signedRenewalInfo {
            renewal = try await open(text, as: RenewalPayload.self, what: "signedRenewalInfo", unsigned: unsigned)
        }

        // Either environment makes a sandbox record: an unsigned Xcode notification cannot carry
        // a production transaction.
        let isSandbox = Self.isSandbox(environment) || Self.isSandbox(transaction?.environment)
        var notification = AppStoreNotification(
            id: id, type: type, subtype: payload.subtype, signedAt: signedAt, isKnownType: Self.knownTypes.contains(type))
        if let transaction {
            var record = try Self.record(transaction, isSandbox: isSandbox)
            if type == "REFUND", record.refund == nil { record.refund = .init(at: signedAt, amountMicros: nil) }
            notification.transaction = record
            if type == "REFUND_REVERSED" {
                notification.refundReversal = StoreRefundReversal(
                    format: .appStoreNotifications, id: id, transactionID: record.transactionID, at: signedAt)
            }
        }
        let isCancel = type == "DID_CHANGE_RENEWAL_STATUS" && payload.subtype == "AUTO_RENEW_DISABLED"
        let isExpire = type == "EXPIRED" || type == "GRACE_PERIOD_EXPIRED"
        if isCancel || isExpire {
            let record = notification.transaction
            notification.statusChange = StoreStatusChange(
                format: .appStoreNotifications, id: id, event: isCancel ? .cancel : .expire, at: signedAt,
                originalTransactionID: record?.originalTransactionID ?? renewal?.originalTransactionId,
                transactionID: record?.transactionID, productID: record?.productID ?? renewal?.productId,
                buyer: StoreBuyer(
                    userID: record?.buyer.userID ?? renewal?.appAccountToken.map { $0.lowercased() },
                    isSandbox: isSandbox || Self.isSandbox(renewal?.environment), country: record?.buyer.country, platform: "ios",
                    store: "app_store"))
        }
        return notification
    }

    /// Decodes a JWS, applies `check` to its payload and, unless its environment is unsigned by
    /// design, verifies it at its own `signedDate`.
    private func open<Payload: SignedPayload>(
        _ text: String, as type: Payload.Type, what: String, unsigned: Bool,
        check: (Payload) throws(StoreLineRejection) -> Void = { _ in }
    ) async throws(StoreLineRejection) -> Payload {
        let jws: CompactJWS
        do { jws = try CompactJWS(text, headers: headers) } catch { throw .init(.malformedBadSignature, "\(what): \(error)") }
        let payload = try Payload(StoreJSONObject(jws.payload, what: "the \(what) payload"))
        try check(payload)
        guard let verifier, !unsigned, !Self.isUnsigned(payload.environment) else { return payload }
        do { try jws.checkAppleHeader() } catch { throw .init(.malformedBadSignature, "\(what): \(error)") }
        let signedAt = try Self.microseconds(payload.signedDate, "\(what) signedDate")
        do { try await verifier.verify(jws, signedAt: signedAt) } catch { throw .init(.malformedBadSignature, "\(what): \(error)") }
        return payload
    }

    /// A transaction as this delivery reports it.
    private static func record(_ payload: TransactionPayload, isSandbox: Bool) throws(StoreLineRejection) -> StoreTransaction {
        guard let transactionID = payload.transactionId, !transactionID.isEmpty else {
            throw .init(.malformedMissingField, "signedTransactionInfo has no transactionId")
        }
        guard let productID = payload.productId, !productID.isEmpty else {
            throw .init(.malformedMissingField, "signedTransactionInfo has no productId")
        }
        let at = try microseconds(payload.purchaseDate, "purchaseDate")
        let isTrial = payload.offerDiscountType == "FREE_TRIAL"
        var priceMicros: Int64?
        if let price = payload.price, !isTrial {
            guard price >= 0 else { throw .init(.malformedNegativePrice, "price \(price)") }
            let (micros, overflow) = price.multipliedReportingOverflow(by: 1000)
            guard !overflow else { throw .init(.malformedInvalidField, "price \(price) is out of range") }
            guard payload.currency != nil else { throw .init(.malformedMissingField, "price without currency") }
            priceMicros = micros
        }
        var refund: StoreTransaction.Refund?
        if let revocationDate = payload.revocationDate {
            var amount: Int64?
            if let percentage = payload.revocationPercentage {
                guard (0...100_000).contains(percentage) else {
                    throw .init(.malformedInvalidField, "revocationPercentage \(percentage) is not in 0…100000")
                }
                if let price = payload.price, !isTrial {
                    // price (milliunits) × 1000 (micro-units) × percentage / 100 000.
                    let (product, overflow) = price.multipliedReportingOverflow(by: percentage)
                    guard !overflow else { throw .init(.malformedInvalidField, "price \(price) is out of range") }
                    amount = product / 100
                }
            }
            refund = .init(at: try microseconds(revocationDate, "revocationDate"), amountMicros: amount)
        }
        let expiresAt = try payload.expiresDate.map { (date) throws(StoreLineRejection) in try microseconds(date, "expiresDate") }
        let token = payload.appAccountToken?.lowercased()
        var record = StoreTransaction(
            format: .appStoreNotifications, transactionID: transactionID, originalTransactionID: payload.originalTransactionId,
            productID: productID, kind: isTrial ? .trial : .chargeByChainOrder, at: at,
            money: .init(priceMicros: priceMicros, currency: isTrial ? nil : payload.currency),
            buyer: StoreBuyer(
                userID: token?.isEmpty == false ? token : nil, isSandbox: isSandbox,
                isFamilyShared: payload.inAppOwnershipType == "FAMILY_SHARED",
                country: payload.storefront.flatMap { CountryCodes.alpha2ByAlpha3[$0.uppercased()] }, platform: "ios",
                store: "app_store"))
        record.expiresAt = expiresAt
        record.refund = refund
        return record
    }

    /// Epoch milliseconds (fractional in Xcode's data) as microseconds, or why not.
    static func microseconds(_ milliseconds: Double?, _ what: String) throws(StoreLineRejection) -> Int64 {
        guard let milliseconds else { throw .init(.malformedMissingField, "no \(what)") }
        // Years 1 to 9999, as the timestamp grammar (docs/input-formats.md#timestamps).
        guard milliseconds.isFinite, milliseconds >= -62_135_596_800_000, milliseconds < 253_402_300_800_000 else {
            throw .init(.malformedBadTimestamp, "\(what) \(milliseconds) is not a date")
        }
        return Int64((milliseconds * 1000).rounded(.down))
    }

    private static func isUnsigned(_ environment: String?) -> Bool {
        switch environment?.lowercased() {
        case "xcode", "localtesting": true
        default: false
        }
    }

    private static func isSandbox(_ environment: String?) -> Bool {
        switch environment?.lowercased() {
        case "sandbox", "xcode", "localtesting": true
        default: false
        }
    }

    /// Apple's documented `notificationType` values.
    static let knownTypes: Set<String> = [
        "CONSUMPTION_REQUEST", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "DID_FAIL_TO_RENEW", "DID_RENEW", "EXPIRED",
        "EXTERNAL_PURCHASE_TOKEN", "GRACE_PERIOD_EXPIRED", "METADATA_UPDATE", "MIGRATION", "OFFER_REDEEMED", "ONE_TIME_CHARGE",
        "PRICE_CHANGE", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED", "REFUND_REVERSED", "RENEWAL_EXTENDED", "RENEWAL_EXTENSION",
        "RESCIND_CONSENT", "REVOKE", "SUBSCRIBED", "TEST",
    ]
}
