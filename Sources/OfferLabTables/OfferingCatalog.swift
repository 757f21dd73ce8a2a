import OfferLabVocabulary

/// What the server's offering tables say: offerings, their groups, and what each group was shown.
public struct OfferingCatalog: Sendable {
    /// In table order.
    public var offerings: [Offering]

    public init(offerings: [Offering]) { self.offerings = offerings }

    /// The index of the offering whose table `id` is `id`.
    package func offeringIndex(id: Int64) -> Int? { offerings.firstIndex { $0.id == id } }
}

public struct Offering: Sendable {
    /// `subscription_offerings.id`, the key the other tables use.
    public var id: Int64
    /// The name clients log, e.g. `spring_2026_price_test`.
    public var offeringID: String
    public var name: String
    public var isActive: Bool
    /// Sorted by `id`.
    public var groups: [OfferingGroup]

    package init(id: Int64, offeringID: String, name: String, isActive: Bool, groups: [OfferingGroup]) {
        self.id = id
        self.offeringID = offeringID
        self.name = name
        self.isActive = isActive
        self.groups = groups
    }

    /// The control group per the job's `control`, else `control`, else the lowest id.
    public func controlGroupIndex(preferred: String?) -> Int? {
        if let preferred, let index = groups.firstIndex(where: { $0.name == preferred }) { return index }
        if let index = groups.firstIndex(where: { $0.name == "control" }) { return index }
        return groups.isEmpty ? nil : 0
    }
}

public struct OfferingGroup: Sendable {
    public var id: Int64
    public var name: String
    /// Relative share of the traffic; the shares need not sum to 1.
    public var weight: Double
    /// Sorted by `position`.
    public var products: [GroupProduct]
    public var copy: GroupCopy?

    package init(id: Int64, name: String, weight: Double, products: [GroupProduct], copy: GroupCopy? = nil) {
        self.id = id
        self.name = name
        self.weight = weight
        self.products = products
        self.copy = copy
    }
}

/// A product shown to a group.
public struct GroupProduct: Sendable {
    public var productID: String
    /// The catalog `type`, as written (the report shows it).
    public var type: String?
    public var fallbackDisplayPrice: String?
    public var position: Int64?
    public var isDefault: Bool
    public var badgeText: String?
    public var subtitleText: String?

    /// The billing period its `type` names; nil without one.
    public var billingPeriod: BillingPeriod? { type.map(BillingPeriod.init(catalogType:)) }
}

/// The paywall copy shown to a group.
public struct GroupCopy: Sendable {
    public var headerTitle: String?
    public var headerSubtitle: String?
    public var ctaButtonText: String?
    public var supportingText: String?
}
