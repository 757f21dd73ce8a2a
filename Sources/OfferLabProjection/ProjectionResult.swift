import OfferLabStatistics

/// Why a projection has no value.
public enum ProjectionGap: Sendable, Equatable, CustomStringConvertible {
    /// The group has no members.
    case noMembers
    /// No member has paid yet: there is no price, product mix or renewal to project from.
    case noPayers
    /// No member has been in the test for a full day: the conversion curve has no day to start from.
    case noFullDay
    /// A product's renewals that the year needs are beyond what the test has seen (a monthly plan
    /// read on day 30): the interval bounds them by "none renews" and "all renew".
    case renewalsNotObserved(product: Int, renewalsObserved: Int, renewalsNeeded: Int)
    /// Comparison only: a side has no value.
    case groupWithoutProjection

    public var description: String {
        switch self {
        case .noMembers: "the group has no members"
        case .noPayers: "no member has paid yet"
        case .noFullDay: "no member has been in the test for a full day"
        case .renewalsNotObserved(let product, let observed, let needed):
            "product \(product): the year needs \(needed) renewals, the test has seen \(observed) with enough subscribers due "
                + "(the interval assumes anything from none to all renewing)"
        case .groupWithoutProjection: "a group has no projection"
        }
    }
}

/// One group's projection (contract §2.14).
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
    /// The (1 − alpha) interval for the members' realised mean revenue_365 (remaining year's
    /// randomness included). With `renewalsNotObserved` it is present and bounds the unknown
    /// renewals by [0, 1]; nil with the other gaps.
    public var interval: ConfidenceInterval?
    /// Why `projectedARPU365` is empty.
    public var gap: ProjectionGap?
}

/// A treatment against control on `projected_arpu_365`.
public struct ProjectionComparison: Sendable, Equatable {
    public var group: String
    public var controlGroup: String
    /// Treatment − control projection; nil when either has none.
    public var difference: Double?
    /// Its (1 − alpha) interval; with unobserved renewals, the bound interval (each side's lower
    /// against the other's upper).
    public var differenceInterval: ConfidenceInterval?
    /// treatment/control − 1; nil when control's projection is not > 0.
    public var relativeDifference: Double?
    /// Its interval; nil when a draw of control's mean is not > 0.
    public var relativeInterval: ConfidenceInterval?
    /// Two-sided: twice the smaller share of draws on either side of 0 (the difference's interval
    /// excludes 0 exactly when p < alpha).
    public var pValue: Double?
    /// The share of draws where treatment's mean exceeds control's.
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
    case horizonOutOfRange(Double)
    case tooFewReplicates(Int)
    case controlOutOfRange(Int)
    case productOutOfRange(group: String, product: Int)
    case periodTooShort(product: Int)
    case amountNotFinite(group: String)

    public var description: String {
        switch self {
        case .alphaOutOfRange(let alpha): "alpha must be in (0, 1), got \(alpha)"
        case .horizonOutOfRange(let days): "the projection horizon must be in (0, 365] days, got \(days)"
        case .tooFewReplicates(let count): "the projection needs at least 100 replicates, got \(count)"
        case .controlOutOfRange(let index): "control group index \(index) is not a group"
        case .productOutOfRange(let group, let product):
            "group \(group): an event names product \(product), which is not in the product list"
        case .periodTooShort(let product): "product \(product): the renewal period must be a number of days, at least 1"
        case .amountNotFinite(let group): "group \(group): an event's amount is not a finite number"
        }
    }
}
