import OfferLabEvents
import OfferLabIngest
import OfferLabJob
import OfferLabStatistics
import OfferLabSupport
import OfferLabTables
import OfferLabVocabulary

/// What attribution needs to know about the run, by interned id.
package struct AttributionContext {
    /// The store's labels: products, currencies, logged offering ids and group names.
    package let labels: ByteStringInterner
    /// Rate per label id (for currency labels); nil: no rate.
    let rates: [Double?]
    /// Rank of each label id in byte-wise order, so currencies are converted in code order.
    let labelRank: [Int32]
    let windowMicroseconds: Int64?
    /// The run's `as_of`, for the matured metrics (docs/analysis.md §4c).
    let asOf: Int64
    /// D × 86 400 s of each of the job's `maturity_days`.
    let maturityMicroseconds: [Int64]
    /// Whether members' positive revenues are kept for the revenue cap (docs/analysis.md §4b).
    let keepsPositiveRevenues: Bool
    /// docs/analysis.md §8: per label, the VAT share t of a price paid in that country (0 for other labels).
    let taxShares: [Double]
    /// Per label, the commission of a charge by that store, in the chain's first year and after
    /// it; `unnamedStore` for an event without `store`.
    let storeCommissions: [(firstYear: Double, later: Double)]
    let unnamedStore: (firstYear: Double, later: Double)
    /// Per transaction id: the time of the earliest purchase or renewal that survived clean-up
    /// with that `original_transaction_id` (`Int64.max`: none): its chain's first paid charge.
    let chainStarts: [Int64]
    /// The products' billing periods, for the projection's inputs (`ProjectionMembers`).
    package var projection = ProjectionCatalog.none

    package init(
        labels: ByteStringInterner, rates: [String: Double], windowDays: Double?, asOf: Int64, maturityDays: [Int],
        keepsPositiveRevenues: Bool, proceeds: ProceedsSettings = ProceedsSettings(), chainStarts: [Int64] = []
    ) {
        let names = (0..<Int32(labels.count)).map { labels.string(of: $0) }
        taxShares = names.map { proceeds.taxShare(country: $0) }
        func commissions(_ store: String?) -> (firstYear: Double, later: Double) {
            (proceeds.commission(store: store, pastFirstYear: false), proceeds.commission(store: store, pastFirstYear: true))
        }
        storeCommissions = names.map(commissions)
        unnamedStore = commissions(nil)
        self.chainStarts = chainStarts
        self.labels = labels
        // Codes in the logs are matched in any case (`usd` is USD); the job's are upper-case.
        self.rates = (0..<Int32(labels.count)).map { rates[labels.string(of: $0).uppercased()] }
        let sorted = (0..<Int32(labels.count)).sorted { left, right in
            labels.withBytes(of: left) { l in labels.withBytes(of: right) { r in l.lexicographicallyPrecedes(r) } }
        }
        var rank = [Int32](repeating: 0, count: sorted.count)
        for (position, label) in sorted.enumerated() { rank[Int(label)] = Int32(position) }
        labelRank = rank
        windowMicroseconds = windowDays.map(AttributionRules.windowMicroseconds(days:))
        self.asOf = asOf
        maturityMicroseconds = maturityDays.map { Int64($0) * Microseconds.perDay }
        self.keepsPositiveRevenues = keepsPositiveRevenues
    }
}

/// Exact per-currency money of one user or product: micro-units, checked for overflow.
struct CurrencyAmounts {
    /// (currency label, gross, refunded)
    private(set) var entries: [(currency: Int32, gross: Int64, refunded: Int64)] = []

    mutating func add(currency: Int32, gross: Int64 = 0, refunded: Int64 = 0) throws {
        guard let index = entries.firstIndex(where: { $0.currency == currency }) else {
            entries.append((currency, gross, refunded))
            return
        }
        let (newGross, grossOverflow) = entries[index].gross.addingReportingOverflow(gross)
        let (newRefunded, refundOverflow) = entries[index].refunded.addingReportingOverflow(refunded)
        guard !grossOverflow && !refundOverflow else {
            throw OfferLabError(.rejectedTotals, "money overflow: a sum of prices exceeds 9.2 trillion units of one currency")
        }
        entries[index].gross = newGross
        entries[index].refunded = newRefunded
    }

    var isEmpty: Bool { entries.isEmpty }

    /// Empties the amounts, keeping their storage for the next user.
    mutating func removeAll() { entries.removeAllKeepingCapacity() }

    /// (gross, refunded, net) in the report currency, converted once, currencies in code order.
    func converted(_ context: AttributionContext) -> (gross: Double, refunded: Double, net: Double) {
        var gross = 0.0
        var refunded = 0.0
        var net = 0.0
        func add(_ entry: (currency: Int32, gross: Int64, refunded: Int64)) {
            guard let rate = context.rates[Int(entry.currency)] else { return }
            gross += Double(entry.gross) / 1_000_000 * rate
            refunded += Double(entry.refunded) / 1_000_000 * rate
            net += Double(entry.gross - entry.refunded) / 1_000_000 * rate
        }
        // Almost every user pays in one currency or none: nothing to order, and no copy of the
        // entries (this runs for every member and day).
        if entries.count < 2 {
            if let only = entries.first { add(only) }
        } else {
            for entry in entries.sorted(by: { context.labelRank[Int($0.currency)] < context.labelRank[Int($1.currency)] }) { add(entry) }
        }
        return (gross, refunded, net)
    }
}

/// One offering as seen by attribution: its names as label ids in the event store.
struct OfferingLabels {
    /// nil: no event ever logged this offering id, so any logged one disagrees.
    let offering: Int32?
    /// Per group (index into the offering's groups).
    let groups: [Int32?]
    /// Every offering's labels and members: an event naming another test the user is in is that
    /// test's event (tests overlap), not a disagreement.
    let affiliations: Affiliations

    init(_ offering: Offering, labels: ByteStringInterner, affiliations: Affiliations) {
        self.offering = labels.lookup(offering.offeringID)
        groups = offering.groups.map { labels.lookup($0.name) }
        self.affiliations = affiliations
    }
}

/// Which offerings and groups a user belongs to (docs/analysis.md, "Attribution": overlapping
/// tests), read only for an event whose logged offering or group is not the member's own.
package struct Affiliations: Sendable {
    /// Per catalog offering: its `offering_id` and its groups' names as label ids (nil: never logged).
    let offeringLabels: [Int32?]
    let groupLabels: [[Int32?]]
    let population: Population
    /// Per user, a bit per catalog offering (words of 64 offerings, `wordsPerUser` per user): set
    /// when the user is a member, not excluded. Such events come on every day the series
    /// evaluates, and a search of an offering's members missed the cache at each step.
    private let memberBits: [UInt64]
    private let wordsPerUser: Int

    package init(catalog: OfferingCatalog, population: Population, labels: ByteStringInterner) {
        offeringLabels = catalog.offerings.map { labels.lookup($0.offeringID) }
        groupLabels = catalog.offerings.map { $0.groups.map { labels.lookup($0.name) } }
        self.population = population
        wordsPerUser = (population.members.count + 63) / 64
        var bits = [UInt64](repeating: 0, count: population.users.count * wordsPerUser)
        for (offering, members) in population.members.enumerated() {
            for member in members where !member.membership.isExcluded {
                bits[Int(member.user) * wordsPerUser + offering / 64] |= 1 << UInt64(offering % 64)
            }
        }
        memberBits = bits
    }

    /// Whether `user` is a member, not excluded, of catalog offering `offering`.
    private func isMember(user: Int32, offering: Int) -> Bool {
        memberBits[Int(user) * wordsPerUser + offering / 64] & (1 << UInt64(offering % 64)) != 0
    }

    /// Whether `user` is a member (not excluded) of an offering whose `offering_id` is `offering`.
    func belongs(user: Int32, offering: Int32) -> Bool {
        offeringLabels.indices.contains { index in offeringLabels[index] == offering && isMember(user: user, offering: index) }
    }

    /// Whether `group` is the name of `user`'s group in any offering it is a member of.
    func hasGroup(user: Int32, group: Int32) -> Bool {
        offeringLabels.indices.contains { index in
            guard isMember(user: user, offering: index), let membership = population.membership(offering: index, user: user) else {
                return false
            }
            return groupLabels[index][Int(membership.group)] == group
        }
    }
}

/// A product's share of one user's counted money events.
struct ProductContribution: Sendable {
    var product: Int32
    var kind: EventType
    /// The event's own time (a refund's, not its transaction's): the matured revenue counts it by it.
    var timestamp: Int64
    /// nil when the currency has no rate (the event counts, its money does not).
    var money: (currency: Int32, gross: Int64, refunded: Int64)?
    /// What the app keeps of a charge, or (negative) what a refund takes back (docs/analysis.md §8).
    var proceeds = 0.0
    /// The charge's subscription chain and product, for the projection (`ProjectionMembers`):
    /// its `original_transaction_id` (-1 when absent) and `product_id`; a refund's are those of
    /// the charge it refunds.
    var chain: Int32
    var chargeProduct: Int32
    /// A charge's `expires_at` (docs/analysis.md §9; `EventRecord.noTime` when absent or a refund),
    /// the due time of the chain's next charge for the projection.
    var expiresAt = EventRecord.noTime
}

/// What a run of members of one offering contributes (`Attribution.evaluate`), summed. Runs
/// are evaluated on any thread, then added up (`OfferingSums`).
package struct MemberContributions: Sendable {
    /// Per group: the counts of its members who are not excluded (their money left at 0).
    var groupCounts: [GroupTotals]
    /// Per group: the money of its members who are not excluded.
    var groupMoney: [ExactMoney]
    var quality = OfferingQuality()
    var days: DailySeries.Changes
    /// Each counted money event of a member who is not excluded, with the member's group.
    var products: [(group: Int32, contribution: ProductContribution)] = []
    /// Per currency label without a rate: the counted money events in it (`unknown_currency_events`).
    var unconvertibleEvents: [Int32: Int] = [:]
    /// The net revenue of each member who is not excluded and has a positive one, with the
    /// member's group (kept only with a revenue cap: one value per paying member).
    var positiveRevenues: [(group: Int32, revenue: Double)] = []
    /// Per group: the net revenue of each member who is not excluded, by tenure.
    var revenueByTenure: [TenureProfile]
    /// Per group: when the members who are not excluded were assigned.
    var assignments: [AssignmentDays]
    /// Per maturity (the context's order), per group: the matured members' sums.
    var matured: [[MaturedSums]]
    /// Per slice field and level (docs/analysis.md §7): the members who are not excluded.
    var slices: SliceSums
    /// The projection's inputs (docs/statistics.md#the-projection-in-a-run): the members who are
    /// not excluded, in user order.
    var projection: ProjectionMembers
}

/// The sums (docs/analysis.md §4c) of one group's members matured after D days: counts exact, money exact until
/// rounded (`ExactMoney`, its gross and refunded parts unused).
struct MaturedSums: Sendable {
    var users = 0
    var converters = 0
    var money = ExactMoney()

    mutating func add(_ other: MaturedSums) {
        users += other.users
        converters += other.converters
        money.add(other.money)
    }

    /// Users, converters, Σ revenue_D and Σ revenue_D², rounded once.
    var statistics: GroupSufficientStatistics {
        let rounded = money.rounded
        return GroupSufficientStatistics(
            users: users, converters: converters, revenueSum: rounded[.revenueSum], revenueSumSquares: rounded[.revenueSumSquares])
    }
}

/// One offering's per-group sums (docs/analysis.md §2–§4, §4b, §4c) and daily series (§4a), added up from its
/// members' contributions: the same sums, bit for bit, whatever evaluated them (counts are
/// integers, money sums exact until rounded, products' money integers per currency).
package struct OfferingSums {
    private let offeringIndex: Int
    /// Per group: the counts (their money left at 0: `groupMoney` holds it).
    private var groups: [GroupTotals]
    private var groupMoney: [ExactMoney]
    private var quality = OfferingQuality()
    private var unconvertibleEvents: [Int32: Int] = [:]
    /// Per (group, product), updated in place: an index into `products`.
    private var productIndex: [ProductKey: Int] = [:]
    private var products: [(totals: ProductTotals, money: CurrencyAmounts, proceeds: ExactSum)] = []
    /// Per group: the positive net revenues of its members (with a revenue cap only).
    private var positiveRevenues: [[Double]]
    private var revenueByTenure: [TenureProfile]
    private var assignments: [AssignmentDays]
    /// Per maturity, per group.
    private var matured: [[MaturedSums]]
    package private(set) var series: DailySeries
    private var slices: SliceSums
    private var projection: ProjectionMembers

    package init(
        offeringIndex: Int, catalog: OfferingCatalog, population: Population, asOf: Int64, maturities: Int = 0, slices: [SliceField] = []
    ) {
        self.offeringIndex = offeringIndex
        let groupCount = catalog.offerings[offeringIndex].groups.count
        groups = Array(repeating: GroupTotals(), count: groupCount)
        groupMoney = Array(repeating: ExactMoney(), count: groupCount)
        positiveRevenues = Array(repeating: [], count: groupCount)
        revenueByTenure = Array(repeating: TenureProfile(), count: groupCount)
        assignments = Array(repeating: AssignmentDays(asOf: asOf), count: groupCount)
        matured = Array(repeating: Array(repeating: MaturedSums(), count: groupCount), count: maturities)
        quality.invalidAssignments = population.invalidAssignments[offeringIndex]
        quality.multiGroupUsers = population.multiGroupUsers(offering: offeringIndex)
        series = DailySeries(members: population.members[offeringIndex], groupCount: groupCount, asOf: asOf)
        self.slices = SliceSums(fields: slices, groupCount: groupCount)
        projection = ProjectionMembers(groups: catalog.offerings[offeringIndex].groups.map(\.name))
    }

    /// Adds the contributions of the next members.
    package mutating func add(_ contributions: MemberContributions, labels: ByteStringInterner) throws {
        series.add(contributions.days)
        for group in groups.indices {
            groups[group].counts.add(contributions.groupCounts[group].counts)
            groupMoney[group].add(contributions.groupMoney[group])
        }
        quality.add(contributions.quality)
        unconvertibleEvents.merge(contributions.unconvertibleEvents, uniquingKeysWith: +)
        for (group, revenue) in contributions.positiveRevenues { positiveRevenues[Int(group)].append(revenue) }
        for group in groups.indices {
            revenueByTenure[group].add(contributions.revenueByTenure[group])
            assignments[group].add(contributions.assignments[group])
        }
        for maturity in matured.indices {
            for group in groups.indices { matured[maturity][group].add(contributions.matured[maturity][group]) }
        }
        slices.add(contributions.slices)
        projection.add(contributions.projection)
        for (group, contribution) in contributions.products {
            let key = ProductKey(group: Int(group), product: contribution.product)
            let index: Int
            if let known = productIndex[key] {
                index = known
            } else {
                index = products.count
                productIndex[key] = index
                products.append(
                    (ProductTotals(group: Int(group), productID: labels.string(of: contribution.product)), CurrencyAmounts(), ExactSum()))
            }
            switch contribution.kind {
            case .purchase: products[index].totals.purchases += 1
            case .renewal: products[index].totals.renewals += 1
            default: products[index].totals.refunds += 1
            }
            if let money = contribution.money {
                try products[index].money.add(currency: money.currency, gross: money.gross, refunded: money.refunded)
            }
            products[index].proceeds.add(contribution.proceeds)
        }
    }

    /// The offering's result, once every member's contributions are added.
    package func result(
        catalog: OfferingCatalog, context: AttributionContext, preferredControl: String?, revenueCap: RevenueCapRule? = nil,
        maturityDays: [Int] = [], maxSliceLevels: Int = SliceField.defaultMaxLevels
    ) throws -> OfferingResult {
        let offering = catalog.offerings[offeringIndex]
        let productRows = products.map { entry -> ProductTotals in
            var totals = entry.totals
            totals.netRevenue = entry.money.converted(context).net
            totals.netProceeds = entry.proceeds.value
            totals.chargeCurrencies = entry.money.entries.filter { $0.gross > 0 }.map { context.labels.string(of: $0.currency) }.sorted()
            return totals
        }.sorted { $0.group != $1.group ? $0.group < $1.group : $0.productID.utf8.lexicographicallyPrecedes($1.productID.utf8) }
        var groupRows = groups
        for group in groupRows.indices { groupRows[group].money = groupMoney[group].rounded }
        var result = OfferingResult(
            offering: offering, controlGroup: offering.controlGroupIndex(preferred: preferredControl) ?? 0,
            groups: groupRows, products: productRows, quality: quality)
        // By upper-case code, as rates are looked up: `brl` and `BRL` want one rate.
        result.unconvertibleEvents = Dictionary(
            unconvertibleEvents.map { (context.labels.string(of: $0.key).uppercased(), $0.value) }, uniquingKeysWith: +
        ).map { (currency: $0.key, events: $0.value) }.sorted { $0.currency.utf8.lexicographicallyPrecedes($1.currency.utf8) }
        result.daily = series.days()
        result.cappedRevenue = revenueCap.map(cappedRevenue)
        // A member's value is final once its window has closed: from ⌈W⌉ whole days of tenure on.
        let finalFrom = AttributionRules.finalTenureDay(windowMicroseconds: context.windowMicroseconds)
        result.revenueByTenure = revenueByTenure.map { profile in
            var profile = profile
            profile.finalFrom = finalFrom
            return profile
        }
        result.matured = zip(maturityDays, matured).map { days, groups in MaturedGroups(days: days, groups: groups.map(\.statistics)) }
        result.slices = slices.results(labels: context.labels, maxLevels: maxSliceLevels)
        do {
            result.projection = try projection.inputs(context: context)
        } catch {
            throw OfferLabError(.rejectedTotals, "offering \(offering.offeringID): projection: \(error)", cause: error)
        }
        result.assignments = assignments
        return result
    }

    /// docs/analysis.md §4b: the cap over every group's positive revenues, and each group's sums with every
    /// member's revenue lowered to it: its exact sums, less each revenue over the cap, plus the
    /// cap in its place (so exact, and the same whatever the order of the members).
    private func cappedRevenue(_ rule: RevenueCapRule) -> CappedRevenue {
        var pooled = positiveRevenues.flatMap { $0 }
        let cap = rule.cap(positiveRevenues: &pooled)
        var statistics: [GroupSufficientStatistics] = []
        var cappedUsers: [Int] = []
        for group in groups.indices {
            var money = groupMoney[group]
            var lowered = 0
            if let cap {
                for revenue in positiveRevenues[group] where revenue > cap {
                    money.subtract(GroupMoney(revenue: revenue))
                    money.add(GroupMoney(revenue: cap))
                    lowered += 1
                }
            }
            let rounded = money.rounded
            statistics.append(
                GroupSufficientStatistics(
                    users: groups[group].users, converters: groups[group].converters, revenueSum: rounded[.revenueSum],
                    revenueSumSquares: rounded[.revenueSumSquares]))
            cappedUsers.append(lowered)
        }
        return CappedRevenue(cap: cap, groups: statistics, cappedUsers: cappedUsers)
    }
}

/// Attribution of events to users of one offering (docs/analysis.md, "Attribution, per analysed
/// offering O and member u", and "3. Per user"), member by member: the rules are
/// `AttributionRules`; this is the loop that applies them to every member and day.
package enum Attribution {
    /// The contributions of `members` (a run of one offering's members, in user order).
    /// Everything the loop writes lives inside the closure: captured, it would be retained and
    /// copied for every member.
    package static func evaluate(
        _ members: ArraySlice<Member>, offeringIndex: Int, catalog: OfferingCatalog, series: DailySeries, events: UserEvents,
        context: AttributionContext, affiliations: Affiliations, slices: [SliceField] = []
    ) throws -> MemberContributions {
        let offering = catalog.offerings[offeringIndex]
        let labels = OfferingLabels(offering, labels: context.labels, affiliations: affiliations)
        return try events.withView { events in
            var contributions = MemberContributions(
                groupCounts: Array(repeating: GroupTotals(), count: offering.groups.count),
                groupMoney: Array(repeating: ExactMoney(), count: offering.groups.count), days: series.noChanges(),
                revenueByTenure: Array(repeating: TenureProfile(), count: offering.groups.count),
                assignments: Array(repeating: AssignmentDays(asOf: context.asOf), count: offering.groups.count),
                matured: Array(
                    repeating: Array(repeating: MaturedSums(), count: offering.groups.count), count: context.maturityMicroseconds.count),
                slices: SliceSums(fields: slices, groupCount: offering.groups.count),
                projection: ProjectionMembers(groups: offering.groups.map(\.name)))
            // The night's evaluation and its products, kept while the series evaluates the days.
            var scratch = EvaluationScratch()
            var outcome = UserOutcome()
            var dayScratch = DailySeries.Scratch()
            var yearBeyondWindow = YearBeyondWindow()
            for member in members {
                let memberEvents = events.events(of: member.user)
                // The night: the member as of `as_of`. An excluded member counts in no total of
                // the night, only in the days before their exclusion.
                var night = GroupTotals()
                if !member.membership.isExcluded {
                    try evaluate(
                        member, events: memberEvents, labels: labels, context: context, cutoff: context.asOf, scratch: &scratch,
                        into: &outcome)
                    night.add(outcome)
                }
                try series.evaluate(
                    member, events: memberEvents, labels: labels, context: context, night: night, scratch: &dayScratch,
                    into: &contributions.days)
                guard !member.membership.isExcluded else { continue }
                let group = member.membership.group
                contributions.groupCounts[Int(group)].counts.add(night.counts)
                contributions.groupMoney[Int(group)].add(night.money)
                contributions.quality.addUser(outcome.quality)
                for contribution in scratch.products { contributions.products.append((group, contribution)) }
                for currency in scratch.unconvertibleCurrencies { contributions.unconvertibleEvents[currency, default: 0] += 1 }
                if context.keepsPositiveRevenues && outcome.netRevenue > 0 {
                    contributions.positiveRevenues.append((group, outcome.netRevenue))
                }
                contributions.revenueByTenure[Int(group)].add(
                    tenureDay: Int((context.asOf - member.membership.assignedAt) / Microseconds.perDay), value: outcome.netRevenue)
                contributions.assignments[Int(group)].add(assignedAt: member.membership.assignedAt)
                for (maturity, length) in context.maturityMicroseconds.enumerated() {
                    let end = member.membership.assignedAt + length
                    guard end <= context.asOf else { continue }
                    try addMatured(before: end, scratch: &scratch, context: context, into: &contributions.matured[maturity][Int(group)])
                }
                yearBeyondWindow.read(member, events: memberEvents, counted: scratch.countedTransactions, context: context)
                contributions.projection.addMember(
                    group: Int(group), assignedAt: member.membership.assignedAt,
                    events: [scratch.products, yearBeyondWindow.contributions, scratch.cancels].joined(),
                    trial: scratch.trials.first ?? yearBeyondWindow.trial, context: context)
                if !slices.isEmpty {
                    SliceLevels.find(
                        slices, events: memberEvents.events, shapes: memberEvents.shapes, membership: member.membership,
                        windowMicroseconds: context.windowMicroseconds, into: &contributions.slices.memberLevels)
                    contributions.slices.addMember(group: Int(group), totals: night)
                }
            }
            return contributions
        }
    }

    /// docs/analysis.md §4c: a matured member's conversion and revenue before `end` (assignment + D days), from
    /// the counted events of their night's evaluation (`scratch`): a purchase, and money events
    /// (a refund by its own time), before it. `scratch.money` only lends its storage.
    static func addMatured(
        before end: Int64, scratch: inout EvaluationScratch, context: AttributionContext, into sums: inout MaturedSums
    ) throws {
        sums.users += 1
        if scratch.purchases.contains(where: { $0.timestamp < end }) { sums.converters += 1 }
        scratch.money.removeAll()
        for contribution in scratch.products where contribution.timestamp < end {
            guard let money = contribution.money else { continue }
            try scratch.money.add(currency: money.currency, gross: money.gross, refunded: money.refunded)
        }
        guard !scratch.money.isEmpty else { return }
        let revenue = scratch.money.converted(context).net
        sums.money.add(GroupMoney(revenue: revenue))
    }

    /// One member's values (docs/analysis.md, "3. Per user") from their cleaned events, by `AttributionRules`, counting
    /// only events before `cutoff` (the state "as of" a moment), into `outcome` (whatever it held
    /// before) and, per product, into `scratch.products`. Otherwise `scratch` only lends its
    /// storage: nothing is allocated per member once the buffers have grown.
    static func evaluate(
        _ member: Member, events memberEvents: MemberEvents, labels: OfferingLabels, context: AttributionContext, cutoff: Int64,
        scratch: inout EvaluationScratch, into outcome: inout UserOutcome
    ) throws {
        let (events, details, shapes) = (memberEvents.events, memberEvents.details, memberEvents.shapes)
        let membership = member.membership
        let group = Int(membership.group)
        outcome.reset()
        scratch.reset()

        @inline(__always) func detailsOf(_ event: UserEvent) -> EventDetails { event.details < 0 ? .none : details[Int(event.details)] }
        func countMismatch(_ record: UserEvent) {
            let shape = shapes[Int(record.shape)]
            if AttributionRules.disagrees(
                loggedOffering: shape.loggedOffering, loggedGroup: shape.loggedGroup, offering: labels.offering,
                group: labels.groups[group],
                user: member.user, affiliations: labels.affiliations)
            {
                outcome.quality.attributionMismatches += 1
            }
        }
        /// The money of a counted money event, or nil (and counted) when its currency has no rate.
        func knownMoney(currency: Int32, gross: Int64 = 0, refunded: Int64 = 0) throws -> (Int32, Int64, Int64)? {
            guard context.rates[Int(currency)] != nil else {
                outcome.quality.unknownCurrencyEvents += 1
                scratch.unconvertibleCurrencies.append(currency)
                return nil
            }
            try scratch.money.add(currency: currency, gross: gross, refunded: refunded)
            return (currency, gross, refunded)
        }

        for record in events {
            if record.timestamp >= cutoff { break }
            guard let type = record.eventType, type != .refund else { continue }
            switch AttributionRules.placement(of: record.timestamp, assignedAt: membership.assignedAt, window: context.windowMicroseconds) {
            case .beforeAssignment:
                outcome.quality.preAssignmentEvents += 1
                continue
            case .afterWindow: continue
            case .counted: break
            }
            countMismatch(record)
            switch type {
            case .paywallView: outcome.viewedPaywall = true
            case .trialStart: scratch.trials.append(DetailedEvent(timestamp: record.timestamp, type: type, details: detailsOf(record)))
            case .purchase, .renewal:
                var counted = DetailedEvent(timestamp: record.timestamp, type: type, details: detailsOf(record))
                if type == .purchase {
                    scratch.purchases.append(counted)
                    outcome.purchases += 1
                } else {
                    outcome.renewals += 1
                }
                let money = try knownMoney(currency: counted.details.currency, gross: counted.details.price)
                if money != nil {
                    counted.reportPrice = context.reportAmount(counted.details.price, currency: counted.details.currency)
                    counted.proceeds = context.proceeds(of: counted, country: shapes[Int(record.shape)].country)
                    outcome.netProceeds += counted.proceeds
                    outcome.chargeAndExactProceeds += SIMD2(counted.proceeds, counted.details.fees.areStated ? counted.proceeds : 0)
                }
                scratch.products.append(
                    ProductContribution(
                        product: counted.details.product, kind: type, timestamp: record.timestamp, money: money, proceeds: counted.proceeds,
                        chain: counted.details.originalTransaction, chargeProduct: counted.details.product,
                        expiresAt: counted.details.expiresAt))
                // The refundable types are among these two (a trial is not one), so the event built
                // here is the one kept.
                if type.isRefundable { scratch.countedTransactions.append(counted) }
            case .cancel:
                // Renewal turned off: the projection keeps the chain's state (contract §2.14,
                // "What a member's state says"); no money, no count elsewhere but
                // `chainless_cancels` when its chain has no start at or before it (judged
                // after the loop, when every charge is known).
                let cancelDetails = detailsOf(record)
                scratch.cancels.append(
                    ProductContribution(
                        product: cancelDetails.product, kind: .cancel, timestamp: record.timestamp, money: nil,
                        chain: cancelDetails.originalTransaction, chargeProduct: cancelDetails.product))
            case .expire, .refund: break
            }
        }
        // A cancel with no chain to turn off is bad input: counted, and kept from the projection.
        // Most members have none (this runs for every member).
        if !scratch.cancels.isEmpty {
            let cancels = scratch.cancels.count
            scratch.cancels.removeAll { AttributionRules.isChainless($0, charges: scratch.countedTransactions, trials: scratch.trials) }
            outcome.quality.chainlessCancels += cancels - scratch.cancels.count
        }
        for refund in events {
            if refund.timestamp >= cutoff { break }
            guard refund.eventType == .refund else { continue }
            let refundDetails = detailsOf(refund)
            guard
                let refundedIndex = AttributionRules.refundedTransactionIndex(
                    of: refundDetails.transaction, among: scratch.countedTransactions)
            else {
                outcome.quality.orphanRefunds += 1
                continue
            }
            let refunded = scratch.countedTransactions[refundedIndex]
            scratch.countedTransactions[refundedIndex].isRefunded = true
            countMismatch(refund)
            outcome.refunds += 1
            let amount = AttributionRules.refundAmount(refund: refundDetails, refunded: refunded.details)
            let money = try knownMoney(currency: amount.currency, refunded: amount.amount)
            // docs/analysis.md §8: the refund takes back the charge's proceeds in proportion to the amount.
            var takenBack = 0.0
            if money != nil, let chargePrice = refunded.reportPrice, chargePrice != 0 {
                takenBack = refunded.proceeds * (context.reportAmount(amount.amount, currency: amount.currency) / chargePrice)
                outcome.netProceeds -= takenBack
            }
            scratch.products.append(
                ProductContribution(
                    product: refundDetails.product, kind: .refund, timestamp: refund.timestamp, money: money, proceeds: -takenBack,
                    chain: refunded.details.originalTransaction, chargeProduct: refunded.details.product))
        }
        let (gross, refunded, net) = scratch.money.converted(context)
        outcome.grossAndRefundedRevenue = SIMD2(gross, refunded)
        outcome.netRevenue = net
        outcome.converted = !scratch.purchases.isEmpty
        outcome.trialStarted = !scratch.trials.isEmpty
        outcome.trialConverted = scratch.trials.contains { trial in
            scratch.purchases.contains { AttributionRules.convertsTrial(purchase: $0, trial: trial) }
        }
        stateAsOf(cutoff, scratch: scratch, into: &outcome)
    }

    /// docs/analysis.md §9: the state of the earliest trial, and of the subscription, as of
    /// `cutoff`, from an evaluation's counted events (`scratch`): all that changes in `outcome`
    /// when the cutoff moves past an `expires_at` and no event.
    @inline(__always)
    static func stateAsOf(_ cutoff: Int64, scratch: EvaluationScratch, into outcome: inout UserOutcome) {
        if let trial = scratch.trials.first {
            if outcome.trialConverted {
                outcome.trial = .converted
            } else if trial.details.expiresAt == EventRecord.noTime {
                outcome.trial = .unknown
            } else {
                outcome.trial = trial.details.expiresAt > cutoff ? .pending : .lapsed
            }
        }
        outcome.isActiveSubscriber = scratch.countedTransactions.contains { !$0.isRefunded && $0.details.expiresAt > cutoff }
    }
}

extension AttributionContext {
    /// `micros` of `currency` in the report currency (the currency has a rate).
    @inline(__always)
    func reportAmount(_ micros: Int64, currency: Int32) -> Double {
        Double(micros) / 1_000_000 * (rates[Int(currency)] ?? 0)
    }

    /// docs/analysis.md §8: what the app keeps of a counted charge whose money counts (its `reportPrice`
    /// set), paid in the country of label `country` (-1: none).
    func proceeds(of charge: DetailedEvent, country: Int32) -> Double {
        let price = charge.reportPrice ?? 0
        let details = charge.details
        if details.fees.areStated {
            return price * (1 - Double(Int64(details.fees.tax) + Int64(details.fees.commission)) / Double(LogRecord.wholeShare))
        }
        let tax = country >= 0 ? taxShares[Int(country)] : 0
        let commissions = details.store >= 0 ? storeCommissions[Int(details.store)] : unnamedStore
        return price * (1 - tax) * (1 - (isPastFirstYear(charge) ? commissions.later : commissions.firstYear))
    }

    /// A renewal whose chain's first paid charge is at least 365 days before it.
    @inline(__always)
    func isPastFirstYear(_ charge: DetailedEvent) -> Bool {
        let chain = charge.details.originalTransaction
        guard charge.type == .renewal, chain >= 0, Int(chain) < chainStarts.count else { return false }
        let start = chainStarts[Int(chain)]
        return start != Int64.max && charge.timestamp - start >= 365 * Microseconds.perDay
    }
}

extension UserEvents {
    /// Per transaction id (of `transactionCount`), the earliest time of a purchase or renewal
    /// with that `original_transaction_id`, `Int64.max` for none: the first paid charge of each
    /// chain, whoever's and whether it counts for a test or not (docs/analysis.md §8).
    package func chainStarts(transactionCount: Int) -> [Int64] {
        var starts = [Int64](repeating: Int64.max, count: transactionCount)
        for event in events where event.details >= 0 && (event.eventType == .purchase || event.eventType == .renewal) {
            let chain = details[Int(event.details)].originalTransaction
            if chain >= 0 && event.timestamp < starts[Int(chain)] { starts[Int(chain)] = event.timestamp }
        }
        return starts
    }
}

/// A counted event with its details, as `Attribution.evaluate` keeps it for the matches that
/// follow (refunds to their transactions, trials to purchases).
struct DetailedEvent {
    var timestamp: Int64
    var type: EventType
    var details: EventDetails
    /// A charge's price in the report currency; nil until known (nil: no rate).
    var reportPrice: Double? = nil
    /// What the app keeps of a charge (docs/analysis.md §8); 0 without a rate.
    var proceeds = 0.0
    /// A charge that a counted refund names.
    var isRefunded = false
}

private struct ProductKey: Hashable {
    var group: Int
    var product: Int32
}

/// What `Attribution.evaluate` reuses from one member to the next: its buffers, and the
/// member's money and products, which the outcome leaves out so that it holds no array (an
/// outcome with arrays was copied, and they retained and released, for every member and day).
struct EvaluationScratch {
    /// The counted events a refund can name (`EventType.isRefundable`).
    var countedTransactions: [DetailedEvent] = []
    var trials: [DetailedEvent] = []
    var purchases: [DetailedEvent] = []
    /// The member's counted money, per currency.
    var money = CurrencyAmounts()
    /// The member's counted money events, per product.
    var products: [ProductContribution] = []
    /// The member's `cancel`s (renewal turned off) in the window that have a chain, for the
    /// projection alone.
    var cancels: [ProductContribution] = []
    /// The currency of each of the member's counted money events that has no rate.
    var unconvertibleCurrencies: [Int32] = []

    mutating func reset() {
        countedTransactions.removeAllKeepingCapacity()
        trials.removeAllKeepingCapacity()
        purchases.removeAllKeepingCapacity()
        money.removeAll()
        products.removeAllKeepingCapacity()
        cancels.removeAllKeepingCapacity()
        unconvertibleCurrencies.removeAllKeepingCapacity()
    }
}

/// One user's values within an offering (docs/analysis.md §3), money in the report currency.
struct UserOutcome {
    var converted = false
    var trialStarted = false
    var trialConverted = false
    var viewedPaywall = false
    var purchases = 0
    var renewals = 0
    var refunds = 0
    /// One value, written whole: written as two numbers, they were read back (by
    /// `GroupTotals.add`, right after `evaluate`) as one 16-byte load, which then waited for the
    /// two stores to reach the cache (a store is forwarded to a load only whole), for every
    /// member and day.
    var grossAndRefundedRevenue = SIMD2<Double>()
    var netRevenue = 0.0
    var netProceeds = 0.0
    /// docs/analysis.md §8: the proceeds of the counted charges before refunds, and of those
    /// whose fees the record states (one value, as `grossAndRefundedRevenue`).
    var chargeAndExactProceeds = SIMD2<Double>()
    /// docs/analysis.md §9: the state of the member's trial (nil: no trial), and of their subscription.
    var trial: TrialState?
    var isActiveSubscriber = false
    /// The offering counters this user's events add.
    var quality = OfferingQuality()

    /// Back to no events.
    mutating func reset() { self = UserOutcome() }
}

extension GroupTotals {
    /// Adds one member's outcome: what each count and sum of docs/analysis.md §3–§4 takes from it.
    mutating func add(_ outcome: UserOutcome) {
        counts[.users] += 1
        if outcome.converted { counts[.converters] += 1 }
        if outcome.trialStarted { counts[.trialStarters] += 1 }
        if outcome.trialConverted { counts[.trialConverters] += 1 }
        if outcome.viewedPaywall { counts[.paywallViewers] += 1 }
        counts[.purchases] += outcome.purchases
        counts[.renewals] += outcome.renewals
        counts[.refunds] += outcome.refunds
        if outcome.refunds > 0 { counts[.refundUsers] += 1 }
        switch outcome.trial {
        case .converted: counts[.trialsConverted] += 1
        case .pending: counts[.trialsPending] += 1
        case .lapsed: counts[.trialsLapsed] += 1
        case .unknown: counts[.trialsUnknown] += 1
        case nil: break
        }
        if outcome.isActiveSubscriber {
            counts[.activeSubscribers] += 1
        } else if outcome.converted {
            counts[.churnedSubscribers] += 1
        }
        money[.revenueSum] += outcome.netRevenue
        money[.revenueSumSquares] += outcome.netRevenue * outcome.netRevenue
        money[.grossRevenue] += outcome.grossAndRefundedRevenue.x
        money[.refundedRevenue] += outcome.grossAndRefundedRevenue.y
        money[.proceedsSum] += outcome.netProceeds
        money[.proceedsSumSquares] += outcome.netProceeds * outcome.netProceeds
        money[.chargeProceedsSum] += outcome.chargeAndExactProceeds.x
        money[.exactProceedsSum] += outcome.chargeAndExactProceeds.y
    }
}

/// Where a member's earliest trial stands (docs/analysis.md §9).
enum TrialState {
    /// The member is `trial_converted`.
    case converted
    /// Not converted, and its `expires_at` is after the cutoff.
    case pending
    /// Not converted, and its `expires_at` is at or before the cutoff.
    case lapsed
    /// Not converted, and without `expires_at`.
    case unknown
}

extension Array {
    /// Empties the array, keeping its storage. `removeAll(keepingCapacity:)` goes through a
    /// generic replacement of the elements even when there are none, and the buffers of
    /// `evaluate`, mostly empty, are emptied for every member and day.
    @inline(__always)
    mutating func removeAllKeepingCapacity() {
        if !isEmpty { removeAll(keepingCapacity: true) }
    }
}
