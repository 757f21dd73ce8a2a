/// The world the data imitates: currencies, countries, App Store products, the offerings with
/// their groups, what each group shows, and the treatment effect built into each group.
///
/// Everything here is constant; the tables are written from it and the simulation reads it.
enum Catalog {}

struct Currency: Sendable {
    let code: String
    let codeBytes: [UInt8]
    /// Digits after the decimal point (JPY: 0).
    let exponent: Int

    init(_ code: String, exponent: Int) {
        self.code = code
        codeBytes = code.bytes
        self.exponent = exponent
    }
}

struct Country: Sendable {
    let code: String
    let codeBytes: [UInt8]
    let currency: Int
    /// Relative share of users.
    let weight: Double
    /// UTC offsets (minutes) the country's clients write local timestamps in.
    let offsets: [Int]
    /// The App Store's `storefront`: the ISO 3166 alpha-3 code.
    let storefront: String
}

struct Product: Sendable {
    let id: String
    let idBytes: [UInt8]
    /// The `type` column of the products table.
    let type: String
    /// Days between charges; 0 for a one-time purchase.
    let renewalDays: Int
    /// Days of access a one-time purchase gives.
    let accessDays: Int
    /// Days of the free trial (intro offer); 0 for none.
    let trialDays: Int
    /// Price in minor units, per currency index of `Catalog.currencies`.
    let prices: [Int64]
    /// The `fallback_display_price` column (USD).
    let fallbackDisplayPrice: String

    var isOneTime: Bool { renewalDays == 0 }
}

struct GroupProduct: Sendable {
    let product: Int
    let position: Int
    let isDefault: Bool
    /// How `is_default` is written in the CSV (`1`, `TRUE`, `false`…: readers accept any case).
    let isDefaultText: String
    let badge: String?
    let subtitle: String?
    /// Relative chance that a converting user picks this product.
    let pickWeight: Double
}

struct GroupCopy: Sendable {
    let headerTitle: String
    let headerSubtitle: String
    let ctaButtonText: String
    let supportingText: String
    let locale: String?
}

struct OfferingGroup: Sendable {
    /// `subscription_offering_groups.id`.
    let tableID: Int
    /// Index in `Catalog.offerings`.
    let offering: Int
    let name: String
    let nameBytes: [UInt8]
    /// How the weight is written in the table (`2`, `50`, `0.5`).
    let weightText: String
    let weight: Double
    let description: String?
    let products: [GroupProduct]
    let copy: GroupCopy
    /// Multiplies the chance that a user starts a trial or buys (the treatment effect).
    let conversionMultiplier: Double
}

struct Offering: Sendable {
    /// `subscription_offerings.id`.
    let tableID: Int
    let offeringID: String
    let offeringIDBytes: [UInt8]
    let name: String
    /// How `is_active` is written.
    let isActiveText: String
    let createdAt: String
    /// Indices in `Catalog.groups`, by table id.
    let groups: [Int]
}

extension Catalog {
    static let usd = 0, eur = 1, gbp = 2, jpy = 3, brl = 4
    static let currencies = [
        Currency("USD", exponent: 2), Currency("EUR", exponent: 2), Currency("GBP", exponent: 2),
        Currency("JPY", exponent: 0), Currency("BRL", exponent: 2),
    ]
    /// Rates written into the job (1 unit = rate USD). BRL deliberately has none.
    static let rates: [(code: String, rate: String)] = [("EUR", "1.08"), ("GBP", "1.27"), ("JPY", "0.0067")]

    static let countries = [
        Country(code: "US", codeBytes: "US".bytes, currency: usd, weight: 58, offsets: [-300, -480], storefront: "USA"),
        Country(code: "GB", codeBytes: "GB".bytes, currency: gbp, weight: 10, offsets: [0], storefront: "GBR"),
        Country(code: "DE", codeBytes: "DE".bytes, currency: eur, weight: 10, offsets: [60, 120], storefront: "DEU"),
        Country(code: "FR", codeBytes: "FR".bytes, currency: eur, weight: 8, offsets: [60], storefront: "FRA"),
        Country(code: "JP", codeBytes: "JP".bytes, currency: jpy, weight: 8, offsets: [540], storefront: "JPN"),
        Country(code: "BR", codeBytes: "BR".bytes, currency: brl, weight: 6, offsets: [-180], storefront: "BRA"),
    ]
    static let countryWeights = countries.map(\.weight)

    /// The Apple platforms a user's `platform` draws from; Google Play's users are on `android`.
    static let platforms: [[UInt8]] = ["ios".bytes, "ipados".bytes, "macos".bytes]
    static let platformWeights: [Double] = [85, 11, 4]
    static let android = "android".bytes

    static let weekly799 = 0, monthly1999 = 1, weekly999 = 2, monthly2499 = 3, yearly5999 = 4, pass3Day = 5
    static let products = [
        Product(
            id: "weekly_799", idBytes: "weekly_799".bytes, type: "weekly", renewalDays: 7, accessDays: 0,
            trialDays: 3, prices: [799, 899, 699, 1200, 3990], fallbackDisplayPrice: "7.99"),
        Product(
            id: "monthly_1999", idBytes: "monthly_1999".bytes, type: "monthly", renewalDays: 30, accessDays: 0,
            trialDays: 0, prices: [1999, 2199, 1799, 3000, 9990], fallbackDisplayPrice: "19.99"),
        Product(
            id: "weekly_999", idBytes: "weekly_999".bytes, type: "weekly", renewalDays: 7, accessDays: 0,
            trialDays: 3, prices: [999, 1099, 899, 1500, 4990], fallbackDisplayPrice: "9.99"),
        Product(
            id: "monthly_2499", idBytes: "monthly_2499".bytes, type: "monthly", renewalDays: 30, accessDays: 0,
            trialDays: 0, prices: [2499, 2699, 2199, 3800, 11990], fallbackDisplayPrice: "24.99"),
        Product(
            id: "yearly_5999", idBytes: "yearly_5999".bytes, type: "yearly", renewalDays: 365, accessDays: 0,
            trialDays: 7, prices: [5999, 6499, 5499, 9800, 29990], fallbackDisplayPrice: "59.99"),
        Product(
            id: "pass_3day", idBytes: "pass_3day".bytes, type: "3_day_pass", renewalDays: 0, accessDays: 3,
            trialDays: 0, prices: [299, 349, 299, 450, 1490], fallbackDisplayPrice: "2.99"),
    ]

    static let springOffering = 0, copyOffering = 1, winterOffering = 2
    static let offerings = [
        Offering(
            tableID: 1, offeringID: "spring_2026_price_test", offeringIDBytes: "spring_2026_price_test".bytes,
            name: "Spring 2026 price test: weekly, monthly, 3-day pass", isActiveText: "1",
            createdAt: "2026-02-10 16:05:11", groups: [0, 1, 2]),
        Offering(
            tableID: 2, offeringID: "onboarding_copy_test", offeringIDBytes: "onboarding_copy_test".bytes,
            name: "Onboarding copy test", isActiveText: "true", createdAt: "2026-02-12 09:30:00", groups: [3, 4, 5]),
        Offering(
            tableID: 3, offeringID: "winter_2025_trial_test", offeringIDBytes: "winter_2025_trial_test".bytes,
            name: "Winter 2025 trial length (ended)", isActiveText: "0", createdAt: "2025-12-01 10:00:00",
            groups: [6, 7]),
    ]

    private static let baseCopy = GroupCopy(
        headerTitle: "Study AI", headerSubtitle: "Join now. Learn anything.", ctaButtonText: "Next",
        supportingText: "Directly Supports the Developer - Cancel Anytime", locale: "en_US")

    /// Groups in table-id order (index = table id − 1).
    static let groups = [
        OfferingGroup(
            tableID: 1, offering: springOffering, name: "control", nameBytes: "control".bytes, weightText: "2",
            weight: 2, description: nil,
            products: [
                GroupProduct(
                    product: weekly799, position: 0, isDefault: true, isDefaultText: "1", badge: nil,
                    subtitle: nil, pickWeight: 65),
                GroupProduct(
                    product: monthly1999, position: 1, isDefault: false, isDefaultText: "0", badge: nil,
                    subtitle: "That's 40% Off Weekly!", pickWeight: 35),
            ],
            copy: baseCopy, conversionMultiplier: 1.0),
        OfferingGroup(
            tableID: 2, offering: springOffering, name: "variant_a", nameBytes: "variant_a".bytes, weightText: "1",
            weight: 1, description: "Higher prices: weekly 9.99, monthly 24.99",
            products: [
                GroupProduct(
                    product: weekly999, position: 0, isDefault: true, isDefaultText: "TRUE", badge: nil,
                    subtitle: nil, pickWeight: 65),
                GroupProduct(
                    product: monthly2499, position: 1, isDefault: false, isDefaultText: "FALSE",
                    badge: nil, subtitle: "That's 42% Off Weekly!", pickWeight: 35),
            ],
            copy: baseCopy, conversionMultiplier: 0.85),
        OfferingGroup(
            tableID: 3, offering: springOffering, name: "variant_b", nameBytes: "variant_b".bytes, weightText: "1",
            weight: 1, description: "3-day pass + monthly + yearly\twith \"BEST VALUE\" badge",
            products: [
                GroupProduct(
                    product: pass3Day, position: 0, isDefault: false, isDefaultText: "false",
                    badge: nil, subtitle: "3 days of full access, no renewal", pickWeight: 25),
                GroupProduct(
                    product: monthly1999, position: 1, isDefault: true, isDefaultText: "true",
                    badge: nil, subtitle: "Most Popular Choice", pickWeight: 45),
                GroupProduct(
                    product: yearly5999, position: 2, isDefault: false, isDefaultText: "false",
                    badge: "BEST VALUE", subtitle: "Only $1.15/week, \"billed yearly\"", pickWeight: 30),
            ],
            copy: GroupCopy(
                headerTitle: "Study AI", headerSubtitle: "Try it for 3 days.\nOr save with a plan.",
                ctaButtonText: "Continue", supportingText: "Cancel anytime in Settings \\ Subscriptions",
                locale: nil),
            conversionMultiplier: 1.4),
        OfferingGroup(
            tableID: 4, offering: copyOffering, name: "control", nameBytes: "control".bytes, weightText: "50",
            weight: 50, description: nil,
            products: [
                GroupProduct(
                    product: weekly799, position: 0, isDefault: true, isDefaultText: "1", badge: nil,
                    subtitle: nil, pickWeight: 65),
                GroupProduct(
                    product: monthly1999, position: 1, isDefault: false, isDefaultText: "0", badge: nil,
                    subtitle: "That's 40% Off Weekly!", pickWeight: 35),
            ],
            copy: baseCopy, conversionMultiplier: 1.0),
        OfferingGroup(
            tableID: 5, offering: copyOffering, name: "social_proof", nameBytes: "social_proof".bytes,
            weightText: "25", weight: 25, description: "Ratings and learner count in the header",
            products: [
                GroupProduct(
                    product: weekly799, position: 0, isDefault: true, isDefaultText: "1", badge: nil,
                    subtitle: nil, pickWeight: 65),
                GroupProduct(
                    product: monthly1999, position: 1, isDefault: false, isDefaultText: "0", badge: nil,
                    subtitle: "Loved by 2,000,000 learners", pickWeight: 35),
            ],
            copy: GroupCopy(
                headerTitle: "Study AI \u{2605} 4.8", headerSubtitle: "Join 2,000,000 learners.\nLearn anything.",
                ctaButtonText: "Start Learning", supportingText: "Rated 4.8\tby 120k students - Cancel Anytime",
                locale: "en_US"),
            conversionMultiplier: 1.10),
        OfferingGroup(
            tableID: 6, offering: copyOffering, name: "urgency", nameBytes: "urgency".bytes, weightText: "25",
            weight: 25, description: "Countdown copy",
            products: [
                GroupProduct(
                    product: weekly799, position: 0, isDefault: true, isDefaultText: "1", badge: nil,
                    subtitle: nil, pickWeight: 65),
                GroupProduct(
                    product: monthly1999, position: 1, isDefault: false, isDefaultText: "0",
                    badge: "LIMITED TIME", subtitle: "Offer ends Sunday", pickWeight: 35),
            ],
            copy: GroupCopy(
                headerTitle: "Last chance \u{1F680}", headerSubtitle: "Prices go up on Sunday.",
                ctaButtonText: "Claim my offer", supportingText: "Cancel Anytime \u{2014} no commitment",
                locale: "en_US"),
            conversionMultiplier: 0.95),
        OfferingGroup(
            tableID: 7, offering: winterOffering, name: "control", nameBytes: "control".bytes, weightText: "0.5",
            weight: 0.5, description: nil,
            products: [
                GroupProduct(
                    product: weekly799, position: 0, isDefault: true, isDefaultText: "1", badge: nil,
                    subtitle: nil, pickWeight: 1)
            ],
            copy: baseCopy, conversionMultiplier: 1.0),
        OfferingGroup(
            tableID: 8, offering: winterOffering, name: "long_trial", nameBytes: "long_trial".bytes,
            weightText: "0.5", weight: 0.5, description: "7-day trial instead of 3",
            products: [
                GroupProduct(
                    product: weekly799, position: 0, isDefault: true, isDefaultText: "1", badge: nil,
                    subtitle: "7 days free, then 7.99/week", pickWeight: 1)
            ],
            copy: GroupCopy(
                headerTitle: "Study AI", headerSubtitle: "A whole week, free.", ctaButtonText: "Start Free Trial",
                supportingText: "Directly Supports the Developer - Cancel Anytime", locale: "en_GB"),
            conversionMultiplier: 1.0),
    ]

    /// The chance that a user with no treatment effect starts a trial or buys.
    static let baseConversion = 0.10

    /// Table ids used by the deliberately invalid assignment rows.
    static let unknownGroupTableID = 99
    static let unknownOfferingTableID = 77

    /// The group weights of an offering, in group order.
    static func weights(offering: Int) -> [Double] {
        offerings[offering].groups.map { groups[$0].weight }
    }
}
