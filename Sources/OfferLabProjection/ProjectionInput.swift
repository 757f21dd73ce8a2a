import OfferLabVocabulary

/// What a counted money event (docs/analysis.md §2) is, for the projection.
public enum ProjectionEventKind: UInt8, Sendable {
    /// A `trial_start`: no money; the conversion curve by tenure already carries what trials do.
    case trialStart
    /// A `purchase`: the first charge of a subscription chain (or a one-time pass).
    case purchase
    /// A `renewal`: the next charge of its chain.
    case renewal
    /// A `refund`: takes money back from the latest charge of its chain at or before it.
    case refund
    /// A `cancel`: the chain's renewal turned off (it does not renew at its next due date unless
    /// turned back on); no money.
    case cancel
}

/// One counted money event of a member (docs/analysis.md §2), in the report currency.
public struct ProjectionEvent: Sendable, Equatable {
    /// `ts`, µs since the epoch.
    public var time: Int64
    /// The event type.
    public var kind: ProjectionEventKind
    /// The product, as an index into the `products` handed to `projectOffering`.
    public var product: Int
    /// The `original_transaction_id`, interned by the caller to a number; `nil` when absent
    /// (the chain is then the member's product).
    public var chain: Int64?
    /// The price (purchase, renewal) or refunded amount (refund), report currency; 0 for a trial.
    public var amount: Double
    /// `expires_at` (docs/analysis.md §9), µs since the epoch, when the record carries it: the next
    /// charge's due time.
    public var expiresAt: Int64?

    public init(time: Int64, kind: ProjectionEventKind, product: Int, chain: Int64? = nil, amount: Double, expiresAt: Int64? = nil) {
        self.time = time
        self.kind = kind
        self.product = product
        self.chain = chain
        self.amount = amount
        self.expiresAt = expiresAt
    }
}

/// A product of the offering: how often it charges.
public struct ProjectionProduct: Sendable, Equatable {
    /// Days between two charges; `nil` for a one-time product (a pass), which never renews.
    public var renewalPeriodDays: Double?

    public init(renewalPeriodDays: Double?) {
        self.renewalPeriodDays = renewalPeriodDays
    }

    /// When a chain's next renewal falls due: its last charge's `expires_at`, else that charge's
    /// time + the period; nil for a one-time product. The one rule of the members' chains
    /// (`GroupObservation`), the app's past (`ProductPastBuilder`) and the track record's cuts.
    public func renewalDue(lastChargeTime: Int64, lastExpiresAt: Int64?) -> Int64? {
        guard let period = renewalPeriodDays else { return nil }
        return lastExpiresAt ?? lastChargeTime + Int64(period * Microseconds.perDayAsDouble)
    }

    /// The product of a billing period: a renewing period's days, one-time for a pass or
    /// `one_time`; nil for a type the rules do not know (the members' own rates then stand).
    public init?(period: BillingPeriod) {
        guard period.isKnown else { return nil }
        renewalPeriodDays = period.renewalPeriodDays
    }
}

/// One group's members and their counted money events, laid out flat (no array per member) so
/// that a million members cost a few arrays.
public struct ProjectionGroupInput: Sendable {
    /// A run of members, laid out flat: member i's events are `events[eventEnds[i − 1] ..<
    /// eventEnds[i]]` (from 0 for i = 0).
    struct Members: Sendable {
        var assignedAt: [Int64] = []
        var eventEnds: [Int] = []
        var events: [ProjectionEvent] = []
    }

    /// The group's name.
    public var name: String
    /// The members, run after run (`append`): runs read apart are kept as they were made, not
    /// copied into one (at 1M members that was 20 MB of fresh memory copied every night).
    private(set) var runs: [Members] = []
    /// The number of members.
    public private(set) var users = 0

    public init(name: String) {
        self.name = name
    }

    /// Every member's `assigned_at`, µs since the epoch, in member order.
    public var assignedAt: some Sequence<Int64> { runs.lazy.map(\.assignedAt).joined() }

    /// Every member's counted money events, member after member.
    public var events: some Sequence<ProjectionEvent> { runs.lazy.map(\.events).joined() }

    /// Calls `body` with each member's `assigned_at` and counted money events, member after member.
    public func forEachMember(_ body: (_ assignedAt: Int64, _ events: ArraySlice<ProjectionEvent>) -> Void) {
        for run in runs {
            var start = 0
            for member in run.assignedAt.indices {
                let end = run.eventEnds[member]
                body(run.assignedAt[member], run.events[start..<end])
                start = end
            }
        }
    }

    /// Adds a member and its counted money events (any order).
    public mutating func appendMember(assignedAt time: Int64, events memberEvents: some Collection<ProjectionEvent>) {
        if runs.isEmpty { runs.append(Members()) }
        let last = runs.count - 1
        runs[last].assignedAt.append(time)
        // Most members have none: appending nothing still retained and released the collection.
        if !memberEvents.isEmpty { runs[last].events.append(contentsOf: memberEvents) }
        runs[last].eventEnds.append(runs[last].events.count)
        users += 1
    }

    /// Adds `other`'s members after this group's, in their order (runs of members read apart,
    /// joined in member order).
    public mutating func append(_ other: ProjectionGroupInput) {
        runs.append(contentsOf: other.runs)
        users += other.users
    }
}

/// The night and the method's settings.
public struct ProjectionConfiguration: Sendable {
    /// `as_of`, µs since the epoch: what happened before it is known.
    public var asOf: Int64
    /// The intervals are (1 − alpha).
    public var alpha: Double
    /// Parameter draws per group (the intervals' quantiles come from them).
    public var replicates: Int
    /// A charge at least this old is "mature": its refund, if any, has been seen; the refund
    /// rate, share and delay come from mature charges only.
    public var refundLagDays: Double
    /// The horizon in days: a member's revenue counts before `assigned_at` + it. 365 for a night's
    /// projection, revenue_365 (a year, whatever a job's conversion window: contract §2.14); the
    /// backtest's cohorts take a shorter one where the past shows less of their year
    /// (docs/statistics.md#the-apps-own-track-record).
    public var horizonDays: Double
    /// Whether the far ends are drawn (`GroupProjection.bounds`, the comparisons' bound
    /// intervals): two thirds of the draws. The backtest reads the interval at the rates seen
    /// alone, and leaves them out.
    public var drawsFarEnds: Bool
    /// The tenure in days through which a newcomer's growth is made (`GroupProjection.newcomerGrowth`,
    /// at most the horizon); nil: none (nothing plans on it).
    public var growthDays: Int?

    public init(
        asOf: Int64, alpha: Double = 0.05, replicates: Int = 2000, refundLagDays: Double = 14, horizonDays: Double = 365,
        drawsFarEnds: Bool = true, growthDays: Int? = nil
    ) {
        self.asOf = asOf
        self.alpha = alpha
        self.replicates = replicates
        self.refundLagDays = refundLagDays
        self.horizonDays = horizonDays
        self.drawsFarEnds = drawsFarEnds
        self.growthDays = growthDays
    }
}
