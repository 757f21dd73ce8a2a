import OfferLabEvents
import OfferLabIngest
import OfferLabVocabulary

/// The rules of attribution (docs/analysis.md, "Attribution, per analysed offering O and member
/// u", and "3. Per user"), stated apart from the loop that applies them to every member and day
/// (`Attribution.evaluate`).
///
/// A non-refund event is placed by its own time (``placement(of:assignedAt:window:)``); a refund
/// is not: it counts when the transaction it names is a counted purchase or renewal
/// (``refundedTransaction(of:among:)``), even after the window, and is an orphan otherwise.
package enum AttributionRules {
    /// Where a non-refund event falls for a member of an offering.
    enum Placement: Equatable {
        /// Before the assignment: counted in `pre_assignment_events`, nothing else.
        case beforeAssignment
        /// It counts for the member.
        case counted
        /// At or after the end of the conversion window: it counts nowhere.
        case afterWindow
    }

    /// The conversion window W of `conversion_window_days` in microseconds, to the nearest.
    package static func windowMicroseconds(days: Double) -> Int64 {
        Int64((days * Microseconds.perDayAsDouble).rounded())
    }

    /// The whole tenure day from which a member's value no longer changes: the window W's end,
    /// rounded up (`TenureProfile.finalFrom`); nil without a window.
    package static func finalTenureDay(windowMicroseconds window: Int64?) -> Int? {
        window.map { Int(($0 + Microseconds.perDay - 1) / Microseconds.perDay) }
    }

    /// A non-refund event counts from the assignment on (`assigned_at <= ts`) and, with a
    /// conversion window W, until `assigned_at + W` (excluded). The SQL scripts state the same
    /// rule (`ScriptBuilder.analyse`, `counts`).
    ///
    /// - Parameters:
    ///   - timestamp: the event's `ts`, in microseconds.
    ///   - assignedAt: the member's `assigned_at`, in microseconds.
    ///   - window: W in microseconds; nil: no window.
    @inline(__always)
    static func placement(of timestamp: Int64, assignedAt: Int64, window: Int64?) -> Placement {
        if timestamp < assignedAt { return .beforeAssignment }
        if let window, timestamp >= assignedAt + window { return .afterWindow }
        return .counted
    }

    /// The transaction a refund returns money for: among the member's counted refundable events
    /// (`EventType.isRefundable`, in time order), the purchase with the refund's `transaction_id`,
    /// else the first renewal with it. nil: the refund is an orphan (`orphan_refunds`) and
    /// changes nothing.
    static func refundedTransaction(of transaction: Int32, among counted: [DetailedEvent]) -> DetailedEvent? {
        refundedTransactionIndex(of: transaction, among: counted).map { counted[$0] }
    }

    /// The index in `counted` of `refundedTransaction(of:among:)`'s event.
    static func refundedTransactionIndex(of transaction: Int32, among counted: [DetailedEvent]) -> Int? {
        counted.firstIndex { $0.details.transaction == transaction && $0.type == .purchase }
            ?? counted.firstIndex { $0.details.transaction == transaction }
    }

    /// Whether a counted `cancel` has no chain to turn off (`chainless_cancels`): nothing of its
    /// chain started at or before it. Its chain is its `original_transaction_id`; without one,
    /// its `product_id` among the charges that have none, as the projection keys chains
    /// (`GroupObservation`). A counted purchase or renewal starts it by that key; a counted trial
    /// (a cancel in a trial turns the trial's renewal off, as users do every day) as the trial's
    /// purchase would match it (`convertsTrial`). Such a cancel changes nothing.
    static func isChainless(_ cancel: ProductContribution, charges: [DetailedEvent], trials: [DetailedEvent]) -> Bool {
        let charged = charges.contains { charge in
            charge.timestamp <= cancel.timestamp && charge.details.originalTransaction == cancel.chain
                && (cancel.chain >= 0 || charge.details.product == cancel.chargeProduct)
        }
        return !charged
            && !trials.contains { trial in
                trial.timestamp <= cancel.timestamp
                    && isInChain(of: trial, originalTransaction: cancel.chain, product: cancel.chargeProduct)
            }
    }

    /// What a counted refund returns: its own price in its own currency; without a price, the
    /// whole price of the refunded transaction, in that one's currency.
    @inline(__always)
    static func refundAmount(refund: EventDetails, refunded: EventDetails) -> (currency: Int32, amount: Int64) {
        refund.price != EventRecord.noPrice ? (refund.currency, refund.price) : (refunded.currency, refunded.price)
    }

    /// Whether a counted event disagrees with the server's assignment (docs/analysis.md,
    /// "Attribution"): it names the offering and another group than the member's; or it names an
    /// offering the user does not belong to; or it names no offering and a group that is none of
    /// the user's groups in any offering. An event naming another offering the user belongs to is
    /// that test's event (tests overlap: the app logs the test whose paywall it showed). An absent
    /// field does not disagree. Each counted event that disagrees, refunds included, counts once
    /// in `attribution_mismatches`, however many of its fields disagree.
    ///
    /// - Parameters:
    ///   - loggedOffering, loggedGroup: the event's label ids; negative when absent.
    ///   - offering, group: the offering's `offering_id` and the member's group name as label ids;
    ///     nil when no event logged them.
    ///   - affiliations: the user's other memberships, read only when the event names another
    ///     offering or no offering and another group.
    @inline(__always)
    static func disagrees(
        loggedOffering: Int32, loggedGroup: Int32, offering: Int32?, group: Int32?, user: Int32, affiliations: Affiliations
    ) -> Bool {
        if loggedOffering >= 0 {
            if loggedOffering == offering { return loggedGroup >= 0 && loggedGroup != group }
            return !affiliations.belongs(user: user, offering: loggedOffering)
        }
        guard loggedGroup >= 0, loggedGroup != group else { return false }
        return !affiliations.hasGroup(user: user, group: loggedGroup)
    }

    /// Whether a counted purchase converts a counted trial (`trial_converted`): it comes at or
    /// after the trial, in the same subscription chain: the same `original_transaction_id` when
    /// the trial has one (a purchase without one does not match), otherwise the same
    /// `product_id`.
    @inline(__always)
    static func convertsTrial(purchase: DetailedEvent, trial: DetailedEvent) -> Bool {
        purchase.timestamp >= trial.timestamp
            && isInChain(of: trial, originalTransaction: purchase.details.originalTransaction, product: purchase.details.product)
    }

    /// Whether an event with these ids is in `trial`'s chain: the same `original_transaction_id`
    /// when the trial has one, otherwise the same `product_id`.
    @inline(__always)
    private static func isInChain(of trial: DetailedEvent, originalTransaction: Int32, product: Int32) -> Bool {
        trial.details.originalTransaction >= 0 ? originalTransaction == trial.details.originalTransaction : product == trial.details.product
    }
}
