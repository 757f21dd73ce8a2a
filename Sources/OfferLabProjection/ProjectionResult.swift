import OfferLabStatistics

/// Why a projection has no value.
public enum ProjectionGap: Sendable, Equatable, CustomStringConvertible {
    /// The group has no members.
    case noMembers
    /// No member has paid yet: there is no price, product mix or renewal to project from.
    case noPayers
    /// No member has been in the test for a full day: the conversion curve has no day to start from.
    case noFullDay
    /// The year needs what no rate seen gives (renewals of a product neither the members nor the
    /// app's past have seen renew often enough, or trials before any has ended): only the far
    /// ends, from none of it to the most the data allow.
    case yearNotIdentified(UnseenPart)
    /// Comparison only: a side has no value.
    case groupWithoutProjection

    public var description: String {
        switch self {
        case .noMembers: "the group has no members"
        case .noPayers: "no member has paid yet"
        case .noFullDay: "no member has been in the test for a full day"
        case .yearNotIdentified(let part): part.description(productName: { "product \($0)" })
        case .groupWithoutProjection: "a group has no projection"
        }
    }
}

/// What a year that cannot be projected rests on.
public struct UnseenPart: Sendable, Equatable {
    /// (upper − lower expected year) / the point's year: the part the data cannot identify.
    public var share: Double
    /// The product whose renewals past those seen weigh most, when renewals are a tenth of it or more.
    public var product: Int?
    /// That product's renewals seen often enough (1 … this), and the renewals the year needs.
    public var renewalsIdentified: Int
    public var renewalsNeeded: Int
    /// Whether the app's past, not the test, shows the last of those renewals: the words then
    /// name the past, since the test has seen fewer.
    public var renewalsFromPast: Bool
    /// Renewals 1 … this the app's past has seen often enough but the projection takes only once the
    /// test has seen the product's renewal 1 often enough to compare the members with it (0: none).
    public var pastAwaitingComparison: Int
    /// The longest tenure day observed (from 0), when purchases after it are a tenth of it or more.
    public var lastObservedDay: Int?
    /// Members have started trials and none has ended yet: how many convert is not seen.
    public var trialsNotEnded = false

    public init(
        share: Double, product: Int?, renewalsIdentified: Int, renewalsNeeded: Int, renewalsFromPast: Bool = false,
        pastAwaitingComparison: Int = 0, lastObservedDay: Int?
    ) {
        self.share = share
        self.product = product
        self.renewalsIdentified = renewalsIdentified
        self.renewalsNeeded = renewalsNeeded
        self.renewalsFromPast = renewalsFromPast
        self.pastAwaitingComparison = pastAwaitingComparison
        self.lastObservedDay = lastObservedDay
    }

    /// One clause a product lead reads: what is unseen and how much of the year it is.
    public func description(productName: (Int) -> String) -> String {
        var parts: [String] = []
        if let product {
            let seen =
                switch renewalsIdentified {
                case 0: "none of them"
                case 1: "renewal 1"
                default: "renewals 1 to \(renewalsIdentified)"
                }
            let witness = renewalsFromPast ? "the app's past has seen" : "the test has seen"
            var clause = "\(productName(product)) needs \(renewalsNeeded) renewals and \(witness) \(seen) often enough"
            if pastAwaitingComparison > 0 {
                let pastSeen = pastAwaitingComparison == 1 ? "renewal 1" : "renewals 1 to \(pastAwaitingComparison)"
                clause += " to compare its members with the app's past, which has seen \(pastSeen)"
            }
            parts.append(clause)
        }
        if let day = lastObservedDay {
            parts.append("purchases after day \(day + 1) in the test have not been seen yet")
        }
        if trialsNotEnded { parts.append("no trial has ended yet") }
        let size = share.isFinite ? "\(Int((100 * share).rounded()))% of the projected year" : "more than the projected year"
        // With neither a product nor a day named, the size is the first clause.
        parts.append(
            "the part not seen is \(size) (no rate seen to continue: only its far ends, from none of it to the most the data allow)")
        return parts.joined(separator: "; ")
    }
}

/// One group's projection (docs/statistics.md#projected-revenue-per-user-after-365-days).
public struct GroupProjection: Sendable, Equatable {
    /// The group's name.
    public var group: String
    /// Members.
    public var users: Int
    /// The mean revenue_365 observed so far (the realised part: charges before the horizon,
    /// refunds before day 365); nil with no members.
    public var realizedARPU: Double?
    /// Mean of min(as_of − assigned_at, 365 days), in days; nil with no members.
    public var observedDaysMean: Double?
    /// The expected mean revenue_365 of the members; nil when `gap` says why.
    public var projectedARPU365: Double?
    /// The (1 − alpha) interval for the members' realised mean revenue_365 at the rates seen
    /// (the parameters' uncertainty and the remaining year's randomness included); nil with a gap.
    public var interval: ConfidenceInterval?
    /// The far ends: the (1 − alpha) range from none of what the data cannot identify (the lower
    /// draws' alpha/2 quantile) to the most they allow (the upper draws' 1 − alpha/2 quantile), the
    /// risk the rates seen carry. Present with `yearNotIdentified` too; nil with the other gaps.
    public var bounds: ConfidenceInterval?
    /// Why `projectedARPU365` is empty.
    public var gap: ProjectionGap?
    /// What the projected year rests on (docs/statistics.md#what-the-year-rests-on), as shares of
    /// the point's year: realised so far, renewals whose rates come from the app's past, and the
    /// part between the bounds. nil when no year is projected (no payer, or a year not above 0).
    public var observedShare: Double?
    public var pastShare: Double?
    public var boundedShare: Double?
    /// The rest of the point's year, so that observed, own rates, follow-on, past and continued add
    /// up to it: still to come at the members' own rates (none of the unseen, no past, no follow-on
    /// chain), the follow-on chains at those rates, and what the rates seen continue beyond what was
    /// seen (the assumption the far ends bound). nil as the shares above.
    public var ownRatesShare: Double?
    public var followOnShare: Double?
    public var continuedShare: Double?
    /// The products whose renewals the year takes from the app's past, in product order.
    public var pastUses: [PastUse] = []
    /// With a past: the products whose year needs renewals that neither the members nor the past
    /// identify, in product order (those renewals stay bounded).
    public var pastMissing: [PastMissing] = []
    /// How a newcomer's revenue grows with tenure through its first year at the rates seen (the
    /// point's parameters), day by day: what the days left of `arpu` plan on. nil when none was
    /// asked for (`ProjectionConfiguration.growthDays`) or with a gap other than
    /// `yearNotIdentified` (then a floor: the renewals no rate is seen for count none).
    public var newcomerGrowth: TenureGrowth?
    /// The products whose earlier buyers' renewals `newcomerGrowth` takes beyond the members' own
    /// (a new price's billing period's, from its start), in product order; empty when it takes none.
    public var growthPast: [Int] = []
}

/// Renewals of a product that a group's year takes from the app's past.
public struct PastUse: Sendable, Equatable {
    /// The product, an index into `projectOffering`'s products.
    public var product: Int
    /// Renewals `firstRenewal` … `lastRenewal` take the past's rates.
    public var firstRenewal: Int
    public var lastRenewal: Int
    /// The earlier chains (buyers) of the product the past counted.
    public var chains: Int
    /// The members' renewals over the past's expected at the renewals both saw, when the past's
    /// rates are scaled by it (they differed beyond chance); nil when used as they are.
    public var adjustment: Double?
    /// A new price's: the products of its billing period whose past it takes (empty: its own).
    public var borrowedFrom: [Int] = []

    /// "monthly_1999 renewals 2–11 from 3412 earlier buyers (scaled by 0.85: …)"; a new price's
    /// "monthly_2499 renewals 2–11 from 3412 earlier buyers of monthly_1999 (a new price takes its
    /// billing period's)".
    public func description(productName: (Int) -> String) -> String {
        let renewals = firstRenewal == lastRenewal ? "renewal \(firstRenewal)" : "renewals \(firstRenewal)–\(lastRenewal)"
        var text = "\(productName(product)) \(renewals) from \(chains) earlier buyers"
        if !borrowedFrom.isEmpty {
            text += " of \(borrowedFrom.map(productName).joined(separator: ", ")) (a new price takes its billing period's)"
        }
        if let adjustment {
            let ratio = (adjustment * 100).rounded() / 100
            text += " (scaled by \(ratio): the members renew unlike them at the renewals both saw)"
        }
        return text
    }
}

/// A product whose year needs renewals the app's past does not identify either (the year continues
/// the latest rate seen; the far ends bound them), or that the past identifies but the members
/// cannot be compared with yet (the year takes the past as it is; the far ends leave it out).
public struct PastMissing: Sendable, Equatable {
    public var product: Int
    /// The first renewal the year does not take from the members or the past.
    public var renewal: Int
    /// The earlier chains the past counted of the product (due at that renewal: fewer than 30,
    /// unless `membersDue` is set).
    public var chains: Int
    public var dueAtRenewal: Int
    /// Set when the past is not taken because the members identify no renewal yet: their chains due
    /// at renewal 1 (fewer than 30).
    public var membersDue: Int? = nil

    /// "monthly_1999 renewals from 4 on: 12 of 40 earlier buyers were due, too few (30); they
    /// continue at the latest renewals' rate seen", or "monthly_1999 renewals from 1 on: 12 members
    /// were due at renewal 1, too few (30) to compare them with 412 earlier buyers; they take the
    /// past's rates as they are".
    public func description(productName: (Int) -> String) -> String {
        if let membersDue {
            return "\(productName(product)) renewals from \(renewal) on: \(membersDue) \(membersDue == 1 ? "member was" : "members were") "
                + "due at renewal 1, too few (\(RenewalPlan.identifiedMinimum)) to compare them with \(chains) earlier buyers; "
                + "they take the past's rates as they are"
        }
        return "\(productName(product)) renewals from \(renewal) on: \(dueAtRenewal) of \(chains) earlier buyers were due, "
            + "too few (\(RenewalPlan.identifiedMinimum)); they continue at the latest renewals' rate seen"
    }
}

/// A treatment against control on `projected_arpu_365`: what shipping does, the expected
/// revenue_365 of a newcomer (a member entering the test now) in treatment minus in control,
/// the members' sampling error included (docs/statistics.md, "Each treatment against control").
public struct ProjectionComparison: Sendable, Equatable {
    public var group: String
    public var controlGroup: String
    /// A newcomer's expected revenue_365 in treatment and in control; nil when either group's
    /// projection has no value.
    public var value: Double?
    public var controlValue: Double?
    /// `value` − `controlValue`.
    public var difference: Double?
    /// Its (1 − alpha) interval at the rates seen; nil with `difference`.
    public var differenceInterval: ConfidenceInterval?
    /// The far ends of the difference: each side's lower draws against the other's upper, the
    /// (1 − alpha) range; present whenever both groups have draws, with a value or without.
    public var boundInterval: ConfidenceInterval?
    /// The standard deviation of the difference's draws at the rates seen: its standard error;
    /// nil with `difference`.
    public var standardError: Double?
    /// value/controlValue − 1; nil when control's is not > 0.
    public var relativeDifference: Double?
    /// Its interval; nil when a draw of control's is not > 0.
    public var relativeInterval: ConfidenceInterval?
    /// Two-sided: twice the smaller share of draws at the rates seen on either side of 0 (the
    /// difference's interval excludes 0 exactly when p < alpha).
    public var pValue: Double?
    /// The share of draws where treatment's newcomer value exceeds control's.
    public var chanceToBeatControl: Double?
    /// Why values are empty.
    public var gap: ProjectionGap?
}

/// Every group's projection (input order) and each treatment's comparison with control.
public struct OfferingProjection: Sendable, Equatable {
    public var groups: [GroupProjection]
    public var comparisons: [ProjectionComparison]
}

/// What `projectOffering` refuses.
public enum ProjectionInputError: Error, Equatable, CustomStringConvertible {
    case alphaOutOfRange(Double)
    case tooFewReplicates(Int)
    case controlOutOfRange(Int)
    case productOutOfRange(group: String, product: Int)
    case periodTooShort(product: Int)
    case amountNotFinite(group: String)
    case pastNotParallel(count: Int, products: Int)
    case horizonTooShort(Double)
    case observedOtherwise(group: String)

    public var description: String {
        switch self {
        case .alphaOutOfRange(let alpha): "alpha must be in (0, 1), got \(alpha)"
        case .tooFewReplicates(let count): "the projection needs at least 100 replicates, got \(count)"
        case .controlOutOfRange(let index): "control group index \(index) is not a group"
        case .productOutOfRange(let group, let product):
            "group \(group): an event names product \(product), which is not in the product list"
        case .periodTooShort(let product): "product \(product): the renewal period must be a number of days, at least 1"
        case .amountNotFinite(let group): "group \(group): an event's amount is not a finite number"
        case .pastNotParallel(let count, let products): "the past names \(count) products, the product list \(products)"
        case .horizonTooShort(let days): "the horizon must be a number of days, at least 1, got \(days)"
        case .observedOtherwise(let group):
            "group \(group) was observed at another as_of, horizon, refund lag or product list than the projection's"
        }
    }
}
