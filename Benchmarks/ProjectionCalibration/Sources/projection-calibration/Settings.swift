import OfferLabProjection

/// The products every setting draws from, by index.
enum Product {
    static let weekly = 0
    static let monthly = 1
    static let yearly = 2
    static let pass = 3
    static let all = [
        ProjectionProduct(catalogType: "weekly")!, ProjectionProduct(catalogType: "monthly")!,
        ProjectionProduct(catalogType: "yearly")!, ProjectionProduct(catalogType: "3_day_pass")!,
    ]
}

/// The study's settings: prices, periods, trials, conversion, renewal curves and refunds differ.
let settings: [SimulatedSetting] = [
    SimulatedSetting(
        name: "weekly-vs-annual",
        summary:
            "control: yearly 59.99 after a 14-day trial (8 % start it, 60 % of trials convert); treatment: weekly 7.99, "
            + "no trial, 20 % buy, churn Beta(2, 1) (renewal 1/3, 1/2, 3/5, …: the weekly plan wins early, loses at 365 days)",
        products: Product.all,
        groups: [
            SimulatedGroup(
                name: "annual",
                plans: [
                    SimulatedPlan(
                        product: Product.yearly, price: 59.99, share: 1, trialDays: 14, trialConversion: 0.6, refundProbability: 0.04)
                ],
                paywallConversion: 0.08, lateHazard: 0.0001),
            SimulatedGroup(
                name: "weekly",
                plans: [
                    SimulatedPlan(product: Product.weekly, price: 7.99, share: 1, churnA: 2, churnB: 1, refundProbability: 0.03)
                ],
                paywallConversion: 0.20, lateHazard: 0.0001),
        ],
        isAA: false),
    SimulatedSetting(
        name: "monthly-vs-pass",
        summary:
            "control: monthly 14.99 after a 3-day trial (10 % start, 50 % convert), churn Beta(1, 3); treatment: 3-day pass 4.99, "
            + "12 % buy, 5 % refunded at half price (a monthly plan read on day 30 or 60 has seen at most one renewal)",
        products: Product.all,
        groups: [
            SimulatedGroup(
                name: "monthly",
                plans: [
                    SimulatedPlan(
                        product: Product.monthly, price: 14.99, share: 1, trialDays: 3, trialConversion: 0.5, churnA: 1, churnB: 3,
                        refundProbability: 0.05)
                ],
                paywallConversion: 0.10, lateHazard: 0.00005),
            SimulatedGroup(
                name: "pass",
                plans: [SimulatedPlan(product: Product.pass, price: 4.99, share: 1, refundProbability: 0.05, refundShare: 0.5)],
                paywallConversion: 0.12, lateHazard: 0.0001),
        ],
        isAA: false),
    SimulatedSetting(
        name: "aa-weekly-and-yearly",
        summary:
            "A/A: weekly 9.99 (60 % of buyers, churn Beta(2, 3), 5 % refunded) and yearly 39.99 after a 3-day trial (40 %, "
            + "half of trials convert, 10 % refunded); 10 % convert at the paywall, later at 0.0001 a day",
        products: Product.all,
        groups: ["a", "b"].map { name in
            SimulatedGroup(
                name: name,
                plans: [
                    SimulatedPlan(product: Product.weekly, price: 9.99, share: 0.6, churnA: 2, churnB: 3, refundProbability: 0.05),
                    SimulatedPlan(
                        product: Product.yearly, price: 39.99, share: 0.4, trialDays: 3, trialConversion: 0.5, refundProbability: 0.10),
                ],
                paywallConversion: 0.10, lateHazard: 0.0001)
        },
        isAA: true),
    SimulatedSetting(
        name: "aa-weekly-trial",
        summary:
            "A/A: weekly 4.99 after a 3-day trial (15 % start, 40 % convert), churn Beta(0.8, 1.5) (strongly mixed: some stay "
            + "all year), 8 % refunded, later conversions at 0.0001 a day",
        products: Product.all,
        groups: ["a", "b"].map { name in
            SimulatedGroup(
                name: name,
                plans: [
                    SimulatedPlan(
                        product: Product.weekly, price: 4.99, share: 1, trialDays: 3, trialConversion: 0.4, churnA: 0.8, churnB: 1.5,
                        refundProbability: 0.08)
                ],
                paywallConversion: 0.15, lateHazard: 0.0001)
        },
        isAA: true),
    SimulatedSetting(
        name: "misspecified-weekly-cliff",
        summary:
            "A/A outside the assumptions: weekly 6.99 at an introductory price for 8 weeks, no trial, 12 % buy, churn "
            + "Beta(1, 2), and at renewal 8 (day 56) half of the subscribers leave: a cliff the fitted curve cannot foresee",
        products: Product.all,
        groups: ["a", "b"].map { name in
            SimulatedGroup(
                name: name,
                plans: [
                    SimulatedPlan(
                        product: Product.weekly, price: 6.99, share: 1, churnA: 1, churnB: 2, refundProbability: 0.03, cliff: (8, 0.5))
                ],
                paywallConversion: 0.12, lateHazard: 0.0001)
        },
        isAA: true, isMisspecified: true),
]
