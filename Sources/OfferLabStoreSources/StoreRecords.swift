import OfferLabIngest

/// Who a store record's purchase is of and where it was made, as the record says: the same in a
/// transaction, a refund and a status change.
public struct StoreBuyer: Sendable, Equatable {
    /// The user as the record names it (`appAccountToken`, RevenueCat's app user id); the
    /// server's `user_transactions` table, when it names the chain, wins over it.
    public var userID: String?
    public var isSandbox: Bool
    /// Family Sharing: the person who sees the paywall did not pay (`family_shared_records`).
    public var isFamilyShared: Bool
    public var country: String?
    public var platform: String?
    public var store: String?

    public init(
        userID: String?, isSandbox: Bool = false, isFamilyShared: Bool = false, country: String? = nil, platform: String? = nil,
        store: String? = nil
    ) {
        self.userID = userID
        self.isSandbox = isSandbox
        self.isFamilyShared = isFamilyShared
        self.country = country
        self.platform = platform
        self.store = store
    }
}

/// One distinct transaction of a store source
/// (docs/input-formats.md#store-sources-from-records-to-events): however many notifications, rows
/// or webhooks delivered it, a source reports it as one record.
public struct StoreTransaction: Sendable, Equatable {
    /// How the charge is classified.
    public enum Kind: Sendable, Equatable {
        /// A free trial (`trial_start`).
        case trial
        /// A paid charge the source itself marks as the first of its chain (`purchase`).
        case firstCharge
        /// A paid charge the source marks as a later one of its chain (`renewal`).
        case laterCharge
        /// A paid charge whose place in its chain the source does not say (App Store): the
        /// earliest paid charge of its `originalTransactionID` among all records is the
        /// `purchase`, the others `renewal`s.
        case chargeByChainOrder
    }

    /// What the transaction cost: its price and the shares of it the store says went to tax and
    /// commission. A trial's is empty.
    public struct Money: Sendable, Equatable {
        /// Micro-units of `currency`; nil for a trial, and for a paid charge without a price
        /// (`unpriced_charges`).
        public var priceMicros: Int64?
        public var currency: String?
        /// RevenueCat's shares of the price (docs/analysis.md §8), as fractions (0.3 for 30 %).
        public var taxShare: Double?
        public var commissionShare: Double?
        /// What the developer keeps of the price as the store computed it (Google Play's
        /// `developerRevenueInBuyerCurrency`), micro-units of `currency`: the exact proceeds
        /// (docs/analysis.md §8), in place of the shares and the job's rules.
        public var proceedsMicros: Int64?

        public init(
            priceMicros: Int64? = nil, currency: String? = nil, taxShare: Double? = nil, commissionShare: Double? = nil,
            proceedsMicros: Int64? = nil
        ) {
            self.priceMicros = priceMicros
            self.currency = currency
            self.taxShare = taxShare
            self.commissionShare = commissionShare
            self.proceedsMicros = proceedsMicros
        }
    }

    /// A refund of this transaction.
    public struct Refund: Sendable, Equatable {
        /// Microseconds since the epoch, UTC.
        public var at: Int64
        /// The amount returned in micro-units of the transaction's currency; nil: the whole price.
        public var amountMicros: Int64?

        public init(at: Int64, amountMicros: Int64?) {
            self.at = at
            self.amountMicros = amountMicros
        }
    }

    public var format: SourceFormat
    public var transactionID: String
    public var originalTransactionID: String?
    public var productID: String?
    public var kind: Kind
    /// When the trial began or the charge was made: microseconds since the epoch, UTC.
    public var at: Int64
    public var money: Money
    public var buyer: StoreBuyer
    /// The end of the period the transaction gives (docs/analysis.md §9), microseconds since the
    /// epoch.
    public var expiresAt: Int64?
    public var refund: Refund?
    /// The input file that first delivered the record (file order: sorted paths); nil for a
    /// record made in memory. `offerlab events` writes its events to that file's output.
    public var sourcePath: String?

    /// A transaction without an end of period or a refund (set them where the record has them).
    public init(
        format: SourceFormat, transactionID: String, originalTransactionID: String?, productID: String?, kind: Kind, at: Int64,
        money: Money, buyer: StoreBuyer
    ) {
        self.format = format
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.kind = kind
        self.at = at
        self.money = money
        self.buyer = buyer
    }
}

/// A `cancel` or `expire` a store reported (one per notification or webhook, retries merged).
public struct StoreStatusChange: Sendable, Equatable {
    public var format: SourceFormat
    /// The notification's or webhook's own id: the event id is `<format>:<id>`.
    public var id: String
    public var event: EventType
    public var at: Int64
    public var originalTransactionID: String?
    public var transactionID: String?
    public var productID: String?
    /// Its buyer; never family shared (a status change has no money).
    public var buyer: StoreBuyer
    /// The input file that first delivered the record (file order: sorted paths); nil for a
    /// record made in memory. `offerlab events` writes its events to that file's output.
    public var sourcePath: String?

    public init(
        format: SourceFormat, id: String, event: EventType, at: Int64, originalTransactionID: String?, transactionID: String?,
        productID: String?, buyer: StoreBuyer
    ) {
        self.format = format
        self.id = id
        self.event = event
        self.at = at
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.productID = productID
        self.buyer = buyer
    }
}

/// A refund a store reported on its own, apart from the charge it refunds (a RevenueCat
/// `CANCELLATION` webhook with `cancel_reason` `CUSTOMER_SUPPORT`): the charge may come from
/// another delivery or source, so the refund is its own record, `refund` of `transactionID`.
public struct StoreRefund: Sendable, Equatable {
    public var format: SourceFormat
    /// The refunded transaction.
    public var transactionID: String
    public var originalTransactionID: String?
    public var productID: String?
    /// When the refund was made: microseconds since the epoch, UTC.
    public var at: Int64
    /// The amount returned in micro-units of `currency`; nil: the whole price of the refunded
    /// transaction.
    public var amountMicros: Int64?
    public var currency: String?
    /// A partial refund whose amount the record does not say (Google Play's voided purchase of
    /// `refundType` 2): the refunded charge's `StoreChargeDetails` may say it; else the refund
    /// counts with its money left out (`unpriced_refunds`).
    public var amountUnknown = false
    public var buyer: StoreBuyer
    /// The input file that first delivered the record (file order: sorted paths); nil for a
    /// record made in memory. `offerlab events` writes its events to that file's output.
    public var sourcePath: String?

    public init(
        format: SourceFormat, transactionID: String, originalTransactionID: String?, productID: String?, at: Int64,
        amountMicros: Int64?, currency: String?, buyer: StoreBuyer
    ) {
        self.format = format
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.at = at
        self.amountMicros = amountMicros
        self.currency = currency
        self.buyer = buyer
    }
}

/// What a source says of a charge that another source of the same store delivers (Google Play's
/// Orders of the orders its notifications name): its time, its money and its refunds, which win
/// over what the delivering source says (`StoreEventResolver.resolve(sources:)`), whichever file
/// and night either came in.
public struct StoreChargeDetails: Sendable, Equatable {
    /// The refunds the details hold, summed: the first one's time and their total amount.
    public struct Refunds: Sendable, Equatable {
        /// Microseconds since the epoch, UTC.
        public var at: Int64
        /// Micro-units of the charge's currency.
        public var amountMicros: Int64

        public init(at: Int64, amountMicros: Int64) {
            self.at = at
            self.amountMicros = amountMicros
        }
    }

    public var format: SourceFormat
    /// The charge's transaction id (the order id).
    public var transactionID: String
    /// When the charge was made: microseconds since the epoch, UTC.
    public var at: Int64
    /// Its price, currency and proceeds.
    public var money: StoreTransaction.Money
    public var refunds: Refunds?
    /// The input file that delivered the details (file order: sorted paths).
    public var sourcePath: String?

    public init(format: SourceFormat, transactionID: String, at: Int64, money: StoreTransaction.Money, refunds: Refunds?) {
        self.format = format
        self.transactionID = transactionID
        self.at = at
        self.money = money
        self.refunds = refunds
    }
}

/// The records a file of a source was the first to deliver, as the night's collection left them
/// (later deliveries merged in): the parsed-log cache keeps them so that a later night decodes them
/// only when something it reads changes one of them (`KeptStoreNight`, in OfferLabEvents).
package struct StoreFileRecords: Sendable {
    package var transactions: [StoreTransaction] = []
    package var statusChanges: [StoreStatusChange] = []

    package init() {}
}
